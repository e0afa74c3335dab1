// Undo through Journal.undo: a committed transaction's before state comes back byte for byte
// and mode for mode, or the undo refuses (UNDO_CONFLICT naming every changed file,
// UNDO_UNAVAILABLE, UNDO_NOT_FOUND) and writes nothing.
import { writeFileSync } from 'node:fs'
import { chmod, rename, rm, unlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { hashBytes } from '../../../src/hash.js'
import { journalEntries } from '../../helpers/tree.js'
import {
  editError,
  enc,
  journalFor,
  recordingFs,
  standardSteps,
  STANDARD_AFTER,
  STANDARD_SUMMARY,
  tempWorkspace,
  treeState,
  writeStandardFiles,
  writeStep,
} from './fixtures.js'

async function committed(): Promise<{
  root: string
  id: string
  before: Record<string, unknown>[]
  journal: ReturnType<typeof journalFor>
}> {
  const { root } = await tempWorkspace()
  await writeStandardFiles(root)
  const before = await treeState(root)
  const journal = journalFor(root)
  const id = (await journal.commit(standardSteps(root), STANDARD_SUMMARY)) as string
  return { root, id, before, journal }
}

const h = (text: string) => hashBytes(enc(text))

describe('Journal.undo', () => {
  it('restores bytes and modes, removes created files and directories, and brings back deleted and moved files', async () => {
    const { root, id, before, journal } = await committed()
    const result = await journal.undo()
    expect(result.undone).toBe(id)
    expect(result.transaction).not.toBe(id)
    expect(await treeState(root)).toEqual(before)
    // In reverse step order, so a move restores its source before removing its destination.
    expect(result.files).toEqual([
      {
        path: 'linked.txt',
        op: 'restore',
        beforeHash: h('linked v2\n'),
        afterHash: h('linked v1\n'),
      },
      { path: 'src/from.txt', op: 'restore', beforeHash: null, afterHash: h('moving\n') },
      { path: 'dst/moved.txt', op: 'remove', beforeHash: h('moving\n'), afterHash: null },
      { path: 'gone/only.txt', op: 'restore', beforeHash: null, afterHash: h('bye\n') },
      { path: 'lib/deep/c.txt', op: 'remove', beforeHash: h('created\n'), afterHash: null },
      {
        path: 'run.sh',
        op: 'restore',
        beforeHash: h('#!/bin/sh\necho hi\n'),
        afterHash: h('#!/bin/sh\necho hi\n'),
      },
      { path: 'a.txt', op: 'restore', beforeHash: h('ALPHA\n'), afterHash: h('alpha\n') },
    ])
    expect(await journalEntries(root)).toEqual([id, result.transaction].sort())
  })

  it("warns journal.not-durable when the sync after the undo's commit mark fails", async () => {
    const { root } = await tempWorkspace()
    await writeStandardFiles(root)
    let marked = false
    const rec = recordingFs({
      fail: (call) => {
        if (call.method === 'rename' && String(call.args[0]).endsWith('.pending')) marked = true
        return marked && call.method === 'syncDir' ? 'EIO' : undefined
      },
    })
    const journal = journalFor(root, { fs: rec.fs })
    const id = (await journal.commit(standardSteps(root), STANDARD_SUMMARY, [])) as string
    marked = false
    const result = await journal.undo(id)
    expect(result.warnings?.map((w) => w.code)).toEqual(['journal.not-durable'])
    expect((await journal.list()).find((t) => t.id === id)?.undoneBy).toBe(result.transaction)
  })

  it('redoes a change by undoing its undo', async () => {
    const { root, journal } = await committed()
    const { transaction } = await journal.undo()
    const redo = await journal.undo(transaction)
    expect(redo.undone).toBe(transaction)
    expect(await treeState(root)).toEqual(STANDARD_AFTER)
  })

  it('undoes the newest change not yet undone when no id is given', async () => {
    const { root, id, before, journal } = await committed()
    const second = await journal.commit(
      [await writeStep(root, 'a.txt', 'third\n')],
      STANDARD_SUMMARY,
    )
    expect((await journal.undo()).undone).toBe(second)
    expect(await treeState(root)).toEqual(STANDARD_AFTER)
    expect((await journal.undo()).undone).toBe(id)
    expect(await treeState(root)).toEqual(before)
    expect((await editError(journal.undo())).code).toBe('UNDO_NOT_FOUND')
  })

  it('refuses with UNDO_CONFLICT naming every changed file, and writes nothing', async () => {
    const { root, id, journal } = await committed()
    await writeFile(path.join(root, 'a.txt'), 'edited since\n')
    await chmod(path.join(root, 'run.sh'), 0o700)
    await unlink(path.join(root, 'lib/deep/c.txt'))
    await writeFile(path.join(root, 'src/from.txt'), 'back again\n')
    const tree = await treeState(root)
    const entries = await journalEntries(root)
    const error = await editError(journal.undo(id))
    expect(error.code).toBe('UNDO_CONFLICT')
    expect(error.retryable).toBe(false)
    expect(error.message).toContain('4 files have changed')
    for (const changed of ['a.txt', 'run.sh (', 'lib/deep/c.txt (it is missing)', 'src/from.txt'])
      expect(error.message).toContain(changed)
    expect(error.message).not.toContain('linked.txt')
    expect(error.path).toBe('a.txt')
    expect(await treeState(root)).toEqual(tree)
    expect(await journalEntries(root)).toEqual(entries)
  })

  it('refuses a second undo of the same change with UNDO_UNAVAILABLE', async () => {
    const { root, id, journal } = await committed()
    const { transaction } = await journal.undo(id)
    const error = await editError(journal.undo(id))
    expect(error.code).toBe('UNDO_UNAVAILABLE')
    expect(error.message).toContain(transaction)
    expect((await journal.list()).find((t) => t.id === id)).toMatchObject({
      undoneBy: transaction,
      undoable: false,
    })
    expect(await journalEntries(root)).toHaveLength(2)
  })

  it('fails UNDO_NOT_FOUND for an unknown id and for an empty journal', async () => {
    const { root } = await tempWorkspace()
    const journal = journalFor(root)
    expect((await editError(journal.undo())).code).toBe('UNDO_NOT_FOUND')
    const { journal: used } = await committed()
    const error = await editError(used.undo('20000101T000000000Z-aaaaaa'))
    expect(error.code).toBe('UNDO_NOT_FOUND')
    expect(error.message).toContain('20000101T000000000Z-aaaaaa')
  })

  it('fails UNDO_UNAVAILABLE when a kept backup is missing or damaged', async () => {
    const { root, id, journal } = await committed()
    await rm(path.join(root, '.patchloom/journal', id, 'old.0'))
    const missing = await editError(journal.undo(id))
    expect(missing.code).toBe('UNDO_UNAVAILABLE')
    expect(missing.message).toContain('a.txt is missing')
    await writeFile(path.join(root, '.patchloom/journal', id, 'old.0'), 'not the original\n')
    const damaged = await editError(journal.undo(id))
    expect(damaged.code).toBe('UNDO_UNAVAILABLE')
    expect(damaged.message).toContain('damaged')
    expect(await treeState(root)).toEqual(STANDARD_AFTER)
  })

  it('fails UNDO_UNAVAILABLE for a transaction that did not commit', async () => {
    const { root, id, journal } = await committed()
    const dir = path.join(root, '.patchloom/journal')
    await rename(path.join(dir, id), path.join(dir, `${id}.conflict`))
    const error = await editError(journal.undo(id))
    expect(error.code).toBe('UNDO_UNAVAILABLE')
    expect(error.message).toContain('patchloom recover')
  })

  it('commits the undo as a transaction of its own, rolled back whole if a file changes mid-way', async () => {
    const { root } = await committed()
    const changedMidway = journalFor(root, {
      hooks: {
        at: (point, index) => {
          // The undo's step 0 (linked.txt) is in place; another writer then edits a.txt, which
          // the undo's last step would restore.
          if (point === 'replaced' && index === 0)
            writeFileSync(path.join(root, 'a.txt'), 'theirs\n')
        },
      },
    })
    const error = await editError(changedMidway.undo())
    expect(error.code).toBe('FILE_CHANGED')
    expect(error.path).toBe('a.txt')
    const expected = STANDARD_AFTER.map((e) =>
      e.path === 'a.txt' ? { ...e, content: 'text:theirs\n' } : e,
    )
    expect(await treeState(root)).toEqual(expected)
    expect(await journalEntries(root)).toHaveLength(1)
  })
})
