// Turns a filesystem errno into the EditError code a caller can act on: out of space and too many
// open files are worth retrying later; permissions, read-only mounts and mount points inside the
// workspace are not. Everything else is JOURNAL_COMMIT_FAILED.
import type { ErrorCode } from '../errors.js'
import { errnoOf } from './fs.js'

const BY_ERRNO: Record<string, ErrorCode> = {
  ENOSPC: 'JOURNAL_NO_SPACE',
  EDQUOT: 'JOURNAL_NO_SPACE',
  EACCES: 'JOURNAL_PERMISSION_DENIED',
  EPERM: 'JOURNAL_PERMISSION_DENIED',
  EROFS: 'JOURNAL_READ_ONLY',
  EMFILE: 'JOURNAL_TOO_MANY_OPEN_FILES',
  ENFILE: 'JOURNAL_TOO_MANY_OPEN_FILES',
  EXDEV: 'JOURNAL_CROSS_DEVICE',
  // A target (or a directory on its path) was replaced by a directory or a file mid-commit.
  EISDIR: 'FILE_CHANGED',
  ENOTDIR: 'FILE_CHANGED',
  ENOTEMPTY: 'FILE_CHANGED',
}

export function codeForErrno(error: unknown): ErrorCode {
  return BY_ERRNO[errnoOf(error) ?? ''] ?? 'JOURNAL_COMMIT_FAILED'
}

/** "ENOSPC" or the message when there is no errno. */
export function reasonOf(error: unknown): string {
  return errnoOf(error) ?? (error as Error).message
}
