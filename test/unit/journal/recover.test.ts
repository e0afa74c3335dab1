// Recovery of transactions a crash left pending. A "crash" is simulated precisely: a hook throws
// at an instrumented point and from then on every filesystem call fails, so nothing (not even the
// in-process rollback) runs after it. Recovery must then roll back, be idempotent (also when it
// is itself interrupted), leave files someone changed since alone, drop transactions that never
// finished preparing, and never act on a manifest it cannot trust.
import { existsSync } from 'node:fs'
import { chmod, mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { hashBytes } from '../../../src/hash.js'
import { layoutFor } from '../../../src/journal/layout.js'
import {
  encodeManifest,
  encodeSignedManifest,
  newTransactionId,
  type Manifest,
} from '../../../src/journal/manifest.js'
import { recoverAll } from '../../../src/journal/recover.js'
import { runTransaction } from '../../../src/journal/transaction.js'
import type { JournalPoint, RecoveryReport } from '../../../src/journal/records.js'
import { journalEntries } from '../../helpers/tree.js'
import {
  contextFor,
  editError,
  enc,
  journalFor,
  quietJournalFs,
  recordingFs,
  standardSteps,
  STANDARD_AFTER,
  STANDARD_SUMMARY,
  tempWorkspace,
  testTrust,
  treeState,
  writeStandardFiles,
  writeStep,
  type FsCall,
} from './fixtures.js'

const STEPS = 7
const EMPTY: RecoveryReport = { rolledBack: [], conflicted: [], conflicts: [] }

interface Crashed {
  readonly root: string
  readonly parent: string
  readonly id: string
  readonly before: Record<string, unknown>[]
  /** a.txt's inode before the commit. */
  readonly aInode: number
}

/**
 * Commits the standard change with runTransaction and "crashes" at `point`/`index` (or at the
 * first call `crashOn` picks): the hook throws, and every later filesystem call fails.
 */
async function crashDuring(
  point: JournalPoint | undefined,
  index = 0,
  crashOn?: (call: FsCall) => boolean,
): Promise<Crashed> {
  const { root, parent } = await tempWorkspace()
  await writeStandardFiles(root)
  const before = await treeState(root)
  const aInode = (await stat(path.join(root, 'a.txt'))).ino
  const steps = standardSteps(root)
  await mkdir(path.join(root, '.patchloom/journal'), { recursive: true })
  let crashed = false
  const rec = recordingFs({
    fail: (call) => {
      if (!crashed && crashOn?.(call) === true) crashed = true
      if (crashed) throw new Error('crashed')
      return undefined
    },
  })
  const ctx = contextFor(root, rec.fs, {
    at: (p, i) => {
      if (crashed || p !== point || i !== index) return
      crashed = true
      throw new Error('crashed')
    },
  })
  const id = newTransactionId(new Date())
  await expect(runTransaction(ctx, id, steps, STANDARD_SUMMARY)).rejects.toThrow()
  expect(crashed).toBe(true)
  return { root, parent, id, before, aInode }
}

/** The crash after k of the n steps replaced their targets (k = 0: just after prepare). */
const afterSteps = (k: number) =>
  k === 0 ? crashDuring('prepared') : crashDuring('replaced', k - 1)

describe('recoverAll', () => {
  for (let k = 0; k <= STEPS; k++) {
    it(`rolls back a transaction interrupted after ${k} of ${STEPS} steps, and a second run changes nothing`, async () => {
      const { root, id, before } = await afterSteps(k)
      expect(await journalEntries(root)).toEqual([`${id}.pending`])
      expect(await recoverAll(contextFor(root), false)).toEqual({ ...EMPTY, rolledBack: [id] })
      expect(await treeState(root)).toEqual(before)
      expect(await journalEntries(root)).toEqual([])
      expect(await recoverAll(contextFor(root), false)).toEqual(EMPTY)
      expect(await treeState(root)).toEqual(before)
    })
  }

  // Transactions written before manifest version 3 keep staged files in new/ and backups in
  // old/ (D-122): a crashed one is rolled back all the same.
  for (const k of [0, 3, STEPS]) {
    it(`rolls back a version 2 transaction (new/ and old/) interrupted after ${k} of ${STEPS} steps`, async () => {
      const { root, id, before } = await afterSteps(k)
      const dir = path.join(root, '.patchloom/journal', `${id}.pending`)
      await mkdir(path.join(dir, 'new'))
      await mkdir(path.join(dir, 'old'))
      for (const name of await readdir(dir)) {
        const [kind, index] = name.split('.')
        if ((kind === 'new' || kind === 'old') && index !== undefined && /^\d+$/.test(index))
          await rename(path.join(dir, name), path.join(dir, kind, index))
      }
      const { mac: _mac, ...manifest } = JSON.parse(
        await readFile(path.join(dir, 'manifest.json'), 'utf8'),
      ) as Manifest & { mac: string }
      await writeFile(
        path.join(dir, 'manifest.json'),
        await encodeSignedManifest(testTrust(root), { ...manifest, version: 2 }),
      )
      expect((await readdir(path.join(dir, 'old'))).length).toBeGreaterThan(0)
      expect(await recoverAll(contextFor(root), false)).toEqual({ ...EMPTY, rolledBack: [id] })
      expect(await treeState(root)).toEqual(before)
      expect(await journalEntries(root)).toEqual([])
    })
  }

  it('rolls back a transaction interrupted after its targets were synced but before the mark', async () => {
    const { root, id, before } = await crashDuring('synced')
    expect(await recoverAll(contextFor(root), false)).toEqual({ ...EMPTY, rolledBack: [id] })
    expect(await treeState(root)).toEqual(before)
  })

  it('restores the original inodes from hard-linked backups', async () => {
    const { root, aInode } = await crashDuring('synced')
    expect((await stat(path.join(root, 'a.txt'))).ino).not.toBe(aInode)
    await recoverAll(contextFor(root), false)
    expect((await stat(path.join(root, 'a.txt'))).ino).toBe(aInode)
  })

  it('leaves a transaction that reached its mark committed', async () => {
    const { root, id } = await crashDuring('marked')
    expect(await journalEntries(root)).toEqual([id])
    expect(await recoverAll(contextFor(root), true)).toEqual(EMPTY)
    expect(await treeState(root)).toEqual(STANDARD_AFTER)
    expect(await journalEntries(root)).toEqual([id])
  })

  const PREPARE_CRASHES: [string, () => Promise<Crashed>][] = [
    ['while staging', () => crashDuring('staged', 2)],
    ['while backing up', () => crashDuring('backed-up', 0)],
    [
      'before the manifest was renamed into place',
      () =>
        crashDuring(
          undefined,
          0,
          (c) => c.method === 'rename' && String(c.args[1]).endsWith('manifest.json'),
        ),
    ],
  ]
  for (const [when, crash] of PREPARE_CRASHES) {
    it(`removes a transaction that crashed ${when} (no manifest: nothing was touched)`, async () => {
      const { root, id, before } = await crash()
      expect(await journalEntries(root)).toEqual([`${id}.pending`])
      expect(
        existsSync(path.join(root, '.patchloom/journal', `${id}.pending`, 'manifest.json')),
      ).toBe(false)
      expect(await recoverAll(contextFor(root), false)).toEqual(EMPTY)
      expect(await treeState(root)).toEqual(before)
      expect(await journalEntries(root)).toEqual([])
    })
  }
})

describe('recoverAll interrupted', () => {
  for (let k = 1; k <= STEPS; k++) {
    it(`ends as before however often recovery of a transaction stopped after ${k} steps is itself interrupted`, async () => {
      // Count the restores a clean recovery makes from this state.
      const probe = await afterSteps(k)
      let restores = 0
      await recoverAll(
        contextFor(probe.root, undefined, {
          at: (p) => (p === 'recovery-restored' ? restores++ : 0),
        }),
        false,
      )
      expect(restores).toBeGreaterThan(0)
      for (let m = 1; m <= restores; m++) {
        const { root, id, before } = await afterSteps(k)
        let seen = 0
        const interrupting = contextFor(root, undefined, {
          at: (p) => {
            if (p === 'recovery-restored' && ++seen === m) throw new Error('recovery killed')
          },
        })
        await expect(recoverAll(interrupting, false)).rejects.toThrow('recovery killed')
        expect(await journalEntries(root)).toEqual([`${id}.pending`])
        expect(await recoverAll(contextFor(root), false)).toEqual({ ...EMPTY, rolledBack: [id] })
        expect(await treeState(root)).toEqual(before)
        expect(await recoverAll(contextFor(root), false)).toEqual(EMPTY)
      }
    })
  }

  it('makes progress when every run is killed after its first restore', async () => {
    const { root, id, before } = await crashDuring('synced')
    const killFirst = contextFor(root, undefined, {
      at: (p) => {
        if (p === 'recovery-restored') throw new Error('recovery killed')
      },
    })
    let runs = 0
    for (;;) {
      runs++
      const outcome = await recoverAll(killFirst, false).catch(() => undefined)
      if (outcome !== undefined) {
        expect(outcome).toEqual({ ...EMPTY, rolledBack: [id] })
        break
      }
      expect(runs).toBeLessThan(20)
    }
    // One killed run per step that had to be undone, then one that finished.
    expect(runs).toBe(STEPS + 1)
    expect(await treeState(root)).toEqual(before)
  })
})

describe('recovery conflicts', () => {
  it('leaves a file changed after the crash alone, reports it with its backup, and retries once it is restored', async () => {
    const { root, id, before } = await crashDuring('synced')
    await writeFile(path.join(root, 'a.txt'), 'mine\n')
    const report = await recoverAll(contextFor(root), false)
    const conflictDir = path.join(root, '.patchloom/journal', `${id}.conflict`)
    expect(report).toEqual({
      rolledBack: [],
      conflicted: [id],
      conflicts: [
        {
          transaction: id,
          path: 'a.txt',
          reason: expect.stringContaining(`neither the state before nor after transaction ${id}`),
          backup: path.join(conflictDir, 'old.0'),
        },
      ],
    })
    expect(await readFile(report.conflicts[0]?.backup as string, 'utf8')).toBe('alpha\n')
    expect(JSON.parse(await readFile(path.join(conflictDir, 'conflicts.json'), 'utf8'))).toEqual(
      report.conflicts,
    )
    expect(await journalEntries(root)).toEqual([`${id}.conflict`])
    // Every other file is back; a.txt keeps the other writer's content.
    const expected = before.map((e) =>
      e['path'] === 'a.txt' ? { ...e, content: 'text:mine\n' } : e,
    )
    expect(await treeState(root)).toEqual(expected)

    // Automatic recovery (on open) does not retry conflicts; recover() does, and still refuses.
    expect(await recoverAll(contextFor(root), false)).toEqual(EMPTY)
    const journal = journalFor(root)
    expect((await journal.recover()).conflicted).toEqual([id])
    expect(await treeState(root)).toEqual(expected)
    expect(await journalEntries(root)).toEqual([`${id}.conflict`])

    // The user puts the file back in its after state: recover() now finishes the rollback.
    await writeFile(path.join(root, 'a.txt'), 'ALPHA\n')
    expect(await journal.recover()).toEqual({ ...EMPTY, rolledBack: [id] })
    expect(await treeState(root)).toEqual(before)
    expect(await journalEntries(root)).toEqual([])
  })

  it('reports a recreated removed file with its backup and a changed new file without one', async () => {
    const { root, id } = await crashDuring('synced')
    await mkdir(path.join(root, 'gone'))
    await writeFile(path.join(root, 'gone/only.txt'), 'again\n')
    await writeFile(path.join(root, 'lib/deep/c.txt'), 'edited\n')
    const report = await recoverAll(contextFor(root), false)
    const conflictDir = path.join(root, '.patchloom/journal', `${id}.conflict`)
    expect(report.conflicts.map((c) => [c.path, c.backup])).toEqual([
      ['gone/only.txt', path.join(conflictDir, 'old.3')],
      ['lib/deep/c.txt', undefined],
    ])
    expect(await readFile(path.join(conflictDir, 'old.3'), 'utf8')).toBe('bye\n')
    expect(await readFile(path.join(root, 'gone/only.txt'), 'utf8')).toBe('again\n')
    expect(await readFile(path.join(root, 'lib/deep/c.txt'), 'utf8')).toBe('edited\n')
  })

  it('treats a mode change as a change', async () => {
    const { root, id } = await crashDuring('synced')
    await chmod(path.join(root, 'run.sh'), 0o700)
    const report = await recoverAll(contextFor(root), false)
    expect(report.conflicted).toEqual([id])
    expect(report.conflicts[0]).toMatchObject({
      path: 'run.sh',
      reason: expect.stringContaining('mode 700'),
    })
  })
})

describe('recovery of an untrustworthy manifest', () => {
  const CORRUPTIONS: [string, (m: Manifest, parent: string) => Uint8Array, string][] = [
    ['bad JSON', () => enc('{"version": 1, "steps": ['), 'not valid JSON'],
    [
      "a path with '..'",
      (m) =>
        encodeManifest({
          ...m,
          steps: m.steps.map((s, i) => (i === 0 ? { ...s, path: '../outside.txt' } : s)),
        }),
      'unsafe path ../outside.txt',
    ],
    [
      'an absolute path',
      (m, parent) =>
        encodeManifest({
          ...m,
          steps: m.steps.map((s, i) =>
            i === 0 ? { ...s, path: path.join(parent, 'outside.txt') } : s,
          ),
        }),
      'unsafe path /',
    ],
    [
      "a created directory with '..'",
      (m) =>
        encodeManifest({
          ...m,
          steps: m.steps.map((s, i) => (i === 2 ? { ...s, createdDirs: ['..'] } : s)),
        }),
      'bad createdDirs',
    ],
    [
      'another id',
      (m) => encodeManifest({ ...m, id: newTransactionId(new Date(0)) }),
      'names another transaction',
    ],
  ]
  for (const [what, corrupt, reason] of CORRUPTIONS) {
    it(`never acts on a manifest with ${what}, and reports it`, async () => {
      const { root, parent, id } = await crashDuring('synced')
      // Outside the workspace, a file in step 0's after state: acting on the manifest would
      // "restore" it from old.0.
      await writeFile(path.join(parent, 'outside.txt'), 'ALPHA\n')
      await chmod(path.join(parent, 'outside.txt'), 0o644)
      const dir = path.join(root, '.patchloom/journal', `${id}.pending`)
      const manifestPath = path.join(dir, 'manifest.json')
      const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest
      await writeFile(manifestPath, corrupt(manifest, parent))
      const crashedTree = await treeState(root)

      const report = await journalFor(root).recover()
      expect(report.rolledBack).toEqual([])
      expect(report.conflicted).toEqual([id])
      expect(report.conflicts).toHaveLength(1)
      expect(report.conflicts[0]?.reason).toContain(reason)
      expect(report.conflicts[0]?.code).toBe('JOURNAL_CORRUPT')
      // Never written to, not even renamed: it stays where it is, named with how to clear it.
      expect(report.conflicts[0]?.path).toBe(`.patchloom/journal/${id}.pending`)
      expect(report.conflicts[0]?.reason).toContain(`delete .patchloom/journal/${id}.pending`)
      expect(await treeState(root)).toEqual(crashedTree)
      expect(await readFile(path.join(parent, 'outside.txt'), 'utf8')).toBe('ALPHA\n')
      expect(await journalEntries(root)).toEqual([`${id}.pending`])
      expect(existsSync(path.join(root, '.patchloom/journal', `${id}.pending`, 'old.0'))).toBe(true)
    })
  }

  it('fails undo of a committed transaction whose manifest is corrupt with JOURNAL_CORRUPT', async () => {
    const { root } = await tempWorkspace()
    await writeStandardFiles(root)
    const journal = journalFor(root)
    const id = (await journal.commit(standardSteps(root), STANDARD_SUMMARY)) as string
    const manifestPath = path.join(root, '.patchloom/journal', id, 'manifest.json')
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest
    await writeFile(
      manifestPath,
      encodeManifest({ ...manifest, steps: [{ ...manifest.steps[0]!, path: '/etc/passwd' }] }),
    )
    const error = await editError(journal.undo(id))
    expect(error.code).toBe('JOURNAL_CORRUPT')
    expect(error.message).toContain(id)
    expect(await treeState(root)).toEqual(STANDARD_AFTER)
  })
})

describe('Journal recovery on open', () => {
  it('rolls back a crashed transaction before the first commit and reports it', async () => {
    const { root, id, before } = await crashDuring('replaced', 3)
    const reports: RecoveryReport[] = []
    const journal = journalFor(root, { onRecovered: (r) => reports.push(r) })
    const next = await journal.commit(
      [
        {
          kind: 'write',
          abs: path.join(root, 'a.txt'),
          rel: 'a.txt',
          bytes: enc('third\n'),
          permissions: 0o644,
          before: { hash: hashBytes(enc('alpha\n')), permissions: 0o644 },
        },
      ],
      STANDARD_SUMMARY,
    )
    expect(reports).toEqual([{ ...EMPTY, rolledBack: [id] }])
    expect(await journalEntries(root)).toEqual([next])
    const expected = before.map((e) =>
      e['path'] === 'a.txt' ? { ...e, content: 'text:third\n' } : e,
    )
    expect(await treeState(root)).toEqual(expected)
  })

  it('does nothing, and creates nothing, in a workspace without a journal', async () => {
    const { root } = await tempWorkspace()
    expect(await journalFor(root).beforeRequest(false)).toEqual([])
    expect(existsSync(layoutFor(root).stateDir)).toBe(false)
    expect(await journalFor(root).recover()).toEqual(EMPTY)
    expect(existsSync(layoutFor(root).stateDir)).toBe(false)
  })
})

// With `full`, every directory entry recovery changes must be durable before the transaction that
// describes the change is removed (DECISIONS.md D-048); the power-cut model check
// (test/unit/journal/power-cut.test.ts) found the ones that were not.
describe('recovery durability', () => {
  const syncsOf = (log: readonly string[], root: string): string[] =>
    log.filter((l) => l.startsWith('syncDir ')).map((l) => path.relative(root, l.slice(8)) || '.')

  it('syncs the parent of a directory it re-creates before renaming the backup in, and of one it removes', async () => {
    // Every step replaced: gone/ was pruned, lib/deep/ and dst/ were created.
    const { root, id, before } = await crashDuring('synced')
    const rec = recordingFs()
    expect(await recoverAll(contextFor(root, rec.fs), false)).toEqual({
      ...EMPTY,
      rolledBack: [id],
    })
    expect(await treeState(root)).toEqual(before)
    const at = (line: string): number => rec.log.indexOf(line)
    const mkdirGone = at(`mkdir ${path.join(root, 'gone')}`)
    const renameIn = rec.log.findIndex((l) => l.startsWith('rename ') && l.includes('/old.3'))
    expect(mkdirGone).toBeGreaterThanOrEqual(0)
    // The root's entry for gone/ is durable before gone/only.txt leaves the transaction for it.
    expect(rec.log.slice(mkdirGone, renameIn)).toContain(`syncDir ${root}`)
    const syncs = syncsOf(rec.log, root)
    // The removed lib/deep/, lib/ and dst/ are not synced (that failed ENOENT and was ignored);
    // their parents are, after the rmdirs.
    expect(syncs).not.toContain('lib/deep')
    expect(syncs).not.toContain('lib')
    expect(syncs).not.toContain('dst')
    expect(rec.log.lastIndexOf(`syncDir ${root}`)).toBeGreaterThan(
      at(`rmdir ${path.join(root, 'lib')}`),
    )
    expect(syncs).toEqual(expect.arrayContaining(['.', 'gone', 'src', '.patchloom/journal']))
  })

  it('syncs the directory of a step an earlier, killed recovery already put back', async () => {
    const { root, id, before } = await crashDuring('synced')
    // The first recovery restores steps 6 and 5 (newest first) and is killed before its syncs.
    const killed = contextFor(root, quietJournalFs, {
      at: (point, i) => {
        if (point === 'recovery-restored' && i === 5) throw new Error('crashed')
      },
    })
    await expect(recoverAll(killed, false)).rejects.toThrow('crashed')
    expect(await readFile(path.join(root, 'src/from.txt'), 'utf8')).toBe('moving\n')
    const rec = recordingFs()
    expect(await recoverAll(contextFor(root, rec.fs), false)).toEqual({
      ...EMPTY,
      rolledBack: [id],
    })
    expect(await treeState(root)).toEqual(before)
    // src/from.txt was found in its before state, possibly only in memory: src/ is synced anyway.
    expect(syncsOf(rec.log, root)).toContain('src')
  })

  it('reports a failed directory sync as journal.not-durable, and a second run finds nothing to do', async () => {
    const { root, id, before } = await crashDuring('synced')
    const rec = recordingFs({
      fail: (c) =>
        c.method === 'syncDir' && String(c.args[0]) === path.join(root, 'src') ? 'EIO' : undefined,
    })
    const report = await recoverAll(contextFor(root, rec.fs), false)
    expect(report.rolledBack).toEqual([id])
    expect(report.conflicts).toEqual([])
    expect(report.warnings).toEqual([
      {
        code: 'journal.not-durable',
        path: 'src',
        message: expect.stringContaining(
          `Transaction ${id} was rolled back, but syncing src failed`,
        ),
      },
    ])
    expect(await treeState(root)).toEqual(before)
    expect(await journalEntries(root)).toEqual([])
    expect(await recoverAll(contextFor(root), false)).toEqual(EMPTY)
  })

  it('stops before moving a backup into a re-created directory whose name failed to sync', async () => {
    const { root, id } = await crashDuring('synced')
    let madeGone = false
    const rec = recordingFs({
      fail: (c) => {
        if (c.method === 'mkdir' && String(c.args[0]) === path.join(root, 'gone')) madeGone = true
        return madeGone && c.method === 'syncDir' && String(c.args[0]) === root ? 'EIO' : undefined
      },
    })
    const report = await recoverAll(contextFor(root, rec.fs), false)
    expect(report.rolledBack).toEqual([])
    expect(report.conflicted).toEqual([id])
    expect(report.conflicts[0]?.code).toBeDefined()
    // gone/only.txt's backup never left the transaction, which is kept for `patchloom recover`.
    expect(existsSync(path.join(root, 'gone/only.txt'))).toBe(false)
    expect(await journalEntries(root)).toEqual([`${id}.conflict`])
    expect(
      await readFile(path.join(root, '.patchloom/journal', `${id}.conflict`, 'old.3'), 'utf8'),
    ).toBe('bye\n')
  })

  it('tells the request that triggered the recovery about a failed sync', async () => {
    const { root, id } = await crashDuring('synced')
    const rec = recordingFs({
      fail: (c) =>
        c.method === 'syncDir' && String(c.args[0]) === path.join(root, 'src') ? 'EIO' : undefined,
    })
    const notices = await journalFor(root, { fs: rec.fs }).beforeRequest(false)
    expect(notices.map((n) => [n.code, n.path])).toEqual([
      ['journal.recovered', `.patchloom/journal/${id}.pending`],
      ['journal.not-durable', 'src'],
    ])
  })

  it('reports a failed sync of the journal directory after the transactions are removed', async () => {
    const { root, id } = await crashDuring('synced')
    const journalDir = path.join(root, '.patchloom/journal')
    const rec = recordingFs({
      fail: (c) => (c.method === 'syncDir' && String(c.args[0]) === journalDir ? 'EIO' : undefined),
    })
    const report = await recoverAll(contextFor(root, rec.fs), false)
    expect(report.rolledBack).toEqual([id])
    expect(report.warnings?.map((w) => [w.code, w.path])).toEqual([
      ['journal.not-durable', '.patchloom/journal'],
    ])
  })
})

describe('recovery cost', () => {
  it('reads the manifest once per check and each shared directory once, not once per step', async () => {
    const { root } = await tempWorkspace()
    const files: Record<string, string> = {}
    for (let i = 0; i < 12; i++) files[`deep/dir/f${i}.txt`] = `v0 ${i}\n`
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true })
      await writeFile(path.join(root, rel), text)
    }
    const before = await treeState(root)
    const steps = await Promise.all(
      Object.keys(files).map((rel) => writeStep(root, rel, `v1 ${rel}\n`)),
    )
    const id = (await journalFor(root).commit(steps, STANDARD_SUMMARY)) as string
    // Committed, then put back to pending: exactly a commit interrupted just before its mark.
    const journalDir = path.join(root, '.patchloom/journal')
    await rename(path.join(journalDir, id), path.join(journalDir, `${id}.pending`))
    const rec = recordingFs()

    const report = await journalFor(root, { fs: rec.fs }).recover()

    expect(report.rolledBack).toEqual([id])
    expect(await treeState(root)).toEqual(before)
    const manifestReads = rec.log.filter(
      (l) => l.endsWith('manifest.json') && l.startsWith('readFile'),
    )
    // Once before taking the lock (is it ours?), once under it; rollBack reuses the second.
    expect(manifestReads).toHaveLength(2)
    expect(rec.log.filter((l) => l === `lstat ${path.join(root, 'deep/dir')}`).length).toBeLessThan(
      2 + 12,
    )
    expect(rec.log.filter((l) => l === `lstat ${path.join(root, 'deep')}`)).toHaveLength(2)
    expect(rec.log.some((l) => l.includes(`${id}.pending/new.`))).toBe(false)
  })
})
