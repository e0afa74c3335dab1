// A model-checked power cut (in the spirit of ALICE and CrashMonkey), shared by
// bench/power-cut.ts (the big enumeration) and test/unit/journal/power-cut.test.ts (CI-sized).
// It runs one real commit through Journal.commit on a temp directory with a recording JournalFs
// (or a batch: several called at once on disjoint files, which the journal groups into one lock
// turn), turns every mutating call into primitive operations on a small in-memory filesystem model,
// enumerates the states a power cut may leave, writes each into a fresh temp directory, runs the
// real recovery there (Journal.recover) and checks that each transaction's files are exactly
// before or exactly after it, with nothing left pending; and exactly after once its `full` commit
// has returned without a journal.not-durable warning. With `recoveryCuts`, the recovery of some of
// those states is recorded and cut the same way. It judges; printing is left to the callers.
//
// The persistence model is the conservative POSIX one, not ext4's data=ordered:
// - A file's content and mode persist only when the file is fsynced; until then a crash may leave
//   the file as created (empty, open() mode). A torn prefix is not enumerated apart: every reader
//   of the journal checks content by hash, so any incomplete content is equivalent to the empty one.
// - A directory entry (create, link, unlink, mkdir, rmdir) persists only when its parent directory
//   is fsynced; fsync of a file does not persist its name, and fsync of a directory persists neither
//   the contents of the files it names nor its own name in its parent (a name in a directory whose
//   own name was lost is unreachable). A hard link persists only with the name it was made from.
// - rename is atomic: both its names change or neither, and an fsync of either directory persists
//   it (what journaling filesystems give and ALICE assumes). `atomicRename: false` checks the
//   weaker case where a rename across directories may persist its new name and keep the old one.
// - Before the crash point, any set of the operations not yet forced by a completed fsync may be
//   lost, in any order, except that the operations on one name (and the writes to one file) keep
//   their order: a later one persists only with every earlier one. Failed calls change nothing.
// Out of the seam and so out of the model: the lock file (lock.ts writes it with node:fs; after a
// power cut its owner is gone and the lock is broken, so states are written without it), the
// per-user journal key (trust.ts, outside the workspace; it fsyncs the key and its directory
// before the first signature), and the state before the commit: all taken as durable. Every
// state is written at the recorded workspace's path, which the MAC binds.
// A symlink (JournalFs.symlink) is an inode whose target string is born with it: it persists
// with its name, as a file's content does not (the target is in the inode or written with it).
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import {
  chmod,
  link,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { nodeJournalFs, type JournalFs } from '../src/journal/fs.js'
import { hashBytes } from '../src/hash.js'
import { Journal } from '../src/journal/journal.js'
import { SYMLINK_PERMISSIONS } from '../src/journal/symlink.js'
import type { CommitStep, Durability, FileState } from '../src/journal/records.js'
import type { Warning } from '../src/types.js'
import { prng } from './generate.js'

// ---- The fixture ----------------------------------------------------------------------------

/** One workspace and one change to it. Paths are '/'-separated and relative to the root. */
export interface PowerCutFixture {
  readonly files: Readonly<Record<string, string>>
  /** Extra hard links [existing, alias] made before the change (their targets are copied). */
  readonly links?: readonly (readonly [string, string])[]
  /** Symlinks made before the change: path -> target string. */
  readonly symlinks?: Readonly<Record<string, string>>
  /** Whether .patchloom/journal exists (durably) before the change; else the commit creates it. */
  readonly journalExists?: boolean
  /** In commit order; a move is a write of the destination and a remove of the source. */
  readonly changes: readonly Change[]
  /**
   * Further transactions on other files, committed concurrently with `changes` (Journal.commit
   * called for all at once) so that the journal commits them as one batch; the check fails if
   * it does not. Each is judged on its own files.
   */
  readonly concurrent?: readonly (readonly Change[])[]
}

export type Change =
  | { readonly kind: 'write'; readonly path: string; readonly text: string }
  /** The path becomes a symlink whose target string is `target`. */
  | { readonly kind: 'symlink'; readonly path: string; readonly target: string }
  | { readonly kind: 'remove'; readonly path: string }

/** The CI-sized change: an update, an add into a new directory, a delete that empties one. */
export const SMALL_FIXTURE: PowerCutFixture = {
  files: { 'a.txt': 'alpha\n', 'gone/c.txt': 'gamma\n', 'keep.txt': 'kept\n' },
  journalExists: true,
  changes: [
    { kind: 'write', path: 'a.txt', text: 'ALPHA\n' },
    { kind: 'write', path: 'new/b.txt', text: 'beta\n' },
    { kind: 'remove', path: 'gone/c.txt' },
  ],
}

/**
 * A CI-sized change with symlinks: a link deleted, a link created in a new directory, and a
 * link replaced by one with another target, beside a file update.
 */
export const LINK_FIXTURE: PowerCutFixture = {
  files: { 'a.txt': 'alpha\n' },
  symlinks: { 'old-link': 'a.txt', retarget: 'a.txt' },
  journalExists: true,
  changes: [
    { kind: 'write', path: 'a.txt', text: 'ALPHA\n' },
    { kind: 'remove', path: 'old-link' },
    { kind: 'symlink', path: 'links/new-link', target: '../a.txt' },
    { kind: 'symlink', path: 'retarget', target: 'elsewhere' },
  ],
}

/**
 * CI-sized type changes: a file replaced by a directory of the same name, and a directory
 * (two files deep) replaced by a file, in the order a unified diff commits them: removals first.
 */
export const TYPE_CHANGE_FIXTURE: PowerCutFixture = {
  files: { foo: 'one\n', 'd/x': 'x\n', 'd/deep/y': 'y\n', 'keep.txt': 'kept\n' },
  journalExists: true,
  changes: [
    { kind: 'remove', path: 'foo' },
    { kind: 'remove', path: 'd/x' },
    { kind: 'remove', path: 'd/deep/y' },
    { kind: 'write', path: 'foo/bar', text: 'inside\n' },
    { kind: 'write', path: 'd', text: 'now a file\n' },
  ],
}

/**
 * A CI-sized batch: two transactions committed at once, one updating a file, one updating a file
 * in another directory and creating one beside it.
 */
export const BATCH_FIXTURE: PowerCutFixture = {
  files: { 'a.txt': 'alpha\n', 'src/b.ts': 'export const b = 1\n' },
  journalExists: true,
  changes: [{ kind: 'write', path: 'a.txt', text: 'ALPHA\n' }],
  concurrent: [
    [
      { kind: 'write', path: 'src/b.ts', text: 'export const b = 2\n' },
      { kind: 'write', path: 'src/new.ts', text: 'export const n = 1\n' },
    ],
  ],
}

// ---- The filesystem model -------------------------------------------------------------------

interface Inode {
  readonly kind: 'file' | 'dir' | 'symlink'
  data: Uint8Array
  mode: number
  readonly entries: Map<string, number>
}

/** A primitive operation; `call` is the index of the JournalFs call it came from. */
export type Op =
  | {
      readonly kind: 'entry'
      readonly dir: number
      readonly name: string
      readonly ino: number | null
    }
  | {
      readonly kind: 'rename'
      readonly fromDir: number
      readonly fromName: string
      readonly toDir: number
      readonly toName: string
      readonly ino: number
    }
  | {
      readonly kind: 'data'
      readonly ino: number
      readonly data: Uint8Array
      readonly mode: number
    }
  | { readonly kind: 'sync'; readonly ino: number }

interface LoggedOp {
  readonly op: Op
  readonly call: number
  /** Earlier operations this one persists only with (the previous one on the same name or file). */
  readonly deps: readonly number[]
  readonly label: string
}

const EMPTY = new Uint8Array(0)
/** The mode a created file has before its chmod persists: open()'s mode under a 022 umask. */
const UMASK = 0o022

function cloneInodes(inodes: ReadonlyMap<number, Inode>): Map<number, Inode> {
  const out = new Map<number, Inode>()
  for (const [ino, node] of inodes) out.set(ino, { ...node, entries: new Map(node.entries) })
  return out
}

/**
 * The volatile filesystem a commit sees, rebuilt call by call, and the operation log with the
 * dependencies and fsync barriers the persistence model needs.
 */
class Recorder {
  readonly inodes = new Map<number, Inode>()
  /** Inodes as they were created (before any write): what a crash may leave of them. */
  readonly born = new Map<number, Inode>()
  readonly log: LoggedOp[] = []
  readonly calls: string[] = []
  initial: Map<number, Inode> = new Map()
  readonly rootIno = 1
  #nextIno = 2
  readonly #last = new Map<string, number>()
  /** Transaction ids in the order they first appear: labelled <id>, <id2>, ... */
  readonly #txns: string[] = []

  constructor(readonly root: string) {}

  async load(): Promise<void> {
    this.inodes.set(this.rootIno, { kind: 'dir', data: EMPTY, mode: 0o755, entries: new Map() })
    const byRealIno = new Map<number, number>()
    const walk = async (abs: string, dirIno: number): Promise<void> => {
      for (const name of (await readdir(abs)).sort()) {
        const child = path.join(abs, name)
        const st = await lstat(child)
        let ino = byRealIno.get(st.ino)
        if (ino === undefined) {
          ino = this.#nextIno++
          byRealIno.set(st.ino, ino)
          const dir = st.isDirectory()
          const symlink = st.isSymbolicLink()
          this.inodes.set(ino, {
            kind: dir ? 'dir' : symlink ? 'symlink' : 'file',
            data: dir
              ? EMPTY
              : symlink
                ? new Uint8Array(await readlink(child, { encoding: 'buffer' }))
                : new Uint8Array(await readFile(child)),
            mode: st.mode & 0o7777,
            entries: new Map(),
          })
          if (dir) await walk(child, ino)
        }
        this.#node(dirIno).entries.set(name, ino)
      }
    }
    await walk(this.root, this.rootIno)
    this.initial = cloneInodes(this.inodes)
  }

  #node(ino: number): Inode {
    const node = this.inodes.get(ino)
    if (node === undefined) throw new Error(`power-cut: no inode ${ino}`)
    return node
  }

  rel(abs: string): string {
    const rel = path.relative(this.root, abs)
    if (rel.startsWith('..') || path.isAbsolute(rel))
      throw new Error(`power-cut: ${abs} is outside the workspace the model covers`)
    return rel.split(path.sep).join('/')
  }

  /** A path for labels, with the transaction id shortened to <id>. */
  label(abs: string): string {
    const rel = this.rel(abs) || '.'
    const txn = /\.patchloom\/journal\/(\d{8}T\d{9}Z-[0-9a-z]{6})/.exec(rel)?.[1]
    if (txn !== undefined && !this.#txns.includes(txn)) this.#txns.push(txn)
    let out = rel
    this.#txns.forEach((id, i) => (out = out.split(id).join(i === 0 ? '<id>' : `<id${i + 1}>`)))
    return out
  }

  lookup(abs: string): number | undefined {
    let ino: number | undefined = this.rootIno
    const rel = this.rel(abs)
    if (rel === '') return ino
    for (const name of rel.split('/')) {
      const node: Inode | undefined = ino === undefined ? undefined : this.inodes.get(ino)
      ino = node?.kind === 'dir' ? node.entries.get(name) : undefined
    }
    return ino
  }

  parent(abs: string): { dir: number; name: string } {
    const dir = this.lookup(path.dirname(abs))
    if (dir === undefined) throw new Error(`power-cut: no directory for ${abs}`)
    return { dir, name: path.basename(abs) }
  }

  /** `data` is what the inode is born with: nothing, except a symlink's target string. */
  newInode(kind: 'file' | 'dir' | 'symlink', mode: number, data = EMPTY): number {
    const ino = this.#nextIno++
    const node: Inode = { kind, data, mode, entries: new Map() }
    this.inodes.set(ino, node)
    this.born.set(ino, { ...node, entries: new Map() })
    return ino
  }

  #push(op: Op, chains: readonly string[], label: string): void {
    const deps = chains.flatMap((key) => {
      const last = this.#last.get(key)
      return last === undefined ? [] : [last]
    })
    const index = this.log.length
    for (const key of chains) this.#last.set(key, index)
    this.log.push({ op, call: this.calls.length - 1, deps, label })
  }

  entry(dir: number, name: string, ino: number | null, label: string, source?: string): void {
    const key = `e:${dir}:${name}`
    this.#push(
      { kind: 'entry', dir, name, ino },
      source === undefined ? [key] : [key, source],
      label,
    )
    if (ino === null) this.#node(dir).entries.delete(name)
    else this.#node(dir).entries.set(name, ino)
  }

  rename(from: string, to: string, atomic: boolean): void {
    const a = this.parent(from)
    const b = this.parent(to)
    const ino = this.#node(a.dir).entries.get(a.name)
    if (ino === undefined) throw new Error(`power-cut: rename of missing ${from}`)
    if (!atomic && a.dir !== b.dir) {
      // The weaker model: the new name persists first (or alone), the old name goes later.
      this.entry(b.dir, b.name, ino, `rename (new name) ${this.label(to)}`)
      this.entry(
        a.dir,
        a.name,
        null,
        `rename (old name gone) ${this.label(from)}`,
        `e:${b.dir}:${b.name}`,
      )
      return
    }
    this.#push(
      { kind: 'rename', fromDir: a.dir, fromName: a.name, toDir: b.dir, toName: b.name, ino },
      [`e:${a.dir}:${a.name}`, `e:${b.dir}:${b.name}`],
      `rename ${this.label(from)} -> ${this.label(to)}`,
    )
    this.#node(a.dir).entries.delete(a.name)
    this.#node(b.dir).entries.set(b.name, ino)
  }

  data(ino: number, data: Uint8Array, mode: number, label: string): void {
    this.#push({ kind: 'data', ino, data, mode }, [`d:${ino}`], label)
    const node = this.#node(ino)
    node.data = data
    node.mode = mode
  }

  sync(ino: number, label: string): void {
    this.#push({ kind: 'sync', ino }, [], label)
  }

  /** The chain key of the entry `abs` (for a link, which persists only after its source). */
  entryKey(abs: string): string {
    const { dir, name } = this.parent(abs)
    return `e:${dir}:${name}`
  }
}

/** How the recording JournalFs treats one syncDir call: as asked, dropped, or failed with EIO. */
export type SyncPolicy = (dir: string, earlierCalls: readonly string[]) => 'sync' | 'skip' | 'fail'

/** Whether a workspace target was replaced yet (a staged file renamed out of its transaction). */
const replacedYet = (calls: readonly string[]): boolean =>
  calls.some((c) => /^rename \.patchloom\/journal\/\S+\/new\.\d+ /.test(c))
/** Whether a transaction was marked yet (renamed from <id>.pending to its committed name). */
const markedYet = (calls: readonly string[]): boolean =>
  calls.some((c) => /^rename \.patchloom\/journal\/\S+\.pending \.patchloom\/journal\//.test(c))

/**
 * A deliberately weakened commit: the directory syncs before any target is replaced (the
 * transaction directories and the journal directory: a batch's second round) are dropped.
 */
export const SKIP_PREPARED_DIR_SYNCS: SyncPolicy = (dir, calls) =>
  dir.startsWith('.patchloom/journal') && !replacedYet(calls) ? 'skip' : 'sync'

/**
 * A deliberately weakened commit: every directory sync between the first replaced target and the
 * first mark is dropped, so the marks go out before the replaced files' directories are synced.
 */
export const MARK_BEFORE_REPLACED_SYNCS: SyncPolicy = (_dir, calls) =>
  replacedYet(calls) && !markedYet(calls) ? 'skip' : 'sync'

function recordingFs(
  rec: Recorder,
  base: JournalFs,
  policy: SyncPolicy | undefined,
  atomicRename: boolean,
): JournalFs {
  const call = (text: string): void => {
    rec.calls.push(text)
  }
  const createFile = (p: string, data: Uint8Array, permissions: number, sync: boolean): void => {
    const { dir, name } = rec.parent(p)
    const ino = rec.newInode('file', permissions & ~UMASK)
    rec.entry(dir, name, ino, `create ${rec.label(p)}`)
    rec.data(ino, data, permissions, `write ${rec.label(p)}`)
    if (sync) rec.sync(ino, `fsync ${rec.label(p)}`)
  }
  const removeModelled = async (
    p: string,
    method: 'removeTree' | 'removeTreeAside',
  ): Promise<void> => {
    // What it removes, deepest first, taken from the model before the disk loses it.
    const removals: { abs: string; kind: 'file' | 'dir' }[] = []
    const walk = (abs: string, ino: number): void => {
      const node = rec.inodes.get(ino)
      if (node?.kind === 'dir')
        for (const [name, child] of [...node.entries].sort()) walk(path.join(abs, name), child)
      removals.push({ abs, kind: node?.kind === 'dir' ? 'dir' : 'file' })
    }
    const top = rec.lookup(p)
    if (top !== undefined) walk(p, top)
    await base[method](p)
    call(`${method} ${rec.label(p)}`)
    for (const r of removals) {
      const { dir, name } = rec.parent(r.abs)
      rec.entry(dir, name, null, `${r.kind === 'dir' ? 'rmdir' : 'unlink'} ${rec.label(r.abs)}`)
    }
  }
  return {
    ...unmodelled(base),
    writeNew: async (p, data, permissions, sync) => {
      await base.writeNew(p, data, permissions, sync)
      call(`writeNew ${rec.label(p)}`)
      createFile(p, data, permissions, sync)
    },
    copyNew: async (from, to, permissions, sync) => {
      const source = rec.lookup(from)
      const data = source === undefined ? EMPTY : (rec.inodes.get(source)?.data ?? EMPTY)
      await base.copyNew(from, to, permissions, sync)
      call(`copyNew ${rec.label(from)} ${rec.label(to)}`)
      createFile(to, data, permissions, sync)
    },
    link: async (existing, newPath) => {
      await base.link(existing, newPath)
      call(`link ${rec.label(existing)} ${rec.label(newPath)}`)
      const ino = rec.lookup(existing)
      if (ino === undefined) throw new Error(`power-cut: link of missing ${existing}`)
      const { dir, name } = rec.parent(newPath)
      rec.entry(dir, name, ino, `link ${rec.label(newPath)}`, rec.entryKey(existing))
    },
    symlink: async (target, p) => {
      await base.symlink(target, p)
      call(`symlink ${rec.label(p)}`)
      const { dir, name } = rec.parent(p)
      const ino = rec.newInode('symlink', 0o777, new Uint8Array(target))
      rec.entry(dir, name, ino, `symlink ${rec.label(p)}`)
    },
    rename: async (from, to) => {
      await base.rename(from, to)
      call(`rename ${rec.label(from)} ${rec.label(to)}`)
      rec.rename(from, to, atomicRename)
    },
    unlink: async (p) => {
      await base.unlink(p)
      call(`unlink ${rec.label(p)}`)
      const { dir, name } = rec.parent(p)
      rec.entry(dir, name, null, `unlink ${rec.label(p)}`)
    },
    mkdir: async (p) => {
      await base.mkdir(p)
      call(`mkdir ${rec.label(p)}`)
      const { dir, name } = rec.parent(p)
      rec.entry(dir, name, rec.newInode('dir', 0o755), `mkdir ${rec.label(p)}`)
    },
    rmdir: async (p) => {
      await base.rmdir(p)
      call(`rmdir ${rec.label(p)}`)
      const { dir, name } = rec.parent(p)
      rec.entry(dir, name, null, `rmdir ${rec.label(p)}`)
    },
    removeTree: (p) => removeModelled(p, 'removeTree'),
    syncFile: async (p) => {
      await base.syncFile(p)
      call(`syncFile ${rec.label(p)}`)
      const ino = rec.lookup(p)
      if (ino === undefined) throw new Error(`power-cut: fsync of missing ${p}`)
      rec.sync(ino, `fsync ${rec.label(p)}`)
    },
    // Pruned transactions in the trash (journal.ts, D-120), deleted by the same walk.
    removeTreeAside: (p) => removeModelled(p, 'removeTreeAside'),
    syncDir: async (p) => {
      const what = policy?.(rec.label(p), rec.calls) ?? 'sync'
      if (what === 'fail') {
        call(`syncDir ${rec.label(p)} (failed: EIO)`)
        throw Object.assign(new Error(`EIO: injected fault on ${p}`), { code: 'EIO', path: p })
      }
      if (what === 'sync') await base.syncDir(p)
      call(`syncDir ${rec.label(p)}${what === 'skip' ? ' (dropped)' : ''}`)
      const ino = rec.lookup(p)
      if (what === 'sync' && ino !== undefined) rec.sync(ino, `fsync dir ${rec.label(p)}`)
    },
  }
}

/**
 * `base` with every method the recorder does not model made to throw when called, except reads
 * (read*, lstat, stat, realpath): a mutating call the model cannot see would make every verdict
 * meaningless, so a new JournalFs method must be modelled before the check runs again.
 */
function unmodelled(base: JournalFs): JournalFs {
  const out: Record<string, unknown> = { ...base }
  for (const [name, method] of Object.entries(base)) {
    if (typeof method !== 'function' || /^(read|lstat$|stat$|realpath)/.test(name)) continue
    out[name] = () => {
      throw new Error(`power-cut: JournalFs.${name} is not modelled in bench/power-cut-model.ts`)
    }
  }
  return out as unknown as JournalFs
}

// ---- Persisted states -------------------------------------------------------------------------

/** The inodes an operation belongs to: an fsync of one of them persists it. */
function ownersOf(op: Op): number[] {
  switch (op.kind) {
    case 'entry':
      return [op.dir]
    case 'rename':
      return [op.fromDir, op.toDir]
    case 'data':
      return [op.ino]
    case 'sync':
      return []
  }
}

/** Operations [0, k) a completed fsync forces, with everything they depend on. */
function forcedBefore(log: readonly LoggedOp[], k: number): Set<number> {
  const forced = new Set<number>()
  const add = (i: number): void => {
    if (forced.has(i)) return
    forced.add(i)
    for (const d of (log[i] as LoggedOp).deps) add(d)
  }
  for (let j = 0; j < k; j++) {
    const op = (log[j] as LoggedOp).op
    if (op.kind !== 'sync') continue
    for (let i = 0; i < j; i++) if (ownersOf((log[i] as LoggedOp).op).includes(op.ino)) add(i)
  }
  return forced
}

export interface PersistedFile {
  readonly path: string
  readonly kind: 'file' | 'dir' | 'symlink'
  readonly ino: number
  readonly data: Uint8Array
  readonly mode: number
}

/** The tree a crash leaves when exactly the operations in `persisted` reached the disk. */
function persistedTree(rec: Recorder, persisted: ReadonlySet<number>): PersistedFile[] {
  const inodes = cloneInodes(rec.initial)
  for (const [ino, node] of rec.born) inodes.set(ino, { ...node, entries: new Map() })
  const node = (ino: number): Inode => inodes.get(ino) as Inode
  rec.log.forEach(({ op }, i) => {
    if (!persisted.has(i)) return
    if (op.kind === 'entry') {
      if (op.ino === null) node(op.dir).entries.delete(op.name)
      else node(op.dir).entries.set(op.name, op.ino)
    } else if (op.kind === 'rename') {
      node(op.fromDir).entries.delete(op.fromName)
      node(op.toDir).entries.set(op.toName, op.ino)
    } else if (op.kind === 'data') {
      node(op.ino).data = op.data
      node(op.ino).mode = op.mode
    }
  })
  const out: PersistedFile[] = []
  const walk = (prefix: string, dirIno: number, seen: Set<number>): void => {
    for (const [name, ino] of [...node(dirIno).entries].sort()) {
      const n = node(ino)
      const p = prefix === '' ? name : `${prefix}/${name}`
      out.push({ path: p, kind: n.kind, ino, data: n.data, mode: n.mode })
      // A directory renamed into its own subtree cannot happen in a journal; guard anyway.
      if (n.kind === 'dir' && !seen.has(ino)) walk(p, ino, new Set([...seen, ino]))
    }
  }
  walk('', rec.rootIno, new Set([rec.rootIno]))
  return out
}

const hashes = new WeakMap<Uint8Array, string>()
function quickHash(data: Uint8Array): string {
  let h = hashes.get(data)
  if (h === undefined) {
    h = createHash('sha1').update(data).digest('hex').slice(0, 16)
    hashes.set(data, h)
  }
  return h
}

function stateKey(files: readonly PersistedFile[]): string {
  return files
    .map((f) =>
      f.kind === 'dir'
        ? `${f.path}/`
        : f.kind === 'symlink'
          ? `${f.path} -> ${quickHash(f.data)}`
          : `${f.path} ${f.mode.toString(8)} ${quickHash(f.data)}`,
    )
    .join('\n')
}

/**
 * Every set of operations [0, k) that may have persisted: the forced ones plus any subset of the
 * rest closed under dependencies. Exhaustive up to `maxFree` free operations, else `samples`
 * random ones (plus none and all).
 */
function* persistedSets(
  log: readonly LoggedOp[],
  k: number,
  maxFree: number,
  samples: number,
  random: () => number,
): Generator<{ set: Set<number>; exhaustive: boolean }> {
  const forced = forcedBefore(log, k)
  const free: number[] = []
  for (let i = 0; i < k; i++)
    if ((log[i] as LoggedOp).op.kind !== 'sync' && !forced.has(i)) free.push(i)
  const allowed = (set: ReadonlySet<number>, i: number): boolean =>
    (log[i] as LoggedOp).deps.every((d) => set.has(d))
  if (free.length <= maxFree) {
    const set = new Set(forced)
    function* dfs(n: number): Generator<{ set: Set<number>; exhaustive: boolean }> {
      if (n === free.length) {
        yield { set: new Set(set), exhaustive: true }
        return
      }
      const i = free[n] as number
      yield* dfs(n + 1)
      if (allowed(set, i)) {
        set.add(i)
        yield* dfs(n + 1)
        set.delete(i)
      }
    }
    yield* dfs(0)
    return
  }
  for (let s = 0; s < samples + 2; s++) {
    const set = new Set(forced)
    for (const i of free) {
      const keep = s === 0 ? false : s === 1 ? true : random() < 0.5
      if (keep && allowed(set, i)) set.add(i)
    }
    yield { set, exhaustive: false }
  }
}

// ---- Checking ---------------------------------------------------------------------------------

export interface PowerCutOptions {
  readonly fixture: PowerCutFixture
  readonly durability: Durability
  /** Free (unsynced) operations up to which a crash point is enumerated exhaustively. */
  readonly maxFree?: number
  /** Random persisted sets per crash point beyond that. */
  readonly samples?: number
  readonly seed?: number
  /** Drops or fails chosen directory syncs (a deliberately weakened commit). */
  readonly syncPolicy?: SyncPolicy
  /**
   * false: a rename across directories is two entry changes, the new name persisting first (or
   * alone) and the old name's removal later: weaker than every journaling filesystem, to show
   * what the journal relies on. Default true.
   */
  readonly atomicRename?: boolean
  /**
   * A killed process instead of a power cut: every operation before the cut persists (the
   * kernel still holds them), which is what `fast` promises to survive. Default false.
   */
  readonly processKill?: boolean
  /** Pending states with replaced files whose recovery is itself cut by a power cut. Default 0. */
  readonly recoveryCuts?: number
  /** Stop checking after this many vulnerable states (enough to show that the check can fail). */
  readonly stopAfter?: number
}

/** `split`: a batch's transactions each exactly before or after, not all the same (whole). */
export type Verdict =
  'before' | 'after' | 'split' | 'torn' | 'lost' | 'pending-left' | 'recovery-failed'

/** What one transaction's files are after recovery: wholly before, wholly after, or neither. */
type TxnVerdict = 'before' | 'after' | undefined

const WHOLE: readonly Verdict[] = ['before', 'after', 'split']

export interface VulnerableState {
  readonly verdict: Verdict
  /** How many operations of the log preceded the power cut, and the call the last one came from. */
  readonly crashPoint: number
  readonly lastCall: string
  /** Operations before the cut that did not persist. */
  readonly lost: readonly string[]
  /** Workspace paths in neither their before nor their after state, after recovery. */
  readonly torn: readonly string[]
  readonly detail: string
}

export interface PowerCutReport {
  readonly durability: Durability
  readonly calls: readonly string[]
  readonly ops: number
  readonly fsyncs: number
  readonly crashPoints: number
  /** Persisted sets generated (before removing duplicates). */
  readonly generated: number
  /** Distinct states written to disk and recovered. */
  readonly checked: number
  readonly exhaustive: boolean
  /** Whether every commit returned and promised durability (full, no warning). */
  readonly promisedDurable: boolean
  /** Every commit's warnings (a batch's, in order, concatenated). */
  readonly commitWarnings: readonly Warning[]
  /** Transactions committed at once (1 unless the fixture is a batch). */
  readonly transactions: number
  readonly outcomes: Readonly<Record<Verdict, number>>
  /** Whole states in which recovery still reported a conflict (kept as <id>.conflict). */
  readonly conflicts: number
  readonly vulnerable: readonly VulnerableState[]
  /** Power cuts during recovery (options.recoveryCuts). */
  readonly recovery: {
    readonly commitStates: number
    readonly checked: number
    readonly exhaustive: boolean
    readonly vulnerable: readonly VulnerableState[]
  }
}

const TEMP_BASE = existsSync('/dev/shm') ? '/dev/shm' : tmpdir()

export async function checkPowerCuts(options: PowerCutOptions): Promise<PowerCutReport> {
  const base = await mkdtemp(path.join(TEMP_BASE, 'patchloom-power-cut-'))
  try {
    return await check(options, base)
  } finally {
    await rm(base, { recursive: true, force: true })
  }
}

async function writeFixture(root: string, fixture: PowerCutFixture): Promise<void> {
  await mkdir(root)
  for (const [rel, text] of Object.entries(fixture.files)) {
    const abs = path.join(root, rel)
    await mkdir(path.dirname(abs), { recursive: true })
    await writeFile(abs, text)
    await chmod(abs, 0o644)
  }
  if (fixture.journalExists === true) {
    await mkdir(path.join(root, '.patchloom', 'journal'), { recursive: true })
    await writeFile(path.join(root, '.patchloom', '.gitignore'), '*\n')
  }
  for (const [rel, target] of Object.entries(fixture.symlinks ?? {})) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true })
    await symlink(target, path.join(root, rel))
  }
  for (const [existing, alias] of fixture.links ?? []) {
    await mkdir(path.dirname(path.join(root, alias)), { recursive: true })
    await link(path.join(root, existing), path.join(root, alias))
  }
}

function stepsFor(
  root: string,
  fixture: PowerCutFixture,
  changes: readonly Change[],
): CommitStep[] {
  const enc = new TextEncoder()
  // path -> its text, or a symlink's target string
  const present = new Map<string, { text: string; symlink: boolean }>([
    ...Object.entries(fixture.files).map(([p, text]) => [p, { text, symlink: false }] as const),
    ...Object.entries(fixture.symlinks ?? {}).map(
      ([p, text]) => [p, { text, symlink: true }] as const,
    ),
  ])
  const state = (rel: string): FileState | null => {
    const now = present.get(rel)
    if (now === undefined) return null
    const hash = hashBytes(enc.encode(now.text))
    return now.symlink
      ? { hash, permissions: SYMLINK_PERMISSIONS, kind: 'symlink' }
      : { hash, permissions: 0o644 }
  }
  return changes.map((change) => {
    const abs = path.join(root, change.path)
    const before = state(change.path)
    if (change.kind === 'remove') {
      if (before === null) throw new Error(`power-cut: ${change.path} does not exist`)
      present.delete(change.path)
      return { kind: 'remove', abs, rel: change.path, before }
    }
    const symlink = change.kind === 'symlink'
    const text = symlink ? change.target : change.text
    present.set(change.path, { text, symlink })
    return {
      kind: 'write',
      abs,
      rel: change.path,
      bytes: enc.encode(text),
      permissions: symlink ? SYMLINK_PERMISSIONS : 0o644,
      ...(symlink ? { symlink: true } : {}),
      before,
    }
  })
}

type Tree = ReadonlyMap<string, string>

/** The workspace without .patchloom: path -> 'dir' or 'mode hash'. */
function treeOfState(files: readonly PersistedFile[]): Tree {
  return new Map(
    files
      .filter((f) => f.path !== '.patchloom' && !f.path.startsWith('.patchloom/'))
      .map((f) => [
        f.path,
        f.kind === 'dir'
          ? 'dir'
          : f.kind === 'symlink'
            ? `link ${hashBytes(f.data)}`
            : `${f.mode.toString(8)} ${hashBytes(f.data)}`,
      ]),
  )
}

async function readWorkspace(root: string): Promise<Tree> {
  const out = new Map<string, string>()
  const walk = async (abs: string, prefix: string): Promise<void> => {
    for (const name of (await readdir(abs)).sort()) {
      const rel = prefix === '' ? name : `${prefix}/${name}`
      if (rel === '.patchloom') continue
      const child = path.join(abs, name)
      const st = await lstat(child)
      if (st.isDirectory()) {
        out.set(rel, 'dir')
        await walk(child, rel)
      } else if (st.isSymbolicLink()) {
        out.set(
          rel,
          `link ${hashBytes(new Uint8Array(await readlink(child, { encoding: 'buffer' })))}`,
        )
      } else {
        out.set(rel, `${(st.mode & 0o7777).toString(8)} ${hashBytes(await readFile(child))}`)
      }
    }
  }
  await walk(root, '')
  return out
}

function sameTree(a: Tree, b: Tree): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v)
}

function tornPaths(tree: Tree, before: Tree, after: Tree): string[] {
  const paths = new Set([...tree.keys(), ...before.keys(), ...after.keys()])
  return [...paths]
    .filter((p) => tree.get(p) !== before.get(p) && tree.get(p) !== after.get(p))
    .sort()
}

async function materialise(root: string, files: readonly PersistedFile[]): Promise<void> {
  await rm(root, { recursive: true, force: true })
  await mkdir(root)
  const first = new Map<number, string>()
  for (const f of files) {
    const abs = path.join(root, ...f.path.split('/'))
    if (f.kind === 'dir') {
      await mkdir(abs)
      continue
    }
    if (f.kind === 'symlink') {
      await symlink(Buffer.from(f.data), abs)
      continue
    }
    const linked = first.get(f.ino)
    if (linked !== undefined) {
      await link(linked, abs)
      continue
    }
    first.set(f.ino, abs)
    await writeFile(abs, f.data)
    await chmod(abs, f.mode)
  }
}

async function check(options: PowerCutOptions, base: string): Promise<PowerCutReport> {
  const { fixture, durability } = options
  // One workspace path for the recorded commit and every state: a manifest's MAC binds the
  // workspace's real root (trust.ts), so a state recovered under another path would be refused.
  const root = path.join(base, 'ws')
  // The per-user key, outside the workspace as trust.ts requires; created by the first commit and
  // then reused by every recovery (outside the seam, so outside the model: taken as durable).
  const keyDir = path.join(base, 'key')
  await writeFixture(root, fixture)
  const rec = new Recorder(root)
  await rec.load()
  const journalOf = (fs: JournalFs): Journal =>
    new Journal({ rootReal: root, durability, keep: 20, lockTimeoutMs: 2000, fs, keyDir })
  const txns = [fixture.changes, ...(fixture.concurrent ?? [])]
  const warningsOf = txns.map((): Warning[] => [])
  const batches: number[] = []
  const recorded = new Journal({
    rootReal: root,
    durability,
    keep: 20,
    lockTimeoutMs: 2000,
    fs: recordingFs(rec, nodeJournalFs, options.syncPolicy, options.atomicRename ?? true),
    keyDir,
    onCommitBatch: (stats) => batches.push(stats.transactions),
  })
  // Every step list is built before the first commit starts, and all are called at once: the
  // first takes the lock, and the others are queued by the time it takes its batch.
  const stepLists = txns.map((changes) => stepsFor(root, fixture, changes))
  await Promise.all(
    stepLists.map((steps, i) =>
      recorded.commit(steps, { kind: 'apply', files: [] }, warningsOf[i]),
    ),
  )
  if (batches.length !== 1 || batches[0] !== txns.length)
    throw new Error(
      `power-cut: the ${txns.length} transactions were committed in batches of ${batches.join(', ')}, not one`,
    )
  const promised = warningsOf.map((w) => durability === 'full' && w.length === 0)
  const promisedDurable = promised.every(Boolean)
  const commitWarnings = warningsOf.flat()

  const before = treeOfState(persistedTree(rec, new Set()))
  const after = treeOfState(persistedTree(rec, new Set(rec.log.keys())))
  const owned = ownedPaths(txns, before, after)
  // The model must agree with the disk the commit really ran on.
  if (!sameTree(after, await readWorkspace(root)))
    throw new Error('power-cut: the model of the commit disagrees with the disk it ran on')

  const random = prng(options.seed ?? 1)
  const journal = (): Journal => journalOf(nodeJournalFs)
  const pendingStates: PersistedFile[][] = []
  const cuts = await enumerateCuts(rec, options, random, {
    root,
    journal,
    before,
    after,
    owned,
    finalMust: promised.map((p) => (p ? 'after' : undefined)),
    onState: (files) => {
      // Pending, with workspace files already replaced: the states whose recovery has work to do.
      if (
        files.some((f) => /^\.patchloom\/journal\/[^/]+\.pending$/.test(f.path)) &&
        !sameTree(treeOfState(files), before)
      )
        pendingStates.push(files)
    },
  })

  // Power cuts during the recovery of some of those states: the recovery is recorded like the
  // commit was, its own crash states are recovered again, and each must still be whole.
  const recovery = {
    commitStates: 0,
    checked: 0,
    exhaustive: true,
    vulnerable: [] as VulnerableState[],
  }
  const wanted = Math.min(options.recoveryCuts ?? 0, pendingStates.length)
  for (let r = 0; r < wanted; r++) {
    const files = pendingStates[Math.floor((r * pendingStates.length) / wanted)] as PersistedFile[]
    await materialise(root, files)
    const rrec = new Recorder(root)
    await rrec.load()
    const first = await recoverAndJudge(
      journalOf(recordingFs(rrec, nodeJournalFs, undefined, options.atomicRename ?? true)),
      root,
      before,
      after,
      owned,
    )
    recovery.commitStates++
    if (!WHOLE.includes(first.verdict)) continue // counted above already
    const nested = await enumerateCuts(rrec, options, random, {
      root,
      journal,
      before,
      after,
      owned,
      finalMust: first.perTxn.map((v) => (durability === 'full' ? v : undefined)),
    })
    recovery.checked += nested.checked
    recovery.exhaustive &&= nested.exhaustive
    recovery.vulnerable.push(...nested.vulnerable)
    if (recovery.vulnerable.length >= (options.stopAfter ?? Infinity)) break
  }
  return {
    durability,
    calls: rec.calls,
    ops: rec.log.filter((l) => l.op.kind !== 'sync').length,
    fsyncs: rec.log.filter((l) => l.op.kind === 'sync').length,
    crashPoints: rec.log.length + 1,
    promisedDurable,
    commitWarnings,
    transactions: txns.length,
    ...cuts,
    recovery,
  }
}

interface Enumeration {
  readonly generated: number
  readonly checked: number
  readonly exhaustive: boolean
  readonly outcomes: Readonly<Record<Verdict, number>>
  readonly conflicts: number
  readonly vulnerable: readonly VulnerableState[]
}

/** Every crash point of `rec`'s log, every persisted set at it, each distinct state recovered. */
async function enumerateCuts(
  rec: Recorder,
  options: PowerCutOptions,
  random: () => number,
  judge: {
    /** The workspace every state is written to (replacing the one before). */
    readonly root: string
    readonly journal: () => Journal
    readonly before: Tree
    readonly after: Tree
    readonly owned: Owned
    /**
     * What each transaction's files must recover to in a state after the whole log (the
     * promise of what returned); undefined: either.
     */
    readonly finalMust: readonly TxnVerdict[]
    readonly onState?: (files: PersistedFile[]) => void
  },
): Promise<Enumeration> {
  const maxFree = options.maxFree ?? 16
  const samples = options.samples ?? 2000
  const stopAfter = options.stopAfter ?? Infinity
  const seen = new Set<string>()
  const outcomes: Record<Verdict, number> = {
    before: 0,
    after: 0,
    split: 0,
    torn: 0,
    lost: 0,
    'pending-left': 0,
    'recovery-failed': 0,
  }
  const vulnerable: VulnerableState[] = []
  let generated = 0
  let exhaustive = true
  let conflicts = 0
  const n = rec.log.length
  for (let k = 0; k <= n && vulnerable.length < stopAfter; k++) {
    const final = k === n
    const sets =
      options.processKill === true
        ? [{ set: new Set(Array.from({ length: k }, (_, i) => i)), exhaustive: true }]
        : persistedSets(rec.log, k, maxFree, samples, random)
    for (const { set, exhaustive: all } of sets) {
      generated++
      exhaustive &&= all
      const files = persistedTree(rec, set)
      const key = `${final ? 'final' : 'cut'}\n${stateKey(files)}`
      if (seen.has(key)) continue
      seen.add(key)
      judge.onState?.(files)
      await materialise(judge.root, files)
      const judged = await recoverAndJudge(
        judge.journal(),
        judge.root,
        judge.before,
        judge.after,
        judge.owned,
      )
      let verdict = judged.verdict
      const whole = WHOLE.includes(verdict)
      const broken = judge.finalMust.findIndex(
        (must, i) => must !== undefined && judged.perTxn[i] !== must,
      )
      if (final && whole && broken >= 0) verdict = 'lost'
      outcomes[verdict]++
      if (judged.conflicts > 0 && whole) conflicts++
      if (WHOLE.includes(verdict)) continue
      const last = rec.log[k - 1]
      vulnerable.push({
        verdict,
        crashPoint: k,
        lastCall: last === undefined ? '(nothing)' : (rec.calls[last.call] ?? ''),
        lost: [...Array(k).keys()]
          .filter((i) => !set.has(i) && (rec.log[i] as LoggedOp).op.kind !== 'sync')
          .map((i) => (rec.log[i] as LoggedOp).label),
        torn: judged.torn,
        detail:
          verdict === 'lost'
            ? `what returned (${judge.finalMust[broken] ?? ''}${judge.finalMust.length > 1 ? ` for transaction ${broken + 1}` : ''}) did not survive: recovered to ${judged.perTxn[broken] ?? judged.verdict}`
            : judged.detail,
      })
      if (vulnerable.length >= stopAfter) break
    }
  }
  if (vulnerable.length >= stopAfter) exhaustive = false
  return { generated, checked: seen.size, exhaustive, outcomes, conflicts, vulnerable }
}

/**
 * The paths each transaction owns, and the rest. One transaction owns every path. In a batch,
 * each owns the paths it changes and the directories above them that differ between before and
 * after; every other path must stay as it was whatever the state.
 */
interface Owned {
  /** Each transaction's paths; undefined: one transaction, judged on the whole workspace. */
  readonly txns: readonly (ReadonlySet<string> | undefined)[]
  readonly all: ReadonlySet<string>
}

function ownedPaths(txns: readonly (readonly Change[])[], before: Tree, after: Tree): Owned {
  if (txns.length === 1) return { txns: [undefined], all: new Set() }
  const sets = txns.map((changes) => {
    const set = new Set<string>()
    for (const change of changes) {
      set.add(change.path)
      for (let d = path.posix.dirname(change.path); d !== '.'; d = path.posix.dirname(d))
        if (before.get(d) !== after.get(d)) set.add(d)
    }
    return set
  })
  sets.forEach((a, i) =>
    sets.slice(i + 1).forEach((b) => {
      for (const p of a)
        if (b.has(p)) throw new Error(`power-cut: ${p} is changed by two transactions of a batch`)
    }),
  )
  return { txns: sets, all: new Set(sets.flatMap((set) => [...set])) }
}

function restrict(tree: Tree, keep: (p: string) => boolean): Tree {
  return new Map([...tree].filter(([p]) => keep(p)))
}

async function recoverAndJudge(
  journal: Journal,
  root: string,
  before: Tree,
  after: Tree,
  owned: Owned,
): Promise<{
  verdict: Verdict
  perTxn: TxnVerdict[]
  torn: string[]
  detail: string
  conflicts: number
}> {
  let conflicts = 0
  const none = owned.txns.map((): TxnVerdict => undefined)
  try {
    conflicts = (await journal.recover()).conflicts.length
  } catch (error) {
    return { verdict: 'recovery-failed', perTxn: none, torn: [], detail: String(error), conflicts }
  }
  const tree = await readWorkspace(root)
  const journalDir = path.join(root, '.patchloom', 'journal')
  const left = existsSync(journalDir)
    ? (await readdir(journalDir)).filter((n) => n.endsWith('.pending'))
    : []
  if (left.length > 0)
    return { verdict: 'pending-left', perTxn: none, torn: [], detail: left.join(', '), conflicts }
  // Paths no transaction owns: as they were (a stray entry is one of them).
  const rest = (p: string): boolean => !owned.all.has(p)
  const strays = tornPaths(restrict(tree, rest), restrict(before, rest), restrict(after, rest))
  if (strays.length > 0)
    return {
      verdict: 'torn',
      perTxn: none,
      torn: strays,
      detail: `${describeTorn(tree, strays)} (${conflicts} conflict(s) reported)`,
      conflicts,
    }
  const perTxn: TxnVerdict[] = []
  for (const set of owned.txns) {
    const mine = (p: string): boolean => set === undefined || set.has(p)
    const [t, b, a] = [restrict(tree, mine), restrict(before, mine), restrict(after, mine)]
    const verdict = sameTree(t, b) ? 'before' : sameTree(t, a) ? 'after' : undefined
    perTxn.push(verdict)
    if (verdict !== undefined) continue
    const torn = tornPaths(t, b, a)
    if (torn.length === 0) {
      // Every path is in one of its states, but not all in the same one.
      const changed = [...new Set([...b.keys(), ...a.keys()])]
        .filter((p) => b.get(p) !== a.get(p))
        .sort()
      const done = changed.filter((p) => t.get(p) === a.get(p))
      const undone = changed.filter((p) => t.get(p) === b.get(p))
      return {
        verdict: 'torn',
        perTxn,
        torn,
        detail: `mixed: after ${done.join(', ')}; before ${undone.join(', ')} (${conflicts} conflict(s) reported)`,
        conflicts,
      }
    }
    return {
      verdict: 'torn',
      perTxn,
      torn,
      detail: `${describeTorn(tree, torn)} (${conflicts} conflict(s) reported)`,
      conflicts,
    }
  }
  const verdict = perTxn.every((v) => v === 'before')
    ? 'before'
    : perTxn.every((v) => v === 'after')
      ? 'after'
      : 'split'
  return { verdict, perTxn, torn: [], detail: '', conflicts }
}

/** What each torn path is now, in a few words. */
function describeTorn(tree: Tree, torn: readonly string[]): string {
  return torn
    .map((p) => {
      const now = tree.get(p)
      const what =
        now === undefined
          ? 'missing'
          : now === 'dir'
            ? 'a directory'
            : now.endsWith(hashBytes(EMPTY))
              ? 'empty'
              : 'other content'
      return `${p}: ${what}`
    })
    .join('; ')
}
