// The per-edit string-edit algorithm as it was before the line table (src/apply/string-edits.ts at
// 8a87928), kept as the oracle for test/unit/apply/string-edits-oracle.test.ts: every edit
// re-splits the whole text (toDoc) and searches its LF view with indexOf. Slow on large files,
// simple enough to trust; the line-table implementation must agree with it on every input, failures
// included.
// Do not optimise this file.
// It also refuses no-ops its own way (EDIT_NO_OP when an edit leaves the whole text as
// it was, D-094), with the implementation's wording from src/apply/edit-guards.ts, and takes
// occurrence, strict and tolerant_whitespace (D-092: its own tab expansion, a rung before the
// ladder). Regex edits and the rewrite guard (files of 20+ lines) are not drawn here; unit tests
// and scenarios cover them.
// Applies JSON string edits (replace, insert, replace_range, delete_range, write) to one file's
// decoded text. Pure: reading, expected_hash checks, BOM and byte conversion are the caller's
// (in bytes mode the caller has already passed every edit string through toModeText).
//
// Edits apply in order, each to the result of the previous one, so the line numbers of a range
// edit refer to the text as it is when that edit runs, not to the original file.
// Line endings: old_string and anchors match CRLF, LF and lone CR alike (text-search.ts searches
// an LF view of the lines and maps offsets back); line breaks that pair with an unchanged old line
// keep its terminator, new ones take the file's dominant ending, and the last touched line keeps
// its own.
// After a lenient match, new lines are restyled like hunk lines (src/match/restyle.ts): a
// replace's new lines learn from the matched old_string lines, an insert's from its anchor.
// Only the array differ: importing 'diff' whole loads every module of jsdiff (~20 ms at startup).
import { diffArrays } from 'diff/lib/diff/array.js'
import type { Candidate } from '../../src/errors.js'
import { errorData } from '../../src/errors.js'
import { findCandidates, MAX_CANDIDATES, previewOf } from '../../src/match/candidates.js'
import { locatedIn } from '../../src/match/location.js'
import { restyleLine } from '../../src/match/restyle.js'
import { noOpDetail, restatedLineDetail, stopTokenDetail } from '../../src/apply/edit-guards.js'
import { fail, ok, type Result } from '../../src/result.js'
import { dominantEol, joinLines, splitLines, type Eol, type Line } from '../../src/text/lines.js'
import { passWords, type EditPass } from '../../src/match/pass-words.js'
import { MATCH_PASSES, normalizeLine, type MatchPass } from '../../src/text/normalize.js'
import type { HunkLine, LineHunk, StringEdit, Warning } from '../../src/types.js'
import { findLineMatches, type LineMatches } from '../../src/match/ladder.js'
import { disjointStarts, toLf, wholeLines, type Span } from '../../src/match/text-search.js'

// ---------------------------------------------------------------------------------------------
// The oracle's view of a file: the whole text split again for every edit (the implementation's
// search is src/match/text-search.ts, over one line table per file)

/** A file's text, its lines, and an LF view of them for EOL-insensitive substring search. */
export interface Doc {
  readonly text: string
  readonly lines: readonly Line[]
  readonly texts: readonly string[]
  /** Every terminator written as '\n'; a missing final newline stays missing. */
  readonly view: string
  /** View offset of each line start, plus view.length at index lines.length. */
  readonly viewStarts: readonly number[]
  /** Text offset of each line start, plus text.length at index lines.length. */
  readonly textStarts: readonly number[]
  readonly dominant: Exclude<Eol, ''>
}

export function toDoc(text: string): Doc {
  const lines = splitLines(text)
  const viewStarts: number[] = []
  const textStarts: number[] = []
  let view = ''
  let v = 0
  let t = 0
  for (const line of lines) {
    viewStarts.push(v)
    textStarts.push(t)
    const lf = line.eol === '' ? '' : '\n'
    view += line.text + lf
    v += line.text.length + lf.length
    t += line.text.length + line.eol.length
  }
  viewStarts.push(v)
  textStarts.push(t)
  const texts = lines.map((line) => line.text)
  return { text, lines, texts, view, viewStarts, textStarts, dominant: dominantEol(lines) }
}

/** 0-based index of the line holding view offset `p` (lines.length for the very end). */
export function lineAt(doc: Doc, p: number): number {
  let lo = 0
  let hi = doc.lines.length
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1
    if ((doc.viewStarts[mid] as number) <= p) lo = mid
    else hi = mid - 1
  }
  return lo
}

/** Maps a view offset to the text offset; a position before a terminator stays before it. */
export function toTextOffset(doc: Doc, p: number): number {
  const i = lineAt(doc, p)
  return (doc.textStarts[i] as number) + (p - (doc.viewStarts[i] as number))
}

/** The file terminators of the '\n's inside view range [s, e), in order. */
export function eolsIn(doc: Doc, s: number, e: number): Eol[] {
  const eols: Eol[] = []
  for (let i = lineAt(doc, s); i < doc.lines.length; i++) {
    const q = (doc.viewStarts[i] as number) + (doc.texts[i] as string).length
    if (q >= e) break
    const line = doc.lines[i] as Line
    if (q >= s && line.eol !== '') eols.push(line.eol)
  }
  return eols
}

/** Non-overlapping occurrences of `needle` in `hay`, as start offsets. */
export function occurrences(hay: string, needle: string): number[] {
  const found: number[] = []
  for (let at = hay.indexOf(needle); at !== -1; at = hay.indexOf(needle, at + needle.length)) {
    found.push(at)
  }
  return found
}

/** Distinct spans holding `needle` in the LF view. */
function viewSpans(doc: Doc, needle: string): Span[] {
  const spans: Span[] = []
  for (const at of occurrences(doc.view, needle)) {
    const span: Span = [lineAt(doc, at), lineAt(doc, at + needle.length - 1)]
    const prev = spans[spans.length - 1]
    if (prev === undefined || prev[0] !== span[0] || prev[1] !== span[1]) spans.push(span)
  }
  return spans
}

/**
 * Whole-line search through the ladder, for after the exact substring search failed. 'exact'
 * stays in: a block ending in '\n' matches an unterminated last line only line by line.
 */
function wholeLineMatches(doc: Doc, wanted: readonly string[]): LineMatches | null {
  return wanted.length === 0 ? null : findLineMatches(doc.texts, wanted, 0, doc.texts.length)
}

const LENIENT_PASSES: readonly MatchPass[] = MATCH_PASSES.filter((pass) => pass !== 'exact')

/**
 * The first lenient pass under which a one-line anchor is part of some line (compared after
 * that pass's normalisation), with the one-line spans it hits; null when no pass hits.
 */
function lenientInLine(doc: Doc, anchor: string): { pass: MatchPass; spans: Span[] } | null {
  for (const pass of LENIENT_PASSES) {
    const key = normalizeLine(anchor, pass)
    if (key === '') continue
    const spans: Span[] = []
    doc.texts.forEach((text, i) => {
      if (normalizeLine(text, pass).includes(key)) spans.push([i, i])
    })
    if (spans.length > 0) return { pass, spans }
  }
  return null
}

export interface StringEditsInput {
  /** Decoded content without BOM; ignored when `exists` is false. */
  readonly text: string
  readonly exists: boolean
  readonly edits: readonly StringEdit[]
  readonly path: string
  /** Bytes-mode file: only byte-exact matches are allowed (FILE_NOT_TEXT otherwise). */
  readonly exactOnly: boolean
}

export interface StringEditsOutput {
  readonly text: string
  readonly warnings: Warning[]
}

/** Line numbers listed in one error message before it says "and N more". */
const MAX_LISTED_LINES = 20

type Pass = EditPass

/** A line's leading blanks with every tab as four spaces, then the rest as it is. */
function tabsAsSpaces(text: string): string {
  let i = 0
  let indent = ''
  for (; i < text.length; i++) {
    if (text[i] === '\t') indent += '    '
    else if (text[i] === ' ') indent += ' '
    else break
  }
  return indent + text.slice(i)
}

/** Whole-line matches of `wanted` with tabsAsSpaces on both sides. */
function tabLineStarts(doc: Doc, wanted: readonly string[]): number[] {
  const starts: number[] = []
  for (let i = 0; i + wanted.length <= doc.texts.length; i++) {
    const hit = wanted.every((w, j) => tabsAsSpaces(doc.texts[i + j] as string) === tabsAsSpaces(w))
    if (hit) starts.push(i)
  }
  return starts
}

/** The tabs rung, then the ladder (its exact pass only under strict). */
function matchLines(
  doc: Doc,
  wanted: readonly string[],
  edit: { readonly strict?: boolean; readonly tolerantWhitespace?: boolean },
  ctx: Context,
  what: string,
): Result<{ pass: Pass; starts: number[] }> {
  if (edit.tolerantWhitespace === true && wanted.length > 0) {
    const starts = tabLineStarts(doc, wanted)
    if (starts.length > 0) {
      if (ctx.exactOnly) return notText(ctx, what, 'tabs')
      return ok({ pass: 'tabs', starts })
    }
  }
  if (edit.strict === true) {
    const found = wholeLineMatches(doc, wanted)
    if (found === null || found.pass !== 'exact') return notFoundStrict(doc, wanted, ctx, what)
    return ok(found)
  }
  return ladder(doc, wanted, ctx, what)
}

function notFoundStrict(
  doc: Doc,
  wanted: readonly string[],
  ctx: Context,
  what: string,
): Result<never> {
  const candidates = findCandidates(doc.texts, wanted)
  const detail = `${what} was not found exactly in ${ctx.path} (strict: lenient matches are off)`
  return failAt(ctx, 'MATCH_NOT_FOUND', detail, candidates)
}

interface Context {
  readonly path: string
  /** 1-based number of the edit in the request. */
  readonly editNumber: number
  readonly exactOnly: boolean
}

interface Step {
  readonly text: string
  readonly warnings: readonly Warning[]
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
export function applyStringEditsOracle(input: StringEditsInput): Result<StringEditsOutput> {
  let text = input.exists ? input.text : ''
  let exists = input.exists
  const warnings: Warning[] = []
  for (const edit of input.edits) {
    const ctx: Context = {
      path: input.path,
      editNumber: edit.index + 1,
      exactOnly: input.exactOnly,
    }
    if (edit.mode === 'write') {
      text = edit.content
      exists = true
      continue
    }
    if (!exists) {
      // Every non-write edit on a missing file fails, so an empty old_string reaching here is
      // necessarily the file's first edit: the "create the file" form.
      if (edit.mode === 'replace' && edit.oldString === '') {
        text = edit.newString
        exists = true
        continue
      }
      const detail =
        `${ctx.path} does not exist; ` + 'only a write edit or an empty old_string can create it'
      return failAt(ctx, 'FILE_NOT_FOUND', detail)
    }
    const obvious = obviousNoOp(edit)
    if (obvious !== null) return failAt(ctx, 'EDIT_NO_OP', noOpDetail(ctx.path, obvious))
    const step = applyOne(text, edit, ctx)
    if (!step.ok) return step
    if (step.value.text === text) {
      const what =
        edit.mode === 'replace'
          ? 'new_string, fitted to the file, equals the lines it matched'
          : edit.mode === 'insert' || edit.mode === 'insert_line'
            ? 'new_string is empty'
            : `new_string equals lines ${edit.startLine}-${edit.endLine}`
      return failAt(ctx, 'EDIT_NO_OP', noOpDetail(ctx.path, what))
    }
    text = step.value.text
    warnings.push(...step.value.warnings)
  }
  return ok({ text, warnings })
}

/** A no-op visible in the edit itself, refused before any search. */
function obviousNoOp(edit: Exclude<StringEdit, { mode: 'write' }>): string | null {
  if (
    edit.mode === 'replace' &&
    edit.oldString !== '' &&
    toLf(edit.oldString) === toLf(edit.newString)
  ) {
    return 'new_string equals old_string'
  }
  if (
    edit.mode === 'insert' &&
    toLf(edit.anchor).replace(/\n+$/, '') !== '' &&
    edit.newString === ''
  ) {
    return 'new_string is empty'
  }
  return null
}

function applyOne(
  text: string,
  edit: Exclude<StringEdit, { mode: 'write' }>,
  ctx: Context,
): Result<Step> {
  const doc = toDoc(text)
  switch (edit.mode) {
    case 'replace':
      return applyReplace(doc, edit, ctx)
    case 'insert':
      return applyInsert(doc, edit, ctx)
    case 'insert_line':
      return applyInsertAtLine(doc, edit, ctx)
    case 'replace_range':
      return applyRange(doc, edit.startLine, edit.endLine, edit.newString, ctx)
    case 'delete_range':
      return applyRange(doc, edit.startLine, edit.endLine, '', ctx)
  }
}

// ---------------------------------------------------------------------------------------------
// Line endings of rewritten text

/**
 * For each new index that diffArrays pairs with an unchanged old one, that old index; 'last'
 * breaks ties toward a repeated line's last copy (the diff of the reversed sides).
 */
function commonPairs(
  oldParts: readonly string[],
  newParts: readonly string[],
  ties: 'first' | 'last' = 'first',
): Map<number, number> {
  const flip = ties === 'last'
  const a = flip ? [...oldParts].reverse() : [...oldParts]
  const b = flip ? [...newParts].reverse() : [...newParts]
  const found = new Map<number, number>()
  let o = 0
  let n = 0
  for (const change of diffArrays(a, b)) {
    if (change.removed) o += change.count
    else if (change.added) n += change.count
    else {
      for (let k = 0; k < change.count; k++) found.set(n + k, o + k)
      o += change.count
      n += change.count
    }
  }
  if (!flip) return found
  const pairs = new Map<number, number>()
  for (const [k, j] of [...found].reverse()) {
    pairs.set(newParts.length - 1 - k, oldParts.length - 1 - j)
  }
  return pairs
}

/**
 * The new lines at `s` written as the hunk of paired (context), removed and added lines would
 * be: context lines are the file's, added lines restyled or given a replaced line's depth
 * (src/match/location.ts), or MATCH_INDENT_AMBIGUOUS.
 */
function fitAsHunk(
  doc: Doc,
  s: number,
  wanted: readonly string[],
  newLines: readonly string[],
  pairs: ReadonlyMap<number, number>,
  pass: EditPass,
  ctx: Context,
): Result<string[]> {
  const lines: HunkLine[] = []
  let o = 0
  let pending: HunkLine[] = []
  const closeBefore = (j: number) => {
    for (; o < j; o++) lines.push({ op: '-', text: wanted[o] as string })
    lines.push(...pending)
    pending = []
  }
  newLines.forEach((text, k) => {
    const j = pairs.get(k)
    if (j === undefined) pending.push({ op: '+', text })
    else {
      closeBefore(j)
      lines.push({ op: ' ', text: wanted[j] as string })
      o = j + 1
    }
  })
  closeBefore(wanted.length)
  const hunk: LineHunk = { patchLine: ctx.editNumber, hints: [], endOfFile: false, lines }
  const slice = (from: number, to: number) => doc.texts.slice(from, to)
  const restylePass = pass === 'tabs' ? 'trim' : pass
  const name = `edit ${ctx.editNumber}'s old_string`
  const loc = locatedIn(slice, doc.texts.length, ctx.path, hunk, lines, s, restylePass, [], name)
  if (loc.refusal !== undefined) return fail({ ...loc.refusal, patchLine: ctx.editNumber })
  const out: string[] = []
  let at = s
  loc.lines.forEach((line, i) => {
    if (line.op === '+') {
      const fixed = loc.fileIndented?.includes(i) === true
      out.push(restyleLine(line.text, fixed ? { ...loc.restyle, indent: null } : loc.restyle))
    } else {
      const own = doc.texts[at++] as string
      if (line.op === ' ') out.push(own)
    }
  })
  return ok(out)
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
 * Replaces lines [start, start + count) with whole lines. A new line paired with an old one keeps
 * its terminator; the last new line keeps the last old line's (so a missing final newline stays
 * missing); other lines take the dominant ending.
 */
function spliceWholeLines(
  lines: Line[],
  start: number,
  count: number,
  newTexts: readonly string[],
  pairs: ReadonlyMap<number, number>,
  dominant: Exclude<Eol, ''>,
): void {
  const old = lines.slice(start, start + count)
  const lastOld = old[old.length - 1]
  const fresh: Line[] = newTexts.map((text, k) => {
    if (k === newTexts.length - 1 && lastOld !== undefined) return { text, eol: lastOld.eol }
    const j = pairs.get(k)
    const paired = j === undefined ? undefined : old[j]
    return { text, eol: paired !== undefined && paired.eol !== '' ? paired.eol : dominant }
  })
  lines.splice(start, count, ...fresh)
  // Deleting the unterminated last line moves "no final newline" to the line now last.
  const prev = lines[start - 1]
  if (fresh.length === 0 && start === lines.length && lastOld?.eol === '' && prev !== undefined) {
    lines[start - 1] = { text: prev.text, eol: '' }
  }
}

// ---------------------------------------------------------------------------------------------
// replace

function applyReplace(
  doc: Doc,
  edit: Extract<StringEdit, { mode: 'replace' }>,
  ctx: Context,
): Result<Step> {
  if (edit.oldString === '') {
    const detail = `old_string is empty; use mode write or insert to change ${ctx.path}`
    return failAt(ctx, 'PARSE_BAD_EDIT', detail)
  }
  const glued = stopTokenDetail(ctx.path, edit.newString, edit.oldString)
  if (glued !== null) return failAt(ctx, 'PARSE_BAD_EDIT', glued)
  const oldLf = toLf(edit.oldString)
  const exact = occurrences(doc.view, oldLf)
  if (exact.length > 0) {
    const fileLines = exact.map((at) => lineAt(doc, at) + 1)
    const chosen = chooseMatches(doc, fileLines, edit, ctx, 'old_string')
    if (!chosen.ok) return chosen
    const picked = exact.filter((_, k) => chosen.value.includes(k))
    for (const at of picked) {
      const end = at + oldLf.length
      const nl = doc.view.indexOf('\n', end)
      const before = doc.view.slice(doc.view.lastIndexOf('\n', at - 1) + 1, at)
      const after = doc.view.slice(end, nl < 0 ? doc.view.length : nl)
      const restated = restatedLineDetail(ctx.path, oldLf, toLf(edit.newString), before, after)
      if (restated !== null) return failAt(ctx, 'PARSE_BAD_EDIT', restated)
    }
    return ok({ text: replaceExact(doc, picked, oldLf, toLf(edit.newString)), warnings: [] })
  }

  const wanted = wholeLines(oldLf)
  const found = matchLines(doc, wanted, edit, ctx, 'old_string')
  if (!found.ok) return found
  const { pass } = found.value
  const all = disjointStarts(found.value.starts, wanted.length)
  const chosen = chooseMatches(
    doc,
    all.map((s) => s + 1),
    edit,
    ctx,
    'old_string',
  )
  if (!chosen.ok) return chosen
  const starts = all.filter((_, k) => chosen.value.includes(k))

  const newLines = wholeLines(edit.newString)
  const pairs = commonPairs(wanted, newLines)
  const lines = [...doc.lines]
  // Every match is fitted to the text as found, as a hunk's lines would be (location.ts).
  const fitted: string[][] = []
  for (const s of starts) {
    const mine = fitAsHunk(doc, s, wanted, newLines, pairs, pass, ctx)
    if (!mine.ok) return mine
    // A line repeated on both sides may pair the other way; after a lenient match the two
    // pairings must write the same lines, or the edit is refused.
    const other = commonPairs(wanted, newLines, 'last')
    if (pass !== 'exact' && JSON.stringify([...other]) !== JSON.stringify([...pairs])) {
      const theirs = fitAsHunk(doc, s, wanted, newLines, other, pass, ctx)
      if (!theirs.ok || JSON.stringify(theirs.value) !== JSON.stringify(mine.value)) {
        return failAt(
          ctx,
          'MATCH_PAIRING_AMBIGUOUS',
          `old_string matched ${ctx.path} at line ${s + 1} only ${passWords(pass)}, and a line repeated in old_string and new_string lets them pair two ways that keep different lines of the file, so what the edit means is not certain; copy old_string exactly from the file`,
        )
      }
    }
    fitted.push(mine.value)
  }
  // Bottom-up, so earlier starts stay valid while later ones are rewritten.
  for (let m = starts.length - 1; m >= 0; m--) {
    const s = starts[m] as number
    spliceWholeLines(lines, s, wanted.length, fitted[m] as string[], pairs, doc.dominant)
  }
  return ok({ text: joinLines(lines), warnings: lenientWarnings(pass, starts, ctx) })
}

function replaceExact(doc: Doc, starts: readonly number[], oldLf: string, newLf: string): string {
  const oldParts = oldLf.split('\n')
  const newParts = newLf.split('\n')
  let text = doc.text
  for (const s of [...starts].reverse()) {
    const e = s + oldLf.length
    const replacement = withEols(oldParts, eolsIn(doc, s, e), newParts, doc.dominant)
    text = text.slice(0, toTextOffset(doc, s)) + replacement + text.slice(toTextOffset(doc, e))
  }
  return text
}

/** Applies occurrence / replace_all / expected_matches / uniqueness: the chosen indices. */
function chooseMatches(
  doc: Doc,
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
  const all = fileLines.map((_, k) => k)
  if (edit.occurrence !== undefined) {
    const wantedIndex = edit.occurrence < 0 ? count + edit.occurrence : edit.occurrence - 1
    if (all.includes(wantedIndex)) return ok([wantedIndex])
    return failAt(
      ctx,
      'MATCH_COUNT_MISMATCH',
      `occurrence ${edit.occurrence} of ${what} was asked for in ${ctx.path} but it matches ` +
        `${count} ${plural(count, 'place', 'places')} (${listLines(fileLines)})`,
      lineCandidates(doc, fileLines),
    )
  }
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
  doc: Doc,
  edit: Extract<StringEdit, { mode: 'insert' }>,
  ctx: Context,
): Result<Step> {
  const text = toLf(edit.anchor)
  if (text.replace(/\n+$/, '') === '') {
    return failAt(ctx, 'PARSE_BAD_EDIT', `the anchor for ${ctx.path} is empty or only line breaks`)
  }
  // Breaks past the first that ends the anchor's last line are blank lines of the anchor.
  const blankTail = text.endsWith('\n\n')
  const anchorLf = blankTail ? text.slice(0, -1) : text.replace(/\n+$/, '')
  const glued = stopTokenDetail(ctx.path, edit.newString, '')
  if (glued !== null) return failAt(ctx, 'PARSE_BAD_EDIT', glued)
  // The span of a needle ending in a break ends on the line that break ends.
  let spans = viewSpans(doc, blankTail ? text : anchorLf)
  let pass: Pass = 'exact'
  if (spans.length === 0) {
    const lenient = otherSpans(doc, anchorLf, edit, ctx)
    if (!lenient.ok) return lenient
    ;({ pass, spans } = lenient.value)
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

  const inserted = wholeLines(edit.newString)
  if (inserted.length === 0) return ok({ text: doc.text, warnings: [] })
  const lines = [...doc.lines]
  // A leniently matched anchor tells how the edit's indentation maps onto the file's: the new
  // lines are fitted as the hunk of anchor and new lines would be, or refused.
  const fitted = anchorFit(doc, anchorLf, first, last, pass, inserted, edit.position, ctx)
  if (!fitted.ok) return fitted
  const fresh: Line[] = fitted.value.map((text) => ({ text, eol: doc.dominant }))
  if (edit.position === 'before') {
    lines.splice(first, 0, ...fresh)
  } else {
    const anchorLine = lines[last] as Line
    if (anchorLine.eol === '') {
      // After an unterminated last line: the anchor gains a break, the new last line lacks one.
      lines[last] = { text: anchorLine.text, eol: doc.dominant }
      fresh[fresh.length - 1] = { text: (fresh[fresh.length - 1] as Line).text, eol: '' }
    }
    lines.splice(last + 1, 0, ...fresh)
  }
  const warnings = pass === 'exact' ? [] : lenientWarnings(pass, [first], ctx, 'anchor')
  return ok({ text: joinLines(lines), warnings })
}

function applyInsertAtLine(
  doc: Doc,
  edit: Extract<StringEdit, { mode: 'insert_line' }>,
  ctx: Context,
): Result<Step> {
  const count = doc.lines.length
  if (edit.afterLine > count) {
    return failAt(
      ctx,
      'MATCH_OUT_OF_RANGE',
      `after_line ${edit.afterLine} is past the end of ${ctx.path}, which has ${count} ${plural(count, 'line', 'lines')} (give 0 to ${count})`,
    )
  }
  const inserted = wholeLines(edit.newString)
  if (inserted.length === 0) return ok({ text: doc.text, warnings: [] })
  const glued = stopTokenDetail(ctx.path, edit.newString, '')
  if (glued !== null) return failAt(ctx, 'PARSE_BAD_EDIT', glued)
  const lines = [...doc.lines]
  const fresh: Line[] = inserted.map((text) => ({ text, eol: doc.dominant }))
  const before = lines[edit.afterLine - 1]
  if (before !== undefined && before.eol === '') {
    lines[edit.afterLine - 1] = { text: before.text, eol: doc.dominant }
    fresh[fresh.length - 1] = { text: (fresh[fresh.length - 1] as Line).text, eol: '' }
  }
  lines.splice(edit.afterLine, 0, ...fresh)
  return ok({ text: joinLines(lines), warnings: [] })
}

/**
 * The lines inserted at the anchor: as written after an exact anchor or one in the middle of a
 * line (it says nothing about indentation); otherwise as the anchor's lines (context) and the
 * new lines, before or after them, fit as a hunk (fitAsHunk), keeping only the new ones.
 */
function anchorFit(
  doc: Doc,
  anchorLf: string,
  first: number,
  last: number,
  pass: Pass,
  inserted: readonly string[],
  position: 'before' | 'after',
  ctx: Context,
): Result<string[]> {
  if (pass === 'exact') return ok([...inserted])
  const wanted = anchorLf.split('\n')
  const fileSlice = doc.texts.slice(first, last + 1)
  if (wanted.length === 1) {
    const norm = (t: string) => (pass === 'tabs' ? tabsAsSpaces(t) : normalizeLine(t, pass))
    if (!norm(fileSlice[0] ?? '').startsWith(norm(wanted[0] as string))) return ok([...inserted])
  }
  const newLines = position === 'after' ? [...wanted, ...inserted] : [...inserted, ...wanted]
  const pairs = new Map<number, number>()
  wanted.forEach((_, j) => pairs.set(position === 'after' ? j : inserted.length + j, j))
  const placed = fitAsHunk(doc, first, wanted, newLines, pairs, pass, ctx)
  if (!placed.ok) return placed
  return ok(
    position === 'after'
      ? placed.value.slice(wanted.length)
      : placed.value.slice(0, inserted.length),
  )
}

/**
 * Lenient anchor search. A one-line anchor may still be part of a line (compared after the
 * pass's normalisation); a multi-line anchor must match whole lines.
 */
/** The tabs rung and strict for an anchor, then lenientSpans. */
function otherSpans(
  doc: Doc,
  anchorLf: string,
  edit: { readonly strict?: boolean; readonly tolerantWhitespace?: boolean },
  ctx: Context,
): Result<{ pass: Pass; spans: Span[] }> {
  const wanted = anchorLf.split('\n')
  if (edit.tolerantWhitespace === true) {
    const spans: Span[] =
      wanted.length > 1
        ? tabLineStarts(doc, wanted).map((s): Span => [s, s + wanted.length - 1])
        : doc.texts.flatMap((t, i): Span[] =>
            tabsAsSpaces(t).includes(tabsAsSpaces(anchorLf)) ? [[i, i]] : [],
          )
    if (spans.length > 0) {
      if (ctx.exactOnly) return notText(ctx, 'anchor', 'tabs')
      return ok({ pass: 'tabs', spans })
    }
  }
  if (edit.strict === true) {
    const found = wanted.length > 1 ? wholeLineMatches(doc, wanted) : null
    if (found === null || found.pass !== 'exact') return notFoundStrict(doc, wanted, ctx, 'anchor')
    return ok({ pass: 'exact', spans: found.starts.map((s): Span => [s, s + wanted.length - 1]) })
  }
  return lenientSpans(doc, anchorLf, ctx)
}

function lenientSpans(
  doc: Doc,
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
  const found = lenientInLine(doc, anchorLf)
  if (found === null) return notFound(doc, wanted, ctx, 'anchor')
  if (ctx.exactOnly) return notText(ctx, 'anchor', found.pass)
  return ok(found)
}

// ---------------------------------------------------------------------------------------------
// replace_range / delete_range

function applyRange(
  doc: Doc,
  startLine: number,
  endLine: number,
  newString: string,
  ctx: Context,
): Result<Step> {
  const count = doc.lines.length
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
  const pairs = commonPairs(doc.texts.slice(start, start + span), newLines)
  const lines = [...doc.lines]
  spliceWholeLines(lines, start, span, newLines, pairs, doc.dominant)
  return ok({ text: joinLines(lines), warnings: [] })
}

// ---------------------------------------------------------------------------------------------
// shared matching and failures

/** wholeLineMatches, failing when nothing matches or a bytes-mode file matches only leniently. */
function ladder(
  doc: Doc,
  wanted: readonly string[],
  ctx: Context,
  what: string,
): Result<LineMatches> {
  const found = wholeLineMatches(doc, wanted)
  if (found === null) return notFound(doc, wanted, ctx, what)
  if (found.pass !== 'exact' && ctx.exactOnly) return notText(ctx, what, found.pass)
  return ok(found)
}

function notFound(doc: Doc, wanted: readonly string[], ctx: Context, what: string): Result<never> {
  const candidates = findCandidates(doc.texts, wanted)
  return failAt(ctx, 'MATCH_NOT_FOUND', `${what} was not found in ${ctx.path}`, candidates)
}

function notText(ctx: Context, what: string, pass: Pass): Result<never> {
  return failAt(
    ctx,
    'FILE_NOT_TEXT',
    `${what} matches ${ctx.path} only ${passWords(pass)}, ` +
      'which a file that is not UTF-8 text does not allow',
  )
}

function ambiguous(
  doc: Doc,
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

function lineCandidates(doc: Doc, fileLines: readonly number[]): Candidate[] {
  return unique(fileLines)
    .slice(0, MAX_CANDIDATES)
    .map((fileLine) => ({ fileLine, score: 1, preview: previewOf(doc.texts, fileLine - 1, 1) }))
}

function lenientWarnings(
  pass: Pass,
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
