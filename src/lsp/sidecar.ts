// The pool's bookkeeping shapes: a Server (one session plus what the pool tracks about it), a
// Group (the paths one (adapter, project root) serves in a request), the key joining the two,
// grouping paths by adapter and root, and picking the eviction victim. Deciding when to start,
// evict, retire or stop is the pool's (sidecar-pool.ts).

import { languageIdFor, type LspAdapter } from './adapter.js'
import type { Session, SessionExit, SettledDiagnostics } from './session-types.js'
import type { ServerReport } from './reports.js'

export interface Server {
  readonly key: string
  readonly adapter: LspAdapter
  readonly root: string
  session: Session | undefined
  /** Settles when start() has finished: undefined on success, else the failure report. */
  ready: Promise<ServerReport | undefined>
  started: boolean
  /** Requests using (or starting) this server; a busy server is never evicted. */
  busy: number
  lastUsedMs: number
  /** Over the memory limit while busy: stopped as soon as it is released. */
  retiring: boolean
  /** Stopped by the pool: its exit is not a crash. */
  stopping: boolean
  exit: SessionExit | undefined
  readonly exited: Promise<SessionExit>
  readonly markExited: (exit: SessionExit) => void
  /** Absolute path -> when it was last synced (mirrors the session's open documents). */
  readonly docs: Map<string, number>
}

export interface Group {
  readonly key: string
  readonly adapter: LspAdapter
  readonly root: string
  readonly paths: string[]
}

export type Work = (session: Session, server: Server) => Promise<SettledDiagnostics>

export const keyOf = (adapterId: string, root: string): string => `${adapterId}\u0000${root}`

/** The adapter id and root a key was made of. */
export function placeOfKey(key: string): { readonly adapter: string; readonly root: string } {
  const [adapter = '', root = ''] = key.split('\u0000')
  return { adapter, root }
}

/** Paths grouped by the first adapter that serves them and their project root. */
export function groupPaths(
  paths: readonly string[],
  adapters: readonly LspAdapter[],
  findRoot: (file: string, markers: readonly string[], root: string) => string,
  workspaceRoot: string,
): Group[] {
  const groups = new Map<string, Group>()
  for (const path of new Set(paths)) {
    const adapter = adapters.find((a) => languageIdFor(a, path.replace(/\\/g, '/')) !== undefined)
    if (adapter === undefined) continue // no server serves this file: nothing to report
    const root = findRoot(path, adapter.rootMarkers, workspaceRoot)
    const key = keyOf(adapter.id, root)
    const group = groups.get(key) ?? { key, adapter, root, paths: [] }
    group.paths.push(path)
    groups.set(key, group)
  }
  return [...groups.values()]
}

/** The started, idle server used least recently: the one to evict at the cap. */
export function leastRecentlyUsedIdle(servers: Iterable<Server>): Server | undefined {
  let best: Server | undefined
  for (const server of servers) {
    if (server.busy > 0 || !server.started) continue
    if (best === undefined || server.lastUsedMs < best.lastUsedMs) best = server
  }
  return best
}

/** The session's memory, or undefined when unknown or when asking fails. */
export async function safeRss(session: Session | undefined): Promise<number | undefined> {
  try {
    return await session?.rssBytes()
  } catch {
    return undefined
  }
}
