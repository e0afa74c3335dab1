// The internal onCommitted request option: after a commit, the bytes of every regular file it
// wrote, by the hash the result reports; nothing for a dry run, a deletion or a refusal.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEngineWithInternals } from '../../../src/engine/engine.js'
import { hashBytes } from '../../../src/hash.js'

let root: string
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'patchloom-on-committed-'))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const PATCH = [
  '*** Begin Patch',
  '*** Update File: a.txt',
  '-one',
  '+ONE',
  '*** Add File: b.txt',
  '+new',
  '*** Delete File: c.txt',
  '*** End Patch',
  '',
].join('\n')

describe('onCommitted', () => {
  it('reports the bytes of each written file by its reported hash', async () => {
    await writeFile(path.join(root, 'a.txt'), 'one\ntwo\n')
    await writeFile(path.join(root, 'c.txt'), 'gone\n')
    const engine = createEngineWithInternals({ root, workers: false, durability: 'fast' })
    let written: ReadonlyMap<string, Uint8Array> | undefined
    const result = await engine.apply(PATCH, { onCommitted: (w) => (written = w) })
    const hashes = result.files.flatMap((f) => (f.afterHash === null ? [] : [f.afterHash]))
    expect([...(written?.keys() ?? [])].sort()).toEqual([...hashes].sort())
    for (const [hash, bytes] of written ?? []) expect(hashBytes(bytes)).toBe(hash)
    const onDisk = new Uint8Array(await readFile(path.join(root, 'a.txt')))
    expect(written?.get(hashBytes(onDisk))).toEqual(onDisk)
    await engine.close()
  })

  it('is not called for a dry run or a refused change', async () => {
    await writeFile(path.join(root, 'a.txt'), 'one\ntwo\n')
    await writeFile(path.join(root, 'c.txt'), 'gone\n')
    const engine = createEngineWithInternals({ root, workers: false, durability: 'fast' })
    let calls = 0
    await engine.apply(PATCH, { dryRun: true, onCommitted: () => calls++ })
    await expect(
      engine.apply(PATCH.replace('-one', '-three'), { onCommitted: () => calls++ }),
    ).rejects.toMatchObject({ code: 'MATCH_NOT_FOUND' })
    expect(calls).toBe(0)
    await engine.close()
  })
})
