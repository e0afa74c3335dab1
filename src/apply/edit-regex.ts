// A regex replace (DECISIONS.md D-091): the pattern runs over the LF view of the current text
// through the injected RegexSearcher (src/apply/regex.ts); each chosen match is replaced by
// new_string with its $-patterns expanded, and the line breaks are written as for an exact
// old_string (edit-splice.ts).
import { type EditDoc, toLf, type Occurrence } from '../match/text-search.js'
import { ok, type Result } from '../result.js'
import type { StringEdit } from '../types.js'
import { expandReplacement, type RegexMatch } from './regex.js'
import { failAt, noOp, type EditContext, type EditStep } from './edit-messages.js'
import { chooseMatches, guardRewrite, occurrenceSpan } from './edit-matches.js'
import { replaceExact } from './edit-splice.js'

/**
 * A replace whose old_string is a regex: the matches in the current text, chosen as for any
 * replace, each rewritten by replaceExact.
 */
export function applyRegexReplace(
  doc: EditDoc,
  edit: Extract<StringEdit, { mode: 'replace' }>,
  ctx: EditContext,
): Result<EditStep> {
  const search = ctx.searchRegex
  if (search === undefined) {
    throw new Error('string-edits: cannot run a regex edit without a searcher (see D-091)')
  }
  const view = lfView(doc)
  const result = search(view.text, edit.oldString, edit.flags ?? '')
  if (!result.ok) {
    const detail = `the regex old_string did not finish searching ${ctx.path} within ${result.timeoutMs} ms`
    return failAt(ctx, 'MATCH_REGEX_TIMEOUT', detail)
  }
  const matches = result.matches
  if (matches.length === 0) {
    return failAt(ctx, 'MATCH_NOT_FOUND', `the regex old_string was not found in ${ctx.path}`)
  }
  const found = matches.map((m) => toOccurrence(view, m))
  const empty = matches.findIndex((m) => m.end === m.start)
  if (empty !== -1) {
    const line = (found[empty] as Occurrence).line + 1
    const detail =
      `the regex old_string matches the empty string (at line ${line} of ${ctx.path}); ` +
      'a regex edit must match at least one character everywhere it matches'
    return failAt(ctx, 'PARSE_BAD_EDIT', detail)
  }
  const chosen = chooseMatches(
    doc,
    found.map((o) => o.line + 1),
    edit,
    ctx,
    'the regex old_string',
  )
  if (!chosen.ok) return chosen
  const picked = chosen.value.map((k) => found[k] as Occurrence)
  const pickedMatches = chosen.value.map((k) => matches[k] as RegexMatch)
  const guard = guardRewrite(doc, edit, picked.map(occurrenceSpan), ctx)
  if (!guard.ok) return guard
  const template = toLf(edit.newString)
  const olds = pickedMatches.map((m) => view.text.slice(m.start, m.end))
  const news = pickedMatches.map((m) => expandReplacement(template, m, view.text))
  if (olds.every((o, k) => o === news[k])) {
    return noOp(ctx, 'the replacement equals the text the regex matched')
  }
  replaceExact(doc, picked, olds, news)
  return ok({ warnings: [] })
}

/** The current text's LF view and the view offset of each line's start (plus its length). */
interface LfView {
  readonly text: string
  readonly starts: readonly number[]
}

function lfView(doc: EditDoc): LfView {
  const lines = doc.table.lines(0, doc.table.length)
  const starts: number[] = []
  let text = ''
  for (const line of lines) {
    starts.push(text.length)
    text += line.eol === '' ? line.text : line.text + '\n'
  }
  starts.push(text.length)
  return { text, starts }
}

/** A view offset as (line, column); past a line's break is the next line's column 0. */
function viewPosition(view: LfView, p: number): [number, number] {
  let lo = 0
  let hi = view.starts.length - 2
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1
    if ((view.starts[mid] as number) <= p) lo = mid
    else hi = mid - 1
  }
  const lineStart = view.starts[lo] ?? 0
  const next = view.starts[lo + 1] ?? lineStart
  // Only the end of the view can lie past the last start: after a final break, or at the end
  // of an unterminated last line.
  return p === next && p > lineStart && view.text[p - 1] === '\n'
    ? [lo + 1, 0]
    : [lo, p - lineStart]
}

function toOccurrence(view: LfView, m: RegexMatch): Occurrence {
  const [line, col] = viewPosition(view, m.start)
  const [endLine, endCol] = viewPosition(view, m.end)
  return { line, col, endLine, endCol }
}
