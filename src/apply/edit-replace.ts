// A replace edit. An old_string found as an exact substring is rewritten in place; otherwise it
// must match whole lines: through the tabs rung when tolerant_whitespace is set, then the ladder
// (only its exact pass when strict is set). After a lenient match the new lines are fitted as a
// hunk's would be (edit-fit.ts), learning from the matched old_string lines. A regex
// replace is edit-regex.ts; edit-splice.ts writes the new text with its line endings.
import type { EditPass } from '../match/pass-words.js'
import {
  disjointStarts,
  type EditDoc,
  findTabLines,
  findWholeLines,
  toLf,
  wholeLines,
  type Occurrence,
  type Span,
} from '../match/text-search.js'
import { ok, type Result } from '../result.js'
import type { StringEdit } from '../types.js'
import {
  failAt,
  lenientWarnings,
  noOp,
  notFound,
  notText,
  type EditContext,
  type EditStep,
} from './edit-messages.js'
import { chooseMatches, guardRewrite, ladder, occurrenceSpan } from './edit-matches.js'
import { restatedLineDetail, stopTokenDetail } from './edit-guards.js'
import { fitNewLines } from './edit-fit.js'
import { commonPairs, replaceExact, spliceWholeLines, type SpliceState } from './edit-splice.js'
import { applyRegexReplace } from './edit-regex.js'

/** Applies one replace edit (a regex one through applyRegexReplace) to `doc`, in place. */
export function applyReplace(
  doc: EditDoc,
  edit: Extract<StringEdit, { mode: 'replace' }>,
  ctx: EditContext,
): Result<EditStep> {
  if (edit.oldString === '') {
    const detail = `old_string is empty; use mode write or insert to change ${ctx.path}`
    return failAt(ctx, 'PARSE_BAD_EDIT', detail)
  }
  // A stop token glued to new_string is the model's output ending (DECISIONS.md D-153).
  const glued = stopTokenDetail(ctx.path, edit.newString, edit.oldString)
  if (glued !== null) return failAt(ctx, 'PARSE_BAD_EDIT', glued)
  if (edit.regex === true) return applyRegexReplace(doc, edit, ctx)
  const oldLf = toLf(edit.oldString)
  const newLf = toLf(edit.newString)
  if (oldLf === newLf) return noOp(ctx, 'new_string equals old_string')
  const exact = doc.occurrences(oldLf)
  if (exact.length > 0) {
    const fileLines = exact.map((o) => o.line + 1)
    const chosen = chooseMatches(doc, fileLines, edit, ctx, 'old_string')
    if (!chosen.ok) return chosen
    const picked = chosen.value.map((k) => exact[k] as Occurrence)
    // An old_string cut mid-line with new_string restating the line (DECISIONS.md D-153).
    for (const o of picked) {
      const before = doc.table.line(o.line).text.slice(0, o.col)
      // A match ending with a line break ends at the start of a line (perhaps past the last).
      const after = oldLf.endsWith('\n') ? '' : doc.table.line(o.endLine).text.slice(o.endCol)
      const restated = restatedLineDetail(ctx.path, oldLf, newLf, before, after)
      if (restated !== null) return failAt(ctx, 'PARSE_BAD_EDIT', restated)
    }
    const guard = guardRewrite(doc, edit, picked.map(occurrenceSpan), ctx)
    if (!guard.ok) return guard
    replaceExact(
      doc,
      picked,
      picked.map(() => oldLf),
      picked.map(() => newLf),
    )
    return ok({ warnings: [] })
  }

  const wanted = wholeLines(oldLf)
  const found = findReplaceLines(doc, wanted, edit, ctx)
  if (!found.ok) return found
  const { pass } = found.value
  const allStarts = disjointStarts(found.value.starts, wanted.length)
  const chosen = chooseMatches(
    doc,
    allStarts.map((s) => s + 1),
    edit,
    ctx,
    'old_string',
  )
  if (!chosen.ok) return chosen
  const starts = chosen.value.map((k) => allStarts[k] as number)
  const spans = starts.map((s): Span => [s, s + wanted.length - 1])
  const guard = guardRewrite(doc, edit, spans, ctx)
  if (!guard.ok) return guard

  const newLines = wholeLines(edit.newString)
  const pairs = commonPairs(wanted, newLines)
  const dominant = doc.table.dominant()
  let unchanged = true
  // Every match is fitted to the text as this edit found it, before any start is rewritten.
  const rewritten: string[][] = []
  for (const s of starts) {
    const fitted = fitNewLines(doc, s, wanted, newLines, pairs, pass, ctx)
    if (!fitted.ok) return fitted
    const lines = fitted.value
    const fileSlice = doc.table.texts(s, s + wanted.length)
    if (lines.length !== fileSlice.length || lines.some((l, k) => l !== fileSlice[k])) {
      unchanged = false
    }
    rewritten.push(lines)
  }
  if (unchanged) return noOp(ctx, 'new_string, fitted to the file, equals the lines it matched')
  // Bottom-up, each against the lines as the later ones left them: deleting an unterminated
  // last line takes the break off the line before it, which may end the previous match.
  const state: SpliceState = { phantom: false }
  for (let m = starts.length - 1; m >= 0; m--) {
    const s = starts[m] as number
    spliceWholeLines(doc, s, wanted.length, rewritten[m] as string[], pairs, dominant, state)
  }
  return ok({ warnings: lenientWarnings(pass, starts, ctx) })
}

/**
 * Whole-line search for a replace after the exact substring search failed: the tabs rung when
 * tolerant_whitespace is set, then the ladder (only its exact pass when strict is set).
 */
function findReplaceLines(
  doc: EditDoc,
  wanted: readonly string[],
  edit: { readonly strict?: boolean; readonly tolerantWhitespace?: boolean },
  ctx: EditContext,
): Result<{ pass: EditPass; starts: number[] }> {
  if (edit.tolerantWhitespace === true && wanted.length > 0) {
    const starts = findTabLines(doc, wanted)
    if (starts.length > 0) {
      if (ctx.exactOnly) return notText(ctx, 'old_string', 'tabs')
      return ok({ pass: 'tabs', starts })
    }
  }
  if (edit.strict === true) {
    const found = findWholeLines(doc, wanted)
    if (found === null || found.pass !== 'exact')
      return notFound(doc, wanted, ctx, 'old_string', true)
    return ok(found)
  }
  return ladder(doc, wanted, ctx, 'old_string')
}
