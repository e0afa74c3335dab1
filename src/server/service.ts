// The edit service behind every transport: many workspaces in one process, each request
// bound to one of them, with bounded queues and a graceful close. Transport-free: mcp.ts and
// `patchloom tools` call it with arguments already checked against the tool schemas. Every
// outcome carries its request id (`request_id`); an observer hears of each call (observe.ts).
import { basename } from 'node:path'
import { WorkerPool, type WorkerPoolStats } from '../threads/worker-pool.js'
import { EditError, errorData } from '../errors.js'
import type { Durability, RecoveryReport } from '../journal/records.js'
import { errorOutcome, type ToolOutcome } from './format.js'
import type { MemoryLimits } from './memory.js'
import type { BusyLimit, ServerObserver } from './observe.js'
import { requestIdSource } from './request-id.js'
import type { ToolName } from './tools.js'
import { failureOutcome, runTool, type ToolSettings } from './run-tool.js'
import { Workspace, type WorkspaceSpec } from './workspace.js'

export interface QueueLimits {
  /** Requests in flight or waiting, per workspace. @default 256 */
  readonly perWorkspace?: number
  /** Requests in flight or waiting, in total. @default 1024 */
  readonly total?: number
  /** Requests in flight or waiting, per agent. @default 16 */
  readonly perAgent?: number
}

export interface ServiceOptions {
  readonly workspaces: readonly { readonly root: string; readonly name?: string }[]
  /** Refuse edits of files the agent has not read (FILE_STALE_READ). @default true */
  readonly readBeforeWrite?: boolean
  /** @default 'full' */
  readonly durability?: Durability
  /** Language-server diagnostics after each write, unless a request turns them off. @default false */
  readonly diagnostics?: boolean
  readonly queue?: QueueLimits
  readonly memory?: MemoryLimits
  /** Share one verification worker pool across workspaces (large patches). @default true */
  readonly workers?: boolean
  /** Told of every call, refusal, lock wait and commit batch (the serve command's metrics, logs). */
  readonly observer?: ServerObserver
}

/**
 * Who is calling: the agent's identity and, when its token binds one, its workspace; and the
 * client's own id for this call, when it sent one (X-Request-Id).
 */
export interface Caller {
  readonly agent: string
  readonly workspace?: string
  readonly requestId?: string
}

/** The service's state now, read when /metrics is scraped and /readyz asked. */
export interface ServiceSnapshot {
  readonly closing: boolean
  /** Every workspace opened and its interrupted commits recovered (or refused). */
  readonly recovered: boolean
  readonly workspacesOpen: number
  /** Requests in flight or waiting for their turn, by workspace (each counted once). */
  readonly inProgress: ReadonlyMap<string, number>
  /** The shared verification pool; undefined when the service runs without one. */
  readonly workers: WorkerPoolStats | undefined
  readonly languageServers: LanguageServersSnapshot
}

/** The language-server pools of every workspace, summed. */
export interface LanguageServersSnapshot {
  readonly starting: number
  readonly ready: number
  readonly broken: number
  readonly restarts: { readonly crash: number; readonly memory: number }
  /** Pools whose thread is gone: their workspaces have no diagnostics until a restart. */
  readonly poolsUnavailable: number
}

export type Readiness =
  { readonly ready: true } | { readonly ready: false; readonly reason: string }

type Args = Readonly<Record<string, unknown>>

const DEFAULT_QUEUE = { perWorkspace: 256, total: 1024, perAgent: 16 }

export class EditService {
  readonly #workspaces: ReadonlyMap<string, Workspace>
  readonly #settings: ToolSettings
  readonly #queue: Required<QueueLimits>
  readonly #pool: WorkerPool | undefined
  readonly #inFlight = new Set<Promise<unknown>>()
  readonly #perWorkspace = new Map<string, number>()
  readonly #perAgent = new Map<string, number>()
  readonly #observer: ServerObserver | undefined
  readonly #nextId = requestIdSource()
  #total = 0
  #closing = false
  #closed: Promise<void> | undefined
  #closedAll = false

  private constructor(
    workspaces: ReadonlyMap<string, Workspace>,
    options: ServiceOptions,
    pool: WorkerPool | undefined,
  ) {
    this.#workspaces = workspaces
    this.#settings = { readBeforeWrite: options.readBeforeWrite ?? true }
    this.#queue = { ...DEFAULT_QUEUE, ...options.queue }
    this.#pool = pool
    this.#observer = options.observer
  }

  /** Opens every workspace (recovering interrupted commits) and the shared worker pool. */
  static async open(options: ServiceOptions): Promise<EditService> {
    if (options.workspaces.length === 0) {
      throw new EditError(
        'CONFIG_INVALID',
        'Invalid option: the server needs at least one workspace root.',
      )
    }
    const specs = specsOf(options.workspaces)
    const pool = options.workers === false ? undefined : new WorkerPool({ minThreads: 0 })
    const settings = {
      durability: options.durability ?? 'full',
      diagnostics: options.diagnostics ?? false,
      ...(options.memory === undefined ? {} : { memory: options.memory }),
      ...(pool === undefined ? {} : { pool }),
      ...(options.observer === undefined ? {} : { observer: options.observer }),
    }
    const opened = new Map<string, Workspace>()
    try {
      for (const spec of specs) opened.set(spec.name, await Workspace.open(spec, settings))
    } catch (error) {
      await Promise.all([...opened.values()].map((w) => w.close()))
      await pool?.close()
      throw error
    }
    return new EditService(opened, options, pool)
  }

  /** Workspace names, roots and what recovery did when each opened, in the order given. */
  get workspaces(): readonly {
    readonly name: string
    readonly root: string
    readonly recovery: RecoveryReport
  }[] {
    return [...this.#workspaces.values()].map((w) => ({
      name: w.name,
      root: w.root,
      recovery: w.recovery,
    }))
  }

  /**
   * Runs one tool call. Never rejects: every failure is an error outcome. Each outcome's
   * structured content carries `request_id`: the caller's, or one made here.
   */
  async call(tool: ToolName, args: Args, caller: Caller): Promise<ToolOutcome> {
    const started = performance.now()
    const requestId = caller.requestId ?? this.#nextId()
    let workspace: Workspace | undefined
    const outcome = await this.#call(tool, args, caller, (w) => (workspace = w))
    this.#observer?.toolCall({
      tool,
      outcome: outcome.ok ? 'ok' : codeOf(outcome),
      ms: performance.now() - started,
      requestId,
      workspace: workspace?.name,
      agent: caller.agent,
    })
    return { ...outcome, structured: { ...outcome.structured, request_id: requestId } }
  }

  async #call(
    tool: ToolName,
    args: Args,
    caller: Caller,
    chosen: (workspace: Workspace) => void,
  ): Promise<ToolOutcome> {
    if (this.#closing) {
      return errorOutcome(
        errorData('SERVER_CLOSING', 'The server is shutting down; nothing was done.'),
      )
    }
    let workspace: Workspace
    try {
      workspace = this.#workspaceFor(args['workspace'], caller)
    } catch (error) {
      return failureOutcome(error)
    }
    chosen(workspace)
    const busy = this.#admit(workspace.name, caller.agent)
    if (busy !== undefined) return errorOutcome(busy)
    const run = runTool(workspace, caller.agent, tool, args, this.#settings)
    this.#inFlight.add(run)
    try {
      return await run
    } finally {
      this.#inFlight.delete(run)
      this.#release(workspace.name, caller.agent)
    }
  }

  /** The service's state now: queues, pools, language servers (one status call per started pool). */
  async snapshot(): Promise<ServiceSnapshot> {
    const workspaces = [...this.#workspaces.values()]
    const statuses = await Promise.all(workspaces.map((w) => w.languageServers()))
    const servers = { starting: 0, ready: 0, broken: 0 }
    const restarts = { crash: 0, memory: 0 }
    let poolsUnavailable = 0
    for (const status of statuses) {
      if (status === undefined) continue
      for (const server of status.servers) servers[server.state]++
      restarts.crash += status.restarts?.crash ?? 0
      restarts.memory += status.restarts?.memory ?? 0
      if (status.unavailable !== undefined) poolsUnavailable++
    }
    return {
      closing: this.#closing,
      recovered: workspaces.every((w) => w.recovered),
      workspacesOpen: this.#closedAll ? 0 : workspaces.length,
      inProgress: new Map(this.#perWorkspace),
      workers: this.#pool?.stats,
      languageServers: { ...servers, restarts, poolsUnavailable },
    }
  }

  /** Ready to take calls: recovered, not draining, every started language-server pool alive. */
  async readiness(): Promise<Readiness> {
    const now = await this.snapshot()
    if (now.closing) return { ready: false, reason: 'draining' }
    if (!now.recovered) return { ready: false, reason: 'recovering' }
    if (now.languageServers.poolsUnavailable > 0)
      return { ready: false, reason: 'language_servers_unavailable' }
    return { ready: true }
  }

  /** Stops taking requests, waits for those in flight, then stops engines and language servers. */
  close(): Promise<void> {
    this.#closing = true
    this.#closed ??= (async () => {
      while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight])
      await Promise.all([...this.#workspaces.values()].map((w) => w.close()))
      await this.#pool?.close()
      this.#closedAll = true
    })()
    return this.#closed
  }

  #workspaceFor(requested: unknown, caller: Caller): Workspace {
    const name = typeof requested === 'string' ? requested : caller.workspace
    if (caller.workspace !== undefined && name !== caller.workspace) {
      throw new EditError(
        'SERVER_WORKSPACE_UNKNOWN',
        `This caller is bound to workspace ${JSON.stringify(caller.workspace)} and may not use ${JSON.stringify(name)}.`,
      )
    }
    if (name === undefined) {
      if (this.#workspaces.size === 1) return [...this.#workspaces.values()][0] as Workspace
      throw new EditError(
        'SERVER_WORKSPACE_UNKNOWN',
        `This server serves ${this.#workspaces.size} workspaces; name one with "workspace": ${this.#names()}.`,
      )
    }
    const workspace = this.#workspaces.get(name)
    if (workspace === undefined) {
      throw new EditError(
        'SERVER_WORKSPACE_UNKNOWN',
        `No workspace ${JSON.stringify(name)}; this server serves ${this.#names()}.`,
      )
    }
    return workspace
  }

  #names(): string {
    return [...this.#workspaces.keys()].map((n) => JSON.stringify(n)).join(', ')
  }

  #admit(workspace: string, agent: string) {
    const inWorkspace = this.#perWorkspace.get(workspace) ?? 0
    const ofAgent = this.#perAgent.get(agent) ?? 0
    const limit: BusyLimit | undefined =
      this.#total >= this.#queue.total
        ? 'total'
        : inWorkspace >= this.#queue.perWorkspace
          ? 'workspace'
          : ofAgent >= this.#queue.perAgent
            ? 'agent'
            : undefined
    if (limit !== undefined) {
      this.#observer?.busy(limit)
      const over =
        limit === 'total'
          ? `the server has ${this.#total} requests in progress (limit ${this.#queue.total})`
          : limit === 'workspace'
            ? `workspace ${workspace} has ${inWorkspace} requests in progress (limit ${this.#queue.perWorkspace})`
            : `this agent has ${ofAgent} requests in progress (limit ${this.#queue.perAgent})`
      return errorData('SERVER_BUSY', `Busy: ${over}; the request was not started.`)
    }
    this.#total++
    this.#perWorkspace.set(workspace, inWorkspace + 1)
    this.#perAgent.set(agent, ofAgent + 1)
    return undefined
  }

  #release(workspace: string, agent: string): void {
    this.#total--
    const inWorkspace = (this.#perWorkspace.get(workspace) ?? 1) - 1
    if (inWorkspace === 0) this.#perWorkspace.delete(workspace)
    else this.#perWorkspace.set(workspace, inWorkspace)
    const ofAgent = (this.#perAgent.get(agent) ?? 1) - 1
    if (ofAgent === 0) this.#perAgent.delete(agent)
    else this.#perAgent.set(agent, ofAgent)
  }
}

function codeOf(outcome: ToolOutcome): string {
  const error = outcome.structured['error'] as { readonly code?: unknown } | undefined
  return typeof error?.code === 'string' ? error.code : 'INTERNAL'
}

function specsOf(roots: ServiceOptions['workspaces']): WorkspaceSpec[] {
  const specs: WorkspaceSpec[] = []
  const names = new Set<string>()
  for (const { root, name } of roots) {
    const base = name ?? (basename(root) || 'root')
    let unique = base
    for (let n = 2; names.has(unique); n++) unique = `${base}-${n}`
    if (name !== undefined && unique !== name) {
      throw new EditError(
        'CONFIG_INVALID',
        `Invalid option: two workspaces are named ${JSON.stringify(name)}.`,
      )
    }
    names.add(unique)
    specs.push({ name: unique, root })
  }
  return specs
}
