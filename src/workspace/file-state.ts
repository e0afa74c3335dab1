// Reads the current state of the files a change touches: kind, bytes, hash and git-style mode.
// Only regular files are opened: stat decides first, and the open uses O_NONBLOCK and O_NOFOLLOW
// and re-checks the handle, so a FIFO or device node swapped in meanwhile can neither block nor be
// read. A file over the size limit is refused from its stat, before any byte is read. An op that
// acts on a link itself (delete, move, git symlink patches) reads it with
// readLinkSnapshot: a symlink is then its target string, as git stores it (mode 120000).
import { EditError } from '../errors.js'
import type { FileMode } from '../types.js'
import { hashBytes } from '../hash.js'
import type { ReadStamp } from '../journal/records.js'
import { asyncReadFs, READ_FLAGS, type ReadFs, type ReadHandle } from './read-fs.js'

export type SnapshotKind = 'file' | 'symlink' | 'missing' | 'directory' | 'other'

export interface Snapshot {
  readonly kind: SnapshotKind
  /** A regular file's bytes; a symlink's target string (bytes, verbatim). */
  readonly bytes: Uint8Array | null
  readonly hash: string | null
  /** '100644' or '100755' for regular files, '120000' for a symlink. */
  readonly mode?: FileMode
  /** Permission bits (st_mode & 0o7777) for regular files, to keep them on rewrite. */
  readonly permissions?: number
  // When a stamp may stand in for a read: DECISIONS.md D-082.
  /**
   * A regular file's stat as it was read, so the journal can tell it is unchanged without reading
   * it again (src/journal/records.ts ReadStamp).
   */
  readonly stamp?: ReadStamp
}

/** The size limit for one read, and how to name the file if it is exceeded. */
export interface ReadLimit {
  readonly maxFileBytes: number
  /** Workspace-relative path for the error message. */
  readonly path: string
  readonly patchLine: number
}

export const MISSING: Snapshot = { kind: 'missing', bytes: null, hash: null }

const OTHER: Snapshot = { kind: 'other', bytes: null, hash: null }

export async function readSnapshot(
  abs: string,
  limit?: ReadLimit,
  fs: ReadFs = asyncReadFs,
): Promise<Snapshot> {
  const st = await statOrMissing(() => fs.stat(abs))
  if (st === null) return MISSING
  if (st.isDirectory()) return { kind: 'directory', bytes: null, hash: null }
  if (!st.isFile()) return OTHER
  if (limit !== undefined) checkFileSize(st.size, limit)
  const readStartMs = Date.now()
  const handle = await fs.open(abs, READ_FLAGS)
  try {
    const now = await fs.fstat(handle)
    // Replaced between stat and open: judge what was actually opened.
    if (now.isDirectory()) return { kind: 'directory', bytes: null, hash: null }
    if (!now.isFile()) return OTHER
    const size = Number(now.size)
    const mode = Number(now.mode)
    if (limit !== undefined) checkFileSize(size, limit)
    const bytes = await readAll(fs, handle, size, limit?.maxFileBytes)
    if (limit !== undefined) checkFileSize(bytes.length, limit)
    return {
      kind: 'file',
      bytes,
      hash: hashBytes(bytes),
      mode: gitMode(mode),
      permissions: mode & 0o7777,
      // Only a read that saw exactly the stat's size can vouch for the bytes by that stat.
      ...(bytes.length === size
        ? {
            stamp: {
              ino: Number(now.ino),
              size,
              mtimeNs: now.mtimeNs,
              ctimeNs: now.ctimeNs,
              readStartMs,
            },
          }
        : {}),
    }
  } finally {
    await fs.close(handle)
  }
}

/** git's mode for a symbolic link. */
export const SYMLINK_MODE: FileMode = '120000'

/**
 * Like readSnapshot, but a symlink at `abs` is the link itself: its target string, hashed as git
 * hashes a link's blob, with mode 120000. Anything else reads as readSnapshot reads it.
 */
export async function readLinkSnapshot(
  abs: string,
  limit?: ReadLimit,
  fs: ReadFs = asyncReadFs,
): Promise<Snapshot> {
  const st = await statOrMissing(() => fs.lstat(abs))
  if (st === null) return MISSING
  if (!st.isSymbolicLink()) return readSnapshot(abs, limit, fs)
  const bytes = await fs.readlinkBytes(abs)
  return { kind: 'symlink', bytes, hash: hashBytes(bytes), mode: SYMLINK_MODE }
}

/** A stat, or null when nothing is at the path (it, or a parent, is missing). */
async function statOrMissing<T>(stat: () => T | Promise<T>): Promise<T | null> {
  try {
    return await stat()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return null
    throw error
  }
}

/** Throws LIMIT_FILE_TOO_LARGE when `sizeBytes` exceeds the limit. */
export function checkFileSize(sizeBytes: number, limit: ReadLimit): void {
  if (sizeBytes <= limit.maxFileBytes) return
  throw new EditError(
    'LIMIT_FILE_TOO_LARGE',
    `${limit.path} is ${sizeBytes} bytes, over the ${limit.maxFileBytes}-byte file size limit.`,
    { path: limit.path, patchLine: limit.patchLine },
  )
}

/**
 * Reads to end of file, but never more than maxBytes + 1 bytes: a file that grows after its
 * stat is still caught by the size check without being read whole. The common case (the file
 * is as large as its stat said) fills one exactly-sized buffer and confirms end of file.
 */
async function readAll(
  fs: ReadFs,
  handle: ReadHandle,
  sizeHint: number,
  maxBytes = Number.MAX_SAFE_INTEGER - 1,
): Promise<Uint8Array> {
  const cap = maxBytes + 1
  let buffer = new Uint8Array(Math.min(Math.max(sizeHint, 0), cap))
  let length = 0
  for (;;) {
    if (length === buffer.length) {
      if (length >= cap) return buffer
      // PERF: one byte is enough to tell end of file; a 64 KiB probe per file was most of the
      // garbage a worker made reading thousands of small files.
      const probe = new Uint8Array(1)
      const bytesRead = await fs.read(handle, probe, 0, probe.length)
      if (bytesRead === 0) return buffer
      const grown = new Uint8Array(Math.min(Math.max(buffer.length * 2, length + bytesRead), cap))
      grown.set(buffer)
      grown.set(probe.subarray(0, bytesRead), length)
      buffer = grown
      length += bytesRead
      continue
    }
    const bytesRead = await fs.read(handle, buffer, length, buffer.length - length)
    if (bytesRead === 0) return buffer.slice(0, length)
    length += bytesRead
  }
}

export function gitMode(stMode: number): FileMode {
  return (stMode & 0o111) !== 0 ? '100755' : '100644'
}
