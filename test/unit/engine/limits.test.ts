import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS } from '../../../src/defaults.js'
import { createEngine } from '../../../src/engine/engine.js'
import type { LimitOptions } from '../../../src/engine/api.js'
import { checkPatchSize } from '../../../src/bytes/patch-input.js'
import { checkFileCount } from '../../../src/engine/limits.js'
import { EditError } from '../../../src/errors.js'
import type { EditPlan } from '../../../src/types.js'

let root: string
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'patchloom-limits-'))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

async function rejection(limits: LimitOptions, patch: string): Promise<EditError> {
  const engine = createEngine({ root, workers: false, limits })
  try {
    const error = await engine.apply(patch).then(
      () => undefined,
      (e: unknown) => e,
    )
    if (!(error instanceof EditError))
      throw new Error(`expected an EditError, got ${String(error)}`)
    return error
  } finally {
    await engine.close()
  }
}

const addFile = (p: string, body: string) =>
  `*** Begin Patch\n*** Add File: ${p}\n+${body}\n*** End Patch\n`

describe('checkPatchSize', () => {
  it('counts UTF-8 bytes, not string length', () => {
    expect(() => checkPatchSize('é'.repeat(10), 20)).not.toThrow()
    expect(() => checkPatchSize('é'.repeat(11), 21)).toThrow(
      'The patch is 22 bytes, over the 21-byte patch size limit.',
    )
    expect(() => checkPatchSize('x'.repeat(21), 21)).not.toThrow()
  })
})

describe('checkFileCount', () => {
  it('allows exactly the limit and refuses one more', () => {
    const plan = (n: number) =>
      ({
        format: 'codex',
        ops: Array.from({ length: n }, (_, i) => ({
          kind: 'delete',
          path: `f${i}`,
          patchLine: i + 2,
          hunks: [],
        })),
      }) as unknown as EditPlan
    expect(() => checkFileCount(plan(3), 3)).not.toThrow()
    expect(() => checkFileCount(plan(4), 3)).toThrow(/changes 4 files, over the limit of 3/)
  })
})

describe('engine limits', () => {
  it('documents sensible defaults for agent farms', () => {
    expect(DEFAULT_LIMITS).toEqual({
      maxPatchBytes: 256 * 1024 * 1024,
      maxFileBytes: 64 * 1024 * 1024,
      maxFiles: 100_000,
    })
  })

  it('refuses a patch over maxPatchBytes before parsing it', async () => {
    // Not a patch at all: only the size check can have produced the error.
    const error = await rejection({ maxPatchBytes: 10 }, 'garbage that is not any patch format')
    expect(error).toMatchObject({ code: 'LIMIT_PATCH_TOO_LARGE', retryable: false })
    expect(error.message).toBe('The patch is 36 bytes, over the 10-byte patch size limit.')
  })

  it('refuses more than maxFiles operations after parsing', async () => {
    const patch = `*** Begin Patch\n*** Add File: a\n+a\n*** Add File: b\n+b\n*** End Patch\n`
    expect((await rejection({ maxFiles: 1 }, patch)).code).toBe('LIMIT_TOO_MANY_FILES')
    await expect(readFile(path.join(root, 'a'))).rejects.toThrow()
  })

  it('refuses to read a file over maxFileBytes, naming it', async () => {
    await writeFile(path.join(root, 'big.txt'), 'one\n'.repeat(10))
    const patch = `*** Begin Patch\n*** Update File: big.txt\n@@\n-one\n+ONE\n*** End Patch\n`
    const error = await rejection({ maxFileBytes: 39 }, patch)
    expect(error).toMatchObject({ code: 'LIMIT_FILE_TOO_LARGE', path: 'big.txt', patchLine: 2 })
    expect(error.message).toBe('big.txt is 40 bytes, over the 39-byte file size limit.')
  })

  it('refuses a result over maxFileBytes before commit', async () => {
    const error = await rejection({ maxFileBytes: 8 }, addFile('out.txt', '123456789'))
    expect(error).toMatchObject({ code: 'LIMIT_FILE_TOO_LARGE', path: 'out.txt' })
    expect(error.message).toContain('would be 10 bytes after the change')
    await expect(readFile(path.join(root, 'out.txt'))).rejects.toThrow()
  })

  it('applies a change that fits every limit exactly', async () => {
    const patch = addFile('ok.txt', '1234567')
    const engine = createEngine({
      root,
      workers: false,
      limits: { maxPatchBytes: patch.length, maxFileBytes: 8, maxFiles: 1 },
    })
    try {
      await engine.apply(patch)
    } finally {
      await engine.close()
    }
    expect(await readFile(path.join(root, 'ok.txt'), 'utf8')).toBe('1234567\n')
  })

  it('stops inflating a binary patch at maxFileBytes', async () => {
    const patch = await readFile(
      new URL(
        '../../scenarios/628_binary_patch_inflating_past_file_limit_is_rejected/patch.diff',
        import.meta.url,
      ),
      'utf8',
    )
    const error = await rejection({ maxFileBytes: 1000 }, patch)
    expect(error).toMatchObject({ code: 'LIMIT_FILE_TOO_LARGE', path: 'z.bin' })
    expect(error.message).toContain('inflates to more than the 1000-byte file size limit')
  })
})
