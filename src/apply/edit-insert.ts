// An insert edit: new lines before or after the line(s) of an anchor. The anchor is found as an
// exact substring, else through the tabs rung when tolerant_whitespace is set, else (unless
// strict is set) through the ladder: a one-line anchor may be part of a line, a longer one must
// match whole lines. After a lenient match the new lines are fitted as a hunk's would be
// (edit-fit.ts), learning from the anchor.
import type { EditPass } from '../match/pass-words.js'
import {
  type EditDoc,
  exactSpans,
  findLenientInLine,
  findTabInLine,
  findTabLines,
  findWholeLines,
  tabKey,
  toLf,
  wholeLines,
  type Span,
} from '../match/text-search.js'
import { ok, type Result } from '../result.js'
import { joinLines, type Line } from '../text/lines.js'
import { normalizeLine, type MatchPass } from '../text/normalize.js'
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
import { chooseMatches, ladder } from './edit-matches.js'
import { placeNewLines } from './edit-fit.js'
import { stopTokenDetail } from './edit-guards.js'

/** Applies one insert edit to `doc`, in place. */
export function applyInsert(
  doc: EditDoc,
  edit: Extract<StringEdit, { mode: 'insert' }>,
  ctx: EditContext,
): Result<EditStep> {
  const text = toLf(edit.anchor)
  if (text.replace(/\n+$/, '') === '') {
    return failAt(ctx, 'PARSE_BAD_EDIT', `the anchor for ${ctx.path} is empty or only line breaks`)
  }
  // One final break ends the anchor's last line; more are blank lines of the anchor (`}` and the
  // blank line after it: an insert after it goes below the blank line). DECISIONS.md D-155.
  const blankTail = text.endsWith('\n\n')
  const anchorLf = blankTail ? text.slice(0, -1) : text.replace(/\n+$/, '')
  const inserted = wholeLines(edit.newString)
  if (inserted.length === 0) return noOp(ctx, 'new_string is empty')
  // A stop token glued to new_string is the model's output ending (DECISIONS.md D-153).
  const glued = stopTokenDetail(ctx.path, edit.newString, '')
  if (glued !== null) return failAt(ctx, 'PARSE_BAD_EDIT', glued)
  // Blank lines ending the anchor are found with their breaks, so a line that follows `}` but is
  // not blank does not match; the span then ends on the last blank line, not the line after.
  let spans = blankTail
    ? exactSpans(doc, text).map(([first, last]): Span => [first, last - 1])
    : exactSpans(doc, anchorLf)
  let pass: EditPass = 'exact'
  if (spans.length === 0) {
    const other = otherAnchorSpans(doc, anchorLf, edit, ctx)
    if (!other.ok) return other
    ;({ pass, spans } = other.value)
  }
  const chosen = chooseMatches(
    doc,
    spans.map(([first]) => first + 1),
    edit,
    ctx,
    'anchor',
  )
  if (!chosen.ok) return chosen
  const [first, last] = spans[chosen.value[0] as number] as [number, number]

  const dominant = doc.table.dominant()
  const fitted = fitInserted(doc, anchorLf, first, pass, inserted, edit.position, ctx)
  if (!fitted.ok) return fitted
  const fresh: Line[] = fitted.value.map((text) => ({ text, eol: dominant }))
  if (edit.position === 'before') {
    doc.replaceText(first, first, joinLines(fresh))
  } else {
    const anchorLine = doc.table.line(last)
    if (anchorLine.eol === '') {
      // After an unterminated last line: the anchor gains a break, the new last line lacks one.
      fresh[fresh.length - 1] = { text: (fresh[fresh.length - 1] as Line).text, eol: '' }
      doc.replaceText(last, last + 1, anchorLine.text + dominant + joinLines(fresh))
    } else {
      doc.replaceText(last + 1, last + 1, joinLines(fresh))
    }
  }
  const warnings = pass === 'exact' ? [] : lenientWarnings(pass, [first], ctx, 'anchor')
  return ok({ warnings })
}

/**
 * Applies an insert at a line number, in place: new_string's lines go after line `afterLine`
 * (0: before the first line) with the file's dominant ending. After an unterminated last line,
 * that line gains the ending and the new last line lacks one, as an anchored insert does.
 */
export function applyInsertAtLine(
  doc: EditDoc,
  edit: Extract<StringEdit, { mode: 'insert_line' }>,
  ctx: EditContext,
): Result<EditStep> {
  const count = doc.table.length
  if (edit.afterLine > count) {
    return failAt(
      ctx,
      'MATCH_OUT_OF_RANGE',
      `after_line ${edit.afterLine} is past the end of ${ctx.path}, which has ${count} ${count === 1 ? 'line' : 'lines'} (give 0 to ${count})`,
    )
  }
  const inserted = wholeLines(edit.newString)
  if (inserted.length === 0) return noOp(ctx, 'new_string is empty')
  const glued = stopTokenDetail(ctx.path, edit.newString, '')
  if (glued !== null) return failAt(ctx, 'PARSE_BAD_EDIT', glued)
  const dominant = doc.table.dominant()
  const fresh: Line[] = inserted.map((text) => ({ text, eol: dominant }))
  const at = edit.afterLine
  const before = at === 0 ? undefined : doc.table.line(at - 1)
  if (before !== undefined && before.eol === '') {
    fresh[fresh.length - 1] = { text: (fresh[fresh.length - 1] as Line).text, eol: '' }
    doc.replaceText(at - 1, at, before.text + dominant + joinLines(fresh))
  } else {
    doc.replaceText(at, at, joinLines(fresh))
  }
  return ok({ warnings: [] })
}

/**
 * Anchor search after the exact one failed: the tabs rung when tolerant_whitespace is set (a
 * one-line anchor may be part of a line, a longer one matches whole lines), then the ladder
 * unless strict is set (strict keeps only the ladder's exact line-by-line pass).
 */
function otherAnchorSpans(
  doc: EditDoc,
  anchorLf: string,
  edit: { readonly strict?: boolean; readonly tolerantWhitespace?: boolean },
  ctx: EditContext,
): Result<{ pass: EditPass; spans: Span[] }> {
  const wanted = anchorLf.split('\n')
  if (edit.tolerantWhitespace === true) {
    const spans =
      wanted.length > 1
        ? findTabLines(doc, wanted).map((s): Span => [s, s + wanted.length - 1])
        : findTabInLine(doc, anchorLf)
    if (spans.length > 0) {
      if (ctx.exactOnly) return notText(ctx, 'anchor', 'tabs')
      return ok({ pass: 'tabs', spans })
    }
  }
  if (edit.strict === true) {
    const found = wanted.length > 1 ? findWholeLines(doc, wanted) : null
    if (found === null || found.pass !== 'exact') return notFound(doc, wanted, ctx, 'anchor', true)
    return ok({ pass: 'exact', spans: found.starts.map((s): Span => [s, s + wanted.length - 1]) })
  }
  return lenientSpans(doc, anchorLf, ctx)
}

/**
 * The inserted lines as written at a lenient anchor: a leniently matched anchor tells how the
 * edit's indentation maps onto the file's, so the lines are fitted as a hunk of the anchor's
 * lines and the new ones would be (edit-fit.ts): restyled, or refused MATCH_INDENT_AMBIGUOUS
 * where the anchor's indentation was flattened and their depth cannot be told. Kept as written
 * for an exact anchor, and for one in the middle of a line, which says nothing about indentation.
 */
function fitInserted(
  doc: EditDoc,
  anchorLf: string,
  first: number,
  pass: EditPass,
  inserted: readonly string[],
  position: 'before' | 'after',
  ctx: EditContext,
): Result<string[]> {
  if (pass === 'exact') return ok([...inserted])
  const wanted = anchorLf.split('\n')
  if (wanted.length === 1) {
    const norm = (text: string): string =>
      pass === 'tabs' ? tabKey(text) : normalizeLine(text, pass)
    const line = doc.table.line(first).text
    if (!norm(line).startsWith(norm(wanted[0] as string))) return ok([...inserted])
  }
  const after = position === 'after'
  const newLines = after ? [...wanted, ...inserted] : [...inserted, ...wanted]
  const offset = after ? 0 : inserted.length
  const pairs = new Map(wanted.map((_, j) => [j + offset, j] as const))
  const placed = placeNewLines(doc, first, wanted, newLines, pairs, pass, ctx)
  if (!placed.ok) return placed
  return ok(after ? placed.value.slice(wanted.length) : placed.value.slice(0, inserted.length))
}

/**
 * Lenient anchor search. A one-line anchor may still be part of a line (compared after the
 * pass's normalisation); a multi-line anchor must match whole lines.
 */
function lenientSpans(
  doc: EditDoc,
  anchorLf: string,
  ctx: EditContext,
): Result<{ pass: MatchPass; spans: Span[] }> {
  const wanted = anchorLf.split('\n')
  if (wanted.length > 1) {
    const found = ladder(doc, wanted, ctx, 'anchor')
    if (!found.ok) return found
    const spans = found.value.starts.map((s): Span => [s, s + wanted.length - 1])
    return ok({ pass: found.value.pass, spans })
  }
  const found = findLenientInLine(doc, anchorLf)
  if (found === null) return notFound(doc, wanted, ctx, 'anchor')
  if (ctx.exactOnly) return notText(ctx, 'anchor', found.pass)
  return ok(found)
}
