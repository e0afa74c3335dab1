// Symlinks as the journal handles them: the link itself, never what it points to. A
// link's state is the hash of its target string (git's blob for mode 120000); it is staged and
// backed up by readlink + symlink, never by link(), which follows symlinks on some systems
// (macOS), nor by a copy, which would copy the file it points to. Restoring is the same rename
// as for a file: rename(2) moves a link, not its target.
import type { JournalFs } from './fs.js'
import { hashBytes } from '../hash.js'
import type { FileState } from './records.js'

/** The permissions recorded for a link: lstat reports 0o777 for every link on Linux. */
export const SYMLINK_PERMISSIONS = 0o777

/** The journal state of the symlink at `abs` (which must be one). */
export async function linkState(fs: JournalFs, abs: string): Promise<FileState> {
  return {
    hash: hashBytes(await fs.readlink(abs)),
    permissions: SYMLINK_PERMISSIONS,
    kind: 'symlink',
  }
}

/** Whether a state is a symlink's. */
export function isLinkState(state: FileState): boolean {
  return state.kind === 'symlink'
}

/** Copies the link at `abs` to a new link `backup` with the same target; returns its hash. */
export async function backUpLink(fs: JournalFs, abs: string, backup: string): Promise<string> {
  await fs.symlink(await fs.readlink(abs), backup)
  return hashBytes(await fs.readlink(backup))
}
