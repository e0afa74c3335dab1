// Fits a string edit's new lines to the whole lines it matched leniently, as the equivalent hunk
// would be written (src/match/location.ts, DECISIONS.md D-151): unchanged lines keep the file's
// own text, added lines are restyled to the file or take a replaced line's depth, or the edit is
// refused where their depth cannot be told (MATCH_INDENT_AMBIGUOUS) or where old and new lines
// pair two ways that write different lines (MATCH_PAIRING_AMBIGUOUS, D-150).
import { addedLineText, locatedIn } from '../match/location.js'
import { passWords, type EditPass } from '../match/pass-words.js'
import type { EditDoc } from '../match/text-search.js'
import { fail, ok, type Result } from '../result.js'
import type { HunkLine, LineHunk } from '../types.js'
import { failAt, type EditContext } from './edit-messages.js'
import { restylePass } from './edit-matches.js'
import { commonPairs, samePairs } from './edit-splice.js'

/**
 * The lines new_string puts in place of the whole lines it matched at `start`, as a hunk's would
 * be written (src/match/location.ts): unchanged lines keep the file's own text, not the edit's
 * lenient spelling of it; added lines are restyled to the file, or take the depth of the line
 * they replace, or the edit is refused MATCH_INDENT_AMBIGUOUS where their depth cannot be told.
 * After a lenient match, where a line repeated on both sides lets old_string and new_string
 * pair two ways that write different lines, MATCH_PAIRING_AMBIGUOUS.
 */
export function fitNewLines(
  doc: EditDoc,
  start: number,
  wanted: readonly string[],
  newLines: readonly string[],
  pairs: ReadonlyMap<number, number>,
  pass: EditPass,
  ctx: EditContext,
): Result<string[]> {
  const mine = placeNewLines(doc, start, wanted, newLines, pairs, pass, ctx)
  if (!mine.ok || pass === 'exact') return mine
  const other = commonPairs(wanted, newLines, 'last')
  if (samePairs(other, pairs)) return mine
  const theirs = placeNewLines(doc, start, wanted, newLines, other, pass, ctx)
  if (theirs.ok && theirs.value.every((line, k) => line === mine.value[k])) return mine
  return failAt(
    ctx,
    'MATCH_PAIRING_AMBIGUOUS',
    `old_string matched ${ctx.path} at line ${start + 1} only ${passWords(pass)}, and a line repeated in old_string and new_string lets them pair two ways that keep different lines of the file, so what the edit means is not certain; copy old_string exactly from the file`,
  )
}

/** fitNewLines for one given pairing of the matched lines with the new ones. */
export function placeNewLines(
  doc: EditDoc,
  start: number,
  wanted: readonly string[],
  newLines: readonly string[],
  pairs: ReadonlyMap<number, number>,
  pass: EditPass,
  ctx: EditContext,
): Result<string[]> {
  const lines = pairedHunkLines(wanted, newLines, pairs)
  const hunk: LineHunk = { patchLine: ctx.editNumber, hints: [], endOfFile: false, lines }
  const slice = (from: number, to: number) => doc.table.texts(from, to)
  const name = `edit ${ctx.editNumber}'s old_string`
  const loc = locatedIn(
    slice,
    doc.table.length,
    ctx.path,
    hunk,
    lines,
    start,
    restylePass(pass),
    [],
    name,
  )
  if (loc.refusal !== undefined) return fail({ ...loc.refusal, patchLine: ctx.editNumber })
  const out: string[] = []
  let fileIndex = start
  for (const [i, line] of loc.lines.entries()) {
    if (line.op === '+') out.push(addedLineText(loc, i, line))
    else {
      const own = doc.table.line(fileIndex++).text
      if (line.op === ' ') out.push(own)
    }
  }
  return ok(out)
}

/** The edit as hunk lines: paired lines as context, each change's removals before additions. */
function pairedHunkLines(
  wanted: readonly string[],
  newLines: readonly string[],
  pairs: ReadonlyMap<number, number>,
): HunkLine[] {
  const out: HunkLine[] = []
  let added: HunkLine[] = []
  let o = 0
  const upTo = (j: number) => {
    while (o < j) out.push({ op: '-', text: wanted[o++] as string })
    out.push(...added)
    added = []
  }
  for (const [k, text] of newLines.entries()) {
    const j = pairs.get(k)
    if (j === undefined) added.push({ op: '+', text })
    else {
      upTo(j)
      out.push({ op: ' ', text: wanted[j] as string })
      o = j + 1
    }
  }
  upTo(wanted.length)
  return out
}
