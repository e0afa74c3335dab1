// The public API is src/index.ts's explicit list (house style: it fits on one screen). Runtime
// exports and the names of the exported types are pinned here; the type assertions are checked by
// `npm run typecheck`. DECISIONS.md D-103..D-108 settle the surface: what is not listed is
// internal.
import { readFileSync } from 'node:fs'
import { describe, expect, expectTypeOf, it } from 'vitest'
import * as api from '../../src/index.js'
import type {
  ApplyManyOptions,
  ApplyOptions,
  ApplyResult,
  BatchJob,
  BatchJobOptions,
  BatchResult,
  CheckOptions,
  EditErrorData,
  Engine,
  EngineDiagnosticsOptions,
  EngineOptions,
  FileResult,
  LanguageServerOptions,
  PatchSummary,
  RecoveryReport,
  TransactionInfo,
  UndoResult,
  Warning,
  WarningCode,
  WorkerOptions,
} from '../../src/index.js'

/** Every name in src/index.ts's `export type { ... }` lists, sorted. */
function exportedTypeNames(): string[] {
  const source = readFileSync(new URL('../../src/index.ts', import.meta.url), 'utf8')
  const names: string[] = []
  for (const m of source.matchAll(/export type \{([^}]*)\}/g)) {
    for (const name of (m[1] ?? '').split(',')) if (name.trim() !== '') names.push(name.trim())
  }
  return names.sort()
}

describe('public API', () => {
  it('exports exactly the documented values', () => {
    expect(Object.keys(api).sort()).toEqual([
      'ERROR_CODES',
      'EditError',
      'WARNING_CODES',
      'applyMany',
      'createEngine',
      'detectFormat',
      'isEditError',
      'parsePatch',
      'replay',
    ])
  })

  it('exports exactly the documented types: options, results, errors, diagnostics, journal, replay', () => {
    expect(exportedTypeNames()).toEqual([
      'ApplyManyOptions',
      'ApplyOptions',
      'ApplyResult',
      'ApprovalRequest',
      'ApproveFn',
      'BatchJob',
      'BatchJobOptions',
      'BatchResult',
      'Candidate',
      'CheckOptions',
      'DiagnosticSeverity',
      'DiagnosticsOptions',
      'DiagnosticsReport',
      'Durability',
      'EditErrorData',
      'Engine',
      'EngineDiagnosticsOptions',
      'EngineOptions',
      'ErrorCode',
      'FallbackReason',
      'FileDiagnostic',
      'FileMode',
      'FileResult',
      'FormatOption',
      'HunkRefusal',
      'JournalConflict',
      'JournalOptions',
      'LanguageServerOptions',
      'LimitOptions',
      'LogFields',
      'Logger',
      'ParsePatchOptions',
      'PatchFileSummary',
      'PatchFormat',
      'PatchSummary',
      'RecoveryReport',
      'ReplayCommit',
      'ReplayMismatch',
      'ReplayMisplaced',
      'ReplayOptions',
      'ReplayReport',
      'ReplayVia',
      'ResultOp',
      'ServerReport',
      'ServerState',
      'SettleSignal',
      'TransactionFile',
      'TransactionInfo',
      'TransactionStatus',
      'Tree',
      'TreeFile',
      'UndoResult',
      'Warning',
      'WarningCode',
      'WorkerOptions',
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

  it('gives applyMany jobs in and results out, both streamed', () => {
    expectTypeOf(api.applyMany)
      .parameter(0)
      .toEqualTypeOf<AsyncIterable<BatchJob> | Iterable<BatchJob>>()
    expectTypeOf(api.applyMany).returns.toMatchTypeOf<AsyncIterable<BatchResult>>()
    expectTypeOf<BatchResult['id']>().toEqualTypeOf<string | number | null>()
    expectTypeOf<BatchResult['ok']>().toEqualTypeOf<boolean>()
    expectTypeOf<BatchJob['options']>().toEqualTypeOf<BatchJobOptions | undefined>()
    expectTypeOf<'format' extends keyof BatchJobOptions ? true : false>().toEqualTypeOf<false>()
    expectTypeOf<ApplyManyOptions['concurrency']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<'root' extends keyof ApplyManyOptions ? true : false>().toEqualTypeOf<false>()
  })

  it('names the worker threads and the language servers apart', () => {
    expectTypeOf<EngineOptions['workers']>().toEqualTypeOf<WorkerOptions | false | undefined>()
    expectTypeOf<EngineDiagnosticsOptions['servers']>().toEqualTypeOf<
      LanguageServerOptions | undefined
    >()
    expectTypeOf<'pool' extends keyof EngineOptions ? true : false>().toEqualTypeOf<false>()
    expectTypeOf<
      'pool' extends keyof EngineDiagnosticsOptions ? true : false
    >().toEqualTypeOf<false>()
  })

  it('gives check its own options and keeps route internal', () => {
    expectTypeOf<Parameters<Engine['check']>[1]>().toEqualTypeOf<CheckOptions | undefined>()
    expectTypeOf<keyof CheckOptions>().toEqualTypeOf<
      'format' | 'signal' | 'timeoutMs' | 'diffs' | 'binaryWithoutData' | 'finalNewline'
    >()
    expectTypeOf<keyof ApplyOptions>().toEqualTypeOf<
      | 'format'
      | 'signal'
      | 'timeoutMs'
      | 'diffs'
      | 'binaryWithoutData'
      | 'finalNewline'
      | 'dryRun'
      | 'approve'
      | 'diagnostics'
    >()
  })

  it('resolves apply and check with a result that has no ok field', () => {
    expectTypeOf<'ok' extends keyof ApplyResult ? true : false>().toEqualTypeOf<false>()
  })

  it('parses a patch into a summary and throws EditError like the engine', () => {
    expectTypeOf(api.parsePatch).returns.toEqualTypeOf<PatchSummary>()
    expectTypeOf(api.parsePatch).parameter(0).toEqualTypeOf<string | Uint8Array>()
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+one\n*** End Patch\n'
    expect(api.parsePatch(patch)).toEqual({
      format: 'codex',
      files: [{ path: 'a.txt', op: 'add', additions: 1, deletions: 0 }],
    })
    expect(() => api.parsePatch('please change the greeting\n')).toThrow(api.EditError)
    expectTypeOf<keyof api.ParsePatchOptions>().toEqualTypeOf<'binaryWithoutData'>()
    const bad = { binaryWithoutData: 'drop' } as unknown as api.ParsePatchOptions
    expect(() => api.parsePatch(patch, 'auto', bad)).toThrow(/binaryWithoutData must be/)
  })

  it('types Warning.code as the union of its codes', () => {
    expectTypeOf<Warning['code']>().toEqualTypeOf<WarningCode>()
    expectTypeOf<'match.lenient'>().toMatchTypeOf<WarningCode>()
    expectTypeOf<'journal.unsafe-path'>().toMatchTypeOf<WarningCode>()
    expectTypeOf<'add.overwrote'>().not.toMatchTypeOf<WarningCode>()
  })
})
