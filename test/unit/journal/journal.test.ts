// The Journal around its transactions: the .patchloom state directory (created with a .gitignore,
// refused when it is not a real directory), pruning to the last `keep` committed transactions,
// and transaction ids that keep commit order.
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, rename, symlink } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { journalEntries } from '../../helpers/tree.js'
import {
  editError,
  journalFor,
  recordingFs,
  STANDARD_SUMMARY,
  tempWorkspace,
  treeState,
  writeFiles,
  writeStep,
} from './fixtures.js'

afterEach(() => {
  vi.useRealTimers()
})

/** Commits `count` successive versions of a.txt; returns their ids in commit order. */
async function commitVersions(
  root: string,
  journal: ReturnType<typeof journalFor>,
  count: number,
): Promise<string[]> {
  const ids: string[] = []
  for (let n = 1; n <= count; n++)
    ids.push(
      (await journal.commit(
        [await writeStep(root, 'a.txt', `v${n}\n`)],
        STANDARD_SUMMARY,
      )) as string,
    )
  return ids
}

describe('Journal state directory', () => {
  it('creates .patchloom with a .gitignore that ignores everything', async () => {
    const { root } = await tempWorkspace()
    await commitVersions(root, journalFor(root), 1)
    expect(await readFile(path.join(root, '.patchloom/.gitignore'), 'utf8')).toMatch(/^\*$/m)
  })

  it('writes the .gitignore on a later commit when the first attempt failed', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'a.txt': 'v0\n' })
    const rec = recordingFs({
      fail: (c) => (c.method === 'writeNew' && c.nth === 1 ? 'ENOSPC' : undefined),
    })
    const error = await editError(
      journalFor(root, { fs: rec.fs }).commit(
        [await writeStep(root, 'a.txt', 'v1\n')],
        STANDARD_SUMMARY,
      ),
    )
    expect(error.code).toBe('JOURNAL_NO_SPACE')
    expect(error.message).toContain('.patchloom/journal')
    await commitVersions(root, journalFor(root), 1)
    expect(existsSync(path.join(root, '.patchloom/.gitignore'))).toBe(true)
  })

  it('refuses a .patchloom that is a symlink with JOURNAL_CORRUPT and writes nothing through it', async () => {
    const { root, parent } = await tempWorkspace()
    await writeFiles(root, { 'a.txt': 'v0\n' })
    await mkdir(path.join(parent, 'elsewhere'))
    await symlink(path.join(parent, 'elsewhere'), path.join(root, '.patchloom'))
    const error = await editError(
      journalFor(root).commit([await writeStep(root, 'a.txt', 'v1\n')], STANDARD_SUMMARY),
    )
    expect(error.code).toBe('JOURNAL_CORRUPT')
    expect(await readdir(path.join(parent, 'elsewhere'))).toEqual([])
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('v0\n')
  })
})

describe('Journal pruning', () => {
  it('keeps exactly the last `keep` committed transactions', async () => {
    const { root } = await tempWorkspace()
    const journal = journalFor(root, { keep: 2 })
    const ids = await commitVersions(root, journal, 5)
    expect(await journalEntries(root)).toEqual(ids.slice(3))
    expect((await editError(journal.undo(ids[2]))).code).toBe('UNDO_NOT_FOUND')
    expect((await journal.undo()).undone).toBe(ids[4])
  })

  it('keeps nothing with keep 0, so there is nothing to undo', async () => {
    const { root } = await tempWorkspace()
    const journal = journalFor(root, { keep: 0 })
    const [id] = await commitVersions(root, journal, 1)
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('v1\n')
    expect(await journalEntries(root)).toEqual([])
    expect(await journal.list()).toEqual([])
    expect((await editError(journal.undo())).code).toBe('UNDO_NOT_FOUND')
    expect((await editError(journal.undo(id))).code).toBe('UNDO_NOT_FOUND')
  })

  const trash = (root: string) => path.join(root, '.patchloom/trash')

  it('moves pruned transactions into the trash and deletes them there, whatever they hold', async () => {
    const { root } = await tempWorkspace()
    const journal = journalFor(root, { keep: 1 })
    const [, second] = await commitVersions(root, journal, 2)
    expect(await journalEntries(root)).toEqual([second])
    // Something the journal did not write, inside a transaction it did: deleted all the same.
    const dir = path.join(root, '.patchloom/journal', second as string)
    await writeFiles(dir, { 'stray.txt': 'x\n', 'old/deeper/stray.txt': 'y\n' })
    const [third] = await commitVersions(root, journal, 1)
    expect(await journalEntries(root)).toEqual([third])
    await journal.settled()
    expect(await readdir(trash(root))).toEqual([])
  })

  it('sweeps the trash a crashed process left behind, once per journal', async () => {
    const { root } = await tempWorkspace()
    await commitVersions(root, journalFor(root, { keep: 1 }), 1)
    await writeFiles(path.join(trash(root), '20261130T120000000Z-abcdef'), {
      'manifest.json': '{}\n',
      'old/0': 'left\n',
    })
    const rec = recordingFs()
    const journal = journalFor(root, { keep: 1, fs: rec.fs })
    await commitVersions(root, journal, 2)
    await journal.settled()
    expect(await readdir(trash(root))).toEqual([])
    expect(rec.log.filter((l) => l === `readdir ${trash(root)}`)).toHaveLength(1)
  })

  it('deletes a pruned transaction in place when the trash refuses it', async () => {
    const { root } = await tempWorkspace()
    const journal = journalFor(root, { keep: 1 })
    await commitVersions(root, journal, 1)
    await writeFiles(path.join(root, '.patchloom'), { trash: 'not a directory\n' })
    const [, last] = await commitVersions(root, journal, 2)
    expect(await journalEntries(root)).toEqual([last])
    expect(await readFile(trash(root), 'utf8')).toBe('not a directory\n')
  })

  it('commits even when deleting the trash fails, and leaves it for a later sweep', async () => {
    const { root } = await tempWorkspace()
    const rec = recordingFs({
      fail: (call) => (call.method === 'removeTreeAside' ? 'EACCES' : undefined),
    })
    const journal = journalFor(root, { keep: 1, fs: rec.fs })
    const [first, second] = await commitVersions(root, journal, 2)
    await journal.settled()
    expect(await journalEntries(root)).toEqual([second])
    expect(await readdir(trash(root))).toEqual([first])
    expect(rec.failed).toHaveLength(1)
  })

  it('never prunes conflicted transactions', async () => {
    const { root } = await tempWorkspace()
    const [first, second] = await commitVersions(root, journalFor(root, { keep: 2 }), 2)
    // Stand-ins for transactions recovery left in conflict (the state is in the name).
    const dir = path.join(root, '.patchloom/journal')
    await rename(path.join(dir, first as string), path.join(dir, `${first}.conflict`))
    await rename(path.join(dir, second as string), path.join(dir, `${second}.conflict`))
    const [third, fourth] = await commitVersions(root, journalFor(root, { keep: 1 }), 2)
    expect(await journalEntries(root)).toEqual([`${first}.conflict`, `${second}.conflict`, fourth])
    expect(third).toBeDefined()
  })
})

describe('Journal transaction ids', () => {
  it('orders the log and pruning by commit order even within one millisecond', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date('2026-11-30T14:31:09.123Z'))
    const { root } = await tempWorkspace()
    const journal = journalFor(root, { keep: 3 })
    const ids = await commitVersions(root, journal, 6)
    expect((await journal.list()).map((t) => t.id)).toEqual(ids.slice(3).reverse())
    expect(await journalEntries(root)).toEqual(ids.slice(3))
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('v6\n')
  })

  it('keeps commit order when the clock steps back', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date('2026-11-30T14:31:09.123Z'))
    const { root } = await tempWorkspace()
    const journal = journalFor(root, { keep: 1 })
    const [first] = await commitVersions(root, journal, 1)
    vi.setSystemTime(new Date('2026-11-30T13:00:00.000Z'))
    const [second] = await commitVersions(root, journal, 1)
    expect(second! > first!).toBe(true)
    expect(await journalEntries(root)).toEqual([second])
    expect((await journal.undo()).undone).toBe(second)
    expect(await treeState(root)).toEqual([
      { path: 'a.txt', kind: 'file', content: 'text:v1\n', executable: false, mode: '644' },
    ])
  })
})

describe('Journal dry runs', () => {
  const PENDING = '20261130T120000000Z-abcdef.pending'
  const readdirs = (log: readonly string[]) => log.filter((l) => l.startsWith('readdir')).length

  it('lists the journal again only when its directory changed, and so sees a transaction left since', async () => {
    const { root } = await tempWorkspace()
    await commitVersions(root, journalFor(root), 1)
    const rec = recordingFs()
    const journal = journalFor(root, { fs: rec.fs })
    // Listed "5 s after the directory last changed": the listing may be kept.
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 5_000)
    expect(await journal.beforeRequest(true)).toEqual([])
    expect(await journal.beforeRequest(true)).toEqual([])
    expect(readdirs(rec.log)).toBe(1)
    // Another process's transaction, interrupted (an unreadable manifest: refused, reported).
    const dir = path.join(root, '.patchloom/journal', PENDING)
    await mkdir(dir)
    await writeFiles(dir, { 'manifest.json': '{}\n' })
    expect(await journal.beforeRequest(true)).toEqual([
      expect.objectContaining({ code: 'journal.corrupt' }),
    ])
    expect(readdirs(rec.log)).toBe(2)
  })

  it('lists afresh while the directory changed within RACY_MS, and always for a request that writes', async () => {
    const { root } = await tempWorkspace()
    await commitVersions(root, journalFor(root), 1)
    const rec = recordingFs()
    const journal = journalFor(root, { fs: rec.fs })
    await journal.beforeRequest(true)
    await journal.beforeRequest(true)
    expect(readdirs(rec.log)).toBe(2)
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 5_000)
    await journal.beforeRequest(false)
    await journal.beforeRequest(false)
    expect(readdirs(rec.log)).toBe(4)
  })
})
