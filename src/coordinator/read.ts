// Reads the current state of the files a change touches: kind, bytes, hash and git-style mode.
// Only regular files are opened, so a FIFO or device node can never block or be read.
import { readFile, stat } from 'node:fs/promises'
import type { FileMode } from '../types.js'
import { hashBytes } from '../journal/hash.js'

export type SnapshotKind = 'file' | 'missing' | 'directory' | 'other'

export interface Snapshot {
  readonly kind: SnapshotKind
  readonly bytes: Uint8Array | null
  readonly hash: string | null
  /** '100644' or '100755' for regular files. */
  readonly mode?: FileMode
  /** Permission bits (st_mode & 0o7777) for regular files, to keep them on rewrite. */
  readonly permissions?: number
}

export const MISSING: Snapshot = { kind: 'missing', bytes: null, hash: null }

export async function readSnapshot(abs: string): Promise<Snapshot> {
  let st
  try {
    st = await stat(abs)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return MISSING
    throw error
  }
  if (st.isDirectory()) return { kind: 'directory', bytes: null, hash: null }
  if (!st.isFile()) return { kind: 'other', bytes: null, hash: null }
  const bytes = new Uint8Array(await readFile(abs))
  return {
    kind: 'file',
    bytes,
    hash: hashBytes(bytes),
    mode: gitMode(st.mode),
    permissions: st.mode & 0o7777,
  }
}

export function gitMode(stMode: number): FileMode {
  return (stMode & 0o111) !== 0 ? '100755' : '100644'
}
