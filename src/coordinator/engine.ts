// The engine facade: parse -> resolve and read -> compute every new file and its diff (inline or
// in the worker pool) -> approve -> commit through the workspace journal -> report. Nothing is
// written until every operation has verified; the journal makes the commit all-or-nothing, even
// across a crash (src/journal/). Verification of concurrent requests overlaps; commits to one
// workspace never interleave (the journal's lock, across engines and processes).
import { realpath, stat } from 'node:fs/promises'
import path from 'node:path'
import { inflateSync } from 'node:zlib'
import { computeFile } from '../apply/compute.js'
import { resolveConfig, checkFormat, DEFAULT_DENY_GLOBS, type ResolvedConfig } from '../config.js'
import { EditError } from '../errors.js'
import type { JournalFs } from '../journal/fs.js'
import { hashBytes } from '../hash.js'
import { Journal } from '../journal/journal.js'
import { SYMLINK_PERMISSIONS } from '../journal/symlink.js'
import type {
  CommitStep,
  JournalHooks,
  RecoveryReport,
  TransactionInfo,
  TransactionSummary,
  UndoResult,
} from '../journal/types.js'
import { silentLogger } from '../log.js'
import { parsePatch } from '../parse/index.js'
import { checkPlanEncoding, opHasRawBytes } from '../parse/raw-bytes.js'
import { unwrap } from '../result.js'
import type {
  ApplyResult,
  ComputedFile,
  EditPlan,
  FileMode,
  FileResult,
  Warning,
} from '../types.js'
import type { ApplyOptions, Engine, EngineOptions } from './engine-types.js'
import { combineSignals, throwIfAborted } from './abort.js'
import { EngineDiagnostics, fileChanges, type LspClientFactory } from './diagnostics.js'
import type { LspClient, PoolOptions as LspPoolOptions } from '../lsp/client-types.js'
import type { DiagnosticsOptions, DiagnosticsReport } from '../lsp/types.js'
import { compileGlobs } from './glob.js'
import { JobPool } from './job-pool.js'
import { JOB_PROTOCOL, type ComputeJob } from './jobs.js'
import { checkComputedSizes, checkFileCount } from './limits.js'
import { patchTextOf } from './patch-input.js'
import {
  checkSymlinkTarget,
  detectCaseInsensitive,
  resolveWorkspacePath,
  type PathContext,
} from './paths.js'
import { prepareOps, writesLink, type PreparedOp } from './prepare.js'
import { routeCompute, routeParse, type Route } from './route.js'

/** Internal seams for tests (fault injection); not part of the public options. */
export interface EngineInternals {
  readonly journalFs?: JournalFs
  /** Called at each instrumented commit point (the crash harness kills the process there). */
  readonly journalHooks?: JournalHooks
  /** Starts the language-server pool; tests substitute a scripted client. */
  readonly lspClientFactory?: LspClientFactory
  /** Where the per-user journal key lives (default: $PATCHLOOM_STATE_DIR or the user's state dir). */
  readonly journalStateDir?: string
}

/** Recovery and undo never write into .git or .patchloom, whatever denyGlobs says (#8). */
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

/** createEngine with test seams (fault injection); not exported from the package. */
export function createEngineWithInternals(
  options: EngineOptions,
  internals: EngineInternals,
): Engine {
  return new EditEngine(resolveConfig(options), options, internals)
}

class EditEngine implements Engine {
  readonly #config: ResolvedConfig
  readonly #options: EngineOptions
  readonly #internals: EngineInternals
  readonly #pool: JobPool | undefined
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
    this.#pool =
      config.pool === false
        ? undefined
        : new JobPool({
            ...(config.pool.minThreads === undefined ? {} : { minThreads: config.pool.minThreads }),
            ...(config.pool.maxThreads === undefined ? {} : { maxThreads: config.pool.maxThreads }),
          })
  }

  get root(): string {
    return this.#config.root
  }

  apply(input: string | Uint8Array, options: ApplyOptions = {}): Promise<ApplyResult> {
    return this.#logged(input, options, options.dryRun === true)
  }

  check(
    input: string | Uint8Array,
    options: Omit<ApplyOptions, 'dryRun'> = {},
  ): Promise<ApplyResult> {
    return this.#logged(input, options, true)
  }

  async #logged(
    input: string | Uint8Array,
    options: ApplyOptions,
    dryRun: boolean,
  ): Promise<ApplyResult> {
    const log = this.#options.logger ?? silentLogger
    const started = performance.now()
    try {
      const result = await this.#run(input, options, dryRun)
      log.debug(dryRun ? 'engine.request.verified' : 'engine.request.committed', {
        format: result.format,
        files: result.files.length,
        ms: Math.round(performance.now() - started),
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
    await Promise.all([this.#pool?.close(), this.#diagnostics.close()])
  }

  async #run(
    input: string | Uint8Array,
    options: ApplyOptions,
    dryRun: boolean,
  ): Promise<ApplyResult> {
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
    const signal = combineSignals(options.signal, timeoutMs)
    throwIfAborted(signal)
    const { limits } = this.#config
    const patch = patchTextOf(input, limits.maxPatchBytes)

    const plan = await this.#parse(patch.text, format, route, signal)
    // A patch that is not UTF-8 keeps its raw bytes in line content only (D-040, D-041).
    const raw = patch.firstRawLine !== undefined
    unwrap(checkPlanEncoding(plan, patch.firstRawLine))
    checkFileCount(plan, limits.maxFiles)
    const rootReal = await this.#root()
    // Interrupted transactions are rolled back before any file is read; a dry run only reports
    // them and writes nothing (#8). Transactions not acted on come back as warnings.
    const notices = await (await this.#journalFor()).beforeRequest(dryRun)
    // Probed once per engine: the filesystem under a root does not change its case rules.
    this.#caseInsensitive ??= detectCaseInsensitive(rootReal)
    const ctx: PathContext = {
      root: this.#config.root,
      rootReal,
      isDenied: this.#isDenied,
      caseInsensitive: await this.#caseInsensitive,
    }
    const prepared = await prepareOps(ctx, plan, { maxFileBytes: limits.maxFileBytes })
    const computed = await this.#computeAll(plan, prepared, patch.text.length, raw, route, signal)
    checkComputedSizes(prepared, computed, limits.maxFileBytes)
    await checkLinkTargets(ctx, prepared, computed)
    const files = prepared.map((p, i) => fileResult(p, computed[i] as ComputedFile))
    const warnings: Warning[] = [...notices, ...computed.flatMap((c) => c.warnings)]

    if (!dryRun) {
      const approve = options.approve ?? this.#options.approve
      if (approve !== undefined && (await approve({ format: plan.format, files })) !== true) {
        throw new EditError('APPROVAL_DENIED', 'The change was not approved; nothing was written.')
      }
      throwIfAborted(signal)
      const wantDiagnostics = options.diagnostics ?? isOn(this.#options.diagnostics)
      const changes = wantDiagnostics ? fileChanges(prepared, computed) : []
      // Before-state diagnostics come first: once the files are replaced, they cannot be asked for.
      const baseline = wantDiagnostics
        ? await this.#diagnostics.baseline(ctx.rootReal, changes, warnings)
        : null
      const steps = prepared.flatMap((p, i) =>
        commitStepsFor(ctx.rootReal, p, computed[i] as ComputedFile),
      )
      const journal = await this.#journalFor()
      const transaction = await journal.commit(steps, summaryOf(files), warnings)
      const committed = transaction === undefined ? {} : { transaction }
      if (wantDiagnostics) {
        const report = await this.#diagnostics.after(ctx.rootReal, changes, baseline, warnings)
        if (report !== undefined) {
          return {
            ok: true,
            format: plan.format,
            dryRun,
            files,
            warnings,
            ...committed,
            diagnostics: report,
          }
        }
      }
      return { ok: true, format: plan.format, dryRun, files, warnings, ...committed }
    }
    return { ok: true, format: plan.format, dryRun, files, warnings }
  }

  async #parse(
    input: string,
    format: ReturnType<typeof checkFormat>,
    route: ApplyOptions['route'],
    signal?: AbortSignal,
  ): Promise<EditPlan> {
    const pool = this.#pool
    const chosen: Route =
      route === 'pool'
        ? 'pool'
        : route === 'inline' || pool === undefined || this.#config.pool === false
          ? 'inline'
          : routeParse(input.length, this.#config.pool.inlineParseMaxBytes)
    if (chosen === 'pool' && pool !== undefined) {
      return pool.parse({ protocol: JOB_PROTOCOL, text: input, format }, signal)
    }
    return unwrap(parsePatch(input, format))
  }

  async #computeAll(
    plan: EditPlan,
    prepared: readonly PreparedOp[],
    inputBytes: number,
    raw: boolean,
    route: ApplyOptions['route'],
    signal?: AbortSignal,
  ): Promise<ComputedFile[]> {
    const jobs = prepared.map((p) => computeJob(plan, p, this.#config.limits.maxFileBytes, raw))
    const pool = this.#pool
    const totalBytes = jobs.reduce((sum, job) => sum + (job.source?.length ?? 0), inputBytes)
    const chosen: Route =
      route === 'pool'
        ? 'pool'
        : route === 'inline' || pool === undefined || this.#config.pool === false
          ? 'inline'
          : routeCompute(totalBytes, jobs.length, this.#config.pool.inlineMaxBytes)
    if (chosen === 'pool') {
      if (pool === undefined)
        throw new EditError(
          'CONFIG_INVALID',
          'Invalid option: route "pool" on an engine created with pool: false.',
        )
      const settled = await Promise.allSettled(jobs.map((job) => pool.compute(job, signal)))
      // Report the first failure in plan order, so the error does not depend on thread timing.
      for (const s of settled) if (s.status === 'rejected') throw s.reason
      throwIfAborted(signal)
      return settled.map((s) => (s as PromiseFulfilledResult<ComputedFile>).value)
    }
    const out: ComputedFile[] = []
    for (const job of jobs) {
      out.push(unwrap(computeFile(job)))
      throwIfAborted(signal)
    }
    return out
  }

  #root(): Promise<string> {
    this.#rootReal ??= (async () => {
      try {
        const st = await stat(this.#config.root)
        if (!st.isDirectory()) throw new Error('not a directory')
        return await realpath(this.#config.root)
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
          // The sandbox apply uses (containment through symlinks, deny globs), for every path
          // a transaction names before recovery or undo acts on it. The last component is not
          // followed: the journal acts on the path itself (lstat, rename over it, unlink), never
          // through it, so a link step's path names the link, which may lead out of the root
          // and still be restored or removed as a link (#8); a file step's path that has become
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

function computeJob(
  plan: EditPlan,
  p: PreparedOp,
  maxFileBytes: number,
  rawPatch: boolean,
): ComputeJob {
  const { op } = p
  const read = op.kind === 'copy' && p.from !== undefined ? p.from : p.target
  const source = read.snap.bytes
  const binary = op.kind === 'edits' ? undefined : op.binary
  let inflated: Uint8Array | undefined
  if (binary !== undefined) {
    try {
      // A few kilobytes of deflate can claim gigabytes: stop at the file size limit.
      inflated = new Uint8Array(
        inflateSync(binary.forward.deflated, { maxOutputLength: maxFileBytes }),
      )
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new EditError(
          'LIMIT_FILE_TOO_LARGE',
          `${op.path}: the GIT binary patch inflates to more than the ${maxFileBytes}-byte file size limit.`,
          { path: op.path, patchLine: op.patchLine, cause: error },
        )
      }
      throw new EditError(
        'PARSE_BAD_BINARY',
        `${op.path}: the GIT binary patch data does not inflate (${(error as Error).message}).`,
        {
          path: op.path,
          patchLine: op.patchLine,
          cause: error,
        },
      )
    }
  }
  return {
    protocol: JOB_PROTOCOL,
    format: plan.format,
    op,
    source,
    ...(read.snap.mode === undefined ? {} : { sourceMode: read.snap.mode }),
    ...(inflated === undefined ? {} : { inflated }),
    // Only ops whose own lines hold raw bytes lose leniency; the rest of the patch keeps it.
    ...(rawPatch && opHasRawBytes(op) ? { rawBytes: true as const } : {}),
  }
}

/**
 * The language-server client is loaded on first use: edits without diagnostics (most CLI runs)
 * never pay to load comlink and the pool's modules (~10-15 ms of start-up).
 */
async function startLspClientLazily(options: LspPoolOptions): Promise<LspClient> {
  const { startLspClient } = await import('../lsp/client.js')
  return startLspClient(options)
}

function isOn(option: EngineOptions['diagnostics']): boolean {
  return option !== undefined && option !== false
}

function fileResult(p: PreparedOp, computed: ComputedFile): FileResult {
  const { op, target } = p
  const afterHash = computed.after === null ? null : hashBytes(computed.after)
  const counts = {
    additions: computed.additions,
    deletions: computed.deletions,
    diff: computed.diff,
  }
  const modes = modeFields(p)
  // Updated (or created, for SEARCH/REPLACE and JSON edits on a missing file) where it stands.
  const inPlace = (): FileResult => ({
    path: target.resolved.rel,
    op: target.snap.kind === 'missing' ? 'add' : 'update',
    ...counts,
    beforeHash: target.snap.hash,
    afterHash,
    ...modes,
  })
  switch (op.kind) {
    case 'add':
      return {
        path: target.resolved.rel,
        op: 'add',
        ...counts,
        beforeHash: target.snap.hash,
        afterHash,
        ...modes,
        ...(target.snap.kind === 'file' ? { overwrote: true } : {}),
      }
    case 'delete':
      return {
        path: target.resolved.rel,
        op: 'delete',
        ...counts,
        beforeHash: target.snap.hash,
        afterHash: null,
        ...modes,
      }
    case 'copy':
      return {
        path: target.resolved.rel,
        op: 'copy',
        from: p.from?.resolved.rel ?? op.from,
        ...counts,
        beforeHash: null,
        afterHash,
        ...modes,
      }
    case 'update':
      if (p.moveTo !== undefined) {
        return {
          path: p.moveTo.resolved.rel,
          op: 'move',
          from: target.resolved.rel,
          ...counts,
          beforeHash: target.snap.hash,
          afterHash,
          ...modes,
          ...(p.moveTo.snap.kind === 'file' || p.moveTo.snap.kind === 'symlink'
            ? { overwrote: true }
            : {}),
        }
      }
      return inPlace()
    case 'edits':
      return inPlace()
  }
}

/** modeBefore/modeAfter are reported when the change sets or alters a mode. */
function modeFields(p: PreparedOp): { modeBefore?: FileMode; modeAfter?: FileMode } {
  const { op } = p
  const read = op.kind === 'copy' ? p.from : p.target
  const before = read?.snap.mode
  const requested = op.kind === 'edits' || op.kind === 'delete' ? undefined : op.modeAfter
  if (requested === undefined || requested === before) return {}
  return {
    ...(before === undefined || (op.kind === 'add' && p.target.snap.kind !== 'file')
      ? {}
      : { modeBefore: before }),
    modeAfter: requested,
  }
}

const DEFAULT_PERMISSIONS = 0o644

function permissionsFor(base: number | undefined, mode: FileMode | undefined): number {
  const start = base ?? DEFAULT_PERMISSIONS
  if (mode === undefined) return start
  // Git records only the executable bit: grant x wherever r is granted, or clear all x bits.
  return mode === '100755' ? start | ((start & 0o444) >> 2) : start & ~0o111
}

/** Every symlink the change writes must lead somewhere inside the root (paths.ts). */
async function checkLinkTargets(
  ctx: PathContext,
  prepared: readonly PreparedOp[],
  computed: readonly ComputedFile[],
): Promise<void> {
  for (const [i, p] of prepared.entries()) {
    const after = computed[i]?.after
    if (after === null || after === undefined || !writesLink(p)) continue
    const dest = p.moveTo ?? p.target
    await checkSymlinkTarget(ctx, dest.resolved.abs, after, {
      path: dest.resolved.rel,
      patchLine: p.op.patchLine,
    })
  }
}

function commitStepsFor(rootReal: string, p: PreparedOp, computed: ComputedFile): CommitStep[] {
  const { op, target } = p
  if (p.replaced === true) return [] // the creation that follows replaces the path in one step
  const stateOf = (snap: PreparedOp['target']['snap']) =>
    snap.kind === 'symlink' && snap.hash !== null
      ? { hash: snap.hash, permissions: SYMLINK_PERMISSIONS, kind: 'symlink' as const }
      : snap.kind === 'file' && snap.hash !== null
        ? { hash: snap.hash, permissions: snap.permissions ?? DEFAULT_PERMISSIONS }
        : null
  const link = writesLink(p)
  // The journal names the real path: recovery and undo find the file again without following
  // a symlink the patch went through (an update through link.txt changes real.txt).
  const relOf = (dest: PreparedOp['target']) =>
    path.relative(rootReal, dest.resolved.abs).split(path.sep).join('/')
  const write = (
    dest: PreparedOp['target'],
    bytes: Uint8Array,
    permissions: number,
    before = stateOf(dest.snap),
  ): CommitStep => ({
    kind: 'write',
    abs: dest.resolved.abs,
    rel: relOf(dest),
    bytes,
    permissions: link ? SYMLINK_PERMISSIONS : permissions,
    ...(link ? { symlink: true } : {}),
    before,
  })
  const remove = (dest: PreparedOp['target']): CommitStep => {
    const before = stateOf(dest.snap)
    if (before === null) throw new Error('engine: cannot remove a file that was not read')
    return { kind: 'remove', abs: dest.resolved.abs, rel: relOf(dest), before }
  }
  const after = computed.after
  const modeAfter = op.kind === 'edits' || op.kind === 'delete' ? undefined : op.modeAfter
  if (after === null) return [remove(target)]
  if (p.replaces !== undefined) {
    // A type change: one write replaces what the deletion before it removed.
    return [write(target, after, permissionsFor(undefined, modeAfter), stateOf(p.replaces))]
  }
  switch (op.kind) {
    case 'update':
      if (p.moveTo !== undefined) {
        // Codex order: write the destination first, then remove the source.
        return [
          write(p.moveTo, after, permissionsFor(target.snap.permissions, modeAfter)),
          remove(target),
        ]
      }
      break
    case 'copy':
      return [write(target, after, permissionsFor(p.from?.snap.permissions, modeAfter))]
    case 'add':
    case 'edits':
    case 'delete':
      break
  }
  const permissions = permissionsFor(target.snap.permissions, modeAfter)
  const unchanged =
    target.snap.bytes !== null &&
    (link ? target.snap.kind === 'symlink' : permissions === target.snap.permissions) &&
    sameBytes(target.snap.bytes, after)
  return unchanged ? [] : [write(target, after, permissions)]
}

/** What the journal's log records about a change. */
function summaryOf(files: readonly FileResult[]): TransactionSummary {
  return {
    kind: 'apply',
    files: files.map((f) => ({
      path: f.path,
      op: f.op,
      ...(f.from === undefined ? {} : { from: f.from }),
      additions: f.additions,
      deletions: f.deletions,
    })),
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0
}
