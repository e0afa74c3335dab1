// ApplyOptions.finalNewline on the inline route: 'keep' keeps each updated file's final-newline
// state whatever the format's rule, in a dry run and a commit alike; other values are refused.
// The same cases run on the worker threads in test/integration/final-newline-pool.test.ts.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEngine } from '../../../src/engine/engine.js'
import { hashBytes } from '../../../src/hash.js'
import { FINAL_NEWLINE_CASES } from '../../helpers/final-newline-cases.js'

let root: string
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'patchloom-final-newline-'))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

async function write(files: Readonly<Record<string, string>>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) await writeFile(path.join(root, rel), text)
}

async function read(files: Readonly<Record<string, string>>): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const rel of Object.keys(files)) out[rel] = await readFile(path.join(root, rel), 'utf8')
  return out
}

describe('ApplyOptions.finalNewline', () => {
  for (const c of FINAL_NEWLINE_CASES) {
    it(`follows the format's rule with format and keeps the file's state with keep: ${c.name}`, async () => {
      const engine = createEngine({ root, workers: false, durability: 'fast' })
      await write(c.files)
      await engine.apply(c.patch, { format: c.format, finalNewline: 'format' })
      expect(await read(c.byFormat)).toEqual(c.byFormat)

      await rm(root, { recursive: true, force: true })
      root = await mkdtemp(path.join(tmpdir(), 'patchloom-final-newline-'))
      const keeping = createEngine({ root, workers: false, durability: 'fast' })
      await write(c.files)
      const checked = await keeping.check(c.patch, { format: c.format, finalNewline: 'keep' })
      expect(await read(c.files)).toEqual(c.files)
      const applied = await keeping.apply(c.patch, { format: c.format, finalNewline: 'keep' })
      expect(await read(c.kept)).toEqual(c.kept)
      const hashes = Object.fromEntries(
        Object.entries(c.kept).map(([rel, text]) => [rel, hashBytes(Buffer.from(text))]),
      )
      for (const result of [checked, applied]) {
        expect(Object.fromEntries(result.files.map((f) => [f.path, f.afterHash]))).toEqual(hashes)
      }
    })
  }

  it('refuses a value other than format or keep', async () => {
    const engine = createEngine({ root, workers: false, durability: 'fast' })
    await write({ 'f.txt': 'a\n' })
    const patch = '*** Begin Patch\n*** Update File: f.txt\n-a\n+b\n*** End Patch\n'
    for (const value of ['yes', true, null]) {
      await expect(engine.apply(patch, { finalNewline: value as never })).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
        message: `Invalid option: finalNewline must be format or keep; got ${JSON.stringify(value)}.`,
      })
    }
    expect(await read({ 'f.txt': '' })).toEqual({ 'f.txt': 'a\n' })
  })
})
