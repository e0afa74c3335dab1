// The engine facade: createEngine, and each request through the pipeline in the order it runs:
// plan.ts (parse, or split for the workers; route.ts picks inline or the worker pool) -> the
// journal rolls back interrupted transactions -> dispatch.ts -> verify-job.ts / verify.ts on each
// op (prepare.ts, sequence.ts) -> merge.ts (the verified ops, or the request's one error) ->
// limits.ts and results.ts (file results, link targets) -> approval -> diagnose.ts's before-state
// -> the journal commit of commit-steps.ts's steps (all-or-nothing, even across a crash) ->
// diagnose.ts's after-state. Requests verify concurrently; commits to one workspace never
// interleave (the journal's lock, across engines and processes).
import { realpathSync, statSync } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import { DEFAULT_DENY_GLOBS } from '../defaults.js'
import { resolveConfig, checkFormat, type ResolvedConfig } from './config.js'
import { EditError } from '../errors.js'
import type { JournalFs } from '../journal/fs.js'
import { Journal } from '../journal/journal.js'
import { keyRing, type KeyRing } from '../journal/trust.js'
import { hashBytes } from '../hash.js'
import type {
  CommitBatchStats,
  CommitStep,
  JournalHooks,
  RecoveryReport,
  TransactionInfo,
  UndoResult,
} from '../journal/records.js'
import { silentLogger } from '../log.js'
import type { ApplyResult, FileResult, Warning } from '../types.js'
import type { ApplyOptions, CheckOptions, Engine, EngineOptions } from './api.js'
import { combineSignals, throwIfAborted } from '../abort.js'
import { EngineDiagnostics, fileChanges, type LspClientFactory } from './diagnose.js'
import type { LspClient, SidecarPoolOptions } from '../lsp/client-types.js'
import type { DiagnosticsOptions, DiagnosticsReport } from '../lsp/reports.js'
import { compileGlobs } from '../workspace/glob.js'
import { WorkerPool } from '../threads/worker-pool.js'
import { checkComputedSizes } from './limits.js'
import { patchTextOf } from '../bytes/patch-input.js'
import type { PatchText } from '../text/patch-bytes.js'
import { detectCaseInsensitive, syncCaseProbeFs } from '../workspace/case-fold.js'
import { resolveWorkspacePath, type PathContext } from '../workspace/paths.js'
import { checkLinkTargets, fileResults, patchWarnings } from './results.js'
import { commitSteps, summaryOf } from './commit-steps.js'
import {
  planRequest,
  verifyPlanned,
  type PlannedRequest,
  type RouteTaken,
  type VerifiedRequest,
} from './plan.js'
import type { RequestedRoute } from './route.js'
import { INLINE_SYNC_MAX_FILES } from './dispatch.js'
import { COMMIT_ATTEMPTS, committedRel, mayRebase, rebaseRefusal } from './rebase.js'
import type { SkippedEntry } from '../parse/unified.js'

/** Internal seams for tests (fault injection); not part of the public options. */
export interface EngineInternals {
  readonly journalFs?: JournalFs
  /** Called at each instrumented commit point (the crash harness kills the process there). */
  readonly journalHooks?: JournalHooks
  /** Starts the sidecar pool of language servers; tests substitute a scripted client. */
  readonly lspClientFactory?: LspClientFactory
  /** Where the per-user journal key lives (default: $PATCHLOOM_STATE_DIR or the user's state dir). */
  readonly journalStateDir?: string
  /** The journal key shared with other engines (a batch's): read once, not once per root. */
  readonly journalKeyRing?: KeyRing
  /**
   * A worker pool shared with other engines (the server's workspaces): used instead of one of
   * the engine's own, and left running by close(). Ignored when the workers option is false.
   */
  readonly sharedPool?: WorkerPool
  /** Told about each lock turn of the journal's commit (see JournalOptions.onCommitBatch). */
  readonly onCommitBatch?: (stats: CommitBatchStats) => void
  /** Keep the journal's lock one event-loop turn for more commits (JournalOptions.holdLock). */
  readonly journalHoldLock?: boolean
}

// Kept out of the public options: DECISIONS.md D-104.
/**
 * Internal per-request options: `route` forces verification inline or onto the worker threads,
 * for tests and benches that compare the two and for the CLI's `--workers`; the public types
 * leave it out, and 'auto' (the default) decides by size (route.ts).
 */
export interface InternalRequestOptions {
  /** @default 'auto' */
  readonly route?: RequestedRoute
  /**
   * Called after a commit with the bytes of every regular file it wrote, by their hash: the
   * server's memory keeps them for rebasing without reading the files back.
   */
  readonly onCommitted?: (written: ReadonlyMap<string, Uint8Array>) => void
  /**
   * Codex Add File sections refuse an existing file (FILE_EXISTS) instead of replacing it, as a
   * diff's new file does: checked where the target is read and again under the journal's lock.
   */
  readonly addsMustBeNew?: boolean
}

export type InternalApplyOptions = ApplyOptions & InternalRequestOptions
export type InternalCheckOptions = CheckOptions & InternalRequestOptions

/** The engine as createEngineWithInternals returns it: the public Engine plus `route`. */
export interface InternalEngine extends Engine {
  apply(input: string | Uint8Array, options?: InternalApplyOptions): Promise<ApplyResult>
  check(input: string | Uint8Array, options?: InternalCheckOptions): Promise<ApplyResult>
}

/** Recovery and undo never write into .git or .patchloom, whatever denyGlobs says. */
const isAlwaysDenied = compileGlobs(DEFAULT_DENY_GLOBS)

/**
 * Creates an engine for one workspace root.
 * @example
 * const engine = createEngine({ root: '/work/repo' })
 * const result = await engine.apply(patchText)
 * await engine.close()
 */
export function createEngine(options: EngineOptions): Engine {
  return createEngineWithInternals(options, {})
}

/** A journal key ring that engines given it as `journalKeyRing` share (the engines of a batch). */
export function createJournalKeyRing(): KeyRing {
  return keyRing()
}

/**
 * createEngine with test seams (fault injection) and the internal `route` request option; not
 * exported from the package. The CLI, tests and benches use it.
 */
export function createEngineWithInternals(
  options: EngineOptions,
  internals: EngineInternals = {},
): InternalEngine {
  return new EditEngine(resolveConfig(options), options, internals)
}

class EditEngine implements InternalEngine {
  readonly #config: ResolvedConfig
  readonly #options: EngineOptions
  readonly #internals: EngineInternals
  readonly #pool: WorkerPool | undefined
  readonly #ownsPool: boolean
  readonly #isDenied: (rel: string) => string | undefined
  readonly #diagnostics: EngineDiagnostics
  #rootReal: Promise<string> | undefined
  #caseInsensitive: Promise<boolean> | undefined
  #journal: Promise<Journal> | undefined
  #closed = false

  constructor(config: ResolvedConfig, options: EngineOptions, internals: EngineInternals) {
    this.#config = config
    this.#options = options
    this.#internals = internals
    this.#isDenied = compileGlobs(config.denyGlobs)
    const diagnostics = typeof options.diagnostics === 'object' ? options.diagnostics : {}
    this.#diagnostics = new EngineDiagnostics(
      diagnostics,
      internals.lspClientFactory ?? startLspClientLazily,
    )
    this.#ownsPool = internals.sharedPool === undefined
    this.#pool =
      config.workers === false
        ? undefined
        : (internals.sharedPool ??
          new WorkerPool({
            ...(config.workers.minThreads === undefined
              ? {}
              : { minThreads: config.workers.minThreads }),
            ...(config.workers.maxThreads === undefined
              ? {}
              : { maxThreads: config.workers.maxThreads }),
          }))
  }

  get root(): string {
    return this.#config.root
  }

  apply(input: string | Uint8Array, options: InternalApplyOptions = {}): Promise<ApplyResult> {
    return this.#logged(input, options, options.dryRun === true)
  }

  check(input: string | Uint8Array, options: InternalCheckOptions = {}): Promise<ApplyResult> {
    // A dry run neither asks for approval nor runs diagnostics (only #commit asks for them).
    return this.#logged(input, options, true)
  }

  async #logged(
    input: string | Uint8Array,
    options: InternalApplyOptions,
    dryRun: boolean,
  ): Promise<ApplyResult> {
    const log = this.#options.logger ?? silentLogger
    const started = performance.now()
    try {
      const trace: RequestTrace = {}
      const result = await this.#run(input, options, dryRun, trace)
      log.debug(dryRun ? 'engine.request.verified' : 'engine.request.committed', {
        format: result.format,
        files: result.files.length,
        route: trace.route ?? 'inline',
        ms: Math.round(performance.now() - started),
        verifyMs: Math.round(trace.verifyMs ?? 0),
      })
      return result
    } catch (error) {
      if (error instanceof EditError) {
        const fields = {
          code: error.code,
          path: error.path ?? null,
          ms: Math.round(performance.now() - started),
        }
        if (error.code === 'JOURNAL_COMMIT_FAILED')
          log.warn('engine.commit.failed', { ...fields, message: error.message })
        else log.debug('engine.request.rejected', fields)
      }
      throw error
    }
  }

  async #run(
    input: string | Uint8Array,
    options: InternalApplyOptions,
    dryRun: boolean,
    trace: RequestTrace,
  ): Promise<ApplyResult> {
    const first = await this.#verified(input, options, dryRun, trace)
    if (dryRun) return { format: first.at.request.format, dryRun, ...first.report }
    let { at, report } = first
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#commit(at, options, report.files, report.warnings)
      } catch (error) {
        // A file changed between verification and commit: verified again, and committed if the
        // change still lands cleanly on the new content (rebase.ts; DECISIONS.md D-116, D-139).
        if (!(error instanceof EditError) || error.code !== 'FILE_CHANGED') throw error
        if (attempt >= COMMIT_ATTEMPTS) throw error
        const rootReal = at.ctx.rootReal
        const changed = first.at.request.verified.find(
          (v) => committedRel(rootReal, v) === error.path,
        )
        if (changed === undefined || !mayRebase(changed)) throw error
        const again = await this.#verified(input, options, dryRun, trace)
        const check = rebaseRefusal(rootReal, first.at.request.verified, again.at.request.verified)
        if (!check.ok) {
          const rel = check.path ?? committedRel(rootReal, changed)
          throw new EditError(
            'FILE_CHANGED',
            `${rel} changed after it was verified, and ${check.reason}; nothing was changed.`,
            {
              path: rel,
              ...(check.currentHash === undefined ? {} : { currentHash: check.currentHash }),
            },
          )
        }
        at = again.at
        // The first verification's notices (transactions it rolled back) still stand.
        report = {
          files: again.report.files,
          warnings: [...first.at.notices, ...again.report.warnings, ...check.warnings],
        }
      }
    }
  }

  /** The request verified, its sizes and link targets checked, and what it reports. */
  async #verified(
    input: string | Uint8Array,
    options: InternalApplyOptions,
    dryRun: boolean,
    trace: RequestTrace,
  ): Promise<{ at: VerifiedRequestAt; report: { files: FileResult[]; warnings: Warning[] } }> {
    const at = await this.#verify(input, options, dryRun)
    trace.route = at.request.route
    trace.verifyMs = (trace.verifyMs ?? 0) + at.verifyMs
    const { verified } = at.request
    checkComputedSizes(verified, this.#config.limits.maxFileBytes)
    await checkLinkTargets(at.ctx, verified)
    // What the request reports (results.ts), for a dry run and a commit alike.
    const files = fileResults(verified)
    const warnings: Warning[] = [
      ...patchWarnings(at.patch, at.skipped),
      ...at.notices,
      ...verified.flatMap((v) => v.computed.warnings),
    ]
    return { at, report: { files, warnings } }
  }

  /**
   * Options checked, the patch planned (plan.ts), the journal consulted, every op verified
   * (dispatch.ts) and the outcomes merged (merge.ts).
   */
  async #verify(
    input: string | Uint8Array,
    options: InternalApplyOptions,
    dryRun: boolean,
  ): Promise<VerifiedRequestAt> {
    if (this.#closed) throw new Error('engine: cannot apply after close()')
    if (typeof input !== 'string' && !(input instanceof Uint8Array))
      throw new EditError('CONFIG_INVALID', 'Invalid input: the patch must be a string or bytes.')
    const format = checkFormat(options.format)
    const route = options.route ?? 'auto'
    if (!['auto', 'inline', 'pool'].includes(route)) {
      throw new EditError(
        'CONFIG_INVALID',
        `Invalid option: route must be auto, inline or pool; got ${JSON.stringify(route)}.`,
      )
    }
    const timeoutMs = options.timeoutMs
    if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs <= 0)) {
      throw new EditError(
        'CONFIG_INVALID',
        `Invalid option: timeoutMs must be a positive integer; got ${String(timeoutMs)}.`,
      )
    }
    const binary = options.binaryWithoutData
    if (binary !== undefined && binary !== 'refuse' && binary !== 'skip') {
      throw new EditError(
        'CONFIG_INVALID',
        `Invalid option: binaryWithoutData must be refuse or skip; got ${JSON.stringify(binary)}.`,
      )
    }
    const finalNewline = options.finalNewline
    if (finalNewline !== undefined && finalNewline !== 'format' && finalNewline !== 'keep') {
      throw new EditError(
        'CONFIG_INVALID',
        `Invalid option: finalNewline must be format or keep; got ${JSON.stringify(finalNewline)}.`,
      )
    }
    const signal = combineSignals(options.signal, timeoutMs)
    throwIfAborted(signal)
    const { limits } = this.#config
    const patch = patchTextOf(input, limits.maxPatchBytes)

    const diffs = options.diffs ?? true
    const engine = { config: this.#config, pool: this.#pool }
    // Parsed here, or split for the workers to parse (plan.ts); before the journal.
    const parsed = planRequest(engine, patch, format, route, diffs, binary === 'skip')
    const planned = options.addsMustBeNew === true ? withNewAdds(parsed) : parsed
    const rootReal = await this.#root()
    // Interrupted transactions are rolled back before any file is read; a dry run only reports
    // them and writes nothing. Transactions not acted on come back as warnings.
    const notices = await (await this.#journalFor()).beforeRequest(dryRun)
    // Probed once per engine: the filesystem under a root does not change its case rules.
    this.#caseInsensitive ??= this.#config.blockingReads
      ? detectCaseInsensitive(rootReal, syncCaseProbeFs)
      : detectCaseInsensitive(rootReal)
    const ctx: PathContext = {
      root: this.#config.root,
      rootReal,
      isDenied: this.#isDenied,
      caseInsensitive: await this.#caseInsensitive,
    }
    const wantDiagnostics = !dryRun && (options.diagnostics ?? isOn(this.#options.diagnostics))
    const verifyStarted = performance.now()
    const request = await verifyPlanned(
      engine,
      planned,
      {
        root: ctx.root,
        rootReal,
        denyGlobs: this.#config.denyGlobs,
        caseInsensitive: ctx.caseInsensitive === true,
        maxFileBytes: limits.maxFileBytes,
        rawPatch: patch.firstRawLine !== undefined,
        diffs,
        // A small commit keeps the old bytes too: the journal compares its backups with them
        // instead of hashing them again; a large one would double what it holds.
        keepBefore:
          wantDiagnostics ||
          (!dryRun && (planned.plan?.ops.length ?? Infinity) <= INLINE_SYNC_MAX_FILES),
        keepAfter: !dryRun,
        finalNewline: finalNewline ?? 'format',
      },
      signal,
    )
    const verifyMs = performance.now() - verifyStarted
    const skipped = planned.skipped ?? []
    return { request, patch, skipped, notices, ctx, wantDiagnostics, signal, verifyMs }
  }

  /**
   * Approval, the before-state diagnostics (diagnose.ts), the journal commit (commit-steps.ts),
   * the after-state diagnostics.
   */
  async #commit(
    { request, ctx, wantDiagnostics, signal }: VerifiedRequestAt,
    options: InternalApplyOptions,
    files: FileResult[],
    warnings: Warning[],
  ): Promise<ApplyResult> {
    const { verified, format } = request
    const approve = options.approve ?? this.#options.approve
    if (approve !== undefined && (await approve({ format, files })) !== true) {
      throw new EditError('APPROVAL_DENIED', 'The change was not approved; nothing was written.')
    }
    throwIfAborted(signal)
    const changes = wantDiagnostics ? fileChanges(verified) : []
    // Before-state diagnostics come first: once the files are replaced, they cannot be asked for.
    const baseline = wantDiagnostics
      ? await this.#diagnostics.baseline(ctx.rootReal, changes, warnings)
      : null
    const steps = commitSteps(ctx.rootReal, verified, format)
    const journal = await this.#journalFor()
    const transaction = await journal.commit(steps, summaryOf(files), warnings)
    if (options.onCommitted !== undefined) options.onCommitted(writtenBytes(steps))
    const committed = transaction === undefined ? {} : { transaction }
    if (wantDiagnostics) {
      const report = await this.#diagnostics.after(ctx.rootReal, changes, baseline, warnings)
      if (report !== undefined) {
        return { format, dryRun: false, files, warnings, ...committed, diagnostics: report }
      }
    }
    return { format, dryRun: false, files, warnings, ...committed }
  }

  async diagnostics(
    paths: readonly string[],
    options: DiagnosticsOptions = {},
  ): Promise<DiagnosticsReport> {
    if (this.#closed) throw new Error('engine: cannot ask for diagnostics after close()')
    const ctx: PathContext = {
      root: this.#config.root,
      rootReal: await this.#root(),
      isDenied: () => undefined,
    }
    const resolved = await Promise.all(paths.map((p) => resolveWorkspacePath(ctx, p, 0)))
    return this.#diagnostics.standalone(
      ctx.rootReal,
      resolved.map((r) => r.abs),
      options,
    )
  }

  async undo(transaction?: string): Promise<UndoResult> {
    if (this.#closed) throw new Error('engine: cannot undo after close()')
    if (transaction !== undefined && typeof transaction !== 'string')
      throw new EditError(
        'CONFIG_INVALID',
        'Invalid argument: the transaction id must be a string.',
      )
    const journal = await this.#journalFor()
    const result = await journal.undo(transaction)
    ;(this.#options.logger ?? silentLogger).debug('engine.undo.committed', {
      transaction: result.transaction,
      undone: result.undone,
      files: result.files.length,
    })
    return result
  }

  async recover(): Promise<RecoveryReport> {
    if (this.#closed) throw new Error('engine: cannot recover after close()')
    return (await this.#journalFor()).recover()
  }

  async transactions(): Promise<TransactionInfo[]> {
    if (this.#closed) throw new Error('engine: cannot list transactions after close()')
    return (await this.#journalFor()).list()
  }

  async close(): Promise<void> {
    this.#closed = true
    await Promise.all([
      this.#ownsPool ? this.#pool?.close() : undefined,
      this.#diagnostics.close(),
      // Pruned transactions still being deleted; a journal that never opened has none.
      this.#journal?.then((journal) => journal.settled()).catch(() => undefined),
    ])
  }

  #root(): Promise<string> {
    this.#rootReal ??= (async () => {
      try {
        const root = this.#config.root
        // With blockingReads, as the reads of a request: no threadpool trip per engine.
        if (this.#config.blockingReads) {
          if (!statSync(root).isDirectory()) throw new Error('not a directory')
          return realpathSync.native(root)
        }
        const st = await stat(root)
        if (!st.isDirectory()) throw new Error('not a directory')
        return await realpath(root)
      } catch (error) {
        this.#rootReal = undefined
        throw new EditError(
          'CONFIG_INVALID',
          `Invalid option: root ${this.#config.root} is not an existing directory.`,
          {
            cause: error,
          },
        )
      }
    })()
    return this.#rootReal
  }

  /** The workspace journal; created on first use, once the root is known. */
  #journalFor(): Promise<Journal> {
    this.#journal ??= this.#root().then(
      (rootReal) =>
        new Journal({
          rootReal,
          durability: this.#config.durability,
          keep: this.#config.journal.keep,
          lockTimeoutMs: this.#config.journal.lockTimeoutMs,
          ...(this.#internals.journalFs === undefined ? {} : { fs: this.#internals.journalFs }),
          ...(this.#internals.journalHooks === undefined
            ? {}
            : { hooks: this.#internals.journalHooks }),
          ...(this.#internals.journalStateDir === undefined
            ? {}
            : { keyDir: this.#internals.journalStateDir }),
          ...(this.#internals.journalKeyRing === undefined
            ? {}
            : { keyRing: this.#internals.journalKeyRing }),
          ...(this.#internals.onCommitBatch === undefined
            ? {}
            : { onCommitBatch: this.#internals.onCommitBatch }),
          ...(this.#internals.journalHoldLock === true ? { holdLock: true } : {}),
          // The sandbox apply uses (containment through symlinks, deny globs), for every path
          // a transaction names before recovery or undo acts on it. The last component is not
          // followed: the journal acts on the path itself (lstat, rename over it, unlink), never
          // through it, so a link step's path names the link, which may lead out of the root
          // and still be restored or removed as a link; a file step's path that has become
          // a link matches neither recorded state and is a conflict. Every directory on the way
          // is still resolved, and verify.ts refuses one that is a symlink.
          checkPath: async (rel) => {
            const ctx: PathContext = {
              root: rootReal,
              rootReal,
              isDenied: (p) => this.#isDenied(p) ?? isAlwaysDenied(p),
            }
            await resolveWorkspacePath(ctx, rel, 0, { followLast: false })
          },
          onRecovered: (report) => {
            const log = this.#options.logger ?? silentLogger
            log.warn('engine.journal.recovered', {
              rolledBack: report.rolledBack.join(' '),
              conflicts: report.conflicts.map((c) => `${c.path}: ${c.reason}`).join(' | '),
            })
          },
        }),
      (error: unknown) => {
        this.#journal = undefined
        throw error
      },
    )
    return this.#journal
  }
}

/**
 * The language-server client is loaded on first use: edits without diagnostics (most CLI runs)
 * never pay to load comlink and the sidecar pool's modules (~10-15 ms of start-up).
 */
async function startLspClientLazily(options: SidecarPoolOptions): Promise<LspClient> {
  const { startLspClient } = await import('../lsp/client.js')
  return startLspClient(options)
}

/**
 * How a request was verified, for the request's log line: inline, on the pool from the parsed
 * plan, or on the pool from runs of the patch text that the workers parsed ('pool-runs').
 */
interface RequestTrace {
  route?: RouteTaken
  verifyMs?: number
}

/** What #verify hands the rest of a request. */
interface VerifiedRequestAt {
  readonly request: VerifiedRequest
  /** The patch as the parsers read it, with what was cut from its end. */
  readonly patch: PatchText
  /** Entries skipped on request (binaryWithoutData 'skip'). */
  readonly skipped: readonly SkippedEntry[]
  readonly notices: readonly Warning[]
  readonly ctx: PathContext
  readonly wantDiagnostics: boolean
  readonly signal: AbortSignal | undefined
  /** Wall time of the verify phase: every op resolved, read and computed, inline or on the pool. */
  readonly verifyMs: number
}

function isOn(option: EngineOptions['diagnostics']): boolean {
  return option !== undefined && option !== false
}

/** The regular files a commit wrote, by the hash verification took of their bytes. */
function writtenBytes(steps: readonly CommitStep[]): Map<string, Uint8Array> {
  const written = new Map<string, Uint8Array>()
  for (const step of steps) {
    if (step.kind !== 'write' || step.symlink === true) continue
    written.set(step.afterHash ?? hashBytes(step.bytes), step.bytes)
  }
  return written
}

/** The plan with every overwriting Add File made one that must create its file. */
function withNewAdds(planned: PlannedRequest): PlannedRequest {
  const plan = planned.plan
  if (plan === undefined) return planned
  const ops = plan.ops.map((op) =>
    op.kind === 'add' && op.overwrite ? { ...op, overwrite: false } : op,
  )
  return { ...planned, plan: { ...plan, ops } }
}
