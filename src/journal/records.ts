// The staging journal's contract: what a commit is asked to do (CommitStep), what it records
// (the manifest, see manifest.ts) and what recovery, undo and the log report. Plain data only,
// so the CLI and tests depend on these shapes without loading the implementation.
import type { ErrorCode } from '../errors.js'
import type { Warning } from '../types.js'
import type { WarningCode } from '../warnings.js'

/**
 * `full`: fsync staged files, backups, the manifest, every touched directory and the commit mark,
 * in an order that survives a power cut. `fast`: no fsync; atomic against a killed process (the
 * kernel still holds every write), not against a power cut or kernel crash.
 */
export type Durability = 'full' | 'fast'

/**
 * A file as the journal knows it: content hash and permission bits (e.g. 0o644). A symlink
 * (kind 'symlink') is the link itself: its hash is of the target string's bytes, as git
 * stores a link's blob, and its permissions are SYMLINK_PERMISSIONS (links have no bits of their
 * own on Linux). Absent kind means a regular file, so older manifests read unchanged.
 */
export interface FileState {
  readonly hash: string
  readonly permissions: number
  readonly kind?: 'symlink'
}

/**
 * What the caller's lstat/fstat said about a regular file when it read the bytes whose hash is
 * the step's `before.hash`. With it, the journal checks the file is unchanged by its
 * stat instead of reading and hashing it again, when that is safe (see transaction.ts).
 */
export interface ReadStamp {
  readonly ino: number
  readonly size: number
  readonly mtimeNs: bigint
  readonly ctimeNs: bigint
  /** Date.now() taken before the read began (the file's own clock is the kernel's). */
  readonly readStartMs: number
}

/** One change to one path. Steps run in array order; a move is a write followed by a remove. */
export type CommitStep =
  | {
      readonly kind: 'write'
      /** Absolute path inside the workspace (already resolved and checked). */
      readonly abs: string
      /** Path relative to the workspace root, '/'-separated: what the manifest and errors name. */
      readonly rel: string
      readonly bytes: Uint8Array
      /**
       * hashBytes(bytes), when the caller already has it: the manifest records it as the
       * after state without hashing the bytes again. The caller vouches for it.
       */
      readonly afterHash?: string
      readonly permissions: number
      /** The target becomes a symlink whose target string is `bytes`. */
      readonly symlink?: boolean
      /** What the target must still be just before it is replaced; null: it must not exist. */
      readonly before: FileState | null
      /** How the caller saw `before` when it read it (a regular file only); optional. */
      readonly beforeStamp?: ReadStamp
      /**
       * The bytes whose hash is `before.hash`, when the caller still holds them: a backup
       * whose stamp proves nothing is compared with them instead of hashed. The caller vouches
       * for the hash, as for afterHash.
       */
      readonly beforeBytes?: Uint8Array
    }
  | {
      readonly kind: 'remove'
      readonly abs: string
      readonly rel: string
      readonly before: FileState
      readonly beforeStamp?: ReadStamp
      /** As for a write: the bytes whose hash is `before.hash`; optional. */
      readonly beforeBytes?: Uint8Array
    }

/** One line of `patchloom log`: what a transaction did to one file. */
export interface TransactionFile {
  readonly path: string
  /** As in FileResult.op, plus what an undo does: 'restore' (file back) and 'remove'. */
  readonly op: string
  readonly from?: string
  readonly additions: number
  readonly deletions: number
}

/** Describes a transaction for the log; stored in its manifest. */
export interface TransactionSummary {
  readonly kind: 'apply' | 'undo'
  /** For an undo: the transaction it reverted. */
  readonly undoes?: string
  readonly files: readonly TransactionFile[]
}

/**
 * committed: finished, backups kept for undo (until pruned). pending: interrupted, recovery will
 * roll it back. conflict: recovery found files changed by someone else and left them alone.
 */
export type TransactionStatus = 'committed' | 'pending' | 'conflict'

export interface TransactionInfo {
  readonly id: string
  readonly status: TransactionStatus
  readonly kind: 'apply' | 'undo'
  /** ISO 8601 time the transaction was prepared. */
  readonly createdAt: string
  readonly undoes?: string
  /** A later committed undo of this transaction, if any. */
  readonly undoneBy?: string
  readonly files: readonly TransactionFile[]
  readonly additions: number
  readonly deletions: number
  /** True while the before-state backups are kept (undo is possible). */
  readonly undoable: boolean
  /** Set when the transaction cannot be vetted as this workspace's; never acted on. */
  readonly untrusted?: true
}

/** A file recovery or undo would not overwrite, and why. */
export interface JournalConflict {
  readonly transaction: string
  readonly path: string
  /** One sentence: what the file is now and what recovery expected. */
  readonly reason: string
  /** Absolute path of the kept before-state copy, when there is one. */
  readonly backup?: string
  /**
   * Set when the whole transaction was not acted on (JOURNAL_UNTRUSTED, JOURNAL_CORRUPT,
   * JOURNAL_UNSAFE_PATH) or its rollback failed (a JOURNAL_* errno code); `path` then names the
   * transaction's directory or the file the failure was on.
   */
  readonly code?: ErrorCode
}

export interface RecoveryReport {
  /** Interrupted transactions put back to their before state. */
  readonly rolledBack: readonly string[]
  /** Transactions recovery could only partly roll back; see conflicts. */
  readonly conflicted: readonly string[]
  readonly conflicts: readonly JournalConflict[]
  /**
   * Present when a rollback finished but a directory sync after it failed under `full`
   * (`journal.not-durable`): the files are back, not known to survive a power cut.
   */
  readonly warnings?: readonly Warning[]
}

/**
 * Something a request should tell its caller about the journal: an interrupted transaction
 * (rolled back, or pending on a dry run), or one that was not acted on (untrusted, corrupt,
 * unsafe). Same shape as a result's Warning, with its codes: journal.pending, journal.recovered,
 * journal.conflict and the journal refusals (JournalNoticeCode: journal.untrusted, ...).
 */
export interface JournalNotice {
  readonly code: WarningCode
  readonly message: string
  /** The transaction's directory (`.patchloom/journal/<name>`) or the file concerned. */
  readonly path: string
}

export interface UndoResult {
  /** The new transaction that performed the undo (itself recorded in the log). */
  readonly transaction: string
  /** The transaction that was undone. */
  readonly undone: string
  readonly files: readonly {
    readonly path: string
    /** restore: the file is back with its old content; remove: a file the change created is gone. */
    readonly op: 'restore' | 'remove'
    readonly beforeHash: string | null
    readonly afterHash: string | null
  }[]
  /** Present when the undo committed but is not known to be durable (`journal.not-durable`). */
  readonly warnings?: readonly Warning[]
}

/**
 * Instrumented points of a commit and of recovery, in order. The crash harness kills the
 * process at one of them (`index` is the step's position, or 0 for once-per-transaction points).
 */
export type JournalPoint =
  | 'locked'
  | 'staged'
  | 'backed-up'
  | 'prepared'
  | 'replaced'
  | 'synced'
  | 'marked'
  | 'cleaned'
  | 'recovery-restored'

export interface JournalHooks {
  /** Called synchronously at each instrumented point; used only by tests and the crash harness. */
  readonly at?: (point: JournalPoint, index: number) => void
}

/**
 * One lock turn of the journal's commit: the transactions committed together while the workspace
 * lock was held once (a commit on its own is a batch of one). Reported to
 * JournalOptions.onCommitBatch.
 */
export interface CommitBatchStats {
  /** Transactions the batch took, refused ones included. */
  readonly transactions: number
  /** Of those, the ones that failed (a re-check refused them, or they were rolled back). */
  readonly refused: number
  /** The longest wait for the workspace lock among the batch's transactions. */
  readonly lockWaitMs: number
  /** How long the batch held the lock. */
  readonly commitMs: number
  /** Wall time spent in fsync calls (overlapping calls counted once). */
  readonly syncMs: number
  /** fsync calls made. */
  readonly syncs: number
}
