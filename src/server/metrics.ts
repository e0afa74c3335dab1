// The serve command's Prometheus metrics, in a prom-client Registry of its own per server (two
// servers in one process do not share or collide). As an observer (observe.ts) it counts tool
// calls by tool and outcome, their latency, admission refusals, lock waits and the journal's
// commit batches in cells of plain numbers found once per label set (metric-series.ts), so a
// call costs a few additions. What is state rather than event (queues, pools, language servers,
// workspaces open) is read from the service's snapshot when /metrics is scraped, into
// prom-client gauges. Labels are bounded: tool names, error codes, limits, HTTP statuses.
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client'
import type { CommitBatchStats } from '../journal/records.js'
import type { BusyLimit, ServerObserver, ToolCallRecord } from './observe.js'
import type { ServiceSnapshot } from './service.js'
import { TOOLS, type ToolName } from './tools.js'
import {
  CounterFamily,
  HistogramFamily,
  type CounterCell,
  type HistogramCell,
} from './metric-series.js'

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

export class ServerMetrics implements ServerObserver {
  readonly registry = new Registry()
  readonly #calls: CounterFamily
  readonly #callCells = new Map<string, Map<string, CounterCell>>()
  readonly #durations = new Map<string, HistogramCell>()
  readonly #busy: CounterFamily
  readonly #busyCells = new Map<BusyLimit, CounterCell>()
  readonly #httpRefusals: CounterFamily
  readonly #httpCells = new Map<number, CounterCell>()
  readonly #serverLockWait: HistogramCell
  readonly #journalLockWait: HistogramCell
  readonly #batchSize: HistogramCell
  readonly #committed: CounterCell
  readonly #refused: CounterCell
  readonly #commitTime: HistogramCell
  readonly #syncTime: HistogramCell
  readonly #syncs: CounterCell
  readonly #inProgress: Gauge<'workspace'>
  readonly #workspacesOpen: Gauge
  readonly #languageServers: Gauge<'state'>
  readonly #lspRestarts: { readonly crash: CounterCell; readonly memory: CounterCell }
  readonly #lspUnavailable: Gauge
  readonly #workerThreads: Gauge
  readonly #workerThreadsMax: Gauge
  readonly #workerInFlight: Gauge
  readonly #workerQueued: Gauge
  readonly #workerCompleted: CounterCell
  readonly #workerUtilization: Gauge
  #source: (() => Promise<ServiceSnapshot>) | undefined

  constructor(options: MetricsOptions = {}) {
    const registry = this.registry
    const registers = [registry]
    const name = (n: string): string => `${PREFIX}${n}`
    this.#calls = new CounterFamily(
      name('tool_calls_total'),
      'Tool calls the service answered, by tool and outcome (ok, or the error code).',
      registry,
    )
    const durations = new HistogramFamily(
      name('tool_call_duration_seconds'),
      'Wall time of each tool call in the service, admission included, by tool.',
      LATENCY_BUCKETS_S,
      registry,
    )
    // Every tool's series exist from the start, so a rate over them is defined before traffic.
    for (const { name: tool } of TOOLS) {
      this.#durations.set(tool, durations.cell({ tool }))
      this.#callCell(tool, 'ok')
    }
    this.#busy = new CounterFamily(
      name('busy_refusals_total'),
      'Calls refused for a full queue: SERVER_BUSY (limit total, workspace, agent) or HTTP 429 (limit client).',
      registry,
    )
    this.#httpRefusals = new CounterFamily(
      name('http_refusals_total'),
      'HTTP requests the transport refused before any tool ran, by status (401, 403, 404, 413, 429, ...).',
      registry,
    )
    const lockWait = new HistogramFamily(
      name('lock_wait_seconds'),
      "Waits for a lock: the server's per-file lock of a JSON-edit transaction (server), the journal's workspace lock, longest of each commit batch (journal).",
      WAIT_BUCKETS_S,
      registry,
    )
    this.#serverLockWait = lockWait.cell({ lock: 'server' })
    this.#journalLockWait = lockWait.cell({ lock: 'journal' })
    this.#batchSize = new HistogramFamily(
      name('commit_batch_transactions'),
      "Transactions per lock turn of a journal's commit (a commit on its own is a batch of one).",
      BATCH_BUCKETS,
      registry,
    ).cell()
    const transactions = new CounterFamily(
      name('commit_transactions_total'),
      'Transactions the journal committed (committed) or refused or rolled back (refused).',
      registry,
    )
    this.#committed = transactions.cell({ result: 'committed' })
    this.#refused = transactions.cell({ result: 'refused' })
    this.#commitTime = new HistogramFamily(
      name('commit_duration_seconds'),
      "How long each commit batch held the journal's workspace lock.",
      WAIT_BUCKETS_S,
      registry,
    ).cell()
    this.#syncTime = new HistogramFamily(
      name('fsync_duration_seconds'),
      'Wall time in fsync calls per commit batch (overlapping calls counted once; 0 with durability fast).',
      WAIT_BUCKETS_S,
      registry,
    ).cell()
    this.#syncs = new CounterFamily(
      name('fsyncs_total'),
      'fsync calls the journal made.',
      registry,
    ).cell()
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
    const restarts = new CounterFamily(
      name('language_server_restarts_total'),
      'Language servers stopped for a crash or the memory limit (the next request starts a fresh one), by reason.',
      registry,
    )
    this.#lspRestarts = {
      crash: restarts.cell({ reason: 'crash' }),
      memory: restarts.cell({ reason: 'memory' }),
    }
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
    this.#workerCompleted = new CounterFamily(
      name('worker_tasks_completed_total'),
      'Verification tasks the worker pool finished.',
      registry,
    ).cell()
    this.#workerUtilization = new Gauge({
      name: name('worker_utilization_ratio'),
      help: "The worker pool's busy share of its capacity since it started (Piscina's utilization).",
      registers,
    })
    if (options.processMetrics !== false)
      collectDefaultMetrics({ register: registry, prefix: PREFIX })
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
    this.#callCell(call.tool, call.outcome).value++
    this.#durations.get(call.tool)?.observe(call.ms / 1000)
  }

  busy(limit: BusyLimit): void {
    let cell = this.#busyCells.get(limit)
    if (cell === undefined) {
      cell = this.#busy.cell({ limit })
      this.#busyCells.set(limit, cell)
    }
    cell.value++
  }

  httpRefused(status: number): void {
    let cell = this.#httpCells.get(status)
    if (cell === undefined) {
      cell = this.#httpRefusals.cell({ status: String(status) })
      this.#httpCells.set(status, cell)
    }
    cell.value++
  }

  serverLockWait(ms: number): void {
    this.#serverLockWait.observe(ms / 1000)
  }

  // PERF: on every commit batch (bench/server-costs.bench.ts, the observed service row).
  commitBatch(_workspace: string, stats: CommitBatchStats): void {
    this.#journalLockWait.observe(stats.lockWaitMs / 1000)
    this.#batchSize.observe(stats.transactions)
    this.#committed.value += stats.transactions - stats.refused
    this.#refused.value += stats.refused
    this.#commitTime.observe(stats.commitMs / 1000)
    this.#syncTime.observe(stats.syncMs / 1000)
    this.#syncs.value += stats.syncs
  }

  #callCell(tool: ToolName, outcome: string): CounterCell {
    let byOutcome = this.#callCells.get(tool)
    if (byOutcome === undefined) {
      byOutcome = new Map()
      this.#callCells.set(tool, byOutcome)
    }
    let cell = byOutcome.get(outcome)
    if (cell === undefined) {
      cell = this.#calls.cell({ tool, outcome })
      byOutcome.set(outcome, cell)
    }
    return cell
  }

  #record(now: ServiceSnapshot): void {
    this.#inProgress.reset()
    for (const [workspace, n] of now.inProgress) this.#inProgress.set({ workspace }, n)
    this.#workspacesOpen.set(now.workspacesOpen)
    const lsp = now.languageServers
    this.#languageServers.set({ state: 'starting' }, lsp.starting)
    this.#languageServers.set({ state: 'ready' }, lsp.ready)
    this.#languageServers.set({ state: 'broken' }, lsp.broken)
    // Counters the pools keep themselves, copied as they are.
    this.#lspRestarts.crash.value = lsp.restarts.crash
    this.#lspRestarts.memory.value = lsp.restarts.memory
    this.#lspUnavailable.set(lsp.poolsUnavailable)
    const workers = now.workers
    this.#workerThreads.set(workers?.threads ?? 0)
    this.#workerThreadsMax.set(workers?.maxThreads ?? 0)
    this.#workerInFlight.set(workers?.tasksInFlight ?? 0)
    this.#workerQueued.set(workers?.queued ?? 0)
    this.#workerCompleted.value = workers?.completed ?? 0
    this.#workerUtilization.set(workers?.utilization ?? 0)
  }
}
