// What the journal reports per lock turn of its commit (onCommitBatch): how many transactions it
// took, how many failed, and the fsyncs it made. Real files in a temp workspace.
import { describe, expect, it } from 'vitest'
import { nodeJournalFs } from '../../../src/journal/fs.js'
import type { CommitBatchStats } from '../../../src/journal/records.js'
import {
  editError,
  journalFor,
  STANDARD_SUMMARY,
  tempWorkspace,
  writeFiles,
  writeStep,
} from './fixtures.js'

describe('commit batch stats', () => {
  it('reports a commit on its own as a batch of one, with the fsyncs full made', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'a.txt': 'v0\n' })
    const batches: CommitBatchStats[] = []
    const journal = journalFor(root, { fs: nodeJournalFs, onCommitBatch: (s) => batches.push(s) })
    await journal.commit([await writeStep(root, 'a.txt', 'v1\n')], STANDARD_SUMMARY)
    expect(batches).toHaveLength(1)
    const [stats] = batches as [CommitBatchStats]
    expect(stats.transactions).toBe(1)
    expect(stats.refused).toBe(0)
    // The staged file and the manifest, the transaction and journal directories, the file's
    // directory and the transaction's again before the mark, the journal after it.
    expect(stats.syncs).toBe(7)
    expect(stats.syncMs).toBeGreaterThan(0)
    expect(stats.commitMs).toBeGreaterThanOrEqual(stats.syncMs)
    expect(stats.lockWaitMs).toBeGreaterThanOrEqual(0)
  })

  it('counts a refused commit, and no fsync with fast', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'a.txt': 'v0\n' })
    const batches: CommitBatchStats[] = []
    const journal = journalFor(root, {
      fs: nodeJournalFs,
      durability: 'fast',
      onCommitBatch: (s) => batches.push(s),
    })
    const stale = await writeStep(root, 'a.txt', 'v1\n')
    await writeFiles(root, { 'a.txt': 'changed\n' })
    expect((await editError(journal.commit([stale], STANDARD_SUMMARY))).code).toBe('FILE_CHANGED')
    expect(batches).toMatchObject([{ transactions: 1, refused: 1, syncs: 0 }])
  })

  it('keeps the commit when the listener throws', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'a.txt': 'v0\n' })
    const journal = journalFor(root, {
      onCommitBatch: () => {
        throw new Error('listener failed')
      },
    })
    const id = await journal.commit([await writeStep(root, 'a.txt', 'v1\n')], STANDARD_SUMMARY)
    expect(id).toMatch(/^\d{8}T/)
  })
})
