// What every framework adapter shares: a caller's engine bound to the server's workspace layer
// (path sandbox, the agent's memory of what it read, the path locks), and one tool call run the
// server's way (server/run-tool.ts). The workspace is made once per engine, so every adapter
// used on one engine shares one memory: a file viewed through one counts as read for all.
import type { Engine } from '../engine/api.js'
import { EditError } from '../errors.js'
import type { ToolOutcome } from '../server/format.js'
import { failureOutcome, runTool } from '../server/run-tool.js'
import type { ToolName } from '../server/tools.js'
import { Workspace } from '../server/workspace.js'

/** Options every adapter takes. */
export interface AdapterOptions {
  /**
   * Whose memory the calls use: the files this agent has read (read-before-write, rebasing) and
   * its transactions. Give each agent sharing an engine its own name. @default 'agent'
   */
  readonly agent?: string
  /**
   * Refuse an edit of an existing file this agent has not read (or viewed) as it is now, as the
   * MCP server does. @default true (false for the OpenAI adapter: its tool has no read command)
   */
  readonly readBeforeWrite?: boolean
  /**
   * Append the language-server errors each change introduced and resolved to the output the
   * model reads. @default the engine's `diagnostics` option
   */
  readonly diagnostics?: boolean
}

/** An engine bound for one adapter call: its workspace, the agent, the settings. */
export interface Session {
  readonly workspace: Workspace
  readonly agent: string
  readonly readBeforeWrite: boolean
  readonly diagnostics?: boolean
}

const workspaces = new WeakMap<Engine, Promise<Workspace>>()

/** The session for `engine`; rejects with EditError (CONFIG_INVALID) when its root is gone. */
export async function openSession(
  engine: Engine,
  options: AdapterOptions,
  defaultReadBeforeWrite: boolean,
): Promise<Session> {
  let workspace = workspaces.get(engine)
  if (workspace === undefined) {
    workspace = Workspace.over(engine)
    workspaces.set(engine, workspace)
    // A root that failed to open may exist later: the next call tries again.
    workspace.catch(() => workspaces.delete(engine))
  }
  return {
    workspace: await workspace,
    agent: options.agent ?? 'agent',
    readBeforeWrite: options.readBeforeWrite ?? defaultReadBeforeWrite,
    ...(options.diagnostics === undefined ? {} : { diagnostics: options.diagnostics }),
  }
}

/** Runs one of the server's tools in the session. Never rejects. */
export function callTool(
  session: Session,
  tool: ToolName,
  args: Readonly<Record<string, unknown>>,
): Promise<ToolOutcome> {
  const withDiagnostics =
    session.diagnostics === undefined || 'diagnostics' in args || !WRITES.has(tool)
      ? args
      : { ...args, diagnostics: session.diagnostics }
  return runTool(session.workspace, session.agent, tool, withDiagnostics, {
    readBeforeWrite: session.readBeforeWrite,
  })
}

const WRITES: ReadonlySet<ToolName> = new Set([
  'edit_file',
  'multi_edit',
  'apply_patch',
  'write_file',
])

/** Opens the session and runs `run` in it; any EditError becomes an error outcome. */
export async function inSession(
  engine: Engine,
  options: AdapterOptions,
  defaultReadBeforeWrite: boolean,
  run: (session: Session) => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  checkEngine(engine)
  try {
    return await run(await openSession(engine, options, defaultReadBeforeWrite))
  } catch (error) {
    if (error instanceof EditError) return failureOutcome(error)
    throw error
  }
}

/** A programming error, thrown: the first argument is not a patchloom engine. */
export function checkEngine(engine: Engine): void {
  const e = engine as Partial<Engine> | null | undefined
  if (typeof e?.apply !== 'function' || typeof e.root !== 'string') {
    throw new TypeError('patchloom: the first argument must be an engine from createEngine().')
  }
}

// An SDK runs the tool calls of one response at once (Promise.all in the AI SDK's generateText):
// a read and an edit of one file in one step would race (DECISIONS.md D-166).
/** The tail of each agent's calls on each engine: a call starts when the one before it ends. */
const queues = new WeakMap<Engine, Map<string, Promise<unknown>>>()

/** Runs `run` once every earlier call queued for this agent on this engine has settled. */
export function inOrder<T>(engine: Engine, agent: string, run: () => Promise<T>): Promise<T> {
  let byAgent = queues.get(engine)
  if (byAgent === undefined) {
    byAgent = new Map()
    queues.set(engine, byAgent)
  }
  const agents = byAgent
  const result = (agents.get(agent) ?? Promise.resolve()).then(run)
  const tail = result.then(
    () => undefined,
    () => undefined,
  )
  agents.set(agent, tail)
  void tail.then(() => {
    if (agents.get(agent) === tail) agents.delete(agent)
  })
  return result
}
