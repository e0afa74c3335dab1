// Counters and histograms for the hot path of the server's metrics (metrics.ts): each label set
// is a cell of plain numbers that a call adds to, with no allocation, no label hashing and no
// float-to-string bucket keys; prom-client's Registry reads the cells only when scraped, through
// the interface it reads its own metrics by (name, help, type, get), and renders them, so the
// exposition format is prom-client's. Gauges and scrape-time values stay prom-client's own.
import type { Metric, Registry } from 'prom-client'

type Labels = Readonly<Record<string, string>>

/** What prom-client's Registry reads from a metric at a scrape. */
interface Exported {
  readonly name: string
  readonly help: string
  readonly type: 'counter' | 'histogram'
  readonly aggregator: 'sum'
  get(): Promise<{
    name: string
    help: string
    type: 'counter' | 'histogram'
    aggregator: 'sum'
    values: { labels: Labels; value: number; metricName?: string }[]
  }>
  reset(): void
}

export class CounterCell {
  value = 0
}

export class HistogramCell {
  /** Observations per bucket (not cumulative); the last one is above every bound. */
  readonly counts: Float64Array
  sum = 0
  count = 0
  readonly #bounds: readonly number[]

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds
    this.counts = new Float64Array(bounds.length + 1)
  }

  /** Counts `value` in the first bucket whose bound is at least `value`, as prom-client does. */
  observe(value: number): void {
    const bounds = this.#bounds
    let i = 0
    while (i < bounds.length && value > (bounds[i] as number)) i++
    this.counts[i] = (this.counts[i] as number) + 1
    this.sum += value
    this.count++
  }
}

abstract class Family<Cell> implements Exported {
  readonly name: string
  readonly help: string
  abstract readonly type: 'counter' | 'histogram'
  readonly aggregator = 'sum' as const
  protected readonly cells: { readonly labels: Labels; readonly cell: Cell }[] = []

  constructor(name: string, help: string, registry: Registry) {
    this.name = name
    this.help = help
    // The Registry takes any object it can read this way; its types name only its own classes.
    registry.registerMetric(this as unknown as Metric)
  }

  /** A new series with these labels (the caller keeps it: there is no lookup by labels here). */
  cell(labels: Labels = {}): Cell {
    const cell = this.make()
    this.cells.push({ labels, cell })
    return cell
  }

  reset(): void {
    this.cells.length = 0
  }

  async get() {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: this.values(),
    }
  }

  protected abstract make(): Cell
  protected abstract values(): { labels: Labels; value: number; metricName?: string }[]
}

export class CounterFamily extends Family<CounterCell> {
  readonly type = 'counter' as const

  protected make(): CounterCell {
    return new CounterCell()
  }

  protected values() {
    return this.cells.map(({ labels, cell }) => ({ labels, value: cell.value }))
  }
}

export class HistogramFamily extends Family<HistogramCell> {
  readonly type = 'histogram' as const
  readonly #bounds: readonly number[]

  constructor(name: string, help: string, bounds: readonly number[], registry: Registry) {
    super(name, help, registry)
    this.#bounds = bounds
  }

  protected make(): HistogramCell {
    return new HistogramCell(this.#bounds)
  }

  protected values() {
    const out: { labels: Labels; value: number; metricName: string }[] = []
    for (const { labels, cell } of this.cells) {
      let below = 0
      this.#bounds.forEach((bound, i) => {
        below += cell.counts[i] as number
        out.push({
          labels: { ...labels, le: String(bound) },
          value: below,
          metricName: `${this.name}_bucket`,
        })
      })
      out.push(
        { labels: { ...labels, le: '+Inf' }, value: cell.count, metricName: `${this.name}_bucket` },
        { labels, value: cell.sum, metricName: `${this.name}_sum` },
        { labels, value: cell.count, metricName: `${this.name}_count` },
      )
    }
    return out
  }
}
