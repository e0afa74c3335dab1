// replace_range and delete_range: lines [start_line, end_line] of the current text (1-based,
// inclusive) become new_string's lines, or none; lines that pair with an unchanged old line keep
// its terminator (edit-splice.ts).
import { type EditDoc, wholeLines } from '../match/text-search.js'
import { ok, type Result } from '../result.js'
import { failAt, noOp, plural, type EditContext, type EditStep } from './edit-messages.js'
import { commonPairs, spliceWholeLines } from './edit-splice.js'

/** Replaces 1-based lines [startLine, endLine] of `doc` with newString's lines, in place. */
export function applyRange(
  doc: EditDoc,
  startLine: number,
  endLine: number,
  newString: string,
  ctx: EditContext,
): Result<EditStep> {
  const count = doc.table.length
  const integers = Number.isInteger(startLine) && Number.isInteger(endLine)
  const valid = integers && startLine >= 1 && startLine <= endLine
  if (!valid || endLine > count) {
    return failAt(
      ctx,
      'MATCH_OUT_OF_RANGE',
      `lines ${startLine}-${endLine} are outside ${ctx.path}, ` +
        `which has ${count} ${plural(count, 'line', 'lines')}`,
    )
  }
  const start = startLine - 1
  const span = endLine - startLine + 1
  const newLines = wholeLines(newString)
  const oldTexts = doc.table.texts(start, start + span)
  const pairs = commonPairs(oldTexts, newLines)
  const dominant = doc.table.dominant()
  // A no-op is judged on the bytes as written, not on the line texts: a lone CR that new_string
  // puts before a line break reads back as the CRLF it would replace.
  if (!spliceWholeLines(doc, start, span, newLines, pairs, dominant, { phantom: false })) {
    return noOp(ctx, `new_string equals lines ${startLine}-${endLine}`)
  }
  return ok({ warnings: [] })
}
