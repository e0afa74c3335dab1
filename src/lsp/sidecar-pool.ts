// SidecarPool: the language servers behind diagnostics, one per (adapter, project root), started
// on first use and kept warm. It owns their lifecycle (cap with LRU eviction of idle servers,
// idle timeout, crash and memory-limit restarts, a broken set with backoff in sidecar-health.ts,
// cached "not installed") and turns their settled results into plain-data reports
// (sidecar-reports.ts). Speaking LSP and deciding when a server has settled is the session's job
// (session.ts); matching before with after is diagnostics.ts's. Runs in the pool's own worker
// thread (host.ts). LSP problems never throw here: they become ServerReports, so an edit never
// fails because of a language server.
import { readFile } from 'node:fs/promises'
import { availableParallelism, totalmem } from 'node:os'
import type { LspAdapter } from './adapter.js'
import type { Baseline, SidecarPoolOptions, PoolServerStatus, PoolStatus } from './client-types.js'
import { compareDiagnostics, toFileDiagnostic, workspaceRelativePath } from './diagnostics.js'
import { resolveCommand } from './find-executable.js'
import { PoolHealth } from './sidecar-health.js'
import {
  groupPaths,
  leastRecentlyUsedIdle,
  placeOfKey,
  safeRss,
  type Group,
  type Server,
  type Work,
} from './sidecar.js'
import {
  crashedReport,
  exitSentence,
  reportOf,
  settledReport,
  unavailableReport,
  type GroupOutcome,
} from './sidecar-reports.js'
import { findProjectRoot } from './root.js'
import { createSession } from './session.js'
import type {
  RawDiagnostic,
  ServerCommand,
  Session,
  SessionExit,
  SessionOptions,
} from './session-types.js'
import type {
  DiagnosticsOptions,
  DiagnosticsReport,
  FileChange,
  FileDiagnostic,
  ServerReport,
  ServerState,
} from './reports.js'

/** What resolving an adapter's start command gives (src/lsp/find-executable.ts). */
export type CommandResolution =
  | { readonly ok: true; readonly command: ServerCommand }
  | { readonly ok: false; readonly lookedFor: readonly string[]; readonly message: string }

/** The pool's collaborators, injectable so its lifecycle is testable with scripted sessions. */
export interface PoolDeps {
  /** The adapters to serve files with (host.ts passes lsp-adapters' registry). */
  readonly adapters: readonly LspAdapter[]
  /** @default createSession from session.ts */
  readonly createSession?: (options: SessionOptions) => Session
  /** @default resolveCommand from find-executable.ts */
  readonly resolveCommand?: (
    adapter: LspAdapter,
    options: { readonly projectRoot: string },
  ) => CommandResolution
  /** @default findProjectRoot from root.ts */
  readonly findProjectRoot?: (file: string, markers: readonly string[], root: string) => string
  /** Reads a file for diagnostics(paths); null when it does not exist. @default fs, UTF-8 */
  readonly readText?: (path: string) => Promise<string | null>
  /** Clock for LRU, idle and backoff decisions. @default Date.now */
  readonly now?: () => number
}

const DEFAULT_IDLE_TIMEOUT_MS = 600_000
const DEFAULT_DOCUMENT_IDLE_MS = 120_000
const DEFAULT_MEMORY_LIMIT_BYTES = 2 * 1024 ** 3
const DEFAULT_DEADLINE_MS = 10_000
const STOP_GRACE_MS = 2_000
const SWEEP_MIN_INTERVAL_MS = 10
const SWEEP_MAX_INTERVAL_MS = 30_000

/** Cap on live servers: two per CPU, one per GiB of memory, at most 16, at least 1. */
export function defaultMaxServers(): number {
  const byMemory = Math.floor(totalmem() / 1024 ** 3)
  return Math.max(1, Math.min(2 * availableParallelism(), byMemory, 16))
}

export class SidecarPool {
  readonly #options: SidecarPoolOptions
  readonly #adapters: readonly LspAdapter[]
  readonly #createSession: (options: SessionOptions) => Session
  readonly #resolveCommand: NonNullable<PoolDeps['resolveCommand']>
  readonly #findRoot: NonNullable<PoolDeps['findProjectRoot']>
  readonly #readText: (path: string) => Promise<string | null>
  readonly #now: () => number
  readonly #maxServers: number
  readonly #idleTimeoutMs: number
  readonly #documentIdleMs: number
  readonly #memoryLimitBytes: number
  readonly #servers = new Map<string, Server>()
  readonly #health: PoolHealth
  /** Last settled diagnostics per absolute path: the before-state of documents with no baseline. */
  readonly #remembered = new Map<string, readonly FileDiagnostic[]>()
  /** Servers stopped by a crash (or a failure mid-request) and by the memory limit. */
  readonly #restarts = { crash: 0, memory: 0 }
  #waiters: (() => void)[] = []
  #sweepTimer: ReturnType<typeof setInterval> | undefined
  #sweeping = false
  #closed = false

  constructor(options: SidecarPoolOptions, deps: PoolDeps) {
    this.#options = options
    const ids = options.adapters
    this.#adapters =
      ids === undefined ? deps.adapters : deps.adapters.filter((a) => ids.includes(a.id))
    this.#createSession = deps.createSession ?? createSession
    this.#resolveCommand = deps.resolveCommand ?? resolveCommand
    this.#findRoot = deps.findProjectRoot ?? findProjectRoot
    this.#readText = deps.readText ?? readTextOrNull
    this.#now = deps.now ?? Date.now
    this.#health = new PoolHealth(this.#now)
    this.#maxServers = Math.max(1, options.maxServers ?? defaultMaxServers())
    this.#idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS
    this.#documentIdleMs = options.documentIdleMs ?? DEFAULT_DOCUMENT_IDLE_MS
    this.#memoryLimitBytes = options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES
    const intervalMs = Math.min(this.#idleTimeoutMs, this.#documentIdleMs) / 2
    this.#sweepTimer = setInterval(
      () => void this.#sweep(),
      Math.min(SWEEP_MAX_INTERVAL_MS, Math.max(SWEEP_MIN_INTERVAL_MS, intervalMs)),
    )
    // The sweep is housekeeping: it must never keep the thread (or a test) alive on its own.
    this.#sweepTimer.unref()
  }

  /** Opens (or re-syncs) files with their before-change text; all severities, by relative path. */
  async baseline(
    files: readonly { readonly path: string; readonly text: string | null }[],
    options: DiagnosticsOptions = {},
  ): Promise<Baseline> {
    this.#assertOpen('baseline')
    const byPath: Record<string, readonly FileDiagnostic[]> = {}
    const texts = new Map(files.map((f) => [f.path, f.text]))
    // A file that does not exist yet has no diagnostics: its before-state is known and empty.
    for (const file of files) if (file.text === null) byPath[this.#rel(file.path)] = []
    const present = files.filter((f) => f.text !== null).map((f) => f.path)
    const outcomes = await this.#runGroups(present, (group) => async (session, server) => {
      const docs = group.paths.map((path) => ({ path, text: texts.get(path) ?? null }))
      this.#sync(server, session, docs)
      return session.diagnostics(group.paths, this.#deadline(options))
    })
    for (const { result } of outcomes) {
      for (const [abs, raws] of result?.byPath ?? []) {
        const converted = this.#convert(abs, raws)
        byPath[this.#rel(abs)] = converted
        this.#remembered.set(abs, converted)
      }
    }
    return { byPath, servers: outcomes.map((o) => o.report) }
  }

  /** Syncs after-texts, saves, waits for settled diagnostics and compares with the baseline. */
  async afterChange(
    changes: readonly FileChange[],
    baseline: Baseline,
    options: DiagnosticsOptions = {},
  ): Promise<DiagnosticsReport> {
    this.#assertOpen('afterChange')
    const after = new Map(changes.map((c) => [c.path, c.after]))
    const created = new Set(changes.filter((c) => c.before === null).map((c) => c.path))
    const outcomes = await this.#runGroups([...after.keys()], (group) => async (s, server) => {
      const docs = group.paths.map((path) => ({
        path,
        text: after.get(path) ?? null,
        ...(created.has(path) ? { created: true } : {}),
      }))
      this.#sync(server, s, docs)
      const present = group.paths.filter((path) => (after.get(path) ?? null) !== null)
      s.save(present)
      return s.diagnostics(present, this.#deadline(options))
    })
    // Before-states: the caller's baseline; for documents it lacks (other open files a pull
    // server re-checked, or a baseline whose server was unavailable), what this pool last saw
    // settle. A new file was empty before. A touched file with no known before-state is compared
    // with itself (all `remaining`: reported, but not blamed on this change); any other
    // document is left out rather than guessed.
    const pairs = new Map<string, { before: readonly FileDiagnostic[]; after: FileDiagnostic[] }>()
    const beforeOf = (abs: string): readonly FileDiagnostic[] | undefined =>
      baseline.byPath[this.#rel(abs)] ??
      this.#remembered.get(abs) ??
      (created.has(abs) ? [] : undefined)
    for (const { result } of outcomes) {
      for (const [abs, raws] of result?.byPath ?? []) {
        const converted = this.#convert(abs, raws)
        const before = beforeOf(abs) ?? (after.has(abs) ? converted : undefined)
        this.#remembered.set(abs, converted)
        if (before !== undefined) pairs.set(abs, { before, after: converted })
      }
    }
    for (const change of changes) {
      if (change.after !== null) continue
      // A deleted file's diagnostics are all resolved, whether or not its server answered.
      const before = beforeOf(change.path)
      this.#remembered.delete(change.path)
      if (before !== undefined) pairs.set(change.path, { before, after: [] })
    }
    const before = [...pairs.values()].flatMap((p) => p.before)
    const afterList = [...pairs.values()].flatMap((p) => p.after)
    return reportOf(compareDiagnostics(before, afterList, options), outcomes)
  }

  /** Files as they are on disk: everything found is `remaining`. */
  async diagnostics(
    paths: readonly string[],
    options: DiagnosticsOptions = {},
  ): Promise<DiagnosticsReport> {
    this.#assertOpen('diagnostics')
    const texts = new Map<string, string>()
    await Promise.all(
      paths.map(async (path) => {
        const text = await this.#readText(path)
        if (text !== null) texts.set(path, text)
      }),
    )
    const outcomes = await this.#runGroups([...texts.keys()], (group) => async (s, server) => {
      this.#sync(
        server,
        s,
        group.paths.map((path) => ({ path, text: texts.get(path) ?? null })),
      )
      return s.diagnostics(group.paths, this.#deadline(options))
    })
    const found: FileDiagnostic[] = []
    for (const { result } of outcomes) {
      for (const [abs, raws] of result?.byPath ?? []) {
        const converted = this.#convert(abs, raws)
        this.#remembered.set(abs, converted)
        if (texts.has(abs)) found.push(...converted)
      }
    }
    // Compared with itself, every diagnostic is `remaining`, filtered and capped the same way.
    return reportOf(compareDiagnostics(found, found, options), outcomes)
  }

  async status(): Promise<PoolStatus> {
    const now = this.#now()
    const live = await Promise.all(
      [...this.#servers.values()].map(async (server): Promise<PoolServerStatus> => {
        const pid = server.session?.pid
        const rssBytes = server.started ? await safeRss(server.session) : undefined
        return {
          adapter: server.adapter.id,
          root: this.#rel(server.root),
          state: server.started ? 'ready' : 'starting',
          ...(pid === undefined ? {} : { pid }),
          ...(rssBytes === undefined ? {} : { rssBytes }),
          openDocuments: server.docs.size,
          lastUsedMsAgo: Math.max(0, now - server.lastUsedMs),
        }
      }),
    )
    const blocked: PoolServerStatus[] = []
    for (const [key, health] of this.#health.entries()) {
      if (health.kind === undefined || this.#servers.has(key)) continue
      const { adapter, root } = placeOfKey(key)
      blocked.push({
        adapter,
        root: this.#rel(root),
        state: 'broken',
        openDocuments: 0,
        lastUsedMsAgo: Math.max(0, now - health.lastTriedMs),
        message: health.message,
        retryInMs: Math.max(0, health.blockedUntilMs - now),
      })
    }
    return { servers: [...live, ...blocked], restarts: { ...this.#restarts } }
  }

  /** Stops every server (each stop has its own grace period) and the housekeeping timer. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    clearInterval(this.#sweepTimer)
    this.#sweepTimer = undefined
    const servers = [...this.#servers.values()]
    this.#servers.clear()
    this.#wake()
    await Promise.all(servers.map((server) => this.#stop(server)))
  }

  // ---- grouping and per-server runs ----

  async #runGroups(
    paths: readonly string[],
    workFor: (group: Group) => Work,
  ): Promise<GroupOutcome[]> {
    const groups = groupPaths(paths, this.#adapters, this.#findRoot, this.#options.workspaceRoot)
    // Groups run side by side; each holds at most one server at a time, so a cap of one
    // server cannot deadlock a request that spans two languages.
    return Promise.all(groups.map((group) => this.#runGroup(group, workFor(group))))
  }

  async #runGroup(group: Group, work: Work): Promise<GroupOutcome> {
    const acquired = await this.#acquire(group)
    if (!('key' in acquired)) return { report: acquired }
    const server = acquired
    const session = server.session as Session
    const startedMs = this.#now()
    try {
      const pending = work(session, server)
      const outcome = await Promise.race([
        pending.then((result) => ({ result })),
        server.exited.then((exit) => ({ exit })),
      ])
      if ('exit' in outcome) {
        pending.catch(() => undefined) // the session may still reject after its process died
        return { report: this.#crashedReport(server, outcome.exit, this.#now() - startedMs) }
      }
      return {
        report: settledReport(this.#options.workspaceRoot, group, outcome.result),
        result: outcome.result,
      }
    } catch (error) {
      // A session that failed mid-request is in an unknown state: drop it, restart on next use.
      if (server.exit === undefined) {
        this.#restarts.crash++
        void this.#retire(server)
      }
      const exit = server.exit ?? { code: null, signal: null, stderrTail: errorMessage(error) }
      return { report: this.#crashedReport(server, exit, this.#now() - startedMs) }
    } finally {
      await this.#release(server)
    }
  }

  /** A started server for the group, marked busy; or the report saying why there is none. */
  async #acquire(group: Group): Promise<Server | ServerReport> {
    for (;;) {
      this.#assertOpen('a request')
      const live = this.#servers.get(group.key)
      if (live !== undefined && !live.retiring) {
        live.busy += 1
        live.lastUsedMs = this.#now()
        const failure = await live.ready
        if (failure === undefined && live.exit === undefined) return live
        live.busy -= 1
        if (failure !== undefined) return failure
        continue // it crashed between starting and this request: start a fresh one
      }
      const blocked = this.#blockedReport(group)
      if (blocked !== undefined) return blocked
      if (live === undefined && this.#servers.size < this.#maxServers) return this.#launch(group)
      const victim = leastRecentlyUsedIdle(this.#servers.values())
      if (live === undefined && victim !== undefined) await this.#retire(victim)
      else await this.#changed()
    }
  }

  /** Creates and starts a server for the group; the caller's request holds it busy. */
  async #launch(group: Group): Promise<Server | ServerReport> {
    const override = this.#options.commandOverrides?.[group.adapter.id]
    const resolved: CommandResolution =
      override === undefined
        ? this.#resolveCommand(group.adapter, { projectRoot: group.root })
        : { ok: true, command: { command: override.command, args: override.args } }
    if (!resolved.ok) return this.#notInstalled(group, resolved.message)
    let markExited: (exit: SessionExit) => void = () => undefined
    const exited = new Promise<SessionExit>((resolve) => (markExited = resolve))
    const server: Server = {
      key: group.key,
      adapter: group.adapter,
      root: group.root,
      session: undefined,
      ready: Promise.resolve(undefined),
      started: false,
      busy: 1,
      lastUsedMs: this.#now(),
      retiring: false,
      stopping: false,
      exit: undefined,
      exited,
      markExited,
      docs: new Map(),
    }
    this.#servers.set(group.key, server)
    server.ready = this.#start(server, resolved.command)
    const failure = await server.ready
    if (failure === undefined) return server
    server.busy -= 1
    return failure
  }

  async #start(server: Server, command: ServerCommand): Promise<ServerReport | undefined> {
    try {
      const session = this.#createSession({
        adapter: server.adapter,
        root: server.root,
        command,
        onExit: (exit) => this.#onExit(server, exit),
      })
      server.session = session
      const starting = session.start()
      starting.catch(() => undefined) // when the exit wins the race, the rejection is expected
      const outcome = await Promise.race([starting, server.exited.then((exit) => ({ exit }))])
      if (outcome !== undefined) throw new Error(exitSentence(outcome.exit))
      server.started = true
      this.#health.started(server.key)
      return undefined
    } catch (error) {
      this.#forget(server)
      server.stopping = true
      await server.session?.stop(STOP_GRACE_MS)
      return this.#startFailed(server, errorMessage(error))
    }
  }

  async #release(server: Server): Promise<void> {
    server.busy -= 1
    server.lastUsedMs = this.#now()
    if (server.busy === 0 && server.exit === undefined && !server.stopping) {
      await this.#checkMemory(server)
    }
    // Stopping happens in the background: the server is already out of the map, so the next
    // request starts a fresh one instead of waiting for this one's shutdown.
    if (server.busy === 0 && server.retiring) void this.#retire(server)
    this.#wake()
  }

  async #checkMemory(server: Server): Promise<void> {
    const rss = await safeRss(server.session)
    if (rss !== undefined && rss > this.#memoryLimitBytes && !server.retiring) {
      server.retiring = true
      this.#restarts.memory++
    }
  }

  #onExit(server: Server, exit: SessionExit): void {
    if (server.stopping || server.exit !== undefined) return
    this.#restarts.crash++
    server.exit = exit
    this.#forget(server)
    server.markExited(exit)
    this.#wake()
  }

  /** Stops a server the pool no longer wants (evicted, idle, over memory, failed). */
  async #retire(server: Server): Promise<void> {
    this.#forget(server)
    await this.#stop(server)
    this.#wake()
  }

  async #stop(server: Server): Promise<void> {
    server.stopping = true
    // A server still starting is stopped too: its start then fails and #start cleans up.
    await server.session?.stop(STOP_GRACE_MS)
  }

  #forget(server: Server): void {
    if (this.#servers.get(server.key) === server) this.#servers.delete(server.key)
  }

  /** Resolves when a server is released, stopped or dropped: the moment to re-check the cap. */
  #changed(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve))
  }

  #wake(): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const wake of waiters) wake()
  }

  // ---- documents, housekeeping ----

  #sync(
    server: Server,
    session: Session,
    docs: readonly {
      readonly path: string
      readonly text: string | null
      readonly created?: boolean
    }[],
  ): void {
    const now = this.#now()
    for (const doc of docs) {
      if (doc.text === null) server.docs.delete(doc.path)
      else server.docs.set(doc.path, now)
    }
    session.sync(docs)
  }

  async #sweep(): Promise<void> {
    if (this.#sweeping || this.#closed) return
    this.#sweeping = true
    try {
      const now = this.#now()
      for (const server of [...this.#servers.values()]) {
        if (!server.started || server.busy > 0 || server.session === undefined) continue
        if (now - server.lastUsedMs >= this.#idleTimeoutMs) {
          await this.#retire(server)
          continue
        }
        server.session.closeIdle(this.#documentIdleMs)
        for (const [path, touchedMs] of server.docs) {
          if (now - touchedMs >= this.#documentIdleMs) server.docs.delete(path)
        }
        await this.#checkMemory(server)
        if (server.retiring && server.busy === 0) await this.#retire(server)
      }
    } finally {
      this.#sweeping = false
    }
  }

  // ---- health and reports ----

  #blockedReport(group: Group): ServerReport | undefined {
    const blocked = this.#health.blocked(group.key)
    return blocked === undefined
      ? undefined
      : this.#unavailable(group, blocked.state, blocked.message)
  }

  #startFailed(server: Server, reason: string): ServerReport {
    const where = `${server.adapter.name} for ${this.#rel(server.root)}`
    const failed = this.#health.startFailed(server.key, where, reason)
    return this.#unavailable(server, failed.state, failed.message)
  }

  #notInstalled(group: Group, message: string): ServerReport {
    this.#health.notInstalled(group.key, message)
    return this.#unavailable(group, 'not-installed', message)
  }

  #unavailable(
    where: Group | Server,
    state: Exclude<ServerState, 'ready'>,
    message: string,
  ): ServerReport {
    return unavailableReport(this.#options.workspaceRoot, where, state, message)
  }

  #crashedReport(server: Server, exit: SessionExit, waitedMs: number): ServerReport {
    return crashedReport(this.#options.workspaceRoot, server, exit, waitedMs)
  }

  #convert(abs: string, raws: readonly RawDiagnostic[]): FileDiagnostic[] {
    return raws.map((raw) => toFileDiagnostic(raw, abs, this.#options.workspaceRoot))
  }

  #rel(abs: string): string {
    return workspaceRelativePath(abs, this.#options.workspaceRoot)
  }

  #deadline(options: DiagnosticsOptions): number {
    return options.deadlineMs ?? DEFAULT_DEADLINE_MS
  }

  #assertOpen(what: string): void {
    if (this.#closed) throw new Error(`SidecarPool: cannot run ${what} after close`)
  }
}

async function readTextOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8')
  } catch {
    return null
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
