// The engine's public option types and the Engine interface (results are in src/types.ts), apart
// from the implementation so the CLI and tests can depend on the contract alone.
import type { Logger } from '../log.js'
import type { LanguageServerOptions } from '../lsp/client-types.js'
import type { DiagnosticsOptions, DiagnosticsReport } from '../lsp/reports.js'
import type { Durability, RecoveryReport, TransactionInfo, UndoResult } from '../journal/records.js'
import type { ApplyResult, FileResult, FormatOption, PatchFormat } from '../types.js'

/** What an approve callback sees: every file's full diff, before anything is written. */
export interface ApprovalRequest {
  readonly format: PatchFormat
  readonly files: readonly FileResult[]
}

/** Return false (or resolve to false) to refuse the change with APPROVAL_DENIED. */
export type ApproveFn = (request: ApprovalRequest) => boolean | Promise<boolean>

/** The verification worker threads (EngineOptions.workers). */
export interface WorkerOptions {
  /** @default 1 */
  readonly minThreads?: number
  /** @default number of CPUs, at most 4 */
  readonly maxThreads?: number
  /**
   * Requests whose patch is shorter than this (a quarter of it when no diffs are rendered) are
   * verified in the calling thread; so is any request naming fewer than 32 files.
   * @default 262144 (256 KiB; see engine/route.ts)
   */
  readonly inlineMaxBytes?: number
}

/**
 * Size limits that turn a runaway request into a clear LIMIT_* error instead of an out-of-memory
 * crash. The defaults suit agent farms: far above any hand- or model-written change, yet low
 * enough that a few requests at the limit fit in one process's memory at once.
 */
export interface LimitOptions {
  /**
   * Bytes of patch input (UTF-8), checked before parsing. A model-written patch is kilobytes, but
   * a repository-wide `git diff` replayed in a batch is tens of megabytes (10,000 files of 300
   * lines with 10 hunks each is about 45 MiB), so the default admits such changes; a server that
   * takes patches from many clients should set a tighter limit. 256 MiB keeps the text well
   * inside what one JavaScript string can hold.
   * @default 268435456 (256 MiB)
   */
  readonly maxPatchBytes?: number
  /**
   * Bytes of any file the change reads (checked from stat, before reading) or produces (checked
   * before commit). 64 MiB covers large generated sources and lockfiles; every file is held in
   * memory, in up to three copies (before, after, diff), while a change is verified.
   * @default 67108864 (64 MiB)
   */
  readonly maxFileBytes?: number
  /**
   * Files (operations) in one change, checked after parsing. 100,000 admits repository-wide
   * renames and codemods of large trees; a server may want fewer per request.
   * @default 100000
   */
  readonly maxFiles?: number
}

/** The staging journal under <root>/.patchloom/journal (see README, "Guarantees"). */
export interface JournalOptions {
  /**
   * Committed transactions whose before-state backups are kept for undo; older ones are pruned
   * after each commit. 0 keeps none (no undo). Backups are hard links where the filesystem
   * allows, so keeping them costs little space until the files are changed again.
   * @default 20
   */
  readonly keep?: number
  /**
   * How long a commit waits for another process's commit to the same workspace before failing
   * with JOURNAL_LOCKED. Commits hold the lock only while writing, typically milliseconds.
   * @default 30000
   */
  readonly lockTimeoutMs?: number
}

export interface EngineOptions {
  /** Workspace root; every path must resolve inside it. */
  readonly root: string
  /**
   * Globs (relative to root, '/' separated) that may not be written.
   * @default ['.git', '.git/**', '**\/.git', '**\/.git/**', '.patchloom', '.patchloom/**']
   */
  readonly denyGlobs?: readonly string[]
  /**
   * Verification worker threads, or false to verify every request in the calling thread. What
   * false costs: a large request is verified on one core instead of the pool's, 1.25-1.4x the
   * pool's time on two cores (a warm 10,000-file check: 0.84 s against 0.60 s), and the calling
   * thread is busy for all of it, given back to the event loop between batches of at most 256
   * files (bench/RESULTS.md, "warm.bench").
   */
  readonly workers?: WorkerOptions | false
  /**
   * Verify inline requests with synchronous filesystem calls, in batches, instead of awaiting
   * each call. Faster, but the event loop waits while a request's files are read: for a one-shot
   * process that serves nothing else (the CLI sets it), not for a server. Requests of a few files
   * read synchronously either way, and so do requests of more than 256 files, a batch at a time
   * with a turn of the event loop between batches unless this is set.
   * @default false
   */
  readonly blockingReads?: boolean
  /**
   * Called with every file's diff before a non-dry-run commit, and again before a commit that
   * was verified again because a file changed under it (the diff that will land).
   */
  readonly approve?: ApproveFn
  /**
   * Receives events: engine.request.verified, engine.request.committed, engine.request.rejected
   * (debug) and engine.commit.failed (warn). @default silent
   */
  readonly logger?: Logger
  /**
   * Language-server diagnostics after each applied change (off by default for speed): true, or
   * options for the report and the language servers. The servers start on first use.
   * @default false
   */
  readonly diagnostics?: boolean | EngineDiagnosticsOptions
  /** Patch, file and file-count limits (LIMIT_* errors). @default see LimitOptions */
  readonly limits?: LimitOptions
  /**
   * 'full' fsyncs staged files, backups, manifest, directories and the commit mark, so a change
   * survives a power cut whole or not at all; 'fast' skips every fsync: still all-or-nothing if
   * the process is killed, but a power cut may lose or partly lose the last change.
   * @default 'full'
   */
  readonly durability?: Durability
  /** Journal retention and locking. @default see JournalOptions */
  readonly journal?: JournalOptions
}

export interface EngineDiagnosticsOptions extends DiagnosticsOptions {
  /** The language servers behind the diagnostics (kept warm, one per server and project root). */
  readonly servers?: LanguageServerOptions
}

export type { LanguageServerOptions }

/** Options of a dry run (Engine.check): nothing is written, so nothing to approve or diagnose. */
export interface CheckOptions {
  /** @default 'auto' */
  readonly format?: FormatOption
  /** Cancels the request (REQUEST_CANCELLED). */
  readonly signal?: AbortSignal
  /** Gives up if verification has not finished after this long (REQUEST_TIMEOUT). */
  readonly timeoutMs?: number
  /**
   * Render each file's diff (FileResult.diff). With false, files still report their added and
   * removed line counts but `diff` is '', which saves most of the work past verification on a
   * large change. @default true
   */
  readonly diffs?: boolean
  /**
   * What to do with a unified diff's `Binary files A and B differ` entries that carry no data
   * (junk an agent left behind: coverage databases, build output): 'refuse' them
   * (PARSE_BAD_BINARY), or 'skip' them, apply the rest and report each skipped path as a
   * `parse.binary-skipped` warning. @default 'refuse'
   */
  readonly binaryWithoutData?: 'refuse' | 'skip'
  /**
   * Whether a file the request updates ends in a newline: as the patch format's rule says
   * ('format': a Codex hunk that reaches the last line ends the file with one, a unified diff
   * follows its "\ No newline at end of file", SEARCH/REPLACE keeps the file's), or as the file
   * does now ('keep', whatever the format: a file without a final newline keeps none, one with it
   * keeps it). For harnesses whose patch language cannot state it, such as OpenAI's V4A diffs.
   * Files the request creates are written as the patch states them. @default 'format'
   */
  readonly finalNewline?: 'format' | 'keep'
}

export interface ApplyOptions extends CheckOptions {
  /** Verify and report, write nothing (the same as Engine.check). @default false */
  readonly dryRun?: boolean
  /** Overrides the engine's approve callback for this request. */
  readonly approve?: ApproveFn
  /** Cancels the request before commit (REQUEST_CANCELLED). */
  readonly signal?: AbortSignal
  /** Gives up if verification has not finished after this long (REQUEST_TIMEOUT); the commit itself is never interrupted. */
  readonly timeoutMs?: number
  /** Turns diagnostics on or off for this request, overriding the engine option. */
  readonly diagnostics?: boolean
}

export interface Engine {
  readonly root: string
  /**
   * Parses, verifies and commits `input` all-or-nothing. Rejects with EditError. Give the patch as
   * bytes when it may not be UTF-8 (a `git diff` of a Latin-1 file): its bytes are then matched
   * and written exactly.
   */
  apply(input: string | Uint8Array, options?: ApplyOptions): Promise<ApplyResult>
  /** Parses and verifies `input` like apply with dryRun: true; writes nothing. Rejects with EditError. */
  check(input: string | Uint8Array, options?: CheckOptions): Promise<ApplyResult>
  /** Diagnostics of files as they are on disk (paths relative to the root or absolute inside it). */
  diagnostics(paths: readonly string[], options?: DiagnosticsOptions): Promise<DiagnosticsReport>
  /**
   * Restores the before state of a committed transaction (default: the newest change not yet
   * undone), as a transaction of its own. UNDO_CONFLICT, naming the files, if any has changed since.
   */
  undo(transaction?: string): Promise<UndoResult>
  /**
   * Rolls back interrupted transactions and retries ones an earlier recovery left in conflict.
   * (Interrupted transactions are also rolled back automatically before the engine's first request.)
   */
  recover(): Promise<RecoveryReport>
  /** The workspace journal, newest first. */
  transactions(): Promise<TransactionInfo[]>
  /** Stops the worker threads and every language server. */
  close(): Promise<void>
}
