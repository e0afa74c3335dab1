// Applies JSON string edits (replace, insert, replace_range, delete_range, write) to one file's
// decoded text. Pure: reading, expected_hash checks, BOM and byte conversion are the caller's
// (in bytes mode the caller has already passed every edit string through toModeText).
//
// Edits apply in order, each to the result of the previous one, so the line numbers of a range
// edit refer to the text as it is when that edit runs, not to the original file.
// Line endings: old_string and anchors match CRLF, LF and lone CR alike (text-search.ts compares
// them with an LF view of the lines); line breaks that pair with an unchanged old line
// keep its terminator, new ones take the file's dominant ending, and the last touched line keeps
// its own.
// After a lenient match, new lines are restyled like hunk lines (src/match/restyle.ts): a
// replace's new lines learn from the matched old_string lines, an insert's from its anchor.
// One EditDoc (a line table, src/text/line-table.ts) carries all of a file's edits (issue #9,
// D-070): each edit reads and rewrites only the lines it touches and re-splits only those, so a
// request costs the file's size once plus its edits, and the diff is rendered from the regions
// the table records (D-071). The result is the same as re-splitting the whole text before every
// edit, intermediate states included (test/helpers/string-edits-oracle.ts and its property test).
// Edit modes of #11: `occurrence` picks one match among several; `regex` searches the LF view
// through an injected RegexSearcher (D-091, src/apply/regex.ts) and replaces exactly; `strict`
// drops the lenient passes; `tolerant_whitespace` adds a whole-line rung where a tab in leading
// indentation counts as four spaces (D-092); the rewrite guard (D-093) and the no-op rule (D-094)
// refuse edits that found their place but would do the wrong thing (src/apply/edit-guards.ts).
// Only the array differ: importing 'diff' whole loads every module of jsdiff (~20 ms at startup).
import { diffArrays } from 'diff/lib/diff/array.js'
import type { Candidate } from '../errors.js'
import { errorData } from '../errors.js'
import { findCandidates, MAX_CANDIDATES, previewOf } from '../match/candidates.js'
import { surroundingRange } from '../match/locate.js'
import { passWords, type EditPass } from '../match/pass-words.js'
import { deriveRestyle, restyleLine, type Restyle } from '../match/restyle.js'
import { fail, ok, type Result } from '../result.js'
import type { TableRegion } from '../text/line-table.js'
import { joinLines, type Eol, type Line } from '../text/lines.js'
import { normalizeLine, type MatchPass } from '../text/normalize.js'
import type { StringEdit, Warning } from '../types.js'
import type { LineMatches } from '../match/ladder.js'
import {
  disjointStarts,
  EditDoc,
  exactSpans,
  findLenientInLine,
  findWholeLines,
  toLf,
  wholeLines,
  type Occurrence,
  type Span,
} from '../match/text-search.js'
import { isRewrite, noOpDetail, rewriteDetail } from './edit-guards.js'
import { expandReplacement, type RegexMatch, type RegexSearcher } from './regex.js'

export interface StringEditsInput {
  /** Decoded content without BOM; ignored when `exists` is false. */
  readonly text: string
  readonly exists: boolean
  readonly edits: readonly StringEdit[]
  readonly path: string
  /** Bytes-mode file: only byte-exact matches are allowed (FILE_NOT_TEXT otherwise). */
  readonly exactOnly: boolean
  /**
   * Runs a regex edit's pattern (D-091): src/engine/regex-search.ts bounds it in time. A
   * regex edit without one is a programmer error.
   */
  readonly searchRegex?: RegexSearcher
}

export interface StringEditsOutput {
  readonly text: string
  readonly warnings: Warning[]
}

/** The file's lines before and after the edits, and what changed, for rendering the diff. */
export interface StringEditsLines {
  readonly before: readonly Line[]
  readonly after: readonly Line[]
  /**
   * The changed spans (old lines of `before`, new lines of `after`), in order; absent when a
   * write edit replaced the whole text, so only a whole-file diff can tell what changed.
   */
  readonly regions?: readonly TableRegion[]
}

export interface StringEditsDetail extends StringEditsOutput {
  readonly lines: StringEditsLines
}

/** Line numbers listed in one error message before it says "and N more". */
const MAX_LISTED_LINES = 20

interface Context {
  readonly path: string
  /** 1-based number of the edit in the request. */
  readonly editNumber: number
  readonly exactOnly: boolean
  readonly searchRegex: RegexSearcher | undefined
}

/** What one edit reports; it changes the document in place. */
interface Step {
  readonly warnings: readonly Warning[]
}

/** The current document's lines as an array, for the few places that need one (failures). */
function textsOf(doc: EditDoc): string[] {
  return doc.table.texts(0, doc.table.length)
}

/** Texts of lines [start, end) and the lines around them that restyling looks at. */
function viewOf(
  doc: EditDoc,
  start: number,
  end: number,
): { slice: string[]; surrounding: string[] } {
  const [lo, hi] = surroundingRange(start, end, doc.table.length)
  const surrounding = doc.table.texts(lo, hi)
  return { slice: surrounding.slice(start - lo, end - lo), surrounding }
}

/**
 * Applies `edits` in order to `text`. A missing file can only be created: by a write edit, or by
 * a replace with an empty old_string as the first edit.
 *
 * @example
 * applyStringEdits({
 *   text: 'a\r\nb\r\n', exists: true, path: 'f.txt', exactOnly: false,
 *   edits: [
 *     { mode: 'replace', index: 0, oldString: 'b\n', newString: 'c\nd\n', replaceAll: false },
 *   ],
 * })
 * // ok({ text: 'a\r\nc\r\nd\r\n', warnings: [] })
 */
export function applyStringEdits(input: StringEditsInput): Result<StringEditsOutput> {
  const applied = applyStringEditsWithLines(input)
  if (!applied.ok) return applied
  return ok({ text: applied.value.text, warnings: applied.value.warnings })
}

/** applyStringEdits, also returning the lines before and after and the changed regions. */
export function applyStringEditsWithLines(input: StringEditsInput): Result<StringEditsDetail> {
  let doc = new EditDoc(input.exists ? input.text : '')
  const before = doc.table.base
  let exists = input.exists
  let rebased = false
  const warnings: Warning[] = []
  for (const edit of input.edits) {
    const ctx: Context = {
      path: input.path,
      editNumber: edit.index + 1,
      exactOnly: input.exactOnly,
      searchRegex: input.searchRegex,
    }
    if (edit.mode === 'write') {
      doc = new EditDoc(edit.content)
      rebased = true
      exists = true
      continue
    }
    if (!exists) {
      // Every non-write edit on a missing file fails, so an empty old_string reaching here is
      // necessarily the file's first edit: the "create the file" form.
      if (edit.mode === 'replace' && edit.oldString === '') {
        doc = new EditDoc(edit.newString)
        rebased = true
        exists = true
        continue
      }
      const detail =
        `${ctx.path} does not exist; ` + 'only a write edit or an empty old_string can create it'
      return failAt(ctx, 'FILE_NOT_FOUND', detail)
    }
    const step = applyOne(doc, edit, ctx)
    if (!step.ok) return step
    warnings.push(...step.value.warnings)
  }
  const after = doc.table.toLines()
  const lines: StringEditsLines = rebased
    ? { before, after }
    : { before, after, regions: doc.table.regions() }
  return ok({ text: doc.toText(), warnings, lines })
}

function applyOne(
  doc: EditDoc,
  edit: Exclude<StringEdit, { mode: 'write' }>,
  ctx: Context,
): Result<Step> {
  switch (edit.mode) {
    case 'replace':
      return applyReplace(doc, edit, ctx)
    case 'insert':
      return applyInsert(doc, edit, ctx)
    case 'replace_range':
      return applyRange(doc, edit.startLine, edit.endLine, edit.newString, ctx)
    case 'delete_range':
      return applyRange(doc, edit.startLine, edit.endLine, '', ctx)
  }
}

// ---------------------------------------------------------------------------------------------
// Line endings of rewritten text

/** For each new index that diffArrays pairs with an unchanged old one, that old index. */
function commonPairs(
  oldParts: readonly string[],
  newParts: readonly string[],
): Map<number, number> {
  const pairs = new Map<number, number>()
  let o = 0
  let n = 0
  for (const change of diffArrays([...oldParts], [...newParts])) {
    if (change.removed) o += change.count
    else if (change.added) n += change.count
    else {
      for (let k = 0; k < change.count; k++) pairs.set(n + k, o + k)
      o += change.count
      n += change.count
    }
  }
  return pairs
}

/**
 * Rebuilds the text for an exact substring replacement. `oldEols[j]` is the file's terminator
 * after oldParts[j]; a new break keeps the terminator of the old line it pairs with, the final
 * break keeps the final old one, and any other break takes the dominant ending.
 */
function withEols(
  oldParts: readonly string[],
  oldEols: readonly Eol[],
  newParts: readonly string[],
  dominant: Eol,
): string {
  const pairs = commonPairs(oldParts, newParts)
  const lastOld = oldParts.length - 1
  const lastNew = newParts.length - 1
  const bothEndWithBreak = lastOld >= 1 && oldParts[lastOld] === '' && newParts[lastNew] === ''
  let out = ''
  for (let k = 0; k <= lastNew; k++) {
    out += newParts[k] as string
    if (k === lastNew) break
    const j = pairs.get(k)
    if (j !== undefined && j < lastOld) out += oldEols[j] as Eol
    else if (k === lastNew - 1 && bothEndWithBreak) out += oldEols[lastOld - 1] as Eol
    else out += dominant
  }
  return out
}

/**
 * Where the lines, as the per-edit algorithm held them, end in an empty line without a break:
 * deleting an unterminated last line moves "no final newline" onto the line before it, and when
 * that line is empty it is no line at all once the text is joined and split again, but a later
 * (earlier-placed) match of the same edit still counts it as its last line. The table holds only
 * split lines, so this remembers that one line.
 */
interface SpliceState {
  phantom: boolean
}

/**
 * Replaces lines [start, start + count) with whole lines. A new line paired with an old one keeps
 * its terminator; the last new line keeps the last old line's (so a missing final newline stays
 * missing); other lines take the dominant ending.
 */
function spliceWholeLines(
  doc: EditDoc,
  start: number,
  count: number,
  newTexts: readonly string[],
  pairs: ReadonlyMap<number, number>,
  dominant: Exclude<Eol, ''>,
  state: SpliceState,
): void {
  const table = doc.table
  const length = table.length + (state.phantom ? 1 : 0)
  const end = start + count
  const old = table.lines(start, end)
  if (state.phantom && end === length) old.push({ text: '', eol: '' })
  const lastOld = old[old.length - 1]
  let from = start
  let fresh: Line[] = newTexts.map((text, k) => {
    if (k === newTexts.length - 1 && lastOld !== undefined) return { text, eol: lastOld.eol }
    const j = pairs.get(k)
    const paired = j === undefined ? undefined : old[j]
    return { text, eol: paired !== undefined && paired.eol !== '' ? paired.eol : dominant }
  })
  // Deleting the unterminated last line moves "no final newline" to the line now last.
  if (fresh.length === 0 && end === length && lastOld?.eol === '' && start > 0) {
    from = start - 1
    fresh = [{ text: table.line(from).text, eol: '' }]
  }
  if (end === length) {
    const last = fresh[fresh.length - 1]
    state.phantom = last !== undefined && last.text === '' && last.eol === ''
  }
  doc.replaceText(from, Math.min(end, table.length), joinLines(fresh))
}

// ---------------------------------------------------------------------------------------------
// replace

function applyReplace(
  doc: EditDoc,
  edit: Extract<StringEdit, { mode: 'replace' }>,
  ctx: Context,
): Result<Step> {
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
  // Every restyle is learned from the text as this edit found it, before any start is rewritten.
  const rewritten = starts.map((s) => {
    const { slice: fileSlice, surrounding } = viewOf(doc, s, s + wanted.length)
    const restyle = deriveRestyle(fileSlice, wanted, restylePass(pass), {
      added: newLines.filter((_, k) => !pairs.has(k)),
      surrounding,
    })
    const lines = newLines.map((line, k) => {
      const j = pairs.get(k)
      // Unchanged lines keep the file's own text, not the edit's lenient spelling of it.
      return j === undefined ? restyleLine(line, restyle) : (fileSlice[j] as string)
    })
    if (lines.length !== fileSlice.length || lines.some((l, k) => l !== fileSlice[k])) {
      unchanged = false
    }
    return lines
  })
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
 * A regex replace (D-091): the pattern runs over the LF view of the current text, through the
 * injected searcher; each chosen match is replaced by new_string with its $-patterns expanded,
 * and line breaks are written as for an exact old_string (replaceExact).
 */
function applyRegexReplace(
  doc: EditDoc,
  edit: Extract<StringEdit, { mode: 'replace' }>,
  ctx: Context,
): Result<Step> {
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

/** The 0-based lines an exact occurrence touches (its final line break holds no next line). */
function occurrenceSpan(o: Occurrence): Span {
  return [o.line, o.endCol === 0 && o.endLine > o.line ? o.endLine - 1 : o.endLine]
}

/**
 * Whole-line search for a replace after the exact substring search failed: the tabs rung when
 * tolerant_whitespace is set, then the ladder (only its exact pass when strict is set).
 */
function findReplaceLines(
  doc: EditDoc,
  wanted: readonly string[],
  edit: { readonly strict?: boolean; readonly tolerantWhitespace?: boolean },
  ctx: Context,
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

/** A line with each tab of its leading indentation written as four spaces (D-092). */
function tabKey(text: string): string {
  return text.replace(/^[ \t]+/, (indent) => indent.replace(/\t/g, '    '))
}

/** 0-based starts where `wanted` matches whole lines with leading tabs as four spaces. */
function findTabLines(doc: EditDoc, wanted: readonly string[]): number[] {
  const keys = wanted.map(tabKey)
  const texts = textsOf(doc)
  const starts: number[] = []
  for (let i = 0; i + keys.length <= texts.length; i++) {
    let all = true
    for (let j = 0; j < keys.length && all; j++) all = tabKey(texts[i + j] as string) === keys[j]
    if (all) starts.push(i)
  }
  return starts
}

/** The restyle pass for new lines: the tabs rung re-indents like 'trim'. */
function restylePass(pass: EditPass): MatchPass {
  return pass === 'tabs' ? 'trim' : pass
}

/** The rewrite guard (D-093) over the lines the chosen matches span. */
function guardRewrite(
  doc: EditDoc,
  edit: { readonly newString: string; readonly allowRewrite?: boolean },
  spans: readonly Span[],
  ctx: Context,
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

function noOp(ctx: Context, what: string): Result<never> {
  return failAt(ctx, 'EDIT_NO_OP', noOpDetail(ctx.path, what))
}

/**
 * Rewrites the exact occurrences. The replacement text (its line breaks) is decided from the
 * text as the edit found it. Occurrences that share a line are rewritten as one piece of text,
 * as a text-wide replacement would (re-splitting between them could pair a CR left by one with a
 * line break written by the next); separate pieces go bottom-up, so earlier lines stay put.
 */
function replaceExact(
  doc: EditDoc,
  found: readonly Occurrence[],
  oldTexts: readonly string[],
  newTexts: readonly string[],
): void {
  const table = doc.table
  const dominant = table.dominant()
  let oldParts: string[] = []
  let newParts: string[] = []
  const replacements = found.map((o, k) => {
    // A plain edit passes one string for every match: split it once.
    if (k === 0 || oldTexts[k] !== oldTexts[k - 1]) oldParts = (oldTexts[k] as string).split('\n')
    if (k === 0 || newTexts[k] !== newTexts[k - 1]) newParts = (newTexts[k] as string).split('\n')
    const eols = table.lines(o.line, o.endLine).map((line) => line.eol)
    return withEols(oldParts, eols, newParts, dominant)
  })
  // Groups of occurrences [first, last] whose lines overlap; a match ending at the start of a
  // line (its final break included) does not hold that line.
  const groups: [number, number][] = []
  for (let k = 0; k < found.length; k++) {
    const o = found[k] as Occurrence
    const group = groups[groups.length - 1]
    const prev = group === undefined ? undefined : (found[group[1]] as Occurrence)
    const prevLast = prev === undefined ? -1 : prev.endCol === 0 ? prev.endLine - 1 : prev.endLine
    if (group !== undefined && o.line <= prevLast) group[1] = k
    else groups.push([k, k])
  }
  for (let g = groups.length - 1; g >= 0; g--) {
    const [first, last] = groups[g] as [number, number]
    const start = (found[first] as Occurrence).line
    let text = ''
    let line = start
    let col = 0
    for (let k = first; k <= last; k++) {
      const o = found[k] as Occurrence
      text += textBetween(table, line, col, o.line, o.col) + (replacements[k] as string)
      line = o.endLine
      col = o.endCol
    }
    if (col === 0) {
      doc.replaceText(start, line, text)
    } else {
      const end = table.line(line)
      doc.replaceText(start, line + 1, text + end.text.slice(col) + end.eol)
    }
  }
}

/** The current text from column c1 of line l1 to column c2 of line l2 (breaks as in the file). */
function textBetween(
  table: EditDoc['table'],
  l1: number,
  c1: number,
  l2: number,
  c2: number,
): string {
  if (l1 === l2) return table.line(l1).text.slice(c1, c2)
  const first = table.line(l1)
  let text = first.text.slice(c1) + first.eol
  for (let i = l1 + 1; i < l2; i++) {
    const line = table.line(i)
    text += line.text + line.eol
  }
  return c2 === 0 ? text : text + table.line(l2).text.slice(0, c2)
}

/**
 * Applies occurrence / replace_all / expected_matches / uniqueness to the matches found (1-based
 * lines, in order): the indices of the matches to change.
 */
function chooseMatches(
  doc: EditDoc,
  fileLines: readonly number[],
  edit: {
    readonly replaceAll?: boolean
    readonly expectedMatches?: number
    readonly occurrence?: number
  },
  ctx: Context,
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

// ---------------------------------------------------------------------------------------------
// insert

function applyInsert(
  doc: EditDoc,
  edit: Extract<StringEdit, { mode: 'insert' }>,
  ctx: Context,
): Result<Step> {
  const anchorLf = toLf(edit.anchor).replace(/\n+$/, '')
  if (anchorLf === '') {
    return failAt(ctx, 'PARSE_BAD_EDIT', `the anchor for ${ctx.path} is empty or only line breaks`)
  }
  const inserted = wholeLines(edit.newString)
  if (inserted.length === 0) return noOp(ctx, 'new_string is empty')
  let spans = exactSpans(doc, anchorLf)
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
  // A leniently matched anchor tells how the edit's indentation maps onto the file's; the new
  // lines were written with the same view of the file, so they are re-indented the same way.
  const restyle = anchorRestyle(doc, anchorLf, first, last, pass, inserted)
  const fresh: Line[] = inserted.map((text) => ({
    text: restyle === null ? text : restyleLine(text, restyle),
    eol: dominant,
  }))
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
 * Anchor search after the exact one failed: the tabs rung when tolerant_whitespace is set (a
 * one-line anchor may be part of a line, a longer one matches whole lines), then the ladder
 * unless strict is set (strict keeps only the ladder's exact line-by-line pass).
 */
function otherAnchorSpans(
  doc: EditDoc,
  anchorLf: string,
  edit: { readonly strict?: boolean; readonly tolerantWhitespace?: boolean },
  ctx: Context,
): Result<{ pass: EditPass; spans: Span[] }> {
  const wanted = anchorLf.split('\n')
  if (edit.tolerantWhitespace === true) {
    let spans: Span[]
    if (wanted.length > 1) {
      spans = findTabLines(doc, wanted).map((s): Span => [s, s + wanted.length - 1])
    } else {
      const key = tabKey(anchorLf)
      spans = []
      const texts = textsOf(doc)
      texts.forEach((text, i) => {
        if (tabKey(text).includes(key)) spans.push([i, i])
      })
    }
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
 * The restyle for lines inserted at a lenient anchor: learned from the anchor's lines when it
 * matched whole lines, or from its one line when the anchor is that line's start (an anchor in
 * the middle of a line says nothing about indentation). Null for an exact anchor.
 */
function anchorRestyle(
  doc: EditDoc,
  anchorLf: string,
  first: number,
  last: number,
  pass: EditPass,
  inserted: readonly string[],
): Restyle | null {
  if (pass === 'exact') return null
  const wanted = anchorLf.split('\n')
  const { slice: fileSlice, surrounding } = viewOf(doc, first, last + 1)
  if (wanted.length === 1) {
    const norm = (text: string): string =>
      pass === 'tabs' ? tabKey(text) : normalizeLine(text, pass)
    if (!norm(fileSlice[0] ?? '').startsWith(norm(wanted[0] as string))) return null
  }
  return deriveRestyle(fileSlice, wanted, restylePass(pass), { added: inserted, surrounding })
}

/**
 * Lenient anchor search. A one-line anchor may still be part of a line (compared after the
 * pass's normalisation); a multi-line anchor must match whole lines.
 */
function lenientSpans(
  doc: EditDoc,
  anchorLf: string,
  ctx: Context,
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

// ---------------------------------------------------------------------------------------------
// replace_range / delete_range

function applyRange(
  doc: EditDoc,
  startLine: number,
  endLine: number,
  newString: string,
  ctx: Context,
): Result<Step> {
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
  if (newLines.length === span && newLines.every((text, k) => text === oldTexts[k])) {
    return noOp(ctx, `new_string equals lines ${startLine}-${endLine}`)
  }
  const pairs = commonPairs(oldTexts, newLines)
  const dominant = doc.table.dominant()
  spliceWholeLines(doc, start, span, newLines, pairs, dominant, { phantom: false })
  return ok({ warnings: [] })
}

// ---------------------------------------------------------------------------------------------
// shared matching and failures

/** findWholeLines, failing when nothing matches or a bytes-mode file matches only leniently. */
function ladder(
  doc: EditDoc,
  wanted: readonly string[],
  ctx: Context,
  what: string,
): Result<LineMatches> {
  const found = findWholeLines(doc, wanted)
  if (found === null) return notFound(doc, wanted, ctx, what)
  if (found.pass !== 'exact' && ctx.exactOnly) return notText(ctx, what, found.pass)
  return ok(found)
}

/** MATCH_NOT_FOUND with candidates; for a strict edit the message says lenient matches were off. */
function notFound(
  doc: EditDoc,
  wanted: readonly string[],
  ctx: Context,
  what: string,
  strict = false,
): Result<never> {
  const candidates = findCandidates(textsOf(doc), wanted)
  const detail = strict
    ? `${what} was not found exactly in ${ctx.path} (strict: lenient matches are off)`
    : `${what} was not found in ${ctx.path}`
  return failAt(ctx, 'MATCH_NOT_FOUND', detail, candidates)
}

function notText(ctx: Context, what: string, pass: EditPass): Result<never> {
  return failAt(
    ctx,
    'FILE_NOT_TEXT',
    `${what} matches ${ctx.path} only ${passWords(pass)}, ` +
      'which a file that is not UTF-8 text does not allow',
  )
}

function ambiguous(
  doc: EditDoc,
  fileLines: readonly number[],
  ctx: Context,
  what: string,
): Result<never> {
  return failAt(
    ctx,
    'MATCH_AMBIGUOUS',
    `${what} matches ${fileLines.length} places in ${ctx.path} (${listLines(fileLines)})`,
    lineCandidates(doc, fileLines),
  )
}

function lineCandidates(doc: EditDoc, fileLines: readonly number[]): Candidate[] {
  return unique(fileLines)
    .slice(0, MAX_CANDIDATES)
    .map((fileLine) => ({
      fileLine,
      score: 1,
      preview: previewOf(doc.table.texts(fileLine - 1, fileLine), 0, 1),
    }))
}

function lenientWarnings(
  pass: EditPass,
  starts: readonly number[],
  ctx: Context,
  what = '',
): Warning[] {
  if (pass === 'exact') return []
  const subject = what === '' ? `edit ${ctx.editNumber}` : `edit ${ctx.editNumber} ${what}`
  const lines = starts.map((s) => s + 1)
  const where = `${lines.length === 1 ? 'line' : 'lines'} ${lines.join(', ')}`
  const message = `${subject} matched ${passWords(pass)} at ${where}`
  return [{ code: 'match.lenient', message, path: ctx.path, patchLine: ctx.editNumber }]
}

function failAt(
  ctx: Context,
  code: Parameters<typeof errorData>[0],
  detail: string,
  candidates?: readonly Candidate[],
): Result<never> {
  return fail(
    errorData(code, `Edit ${ctx.editNumber}: ${detail}.`, {
      path: ctx.path,
      patchLine: ctx.editNumber,
      ...(candidates === undefined ? {} : { candidates }),
    }),
  )
}

function listLines(fileLines: readonly number[]): string {
  const lines = unique(fileLines)
  const shown = lines.slice(0, MAX_LISTED_LINES).join(', ')
  const more = lines.length > MAX_LISTED_LINES ? ` and ${lines.length - MAX_LISTED_LINES} more` : ''
  return `${lines.length === 1 ? 'line' : 'lines'} ${shown}${more}`
}

function unique(values: readonly number[]): number[] {
  return [...new Set(values)]
}

function plural(n: number, one: string, many: string): string {
  return n === 1 ? one : many
}
