// Bounded fuzz, the last resort of the unified and Codex locators for a hunk whose lines match
// nowhere together: up to two outer context lines a side may go (never a '-' or '+' line; a side
// keeps one), and what is left must match in exactly one place of the whole file (first ladder
// pass with any match), as must the change with either side's context alone (a drift next to
// the change reads two ways). The place must obey the hunk as written: after the hunk before it,
// off claimed lines, at a file end it is anchored to, in its @@ hint's scope; a side without
// context pins nothing unless anchored. There it applies with the context lines that match; a
// match.fuzz warning names the dropped ones, which the file keeps as they are. Else: refused.
import type { Candidate, EditErrorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import { normalizeLine, type MatchPass } from '../text/normalize.js'
import type { HunkLine, LineHunk } from '../types.js'
import { lineSimilarity, MAX_CANDIDATES, previewOf } from './candidates.js'
import { listedLines, overlapError, quote } from './locate-messages.js'
import { search } from './locate-search.js'
import {
  capitalise,
  hunkName,
  located,
  oldSide,
  type Claimed,
  type LocateContext,
  type Location,
} from './location.js'
import { passWords } from './pass-words.js'
import { changesWithin } from './scope.js'

/** Outer context lines a side may lose at most. */
export const MAX_FUZZ = 2

/** What the hunk as written says about where it may go, which fuzz never lifts. */
export interface FuzzBounds {
  /** The lowest start its lines may take: the end of the hunk before it in ordered modes. */
  readonly from: number
  readonly claimed: readonly Claimed[]
  /** Its old side must begin the file (a unified hunk without leading context at line 1). */
  readonly mustStart: boolean
  /** Its old side must end the file: no trailing context, no final newline, End of File. */
  readonly mustEnd: boolean
  /** Codex @@ hint scopes, [hint, end) each: the hunk must start in one and change only inside. */
  readonly scopes?: readonly { readonly hint: number; readonly end: number }[]
  /**
   * How far into the patch the hunk's first body line is from its `patchLine` (1 for a unified
   * `@@` header, LineHunk.bodyOffset for a Codex chunk); undefined when unknown, and the message
   * then counts the chunk's lines instead.
   */
  readonly bodyOffset?: number
}

/** A hunk placed by fuzz: its Location, and how many leading lines it lost (for offsets). */
export interface Fuzzed {
  readonly location: Location
  readonly droppedLeading: number
}

/**
 * Places a hunk that matched nowhere as written by dropping outer context lines, or refuses it.
 * `notFound` is the locator's own refusal; it is returned unchanged when fuzz has nothing to try
 * or its lines match nowhere either, and extended with what fuzz found otherwise.
 */
// The rules and their reasons: DECISIONS.md D-143.
export function locateFuzzed(
  ctx: LocateContext,
  hunk: LineHunk,
  lines: readonly HunkLine[],
  bounds: FuzzBounds,
  notFound: EditErrorData,
): Result<Fuzzed> {
  const total = ctx.index.lines.length
  const n = lines.length
  let lead = 0
  while (lead < n && (lines[lead] as HunkLine).op === ' ') lead++
  let trail = 0
  while (trail < n - lead && (lines[n - 1 - trail] as HunkLine).op === ' ') trail++
  // A hunk of context alone is no change to place; one without context has nothing to drop.
  if (lead === n) return fail(notFound)
  const a = Math.min(MAX_FUZZ, Math.max(0, lead - 1))
  const b = bounds.mustEnd ? 0 : Math.min(MAX_FUZZ, Math.max(0, trail - 1))
  if (a + b === 0) return fail(notFound)
  // A side without context pins nothing unless the hunk must sit at that end of the file.
  if ((lead === 0 && !bounds.mustStart) || (trail === 0 && !bounds.mustEnd)) return fail(notFound)
  const core = lines.slice(a, n - b)
  const coreOld = oldSide(core)
  const found = search(ctx, coreOld, 0, total)
  if (found.kind !== 'found') return fail(notFound)
  const droppable = [...range(0, a), ...range(n - b, n)]
  if (found.starts.length > 1) {
    const places = found.starts
    return fail(
      amended(
        notFound,
        `Without ${describeLines(hunk, lines, droppable, bounds)} its lines match ${passWords(found.pass)} at lines ${listedLines(places)} of the whole file, so which place is meant is not certain.`,
        fuzzCandidates(ctx, core, places),
      ),
    )
  }
  const s = found.starts[0] as number
  const pass = found.pass
  // The change with the context of one side alone, the other side's all gone, is a reading as
  // good as this one when lines drifted next to the change: both halves must point here too.
  const elsewhere = lead > 0 && trail > 0 ? rivalPlaces(ctx, lines, a, b, lead, trail, s - a) : []
  // Keep every dropped line that matches the file where the hunk lands, from the core outwards.
  let k = a
  while (
    k > 0 &&
    s - (a - k + 1) >= 0 &&
    sameLine(lines[k - 1] as HunkLine, ctx, s - (a - k + 1), pass)
  )
    k--
  const coreEnd = s + coreOld.length
  let m = n - b
  while (
    m < n &&
    coreEnd + (m - (n - b)) < total &&
    sameLine(lines[m] as HunkLine, ctx, coreEnd + (m - (n - b)), pass)
  )
    m++
  const dropped = [...range(0, k), ...range(m, n)]
  const kept = lines.slice(k, m)
  const start = s - (a - k)
  const end = start + oldSide(kept).length
  const refuse = (why: string): Result<Fuzzed> =>
    fail(
      amended(
        notFound,
        `Without ${describeLines(hunk, lines, dropped, bounds)} its lines match ${passWords(pass)} only at line ${start + 1}, ${why}.`,
        fuzzCandidates(ctx, kept, [start]),
      ),
    )
  // The whole hunk matches there: the locator refused that place for a reason fuzz keeps.
  if (dropped.length === 0) return fail(notFound)
  if (elsewhere.length > 0) {
    // Places by the file line of the first changed line, which every reading has.
    const changeAt = (p: number) => p + lead
    const rivals = elsewhere.map(changeAt)
    return fail(
      amended(
        notFound,
        `Without ${describeLines(hunk, lines, dropped, bounds)} its lines match ${passWords(pass)} only at line ${start + 1}, but its change also fits at ${rivals.length === 1 ? 'line' : 'lines'} ${listedLines(rivals)} with the context of one side alone, so which place is meant is not certain.`,
        fuzzCandidates(
          ctx,
          lines.slice(lead),
          [changeAt(s - a), ...rivals].sort((x, y) => x - y),
        ),
      ),
    )
  }
  if (start < bounds.from)
    return refuse(`before the end of the hunk ahead of it (line ${bounds.from})`)
  if (bounds.mustStart && start !== 0) return refuse('but the hunk must start the file')
  if (bounds.mustEnd && end !== total) return refuse('but the hunk must end the file')
  if (bounds.scopes !== undefined) {
    const inside = bounds.scopes.some(
      (r) => start >= r.hint && start < r.end && changesWithin(kept, start, r.end),
    )
    if (!inside) return refuse('outside the scope of its @@ hint')
  }
  const how = `nowhere as written, and without ${describeLines(hunk, lines, dropped, bounds)} `
  const overlap = overlapError<never>(ctx, hunk, start, end, bounds.claimed, 'another hunk', how)
  if (overlap !== null) return overlap
  const warning = {
    code: 'match.fuzz',
    message: `${capitalise(hunkName(hunk))} matched ${ctx.path} nowhere as written; it was applied at line ${start + 1} without ${describeLines(hunk, lines, dropped, bounds)}, which the file does not have there (the file keeps its own lines).`,
    path: ctx.path,
    patchLine: hunk.patchLine,
  } as const
  return ok({
    location: located(ctx, hunk, kept, start, pass, [warning]),
    droppedLeading: k,
  })
}

/**
 * Where the hunk (by the file index of its first old line) would sit if one side's context had
 * drifted wholly: the change with the other side's context, less its droppable lines, matching
 * somewhere other than `at`. Ascending.
 */
// A drift next to the change reads two ways (DECISIONS.md D-143): both are refused.
function rivalPlaces(
  ctx: LocateContext,
  lines: readonly HunkLine[],
  a: number,
  b: number,
  lead: number,
  trail: number,
  at: number,
): number[] {
  const n = lines.length
  const total = ctx.index.lines.length
  const places = new Set<number>()
  for (const [from, to] of [
    [a, n - trail],
    [lead, n - b],
  ] as const) {
    const found = search(ctx, oldSide(lines.slice(from, to)), 0, total)
    if (found.kind !== 'found') continue
    for (const p of found.starts) if (p - from !== at) places.add(p - from)
  }
  return [...places].sort((x, y) => x - y)
}

function range(from: number, to: number): number[] {
  const out: number[] = []
  for (let i = from; i < to; i++) out.push(i)
  return out
}

function sameLine(line: HunkLine, ctx: LocateContext, at: number, pass: MatchPass): boolean {
  const own = ctx.index.lines[at]
  return own !== undefined && normalizeLine(own, pass) === normalizeLine(line.text, pass)
}

/** "its context lines "x" (patch line 4) and "y" (patch line 9)", for lines at `indexes`. */
function describeLines(
  hunk: LineHunk,
  lines: readonly HunkLine[],
  indexes: readonly number[],
  bounds: FuzzBounds,
): string {
  const named = indexes.map((i) => {
    const where =
      bounds.bodyOffset === undefined
        ? `line ${i + 1} of the chunk`
        : `patch line ${hunk.patchLine + bounds.bodyOffset + i}`
    return `${quote((lines[i] as HunkLine).text)} (${where})`
  })
  const words =
    named.length <= 1
      ? named.join('')
      : `${named.slice(0, -1).join(', ')} and ${named[named.length - 1] as string}`
  return `its context ${named.length === 1 ? 'line' : 'lines'} ${words}`
}

/** Places fuzz found for `lines` (0-based starts of their old side), scored by that old side. */
function fuzzCandidates(
  ctx: LocateContext,
  lines: readonly HunkLine[],
  places: readonly number[],
): Candidate[] {
  const old = oldSide(lines)
  const file = ctx.index.lines
  return places.slice(0, MAX_CANDIDATES).map((p) => {
    let sum = 0
    for (let j = 0; j < old.length; j++) {
      const own = file[p + j]
      if (own !== undefined) {
        sum += lineSimilarity(normalizeLine(own, 'fold'), normalizeLine(old[j] as string, 'fold'))
      }
    }
    return {
      fileLine: p + 1,
      score: Math.round((sum / Math.max(1, old.length)) * 100) / 100,
      preview: previewOf(file, p, old.length),
    }
  })
}

/** The locator's refusal, with what fuzz found added to its message and as its candidates. */
function amended(
  notFound: EditErrorData,
  sentence: string,
  candidates: readonly Candidate[],
): EditErrorData {
  return { ...notFound, message: `${notFound.message} ${sentence}`, candidates }
}
