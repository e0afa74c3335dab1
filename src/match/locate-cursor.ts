// Codex placement ('cursor'): each hunk after the previous one, bounded by its @@ hints
// (DECISIONS.md D-025). Each place the first hint matches after the cursor is one reading; each
// later hint is the first match inside the previous one's scope (src/match/scope.ts). The hunk
// must fit exactly once inside the readings' scopes, the ladder climbed per scope, and change
// nothing past the scope's end (trailing context may run on). Two fits, in one scope
// (DECISIONS.md D-079) or in two readings, are ambiguous; none at all is MATCH_NOT_FOUND naming
// where the lines are outside.
import { errorData, type EditErrorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import { MATCH_PASSES, type MatchPass } from '../text/normalize.js'
import type { HunkLine, LineHunk } from '../types.js'
import { MAX_CANDIDATES } from './candidates.js'
import { findStartsInPass } from './ladder.js'
import { passWords } from './pass-words.js'
import { changesWithin, hintScopeEnd } from './scope.js'
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
  MAX_AMBIGUOUS_LISTED,
  notFoundError,
  notTextError,
  quote,
  regionCandidates,
} from './locate-messages.js'

/** One way to read a hunk's hints: the innermost hint's line and the end of its scope. */
interface Reading {
  readonly hint: number
  readonly end: number
}

/**
 * Every way the hints can be read in order after `cursor`: the first hint is found (ladder,
 * whole line) anywhere after the cursor; each later one is the first match inside the scope of
 * the one before it (src/match/scope.ts), and its own scope is clipped to that outer scope.
 */
function resolveHints(ctx: LocateContext, hunk: LineHunk, cursor: number): Result<Reading[]> {
  const total = ctx.index.lines.length
  let readings: Reading[] = []
  for (let h = 0; h < hunk.hints.length; h++) {
    const hint = hunk.hints[h] as string
    const next = new Map<number, number>()
    if (h === 0) {
      const found = search(ctx, [hint], cursor, total)
      if (found.kind === 'not-text') return notTextError(ctx, hunk, found.pass)
      if (found.kind === 'found') {
        for (const s of found.starts) next.set(s, hintScopeEnd(ctx.index.lines, s))
      }
    } else {
      for (const r of readings) {
        const found = search(ctx, [hint], r.hint + 1, r.end, 1)
        if (found.kind === 'not-text') return notTextError(ctx, hunk, found.pass)
        if (found.kind !== 'found') continue
        const s = found.starts[0] as number
        const end = Math.min(r.end, hintScopeEnd(ctx.index.lines, s))
        next.set(s, Math.max(end, next.get(s) ?? 0))
      }
    }
    if (next.size === 0) {
      const outer = readings[0]
      const after = outer === undefined ? cursor : outer.hint + 1
      const within =
        outer === undefined
          ? ''
          : ` inside the scope of the hint before it (lines ${outer.hint + 1}-${outer.end})`
      return fail(
        errorData(
          'MATCH_NOT_FOUND',
          `Could not find the @@ hint ${quote(hint)} of ${hunkName(hunk)} in ${ctx.path}${within}.`,
          {
            path: ctx.path,
            patchLine: hunk.patchLine,
            candidates: regionCandidates(
              ctx,
              [hint],
              after,
              outer === undefined ? total : outer.end,
            ),
          },
        ),
      )
    }
    readings = [...next]
      .sort((a, b) => a[0] - b[0])
      .map(([hintLine, end]) => ({ hint: hintLine, end }))
  }
  return ok(readings)
}

/**
 * What one hint reading's scope holds of a hunk: its fits, and its spills (starts in the scope
 * where the lines match but would change lines past its end) from the first pass with any start.
 */
type ScopeSearch =
  | {
      readonly kind: 'found'
      readonly pass: MatchPass
      readonly starts: number[]
      readonly spills: readonly number[]
    }
  | { readonly kind: 'none'; readonly spills: readonly number[] }
  | { readonly kind: 'not-text'; readonly pass: MatchPass }

// Two fits in one scope are ambiguous (DECISIONS.md D-079): the hint does not say which, and
// taking the first landed a real commit's hunk 31 lines early. A spill beside a fit elsewhere
// makes the hunk ambiguous too (DECISIONS.md D-087).
/**
 * Every place inside one hint reading's scope where the hunk fits, in the first ladder pass with
 * any, climbing the ladder for this scope alone: a fit starts in [hint, end) and changes nothing
 * past the scope. Spills come back too.
 */
function searchScope(
  ctx: LocateContext,
  lines: readonly HunkLine[],
  old: readonly string[],
  reading: Reading,
): ScopeSearch {
  const total = ctx.index.lines.length
  // A start before `end` cannot reach past end - 1 + old.length, which bounds the scan.
  const to = Math.min(total, reading.end - 1 + old.length)
  const startsIn = (pass: MatchPass): number[] =>
    findStartsInPass(ctx.index, old, reading.hint, to, pass).filter((s) => s < reading.end)
  let spills: readonly number[] | null = null
  for (const pass of ctx.exactOnly ? (['exact'] as const) : MATCH_PASSES) {
    const all = startsIn(pass)
    if (all.length > 0) spills ??= all.filter((s) => !changesWithin(lines, s, reading.end))
    const starts = all.filter((s) => changesWithin(lines, s, reading.end))
    if (starts.length > 0) return { kind: 'found', pass, starts, spills: spills ?? [] }
  }
  if (ctx.exactOnly) {
    for (const pass of MATCH_PASSES.slice(1)) {
      if (startsIn(pass).some((s) => changesWithin(lines, s, reading.end))) {
        return { kind: 'not-text', pass }
      }
    }
  }
  return { kind: 'none', spills: spills ?? [] }
}

/**
 * MATCH_NOT_FOUND for a hunk whose lines are in no hint scope. When they do exist elsewhere in
 * the file, the message says so and the candidates are those places (the agent named the wrong
 * scope, or the hunk belongs elsewhere); otherwise near misses inside the first scope.
 */
function outsideScopeError<T>(
  ctx: LocateContext,
  hunk: LineHunk,
  old: readonly string[],
  readings: readonly Reading[],
  claimed: readonly Claimed[],
): Result<T> {
  const first = readings[0] as Reading
  const total = ctx.index.lines.length
  const scopes = readings
    .slice(0, MAX_AMBIGUOUS_LISTED)
    .map((r) => `${r.hint + 1}-${r.end}`)
    .join(', ')
  const scopeWords = `${readings.length === 1 ? 'the scope' : 'any scope'} of its @@ hint ${quote(hunk.hints[hunk.hints.length - 1] as string)} (lines ${scopes})`
  const elsewhere = search(ctx, old, 0, total)
  if (elsewhere.kind === 'found') {
    const overlap = notFoundError(ctx, hunk, old, first.hint, first.end, claimed)
    if (!overlap.ok && overlap.error.code === 'MATCH_OVERLAP') return overlap
    const starts = elsewhere.starts
    const spills = starts.some((st) => readings.some((r) => st >= r.hint && st < r.end))
    return fail(
      errorData(
        'MATCH_NOT_FOUND',
        `${capitalise(hunkName(hunk))} is not inside ${scopeWords} in ${ctx.path}: its lines ${spills ? 'match' : 'are outside that scope, matching'} ${passWords(elsewhere.pass)} at ${starts.length === 1 ? 'line' : 'lines'} ${listedLines(starts)}${spills ? ', but it would change lines past the end of the scope' : ''}.`,
        {
          path: ctx.path,
          patchLine: hunk.patchLine,
          candidates: exactCandidates(ctx, starts.slice(0, MAX_CANDIDATES), old.length),
          hint: 'Name the enclosing block of the lines you change in the @@ hint (the candidates are where the lines are), or copy the lines from inside the hinted block.',
        },
      ),
    )
  }
  return notFoundError(
    ctx,
    hunk,
    old,
    first.hint,
    first.end,
    claimed,
    `the lines inside ${scopeWords}`,
  )
}

function locateCursorOnce(
  ctx: LocateContext,
  hunk: LineHunk,
  lines: readonly HunkLine[],
  cursor: number,
  claimed: readonly Claimed[],
): Result<Location> {
  const total = ctx.index.lines.length
  const old = oldSide(lines)

  if (hunk.hints.length > 0) {
    const hints = resolveHints(ctx, hunk, cursor)
    if (!hints.ok) return hints
    const readings = hints.value
    if (old.length === 0) {
      if (readings.length > 1) {
        const at = readings.map((r) => r.hint)
        return ambiguousError(ctx, hunk, at, 1, 'has @@ hints that match')
      }
      return ok(located(ctx, hunk, lines, (readings[0] as Reading).hint + 1, null))
    }
    const byStart = new Map<number, MatchPass>()
    const spilled = new Set<number>()
    let inOneScope = false
    for (const r of readings) {
      // From the hint line itself: models often repeat the hint as the chunk's first context
      // line, which Codex then fails to find; the hint still pins the place. The whole ladder
      // runs per scope (D-025): an exact match outside the scope never beats a lenient one in it.
      const found = searchScope(ctx, lines, old, r)
      if (found.kind === 'not-text') return notTextError(ctx, hunk, found.pass)
      for (const s of found.spills) spilled.add(s)
      if (found.kind !== 'found') continue
      if (found.starts.length > 1) inOneScope = true
      for (const s of found.starts) byStart.set(s, found.pass)
    }
    if (byStart.size === 0) return outsideScopeError(ctx, hunk, old, readings, claimed)
    if (byStart.size > 1) {
      const starts = [...byStart.keys()].sort((a, b) => a - b)
      const why = inOneScope
        ? 'matches more than once inside the scope of its @@ hint'
        : 'matches inside the scope of each reading of its @@ hints'
      return ambiguousError(ctx, hunk, starts, old.length, why)
    }
    // One fit, but the lines also start inside a hinted scope elsewhere and run past its end
    // (D-087): the hint may name the block before the change, as git's function context does, and
    // then the fit is a copy in another block of that name. Which one is meant, nothing says.
    const [fit] = [...byStart.keys()] as [number]
    const others = [...spilled].filter((s) => s !== fit)
    if (others.length > 0) {
      const starts = [fit, ...others].sort((a, b) => a - b)
      const why =
        'fits one scope of its @@ hint, and its lines also start inside another and run past its end,'
      return ambiguousError(ctx, hunk, starts, old.length, why)
    }
    const [[start, pass]] = [...byStart] as [[number, MatchPass]]
    return ok(located(ctx, hunk, lines, start, pass))
  }

  if (old.length === 0) return ok(located(ctx, hunk, lines, total, null))

  if (hunk.endOfFile && old.length <= total) {
    const atEnd = total - old.length
    const found = search(ctx, old, atEnd, total)
    if (found.kind === 'not-text') return notTextError(ctx, hunk, found.pass)
    if (found.kind === 'found') {
      if (atEnd < cursor) return notFoundError(ctx, hunk, old, cursor, total, claimed)
      return ok(located(ctx, hunk, lines, atEnd, found.pass))
    }
  }

  const found = search(ctx, old, cursor, total)
  if (found.kind === 'not-text') return notTextError(ctx, hunk, found.pass)
  if (found.kind === 'none') return notFoundError(ctx, hunk, old, cursor, total, claimed)
  if (found.starts.length > 1) return ambiguousError(ctx, hunk, found.starts, old.length, 'matches')
  return ok(located(ctx, hunk, lines, found.starts[0] as number, found.pass))
}

/**
 * The hunk lines without a trailing empty line on both sides, or null when that does not apply.
 * Codex models often add an empty context line for the file's final newline; we retry without it
 * only when both the old and the new side end with an empty line, so nothing real is dropped.
 */
function withoutTrailingEmpty(lines: readonly HunkLine[]): HunkLine[] | null {
  let lastOld = -1
  let lastNew = -1
  for (let i = 0; i < lines.length; i++) {
    const op = (lines[i] as HunkLine).op
    if (op !== '+') lastOld = i
    if (op !== '-') lastNew = i
  }
  if (lastOld < 0 || lastNew < 0) return null
  const oldText = (lines[lastOld] as HunkLine).text
  const newText = (lines[lastNew] as HunkLine).text
  if (oldText !== '' || newText !== '') return null
  return lines.filter((_, i) => i !== lastOld && i !== lastNew)
}

/** Codex placement: after `cursor` (the end of the previous hunk), narrowed by @@ hints. */
export function locateCursor(
  ctx: LocateContext,
  hunk: LineHunk,
  cursor: number,
  claimed: readonly Claimed[] = [],
): Result<Location> {
  const first = locateCursorOnce(ctx, hunk, hunk.lines, cursor, claimed)
  if (first.ok || first.error.code !== 'MATCH_NOT_FOUND') return first
  // Models often leave several blank lines before *** End Patch; each reads as an empty context
  // line, so drop them one at a time (keeping as much context as still matches).
  // Never down to an empty old side: that would turn an anchored chunk into an append at the end.
  let trimmed = withoutTrailingEmpty(hunk.lines)
  while (trimmed !== null && oldSide(trimmed).length > 0) {
    const retry = locateCursorOnce(ctx, hunk, trimmed, cursor, claimed)
    if (retry.ok || retry.error.code !== 'MATCH_NOT_FOUND') return retry.ok ? retry : first
    trimmed = withoutTrailingEmpty(trimmed)
  }
  return fuzzCursor(ctx, hunk, cursor, claimed, first.error)
}

/**
 * The last resort for a chunk whose lines match nowhere (src/match/locate-fuzz.ts): after the
 * cursor, at the end for End of File, inside its hints' scopes. `notFound` stands when fuzz
 * finds nothing.
 */
function fuzzCursor(
  ctx: LocateContext,
  hunk: LineHunk,
  cursor: number,
  claimed: readonly Claimed[],
  notFound: EditErrorData,
): Result<Location> {
  let scopes: readonly Reading[] | undefined
  if (hunk.hints.length > 0) {
    const hints = resolveHints(ctx, hunk, cursor)
    if (!hints.ok) return fail(notFound)
    scopes = hints.value
  }
  const bounds = {
    from: cursor,
    claimed,
    mustStart: false,
    mustEnd: hunk.endOfFile,
    ...(scopes === undefined ? {} : { scopes }),
    ...(hunk.bodyOffset === undefined ? {} : { bodyOffset: hunk.bodyOffset }),
  }
  // Only the chunk as written: dropping its trailing empty lines as well would be a second guess.
  const found = locateFuzzed(ctx, hunk, hunk.lines, bounds, notFound)
  return found.ok ? ok(found.value.location) : found
}
