// What replace and insert share once they have searched: the ladder search with its failures,
// the choice of the matches to change (occurrence, expected_matches, replace_all, or else one
// match only), the rewrite guard over them (src/apply/edit-guards.ts), and the lines a lenient
// match's restyle learns from.
import type { LineMatches } from '../match/ladder.js'
import { surroundingRange } from '../match/location.js'
import type { EditPass } from '../match/pass-words.js'
import {
  type EditDoc,
  findWholeLines,
  wholeLines,
  type Occurrence,
  type Span,
} from '../match/text-search.js'
import { ok, type Result } from '../result.js'
import type { MatchPass } from '../text/normalize.js'
import { isRewrite, rewriteDetail } from './edit-guards.js'
import {
  ambiguous,
  failAt,
  lineCandidates,
  listLines,
  notFound,
  notText,
  plural,
  type EditContext,
} from './edit-messages.js'

/** Texts of lines [start, end) and the lines around them that restyling looks at. */
export function viewOf(
  doc: EditDoc,
  start: number,
  end: number,
): { slice: string[]; surrounding: string[] } {
  const [lo, hi] = surroundingRange(start, end, doc.table.length)
  const surrounding = doc.table.texts(lo, hi)
  return { slice: surrounding.slice(start - lo, end - lo), surrounding }
}

/** The 0-based lines an exact occurrence touches (its final line break holds no next line). */
export function occurrenceSpan(o: Occurrence): Span {
  return [o.line, o.endCol === 0 && o.endLine > o.line ? o.endLine - 1 : o.endLine]
}

/** The restyle pass for new lines: the tabs rung re-indents like 'trim'. */
export function restylePass(pass: EditPass): MatchPass {
  return pass === 'tabs' ? 'trim' : pass
}

/**
 * EDIT_REWRITE_BLOCKED when the chosen matches and new_string look like a whole-file rewrite
 * through a replace (isRewrite); allow_rewrite lifts it.
 */
export function guardRewrite(
  doc: EditDoc,
  edit: { readonly newString: string; readonly allowRewrite?: boolean },
  spans: readonly Span[],
  ctx: EditContext,
): Result<true> {
  if (edit.allowRewrite === true) return ok(true)
  const length = doc.table.length
  const matched = new Set<number>()
  for (const [first, last] of spans) for (let i = first; i <= last; i++) matched.add(i)
  const rewrite = isRewrite(
    length,
    matched.size,
    wholeLines(edit.newString),
    (i) => doc.table.line(i).text,
    (i) => matched.has(i),
  )
  if (!rewrite) return ok(true)
  return failAt(ctx, 'EDIT_REWRITE_BLOCKED', rewriteDetail(ctx.path, length, matched.size))
}

/**
 * Applies occurrence / replace_all / expected_matches / uniqueness to the matches found (1-based
 * lines, in order): the indices of the matches to change.
 */
export function chooseMatches(
  doc: EditDoc,
  fileLines: readonly number[],
  edit: {
    readonly replaceAll?: boolean
    readonly expectedMatches?: number
    readonly occurrence?: number
  },
  ctx: EditContext,
  what: string,
): Result<number[]> {
  const count = fileLines.length
  if (edit.occurrence !== undefined) {
    const k = edit.occurrence > 0 ? edit.occurrence - 1 : count + edit.occurrence
    if (k >= 0 && k < count) return ok([k])
    return failAt(
      ctx,
      'MATCH_COUNT_MISMATCH',
      `occurrence ${edit.occurrence} of ${what} was asked for in ${ctx.path} but it matches ` +
        `${count} ${plural(count, 'place', 'places')} (${listLines(fileLines)})`,
      lineCandidates(doc, fileLines),
    )
  }
  const all = fileLines.map((_, k) => k)
  if (edit.expectedMatches !== undefined) {
    if (count === edit.expectedMatches) return ok(all)
    return failAt(
      ctx,
      'MATCH_COUNT_MISMATCH',
      `expected ${edit.expectedMatches} ${plural(edit.expectedMatches, 'match', 'matches')} ` +
        `of ${what} in ${ctx.path} but found ${count} (${listLines(fileLines)})`,
      lineCandidates(doc, fileLines),
    )
  }
  if (count === 1 || edit.replaceAll === true) return ok(all)
  return ambiguous(doc, fileLines, ctx, what)
}

/** findWholeLines, failing when nothing matches or a bytes-mode file matches only leniently. */
export function ladder(
  doc: EditDoc,
  wanted: readonly string[],
  ctx: EditContext,
  what: string,
): Result<LineMatches> {
  const found = findWholeLines(doc, wanted)
  if (found === null) return notFound(doc, wanted, ctx, what)
  if (found.pass !== 'exact' && ctx.exactOnly) return notText(ctx, what, found.pass)
  return ok(found)
}
