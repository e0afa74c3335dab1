// The filesystem calls that resolving paths and reading files make (paths.ts, file-state.ts),
// behind one interface with two implementations, so the same code runs in both places:
// - asyncReadFs (node:fs/promises) on the engine's thread, which must not block: an engine
//   serving many agents verifies small requests there;
// - createSyncReadFs() (node:fs, synchronous) in a worker, where blocking is free and each call
//   costs microseconds, not a thread-pool round trip (inline too, when engine/dispatch.ts says).
// The callers `await` every result; awaiting a plain value costs one microtask, so the code
// paths, error codes and checks are identical whichever implementation runs.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
} from 'node:fs'
import { readSync, realpathSync, statSync, type BigIntStats, type Stats } from 'node:fs'
import { lstat, open, readdir, readlink, realpath, stat, type FileHandle } from 'node:fs/promises'
import path from 'node:path'

export type MaybePromise<T> = T | Promise<T>

/** An open file: a FileHandle (async) or a descriptor (sync); only its own ReadFs uses it. */
export type ReadHandle = FileHandle | number

export interface ReadFs {
  stat(p: string): MaybePromise<Stats>
  lstat(p: string): MaybePromise<Stats>
  /** The kernel's realpath(3): ENOENT, ENOTDIR, ELOOP and ENAMETOOLONG as the system says. */
  realpath(p: string): MaybePromise<string>
  readlink(p: string): MaybePromise<string>
  /** A link's target as bytes, verbatim. */
  readlinkBytes(p: string): MaybePromise<Uint8Array>
  /** A directory's entry names (a directory a type change replaces is listed, sequence.ts). */
  readdir(p: string): MaybePromise<string[]>
  open(p: string, flags: number): MaybePromise<ReadHandle>
  /** With nanosecond times: the read stamp the journal checks a file against (ReadStamp). */
  fstat(h: ReadHandle): MaybePromise<BigIntStats>
  /** Reads into buffer[offset, offset+length) from the current position; returns the count. */
  read(h: ReadHandle, buffer: Uint8Array, offset: number, length: number): MaybePromise<number>
  close(h: ReadHandle): MaybePromise<void>
}

/** Regular files only: never blocks on a FIFO, never follows a link swapped in (file-state.ts). */
export const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW

const asHandle = (h: ReadHandle): FileHandle => h as FileHandle
const asFd = (h: ReadHandle): number => h as number

export const asyncReadFs: ReadFs = {
  stat: (p) => stat(p),
  lstat: (p) => lstat(p),
  realpath: (p) => realpath(p),
  readlink: (p) => readlink(p),
  readlinkBytes: async (p) => new Uint8Array(await readlink(p, { encoding: 'buffer' })),
  readdir: (p) => readdir(p),
  open: (p, flags) => open(p, flags),
  fstat: (h) => asHandle(h).stat({ bigint: true }),
  read: async (h, buffer, offset, length) =>
    (await asHandle(h).read(buffer, offset, length, null)).bytesRead,
  close: (h) => asHandle(h).close(),
}

/**
 * Synchronous calls for one verification batch. realpath resolves each directory once per batch,
 * from its parent's resolution and one lstat of the directory itself, and a file from its
 * directory's and one lstat of the file, where realpath(3) would look at every component again
 * (a generated tree of 10,000 files had 8,000 directories, each costing five readlinks). A
 * symlink, anything that is not a directory where a directory is needed, and any error take
 * realpath(3) itself. The lstat that resolved a file that is no symlink also answers the next
 * stat of its real path, once: reading a file stats it before opening it (file-state.ts), and
 * asking the kernel again a moment later was a sixth of a worker's syscalls. Whatever was opened
 * is judged by its fstat anyway. Make one per batch: the caches are a snapshot of the tree.
 */
export function createSyncReadFs(): ReadFs {
  const dirs = new Map<string, string>()
  const files = new Map<string, Stats>()
  const realDir = (dir: string): string => {
    let real = dirs.get(dir)
    if (real === undefined) {
      const parent = path.dirname(dir)
      if (parent === dir) real = realpathSync.native(dir)
      else {
        const parentReal = realDir(parent)
        real = lstatSync(dir).isDirectory()
          ? path.join(parentReal, path.basename(dir))
          : realpathSync.native(dir)
      }
      dirs.set(dir, real)
    }
    return real
  }
  return {
    stat: (p) => {
      const known = files.get(p)
      if (known === undefined) return statSync(p)
      files.delete(p)
      return known
    },
    lstat: (p) => lstatSync(p),
    realpath: (p) => {
      // A directory this batch has resolved (the parent of the files it reads, say): no lstat.
      const known = dirs.get(p)
      if (known !== undefined) return known
      const dir = path.dirname(p)
      if (dir === p) return realpathSync.native(p)
      let real: string
      try {
        const parent = realDir(dir)
        const st = lstatSync(p)
        if (st.isSymbolicLink()) return realpathSync.native(p)
        real = path.join(parent, path.basename(p))
        if (st.isDirectory()) dirs.set(p, real)
        else files.set(real, st)
      } catch {
        // .native is realpath(3), as fs/promises' realpath is; it names the error itself.
        return realpathSync.native(p)
      }
      return real
    },
    readlink: (p) => readlinkSync(p),
    readlinkBytes: (p) => new Uint8Array(readlinkSync(p, { encoding: 'buffer' })),
    readdir: (p) => readdirSync(p),
    open: (p, flags) => openSync(p, flags),
    fstat: (h) => fstatSync(asFd(h), { bigint: true }),
    read: (h, buffer, offset, length) => readSync(asFd(h), buffer, offset, length, null),
    close: (h) => closeSync(asFd(h)),
  }
}
