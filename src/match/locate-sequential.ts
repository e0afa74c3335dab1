// SEARCH/REPLACE placement ('sequential'): anywhere in the current text, exactly once; a block
// with an empty old side appends.
import { ok, type Result } from '../result.js'
import type { MatchPass } from '../text/normalize.js'
import type { LineHunk } from '../types.js'
import { findLineMatchesIn } from './ladder.js'
import { locatedIn, oldSide, type LocateContext, type Location } from './location.js'
import { searchWith } from './locate-search.js'
import { ambiguousError, notFoundError, notTextError } from './locate-messages.js'

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
 * of its lines per hunk.
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
