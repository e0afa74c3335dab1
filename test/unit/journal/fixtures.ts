// Shared fixtures for the journal's unit tests: workspaces in temp dirs, a snapshot that keeps
// full permission bits, CommitStep builders that read the before state from disk, and JournalFs
// wrappers that count every call and fail (or "crash" on) chosen ones with an errno. The standard
// change (STANDARD_FILES + standardSteps) touches every kind of step: update, mode change, new
// file in new nested directories, delete that empties a directory, move, hard-linked target.
import { existsSync } from 'node:fs'
import {
  chmod,
  link,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  realpath,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { onTestFinished } from 'vitest'
import { EditError, ERROR_CODES } from '../../../src/errors.js'
import { nodeJournalFs, type JournalFs } from '../../../src/journal/fs.js'
import { hashBytes } from '../../../src/hash.js'
import { Journal, type JournalOptions } from '../../../src/journal/journal.js'
import { layoutFor } from '../../../src/journal/layout.js'
import { SYMLINK_PERMISSIONS } from '../../../src/journal/symlink.js'
import type { RecoveryContext } from '../../../src/journal/recover.js'
import { fixedKeyTrust, type JournalTrust } from '../../../src/journal/trust.js'
import type {
  CommitStep,
  FileState,
  JournalHooks,
  TransactionSummary,
} from '../../../src/journal/records.js'
import { readableTree, snapshot } from '../../helpers/tree.js'
import { rejection } from '../../helpers/edit-error.js'

export const enc = (text: string): Uint8Array => new TextEncoder().encode(text)

// tmpfs where there is one: the fault tables create a few hundred workspaces, and hard links,
// renames and modes behave there as on a disk.
const TEMP_BASE = existsSync('/dev/shm') ? '/dev/shm' : tmpdir()

/** A fresh temp dir removed after the current test; `parent` holds `root` and outside files. */
export async function tempWorkspace(): Promise<{ parent: string; root: string }> {
  const parent = await realpath(await mkdtemp(path.join(TEMP_BASE, 'patchloom-journal-')))
  // Per test, not a module-level afterEach: the quick loop shares this module between test
  // files (no isolation, D-058), and a hook registered once left every later file's dirs behind.
  onTestFinished(() => rm(parent, { recursive: true, force: true }))
  const root = path.join(parent, 'ws')
  await mkdir(root)
  return { parent, root }
}

export interface FileSpec {
  readonly text: string
  readonly mode?: number
}

/** Writes `files` under `root` with exact modes (the umask does not apply). */
export async function writeFiles(
  root: string,
  files: Readonly<Record<string, string | FileSpec>>,
): Promise<void> {
  for (const [rel, spec] of Object.entries(files)) {
    const { text, mode } = typeof spec === 'string' ? { text: spec, mode: 0o644 } : spec
    const abs = path.join(root, rel)
    await mkdir(path.dirname(abs), { recursive: true })
    await writeFile(abs, text)
    await chmod(abs, mode ?? 0o644)
  }
}

/** The tree under `root` (without .patchloom), file content as text and full permission bits. */
export async function treeState(root: string): Promise<Record<string, unknown>[]> {
  const entries = readableTree(await snapshot(root))
  return Promise.all(
    entries.map(async (entry) => {
      if (entry['kind'] !== 'file') return entry
      const st = await lstat(path.join(root, String(entry['path'])))
      return { ...entry, mode: (st.mode & 0o7777).toString(8) }
    }),
  )
}

/** The file's state as the journal records it, or null when it does not exist. */
export async function fileState(abs: string): Promise<FileState | null> {
  try {
    const st = await lstat(abs)
    return { hash: hashBytes(await readFile(abs)), permissions: st.mode & 0o7777 }
  } catch {
    return null
  }
}

/** A write of `text` to `rel`, expecting the file as it is on disk now. */
export async function writeStep(
  root: string,
  rel: string,
  text: string,
  permissions?: number,
): Promise<CommitStep> {
  const abs = path.join(root, rel)
  const before = await fileState(abs)
  return {
    kind: 'write',
    abs,
    rel,
    bytes: enc(text),
    permissions: permissions ?? before?.permissions ?? 0o644,
    before,
  }
}

/** The journal's state of a symlink whose target string is `target`. */
export const linkState = (target: string): FileState => ({
  hash: hashBytes(enc(target)),
  permissions: SYMLINK_PERMISSIONS,
  kind: 'symlink',
})

/** A write that creates the symlink `rel` -> `target` where nothing stands. */
export const writeLink = (root: string, rel: string, target: string): CommitStep => ({
  kind: 'write',
  abs: path.join(root, rel),
  rel,
  bytes: enc(target),
  permissions: SYMLINK_PERMISSIONS,
  symlink: true,
  before: null,
})

/** A removal of `rel`, expecting the file as it is on disk now. */
export async function removeStep(root: string, rel: string): Promise<CommitStep> {
  const abs = path.join(root, rel)
  const before = await fileState(abs)
  if (before === null) throw new Error(`fixtures: ${rel} does not exist`)
  return { kind: 'remove', abs, rel, before }
}

export function summaryOf(
  files: { path: string; op: string; from?: string; additions?: number; deletions?: number }[],
): TransactionSummary {
  return {
    kind: 'apply',
    files: files.map((f) => ({
      path: f.path,
      op: f.op,
      ...(f.from === undefined ? {} : { from: f.from }),
      additions: f.additions ?? 1,
      deletions: f.deletions ?? 1,
    })),
  }
}

/** The standard workspace: links/alias.txt is a second hard link of linked.txt. */
export const STANDARD_FILES: Readonly<Record<string, string | FileSpec>> = {
  'a.txt': 'alpha\n',
  'run.sh': '#!/bin/sh\necho hi\n',
  'gone/only.txt': 'bye\n',
  'src/from.txt': 'moving\n',
  'src/stay.txt': 'stay\n',
  'linked.txt': 'linked v1\n',
  'untouched.txt': { text: 'private\n', mode: 0o600 },
}

export async function writeStandardFiles(root: string): Promise<void> {
  await writeFiles(root, STANDARD_FILES)
  await mkdir(path.join(root, 'links'))
  await link(path.join(root, 'linked.txt'), path.join(root, 'links/alias.txt'))
}

/**
 * Seven steps, in this order: 0 update a.txt, 1 run.sh 644 -> 755, 2 new lib/deep/c.txt,
 * 3 delete gone/only.txt (gone/ is pruned), 4+5 move src/from.txt -> dst/moved.txt,
 * 6 update linked.txt (it has a second hard link, so its backup is a copy).
 */
export function standardSteps(root: string): CommitStep[] {
  const state = (text: string, permissions = 0o644): FileState => ({
    hash: hashBytes(enc(text)),
    permissions,
  })
  const write = (rel: string, text: string, before: FileState | null, permissions = 0o644) =>
    ({
      kind: 'write',
      abs: path.join(root, rel),
      rel,
      bytes: enc(text),
      permissions,
      before,
    }) as const
  const remove = (rel: string, before: FileState) =>
    ({ kind: 'remove', abs: path.join(root, rel), rel, before }) as const
  return [
    write('a.txt', 'ALPHA\n', state('alpha\n')),
    write('run.sh', '#!/bin/sh\necho hi\n', state('#!/bin/sh\necho hi\n'), 0o755),
    write('lib/deep/c.txt', 'created\n', null),
    remove('gone/only.txt', state('bye\n')),
    write('dst/moved.txt', 'moving\n', null),
    remove('src/from.txt', state('moving\n')),
    write('linked.txt', 'linked v2\n', state('linked v1\n')),
  ]
}

export const STANDARD_SUMMARY = summaryOf([
  { path: 'a.txt', op: 'update' },
  { path: 'run.sh', op: 'update', additions: 0, deletions: 0 },
  { path: 'lib/deep/c.txt', op: 'add', additions: 1, deletions: 0 },
  { path: 'gone/only.txt', op: 'delete', additions: 0, deletions: 1 },
  { path: 'dst/moved.txt', op: 'move', from: 'src/from.txt', additions: 0, deletions: 0 },
  { path: 'linked.txt', op: 'update' },
])

const file = (p: string, text: string, mode = '644') => ({
  path: p,
  kind: 'file',
  content: `text:${text}`,
  executable: (parseInt(mode, 8) & 0o100) !== 0,
  mode,
})

/** The standard workspace as treeState() shows it. */
export const STANDARD_BEFORE = [
  file('a.txt', 'alpha\n'),
  { path: 'gone', kind: 'dir' },
  file('gone/only.txt', 'bye\n'),
  file('linked.txt', 'linked v1\n'),
  { path: 'links', kind: 'dir' },
  file('links/alias.txt', 'linked v1\n'),
  file('run.sh', '#!/bin/sh\necho hi\n'),
  { path: 'src', kind: 'dir' },
  file('src/from.txt', 'moving\n'),
  file('src/stay.txt', 'stay\n'),
  file('untouched.txt', 'private\n', '600'),
]

/** The tree the standard change must produce, written out by hand. */
export const STANDARD_AFTER = [
  { path: 'a.txt', kind: 'file', content: 'text:ALPHA\n', executable: false, mode: '644' },
  { path: 'dst', kind: 'dir' },
  { path: 'dst/moved.txt', kind: 'file', content: 'text:moving\n', executable: false, mode: '644' },
  { path: 'lib', kind: 'dir' },
  { path: 'lib/deep', kind: 'dir' },
  {
    path: 'lib/deep/c.txt',
    kind: 'file',
    content: 'text:created\n',
    executable: false,
    mode: '644',
  },
  { path: 'linked.txt', kind: 'file', content: 'text:linked v2\n', executable: false, mode: '644' },
  { path: 'links', kind: 'dir' },
  {
    path: 'links/alias.txt',
    kind: 'file',
    content: 'text:linked v1\n',
    executable: false,
    mode: '644',
  },
  {
    path: 'run.sh',
    kind: 'file',
    content: 'text:#!/bin/sh\necho hi\n',
    executable: true,
    mode: '755',
  },
  { path: 'src', kind: 'dir' },
  { path: 'src/stay.txt', kind: 'file', content: 'text:stay\n', executable: false, mode: '644' },
  {
    path: 'untouched.txt',
    kind: 'file',
    content: 'text:private\n',
    executable: false,
    mode: '600',
  },
]

/** nodeJournalFs without the disk flushes: same calls in the same order, much faster. */
export const quietJournalFs: JournalFs = {
  ...nodeJournalFs,
  writeNew: (p, data, permissions) => nodeJournalFs.writeNew(p, data, permissions, false),
  copyNew: (from, to, permissions) => nodeJournalFs.copyNew(from, to, permissions, false),
  // Opening the directory is what can fail (ENOENT after a prune); flushing it is what is slow.
  syncDir: async (p) => {
    await stat(p)
  },
  syncFile: async (p) => {
    await stat(p)
  },
}

export type FsMethod = keyof JournalFs

export const FAULT_METHODS = [
  'writeNew',
  'copyNew',
  'link',
  'rename',
  'unlink',
  'mkdir',
  'rmdir',
  'syncDir',
  'syncFile',
  'readFile',
  'lstat',
] as const satisfies readonly FsMethod[]

export const FAULT_ERRNOS = ['ENOSPC', 'EACCES', 'EROFS', 'EISDIR', 'EXDEV', 'EMFILE'] as const

export interface FsCall {
  readonly method: FsMethod
  /** 1-based count of this method's calls so far, this one included. */
  readonly nth: number
  readonly args: readonly unknown[]
}

export function errnoError(code: string, where?: string): NodeJS.ErrnoException {
  return Object.assign(
    new Error(`${code}: injected fault${where === undefined ? '' : ` on ${where}`}`),
    {
      code,
      ...(where === undefined ? {} : { path: where }),
    },
  )
}

export interface RecordingFs {
  readonly fs: JournalFs
  /** Calls per method so far. */
  readonly calls: Record<FsMethod, number>
  /** Every call in order, as "method path". */
  readonly log: string[]
  /** Calls that were failed. */
  readonly failed: FsCall[]
}

/**
 * Wraps `base`: counts every call, and fails a call with the errno `fail` returns for it (a
 * thrown error from `fail` is rethrown as is: a "crash").
 */
export function recordingFs(
  options: { base?: JournalFs; fail?: (call: FsCall) => string | undefined } = {},
): RecordingFs {
  const base = options.base ?? quietJournalFs
  const calls = Object.fromEntries(Object.keys(base).map((k) => [k, 0])) as Record<FsMethod, number>
  const log: string[] = []
  const failed: FsCall[] = []
  const fs = Object.fromEntries(
    (Object.keys(base) as FsMethod[]).map((method) => [
      method,
      async (...args: unknown[]) => {
        calls[method] += 1
        const call: FsCall = { method, nth: calls[method], args }
        log.push(`${method} ${String(args[0])}`)
        const errno = options.fail?.(call)
        if (errno !== undefined) {
          failed.push(call)
          throw errnoError(errno, String(args[0]))
        }
        return (base[method] as (...a: unknown[]) => Promise<unknown>)(...args)
      },
    ]),
  ) as unknown as JournalFs
  return { fs, calls, log, failed }
}

/** The key every journal unit test signs with: tests never read or create the user's key. */
export const TEST_KEY = new Uint8Array(32).fill(7)

export function testTrust(root: string): JournalTrust {
  return fixedKeyTrust(TEST_KEY, root)
}

export function journalFor(
  root: string,
  options: Partial<Omit<JournalOptions, 'rootReal'>> = {},
): Journal {
  return new Journal({
    rootReal: root,
    durability: 'full',
    keep: 20,
    lockTimeoutMs: 2000,
    fs: quietJournalFs,
    trust: testTrust(root),
    ...options,
  })
}

export function contextFor(
  root: string,
  fs: JournalFs = quietJournalFs,
  hooks: JournalHooks = {},
): RecoveryContext {
  return { fs, layout: layoutFor(root), durability: 'full', hooks, trust: testTrust(root) }
}

/** The rejection of `promise`, which must be an EditError whose retryable matches its code. */
export async function editError(promise: Promise<unknown>): Promise<EditError> {
  const outcome = await rejection(promise)
  if (outcome.retryable !== ERROR_CODES[outcome.code].retryable)
    throw new Error(`${outcome.code}: retryable is ${outcome.retryable}`)
  return outcome
}
