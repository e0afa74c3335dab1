// The public API is src/index.ts's explicit list (house style: it fits on one screen). Runtime
// exports are pinned here; the type assertions are checked by `npm run typecheck`.
import { describe, expect, expectTypeOf, it } from 'vitest'
import * as api from '../../src/index.js'
import type {
  ApplyResult,
  EditErrorData,
  Engine,
  EngineOptions,
  FileResult,
  RecoveryReport,
  TransactionInfo,
  UndoResult,
} from '../../src/index.js'

describe('public API', () => {
  it('exports exactly the documented values', () => {
    expect(Object.keys(api).sort()).toEqual([
      'ERROR_CODES',
      'EditError',
      'createEngine',
      'detectFormat',
      'isEditError',
      'parsePatch',
      'replay',
    ])
  })

  it('has the documented shapes', () => {
    expectTypeOf(api.createEngine).parameter(0).toEqualTypeOf<EngineOptions>()
    expectTypeOf(api.createEngine).returns.toEqualTypeOf<Engine>()
    expectTypeOf<Engine['apply']>().returns.toEqualTypeOf<Promise<ApplyResult>>()
    expectTypeOf<Engine['check']>().returns.toEqualTypeOf<Promise<ApplyResult>>()
    expectTypeOf<FileResult['op']>().toEqualTypeOf<'add' | 'update' | 'delete' | 'move' | 'copy'>()
    expectTypeOf<FileResult['beforeHash']>().toEqualTypeOf<string | null>()
    expectTypeOf<EditErrorData['code']>().toEqualTypeOf<api.ErrorCode>()
    expectTypeOf<api.EditError>().toMatchTypeOf<Error>()
    expectTypeOf<Engine['undo']>().returns.toEqualTypeOf<Promise<UndoResult>>()
    expectTypeOf<Engine['recover']>().returns.toEqualTypeOf<Promise<RecoveryReport>>()
    expectTypeOf<Engine['transactions']>().returns.toEqualTypeOf<Promise<TransactionInfo[]>>()
    expectTypeOf<ApplyResult['transaction']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<EngineOptions['durability']>().toEqualTypeOf<'full' | 'fast' | undefined>()
  })
})
