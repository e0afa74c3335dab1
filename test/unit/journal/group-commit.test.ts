// Group commit: commits waiting for the workspace lock commit as one batch per lock turn, each
// with its own id, manifest, outcome and undo; what may share a batch (only regular files
// replaced or created in existing directories); and what the journal reports per turn
// (onCommitBatch). Real files in a temp workspace; the lock is held from outside the journal
// while the commits queue, so they reliably meet in one batch.
import { mkdir, readFile, symlink } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { nodeJournalFs } from '../../../src/journal/fs.js'
import { acquireLock } from '../../../src/journal/lock.js'
import { recoverAll } from '../../../src/journal/recover.js'
import type { CommitBatchStats, CommitStep } from '../../../src/journal/records.js'
import { journalEntries } from '../../helpers/tree.js'
import {
  contextFor,
  editError,
  journalFor,
  linkState,
  recordingFs,
  removeStep,
  STANDARD_SUMMARY,
  tempWorkspace,
  treeState,
  writeFiles,
  writeLink,
  writeStep,
} from './fixtures.js'

/** Starts the commits while the workspace lock is held elsewhere, so that they all queue. */
async function queued<T>(
  root: string,
  start: () => Promise<T>[],
): Promise<PromiseSettledResult<T>[]> {
  await mkdir(path.join(root, '.patchloom/journal'), { recursive: true })
  const lock = await acquireLock(path.join(root, '.patchloom/lock'), 2000)
  const commits = start()
  await new Promise((resolve) => setTimeout(resolve, 20))
  await lock.release()
  return Promise.allSettled(commits)
}

function ids(results: readonly PromiseSettledResult<string | undefined>[]): string[] {
  return results.map((r) => (r.status === 'fulfilled' ? (r.value as string) : 'failed'))
}

async function files(root: string, names: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const n of names) out[n] = await readFile(path.join(root, n), 'utf8')
  return out
}

describe('group commit', () => {
  it('commits queued transactions as one batch: one round of each fsync, ids increasing, each undoable alone', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'a.txt': 'a0\n', 'b.txt': 'b0\n', 'c.txt': 'c0\n' })
    const batches: CommitBatchStats[] = []
    const journal = journalFor(root, { fs: nodeJournalFs, onCommitBatch: (s) => batches.push(s) })
    const steps = await Promise.all(
      ['a', 'b', 'c'].map((n) => writeStep(root, `${n}.txt`, `${n}1\n`)),
    )
    const results = await queued(root, () =>
      steps.map((step) => journal.commit([step], STANDARD_SUMMARY)),
    )
    const committed = ids(results)
    expect(committed).not.toContain('failed')
    expect([...committed].sort()).toEqual(committed)
    expect(new Set(committed).size).toBe(3)
    expect(batches).toMatchObject([{ transactions: 3, refused: 0 }])
    // Three staged files and manifests; three transaction directories and the journal; the
    // workspace root (shared) and the three transaction directories; the journal after the
    // marks: 15, where three commits one by one make 21.
    expect(batches[0]?.syncs).toBe(15)
    expect(await journalEntries(root)).toEqual([...committed].sort())
    expect(await files(root, ['a.txt', 'b.txt', 'c.txt'])).toEqual({
      'a.txt': 'a1\n',
      'b.txt': 'b1\n',
      'c.txt': 'c1\n',
    })
    // Each transaction has its own entry: undoing the middle one restores its file only.
    const undo = await journal.undo(committed[1])
    expect(undo.undone).toBe(committed[1])
    expect(await files(root, ['a.txt', 'b.txt', 'c.txt'])).toEqual({
      'a.txt': 'a1\n',
      'b.txt': 'b0\n',
      'c.txt': 'c1\n',
    })
    const log = await journal.list()
    expect(log.filter((t) => committed.includes(t.id)).map((t) => t.undoneBy)).toEqual([
      undefined,
      undo.transaction,
      undefined,
    ])
  })

  it('fails a transaction whose file changed on its own; the rest of the batch commits', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'a.txt': 'a0\n', 'b.txt': 'b0\n', 'c.txt': 'c0\n' })
    const batches: CommitBatchStats[] = []
    const journal = journalFor(root, { onCommitBatch: (s) => batches.push(s) })
    const steps = await Promise.all(
      ['a', 'b', 'c'].map((n) => writeStep(root, `${n}.txt`, `${n}1\n`)),
    )
    await writeFiles(root, { 'b.txt': 'changed by someone else\n' })
    const results = await queued(root, () =>
      steps.map((step) => journal.commit([step], STANDARD_SUMMARY)),
    )
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    const refusal = results[1] as PromiseRejectedResult
    expect((await editError(Promise.reject(refusal.reason))).code).toBe('FILE_CHANGED')
    expect(batches).toMatchObject([{ transactions: 3, refused: 1 }])
    expect(await files(root, ['a.txt', 'b.txt', 'c.txt'])).toEqual({
      'a.txt': 'a1\n',
      'b.txt': 'changed by someone else\n',
      'c.txt': 'c1\n',
    })
    expect(await journalEntries(root)).toHaveLength(2)
  })

  it('rolls back only the transaction whose replace failed', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'a.txt': 'a0\n', 'b.txt': 'b0\n', 'c.txt': 'c0\n' })
    const target = path.join(root, 'b.txt')
    const rec = recordingFs({
      fail: (c) => (c.method === 'rename' && c.args[1] === target ? 'EACCES' : undefined),
    })
    const journal = journalFor(root, { fs: rec.fs })
    const steps = await Promise.all(
      ['a', 'b', 'c'].map((n) => writeStep(root, `${n}.txt`, `${n}1\n`)),
    )
    const results = await queued(root, () =>
      steps.map((step) => journal.commit([step], STANDARD_SUMMARY)),
    )
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    const error = await editError(Promise.reject((results[1] as PromiseRejectedResult).reason))
    expect(error.code).toBe('JOURNAL_PERMISSION_DENIED')
    expect(error.message).toContain('rolled back')
    expect(await files(root, ['a.txt', 'b.txt', 'c.txt'])).toEqual({
      'a.txt': 'a1\n',
      'b.txt': 'b0\n',
      'c.txt': 'c1\n',
    })
    expect((await journalEntries(root)).filter((e) => e.endsWith('.pending'))).toEqual([])
  })

  it('fails only the transaction whose staged file cannot be synced (full)', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'a.txt': 'a0\n', 'b.txt': 'b0\n' })
    let syncs = 0
    const rec = recordingFs({
      fail: (c) => (c.method === 'syncFile' && ++syncs === 3 ? 'EIO' : undefined),
    })
    const journal = journalFor(root, { fs: rec.fs })
    const steps = await Promise.all(['a', 'b'].map((n) => writeStep(root, `${n}.txt`, `${n}1\n`)))
    const results = await queued(root, () =>
      steps.map((step) => journal.commit([step], STANDARD_SUMMARY)),
    )
    // The third file synced is the second transaction's staged file (files in batch order).
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected'])
    expect(await files(root, ['a.txt', 'b.txt'])).toEqual({ 'a.txt': 'a1\n', 'b.txt': 'b0\n' })
    expect(await journalEntries(root)).toHaveLength(1)
  })

  it('runs a transaction alone when it creates a directory, removes a file or touches a symlink', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, {
      'a.txt': 'a0\n',
      'b.txt': 'b0\n',
      'gone.txt': 'g\n',
      'd/e.txt': 'e\n',
    })
    await symlink('a.txt', path.join(root, 'link'))
    const batches: CommitBatchStats[] = []
    const journal = journalFor(root, { onCommitBatch: (s) => batches.push(s) })
    const shared: CommitStep[][] = [
      [await writeStep(root, 'a.txt', 'a1\n')],
      [await writeStep(root, 'b.txt', 'b1\n')],
      // A new file in a directory that exists shares a batch too.
      [await writeStep(root, 'd/new.txt', 'new\n')],
    ]
    const alone: CommitStep[][] = [
      [await writeStep(root, 'made/x.txt', 'x\n')],
      [await removeStep(root, 'gone.txt')],
      [writeLink(root, 'new-link', 'b.txt')],
      [{ kind: 'remove', abs: path.join(root, 'link'), rel: 'link', before: linkState('a.txt') }],
    ]
    // Interleaved in the queue: the ones alone are taken in their turn, the others together.
    const order = [alone[0], shared[0], alone[1], shared[1], alone[2], shared[2], alone[3]]
    const results = await queued(root, () =>
      order.map((steps) => journal.commit(steps as CommitStep[], STANDARD_SUMMARY)),
    )
    expect(results.filter((r) => r.status === 'rejected')).toEqual([])
    const committed = ids(results)
    expect(new Set(committed).size).toBe(7)
    expect(batches.map((b) => b.transactions)).toEqual([1, 3, 1, 1, 1])
    expect(await treeState(root)).toMatchObject(
      expect.arrayContaining([
        expect.objectContaining({ path: 'made/x.txt' }),
        expect.objectContaining({ path: 'new-link' }),
        expect.objectContaining({ path: 'd/new.txt' }),
      ]),
    )
  })

  it('keeps a batch within 64 transactions', async () => {
    const { root } = await tempWorkspace()
    const names = Array.from({ length: 70 }, (_, i) => `f${i}.txt`)
    await writeFiles(root, Object.fromEntries(names.map((n) => [n, 'v0\n'])))
    const batches: CommitBatchStats[] = []
    const journal = journalFor(root, {
      durability: 'fast',
      keep: 100,
      onCommitBatch: (s) => batches.push(s),
    })
    const steps = await Promise.all(names.map((n) => writeStep(root, n, 'v1\n')))
    const results = await queued(root, () =>
      steps.map((step) => journal.commit([step], STANDARD_SUMMARY)),
    )
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true)
    expect(batches.map((b) => b.transactions)).toEqual([64, 6])
    const committed = ids(results)
    expect([...committed].sort()).toEqual(committed)
  })

  it('commits one transaction per lock turn with groupCommit false', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'a.txt': 'a0\n', 'b.txt': 'b0\n', 'c.txt': 'c0\n' })
    const batches: CommitBatchStats[] = []
    const journal = journalFor(root, { groupCommit: false, onCommitBatch: (s) => batches.push(s) })
    const steps = await Promise.all(
      ['a', 'b', 'c'].map((n) => writeStep(root, `${n}.txt`, `${n}1\n`)),
    )
    const results = await queued(root, () =>
      steps.map((step) => journal.commit([step], STANDARD_SUMMARY)),
    )
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true)
    expect(batches.map((b) => b.transactions)).toEqual([1, 1, 1])
  })

  it('leaves a crashed batch as pending transactions that recovery rolls back one by one', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'a.txt': 'a0\n', 'b.txt': 'b0\n', 'c.txt': 'c0\n' })
    const before = await treeState(root)
    let crashed = false
    const rec = recordingFs({
      fail: () => {
        if (crashed) throw new Error('crashed')
        return undefined
      },
    })
    // The crash comes after the first transaction replaced its file: every later call fails.
    const journal = journalFor(root, {
      fs: rec.fs,
      hooks: { at: (point) => void (point === 'replaced' && (crashed = true)) },
    })
    const steps = await Promise.all(
      ['a', 'b', 'c'].map((n) => writeStep(root, `${n}.txt`, `${n}1\n`)),
    )
    const results = await queued(root, () =>
      steps.map((step) => journal.commit([step], STANDARD_SUMMARY)),
    )
    expect(results.every((r) => r.status === 'rejected')).toBe(true)
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a1\n')
    const pending = await journalEntries(root)
    expect(pending).toHaveLength(3)
    expect(pending.every((e) => e.endsWith('.pending'))).toBe(true)
    const report = await recoverAll(contextFor(root), false)
    expect([...report.rolledBack].sort()).toEqual(pending.map((e) => e.replace('.pending', '')))
    expect(report.conflicts).toEqual([])
    expect(await treeState(root)).toEqual(before)
    expect(await journalEntries(root)).toEqual([])
  })
})

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

  it('fails every queued commit with the lock timeout when another process holds the lock', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'a.txt': 'a0\n', 'b.txt': 'b0\n' })
    await mkdir(path.join(root, '.patchloom/journal'), { recursive: true })
    // A live owner that is not this process: pid 1 (init) on this host.
    const { hostname } = await import('node:os')
    await writeFiles(root, {
      '.patchloom/lock': JSON.stringify({ pid: 1, host: hostname(), start: null, acquiredAt: '' }),
    })
    const journal = journalFor(root, { lockTimeoutMs: 50 })
    const steps = await Promise.all(['a', 'b'].map((n) => writeStep(root, `${n}.txt`, `${n}1\n`)))
    const errors = await Promise.all(
      steps.map((step) => editError(journal.commit([step], STANDARD_SUMMARY))),
    )
    expect(errors.map((e) => e.code)).toEqual(['JOURNAL_LOCKED', 'JOURNAL_LOCKED'])
  })
})
