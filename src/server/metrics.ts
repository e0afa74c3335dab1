// The serve command's Prometheus metrics, on prom-client with a registry of its own per server
// (two servers in one process do not share or collide). As an observer (observe.ts) it counts
// tool calls by tool and outcome, their latency, admission refusals, lock waits and the journal's
// commit batches, each with a prom-client child bound once per label set, so a call costs a few
// additions and no allocation of ours. What is state rather than event (queues, pools, language
// servers, workspaces open) is read from the service's snapshot when /metrics is scraped.
// Labels are bounded: tool names, error codes, limits, HTTP statuses; never paths or agents.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { CommitBatchStats } from '../journal/records.js'
import type { BusyLimit, ServerObserver, ToolCallRecord } from './observe.js'
import type { ServiceSnapshot } from './service.js'
import { TOOLS, type ToolName } from './tools.js'

export interface MetricsOptions {
  /** Also the process's CPU, memory, event-loop and GC metrics (prom-client's defaults). @default true */
  readonly processMetrics?: boolean
}

const PREFIX = 'patchloom_'
const LATENCY_BUCKETS_S = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10,
]
const WAIT_BUCKETS_S = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5]
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256]

type Child = { inc(value?: number): void }
type Observed = { observe(value: number): void }

export class ServerMetrics implements ServerObserver {
  readonly registry = new Registry()
  readonly #calls: Counter<'tool' | 'outcome'>
  readonly #callChildren = new Map<string, Map<string, Child>>()
  readonly #durations = new Map<string, Observed>()
  readonly #busy: Counter<'limit'>
  readonly #httpRefusals: Counter<'status'>
  readonly #serverLockWait: Observed
  readonly #journalLockWait: Observed
  readonly #batchSize: Histogram
  readonly #committed: Child
  readonly #refused: Child
  readonly #commitTime: Histogram
  readonly #syncTime: Histogram
  readonly #syncs: Counter
  readonly #inProgress: Gauge<'workspace'>
  readonly #workspacesOpen: Gauge
  readonly #languageServers: Gauge<'state'>
  readonly #lspRestarts: Counter<'reason'>
  readonly #lspUnavailable: Gauge
  readonly #workerThreads: Gauge
  readonly #workerThreadsMax: Gauge
  readonly #workerInFlight: Gauge
  readonly #workerQueued: Gauge
  readonly #workerCompleted: Counter
  readonly #workerUtilization: Gauge
  #source: (() => Promise<ServiceSnapshot>) | undefined

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry]
    const name = (n: string): string => `${PREFIX}${n}`
    this.#calls = new Counter({
      name: name('tool_calls_total'),
      help: 'Tool calls the service answered, by tool and outcome (ok, or the error code).',
      labelNames: ['tool', 'outcome'],
      registers,
    })
    const durations = new Histogram({
      name: name('tool_call_duration_seconds'),
      help: 'Wall time of each tool call in the service, admission included, by tool.',
      labelNames: ['tool'],
      buckets: LATENCY_BUCKETS_S,
      registers,
    })
    // Every tool's series exist from the start, so a rate over them is defined before traffic.
    for (const { name: tool } of TOOLS) {
      this.#durations.set(tool, durations.labels(tool))
      durations.zero({ tool })
      this.#callChild(tool, 'ok').inc(0)
    }
    this.#busy = new Counter({
      name: name('busy_refusals_total'),
      help: 'Calls refused for a full queue: SERVER_BUSY (limit total, workspace, agent) or HTTP 429 (limit client).',
      labelNames: ['limit'],
      registers,
    })
    this.#httpRefusals = new Counter({
      name: name('http_refusals_total'),
      help: 'HTTP requests the transport refused before any tool ran, by status (401, 403, 404, 413, 429, ...).',
      labelNames: ['status'],
      registers,
    })
    const lockWait = new Histogram({
      name: name('lock_wait_seconds'),
      help: "Waits for a lock: the server's per-file lock of a JSON-edit transaction (server), the journal's workspace lock, longest of each commit batch (journal).",
      labelNames: ['lock'],
      buckets: WAIT_BUCKETS_S,
      registers,
    })
    this.#serverLockWait = lockWait.labels('server')
    this.#journalLockWait = lockWait.labels('journal')
    this.#batchSize = new Histogram({
      name: name('commit_batch_transactions'),
      help: "Transactions per lock turn of a journal's commit (a commit on its own is a batch of one).",
      buckets: BATCH_BUCKETS,
      registers,
    })
    const transactions = new Counter({
      name: name('commit_transactions_total'),
      help: 'Transactions the journal committed (committed) or refused or rolled back (refused).',
      labelNames: ['result'],
      registers,
    })
    this.#committed = transactions.labels('committed')
    this.#refused = transactions.labels('refused')
    this.#commitTime = new Histogram({
      name: name('commit_duration_seconds'),
      help: "How long each commit batch held the journal's workspace lock.",
      buckets: WAIT_BUCKETS_S,
      registers,
    })
    this.#syncTime = new Histogram({
      name: name('fsync_duration_seconds'),
      help: 'Wall time in fsync calls per commit batch (overlapping calls counted once; 0 with durability fast).',
      buckets: WAIT_BUCKETS_S,
      registers,
    })
    this.#syncs = new Counter({
      name: name('fsyncs_total'),
      help: 'fsync calls the journal made.',
      registers,
    })
    this.#inProgress = new Gauge({
      name: name('requests_in_progress'),
      help: 'Tool calls running or waiting for their turn (the queues SERVER_BUSY bounds), by workspace.',
      labelNames: ['workspace'],
      registers,
    })
    this.#workspacesOpen = new Gauge({
      name: name('workspaces_open'),
      help: 'Workspaces the server has open.',
      registers,
    })
    this.#languageServers = new Gauge({
      name: name('language_servers'),
      help: 'Language servers in the pools of every workspace, by state (starting, ready, broken).',
      labelNames: ['state'],
      registers,
    })
    this.#lspRestarts = new Counter({
      name: name('language_server_restarts_total'),
      help: 'Language servers stopped for a crash or the memory limit (the next request starts a fresh one), by reason.',
      labelNames: ['reason'],
      registers,
    })
    this.#lspUnavailable = new Gauge({
      name: name('language_server_pools_unavailable'),
      help: "Workspaces whose language-server pool's thread is gone (no diagnostics until a restart).",
      registers,
    })
    this.#workerThreads = new Gauge({
      name: name('worker_threads'),
      help: 'Threads of the verification worker pool now.',
      registers,
    })
    this.#workerThreadsMax = new Gauge({
      name: name('worker_threads_max'),
      help: 'Threads the verification worker pool may run.',
      registers,
    })
    this.#workerInFlight = new Gauge({
      name: name('worker_tasks_in_flight'),
      help: 'Verification tasks sent to the worker pool and not yet answered.',
      registers,
    })
    this.#workerQueued = new Gauge({
      name: name('worker_tasks_queued'),
      help: 'Verification tasks waiting for a free worker thread.',
      registers,
    })
    this.#workerCompleted = new Counter({
      name: name('worker_tasks_completed_total'),
      help: 'Verification tasks the worker pool finished.',
      registers,
    })
    this.#workerUtilization = new Gauge({
      name: name('worker_utilization_ratio'),
      help: "The worker pool's busy share of its capacity since it started (Piscina's utilization).",
      registers,
    })
    if (options.processMetrics !== false)
      collectDefaultMetrics({ register: this.registry, prefix: PREFIX })
  }

  /** The service whose state a scrape reads. */
  watch(source: () => Promise<ServiceSnapshot>): void {
    this.#source = source
  }

  get contentType(): string {
    return this.registry.contentType
  }

  /** The metrics in Prometheus's text format, the service's state read now. */
  async text(): Promise<string> {
    if (this.#source !== undefined) this.#record(await this.#source())
    return this.registry.metrics()
  }

  // PERF: on every call (bench/server-costs.bench.ts, the observed service row).
  toolCall(call: ToolCallRecord): void {
    this.#callChild(call.tool, call.outcome).inc()
    this.#durations.get(call.tool)?.observe(call.ms / 1000)
  }

  busy(limit: BusyLimit): void {
    this.#busy.inc({ limit })
  }

  httpRefused(status: number): void {
    this.#httpRefusals.inc({ status: String(status) })
  }

  serverLockWait(ms: number): void {
    this.#serverLockWait.observe(ms / 1000)
  }

  commitBatch(_workspace: string, stats: CommitBatchStats): void {
    this.#journalLockWait.observe(stats.lockWaitMs / 1000)
    this.#batchSize.observe(stats.transactions)
    const committed = stats.transactions - stats.refused
    if (committed > 0) this.#committed.inc(committed)
    if (stats.refused > 0) this.#refused.inc(stats.refused)
    this.#commitTime.observe(stats.commitMs / 1000)
    this.#syncTime.observe(stats.syncMs / 1000)
    if (stats.syncs > 0) this.#syncs.inc(stats.syncs)
  }

  #callChild(tool: ToolName, outcome: string): Child {
    let byOutcome = this.#callChildren.get(tool)
    if (byOutcome === undefined) {
      byOutcome = new Map()
      this.#callChildren.set(tool, byOutcome)
    }
    let child = byOutcome.get(outcome)
    if (child === undefined) {
      child = this.#calls.labels(tool, outcome)
      byOutcome.set(outcome, child)
    }
    return child
  }

  #record(now: ServiceSnapshot): void {
    this.#inProgress.reset()
    for (const [workspace, n] of now.inProgress) this.#inProgress.set({ workspace }, n)
    this.#workspacesOpen.set(now.workspacesOpen)
    const lsp = now.languageServers
    this.#languageServers.set({ state: 'starting' }, lsp.starting)
    this.#languageServers.set({ state: 'ready' }, lsp.ready)
    this.#languageServers.set({ state: 'broken' }, lsp.broken)
    setCounter(this.#lspRestarts, { reason: 'crash' }, lsp.restarts.crash)
    setCounter(this.#lspRestarts, { reason: 'memory' }, lsp.restarts.memory)
    this.#lspUnavailable.set(lsp.poolsUnavailable)
    const workers = now.workers
    this.#workerThreads.set(workers?.threads ?? 0)
    this.#workerThreadsMax.set(workers?.maxThreads ?? 0)
    this.#workerInFlight.set(workers?.tasksInFlight ?? 0)
    this.#workerQueued.set(workers?.queued ?? 0)
    this.#workerCompleted.reset()
    this.#workerCompleted.inc(workers?.completed ?? 0)
    this.#workerUtilization.set(workers?.utilization ?? 0)
  }
}

/** A counter kept elsewhere (the language-server pool's), copied at a scrape. */
function setCounter<T extends string>(
  counter: Counter<T>,
  labels: Partial<Record<T, string>>,
  value: number,
): void {
  counter.remove(labels)
  counter.inc(labels, value)
}
