// The matching ladder: finds every place where a block of wanted lines equals the file's lines
// under one normalisation pass (exact -> trim-end -> trim -> fold); the first pass with any hit
// decides. It reports all starts and never picks one: uniqueness, hints and the region a hunk
// may use are decided by the caller (src/match/locate-*.ts, src/apply/edit-*.ts).
// Invariant: a fileLines array passed here is treated as immutable content; per-pass keys are
// cached against the array's identity (and re-validated by findLineMatches, see below).
import { lowerBound, type LineTable } from '../text/line-table.js'
import { isPlainLine, MATCH_PASSES, normalizeLine, type MatchPass } from '../text/normalize.js'

/** Starts of a block of lines under the first pass (in the order asked) that has any. */
export interface LineMatches {
  readonly pass: MatchPass
  readonly starts: number[]
}

/** Per-pass keys of one file plus, for each key, the ascending 0-based positions holding it. */
export interface PassIndex {
  readonly keys: readonly string[]
  /** Built on first use: a few lookups are cheaper as scans (see findStartsInPass). */
  readonly positions: ReadonlyMap<string, readonly number[]>
}

/**
 * Lookups answered by scanning `keys` before the positions map is built. PERF: building the map
 * costs about as much as 50 scans of the same file, and most files get only a few hunks
 * (bench/match.bench.ts).
 */
const SCANS_BEFORE_MAP = 16

/**
 * Lazily built per-pass indexes over one snapshot of a file's lines. Build it once per content
 * with indexLines() and reuse it for every search in that content.
 */
export interface LineIndex {
  readonly lines: readonly string[]
  pass(pass: MatchPass): PassIndex
}

interface CacheEntry {
  readonly snapshot: readonly string[]
  readonly index: LineIndex
}

const cache = new WeakMap<readonly string[], CacheEntry>()

function buildPassIndex(
  lines: readonly string[],
  pass: MatchPass,
  trimKeys: readonly string[] | undefined,
): PassIndex {
  let keys: readonly string[]
  if (pass === 'exact') keys = lines
  else if (pass === 'fold' && trimKeys !== undefined) {
    // PERF: most lines are plain ASCII; their fold key is the trim key already computed, which
    // saves a regex replace per line (bench/match.bench.ts).
    keys = lines.map((line, i) =>
      isPlainLine(line) ? (trimKeys[i] as string) : normalizeLine(line, pass),
    )
  } else keys = lines.map((line) => normalizeLine(line, pass))
  let positions: Map<string, number[]> | undefined
  return {
    keys,
    get positions(): ReadonlyMap<string, readonly number[]> {
      if (positions === undefined) {
        positions = new Map<string, number[]>()
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i] as string
          const list = positions.get(key)
          if (list === undefined) positions.set(key, [i])
          else list.push(i)
        }
      }
      return positions
    },
  }
}

const scanCounts = new WeakMap<PassIndex, number>()

/** Ascending positions in [lo, hi] holding `key`: a scan for the first few lookups, then the map. */
function positionsOf(passIndex: PassIndex, key: string, lo: number, hi: number): readonly number[] {
  const scans = scanCounts.get(passIndex) ?? 0
  if (scans >= SCANS_BEFORE_MAP) {
    const all = passIndex.positions.get(key)
    if (all === undefined) return []
    const first = lowerBound(all, lo)
    return first === 0 ? all : all.slice(first)
  }
  scanCounts.set(passIndex, scans + 1)
  const found: number[] = []
  const { keys } = passIndex
  for (let i = lo; i <= hi; i++) if (keys[i] === key) found.push(i)
  return found
}

/** Builds a LineIndex over a private snapshot of `fileLines` (later mutations do not leak in). */
export function indexLines(fileLines: readonly string[]): LineIndex {
  const lines = fileLines.slice()
  const passes = new Map<MatchPass, PassIndex>()
  return {
    lines,
    pass(pass: MatchPass): PassIndex {
      let built = passes.get(pass)
      if (built === undefined) {
        built = buildPassIndex(lines, pass, passes.get('trim')?.keys)
        passes.set(pass, built)
      }
      return built
    },
  }
}

/**
 * The cached index for `fileLines`. The snapshot comparison is a pointer-equality walk (cheap
 * next to normalising), and it keeps callers that mutate an array in place from ever reading
 * stale keys.
 */
export function cachedIndex(fileLines: readonly string[]): LineIndex {
  const entry = cache.get(fileLines)
  if (entry !== undefined && sameLines(entry.snapshot, fileLines)) return entry.index
  const index = indexLines(fileLines)
  cache.set(fileLines, { snapshot: index.lines, index })
  return index
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** The starts of `wanted` in [from, to) under one pass, ascending; at most `limit` of them. */
export function findStartsInPass(
  index: LineIndex,
  wanted: readonly string[],
  from: number,
  to: number,
  pass: MatchPass,
  limit = Infinity,
): number[] {
  const starts: number[] = []
  const total = index.lines.length
  const lo = Math.max(0, from)
  const hi = Math.min(total, to) - wanted.length
  if (wanted.length === 0 || hi < lo) return starts
  const passIndex = index.pass(pass)
  const { keys } = passIndex
  const wantedKeys = wanted.map((line) => normalizeLine(line, pass))
  // PERF: the first wanted line's positions filter candidate starts (bench/match.bench.ts).
  const firsts = positionsOf(passIndex, wantedKeys[0] as string, lo, hi)
  for (let k = 0; k < firsts.length; k++) {
    const s = firsts[k] as number
    if (s > hi) break
    let all = true
    for (let j = 1; j < wantedKeys.length; j++) {
      if (keys[s + j] !== wantedKeys[j]) {
        all = false
        break
      }
    }
    if (all) {
      starts.push(s)
      if (starts.length >= limit) break
    }
  }
  return starts
}

/**
 * findLineMatches over a prebuilt index (the hunk locators use it to skip re-validation).
 * `limit` caps the starts collected per pass: 1 answers "the first match after here" without a
 * full scan.
 */
export function findLineMatchesIn(
  index: LineIndex,
  wanted: readonly string[],
  from: number,
  to: number,
  passes: readonly MatchPass[] = MATCH_PASSES,
  limit = Infinity,
): LineMatches | null {
  if (wanted.length === 0) return null
  for (const pass of passes) {
    const starts = findStartsInPass(index, wanted, from, to, pass, limit)
    if (starts.length > 0) return { pass, starts }
  }
  return null
}

/**
 * Every 0-based start s in [from, to - wanted.length] where all wanted lines equal the file's
 * lines under a pass; the first pass (in `passes` order) with at least one start decides.
 * Returns null when no pass matches, or when `wanted` is empty (an empty block matches nowhere:
 * callers place pure insertions themselves).
 *
 * @example
 * findLineMatches(['a', '  b ', 'c'], ['b'], 0, 3) // { pass: 'trim', starts: [1] }
 */
export function findLineMatches(
  fileLines: readonly string[],
  wanted: readonly string[],
  from: number,
  to: number,
  passes: readonly MatchPass[] = MATCH_PASSES,
): LineMatches | null {
  if (wanted.length === 0) return null
  return findLineMatchesIn(cachedIndex(fileLines), wanted, from, to, passes)
}

/**
 * findLineMatchesIn over the current lines of a LineTable, without building an array of them:
 * every start where all `wanted` lines equal the table's lines under one pass; the first pass in
 * `passes` with a start decides, at most `limit` starts.
 */
export function findTableMatches(
  table: LineTable,
  wanted: readonly string[],
  passes: readonly MatchPass[] = MATCH_PASSES,
  limit = Infinity,
): LineMatches | null {
  const hi = table.length - wanted.length
  if (wanted.length === 0 || hi < 0) return null
  for (const pass of passes) {
    const wantedKeys = wanted.map((line) => normalizeLine(line, pass))
    // Any wanted line filters the candidates; the rarest leaves the fewest to check (before
    // the table can count lines, the longest, the likeliest to be rare).
    const j = table.rarest(pass, wantedKeys, 0, wantedKeys.length) ?? longest(wantedKeys)
    const starts: number[] = []
    for (const pos of table.find(pass, wantedKeys[j] as string)) {
      const s = pos - j
      if (s < 0) continue
      if (s > hi) break
      if (table.hasKeysAt(s, wantedKeys, pass)) {
        starts.push(s)
        if (starts.length >= limit) break
      }
    }
    if (starts.length > 0) return { pass, starts }
  }
  return null
}

/** The index of the longest string (the first of equals). */
function longest(keys: readonly string[]): number {
  let best = 0
  for (let j = 1; j < keys.length; j++) {
    if ((keys[j] as string).length > (keys[best] as string).length) best = j
  }
  return best
}
