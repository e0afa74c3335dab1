// The edit service behind every transport: many workspaces in one process, each request
// bound to one of them, with bounded queues and a graceful close. Transport-free: mcp.ts and
// `patchloom tools` call it with arguments already checked against the tool schemas.
import { basename } from 'node:path'
import { WorkerPool } from '../threads/worker-pool.js'
import { EditError, errorData } from '../errors.js'
import type { Durability, RecoveryReport } from '../journal/records.js'
import { errorOutcome, type ToolOutcome } from './format.js'
import type { MemoryLimits } from './memory.js'
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
}

/** Who is calling: the agent's identity and, when its token binds one, its workspace. */
export interface Caller {
  readonly agent: string
  readonly workspace?: string
}

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
  #total = 0
  #closing = false
  #closed: Promise<void> | undefined

  private constructor(
    workspaces: ReadonlyMap<string, Workspace>,
    options: ServiceOptions,
    pool: WorkerPool | undefined,
  ) {
    this.#workspaces = workspaces
    this.#settings = { readBeforeWrite: options.readBeforeWrite ?? true }
    this.#queue = { ...DEFAULT_QUEUE, ...options.queue }
    this.#pool = pool
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

  /** Runs one tool call. Never rejects: every failure is an error outcome. */
  async call(tool: ToolName, args: Args, caller: Caller): Promise<ToolOutcome> {
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

  /** Stops taking requests, waits for those in flight, then stops engines and language servers. */
  close(): Promise<void> {
    this.#closing = true
    this.#closed ??= (async () => {
      while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight])
      await Promise.all([...this.#workspaces.values()].map((w) => w.close()))
      await this.#pool?.close()
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
    const over =
      this.#total >= this.#queue.total
        ? `the server has ${this.#total} requests in progress (limit ${this.#queue.total})`
        : inWorkspace >= this.#queue.perWorkspace
          ? `workspace ${workspace} has ${inWorkspace} requests in progress (limit ${this.#queue.perWorkspace})`
          : ofAgent >= this.#queue.perAgent
            ? `this agent has ${ofAgent} requests in progress (limit ${this.#queue.perAgent})`
            : undefined
    if (over !== undefined)
      return errorData('SERVER_BUSY', `Busy: ${over}; the request was not started.`)
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
