// The failures the hunk locators share: MATCH_NOT_FOUND with near-miss candidates (MATCH_OVERLAP
// when the lines match only where an earlier hunk went), MATCH_AMBIGUOUS when two places fit
// equally, and FILE_NOT_TEXT. src/match/pass-words.ts words the pass a message names.
import type { Candidate } from '../errors.js'
import { errorData } from '../errors.js'
import { fail, type Result } from '../result.js'
import type { MatchPass } from '../text/normalize.js'
import type { LineHunk } from '../types.js'
import { findCandidates, MAX_CANDIDATES, previewOf } from './candidates.js'
import { passWords } from './pass-words.js'
import { capitalise, hunkName, type Claimed, type LocateContext } from './location.js'
import { search } from './locate-search.js'

/** Line numbers an ambiguity message spells out before it says "and N more". */
export const MAX_AMBIGUOUS_LISTED = 10

export function quote(text: string): string {
  const short = text.length > 60 ? `${text.slice(0, 60)}...` : text
  return JSON.stringify(short)
}

/**
 * 1-based line numbers of 0-based starts for a message. A one-line block such as `}` can match
 * thousands of times; the answer to an agent stays small: the first MAX_AMBIGUOUS_LISTED lines,
 * then how many more (and MAX_CANDIDATES candidates beside the message).
 */
export function listedLines(starts: readonly number[]): string {
  const listed = starts
    .slice(0, MAX_AMBIGUOUS_LISTED)
    .map((s) => s + 1)
    .join(', ')
  const more = starts.length - MAX_AMBIGUOUS_LISTED
  return more > 0 ? `${listed} and ${more} more` : listed
}

export function exactCandidates(
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

/** Near misses within [from, to), with fileLine in whole-file numbering. */
export function regionCandidates(
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

export function notTextError<T>(
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

export function ambiguousError<T>(
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

/**
 * MATCH_OVERLAP when lines [start, end) overlap lines a hunk claimed, else null. `how` is what
 * the message says before "only at lines" (how the hunk matches there), `by` who claimed them.
 */
export function overlapError<T>(
  ctx: LocateContext,
  hunk: LineHunk,
  start: number,
  end: number,
  claimed: readonly Claimed[],
  by: string,
  how = '',
): Result<T> | null {
  const hit = claimed.find((c) => start < c.end && end > c.start)
  if (hit === undefined) return null
  return fail(
    errorData(
      'MATCH_OVERLAP',
      `${capitalise(hunkName(hunk))} matches ${ctx.path} ${how}only at lines ${start + 1}-${end}, which overlap lines ${hit.start + 1}-${hit.end} claimed by ${by}.`,
      { path: ctx.path, patchLine: hunk.patchLine },
    ),
  )
}

/**
 * The failure for a block that is not in [from, to): MATCH_OVERLAP when it would match on lines
 * an earlier hunk already claimed, otherwise MATCH_NOT_FOUND with candidates from the region.
 */
export function notFoundError<T>(
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
        const overlap = overlapError<T>(ctx, hunk, s, s + wanted.length, claimed, 'an earlier hunk')
        if (overlap !== null) return overlap
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
