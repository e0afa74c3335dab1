// Every filesystem call the journal makes, behind one small interface so that tests can fail any
// call with any errno (ENOSPC, EXDEV, EMFILE, ...) and the crash harness can count them. The node
// implementation is the only one used in production.
import { constants } from 'node:fs'
import * as fsp from 'node:fs/promises'

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
  readdir(p: string): Promise<string[]>
  /** lstat: symlinks are reported as symlinks, never followed. */
  lstat(p: string): Promise<JournalStat>
  /** fsync a directory, making renames, links and unlinks inside it durable. */
  syncDir(p: string): Promise<void>
}

export const nodeJournalFs: JournalFs = {
  readFile: async (p) => new Uint8Array(await fsp.readFile(p)),
  writeNew: async (p, data, permissions, sync) => {
    const handle = await fsp.open(p, 'wx', permissions)
    try {
      await handle.writeFile(data)
      // open()'s mode is filtered by the umask; chmod sets exactly the bits the file must have.
      await handle.chmod(permissions)
      if (sync) await handle.sync()
    } finally {
      await handle.close()
    }
  },
  copyNew: async (from, to, permissions, sync) => {
    await fsp.copyFile(from, to, constants.COPYFILE_EXCL)
    const handle = await fsp.open(to, 'r+')
    try {
      await handle.chmod(permissions)
      if (sync) await handle.sync()
    } finally {
      await handle.close()
    }
  },
  link: (existing, newPath) => fsp.link(existing, newPath),
  symlink: (target, p) => fsp.symlink(Buffer.from(target), p),
  readlink: async (p) => new Uint8Array(await fsp.readlink(p, { encoding: 'buffer' })),
  rename: (from, to) => fsp.rename(from, to),
  unlink: (p) => fsp.unlink(p),
  mkdir: async (p) => {
    await fsp.mkdir(p)
  },
  rmdir: (p) => fsp.rmdir(p),
  removeTree: (p) => fsp.rm(p, { recursive: true, force: true }),
  readdir: (p) => fsp.readdir(p),
  lstat: async (p) => {
    const st = await fsp.lstat(p, { bigint: true })
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
  },
  syncDir: async (p) => {
    const handle = await fsp.open(p, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  },
}

/** The errno code of a filesystem error, or undefined. */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return typeof code === 'string' ? code : undefined
}
