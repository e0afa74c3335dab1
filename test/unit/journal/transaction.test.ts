// One transaction end to end through Journal.commit: the exact after tree, what the committed
// transaction keeps (manifest, backups as hard links or copies), and targets that another
// writer replaces or changes between verification and commit (JournalHooks make the change at
// exactly the instrumented moment).
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { lstat, readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { nodeJournalFs } from '../../../src/journal/fs.js'
import { hashBytes } from '../../../src/hash.js'
import { decodeManifest, isSignedBy, type Manifest } from '../../../src/journal/manifest.js'
import type { FileState, JournalPoint } from '../../../src/journal/records.js'
import type { Warning } from '../../../src/types.js'
import { journalEntries } from '../../helpers/tree.js'
import {
  editError,
  enc,
  journalFor,
  quietJournalFs,
  recordingFs,
  standardSteps,
  STANDARD_AFTER,
  STANDARD_BEFORE,
  STANDARD_SUMMARY,
  tempWorkspace,
  testTrust,
  treeState,
  writeStandardFiles,
  writeStep,
} from './fixtures.js'

async function manifestOf(root: string, id: string): Promise<Manifest> {
  const decoded = decodeManifest(
    await readFile(path.join(root, '.patchloom/journal', id, 'manifest.json')),
  )
  if (typeof decoded === 'string') throw new Error(decoded)
  return decoded
}

describe('Journal.commit', () => {
  it('gives exactly the after tree and keeps a committed transaction with manifest and backups', async () => {
    const { root } = await tempWorkspace()
    await writeStandardFiles(root)
    expect(await treeState(root)).toEqual(STANDARD_BEFORE)
    const steps = standardSteps(root)
    const inodes = new Map<string, number>()
    for (const rel of ['a.txt', 'run.sh', 'gone/only.txt', 'src/from.txt', 'linked.txt'])
      inodes.set(rel, (await stat(path.join(root, rel))).ino)

    // The real filesystem, fsync and all, once.
    const id = await journalFor(root, { fs: nodeJournalFs }).commit(steps, STANDARD_SUMMARY)

    expect(id).toMatch(/^\d{8}T\d{9}Z-[0-9a-z]{6}$/)
    expect(await treeState(root)).toEqual(STANDARD_AFTER)
    expect((await readdir(path.join(root, '.patchloom'))).sort()).toEqual(['.gitignore', 'journal'])
    expect(await journalEntries(root)).toEqual([id])
    const dir = path.join(root, '.patchloom/journal', id as string)
    // Backups flat in the transaction as old.N (manifest version 3, D-122); every staged file
    // was renamed into place.
    expect((await readdir(dir)).sort()).toEqual([
      'manifest.json',
      'old.0',
      'old.1',
      'old.3',
      'old.5',
      'old.6',
    ])
    // Hard links keep the original inode (nlink was 1); linked.txt had a second link: a copy.
    for (const [i, rel] of [
      [0, 'a.txt'],
      [1, 'run.sh'],
      [3, 'gone/only.txt'],
      [5, 'src/from.txt'],
    ] as const)
      expect((await stat(path.join(dir, `old.${i}`))).ino).toBe(inodes.get(rel))
    const copy = await stat(path.join(dir, 'old.6'))
    expect(copy.ino).not.toBe(inodes.get('linked.txt'))
    expect(await readFile(path.join(dir, 'old.6'), 'utf8')).toBe('linked v1\n')
    expect(await readFile(path.join(dir, 'old.1'), 'utf8')).toBe('#!/bin/sh\necho hi\n')
  })

  it('records every step with its before and after hash and mode, and the created directories', async () => {
    const { root } = await tempWorkspace()
    await writeStandardFiles(root)
    const steps = standardSteps(root)
    const id = (await journalFor(root).commit(steps, STANDARD_SUMMARY)) as string
    const manifest = await manifestOf(root, id)
    const h = (text: string) => hashBytes(enc(text))
    expect(manifest).toMatchObject({
      version: 3,
      mac: expect.stringMatching(/^[0-9a-f]{64}$/),
      id,
      durability: 'full',
      summary: STANDARD_SUMMARY,
    })
    expect(Date.parse(manifest.createdAt)).not.toBeNaN()
    expect(manifest.steps).toEqual([
      {
        kind: 'write',
        path: 'a.txt',
        before: { hash: h('alpha\n'), permissions: 0o644 },
        after: { hash: h('ALPHA\n'), permissions: 0o644 },
        createdDirs: [],
      },
      {
        kind: 'write',
        path: 'run.sh',
        before: { hash: h('#!/bin/sh\necho hi\n'), permissions: 0o644 },
        after: { hash: h('#!/bin/sh\necho hi\n'), permissions: 0o755 },
        createdDirs: [],
      },
      {
        kind: 'write',
        path: 'lib/deep/c.txt',
        before: null,
        after: { hash: h('created\n'), permissions: 0o644 },
        createdDirs: ['lib', 'lib/deep'],
      },
      {
        kind: 'remove',
        path: 'gone/only.txt',
        before: { hash: h('bye\n'), permissions: 0o644 },
        after: null,
        createdDirs: [],
      },
      {
        kind: 'write',
        path: 'dst/moved.txt',
        before: null,
        after: { hash: h('moving\n'), permissions: 0o644 },
        createdDirs: ['dst'],
      },
      {
        kind: 'remove',
        path: 'src/from.txt',
        before: { hash: h('moving\n'), permissions: 0o644 },
        after: null,
        createdDirs: [],
      },
      {
        kind: 'write',
        path: 'linked.txt',
        before: { hash: h('linked v1\n'), permissions: 0o644 },
        after: { hash: h('linked v2\n'), permissions: 0o644 },
        createdDirs: [],
      },
    ])
  })

  it('falls back to copies when hard links fail with EXDEV', async () => {
    const { root } = await tempWorkspace()
    await writeStandardFiles(root)
    const steps = standardSteps(root)
    const origin = (await stat(path.join(root, 'a.txt'))).ino
    const rec = recordingFs({ fail: (c) => (c.method === 'link' ? 'EXDEV' : undefined) })
    const id = (await journalFor(root, { fs: rec.fs }).commit(steps, STANDARD_SUMMARY)) as string
    expect(rec.failed.length).toBe(4)
    expect(rec.calls.copyNew).toBe(5)
    expect(await treeState(root)).toEqual(STANDARD_AFTER)
    const backup = path.join(root, '.patchloom/journal', id, 'old.0')
    expect((await stat(backup)).ino).not.toBe(origin)
    expect(await readFile(backup, 'utf8')).toBe('alpha\n')
  })

  it('passes every instrumented point in order', async () => {
    const { root } = await tempWorkspace()
    await writeStandardFiles(root)
    const points: string[] = []
    const journal = journalFor(root, { hooks: { at: (p, i) => points.push(`${p} ${i}`) } })
    await journal.commit(standardSteps(root), STANDARD_SUMMARY)
    const staged = points.filter((p) => p.startsWith('staged')).sort()
    const backedUp = points.filter((p) => p.startsWith('backed-up')).sort()
    expect(staged).toEqual(['staged 0', 'staged 1', 'staged 2', 'staged 4', 'staged 6'])
    expect(backedUp).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `backed-up ${i}`))
    expect(points[0]).toBe('locked 0')
    expect(points.slice(1 + staged.length + backedUp.length)).toEqual([
      'prepared 0',
      ...[0, 1, 2, 3, 4, 5, 6].map((i) => `replaced ${i}`),
      'synced 0',
      'marked 0',
      'cleaned 0',
    ])
  })

  it('syncs staged files and directories with durability full, and nothing with fast', async () => {
    for (const durability of ['full', 'fast'] as const) {
      const { root } = await tempWorkspace()
      await writeStandardFiles(root)
      const written: string[] = []
      const rec = recordingFs({
        fail: (call) => {
          if (call.method === 'writeNew' || call.method === 'copyNew') {
            // Files are written unsynced and flushed together by syncFile (D-125).
            expect(call.args[3]).toBe(false)
            written.push(String(call.args[call.method === 'writeNew' ? 0 : 1]))
          }
          return undefined
        },
      })
      await journalFor(root, { fs: rec.fs, durability }).commit(
        standardSteps(root),
        STANDARD_SUMMARY,
      )
      expect(await treeState(root)).toEqual(STANDARD_AFTER)
      const syncedFiles = rec.log.filter((l) => l.startsWith('syncFile ')).map((l) => l.slice(9))
      if (durability === 'fast') {
        expect(rec.calls.syncDir).toBe(0)
        expect(syncedFiles).toEqual([])
      } else {
        expect(rec.calls.syncDir).toBeGreaterThan(3)
        // Every staged file and the manifest; the .gitignore is the one file left unsynced.
        expect(syncedFiles.sort()).toEqual(written.filter((p) => !p.endsWith('.gitignore')).sort())
        expect(syncedFiles.some((p) => p.endsWith('manifest.json.tmp'))).toBe(true)
        // The manifest's bytes are durable before it is named.
        const named = rec.log.findIndex(
          (l) => l.startsWith('rename ') && l.includes('manifest.json.tmp'),
        )
        const flushed = rec.log.findIndex(
          (l) => l.startsWith('syncFile ') && l.includes('manifest.json.tmp'),
        )
        expect(flushed).toBeGreaterThan(-1)
        expect(flushed).toBeLessThan(named)
      }
    }
  })

  it('warns that a committed change is not durable when the sync after the mark fails', async () => {
    const { root } = await tempWorkspace()
    await writeStandardFiles(root)
    let marked = false
    const rec = recordingFs({
      fail: (call) => {
        if (call.method === 'rename' && String(call.args[0]).endsWith('.pending')) marked = true
        // Only the journal directory's sync that makes the mark durable fails.
        return marked && call.method === 'syncDir' ? 'EIO' : undefined
      },
    })
    const warnings: Warning[] = []
    const id = await journalFor(root, { fs: rec.fs }).commit(
      standardSteps(root),
      STANDARD_SUMMARY,
      warnings,
    )
    // Committed (nothing after the mark may roll back), but not reported as durable.
    expect(rec.failed.map((c) => c.method)).toEqual(['syncDir'])
    expect(await treeState(root)).toEqual(STANDARD_AFTER)
    expect(await journalEntries(root)).toEqual([id])
    expect(warnings).toEqual([
      {
        code: 'journal.not-durable',
        message: expect.stringMatching(/EIO.*power cut/) as unknown as string,
      },
    ])
  })

  it('reports no warning when every sync succeeds, and none with fast (nothing is promised)', async () => {
    for (const durability of ['full', 'fast'] as const) {
      const { root } = await tempWorkspace()
      await writeStandardFiles(root)
      const warnings: Warning[] = []
      await journalFor(root, { durability }).commit(standardSteps(root), STANDARD_SUMMARY, warnings)
      expect(warnings).toEqual([])
    }
  })

  it('gives a new file the requested mode whatever the umask', async () => {
    const { root } = await tempWorkspace()
    const steps = [
      await writeStep(root, 'bin/tool', 'x\n', 0o750),
      await writeStep(root, 'k', 'k\n', 0o600),
    ]
    await journalFor(root).commit(steps, STANDARD_SUMMARY)
    expect(((await lstat(path.join(root, 'bin/tool'))).mode & 0o7777).toString(8)).toBe('750')
    expect(((await lstat(path.join(root, 'k'))).mode & 0o7777).toString(8)).toBe('600')
  })

  it('writes a file whose name is close to the 255-byte limit (staging names are step numbers)', async () => {
    const { root } = await tempWorkspace()
    const name = 'A'.repeat(250)
    await journalFor(root).commit([await writeStep(root, name, 'x\n')], STANDARD_SUMMARY)
    expect(await readFile(path.join(root, name), 'utf8')).toBe('x\n')
  })

  it('returns undefined and creates nothing for an empty change', async () => {
    const { root } = await tempWorkspace()
    expect(await journalFor(root).commit([], STANDARD_SUMMARY)).toBeUndefined()
    expect(await readdir(root)).toEqual([])
  })
})

/** Another writer's moves, each made synchronously at the instrumented moment. */
const RACES = {
  'replaces a.txt by a directory': (root: string) => {
    rmSync(path.join(root, 'a.txt'))
    mkdirSync(path.join(root, 'a.txt'))
  },
  'replaces a.txt by a symlink': (root: string) => {
    rmSync(path.join(root, 'a.txt'))
    symlinkSync('untouched.txt', path.join(root, 'a.txt'))
  },
  'edits a.txt in place': (root: string) => writeFileSync(path.join(root, 'a.txt'), 'theirs\n'),
  'edits linked.txt (backed up by a copy) in place': (root: string) =>
    writeFileSync(path.join(root, 'linked.txt'), 'theirs\n'),
  'replaces src/from.txt (a removal) by a directory': (root: string) => {
    unlinkSync(path.join(root, 'src/from.txt'))
    mkdirSync(path.join(root, 'src/from.txt'))
  },
  'edits src/from.txt (a removal) in place': (root: string) =>
    writeFileSync(path.join(root, 'src/from.txt'), 'theirs\n'),
  'creates lib/deep/c.txt (a new file) as a directory': (root: string) =>
    mkdirSync(path.join(root, 'lib/deep/c.txt'), { recursive: true }),
  'creates dst/moved.txt (a move target) as a symlink': (root: string) => {
    mkdirSync(path.join(root, 'dst'))
    symlinkSync('../a.txt', path.join(root, 'dst/moved.txt'))
  },
} as const

const TARGET_STEP: Record<keyof typeof RACES, number> = {
  'replaces a.txt by a directory': 0,
  'replaces a.txt by a symlink': 0,
  'edits a.txt in place': 0,
  'edits linked.txt (backed up by a copy) in place': 6,
  'replaces src/from.txt (a removal) by a directory': 5,
  'edits src/from.txt (a removal) in place': 5,
  'creates lib/deep/c.txt (a new file) as a directory': 2,
  'creates dst/moved.txt (a move target) as a symlink': 4,
}

/** Windows between verification and the replacement of step `target`. */
function windowsFor(target: number): [JournalPoint, number][] {
  const windows: [JournalPoint, number][] = [
    ['staged', 0],
    ['prepared', 0],
  ]
  for (let i = 0; i < target; i++) windows.push(['replaced', i])
  return windows
}

describe('Journal.commit with another writer', () => {
  for (const [race, change] of Object.entries(RACES)) {
    const target = TARGET_STEP[race as keyof typeof RACES]
    for (const [point, index] of windowsFor(target)) {
      it(`fails FILE_CHANGED when another writer ${race} at ${point} ${index}, keeping that change`, async () => {
        const { root } = await tempWorkspace()
        await writeStandardFiles(root)
        const steps = standardSteps(root)
        // What the tree must be: before, plus the other writer's change.
        const { root: expectedRoot } = await tempWorkspace()
        await writeStandardFiles(expectedRoot)
        change(expectedRoot)
        const expected = await treeState(expectedRoot)
        const journal = journalFor(root, {
          hooks: { at: (p, i) => (p === point && i === index ? change(root) : undefined) },
        })
        const error = await editError(journal.commit(steps, STANDARD_SUMMARY))
        expect(error.code).toBe('FILE_CHANGED')
        expect(error.retryable).toBe(true)
        expect(error.path).toBe(steps[target]?.rel)
        expect(await treeState(root)).toEqual(expected)
        expect(await journalEntries(root)).toEqual([])
        expect(
          lstatSync(path.join(root, '.patchloom/lock'), { throwIfNoEntry: false }),
        ).toBeUndefined()
      })
    }
  }

  for (const [point, index] of windowsFor(2).filter(([p]) => p !== 'staged')) {
    it(`fails FILE_CHANGED and keeps the directory when another writer creates a new file's parent at ${point} ${index}`, async () => {
      const { root } = await tempWorkspace()
      await writeStandardFiles(root)
      const journal = journalFor(root, {
        hooks: {
          at: (p, i) =>
            p === point && i === index ? mkdirSync(path.join(root, 'lib')) : undefined,
        },
      })
      const error = await editError(journal.commit(standardSteps(root), STANDARD_SUMMARY))
      expect(error.code).toBe('FILE_CHANGED')
      expect(error.path).toBe('lib/deep/c.txt')
      expect(error.message).toContain('needs directory lib')
      expect(await treeState(root)).toEqual(
        [...STANDARD_BEFORE, { path: 'lib', kind: 'dir' }].sort((a, b) =>
          a.path < b.path ? -1 : 1,
        ),
      )
      expect(await journalEntries(root)).toEqual([])
    })
  }

  it('keeps a nested directory another writer created inside one the commit had just made', async () => {
    const { root } = await tempWorkspace()
    await writeStandardFiles(root)
    const deep = path.join(root, 'lib/deep')
    const rec = recordingFs({
      fail: (call) => {
        if (call.method !== 'mkdir' || call.args[0] !== deep) return undefined
        mkdirSync(deep) // they win the race for lib/deep
        return 'EEXIST'
      },
    })
    const error = await editError(
      journalFor(root, { fs: rec.fs }).commit(standardSteps(root), STANDARD_SUMMARY),
    )
    expect(error.code).toBe('FILE_CHANGED')
    const tree = await treeState(root)
    expect(tree.filter((e) => String(e['path']).startsWith('lib'))).toEqual([
      { path: 'lib', kind: 'dir' },
      { path: 'lib/deep', kind: 'dir' },
    ])
  })

  it("reports a rollback conflict, and keeps the writer's change, when an already replaced file is edited before a later step fails", async () => {
    const { root } = await tempWorkspace()
    await writeStandardFiles(root)
    const steps = standardSteps(root)
    const journal = journalFor(root, {
      hooks: {
        at: (p, i) => {
          if (p !== 'replaced' || i !== 0) return
          writeFileSync(path.join(root, 'a.txt'), 'theirs\n') // after our replacement
          rmSync(path.join(root, 'run.sh'))
          mkdirSync(path.join(root, 'run.sh')) // the next step then fails
        },
      },
    })
    const error = await editError(journal.commit(steps, STANDARD_SUMMARY))
    expect(error.code).toBe('JOURNAL_ROLLBACK_FAILED')
    expect(error.path).toBe('a.txt')
    expect(error.message).toContain('FILE_CHANGED on run.sh')
    expect(error.message).not.toContain('nothing was changed')
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('theirs\n')
    const [pending] = await journalEntries(root)
    expect(pending).toMatch(/\.pending$/)
  })
})

describe('Journal.commit bookkeeping', () => {
  it('records the after hash the caller passes instead of hashing the bytes again', async () => {
    const { root } = await tempWorkspace()
    writeFileSync(path.join(root, 'a.txt'), 'one\n')
    const given = `sha256:${'0'.repeat(64)}`
    const vouched = { ...(await writeStep(root, 'a.txt', 'two\n')), afterHash: given }
    const plain = await writeStep(root, 'b.txt', 'new\n')
    const id = await journalFor(root).commit([vouched, plain], STANDARD_SUMMARY)
    const manifest = await manifestOf(root, id as string)
    expect(manifest.steps.map((s) => s.after?.hash)).toEqual([given, hashBytes(enc('new\n'))])
  })

  it('writes a manifest that decodes to what was signed and verifies', async () => {
    const { root } = await tempWorkspace()
    writeFileSync(path.join(root, 'é "q".txt'), 'one\n')
    const step = await writeStep(root, 'é "q".txt', 'two\n')
    const journal = journalFor(root)
    const id = await journal.commit([step], STANDARD_SUMMARY)
    const manifest = await manifestOf(root, id as string)
    expect(manifest.steps[0]?.path).toBe('é "q".txt')
    expect(await isSignedBy(testTrust(root), manifest)).toBe(true)
    // Recovery reads it like any other: an undo of it restores the file.
    await journal.undo(id)
    expect(readFileSync(path.join(root, 'é "q".txt'), 'utf8')).toBe('one\n')
  })

  it('yields to the event loop during a commit whose calls complete synchronously', async () => {
    const { root } = await tempWorkspace()
    const steps = []
    for (let i = 0; i < 40; i++) steps.push(await writeStep(root, `f${i}.txt`, `${i}\n`))
    // Every lstat holds the thread for 1 ms, as a slow synchronous call would.
    const slow = {
      ...quietJournalFs,
      lstat: (p: string) => {
        const until = performance.now() + 1
        while (performance.now() < until);
        return quietJournalFs.lstat(p)
      },
    }
    let ticks = 0
    const timer = setInterval(() => ticks++, 0)
    try {
      await journalFor(root, { fs: slow, durability: 'fast' }).commit(steps, STANDARD_SUMMARY)
    } finally {
      clearInterval(timer)
    }
    expect(ticks).toBeGreaterThan(0)
  })
})

describe('Journal.commit with read stamps (D-082)', () => {
  async function stamped(root: string, rel: string, text: string, readStartMs: number) {
    const step = await writeStep(root, rel, text)
    const st = await lstat(path.join(root, rel), { bigint: true })
    const beforeStamp = {
      ino: Number(st.ino),
      size: Number(st.size),
      mtimeNs: st.mtimeNs,
      ctimeNs: st.ctimeNs,
      readStartMs,
    }
    return { ...step, beforeStamp }
  }
  const backupReads = (log: readonly string[]) =>
    log.filter((l) => l.startsWith('readFile') && l.includes('/old.'))

  it('skips reading the backup back when the file is the one the stamp describes', async () => {
    const { root } = await tempWorkspace()
    writeFileSync(path.join(root, 'a.txt'), 'one\n')
    // Read "5 s after it last changed": its ctime is well before the read.
    const step = await stamped(root, 'a.txt', 'two\n', Date.now() + 5_000)
    const rec = recordingFs()
    const id = await journalFor(root, { fs: rec.fs }).commit([step], STANDARD_SUMMARY)
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('two\n')
    expect(backupReads(rec.log)).toEqual([])
    // The backup is still the original, and undo still checks it by hash.
    await journalFor(root).undo(id)
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\n')
  })

  it('reads and hashes a file that changed just before it was read (racy stamp)', async () => {
    const { root } = await tempWorkspace()
    writeFileSync(path.join(root, 'a.txt'), 'one\n')
    const step = await stamped(root, 'a.txt', 'two\n', Date.now())
    const rec = recordingFs()
    await journalFor(root, { fs: rec.fs }).commit([step], STANDARD_SUMMARY)
    expect(backupReads(rec.log)).toHaveLength(1)
  })

  it('still refuses a file changed after the stamp was taken, stat and all', async () => {
    const { root } = await tempWorkspace()
    writeFileSync(path.join(root, 'a.txt'), 'one\n')
    const step = await stamped(root, 'a.txt', 'two\n', Date.now() + 5_000)
    // Same size, new content, written aside and renamed over it as editors do: a new inode. (An
    // in-place rewrite inside one tick of the file clock is the case RACY_MS leaves to hashing;
    // this test lies about the read time, so it must not depend on the tick.)
    writeFileSync(path.join(root, 'a.tmp'), 'ONE\n')
    renameSync(path.join(root, 'a.tmp'), path.join(root, 'a.txt'))
    const error = await editError(journalFor(root).commit([step], STANDARD_SUMMARY))
    expect(error.code).toBe('FILE_CHANGED')
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('ONE\n')
  })
})

describe('Journal.commit with the bytes the caller read', () => {
  /** A write of `text` over `rel`, carrying `read` as the bytes the caller hashed as before. */
  async function withBytes(root: string, rel: string, text: string, read: string) {
    return { ...(await writeStep(root, rel, text)), beforeBytes: enc(read) }
  }

  it("compares the backup with the caller's bytes instead of hashing it", async () => {
    const { root } = await tempWorkspace()
    writeFileSync(path.join(root, 'a.txt'), 'one\n')
    const step = await withBytes(root, 'a.txt', 'two\n', 'one\n')
    // The caller vouches that its bytes hash to `before.hash`, as it does for afterHash: a hash
    // it got wrong goes unnoticed when the bytes are the same, which shows no hash was taken.
    const before = step.before as FileState
    const vouched = { ...step, before: { ...before, hash: `sha256:${'0'.repeat(64)}` } }
    await journalFor(root).commit([vouched], STANDARD_SUMMARY)
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('two\n')
  })

  it("refuses a file that no longer holds the caller's bytes, with its hash", async () => {
    const { root } = await tempWorkspace()
    writeFileSync(path.join(root, 'a.txt'), 'one\n')
    const step = await withBytes(root, 'a.txt', 'two\n', 'one\n')
    // Changed in place after the read, same size: only the content tells.
    writeFileSync(path.join(root, 'a.txt'), 'ONE\n')
    const error = await editError(journalFor(root).commit([step], STANDARD_SUMMARY))
    expect(error.code).toBe('FILE_CHANGED')
    expect(error.currentHash).toBe(hashBytes(enc('ONE\n')))
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('ONE\n')
  })
})
