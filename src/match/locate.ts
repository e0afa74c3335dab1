// Locates one hunk in a file's lines, per LocateMode: 'cursor' (Codex: in order, after the
// previous hunk, bounded by @@ hints), 'near-line' (unified: nearest to the stated line, as GNU
// patch), 'sequential' (SEARCH/REPLACE: anywhere in the current text, must be unique). Every mode
// climbs the ladder (exact -> trim-end -> trim -> fold) and refuses rather than guesses:
// MATCH_AMBIGUOUS when two places fit equally, MATCH_NOT_FOUND with near-miss candidates.
// Hints (D-025): each place the first hint matches after the cursor is one reading; each later
// hint is the first match inside the previous one's scope (src/match/scope.ts). The hunk must fit
// exactly once inside the readings' scopes, the ladder climbed per scope, and change nothing past
// the scope's end (trailing context may run on). Two fits, in one scope (D-079) or in two
// readings, are ambiguous; none at all is MATCH_NOT_FOUND naming where the lines are outside.
// It computes positions only; splicing the lines is src/apply/apply-hunks.ts's job.
import type { Candidate } from '../errors.js'
import { errorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import { MATCH_PASSES, type MatchPass } from '../text/normalize.js'
import type { HunkLine, LineHunk, Warning } from '../types.js'
import { findCandidates, MAX_CANDIDATES, previewOf } from './candidates.js'
import { findLineMatchesIn, findStartsInPass, type LineIndex } from './ladder.js'
import { deriveRestyle, IDENTITY_RESTYLE, type Restyle } from './restyle.js'
import { passWords } from './pass-words.js'
import { hintScopeEnd } from './scope.js'

/** Where a hunk goes: lines [start, start + oldLength) of the searched text are replaced. */
export interface Location {
  /** 0-based first line replaced, or the insertion index when oldLength is 0. */
  readonly start: number
  readonly oldLength: number
  /** The hunk's lines as applied (a spurious trailing empty line may have been dropped). */
  readonly lines: readonly HunkLine[]
  /** The ladder pass that matched; null for a pure insertion, which matches nothing. */
  readonly pass: MatchPass | null
  readonly restyle: Restyle
  readonly warnings: readonly Warning[]
}

export interface LocateContext {
  readonly index: LineIndex
  readonly path: string
  /** Bytes-mode file: only the exact pass may match (FILE_NOT_TEXT otherwise). */
  readonly exactOnly: boolean
  /**
   * false: a MATCH_NOT_FOUND carries no near-miss candidates. Finding them scores every line of
   * the searched region; history replay, which only counts refusals, skips that (#10).
   */
  readonly candidates?: boolean
}

/** A previously located hunk's range, for overlap reports. */
export interface Claimed {
  readonly start: number
  readonly end: number
}

/**
 * Lines on each side of a lenient match that reveal the file's indentation unit. PERF: bounded so
 * a lenient hunk in a huge file costs a window, not a file scan.
 */
const SURROUNDING = 400

/** Line numbers an ambiguity message spells out before it says "and N more". */
const MAX_AMBIGUOUS_LISTED = 10

export function oldSide(lines: readonly HunkLine[]): string[] {
  const out: string[] = []
  for (const line of lines) if (line.op !== '+') out.push(line.text)
  return out
}

export function newSide(lines: readonly HunkLine[]): string[] {
  const out: string[] = []
  for (const line of lines) if (line.op !== '-') out.push(line.text)
  return out
}

type Search =
  | { readonly kind: 'found'; readonly pass: MatchPass; readonly starts: number[] }
  | { readonly kind: 'none' }
  /** Bytes-mode file where only a lenient pass would match. */
  | { readonly kind: 'not-text'; readonly pass: MatchPass }

function search(
  ctx: LocateContext,
  wanted: readonly string[],
  from: number,
  to: number,
  limit = Infinity,
): Search {
  const find: LineFinder = (passes, max) =>
    findLineMatchesIn(ctx.index, wanted, from, to, passes, max)
  return searchWith(find, ctx.exactOnly, limit)
}

/** A ladder search for one block in some range, under `passes`, at most `limit` starts. */
type LineFinder = (
  passes: readonly MatchPass[],
  limit: number,
) => { pass: MatchPass; starts: number[] } | null

function searchWith(find: LineFinder, exactOnly: boolean, limit: number): Search {
  const passes: readonly MatchPass[] = exactOnly ? ['exact'] : MATCH_PASSES
  const found = find(passes, limit)
  if (found !== null) return { kind: 'found', pass: found.pass, starts: found.starts }
  if (exactOnly) {
    const lenient = find(MATCH_PASSES.slice(1), 1)
    if (lenient !== null) return { kind: 'not-text', pass: lenient.pass }
  }
  return { kind: 'none' }
}

function quote(text: string): string {
  const short = text.length > 60 ? `${text.slice(0, 60)}...` : text
  return JSON.stringify(short)
}

function hunkName(hunk: LineHunk): string {
  return `the hunk at patch line ${hunk.patchLine}`
}

function notTextError<T>(
  ctx: Pick<LocateContext, 'path'>,
  hunk: LineHunk,
  pass: MatchPass,
): Result<T> {
  return fail(
    errorData(
      'FILE_NOT_TEXT',
      `${ctx.path} is not UTF-8 text and ${hunkName(hunk)} matches it only ${passWords(pass)}; a byte-exact match is required.`,
      { path: ctx.path, patchLine: hunk.patchLine },
    ),
  )
}

function exactCandidates(
  ctx: LocateContext,
  starts: readonly number[],
  length: number,
): Candidate[] {
  return starts.map((s) => ({
    fileLine: s + 1,
    score: 1,
    preview: previewOf(ctx.index.lines, s, length),
  }))
}

/**
 * 1-based line numbers of 0-based starts for a message. A one-line block such as `}` can match
 * thousands of times; the answer to an agent stays small: the first MAX_AMBIGUOUS_LISTED lines,
 * then how many more (and MAX_CANDIDATES candidates beside the message).
 */
function listedLines(starts: readonly number[]): string {
  const listed = starts
    .slice(0, MAX_AMBIGUOUS_LISTED)
    .map((s) => s + 1)
    .join(', ')
  const more = starts.length - MAX_AMBIGUOUS_LISTED
  return more > 0 ? `${listed} and ${more} more` : listed
}

function ambiguousError<T>(
  ctx: LocateContext,
  hunk: LineHunk,
  starts: readonly number[],
  length: number,
  why: string,
): Result<T> {
  return fail(
    errorData(
      'MATCH_AMBIGUOUS',
      `${capitalise(hunkName(hunk))} ${why} in ${ctx.path} at lines ${listedLines(starts)}; add context to make it unique.`,
      {
        path: ctx.path,
        patchLine: hunk.patchLine,
        candidates: exactCandidates(ctx, starts.slice(0, MAX_CANDIDATES), length),
      },
    ),
  )
}

/** Near misses within [from, to), with fileLine in whole-file numbering. */
function regionCandidates(
  ctx: LocateContext,
  wanted: readonly string[],
  from: number,
  to: number,
): Candidate[] {
  if (ctx.candidates === false) return []
  const lines = ctx.index.lines
  const lo = Math.max(0, Math.min(from, lines.length))
  const hi = Math.max(lo, Math.min(to, lines.length))
  const region = lo === 0 && hi === lines.length ? lines : lines.slice(lo, hi)
  return findCandidates(region, wanted).map((c) => ({ ...c, fileLine: c.fileLine + lo }))
}

/**
 * The failure for a block that is not in [from, to): MATCH_OVERLAP when it would match on lines
 * an earlier hunk already claimed, otherwise MATCH_NOT_FOUND with candidates from the region.
 */
function notFoundError<T>(
  ctx: LocateContext,
  hunk: LineHunk,
  wanted: readonly string[],
  from: number,
  to: number,
  claimed: readonly Claimed[],
  what = 'its lines',
): Result<T> {
  if (claimed.length > 0 && wanted.length > 0) {
    const anywhere = search(ctx, wanted, 0, ctx.index.lines.length)
    if (anywhere.kind === 'found') {
      for (const s of anywhere.starts) {
        const e = s + wanted.length
        const hit = claimed.find((c) => s < c.end && e > c.start)
        if (hit !== undefined) {
          return fail(
            errorData(
              'MATCH_OVERLAP',
              `${capitalise(hunkName(hunk))} matches ${ctx.path} only at lines ${s + 1}-${e}, which overlap lines ${hit.start + 1}-${hit.end} claimed by an earlier hunk.`,
              { path: ctx.path, patchLine: hunk.patchLine },
            ),
          )
        }
      }
    }
  }
  const first = wanted.find((t) => t.trim() !== '') ?? wanted[0] ?? ''
  const total = ctx.index.lines.length
  let candidates = regionCandidates(ctx, wanted, from, to)
  let where = ''
  if (from > 0 && from < total) where = ` after line ${from}`
  // Near misses outside the region (say, before an earlier Codex chunk) still tell the agent
  // where its context is, and that its chunks are out of order.
  if (candidates.length === 0 && (from > 0 || to < total)) {
    candidates = regionCandidates(ctx, wanted, 0, total)
    if (candidates.length > 0 && where !== '') where += ' (the candidates lie outside that region)'
  }
  return fail(
    errorData(
      'MATCH_NOT_FOUND',
      `Could not find ${what} for ${hunkName(hunk)} in ${ctx.path}${where} (first line ${quote(first)}).`,
      { path: ctx.path, patchLine: hunk.patchLine, candidates },
    ),
  )
}

function lenientWarning(
  ctx: Pick<LocateContext, 'path'>,
  hunk: LineHunk,
  pass: MatchPass,
  start: number,
): Warning[] {
  if (pass === 'exact') return []
  return [
    {
      code: 'match.lenient',
      message: `${capitalise(hunkName(hunk))} matched ${ctx.path} at line ${start + 1} only ${passWords(pass)} (pass '${pass}').`,
      path: ctx.path,
      patchLine: hunk.patchLine,
    },
  ]
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** File lines in view when learning the file's indentation style (bounded, see SURROUNDING). */
export function surroundingLines(
  lines: readonly string[],
  start: number,
  end: number,
): readonly string[] {
  const [lo, hi] = surroundingRange(start, end, lines.length)
  return lines.slice(lo, hi)
}

/** The [lo, hi) line range surroundingLines gives for lines [start, end) of `total` lines. */
export function surroundingRange(start: number, end: number, total: number): [number, number] {
  return [Math.max(0, start - SURROUNDING), Math.min(total, end + SURROUNDING)]
}

function located(
  ctx: LocateContext,
  hunk: LineHunk,
  lines: readonly HunkLine[],
  start: number,
  pass: MatchPass | null,
  extraWarnings: readonly Warning[] = [],
): Location {
  const slice = (from: number, to: number) => ctx.index.lines.slice(from, to)
  return locatedIn(slice, ctx.index.lines.length, ctx.path, hunk, lines, start, pass, extraWarnings)
}

/** located() over any text that can hand out slices of its lines. */
function locatedIn(
  slice: (from: number, to: number) => readonly string[],
  total: number,
  path: string,
  hunk: LineHunk,
  lines: readonly HunkLine[],
  start: number,
  pass: MatchPass | null,
  extraWarnings: readonly Warning[] = [],
): Location {
  const old = oldSide(lines)
  let restyle = IDENTITY_RESTYLE
  // Only 'trim' and 'fold' restyle (deriveRestyle); the others need no slice of the file.
  if (pass === 'trim' || pass === 'fold') {
    const [lo, hi] = surroundingRange(start, start + old.length, total)
    const surrounding = slice(lo, hi)
    restyle = deriveRestyle(surrounding.slice(start - lo, start - lo + old.length), old, pass, {
      added: lines.filter((l) => l.op === '+').map((l) => l.text),
      surrounding,
    })
  }
  const warnings = pass === null ? [] : lenientWarning({ path }, hunk, pass, start)
  return {
    start,
    oldLength: old.length,
    lines,
    pass,
    restyle,
    warnings: [...warnings, ...extraWarnings],
  }
}

// ---------------------------------------------------------------------------------------------
// 'cursor' (Codex)

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
 * Whether a hunk placed at `start` changes only lines inside [.., end): its removed lines lie
 * before `end` and its added lines go in at `end` at the latest. Context may run past the
 * scope's end (models often quote the next function's first line as trailing context).
 */
export function changesWithin(lines: readonly HunkLine[], start: number, end: number): boolean {
  let fileIndex = start
  for (const line of lines) {
    if (line.op === '+') {
      if (fileIndex > end) return false
    } else {
      if (line.op === '-' && fileIndex >= end) return false
      fileIndex++
    }
  }
  return true
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

/**
 * Every place inside one hint reading's scope where the hunk fits, in the first ladder pass with
 * any, climbing the ladder for this scope alone (D-025): a fit starts in [hint, end) and changes
 * nothing past the scope. Two fits in one scope are ambiguous (D-079): the hint does not say
 * which, and taking the first landed a real commit's hunk 31 lines early. Spills come back too:
 * beside a fit elsewhere, they make the hunk ambiguous (D-087).
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
  return first
}

// ---------------------------------------------------------------------------------------------
// 'near-line' (unified)

/**
 * Where a unified hunk must sit when it lacks context on a side, as git apply reads it (D-129):
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
    return notFoundError(ctx, hunk, old, minStart, total, claimed)
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

// ---------------------------------------------------------------------------------------------
// 'sequential' (SEARCH/REPLACE)

/** SEARCH/REPLACE placement: anywhere in the current text, exactly once; empty old side appends. */
export function locateSequential(ctx: LocateContext, hunk: LineHunk): Result<Location> {
  const total = ctx.index.lines.length
  const text: SequentialText = {
    length: total,
    path: ctx.path,
    exactOnly: ctx.exactOnly,
    find: (wanted, passes, limit) => findLineMatchesIn(ctx.index, wanted, 0, total, passes, limit),
    slice: (from, to) => ctx.index.lines.slice(from, to),
    context: () => ctx,
  }
  return locateSequentialIn(text, hunk)
}

/**
 * The current text of a file under sequential placement, as locateSequentialIn reads it, so a
 * caller that keeps the text in another shape (src/text/line-table.ts) need not build an array
 * of its lines per hunk (issue #9).
 */
export interface SequentialText {
  readonly length: number
  readonly path: string
  readonly exactOnly: boolean
  /** findLineMatchesIn over the whole text. */
  find(
    wanted: readonly string[],
    passes: readonly MatchPass[],
    limit: number,
  ): { pass: MatchPass; starts: number[] } | null
  /** The texts of lines [from, to). */
  slice(from: number, to: number): readonly string[]
  /** A context over the whole text; asked for only to report a failure. */
  context(): LocateContext
}

/** locateSequential over a SequentialText: the same placement, warnings and errors. */
export function locateSequentialIn(text: SequentialText, hunk: LineHunk): Result<Location> {
  const total = text.length
  const old = oldSide(hunk.lines)
  const place = (start: number, pass: MatchPass | null): Location =>
    locatedIn(text.slice, total, text.path, hunk, hunk.lines, start, pass)
  if (old.length === 0) return ok(place(total, null))
  const found = searchWith((passes, max) => text.find(old, passes, max), text.exactOnly, Infinity)
  if (found.kind === 'not-text') return notTextError(text, hunk, found.pass)
  if (found.kind === 'none') return notFoundError(text.context(), hunk, old, 0, total, [])
  if (found.starts.length > 1) {
    return ambiguousError(text.context(), hunk, found.starts, old.length, 'matches')
  }
  return ok(place(found.starts[0] as number, found.pass))
}
