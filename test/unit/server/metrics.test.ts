// ServerMetrics on its own: the events it is told of come out of its Prometheus text as counts,
// histograms and gauges with bounded labels, a scrape reads the service's state, and two of them
// live in one process without sharing a series. The server under load is test/e2e/serve-observability.test.ts.
import { describe, expect, it } from 'vitest'
import { ServerMetrics } from '../../../src/server/metrics.js'
import type { ServiceSnapshot } from '../../../src/server/service.js'
import type { ToolCallRecord } from '../../../src/server/observe.js'
import { parsePrometheus, samplesOf, sumOf } from '../../helpers/prometheus.js'

const call = (tool: ToolCallRecord['tool'], outcome: string, ms: number): ToolCallRecord => ({
  tool,
  outcome,
  ms,
  requestId: 'r-1',
  workspace: 'app',
  agent: 'agent-a',
})

const idle: ServiceSnapshot = {
  closing: false,
  recovered: true,
  workspacesOpen: 2,
  inProgress: new Map([['app', 3]]),
  workers: {
    threads: 1,
    maxThreads: 2,
    tasksInFlight: 1,
    queued: 4,
    completed: 17,
    utilization: 0.25,
  },
  languageServers: {
    starting: 1,
    ready: 2,
    broken: 0,
    restarts: { crash: 3, memory: 1 },
    poolsUnavailable: 0,
  },
}

async function scrape(metrics: ServerMetrics) {
  return parsePrometheus(await metrics.text())
}

describe('ServerMetrics', () => {
  it('counts tool calls by tool and outcome, with a latency histogram per tool', async () => {
    const metrics = new ServerMetrics({ processMetrics: false })
    metrics.toolCall(call('read_file', 'ok', 0.3))
    metrics.toolCall(call('read_file', 'ok', 4))
    metrics.toolCall(call('read_file', 'FILE_NOT_FOUND', 0.2))
    metrics.toolCall(call('edit_file', 'FILE_HASH_MISMATCH', 30))
    const s = await scrape(metrics)
    const calls = 'patchloom_tool_calls_total'
    expect(sumOf(s, calls, { tool: 'read_file', outcome: 'ok' })).toBe(2)
    expect(sumOf(s, calls, { tool: 'read_file', outcome: 'FILE_NOT_FOUND' })).toBe(1)
    expect(sumOf(s, calls, { tool: 'edit_file', outcome: 'FILE_HASH_MISMATCH' })).toBe(1)
    // Every tool's ok series exists before its first call.
    expect(samplesOf(s, calls, { tool: 'undo', outcome: 'ok' })).toEqual([
      { name: calls, labels: { tool: 'undo', outcome: 'ok' }, value: 0 },
    ])
    const h = 'patchloom_tool_call_duration_seconds'
    expect(sumOf(s, `${h}_count`, { tool: 'read_file' })).toBe(3)
    expect(sumOf(s, `${h}_sum`, { tool: 'read_file' })).toBeCloseTo(0.0045, 9)
    expect(sumOf(s, `${h}_bucket`, { tool: 'read_file', le: '0.0005' })).toBe(2)
    expect(sumOf(s, `${h}_bucket`, { tool: 'read_file', le: '0.005' })).toBe(3)
    expect(sumOf(s, `${h}_bucket`, { tool: 'edit_file', le: '0.025' })).toBe(0)
    expect(sumOf(s, `${h}_bucket`, { tool: 'edit_file', le: '0.05' })).toBe(1)
    expect(sumOf(s, `${h}_bucket`, { tool: 'edit_file', le: '+Inf' })).toBe(1)
    // Labels are the tool and the outcome only: no agent, path or request id.
    for (const sample of samplesOf(s, calls)) {
      expect(Object.keys(sample.labels).sort()).toEqual(['outcome', 'tool'])
    }
  })

  it("records the journal's commit batches and both lock waits", async () => {
    const metrics = new ServerMetrics({ processMetrics: false })
    metrics.commitBatch('app', {
      transactions: 5,
      refused: 1,
      lockWaitMs: 2,
      commitMs: 3,
      syncMs: 1.5,
      syncs: 2,
    })
    metrics.commitBatch('app', {
      transactions: 1,
      refused: 0,
      lockWaitMs: 0,
      commitMs: 0.4,
      syncMs: 0,
      syncs: 0,
    })
    metrics.serverLockWait(0.05)
    const s = await scrape(metrics)
    expect(sumOf(s, 'patchloom_commit_batch_transactions_count')).toBe(2)
    expect(sumOf(s, 'patchloom_commit_batch_transactions_sum')).toBe(6)
    expect(sumOf(s, 'patchloom_commit_batch_transactions_bucket', { le: '1' })).toBe(1)
    expect(sumOf(s, 'patchloom_commit_batch_transactions_bucket', { le: '8' })).toBe(2)
    expect(sumOf(s, 'patchloom_commit_transactions_total', { result: 'committed' })).toBe(5)
    expect(sumOf(s, 'patchloom_commit_transactions_total', { result: 'refused' })).toBe(1)
    expect(sumOf(s, 'patchloom_commit_duration_seconds_sum')).toBeCloseTo(0.0034, 9)
    expect(sumOf(s, 'patchloom_fsync_duration_seconds_sum')).toBeCloseTo(0.0015, 9)
    expect(sumOf(s, 'patchloom_fsync_duration_seconds_count')).toBe(2)
    expect(sumOf(s, 'patchloom_fsyncs_total')).toBe(2)
    expect(sumOf(s, 'patchloom_lock_wait_seconds_count', { lock: 'journal' })).toBe(2)
    expect(sumOf(s, 'patchloom_lock_wait_seconds_sum', { lock: 'journal' })).toBeCloseTo(0.002, 9)
    expect(sumOf(s, 'patchloom_lock_wait_seconds_count', { lock: 'server' })).toBe(1)
    expect(sumOf(s, 'patchloom_lock_wait_seconds_bucket', { lock: 'server', le: '0.0001' })).toBe(1)
  })

  it('counts refusals by the limit that refused and by HTTP status', async () => {
    const metrics = new ServerMetrics({ processMetrics: false })
    metrics.busy('agent')
    metrics.busy('agent')
    metrics.busy('client')
    metrics.httpRefused(401)
    metrics.httpRefused(429)
    const s = await scrape(metrics)
    expect(sumOf(s, 'patchloom_busy_refusals_total', { limit: 'agent' })).toBe(2)
    expect(sumOf(s, 'patchloom_busy_refusals_total', { limit: 'client' })).toBe(1)
    expect(sumOf(s, 'patchloom_busy_refusals_total', { limit: 'total' })).toBe(0)
    expect(sumOf(s, 'patchloom_http_refusals_total', { status: '401' })).toBe(1)
    expect(sumOf(s, 'patchloom_http_refusals_total', { status: '429' })).toBe(1)
  })

  it("reads the service's state at each scrape, counters copied and gauges set", async () => {
    const metrics = new ServerMetrics({ processMetrics: false })
    let now = idle
    metrics.watch(async () => now)
    let s = await scrape(metrics)
    expect(sumOf(s, 'patchloom_workspaces_open')).toBe(2)
    expect(sumOf(s, 'patchloom_requests_in_progress', { workspace: 'app' })).toBe(3)
    expect(sumOf(s, 'patchloom_language_servers', { state: 'starting' })).toBe(1)
    expect(sumOf(s, 'patchloom_language_servers', { state: 'ready' })).toBe(2)
    expect(sumOf(s, 'patchloom_language_servers', { state: 'broken' })).toBe(0)
    expect(sumOf(s, 'patchloom_language_server_restarts_total', { reason: 'crash' })).toBe(3)
    expect(sumOf(s, 'patchloom_language_server_restarts_total', { reason: 'memory' })).toBe(1)
    expect(sumOf(s, 'patchloom_language_server_pools_unavailable')).toBe(0)
    expect(sumOf(s, 'patchloom_worker_threads')).toBe(1)
    expect(sumOf(s, 'patchloom_worker_threads_max')).toBe(2)
    expect(sumOf(s, 'patchloom_worker_tasks_in_flight')).toBe(1)
    expect(sumOf(s, 'patchloom_worker_tasks_queued')).toBe(4)
    expect(sumOf(s, 'patchloom_worker_tasks_completed_total')).toBe(17)
    expect(sumOf(s, 'patchloom_worker_utilization_ratio')).toBe(0.25)
    now = {
      ...idle,
      workspacesOpen: 0,
      inProgress: new Map(),
      workers: undefined,
      languageServers: { ...idle.languageServers, restarts: { crash: 4, memory: 1 } },
    }
    s = await scrape(metrics)
    // A workspace with nothing in progress has no series left, not a stale one.
    expect(samplesOf(s, 'patchloom_requests_in_progress')).toEqual([])
    expect(sumOf(s, 'patchloom_workspaces_open')).toBe(0)
    expect(sumOf(s, 'patchloom_language_server_restarts_total', { reason: 'crash' })).toBe(4)
    expect(sumOf(s, 'patchloom_worker_threads')).toBe(0)
    expect(sumOf(s, 'patchloom_worker_tasks_completed_total')).toBe(0)
  })

  it('keeps two servers in one process apart, process metrics and all', async () => {
    const one = new ServerMetrics()
    const two = new ServerMetrics()
    one.toolCall(call('write_file', 'ok', 1))
    const [a, b] = await Promise.all([scrape(one), scrape(two)])
    expect(sumOf(a, 'patchloom_tool_calls_total', { tool: 'write_file', outcome: 'ok' })).toBe(1)
    expect(sumOf(b, 'patchloom_tool_calls_total', { tool: 'write_file', outcome: 'ok' })).toBe(0)
    expect(samplesOf(a, 'patchloom_process_cpu_seconds_total')).toHaveLength(1)
    expect(samplesOf(b, 'patchloom_process_cpu_seconds_total')).toHaveLength(1)
    expect(one.contentType).toMatch(/^text\/plain; version=0\.0\.4/)
    // Every name carries the prefix.
    for (const sample of a) expect(sample.name).toMatch(/^patchloom_/)
  })
})
