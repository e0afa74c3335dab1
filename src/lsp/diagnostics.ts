// Diagnostics as agents see them: LSP's 0-based raw diagnostics become 1-based, workspace-relative
// FileDiagnostics, and the before/after comparison tells the errors an edit introduced from the
// project's old noise. Pure (no I/O, no Node modules): the pool calls it after each server has
// settled. Matching is by (path, code, source, message) as a multiset, not by position, because
// an edit above an old error moves it; within one key the closest lines pair first.
import type { RawDiagnostic } from './session-types.js'
import type {
  DiagnosticSeverity,
  DiagnosticsOptions,
  DiagnosticsReport,
  FileDiagnostic,
} from './reports.js'

export const DEFAULT_MIN_SEVERITY: DiagnosticSeverity = 'error'
export const DEFAULT_MAX_PER_FILE = 20

/**
 * Above this many candidate pairs in one key, pairing falls back to position order.
 * PERF: closest-first pairing sorts every (before, after) pair of a key; a file with thousands of
 * identical errors would otherwise cost millions of comparisons for no better answer.
 */
const MAX_PAIRS_PER_KEY = 40_000

const SEVERITY_RANK: Readonly<Record<DiagnosticSeverity, number>> = {
  error: 1,
  warning: 2,
  information: 3,
  hint: 4,
}

export type ComparedDiagnostics = Pick<
  DiagnosticsReport,
  'introduced' | 'resolved' | 'remaining' | 'omitted'
>

/**
 * LSP severity (1 error .. 4 hint) as a name. Absent means error (the spec's advice to clients),
 * and so does any out-of-range value (clangd has been seen sending 0): a diagnostic of unknown
 * severity is shown rather than silently filtered out.
 */
export function severityName(severity: number | undefined): DiagnosticSeverity {
  switch (severity) {
    case 2:
      return 'warning'
    case 3:
      return 'information'
    case 4:
      return 'hint'
    default:
      return 'error'
  }
}

/** One server diagnostic for `absolutePath` as agents receive it (1-based, workspace-relative). */
export function toFileDiagnostic(
  raw: RawDiagnostic,
  absolutePath: string,
  workspaceRoot: string,
): FileDiagnostic {
  const { start, end } = raw.range
  return {
    path: workspaceRelativePath(absolutePath, workspaceRoot),
    line: start.line + 1,
    column: start.character + 1,
    endLine: end.line + 1,
    endColumn: end.character + 1,
    severity: severityName(raw.severity),
    ...(raw.code === undefined ? {} : { code: String(raw.code) }),
    ...(raw.source === undefined ? {} : { source: raw.source }),
    message: raw.message,
  }
}

/**
 * `absolutePath` relative to `workspaceRoot`, '/'-separated ('.' for the root itself, '../x' for
 * a path outside it). Works on POSIX and Windows spellings without node:path.
 */
export function workspaceRelativePath(absolutePath: string, workspaceRoot: string): string {
  const target = pathSegments(absolutePath)
  const base = pathSegments(workspaceRoot)
  let common = 0
  while (common < base.length && common < target.length && base[common] === target[common]) {
    common += 1
  }
  const up = base.slice(common).map(() => '..')
  const rel = [...up, ...target.slice(common)].join('/')
  return rel === '' ? '.' : rel
}

/**
 * Splits the diagnostics into introduced (after only), resolved (before only) and remaining
 * (both; reported at their after-change position), keeping `minSeverity` and above. Each list is
 * sorted by path, line and column and capped at `maxPerFile` per path; `omitted` counts what the
 * caps left out, per path, when anything was.
 */
export function compareDiagnostics(
  before: readonly FileDiagnostic[],
  after: readonly FileDiagnostic[],
  options: Pick<DiagnosticsOptions, 'minSeverity' | 'maxPerFile'> = {},
): ComparedDiagnostics {
  const minRank = SEVERITY_RANK[options.minSeverity ?? DEFAULT_MIN_SEVERITY]
  const maxPerFile = Math.max(0, Math.floor(options.maxPerFile ?? DEFAULT_MAX_PER_FILE))
  const keep = (d: FileDiagnostic): boolean => SEVERITY_RANK[d.severity] <= minRank
  const olds = before.filter(keep)
  const news = after.filter(keep)

  const groups = new Map<string, { olds: number[]; news: number[] }>()
  const group = (d: FileDiagnostic) => {
    const key = matchKey(d)
    let g = groups.get(key)
    if (g === undefined) groups.set(key, (g = { olds: [], news: [] }))
    return g
  }
  olds.forEach((d, i) => group(d).olds.push(i))
  news.forEach((d, i) => group(d).news.push(i))

  const matchedOld = new Set<number>()
  const matchedNew = new Set<number>()
  for (const g of groups.values()) {
    for (const [o, n] of pairClosest(g.olds, g.news, olds, news)) {
      matchedOld.add(o)
      matchedNew.add(n)
    }
  }

  const omitted: Record<string, number> = {}
  const cap = (list: FileDiagnostic[]): FileDiagnostic[] => {
    const perPath = new Map<string, number>()
    const kept: FileDiagnostic[] = []
    for (const d of sortDiagnostics(list)) {
      const seen = perPath.get(d.path) ?? 0
      perPath.set(d.path, seen + 1)
      if (seen < maxPerFile) kept.push(d)
      else omitted[d.path] = (omitted[d.path] ?? 0) + 1
    }
    return kept
  }
  const introduced = cap(news.filter((_, i) => !matchedNew.has(i)))
  const resolved = cap(olds.filter((_, i) => !matchedOld.has(i)))
  const remaining = cap(news.filter((_, i) => matchedNew.has(i)))
  return Object.keys(omitted).length === 0
    ? { introduced, resolved, remaining }
    : { introduced, resolved, remaining, omitted }
}

/** A stable sort by path (code-unit order, so it does not depend on locale), line, column. */
export function sortDiagnostics(list: readonly FileDiagnostic[]): FileDiagnostic[] {
  return [...list].sort(
    (a, b) =>
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.line - b.line || a.column - b.column,
  )
}

/**
 * `path:line:col severity CODE: message` on one line, for the CLI. TypeScript's numeric codes get
 * their usual `TS` prefix (`error TS2322`); other codes print as the server sent them.
 */
export function formatDiagnostic(d: FileDiagnostic): string {
  const code = d.code === undefined ? '' : ` ${displayCode(d)}`
  const message = d.message.replace(/\s*[\r\n]+\s*/g, ' ').trim()
  return `${d.path}:${d.line}:${d.column} ${d.severity}${code}: ${message}`
}

function displayCode(d: FileDiagnostic): string {
  const code = d.code ?? ''
  const fromTs = d.source === 'ts' || d.source === 'typescript'
  return fromTs && /^\d+$/.test(code) ? `TS${code}` : code
}

function matchKey(d: FileDiagnostic): string {
  return JSON.stringify([d.path, d.code ?? null, d.source ?? null, d.message])
}

/**
 * Pairs indices of one key's before and after diagnostics, closest lines (then columns) first.
 * With equal counts every after-diagnostic is remaining whatever the pairing, so position order
 * is used; the greedy pass only decides which ones are resolved or introduced.
 */
function pairClosest(
  oldIdx: readonly number[],
  newIdx: readonly number[],
  olds: readonly FileDiagnostic[],
  news: readonly FileDiagnostic[],
): [number, number][] {
  const byPosition = (list: readonly FileDiagnostic[]) => (x: number, y: number) =>
    (list[x]?.line ?? 0) - (list[y]?.line ?? 0) || (list[x]?.column ?? 0) - (list[y]?.column ?? 0)
  const o = [...oldIdx].sort(byPosition(olds))
  const n = [...newIdx].sort(byPosition(news))
  if (o.length === 0 || n.length === 0) return []
  if (o.length === n.length || o.length * n.length > MAX_PAIRS_PER_KEY) {
    const pairs: [number, number][] = []
    for (let k = 0; k < Math.min(o.length, n.length); k += 1) pairs.push([o[k] ?? 0, n[k] ?? 0])
    return pairs
  }
  const candidates: { o: number; n: number; dLine: number; dCol: number }[] = []
  for (const oi of o) {
    for (const ni of n) {
      const a = olds[oi]
      const b = news[ni]
      if (a === undefined || b === undefined) continue
      candidates.push({
        o: oi,
        n: ni,
        dLine: Math.abs(a.line - b.line),
        dCol: Math.abs(a.column - b.column),
      })
    }
  }
  // Ties go to the earlier before-diagnostic, then the earlier after-diagnostic: deterministic.
  const rank = new Map<number, number>()
  o.forEach((oi, k) => rank.set(oi, k))
  const rankNew = new Map<number, number>()
  n.forEach((ni, k) => rankNew.set(ni, k))
  candidates.sort(
    (x, y) =>
      x.dLine - y.dLine ||
      x.dCol - y.dCol ||
      (rank.get(x.o) ?? 0) - (rank.get(y.o) ?? 0) ||
      (rankNew.get(x.n) ?? 0) - (rankNew.get(y.n) ?? 0),
  )
  const usedOld = new Set<number>()
  const usedNew = new Set<number>()
  const pairs: [number, number][] = []
  for (const c of candidates) {
    if (usedOld.has(c.o) || usedNew.has(c.n)) continue
    usedOld.add(c.o)
    usedNew.add(c.n)
    pairs.push([c.o, c.n])
  }
  return pairs
}

/** Normalised segments of an absolute path: '\\' and '/' both separate; '.' and '..' resolved. */
function pathSegments(path: string): string[] {
  const out: string[] = []
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') out.pop()
    else out.push(part)
  }
  return out
}
