// Printing helpers shared by the benches: medians out of a finished tinybench run, ratios, the
// machine line, markdown tables that paste straight into bench/RESULTS.md, and the figures of
// a replay report two replays must share. Nothing here
// judges a number: benches print, people read (house style section 9).
import { execFileSync } from 'node:child_process'
import { availableParallelism, loadavg } from 'node:os'
import type { Bench } from 'tinybench'

/** Median latency (ms) of a finished task, or NaN if it did not complete (errors print as such). */
export function p50(bench: Bench, name: string): number {
  const result = bench.tasks.find((t) => t.name === name)?.result
  return result?.state === 'completed' ? result.latency.p50 : Number.NaN
}

/** Samples behind a finished task's median, or 0. */
export function samples(bench: Bench, name: string): number {
  const result = bench.tasks.find((t) => t.name === name)?.result
  return result?.state === 'completed' ? result.latency.samplesCount : 0
}

/** The error a task failed with, so a broken task reads as broken rather than fast. */
export function failure(bench: Bench, name: string): string | null {
  const result = bench.tasks.find((t) => t.name === name)?.result
  if (result === undefined || result.state !== 'errored') return null
  return result.error instanceof Error ? result.error.message : String(result.error)
}

/** Milliseconds with precision that suits the size: 0.0123, 1.23, 123. */
export function ms(value: number): string {
  if (Number.isNaN(value)) return 'error'
  const size = Math.abs(value)
  if (size < 0.1) return value.toFixed(4)
  if (size < 10) return value.toFixed(2)
  return value.toFixed(1)
}

export function ratio(value: number, baseline: number): string {
  if (Number.isNaN(value) || Number.isNaN(baseline) || baseline === 0) return '-'
  const r = value / baseline
  return `${r >= 10 ? r.toFixed(0) : r >= 0.01 ? r.toFixed(2) : r.toPrecision(1)}x`
}

export function kib(bytes: number): string {
  return bytes >= 10 * 1024 ? `${(bytes / 1024).toFixed(0)}` : `${(bytes / 1024).toFixed(1)}`
}

export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n')
}

function versionOf(command: string, args: readonly string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8' }).split('\n')[0]?.trim() ?? '?'
  } catch {
    return `${command}: not found`
  }
}

/** One line naming the machine and the load when the bench starts (load > cores means noise). */
export function machineLine(): string {
  const [one, five] = loadavg()
  return [
    `date ${new Date().toISOString()}`,
    `cpus ${availableParallelism()}`,
    `node ${process.version}`,
    versionOf('git', ['--version']),
    versionOf('patch', ['--version']),
    `loadavg 1m ${one?.toFixed(2)} 5m ${five?.toFixed(2)}`,
  ].join(', ')
}

/** The load average now, to print after a table: a table measured under load deserves a re-run. */
export function loadLine(): string {
  const [one] = loadavg()
  return `loadavg 1m at end of table: ${one?.toFixed(2)} (cpus ${availableParallelism()})`
}

/** Prints errored tasks under a table, so a failed command is never mistaken for a fast one. */
export function printFailures(bench: Bench): void {
  for (const task of bench.tasks) {
    const message = failure(bench, task.name)
    if (message !== null) console.log(`\n> task "${task.name}" failed: ${message.split('\n')[0]}`)
  }
}

/** Median of plain samples (a measured loop, not tinybench), or NaN when there are none. */
export function median(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b)
  if (finite.length === 0) return Number.NaN
  const mid = finite.length >> 1
  return finite.length % 2 === 1
    ? (finite[mid] as number)
    : ((finite[mid - 1] as number) + (finite[mid] as number)) / 2
}

export function mib(bytes: number): string {
  if (Number.isNaN(bytes)) return '-'
  const m = bytes / (1024 * 1024)
  return m >= 100 ? m.toFixed(0) : m >= 1 ? m.toFixed(1) : m.toFixed(2)
}

/**
 * A replay report (`--json`) without what two replays of one history may differ in: time,
 * rates, the queue's ranges and the repository's location (a path or a URL).
 */
export function replayFigures(report: Record<string, unknown>): Record<string, unknown> {
  const {
    wallMs: _w,
    commitsPerSecond: _c,
    hunksPerSecond: _h,
    ranges: _r,
    repo: _p,
    ...rest
  } = report
  return rest
}
