import { describe, expect, it } from 'vitest'
import { DEFAULT_DENY_GLOBS, DEFAULT_LIMITS } from '../../../src/defaults.js'
import { resolveConfig } from '../../../src/engine/config.js'
import type { EngineOptions } from '../../../src/engine/api.js'
import { EditError } from '../../../src/errors.js'

function invalidMessage(options: unknown): string {
  try {
    resolveConfig(options as EngineOptions)
  } catch (error) {
    expect(error).toBeInstanceOf(EditError)
    expect((error as EditError).code).toBe('CONFIG_INVALID')
    return (error as EditError).message
  }
  throw new Error('expected CONFIG_INVALID')
}

describe('resolveConfig', () => {
  it('denies .git anywhere and the .patchloom journal by default', () => {
    expect(resolveConfig({ root: '/ws' }).denyGlobs).toEqual(DEFAULT_DENY_GLOBS)
    expect(DEFAULT_DENY_GLOBS).toEqual(expect.arrayContaining(['.patchloom', '.patchloom/**']))
  })

  it('refuses renamed options, naming the new ones, rather than ignore them', () => {
    expect(invalidMessage({ root: '/ws', pool: false })).toBe(
      'Invalid option: pool was renamed to workers.',
    )
    expect(invalidMessage({ root: '/ws', diagnostics: { pool: { maxServers: 1 } } })).toBe(
      'Invalid option: diagnostics.pool was renamed to diagnostics.servers.',
    )
    expect(resolveConfig({ root: '/ws', workers: false }).workers).toBe(false)
    expect(resolveConfig({ root: '/ws', workers: { maxThreads: 2 } }).workers).toMatchObject({
      maxThreads: 2,
    })
    expect(invalidMessage({ root: '/ws', workers: { maxThreads: 0 } })).toContain(
      'workers.maxThreads must be at least 1 (use workers: false',
    )
  })

  it('reads files awaited unless blockingReads is set, and refuses a non-boolean', () => {
    expect(resolveConfig({ root: '/ws' }).blockingReads).toBe(false)
    expect(resolveConfig({ root: '/ws', blockingReads: true }).blockingReads).toBe(true)
    expect(invalidMessage({ root: '/ws', blockingReads: 'yes' })).toContain(
      'blockingReads must be true or false',
    )
  })

  it('fills unset limits from the defaults', () => {
    expect(resolveConfig({ root: '/ws' }).limits).toEqual(DEFAULT_LIMITS)
    expect(resolveConfig({ root: '/ws', limits: { maxFiles: 5 } }).limits).toEqual({
      ...DEFAULT_LIMITS,
      maxFiles: 5,
    })
  })

  it('refuses limits that are not positive integers, or unknown limit names', () => {
    expect(invalidMessage({ root: '/ws', limits: { maxFiles: 0 } })).toContain('limits.maxFiles')
    expect(invalidMessage({ root: '/ws', limits: { maxPatchBytes: 1.5 } })).toContain(
      'limits.maxPatchBytes must be a positive integer',
    )
    expect(invalidMessage({ root: '/ws', limits: { maxFileBytes: '1' } })).toContain(
      'limits.maxFileBytes',
    )
    expect(invalidMessage({ root: '/ws', limits: { maxBytes: 1 } })).toContain(
      'limits.maxBytes is unknown',
    )
    expect(invalidMessage({ root: '/ws', limits: 5 })).toContain('limits must be an object')
  })
})
