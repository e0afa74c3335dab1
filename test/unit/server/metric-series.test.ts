// The hot-path counter and histogram cells: prom-client's bucket rule (a value on a bound counts
// in that bound's bucket), cumulative buckets with +Inf, _sum and _count, as prom-client's own
// Registry renders them beside its own metrics.
import { describe, expect, it } from 'vitest'
import { Counter, Registry } from 'prom-client'
import { CounterFamily, HistogramFamily } from '../../../src/server/metric-series.js'
import { parsePrometheus, samplesOf } from '../../helpers/prometheus.js'

describe('metric series', () => {
  it("render as prom-client's histograms and counters do, in its registry", async () => {
    const registry = new Registry()
    const h = new HistogramFamily('t_wait_seconds', 'Waits.', [0.1, 1], registry)
    const a = h.cell({ lock: 'a' })
    for (const v of [0.05, 0.1, 0.5, 1, 3]) a.observe(v)
    h.cell({ lock: 'b' })
    const c = new CounterFamily('t_calls_total', 'Calls.', registry).cell({ tool: 'x' })
    c.value += 3
    // One of prom-client's own for comparison, in the same registry.
    new Counter({ name: 't_theirs_total', help: 'Theirs.', registers: [registry] }).inc(2)
    const text = await registry.metrics()
    expect(text).toContain('# TYPE t_wait_seconds histogram\n')
    expect(text).toContain('# TYPE t_calls_total counter\n')
    const s = parsePrometheus(text)
    expect(
      samplesOf(s, 't_wait_seconds_bucket', { lock: 'a' }).map((x) => [x.labels['le'], x.value]),
    ).toEqual([
      ['0.1', 2],
      ['1', 4],
      ['+Inf', 5],
    ])
    expect(samplesOf(s, 't_wait_seconds_sum', { lock: 'a' })[0]?.value).toBeCloseTo(4.65, 9)
    expect(samplesOf(s, 't_wait_seconds_count', { lock: 'b' })[0]?.value).toBe(0)
    expect(samplesOf(s, 't_calls_total')).toEqual([
      { name: 't_calls_total', labels: { tool: 'x' }, value: 3 },
    ])
    expect(samplesOf(s, 't_theirs_total')[0]?.value).toBe(2)
    expect((await registry.getMetricsAsJSON()).map((m) => m.name)).toEqual([
      't_wait_seconds',
      't_calls_total',
      't_theirs_total',
    ])
  })

  it('refuses a second metric of the same name in one registry, as prom-client does', () => {
    const registry = new Registry()
    new CounterFamily('t_dup_total', 'One.', registry)
    expect(() => new CounterFamily('t_dup_total', 'Two.', registry)).toThrow(
      /already been registered/,
    )
  })
})
