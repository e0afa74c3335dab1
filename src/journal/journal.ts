// The journal of one workspace: commit, recover, undo and list transactions, each under the
// workspace lock. Recovery of interrupted transactions runs before every request that writes
// (beforeRequest), and again whenever a commit finds a transaction left pending (a crashed
// process, or a rollback that failed earlier). A dry run only inspects: it writes nothing, not
// even the lock, and reports what recovery would do. Only transactions vet.ts accepts are
// acted on; any other is reported as a notice and left as it is, and never stops a request.
import path from 'node:path'
import { EditError } from '../errors.js'
import type { Warning } from '../types.js'
import { journalNoticeCode } from '../warnings.js'
import { errnoOf, nodeJournalFs, type JournalFs, type JournalStat } from './fs.js'
import { codeForErrno, reasonOf } from './fs-errors.js'
import { describeTransactions } from './history.js'
import { layoutFor, MANIFEST, STATE_DIR, txnDir, type Layout } from './layout.js'
import { acquireLock, acquirePaths, type WorkspaceLock } from './lock.js'
import { newTransactionId, transactionTime } from './manifest.js'
import { recoverAll, type RecoveryContext } from './recover.js'
import { listEntries } from './store.js'
import { RACY_MS, runTransaction } from './transaction.js'
import { keyFileTrust, keyRing, stateDirFor, type JournalTrust, type KeyRing } from './trust.js'
import { planUndo } from './undo.js'
import { relDir, vetTransaction, type PathCheck } from './vet.js'
import { countSyncs } from './sync-count.js'
import type {
  CommitBatchStats,
  CommitStep,
  Durability,
  JournalConflict,
  JournalHooks,
  JournalNotice,
  RecoveryReport,
  TransactionInfo,
  TransactionSummary,
  UndoResult,
} from './records.js'

export interface JournalOptions {
  /** The workspace root, already resolved with realpath. */
  readonly rootReal: string
  readonly durability: Durability
  /** Committed transactions whose backups are kept for undo; older ones are pruned. */
  readonly keep: number
  /** How long to wait for another process's commit before JOURNAL_LOCKED. */
  readonly lockTimeoutMs: number
  readonly fs?: JournalFs
  readonly hooks?: JournalHooks
  /** Told about conflicts an automatic recovery found (the engine logs them). */
  readonly onRecovered?: (report: RecoveryReport) => void
  /**
   * Signs and verifies manifests. Default: the per-user key in `keyDir` (trust.ts).
   */
  readonly trust?: JournalTrust
  /** Where the per-user key lives. @default stateDirFor() */
  readonly keyDir?: string
  /** Shares the key with other workspaces' journals (a batch reads it once). */
  readonly keyRing?: KeyRing
  /** The engine's sandbox for the paths a transaction names (vet.ts). */
  readonly checkPath?: PathCheck
  /** Told about each lock turn that committed (or tried to): how many, how long, how many fsyncs. */
  readonly onCommitBatch?: (stats: CommitBatchStats) => void
}

const GITIGNORE = '# patchloom staging journal and lock: never commit these.\n*\n'

export class Journal {
  readonly #layout: Layout
  readonly #fs: JournalFs
  readonly #options: JournalOptions
  readonly #trust: JournalTrust
  /** Pruned transactions being deleted from the trash, off the event loop (#prune). */
  #aside: Promise<void> = Promise.resolve()
  /** Whether this journal has looked for trash a crashed or closed process left behind. */
  #sweptTrash = false
  /** The journal directory's entries as a dry run listed them, and its lstat just before. */
  #dryListing: { readonly stat: JournalStat; readonly entries: readonly Entry[] } | undefined

  constructor(options: JournalOptions) {
    this.#options = options
    this.#layout = layoutFor(options.rootReal)
    this.#fs = options.fs ?? nodeJournalFs
    this.#trust =
      options.trust ??
      keyFileTrust(
        options.keyDir ?? stateDirFor(),
        options.rootReal,
        nodeJournalFs,
        options.keyRing ?? keyRing(),
      )
  }

  get layout(): Layout {
    return this.#layout
  }

  /**
   * Before a request: a dry run only reports; any other request first rolls back this
   * workspace's interrupted transactions. Either way, transactions that cannot be acted on are
   * reported, never thrown. Cheap when there is nothing to do: one readdir, nothing created.
   */
  async beforeRequest(dryRun: boolean): Promise<JournalNotice[]> {
    const entries = dryRun ? await this.#listForDryRun() : await listEntries(this.#fs, this.#layout)
    const pending = entries.filter((e) => e.status === 'pending')
    if (pending.length === 0) return []
    const { trusted, bare, refused } = await this.#triage(pending)
    if (dryRun || trusted.length + bare.length === 0) {
      return [
        ...trusted.map((id) => ({
          code: 'journal.pending' as const,
          message: `Transaction ${id} is unfinished (interrupted, or being committed right now by another process); the next apply (or \`patchloom recover\`) rolls it back first if it was interrupted. This dry run saw the files as they are.`,
          path: relDir(this.#layout, txnDir(this.#layout, id, 'pending')),
        })),
        ...refused.map(noticeOf),
      ]
    }
    const report = await this.#locked(() => recoverAll(this.#ctx(), false))
    if (report.rolledBack.length + report.conflicted.length > 0) this.#options.onRecovered?.(report)
    return [
      ...report.rolledBack.map((id) => ({
        code: 'journal.recovered' as const,
        message: `Transaction ${id} had been interrupted; it was rolled back before this request.`,
        path: relDir(this.#layout, txnDir(this.#layout, id, 'pending')),
      })),
      ...report.conflicts.map(noticeOf),
      // A rollback whose directory syncs failed: the files are back, not known to be durable.
      ...(report.warnings ?? []).map((w) => ({
        code: w.code,
        message: w.message,
        path: w.path ?? relDir(this.#layout, this.#layout.journalDir),
      })),
    ]
  }

  /**
   * The journal's entries for a dry run: the last listing again while the directory's lstat is
   * unchanged (an lstat instead of a readdir and a parse of every name, per request). Entries
   * are names, so a change to them is a change to the directory, which moves its ctime; a listing
   * is kept only when that ctime was already RACY_MS old, so no later change can fall in the same
   * tick of the file clock and leave it as it was (the rule read stamps follow). A request that
   * writes always lists afresh: its recovery must see everything.
   */
  async #listForDryRun(): Promise<readonly Entry[]> {
    const startedMs = Date.now()
    let stat: JournalStat
    try {
      stat = await this.#fs.lstat(this.#layout.journalDir)
    } catch (error) {
      // No journal yet: nothing to report (the listing would find the same).
      if (errnoOf(error) === 'ENOENT') return []
      return listEntries(this.#fs, this.#layout)
    }
    const cached = this.#dryListing
    if (cached !== undefined && sameDirStat(stat, cached.stat)) return cached.entries
    const entries = await listEntries(this.#fs, this.#layout)
    const settled = stat.ctimeNs < BigInt(Math.floor(startedMs - RACY_MS)) * 1_000_000n
    this.#dryListing = stat.kind === 'dir' && settled ? { stat, entries } : undefined
    return entries
  }

  /** Splits transactions into those that may be acted on and refusals; reads only. */
  async #triage(
    entries: readonly { id: string; status: 'committed' | 'pending' | 'conflict' }[],
  ): Promise<{ trusted: string[]; bare: string[]; refused: JournalConflict[] }> {
    const trusted: string[] = []
    const bare: string[] = []
    const refused: JournalConflict[] = []
    for (const entry of entries) {
      try {
        await vetTransaction(this.#ctx(), entry.id, entry.status)
        trusted.push(entry.id)
      } catch (error) {
        if (!(error instanceof EditError)) throw error
        // A pending directory without a manifest never touched a file: recovery drops it.
        if (error.code === 'JOURNAL_CORRUPT' && entry.status === 'pending') {
          const dir = txnDir(this.#layout, entry.id, 'pending')
          const noManifest = await this.#fs.lstat(path.join(dir, MANIFEST)).then(
            () => false,
            () => true,
          )
          const real = await this.#fs.lstat(dir).then(
            (st) => st.kind === 'dir',
            () => false,
          )
          if (noManifest && real) {
            bare.push(entry.id)
            continue
          }
        }
        refused.push({
          transaction: entry.id,
          path: error.path ?? relDir(this.#layout, txnDir(this.#layout, entry.id, entry.status)),
          reason: error.message,
          code: error.code,
        })
      }
    }
    return { trusted, bare, refused }
  }

  /**
   * Commits `steps` all-or-nothing; returns the transaction id, or undefined for no steps. A
   * committed change that is not known to be durable adds a `journal.not-durable` to `warnings`.
   */
  async commit(
    steps: readonly CommitStep[],
    summary: TransactionSummary,
    warnings?: Warning[],
  ): Promise<string | undefined> {
    if (steps.length === 0) return undefined
    // Files first, then the workspace lock, always in this order (see acquirePaths).
    const releasePaths = await acquirePaths(steps.map((s) => s.abs))
    try {
      const queuedAt = performance.now()
      return await this.#locked(() => this.#measured(queuedAt, steps, summary, warnings))
    } finally {
      releasePaths()
    }
  }

  /** `patchloom recover`: rolls back unfinished transactions and retries earlier conflicts. */
  async recover(): Promise<RecoveryReport> {
    const entries = await listEntries(this.#fs, this.#layout)
    const todo = entries.filter((e) => e.status !== 'committed')
    if (todo.length === 0) return { rolledBack: [], conflicted: [], conflicts: [] }
    // Nothing this workspace wrote: report the refusals and write nothing, not even the lock.
    const { trusted, bare, refused } = await this.#triage(todo)
    if (trusted.length + bare.length === 0)
      return { rolledBack: [], conflicted: refused.map((r) => r.transaction), conflicts: refused }
    return this.#locked(() => recoverAll(this.#ctx(), true))
  }

  /** Restores the before state of a committed transaction (the newest undoable one by default). */
  async undo(id?: string): Promise<UndoResult> {
    await this.beforeRequest(false)
    const queuedAt = performance.now()
    return this.#locked(async () => {
      const infos = await describeTransactions(this.#ctx())
      const plan = await planUndo(this.#ctx(), infos, id)
      const warnings: Warning[] = []
      const transaction = await this.#measured(queuedAt, plan.steps, plan.summary, warnings)
      if (transaction === undefined) throw new Error('journal: an undo always has steps')
      return {
        transaction,
        undone: plan.undone,
        files: plan.files,
        ...(warnings.length === 0 ? {} : { warnings }),
      }
    })
  }

  /** Transactions newest first. */
  async list(): Promise<TransactionInfo[]> {
    return describeTransactions(this.#ctx())
  }

  /** #commitLocked, reported to onCommitBatch (when set) as a batch of one. */
  async #measured(
    queuedAt: number,
    steps: readonly CommitStep[],
    summary: TransactionSummary,
    warnings?: Warning[],
  ): Promise<string | undefined> {
    const report = this.#options.onCommitBatch
    if (report === undefined || steps.length === 0)
      return this.#commitLocked(this.#ctx(), steps, summary, warnings)
    const lockedAt = performance.now()
    const counter = countSyncs(this.#fs)
    let refused = 1
    try {
      const id = await this.#commitLocked(this.#ctx(counter.fs), steps, summary, warnings)
      refused = 0
      return id
    } finally {
      tell(report, {
        transactions: 1,
        refused,
        lockWaitMs: lockedAt - queuedAt,
        commitMs: performance.now() - lockedAt,
        ...counter.read(),
      })
    }
  }

  async #commitLocked(
    ctx: RecoveryContext,
    steps: readonly CommitStep[],
    summary: TransactionSummary,
    warnings?: Warning[],
  ): Promise<string | undefined> {
    if (steps.length === 0) return undefined
    // A transaction left pending by a process that died (or a failed rollback) comes first: its
    // files must be back in their before state before anything else is checked against them.
    const entries = await listEntries(ctx.fs, this.#layout)
    if (entries.some((e) => e.status === 'pending')) {
      const report = await recoverAll(ctx, false)
      // Refusals were reported before the request (beforeRequest); only news is logged here.
      if (report.rolledBack.length > 0 || report.conflicts.some((c) => c.code === undefined))
        this.#options.onRecovered?.(report)
      warnings?.push(...(report.warnings ?? []))
    }
    // Ids order the log, undo's default and pruning, so each sorts after every id in the journal:
    // also for two commits in one millisecond, or after the clock stepped back.
    const newest = entries.reduce((max, e) => (e.id > max ? e.id : max), '')
    const now = Date.now()
    const id = newTransactionId(
      new Date(newest === '' ? now : Math.max(now, transactionTime(newest) + 1)),
    )
    const notDurable = await runTransaction(ctx, id, steps, summary)
    warnings?.push(...notDurable)
    // The listing above still holds: only a lock holder adds or removes committed transactions.
    const committed = [...entries.filter((e) => e.status === 'committed').map((e) => e.id), id]
    await this.#prune(committed).catch(() => undefined) // the commit stands; pruning retries next time
    this.#options.hooks?.at?.('cleaned', 0)
    return id
  }

  /**
   * Drops the oldest committed transactions beyond `keep`; pending and conflicts stay. PERF:
   * each is renamed into the trash and deleted from there on the threadpool, after the
   * lock is released. Deleting a transaction frees the blocks of the file its commit replaced,
   * and on a disk mounted with `discard` those calls stalled the event loop for 0.5-1.2 ms a
   * commit on average (hundreds of ms at times) in the farm bench; a rename frees nothing.
   */
  async #prune(ids: readonly string[]): Promise<void> {
    const committed = [...ids].sort()
    const excess = committed.slice(0, Math.max(0, committed.length - this.#options.keep))
    if (excess.length === 0) return
    const { trashDir } = this.#layout
    if (!this.#sweptTrash) {
      this.#sweptTrash = true
      // None yet (ENOENT), or unusable (the renames below fall back to deleting in place).
      const left = await this.#fs.readdir(trashDir).catch(() => [])
      for (const name of left) this.#removeAside(path.join(trashDir, name))
    }
    for (const id of excess) {
      const dir = txnDir(this.#layout, id, 'committed')
      const trashed = path.join(trashDir, id)
      try {
        await this.#fs.rename(dir, trashed).catch(async (error: unknown) => {
          if (errnoOf(error) !== 'ENOENT') throw error
          // No trash directory yet (the first pruning, or another process removed it).
          await this.#fs.mkdir(trashDir).catch((e: unknown) => {
            if (errnoOf(e) !== 'EEXIST') throw e
          })
          await this.#fs.rename(dir, trashed)
        })
      } catch {
        // Already gone, or the trash refuses it: deleted in place, as before the trash existed.
        await this.#fs.removeTree(dir)
        continue
      }
      this.#removeAside(trashed)
    }
  }

  /** Queues `p` for deletion off the event loop; one at a time, failures left for a later sweep. */
  #removeAside(p: string): void {
    this.#aside = this.#aside.then(() => this.#fs.removeTreeAside(p)).catch(() => undefined)
  }

  /** Resolves once every pruned transaction queued so far has been deleted (or failed to be). */
  settled(): Promise<void> {
    return this.#aside
  }

  async #locked<T>(run: () => Promise<T>): Promise<T> {
    await this.#ensureStateDir()
    const lock: WorkspaceLock = await acquireLock(
      this.#layout.lockPath,
      this.#options.lockTimeoutMs,
    ).catch((error: unknown) => {
      throw error instanceof EditError ? error : fsError(error, 'taking the workspace lock')
    })
    try {
      return await run()
    } finally {
      await lock.release().catch(() => undefined)
    }
  }

  /** Creates .patchloom/journal with a .gitignore that keeps it out of git. */
  async #ensureStateDir(): Promise<void> {
    const fs = this.#fs
    const { stateDir, journalDir, root } = this.#layout
    // A .patchloom that is a symlink (say, committed to the repository) could send the journal's
    // writes outside the workspace: only real directories are used.
    for (const dir of [stateDir, journalDir]) {
      let kind: string | undefined
      try {
        kind = (await fs.lstat(dir)).kind
      } catch (error) {
        if (errnoOf(error) !== 'ENOENT') throw fsError(error, `opening ${STATE_DIR}/journal`)
      }
      if (kind !== undefined && kind !== 'dir') {
        throw new EditError(
          'JOURNAL_CORRUPT',
          `${path.relative(root, dir)} is a ${kind}, not a directory; patchloom will not keep its journal there. Nothing was changed.`,
        )
      }
      if (kind === 'dir' && dir === journalDir) return
    }
    try {
      let created = false
      try {
        await fs.mkdir(stateDir)
        created = true
      } catch (error) {
        if (errnoOf(error) !== 'EEXIST') throw error
      }
      // Also when .patchloom already existed: an earlier attempt may have failed before writing it.
      await fs
        .writeNew(
          path.join(stateDir, '.gitignore'),
          new TextEncoder().encode(GITIGNORE),
          0o644,
          false,
        )
        .catch((error: unknown) => {
          if (errnoOf(error) !== 'EEXIST') throw error
        })
      try {
        await fs.mkdir(journalDir)
      } catch (error) {
        if (errnoOf(error) !== 'EEXIST') throw error
      }
      if (this.#options.durability === 'full') {
        await fs.syncDir(stateDir)
        if (created) await fs.syncDir(root)
      }
    } catch (error) {
      throw fsError(error, `creating ${STATE_DIR}/journal`)
    }
  }

  /** `fs`: the journal's own, or a wrapper of it (countSyncs). */
  #ctx(fs: JournalFs = this.#fs): RecoveryContext {
    return {
      fs,
      layout: this.#layout,
      durability: this.#options.durability,
      hooks: this.#options.hooks ?? {},
      trust: this.#trust,
      ...(this.#options.checkPath === undefined ? {} : { checkPath: this.#options.checkPath }),
    }
  }
}

/** A listener's failure is not the commit's: the batch's outcome stands whatever it throws. */
function tell(report: (stats: CommitBatchStats) => void, stats: CommitBatchStats): void {
  try {
    report(stats)
  } catch {
    // ignored: see above
  }
}

type Entry = Awaited<ReturnType<typeof listEntries>>[number]

function sameDirStat(a: JournalStat, b: JournalStat): boolean {
  return (
    a.kind === b.kind &&
    a.ino === b.ino &&
    a.nlink === b.nlink &&
    a.size === b.size &&
    a.mtimeNs === b.mtimeNs &&
    a.ctimeNs === b.ctimeNs
  )
}

/** A refused or failed transaction as a request's warning: dotted code, message with the fix. */
function noticeOf(conflict: JournalConflict): JournalNotice {
  const code = conflict.code === undefined ? 'journal.conflict' : journalNoticeCode(conflict.code)
  return {
    code,
    message:
      conflict.code === undefined
        ? `Transaction ${conflict.transaction} could not be rolled back completely: ${conflict.path}: ${conflict.reason} Run \`patchloom recover\` for the details.`
        : conflict.reason,
    path: conflict.path,
  }
}

function fsError(error: unknown, doing: string): EditError {
  return new EditError(
    codeForErrno(error),
    `Could not commit: ${doing} failed (${reasonOf(error)}); nothing was changed.`,
    { cause: error },
  )
}
