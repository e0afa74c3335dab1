// Why the pool will not start a server for an (adapter, project root) right now: repeated start
// failures (broken) or no executable (not installed), each blocked with a backoff that doubles
// up to BACKOFF_MAX_MS while the same cause repeats. Keys are the pool's; starting, stopping and
// the reports built from these states are the pool's (sidecar-pool.ts, sidecar-reports.ts).

/** Consecutive failed starts after which an (adapter, root) is marked broken. */
export const START_FAILURES_BEFORE_BROKEN = 3
/** First retry delay for broken and not-installed servers; doubles up to BACKOFF_MAX_MS. */
export const BACKOFF_START_MS = 30_000
export const BACKOFF_MAX_MS = 600_000

/** Why an (adapter, root) is not started: repeated start failures, or no executable. */
export interface Health {
  failures: number
  kind: 'broken' | 'not-installed' | undefined
  backoffMs: number
  blockedUntilMs: number
  lastTriedMs: number
  message: string
}

/** Start failures and backoff per server key. */
export class PoolHealth {
  readonly #health = new Map<string, Health>()
  readonly #now: () => number

  constructor(now: () => number) {
    this.#now = now
  }

  /** The unavailable state and message while `key` is blocked; undefined when it may start. */
  blocked(
    key: string,
  ): { readonly state: 'broken' | 'not-installed'; readonly message: string } | undefined {
    const health = this.#health.get(key)
    if (health?.kind === undefined || this.#now() >= health.blockedUntilMs) return undefined
    const retryInS = Math.ceil((health.blockedUntilMs - this.#now()) / 1000)
    return { state: health.kind, message: `${health.message} (next try in ${retryInS} s)` }
  }

  /** Counts a failed start of `where` (adapter name and root); broken after too many in a row. */
  startFailed(
    key: string,
    where: string,
    reason: string,
  ): { readonly state: 'start-failed' | 'broken'; readonly message: string } {
    const health = this.#healthOf(key)
    health.failures += 1
    health.lastTriedMs = this.#now()
    if (health.failures < START_FAILURES_BEFORE_BROKEN) {
      health.message = `${where} failed to start: ${reason}`
      return { state: 'start-failed', message: health.message }
    }
    this.#block(health, 'broken')
    health.message = `${where} is marked broken after ${health.failures} failed starts in a row: ${reason}`
    return { state: 'broken', message: health.message }
  }

  notInstalled(key: string, message: string): void {
    const health = this.#healthOf(key)
    health.lastTriedMs = this.#now()
    this.#block(health, 'not-installed')
    health.message = message
  }

  /** A successful start clears the record. */
  started(key: string): void {
    this.#health.delete(key)
  }

  /** Every recorded key with its health, in the order first recorded. */
  entries(): IterableIterator<[string, Readonly<Health>]> {
    return this.#health.entries()
  }

  #block(health: Health, kind: 'broken' | 'not-installed'): void {
    health.backoffMs =
      health.kind === kind ? Math.min(BACKOFF_MAX_MS, health.backoffMs * 2) : BACKOFF_START_MS
    health.kind = kind
    health.blockedUntilMs = this.#now() + health.backoffMs
  }

  #healthOf(key: string): Health {
    let health = this.#health.get(key)
    if (health === undefined) {
      health = {
        failures: 0,
        kind: undefined,
        backoffMs: 0,
        blockedUntilMs: 0,
        lastTriedMs: 0,
        message: '',
      }
      this.#health.set(key, health)
    }
    return health
  }
}
