// The journal of one workspace: commit, recover, undo and list transactions, each under the
// workspace lock. Recovery of interrupted transactions runs before every request that writes
// (beforeRequest), and again whenever a commit finds a transaction left pending (a crashed
// process, or a rollback that failed earlier). A dry run only inspects: it writes nothing, not
// even the lock, and reports what recovery would do. Only transactions vet.ts accepts are
// acted on; any other is reported as a notice and left as it is, and never stops a request.
// Commits waiting for the lock commit together, a batch per lock turn (runBatch, transaction.ts).
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
import { RACY_MS, runBatch, type BatchMember } from './transaction.js'
import { isLinkState } from './symlink.js'
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
  /** Told about each lock turn of the commit: transactions, time, fsyncs (CommitBatchStats). */
  readonly onCommitBatch?: (stats: CommitBatchStats) => void
  /**
   * Commits waiting for the workspace lock commit together, a batch per lock turn; false: one
   * lock turn each (for benches that compare the two; PATCHLOOM_GROUP_COMMIT=0 in the
   * environment does the same for every journal of the process). @default true
   */
  readonly groupCommit?: boolean
  /**
   * After a batch, wait one event-loop turn for more commits before releasing the lock: for a
   * server whose requests arrive over the network. A commit may then return with the lock
   * still held for that turn. @default false
   */
  readonly holdLock?: boolean
}

// A batch's bounds (DECISIONS.md D-171): one batch holds the lock for a bounded time, and a
// transaction larger than them still goes, alone.
const BATCH_TRANSACTIONS = 64
const BATCH_BYTES = 16 * 1024 * 1024
const BATCH_STEPS = 4096
/** The default of JournalOptions.groupCommit: PATCHLOOM_GROUP_COMMIT=0 turns it off (A/B runs). */
const GROUP_COMMIT = process.env['PATCHLOOM_GROUP_COMMIT'] !== '0'

const GITIGNORE = '# patchloom staging journal and lock: never commit these.\n*\n'
// How long one holder keeps the lock for batch after batch (D-192): other processes wait for
// the workspace at most this much longer than for one batch.
const HOLD_TURNS = 32
const HOLD_MS = 50

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
  /** Commits waiting for the next batch, in arrival order (#drain). */
  #waiting: Waiting[] = []
  #draining = false

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
    // Files first, then the workspace lock, always in this order (see acquirePaths). Held while
    // the transaction waits in the queue: transactions queued together touch disjoint files.
    const releasePaths = await acquirePaths(steps.map((s) => s.abs))
    try {
      const waiting = waitingFor(steps, summary, warnings)
      if ((this.#options.groupCommit ?? GROUP_COMMIT) === false) {
        await this.#locked(() => this.#commitBatch(async () => [waiting], performance.now())).catch(
          waiting.reject,
        )
      } else {
        this.#waiting.push(waiting)
        this.#drain()
      }
      return await waiting.done
    } finally {
      releasePaths()
    }
  }

  /**
   * Commits the queued transactions, a batch per lock turn, until none is left: whoever gets the
   * lock takes every transaction queued by then that may share a batch (#takeBatch). Runs once
   * per journal at a time; a commit that arrives while a batch runs waits for the next turn.
   */
  #drain(): void {
    if (this.#draining) return
    this.#draining = true
    void (async () => {
      while (this.#waiting.length > 0) {
        const waited = [...this.#waiting]
        try {
          await this.#locked(async () => {
            // PERF (DECISIONS.md D-192): the lock is kept for the next batch while commits are
            // queued, up to a bound: under load, creating and removing the lock file every turn
            // cost more than the batch's own files.
            // The journal's calls are synchronous (D-080), so requests that arrived during a
            // batch reach commit() only once the event loop turns: with holdLock, one turn is
            // waited for them.
            const heldSince = performance.now()
            for (let turns = 1; ; turns++) {
              await this.#commitBatch(() => this.#takeBatch(), performance.now())
              if (turns >= HOLD_TURNS || performance.now() - heldSince >= HOLD_MS) break
              if (this.#waiting.length === 0) {
                if (this.#options.holdLock !== true) break
                await new Promise((resolve) => setImmediate(resolve))
                if (this.#waiting.length === 0) break
              }
            }
          })
        } catch (error) {
          // The lock (or the journal directory) could not be had: those that waited for it fail.
          const failed = new Set(waited)
          this.#waiting = this.#waiting.filter((w) => !failed.has(w))
          for (const w of waited) w.reject(error)
        }
      }
      this.#draining = false
    })()
  }

  // The next batch off the queue (DECISIONS.md D-171): its head, and when the head may share a
  // batch, every later transaction that may too, in queue order, up to the batch's bounds. The
  // others stay queued, in order, for the next turns. Called under the lock, after recovery, so
  // what #mayShare sees holds until the batch is committed.
  async #takeBatch(): Promise<Waiting[]> {
    const head = this.#waiting[0]
    if (head === undefined) return []
    const batch: Waiting[] = [head]
    if (await this.#mayShare(head)) {
      let bytes = head.bytes
      let steps = head.steps.length
      for (const w of this.#waiting.slice(1)) {
        if (batch.length >= BATCH_TRANSACTIONS) break
        if (bytes + w.bytes > BATCH_BYTES || steps + w.steps.length > BATCH_STEPS) continue
        if (!(await this.#mayShare(w))) continue
        batch.push(w)
        bytes += w.bytes
        steps += w.steps.length
      }
    }
    const taken = new Set(batch)
    this.#waiting = this.#waiting.filter((w) => !taken.has(w))
    return batch
  }

  // Whether a transaction may share a batch (DECISIONS.md D-171): every step writes a regular
  // file over a regular file, or creates one in a directory that exists. Removals (which prune
  // directories), symlinks, type changes and new directories go in a batch of their own.
  async #mayShare(waiting: Waiting): Promise<boolean> {
    for (const step of waiting.steps) {
      if (step.kind === 'remove' || step.symlink === true) return false
      if (step.before !== null) {
        if (isLinkState(step.before)) return false
        continue
      }
      const parent = await this.#fs.lstat(path.dirname(step.abs)).catch(() => undefined)
      if (parent?.kind !== 'dir') return false
    }
    return true
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
      const waiting = waitingFor(plan.steps, plan.summary, warnings, queuedAt)
      await this.#commitBatch(async () => [waiting], performance.now())
      const transaction = await waiting.done
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

  /**
   * One lock turn: recovers what a crash left pending, then commits the batch `take` returns
   * (runBatch) and prunes. Settles every transaction of the batch, each with its own id or
   * error, and never throws; reports the turn to onCommitBatch. The caller holds the lock.
   */
  async #commitBatch(take: () => Promise<Waiting[]>, lockedAt: number): Promise<void> {
    const report = this.#options.onCommitBatch
    const counter = report === undefined ? undefined : countSyncs(this.#fs)
    const ctx = this.#ctx(counter?.fs)
    let batch: readonly Waiting[] = []
    let refused = 0
    try {
      // A transaction left pending by a process that died (or a failed rollback) comes first:
      // its files must be back in their before state before anything else is checked against
      // them, and before the batch is chosen (recovery removes directories it made).
      const entries = await listEntries(ctx.fs, this.#layout)
      const recoveryWarnings: Warning[] = []
      let recoveryFailed: { error: unknown } | undefined
      if (entries.some((e) => e.status === 'pending')) {
        try {
          const recovered = await recoverAll(ctx, false)
          // Refusals were reported before the request (beforeRequest); only news is logged.
          if (
            recovered.rolledBack.length > 0 ||
            recovered.conflicts.some((c) => c.code === undefined)
          )
            this.#options.onRecovered?.(recovered)
          recoveryWarnings.push(...(recovered.warnings ?? []))
        } catch (error) {
          recoveryFailed = { error }
        }
      }
      batch = await take()
      if (recoveryFailed !== undefined) throw recoveryFailed.error
      // Ids order the log, undo's default and pruning, so each sorts after every id in the
      // journal, and after the batch's earlier ones: also for commits in one millisecond, or
      // after the clock stepped back.
      let newest = entries.reduce((max, e) => (e.id > max ? e.id : max), '')
      const members = batch.map((w) => {
        const now = Date.now()
        newest = newTransactionId(
          new Date(newest === '' ? now : Math.max(now, transactionTime(newest) + 1)),
        )
        w.warnings?.push(...recoveryWarnings)
        return { id: newest, steps: w.steps, summary: w.summary }
      })
      const outcomes = await runBatch(ctx, members)
      // The listing above still holds: only a lock holder adds or removes committed transactions.
      const committed = entries.filter((e) => e.status === 'committed').map((e) => e.id)
      outcomes.forEach((o, i) => {
        if (o.ok) committed.push((members[i] as BatchMember).id)
      })
      await this.#prune(committed).catch(() => undefined) // the commit stands; pruning retries next time
      outcomes.forEach((outcome, i) => {
        const w = batch[i] as Waiting
        if (!outcome.ok) {
          refused++
          w.reject(outcome.error)
          return
        }
        w.warnings?.push(...outcome.warnings)
        try {
          this.#options.hooks?.at?.('cleaned', 0)
          w.resolve((members[i] as BatchMember).id)
        } catch (error) {
          w.reject(error)
        }
      })
    } catch (error) {
      // Recovery failed, or a bug: every transaction of the batch not settled yet fails with it.
      for (const w of batch) if (w.reject(error)) refused++
    } finally {
      if (report !== undefined && counter !== undefined && batch.length > 0)
        tell(report, {
          transactions: batch.length,
          refused,
          lockWaitMs: Math.max(...batch.map((w) => lockedAt - w.queuedAt)),
          commitMs: performance.now() - lockedAt,
          ...counter.read(),
        })
    }
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

/** A commit waiting for its lock turn; resolve and reject settle it once (reject: whether now). */
interface Waiting {
  readonly steps: readonly CommitStep[]
  readonly summary: TransactionSummary
  readonly warnings: Warning[] | undefined
  readonly queuedAt: number
  /** What it stages, for the batch's bound. */
  readonly bytes: number
  readonly done: Promise<string>
  resolve(id: string): void
  reject(error: unknown): boolean
}

function waitingFor(
  steps: readonly CommitStep[],
  summary: TransactionSummary,
  warnings: Warning[] | undefined,
  queuedAt = performance.now(),
): Waiting {
  let settled = false
  let resolve!: (id: string) => void
  let reject!: (error: unknown) => void
  const done = new Promise<string>((res, rej) => {
    resolve = res
    reject = rej
  })
  return {
    steps,
    summary,
    warnings,
    queuedAt,
    bytes: steps.reduce((n, s) => n + (s.kind === 'write' ? s.bytes.length : 0), 0),
    done,
    resolve: (id) => {
      if (settled) return
      settled = true
      resolve(id)
    },
    reject: (error) => {
      if (settled) return false
      settled = true
      reject(error)
      return true
    },
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
