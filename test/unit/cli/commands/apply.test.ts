import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readPatchInput } from '../../../../src/cli/commands/apply.js'
import type { CliIo } from '../../../../src/cli/types.js'

let dir: string
let stdinReads: number
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'patchloom-cli-apply-'))
  stdinReads = 0
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function io(stdin: string): CliIo {
  return {
    stdin: () => {
      stdinReads++
      return Promise.resolve(stdin)
    },
    stdout: () => undefined,
    stderr: () => undefined,
    cwd: dir,
  }
}

describe('readPatchInput', () => {
  it('refuses a patch file over the limit from its size', async () => {
    await writeFile(path.join(dir, 'big.patch'), 'x'.repeat(65))
    await expect(readPatchInput('big.patch', io(''), 64)).rejects.toMatchObject({
      code: 'LIMIT_PATCH_TOO_LARGE',
      message: "The patch file 'big.patch' is 65 bytes, over the 64-byte patch size limit.",
    })
    expect(await readPatchInput('big.patch', io(''), 65)).toHaveLength(65)
  })

  it('refuses stdin over the limit', async () => {
    await expect(readPatchInput(null, io('é'.repeat(33)), 64)).rejects.toMatchObject({
      code: 'LIMIT_PATCH_TOO_LARGE',
    })
    expect(stdinReads).toBe(1)
  })

  it('keeps USAGE_INVALID for a patch file that cannot be read', async () => {
    await expect(readPatchInput('missing.patch', io(''))).rejects.toMatchObject({
      code: 'USAGE_INVALID',
    })
  })
})
