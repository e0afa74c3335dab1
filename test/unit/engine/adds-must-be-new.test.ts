// The internal addsMustBeNew request option: a Codex Add File over an existing file is refused
// with FILE_EXISTS and the file is left as it was; without it the Add File replaces the file.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEngineWithInternals } from '../../../src/engine/engine.js'

let root: string
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'patchloom-adds-new-'))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const ADD = '*** Begin Patch\n*** Add File: a.txt\n+new\n*** End Patch\n'

describe('addsMustBeNew', () => {
  it('refuses an Add File over an existing file and writes nothing', async () => {
    await writeFile(path.join(root, 'a.txt'), 'old\n')
    const engine = createEngineWithInternals({ root, workers: false, durability: 'fast' })
    await expect(engine.apply(ADD, { addsMustBeNew: true })).rejects.toMatchObject({
      code: 'FILE_EXISTS',
      path: 'a.txt',
    })
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('old\n')
    expect(await engine.transactions()).toEqual([])
    await engine.close()
  })

  it('creates a missing file as the Add File states it', async () => {
    const engine = createEngineWithInternals({ root, workers: false, durability: 'fast' })
    const result = await engine.apply(ADD, { addsMustBeNew: true })
    expect(result.files.map((f) => [f.path, f.op])).toEqual([['a.txt', 'add']])
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('new\n')
    await engine.close()
  })

  it('leaves the Codex rule alone when not set: the Add File replaces the file', async () => {
    await writeFile(path.join(root, 'a.txt'), 'old\n')
    const engine = createEngineWithInternals({ root, workers: false, durability: 'fast' })
    await engine.apply(ADD)
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('new\n')
    await engine.close()
  })
})
