// The distributed replay's ranges and their merge, pure. A repository's first-parent history
// (oldest first) is cut into ranges of about `size` commits; each range is a git range `A..B`
// whose replay starts from the tree of A, the commit before the range's first (the first range
// starts where the user's range starts). Replaying the ranges one by one visits exactly the
// commits, in order, that one replay of the whole range visits, so their reports add up to its
// report: mergeReports does that sum.
import { EditError } from '../errors.js'
import type { ReplayReport } from '../replay/replay.js'

export interface RangeJobSpec {
  /** 0-based position of the range in the repository's history. */
  readonly index: number
  /** The git range a worker replays: `A..B`, or `B` alone for a range from the root. */
  readonly range: string
  readonly first: string
  readonly last: string
  readonly commits: number
}

export const MAX_RANGE_COMMITS = 1_000_000

/**
 * Cuts `commits` (first-parent, oldest first, as firstParentCommits gives them) into ranges of
 * `size` commits (the last may be shorter). `base` is where the user's range starts (the A of
 * `A..B`), null for a history from the root.
 */
export function splitRange(
  commits: readonly string[],
  base: string | null,
  size: number,
): RangeJobSpec[] {
  if (!Number.isInteger(size) || size < 1 || size > MAX_RANGE_COMMITS) {
    throw new EditError(
      'CONFIG_INVALID',
      `Invalid option: --split commits=N takes a whole number from 1 to ${MAX_RANGE_COMMITS}; got ${String(size)}.`,
    )
  }
  const out: RangeJobSpec[] = []
  for (let start = 0; start < commits.length; start += size) {
    const chunk = commits.slice(start, start + size)
    const first = chunk[0] as string
    const last = chunk[chunk.length - 1] as string
    const from = start === 0 ? base : (commits[start - 1] as string)
    out.push({
      index: out.length,
      range: from === null ? last : `${from}..${last}`,
      first,
      last,
      commits: chunk.length,
    })
  }
  return out
}

/** The base of a user's range: A of `A..B`, or null for one revision (its history from the root). */
export function rangeBase(range: string): string | null {
  if (range.includes('...')) {
    throw new EditError(
      'CONFIG_INVALID',
      `The range ${JSON.stringify(range)} is a symmetric difference (A...B); a replay takes one revision or A..B.`,
    )
  }
  const at = range.indexOf('..')
  if (at === -1) return null
  const base = range.slice(0, at)
  return base === '' ? 'HEAD' : base
}

/**
 * The reports of a history's ranges, in range order, summed into the report one replay of the
 * whole range gives; `wallMs` is the whole run's.
 */
export function mergeReports(
  whole: { readonly repo: string; readonly range: string; readonly via: ReplayReport['via'] },
  parts: readonly ReplayReport[],
  wallMs: number,
): ReplayReport {
  const sum = (pick: (r: ReplayReport) => number): number =>
    parts.reduce((total, r) => total + pick(r), 0)
  const counts = (pick: (r: ReplayReport) => Readonly<Record<string, number>>) => {
    const out: Record<string, number> = {}
    for (const r of parts)
      for (const [key, n] of Object.entries(pick(r))) out[key] = (out[key] ?? 0) + n
    return out
  }
  for (const r of parts) {
    if (r.via !== whole.via)
      throw new Error(`mergeReports: a range was replayed via ${r.via}, not ${whole.via}`)
  }
  return {
    repo: whole.repo,
    range: whole.range,
    via: whole.via,
    commits: sum((r) => r.commits),
    exactCommits: sum((r) => r.exactCommits),
    files: sum((r) => r.files),
    hunks: sum((r) => r.hunks),
    bytes: sum((r) => r.bytes),
    formatHunks: sum((r) => r.formatHunks),
    refusedHunks: sum((r) => r.refusedHunks),
    refusals: counts((r) => r.refusals),
    misplacedHunks: sum((r) => r.misplacedHunks),
    misplaced: parts.flatMap((r) => r.misplaced),
    fallbacks: sum((r) => r.fallbacks),
    fallbackReasons: counts((r) => r.fallbackReasons),
    mismatches: parts.flatMap((r) => r.mismatches),
    wallMs,
  }
}
