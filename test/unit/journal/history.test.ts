// Journal.list (patchloom log): transactions newest first with their status, what each did,
// its +/- totals, which undo reverted it, and whether it can still be undone.
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { encodeManifest, newTransactionId, signManifest } from '../../../src/journal/manifest.js'
import {
  journalFor,
  standardSteps,
  STANDARD_SUMMARY,
  summaryOf,
  tempWorkspace,
  testTrust,
  writeStandardFiles,
  writeStep,
} from './fixtures.js'

/** A transaction directory with a valid manifest (and no steps) in state `suffix`. */
async function plantTransaction(
  root: string,
  secondsAhead: number,
  suffix: string,
): Promise<string> {
  const id = newTransactionId(new Date(Date.now() + secondsAhead * 1000))
  const dir = path.join(root, '.patchloom/journal', id + suffix)
  await mkdir(dir)
  await writeFile(
    path.join(dir, 'manifest.json'),
    encodeManifest(
      await signManifest(testTrust(root), {
        version: 2,
        id,
        createdAt: new Date().toISOString(),
        durability: 'full',
        summary: summaryOf([{ path: `${suffix}.txt`, op: 'add', additions: 4, deletions: 0 }]),
        steps: [],
      }),
    ),
  )
  return id
}

describe('Journal.list', () => {
  it('lists transactions newest first with totals, undo links and undoability', async () => {
    const { root } = await tempWorkspace()
    await writeStandardFiles(root)
    const journal = journalFor(root)
    const first = await journal.commit(standardSteps(root), STANDARD_SUMMARY)
    const second = await journal.commit(
      [await writeStep(root, 'a.txt', 'third\n')],
      summaryOf([{ path: 'a.txt', op: 'update', additions: 2, deletions: 1 }]),
    )
    const undo = await journal.undo()
    const list = await journal.list()
    expect(list.map((t) => t.id)).toEqual([undo.transaction, second, first])
    expect(list[0]).toEqual({
      id: undo.transaction,
      status: 'committed',
      kind: 'undo',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      undoes: second,
      files: [{ path: 'a.txt', op: 'update', additions: 1, deletions: 2 }],
      additions: 1,
      deletions: 2,
      undoable: true,
    })
    expect(list[1]).toMatchObject({
      id: second,
      kind: 'apply',
      undoneBy: undo.transaction,
      undoable: false,
      additions: 2,
      deletions: 1,
    })
    expect(list[2]).toMatchObject({
      id: first,
      status: 'committed',
      kind: 'apply',
      files: STANDARD_SUMMARY.files,
      additions: 3,
      deletions: 3,
      undoable: true,
    })
    expect(list[2]?.undoneBy).toBeUndefined()
  })

  it('shows pending and conflicted transactions as not undoable, and a committed one with a corrupt manifest as a conflict', async () => {
    const { root } = await tempWorkspace()
    const journal = journalFor(root)
    const committed = await journal.commit(
      [await writeStep(root, 'x.txt', 'x\n')],
      summaryOf([{ path: 'x.txt', op: 'add', additions: 1, deletions: 0 }]),
    )
    const pending = await plantTransaction(root, 10, '.pending')
    const conflict = await plantTransaction(root, 20, '.conflict')
    const corrupt = newTransactionId(new Date(Date.now() + 30_000))
    await mkdir(path.join(root, '.patchloom/journal', corrupt))
    await writeFile(path.join(root, '.patchloom/journal', corrupt, 'manifest.json'), '{')
    // A pending transaction that never wrote its manifest is not shown.
    await mkdir(path.join(root, '.patchloom/journal', `${newTransactionId(new Date())}.pending`))
    const list = await journal.list()
    expect(list.map((t) => [t.id, t.status, t.undoable])).toEqual([
      [corrupt, 'conflict', false],
      [conflict, 'conflict', false],
      [pending, 'pending', false],
      [committed, 'committed', true],
    ])
    expect(list[1]).toMatchObject({
      additions: 4,
      deletions: 0,
      files: [{ path: '.conflict.txt' }],
    })
    expect(list[0]).toMatchObject({ files: [], additions: 0, deletions: 0 })
  })

  it('is empty for a workspace without a journal', async () => {
    const { root } = await tempWorkspace()
    expect(await journalFor(root).list()).toEqual([])
  })
})
