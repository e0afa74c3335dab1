// The engine hands the journal each file's read stamp (D-082): a file last changed well before
// it was read is not read and hashed a second time at commit, and a file changed after
// verification is still refused, even when its size and mtime are put back.
import { readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createEngineWithInternals } from '../../../src/engine/engine.js'
import type { Engine } from '../../../src/engine/api.js'
import { hashBytes } from '../../../src/hash.js'
import { nodeJournalFs, type JournalFs } from '../../../src/journal/fs.js'
import { RACY_MS } from '../../../src/journal/transaction.js'
import { rejection } from '../../helpers/edit-error.js'
import { makeTempDir } from '../../helpers/tree.js'

let root: string
const engines: Engine[] = []

beforeEach(async () => {
  root = await makeTempDir('patchloom-stamps-')
})
afterEach(async () => {
  vi.restoreAllMocks()
  await Promise.all(engines.splice(0).map((e) => e.close()))
  await rm(root, { recursive: true, force: true })
})

/** An engine whose journal counts the files it reads back. */
function countingEngine(approve?: () => Promise<boolean>): { engine: Engine; reads: string[] } {
  const reads: string[] = []
  const fs: JournalFs = {
    ...nodeJournalFs,
    readFile: (p) => {
      reads.push(path.basename(p))
      return nodeJournalFs.readFile(p)
    },
  }
  const engine = createEngineWithInternals(
    { root, workers: false, durability: 'fast', ...(approve === undefined ? {} : { approve }) },
    { journalFs: fs },
  )
  engines.push(engine)
  return { engine, reads }
}

const hashOf = (text: string) => hashBytes(new TextEncoder().encode(text))

const patch = (from: string, to: string) =>
  `*** Begin Patch\n*** Update File: a.txt\n@@\n-${from}\n+${to}\n*** End Patch\n`

/**
 * Puts a freshly written file's ctime behind the journal's racy window without waiting for it:
 * the clock the read stamp takes (Date.now) runs two windows ahead from here. utimes cannot do
 * it, as it cannot set the ctime (and moves it to now).
 */
function clockPastRacyWindow(): void {
  const realNow = Date.now.bind(Date)
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 2 * RACY_MS)
}

describe('read stamps', () => {
  it('does not read a file back at commit when its stamp vouches for it', async () => {
    await writeFile(path.join(root, 'a.txt'), 'one\n')
    clockPastRacyWindow()
    const { engine, reads } = countingEngine()
    await engine.apply(patch('one', 'two'))
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('two\n')
    // The backup (old.0) is not read: the stamp matched. A just-changed file would be.
    expect(reads).not.toContain('old.0')
  })

  it('reads back a file changed within the racy window', async () => {
    await writeFile(path.join(root, 'a.txt'), 'one\n')
    const { engine, reads } = countingEngine()
    await engine.apply(patch('one', 'two'))
    expect(reads).toContain('old.0')
  })

  it('refuses a file changed after verification though its size and mtime were put back', async () => {
    const file = path.join(root, 'a.txt')
    await writeFile(file, 'one\n')
    clockPastRacyWindow()
    const before = await stat(file)
    const { engine } = countingEngine(async () => {
      // Same size, same mtime: only the ctime (which utimes cannot set) tells.
      await writeFile(file, 'ONE\n')
      await utimes(file, before.atime, before.mtime)
      return true
    })
    // Pinned to the hash it was verified against, so the engine does not verify it again.
    const pinned = JSON.stringify({
      edits: [
        { path: 'a.txt', old_string: 'one', new_string: 'two', expected_hash: hashOf('one\n') },
      ],
    })
    const error = await rejection(engine.apply(pinned, { format: 'edits' }))
    expect(error.code).toBe('FILE_CHANGED')
    expect(await readFile(file, 'utf8')).toBe('ONE\n')
    // A patch is verified again after the refused commit: its line is gone by then.
    const again = await rejection(engine.apply(patch('one', 'two')))
    expect(again.code).toBe('MATCH_NOT_FOUND')
    expect(await readFile(file, 'utf8')).toBe('ONE\n')
  })
})
