// What the server remembers between requests, all bounded so a farm of agents cannot grow
// it without end:
// - per agent, the content hash of each file as the agent last saw it (read or wrote): the
//   read-before-write check and the base an edit is rebased from;
// - per agent, its transactions, newest last, for `undo` without a name;
// - per workspace, the bytes of recently seen versions by hash, so an edit made against a version
//   another agent has since changed can be rebased (src/engine/rebase.ts).
// Hashes, never timestamps: a file touched but not changed is not stale.

/** A Map that forgets its least recently used entries beyond a budget. */
class Lru<K, V> {
  readonly #map = new Map<K, V>()
  readonly #budget: number
  readonly #cost: (value: V) => number
  #used = 0

  constructor(budget: number, cost: (value: V) => number) {
    this.#budget = budget
    this.#cost = cost
  }

  get(key: K): V | undefined {
    const value = this.#map.get(key)
    if (value !== undefined) {
      this.#map.delete(key)
      this.#map.set(key, value)
    }
    return value
  }

  set(key: K, value: V): void {
    const old = this.#map.get(key)
    if (old !== undefined) {
      this.#used -= this.#cost(old)
      this.#map.delete(key)
    }
    const cost = this.#cost(value)
    if (cost > this.#budget) return
    this.#map.set(key, value)
    this.#used += cost
    for (const [k, v] of this.#map) {
      if (this.#used <= this.#budget) break
      this.#map.delete(k)
      this.#used -= this.#cost(v)
    }
  }

  delete(key: K): void {
    const old = this.#map.get(key)
    if (old === undefined) return
    this.#used -= this.#cost(old)
    this.#map.delete(key)
  }

  get size(): number {
    return this.#map.size
  }
}

export interface MemoryLimits {
  /** Agents remembered per workspace (least recently active forgotten first). @default 4096 */
  readonly agents?: number
  /** Files remembered per agent. @default 4096 */
  readonly filesPerAgent?: number
  /** Transactions remembered per agent for undo. @default 64 */
  readonly transactionsPerAgent?: number
  /** Bytes of file versions kept per workspace for rebasing. @default 64 MiB */
  readonly versionBytes?: number
}

interface AgentRecord {
  readonly seen: Lru<string, string>
  readonly transactions: string[]
}

/** One workspace's memory. Keys are workspace-relative paths as the engine reports them. */
export class WorkspaceMemory {
  readonly #agents: Lru<string, AgentRecord>
  readonly #versions: Lru<string, string>
  readonly #filesPerAgent: number
  readonly #transactionsPerAgent: number

  constructor(limits: MemoryLimits = {}) {
    this.#agents = new Lru(limits.agents ?? 4096, () => 1)
    this.#versions = new Lru(limits.versionBytes ?? 64 * 1024 * 1024, (text) => text.length * 2)
    this.#filesPerAgent = limits.filesPerAgent ?? 4096
    this.#transactionsPerAgent = limits.transactionsPerAgent ?? 64
  }

  /** The hash `agent` last saw for `path`, or undefined if it never read or wrote it. */
  seen(agent: string, path: string): string | undefined {
    return this.#agents.get(agent)?.seen.get(path)
  }

  /** Records that `agent` has seen `path` at `hash` (null: the file is gone). */
  see(agent: string, path: string, hash: string | null): void {
    const record = this.#record(agent)
    if (hash === null) record.seen.delete(path)
    else record.seen.set(path, hash)
  }

  /** Keeps a version's text for rebasing edits made against it. */
  keepVersion(hash: string, text: string): void {
    this.#versions.set(hash, text)
  }

  version(hash: string): string | undefined {
    return this.#versions.get(hash)
  }

  pushTransaction(agent: string, id: string): void {
    const list = this.#record(agent).transactions
    list.push(id)
    if (list.length > this.#transactionsPerAgent) list.shift()
  }

  /** The agent's newest transaction not yet undone, removed from its list. */
  popTransaction(agent: string): string | undefined {
    return this.#agents.get(agent)?.transactions.pop()
  }

  /** The agent's transactions not yet undone through the server, oldest first (a copy). */
  transactionsOf(agent: string): readonly string[] {
    return [...(this.#agents.get(agent)?.transactions ?? [])]
  }

  /** Drops `id` from the agent's list (it was undone by name). */
  forgetTransaction(agent: string, id: string): void {
    const list = this.#agents.get(agent)?.transactions
    if (list === undefined) return
    const at = list.lastIndexOf(id)
    if (at !== -1) list.splice(at, 1)
  }

  #record(agent: string): AgentRecord {
    let record = this.#agents.get(agent)
    if (record === undefined) {
      record = { seen: new Lru(this.#filesPerAgent, () => 1), transactions: [] }
      this.#agents.set(agent, record)
    }
    return record
  }
}
