// Every filesystem call the journal makes, behind one small interface so that tests can fail any
// call with any errno (ENOSPC, EXDEV, EMFILE, ...) and the crash harness can count them. The node
// implementation is the only one used in production.
import { spawn } from 'node:child_process'
import * as fss from 'node:fs'
import path from 'node:path'

export interface JournalStat {
  readonly kind: 'file' | 'dir' | 'symlink' | 'other'
  readonly ino: number
  readonly nlink: number
  readonly size: number
  readonly permissions: number
  readonly mtimeNs: bigint
  readonly ctimeNs: bigint
  /** Owner's user id (POSIX); absent where the platform or a test filesystem has none. */
  readonly uid?: number
}

export interface JournalFs {
  readFile(p: string): Promise<Uint8Array>
  /** Creates `p` (failing if it exists) with exactly `permissions`, writes `data`, optionally fsyncs. */
  writeNew(p: string, data: Uint8Array, permissions: number, sync: boolean): Promise<void>
  /** Copies `from` to a new file `to` (failing if it exists), optionally fsyncing the copy. */
  copyNew(from: string, to: string, permissions: number, sync: boolean): Promise<void>
  link(existing: string, newPath: string): Promise<void>
  /** Creates the symlink `p` (failing if it exists) whose target string is exactly `target`. */
  symlink(target: Uint8Array, p: string): Promise<void>
  /** The target string of the symlink `p`, as bytes; never follows it. */
  readlink(p: string): Promise<Uint8Array>
  rename(from: string, to: string): Promise<void>
  unlink(p: string): Promise<void>
  mkdir(p: string): Promise<void>
  rmdir(p: string): Promise<void>
  /** Removes a directory tree; missing is fine. */
  removeTree(p: string): Promise<void>
  /**
   * Removes a directory tree off the event loop (the threadpool); missing is fine. For pruned
   * transactions only: freeing their blocks can wait on the device (see Journal.#prune).
   */
  removeTreeAside(p: string): Promise<void>
  readdir(p: string): Promise<string[]>
  /** lstat: symlinks are reported as symlinks, never followed. */
  lstat(p: string): Promise<JournalStat>
  /** fsync a directory, making renames, links and unlinks inside it durable. */
  syncDir(p: string): Promise<void>
  /** fsync a regular file this process wrote (its content and mode; not its name). */
  syncFile(p: string): Promise<void>
}

// The production JournalFs. PERF (D-080): every call but an fsync is a synchronous syscall
// wrapped in a promise. On a page-cache or tmpfs filesystem these calls take microseconds, and the
// libuv round trip of the fs/promises form costs several times the call itself (a 10,000-file
// commit took 3.6 s that way, against 0.2 s for the same writes as a writeFileSync loop). The
// commit yields to the event loop between slices of calls (transaction.ts), so a large commit
// never blocks it for long. fsync is the one call whose latency is the device's: it stays on the
// threadpool, where many of them wait at once.
export const nodeJournalFs: JournalFs = {
  readFile: async (p) => {
    const fd = openRegular(p)
    try {
      return fss.readFileSync(fd)
    } finally {
      fss.closeSync(fd)
    }
  },
  writeNew: async (p, data, permissions, sync) => {
    const fd = fss.openSync(p, 'wx', permissions)
    try {
      writeAll(fd, data)
      // open()'s mode is filtered by the umask; fchmod sets exactly the bits the file must have.
      fss.fchmodSync(fd, permissions)
      if (sync) await fsyncFd(fd)
    } finally {
      fss.closeSync(fd)
    }
  },
  copyNew: async (from, to, permissions, sync) => {
    const source = openRegular(from)
    try {
      const data = fss.readFileSync(source)
      await nodeJournalFs.writeNew(to, data, permissions, sync)
    } finally {
      fss.closeSync(source)
    }
  },
  link: async (existing, newPath) => fss.linkSync(existing, newPath),
  symlink: async (target, p) => fss.symlinkSync(Buffer.from(target), p),
  readlink: async (p) => fss.readlinkSync(p, { encoding: 'buffer' }),
  rename: async (from, to) => fss.renameSync(from, to),
  unlink: async (p) => fss.unlinkSync(p),
  mkdir: async (p) => {
    fss.mkdirSync(p)
  },
  rmdir: async (p) => fss.rmdirSync(p),
  removeTree: async (p) => removeTreeSync(p),
  removeTreeAside: (p) => removeTreeAside(p),
  readdir: async (p) => fss.readdirSync(p),
  lstat: async (p) => statOf(fss.lstatSync(p, { bigint: true })),
  syncDir: async (p) => {
    const fd = fss.openSync(p, 'r')
    try {
      await fsyncFd(fd)
    } finally {
      fss.closeSync(fd)
    }
  },
  syncFile: async (p) => {
    const fd = openRegular(p)
    try {
      await fsyncFd(fd)
    } finally {
      fss.closeSync(fd)
    }
  },
}

// Opens `p` for reading without blocking and fails unless it is a regular file. A synchronous
// read of a FIFO swapped in after the journal's lstat would otherwise hang the event loop, not
// just one threadpool thread (D-080); O_NONBLOCK changes nothing for a regular file.
function openRegular(p: string): number {
  const fd = fss.openSync(p, fss.constants.O_RDONLY | (fss.constants.O_NONBLOCK ?? 0))
  let regular = false
  try {
    regular = fss.fstatSync(fd).isFile()
  } finally {
    if (!regular) fss.closeSync(fd)
  }
  if (!regular)
    throw Object.assign(new Error(`EINVAL: not a regular file, open '${p}'`), {
      code: 'EINVAL',
      syscall: 'open',
      path: p,
    })
  return fd
}

function statOf(st: fss.BigIntStats): JournalStat {
  return {
    kind: st.isFile()
      ? 'file'
      : st.isDirectory()
        ? 'dir'
        : st.isSymbolicLink()
          ? 'symlink'
          : 'other',
    ino: Number(st.ino),
    nlink: Number(st.nlink),
    size: Number(st.size),
    permissions: Number(st.mode & 0o7777n),
    mtimeNs: st.mtimeNs,
    ctimeNs: st.ctimeNs,
    uid: Number(st.uid),
  }
}

/**
 * rm -rf without following symlinks: a transaction directory is a few entries deep, and the
 * dirent types readdir returns save the lstat per entry that fs.rmSync's general walk pays
 * (about half of a one-file commit's pruning).
 */
function removeTreeSync(p: string): void {
  let entries: fss.Dirent[]
  try {
    entries = fss.readdirSync(p, { withFileTypes: true })
  } catch (error) {
    const code = errnoOf(error)
    if (code === 'ENOENT') return
    if (code === 'ENOTDIR') return unlinkIfPresent(p)
    throw error
  }
  for (const entry of entries) {
    const child = path.join(p, entry.name)
    // DT_UNKNOWN (some filesystems) reads as neither: removeTreeSync finds out by itself.
    if (entry.isDirectory() || !(entry.isFile() || entry.isSymbolicLink())) removeTreeSync(child)
    else unlinkIfPresent(child)
  }
  try {
    fss.rmdirSync(p)
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw error
  }
}

// The measurement: DECISIONS.md D-202.
/**
 * Entries a tree must hold at its top (a transaction of that many files) for removeTreeAside to
 * hand it to rm(1) in a child process: below it, the walk here costs less than starting one.
 */
export const CHILD_REMOVE_MIN_ENTRIES = 512

/**
 * removeTreeAsync, except that a large tree is removed by `rm -rf` (which never follows a
 * symlink) in a child process: walking 10,000 backups here cost this process about 0.5-0.7 s of
 * CPU per pruned transaction, rm about 11 ms. Where `command` cannot run or fails, the walk here does
 * the rest. `command` is for tests.
 */
export async function removeTreeAside(p: string, command = 'rm'): Promise<void> {
  const entries = await readTop(p)
  if (entries === null) return
  if (entries.length >= CHILD_REMOVE_MIN_ENTRIES && (await removedByChild(command, p))) return
  return removeTreeAsync(p, entries)
}

function removedByChild(command: string, p: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, ['-rf', '--', p], { stdio: 'ignore' })
    child.once('error', () => resolve(false))
    child.once('close', (code) => resolve(code === 0 && !fss.existsSync(p)))
  })
}

/** A directory's entries; null when `p` is gone, or was a file (then unlinked). */
async function readTop(p: string): Promise<fss.Dirent[] | null> {
  try {
    return await fss.promises.readdir(p, { withFileTypes: true })
  } catch (error) {
    const code = errnoOf(error)
    if (code === 'ENOENT') return null
    if (code === 'ENOTDIR') {
      await ignoreMissing(fss.promises.unlink(p))
      return null
    }
    throw error
  }
}

/** removeTreeSync on the threadpool: the same walk, each call a promise (fs.rm would lstat each). */
async function removeTreeAsync(p: string, listed?: fss.Dirent[]): Promise<void> {
  const entries = listed ?? (await readTop(p))
  if (entries === null) return
  for (const entry of entries) {
    const child = path.join(p, entry.name)
    if (entry.isDirectory() || !(entry.isFile() || entry.isSymbolicLink()))
      await removeTreeAsync(child)
    else await ignoreMissing(fss.promises.unlink(child))
  }
  await ignoreMissing(fss.promises.rmdir(p))
}

async function ignoreMissing(call: Promise<void>): Promise<void> {
  try {
    await call
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw error
  }
}

function unlinkIfPresent(p: string): void {
  try {
    fss.unlinkSync(p)
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw error
  }
}

function writeAll(fd: number, data: Uint8Array): void {
  let written = 0
  while (written < data.length) written += fss.writeSync(fd, data, written, data.length - written)
}

// An fsync this fast (ms) is not the device's: the filesystem has nothing to flush (tmpfs) or
// flushes nothing. Such a device's fsyncs run synchronously, like the other calls (D-085).
const FREE_FSYNC_MS = 0.2

/** Per device (st_dev): whether its fsyncs have all been free so far. */
const freeFsync = new Map<number, boolean>()

// fsync on the threadpool, where many wait on the device at once, except on a device whose
// fsyncs cost nothing: there the threadpool round trip was the whole cost (a 10,000-file `full`
// commit on tmpfs spent 2 s in it, D-085). A device's first fsync is made synchronously to find
// out; one slower than FREE_FSYNC_MS sends that device's fsyncs to the threadpool for the rest
// of the process, so at most one real flush per device ever holds the event loop.
async function fsyncFd(fd: number): Promise<void> {
  const dev = fss.fstatSync(fd).dev
  if (freeFsync.get(dev) !== false) {
    const start = performance.now()
    fss.fsyncSync(fd)
    if (performance.now() - start > FREE_FSYNC_MS) freeFsync.set(dev, false)
    else freeFsync.set(dev, true)
    return
  }
  await new Promise<void>((resolve, reject) =>
    fss.fsync(fd, (error) => (error === null ? resolve() : reject(error))),
  )
}

/** The errno code of a filesystem error, or undefined. */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return typeof code === 'string' ? code : undefined
}
