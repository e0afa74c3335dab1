// Unified placement ('near-line'): the match nearest to the hunk's stated line, shifted by how
// far the hunk before it moved, as GNU patch does, among the places its anchors allow (a hunk
// without context on a side must sit at that end of the file). Ties at one distance are ambiguous.
import { errorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import type { LineHunk, Warning } from '../types.js'
import { MAX_CANDIDATES } from './candidates.js'
import {
  capitalise,
  hunkName,
  located,
  oldSide,
  type Claimed,
  type LocateContext,
  type Location,
} from './location.js'
import { locateFuzzed } from './locate-fuzz.js'
import { search } from './locate-search.js'
import {
  ambiguousError,
  exactCandidates,
  listedLines,
  notFoundError,
  notTextError,
  overlapError,
} from './locate-messages.js'

// Anchors as git apply reads them: DECISIONS.md D-129.
/**
 * Where a unified hunk must sit when it lacks context on a side, as git apply reads it:
 * no trailing context means the hunk's old side ends the file; no leading context and a stated
 * start of line 1 (or 0, an empty old side at the top) means it begins the file. A hunk with no
 * context at all that only adds lines therefore belongs in an empty file. Stated counts, offsets
 * and lenient passes never lift these.
 */
export interface Anchors {
  readonly start: boolean
  readonly end: boolean
}

export function anchorsOf(hunk: LineHunk): Anchors {
  // A hunk without numbers (a bare `@@`) states no place: its lines alone place it.
  if (hunk.oldStartLine === undefined) return { start: false, end: false }
  const lines = hunk.lines
  const first = lines[0]
  const last = lines[lines.length - 1]
  const stated = hunk.oldStartLine
  return {
    start: first !== undefined && first.op !== ' ' && stated !== undefined && stated <= 1,
    end: last !== undefined && last.op !== ' ',
  }
}

/**
 * Unified placement: nearest match to the stated line (shifted by `offset`, the previous
 * hunk's actual - stated start) within [minStart, end), among the places its anchors allow
 * (anchorsOf). Ties at one distance are ambiguous.
 * Returns the location and the 0-based start the hunk stated, for the next hunk's offset.
 */
export function locateNearLine(
  ctx: LocateContext,
  hunk: LineHunk,
  minStart: number,
  offset: number,
  claimed: readonly Claimed[] = [],
): Result<Location & { readonly statedStart: number }> {
  const total = ctx.index.lines.length
  const old = oldSide(hunk.lines)
  const stated = hunk.oldStartLine ?? 0
  const anchors = anchorsOf(hunk)
  if (old.length === 0) {
    // Nothing to match: with no context at all, only an empty file places it (`@@ -0,0 +1,N @@`).
    if (total > 0) return notAnchoredError(ctx, hunk, anchors, [])
    return ok({ ...located(ctx, hunk, hunk.lines, 0, null), statedStart: Math.max(0, stated) })
  }
  if (hunk.oldStartLine === undefined) return locateByLines(ctx, hunk, old, minStart, claimed)
  const fits = (s: number): boolean =>
    (!anchors.start || s === 0) && (!anchors.end || s + old.length === total)
  const statedStart = Math.max(0, stated - 1)
  const expected = statedStart + offset
  // PERF: an exact match where the hunk is expected is the nearest hit of the first pass that
  // has any, so it wins whatever else the search would find: no need to scan the file for it.
  if (
    fits(expected) &&
    exactAt(ctx.index.lines, old, expected, minStart, hunk.oldNoNewlineAtEnd === true)
  ) {
    return ok({ ...located(ctx, hunk, hunk.lines, expected, 'exact'), statedStart })
  }
  const found = search(ctx, old, minStart, total)
  if (found.kind === 'not-text') return notTextError(ctx, hunk, found.pass)
  let starts = found.kind === 'found' ? found.starts : []
  if (hunk.oldNoNewlineAtEnd === true) starts = starts.filter((s) => s + old.length === total)
  if (found.kind === 'none' || starts.length === 0) {
    const refused = notFoundError<never>(ctx, hunk, old, minStart, total, claimed)
    return fuzzed(ctx, hunk, refused, minStart, claimed, anchors, statedStart)
  }
  // The first pass with any match decides (D-002); its places must also satisfy the anchors.
  const allowed = starts.filter(fits)
  if (allowed.length === 0) return notAnchoredError(ctx, hunk, anchors, starts, old.length)
  let best = Infinity
  let winners: number[] = []
  for (const s of allowed) {
    const d = Math.abs(s - expected)
    if (d < best) {
      best = d
      winners = [s]
    } else if (d === best) winners.push(s)
  }
  if (winners.length > 1) {
    const why = `matches equally near line ${expected + 1}`
    return ambiguousError(ctx, hunk, winners, old.length, why)
  }
  const start = winners[0] as number
  const offsetWarnings: Warning[] =
    start === expected
      ? []
      : [
          {
            code: 'match.offset',
            message: `${capitalise(hunkName(hunk))} applied to ${ctx.path} at line ${start + 1}, offset ${signed(start - statedStart)} lines from its stated line ${statedStart + 1}.`,
            path: ctx.path,
            patchLine: hunk.patchLine,
          },
        ]
  return ok({ ...located(ctx, hunk, hunk.lines, start, found.pass, offsetWarnings), statedStart })
}

/**
 * A hunk whose header has no numbers (`@@`, Aider's `@@ ... @@`, a header cut short), placed as
 * a Codex chunk is: its old side must match in exactly one place in [minStart, end), or it is
 * refused with the places it matches; a place on lines another hunk claimed is MATCH_OVERLAP.
 */
function locateByLines(
  ctx: LocateContext,
  hunk: LineHunk,
  old: readonly string[],
  minStart: number,
  claimed: readonly Claimed[],
): Result<Location & { readonly statedStart: number }> {
  const total = ctx.index.lines.length
  const found = search(ctx, old, minStart, total)
  if (found.kind === 'not-text') return notTextError(ctx, hunk, found.pass)
  let starts = found.kind === 'found' ? found.starts : []
  if (hunk.oldNoNewlineAtEnd === true) starts = starts.filter((s) => s + old.length === total)
  if (found.kind === 'none' || starts.length === 0) {
    const refused = notFoundError<never>(ctx, hunk, old, minStart, total, claimed)
    return fuzzed(ctx, hunk, refused, minStart, claimed, anchorsOf(hunk), null)
  }
  if (starts.length > 1) {
    const why = 'has no line numbers, and its lines match more than once'
    return ambiguousError(ctx, hunk, starts, old.length, why)
  }
  const start = starts[0] as number
  const overlap = overlapError<never>(ctx, hunk, start, start + old.length, claimed, 'another hunk')
  if (overlap !== null) return overlap
  return ok({ ...located(ctx, hunk, hunk.lines, start, found.pass), statedStart: start })
}

/**
 * The last resort for a hunk whose lines match nowhere (src/match/locate-fuzz.ts), under the
 * hunk's own anchors; `refused` stands when fuzz finds nothing. A numbered hunk's stated start
 * moves by the leading lines it lost, so the next hunk's offset stays right.
 */
function fuzzed(
  ctx: LocateContext,
  hunk: LineHunk,
  refused: Result<never>,
  minStart: number,
  claimed: readonly Claimed[],
  anchors: Anchors,
  statedStart: number | null,
): Result<Location & { readonly statedStart: number }> {
  if (refused.ok || refused.error.code !== 'MATCH_NOT_FOUND') return refused
  const bounds = {
    from: minStart,
    claimed,
    mustStart: anchors.start,
    mustEnd: anchors.end || hunk.oldNoNewlineAtEnd === true,
    bodyOffset: 1,
  }
  const found = locateFuzzed(ctx, hunk, hunk.lines, bounds, refused.error)
  if (!found.ok) return found
  const { location, droppedLeading } = found.value
  const stated = statedStart === null ? location.start : statedStart + droppedLeading
  return ok({ ...location, statedStart: stated })
}

/**
 * MATCH_NOT_ANCHORED: the hunk's lines match only where its anchors forbid (`starts`, listed as
 * candidates), or it adds lines without context to a file that is not empty.
 */
function notAnchoredError<T>(
  ctx: LocateContext,
  hunk: LineHunk,
  anchors: Anchors,
  starts: readonly number[],
  length = 0,
): Result<T> {
  const total = ctx.index.lines.length
  const name = capitalise(hunkName(hunk))
  let message: string
  if (length === 0) {
    message = `${name} has no context lines and removes none, so it can only add to an empty file, and ${ctx.path} has ${total} line${total === 1 ? '' : 's'}.`
  } else {
    const lacks =
      anchors.start && anchors.end
        ? 'has no context lines and states line 1, so it must be the whole file'
        : anchors.end
          ? 'has no trailing context, so it must end the file'
          : 'has no leading context and states line 1, so it must start the file'
    const where = `${starts.length === 1 ? 'line' : 'lines'} ${listedLines(starts)}`
    message = `${name} ${lacks} (${total} lines in ${ctx.path}), but its lines are at ${where}.`
  }
  return fail(
    errorData('MATCH_NOT_ANCHORED', message, {
      path: ctx.path,
      patchLine: hunk.patchLine,
      candidates: exactCandidates(ctx, starts.slice(0, MAX_CANDIDATES), length),
    }),
  )
}

/** Whether `old` equals the file's lines at `start` exactly (at the end, if it must be last). */
function exactAt(
  fileLines: readonly string[],
  old: readonly string[],
  start: number,
  minStart: number,
  mustEnd: boolean,
): boolean {
  const end = start + old.length
  if (start < minStart || end > fileLines.length || (mustEnd && end !== fileLines.length))
    return false
  for (let j = 0; j < old.length; j++) if (fileLines[start + j] !== old[j]) return false
  return true
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n)
}
