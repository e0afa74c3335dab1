// The ladder search the hunk locators run over a range of a file's lines: the first pass with
// any match decides. A bytes-mode file may match only exactly; when a lenient pass would have
// matched, the search says so, and the locator reports FILE_NOT_TEXT rather than MATCH_NOT_FOUND.
import { MATCH_PASSES, type MatchPass } from '../text/normalize.js'
import { findLineMatchesIn } from './ladder.js'
import type { LocateContext } from './location.js'

export type Search =
  | { readonly kind: 'found'; readonly pass: MatchPass; readonly starts: number[] }
  | { readonly kind: 'none' }
  /** Bytes-mode file where only a lenient pass would match. */
  | { readonly kind: 'not-text'; readonly pass: MatchPass }

export function search(
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
export type LineFinder = (
  passes: readonly MatchPass[],
  limit: number,
) => { pass: MatchPass; starts: number[] } | null

export function searchWith(find: LineFinder, exactOnly: boolean, limit: number): Search {
  const passes: readonly MatchPass[] = exactOnly ? ['exact'] : MATCH_PASSES
  const found = find(passes, limit)
  if (found !== null) return { kind: 'found', pass: found.pass, starts: found.starts }
  if (exactOnly) {
    const lenient = find(MATCH_PASSES.slice(1), 1)
    if (lenient !== null) return { kind: 'not-text', pass: lenient.pass }
  }
  return { kind: 'none' }
}
