// A replace edit. An old_string found as an exact substring is rewritten in place; otherwise it
// must match whole lines: through the tabs rung when tolerant_whitespace is set, then the ladder
// (only its exact pass when strict is set). After a lenient match the new lines are restyled
// like hunk lines (src/match/restyle.ts), learning from the matched old_string lines. A regex
// replace is edit-regex.ts; edit-splice.ts writes the new text with its line endings.
import { locatedIn } from '../match/location.js'
import { passWords, type EditPass } from '../match/pass-words.js'
import { restyleLine } from '../match/restyle.js'
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
import { fail, ok, type Result } from '../result.js'
import type { HunkLine, LineHunk, StringEdit } from '../types.js'
import {
  failAt,
  lenientWarnings,
  noOp,
  notFound,
  notText,
  type EditContext,
  type EditStep,
} from './edit-messages.js'
import { chooseMatches, guardRewrite, ladder, occurrenceSpan, restylePass } from './edit-matches.js'
import {
  commonPairs,
  replaceExact,
  samePairs,
  spliceWholeLines,
  type SpliceState,
} from './edit-splice.js'
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
 * The lines new_string puts in place of the whole lines it matched at `start`, as a hunk's would
 * be written (src/match/location.ts): unchanged lines keep the file's own text, not the edit's
 * lenient spelling of it; added lines are restyled to the file, or take the depth of the line
 * they replace, or the edit is refused MATCH_INDENT_AMBIGUOUS where their depth cannot be told.
 * After a lenient match, where a line repeated on both sides lets old_string and new_string
 * pair two ways that write different lines, MATCH_PAIRING_AMBIGUOUS.
 */
function fitNewLines(
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

/** fitNewLines for one pairing of old_string's lines with new_string's. */
function placeNewLines(
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
    if (line.op === '+') {
      const fixed = loc.fileIndented?.includes(i) === true
      out.push(restyleLine(line.text, fixed ? { ...loc.restyle, indent: null } : loc.restyle))
    } else {
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
