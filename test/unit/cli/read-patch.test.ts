import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CliIo } from '../../../src/cli/io.js'
import { readLimited, readPatchInput } from '../../../src/cli/read-patch.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'patchloom-cli-read-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** An io whose stdin yields `chunks` and records how many of them were pulled. */
function io(chunks: readonly (string | Uint8Array)[] = []): CliIo & { pulled: () => number } {
  let pulled = 0
  return {
    stdin: () =>
      (function* () {
        for (const chunk of chunks) {
          pulled++
          yield chunk
        }
      })(),
    stdout: () => undefined,
    stderr: () => undefined,
    cwd: dir,
    pulled: () => pulled,
  }
}

describe('readPatchInput', () => {
  it('refuses a patch file over the limit from its size, naming the flag', async () => {
    await writeFile(path.join(dir, 'big.patch'), 'x'.repeat(65))
    await expect(readPatchInput('big.patch', io(), 64)).rejects.toMatchObject({
      code: 'LIMIT_PATCH_TOO_LARGE',
      message:
        "The patch file 'big.patch' is 65 bytes, over the 64-byte patch size limit; raise it with --max-patch-bytes N.",
    })
    expect(await readPatchInput('big.patch', io(), 65)).toHaveLength(65)
  })

  it('reads a patch file as its bytes, not as UTF-8 text', async () => {
    const bytes = Uint8Array.from([0x2b, 0x63, 0x61, 0x66, 0xe9, 0x0a, 0xff, 0xfe])
    await writeFile(path.join(dir, 'latin1.diff'), bytes)
    expect(await readPatchInput('latin1.diff', io())).toEqual(Buffer.from(bytes))
  })

  it('stops reading stdin at the first chunk past the limit', async () => {
    const stdin = io(['x'.repeat(40), 'é'.repeat(20), 'never pulled', 'never pulled'])
    await expect(readPatchInput(null, stdin, 64)).rejects.toMatchObject({
      code: 'LIMIT_PATCH_TOO_LARGE',
      message:
        'The patch on stdin is over the 64-byte patch size limit; raise it with --max-patch-bytes N.',
    })
    // 40 + 40 bytes passed the limit in the second chunk; the third was never asked for.
    expect(stdin.pulled()).toBe(2)
  })

  it('joins stdin chunks byte for byte, up to exactly the limit', async () => {
    const bytes = await readPatchInput(null, io([Uint8Array.from([0xc3]), 'x', 'é']), 4)
    expect(bytes).toEqual(Buffer.from([0xc3, 0x78, 0xc3, 0xa9]))
  })

  it('keeps USAGE_INVALID for a patch file that cannot be read', async () => {
    await expect(readPatchInput('missing.patch', io())).rejects.toMatchObject({
      code: 'USAGE_INVALID',
    })
    await expect(readPatchInput('.', io())).rejects.toMatchObject({ code: 'USAGE_INVALID' })
  })
})

describe('readLimited', () => {
  it('reads an empty stream as no bytes', async () => {
    expect(await readLimited([], 0, { kind: 'stdin' })).toHaveLength(0)
  })
})
