// Applies a file's line hunks: locates each (src/match/locate-*.ts, per LocateMode) and splices
// the new lines in, keeping the file's own bytes wherever the patch does not change them: context
// and removed lines are the file's lines (text and terminator); added lines are restyled to the
// file's indentation and quotes (src/match/restyle.ts) and take its dominant line ending, unless
// the patch states endings (HunkLine.eol, a unified diff of a CRLF file): then exactly those, as
// `git apply` writes them. The final-newline rule is the format's, or the file's own state when
// asked (finishLastLine). Decoding, BOMs and patch-text conversion are the caller's
// (src/apply/compute.ts); this module sees lines only.
import { errorData, type EditErrorData } from '../errors.js'
import { passWords } from '../match/pass-words.js'
import { fail, ok, type Result } from '../result.js'
import type { MatchPass } from '../text/normalize.js'
import { dominantEol, endsWithNewline, type Eol, type Line } from '../text/lines.js'
import type { HunkLine, LineHunk, LocateMode, PatchFormat, Warning } from '../types.js'
import { findTableMatches, indexLines } from '../match/ladder.js'
import { locateCursor } from '../match/locate-cursor.js'
import { locateNearLine } from '../match/locate-near.js'
import { locateSequentialIn, type SequentialText } from '../match/locate-sequential.js'
import {
  addedLineText,
  type Claimed,
  type LocateContext,
  type Location,
} from '../match/location.js'
import { LineTable } from '../text/line-table.js'
import type { LineRegion } from './render-diff.js'

export interface ApplyHunksInput {
  /** The file's lines from splitLines(); the last eol is '' when there is no final newline. */
  readonly lines: readonly Line[]
  /** Hunk texts already in the file's text mode. */
  readonly hunks: readonly LineHunk[]
  readonly mode: LocateMode
  readonly format: PatchFormat
  readonly path: string
  /** Bytes-mode file: only byte-exact matches are allowed (FILE_NOT_TEXT otherwise). */
  readonly exactOnly: boolean
  /** false: refusals carry no near-miss candidates (LocateContext.candidates). */
  readonly candidates?: boolean
  /** The ending added lines take; the file's dominant one when absent (Codex's model sets it). */
  readonly newLineEol?: Exclude<Eol, ''>
  /**
   * true: the file keeps its final-newline state whatever the format's rule (a file without a
   * final newline keeps none, one with it keeps it), as for SEARCH/REPLACE and string edits.
   */
  readonly keepFinalNewline?: boolean
}

export interface ApplyHunksOutput {
  readonly lines: Line[]
  readonly warnings: Warning[]
  /**
   * The old/new line ranges each hunk replaced, in order, so the diff can be rendered from them
   * alone (src/apply/render-diff.ts). In 'sequential' mode, where later hunks see earlier ones'
   * output, the spans the hunks changed in all, and only when there are two or more.
   */
  readonly regions?: readonly LineRegion[]
  /** Each hunk's Location.start, in patch order (ComputedFile.placements). */
  readonly placements: readonly number[]
}

interface Placed {
  readonly location: Location
  /** Position in the patch, to keep insertions at one index in patch order. */
  readonly order: number
  readonly hunk: LineHunk
}

/**
 * Locates and applies every hunk; all-or-nothing (the first failure is returned, input untouched).
 *
 * @example
 * const lines = splitLines('a\nb\n')
 * applyHunks({ lines, hunks, mode: 'cursor', format: 'codex', path: 'f', exactOnly: false })
 */
export function applyHunks(input: ApplyHunksInput): Result<ApplyHunksOutput> {
  const eol = input.newLineEol ?? dominantEol(input.lines)
  const added = addedEol(input.hunks, eol)
  const hadFinalNewline = endsWithNewline(input.lines)
  const warnings: Warning[] = []

  if (input.mode === 'sequential') return applySequential(input, eol, added, hadFinalNewline)

  const ctx = contextFor(input.lines, input)
  const total = input.lines.length
  let placing = placeAll(ctx, input, null)
  // Numbered hunks written out of order (a later hunk first) fail in patch order, where each is
  // searched after the one before. They are placed again in the order of their stated lines, as
  // git applies them (each near its own line), with a warning; the patch order's error stands if
  // that fails too. Wrong numbers alone keep the patch's order, which places them as before.
  if (!placing.ok && input.mode === 'near-line') {
    const sequence = byStatedLine(input.hunks)
    const again = sequence === null ? null : placeAll(ctx, input, sequence)
    if (again?.ok === true) {
      placing = again
      warnings.push(reorderedWarning(input.hunks, input.path))
    }
  }
  if (!placing.ok) return placing
  const { placed, placements } = placing.value
  for (const p of placed) warnings.push(...p.location.warnings)

  let endHunk: LineHunk | null = null
  for (const p of placed) {
    if (p.location.start + p.location.oldLength === total) endHunk = p.hunk
  }
  const regions: LineRegion[] = []
  const spliced = splice(input.lines, placed, eol, added, regions)
  const rule = finalNewlineRule(input)
  const finished = finishLastLine(spliced, endHunk, rule, hadFinalNewline, eol)
  return ok({ lines: finished, warnings, regions, placements })
}

/**
 * Locates every hunk, one after another in patch order or in `sequence` (hunk indexes), each
 * searched after the one placed before it (anywhere, for hunks without numbers); the first
 * failure is returned. Placements are in patch order.
 */
function placeAll(
  ctx: LocateContext,
  input: ApplyHunksInput,
  sequence: readonly number[] | null,
): Result<{ placed: Placed[]; placements: number[] }> {
  const placed: Placed[] = []
  const placements: number[] = []
  const claimed: Claimed[] = []
  let cursor = 0
  let offset = 0
  // Hunks without numbers (Aider's `@@ ... @@`) may come in any order, as Aider's format allows:
  // when no hunk states a line, each must match exactly once in the whole file, apart from the
  // others (splice sorts them). One numbered hunk keeps the patch's order for all.
  const unordered =
    input.mode === 'near-line' && input.hunks.every((h) => h.oldStartLine === undefined)
  for (let step = 0; step < input.hunks.length; step++) {
    const order = sequence === null ? step : (sequence[step] as number)
    const hunk = input.hunks[order] as LineHunk
    let loc: Location
    if (input.mode === 'cursor') {
      const found = locateCursor(ctx, hunk, cursor, claimed)
      if (!found.ok) return found
      loc = found.value
    } else {
      const found = locateNearLine(ctx, hunk, unordered ? 0 : cursor, offset, claimed)
      if (!found.ok) return found
      loc = found.value
      offset = loc.start - found.value.statedStart
    }
    if (loc.refusal !== undefined) return fail(loc.refusal)
    const end = loc.start + loc.oldLength
    // Locators search after `cursor`, so this only trips on a locator bug, never on input.
    if (!unordered && loc.start < cursor) {
      throw new Error(
        `applyHunks: cannot place a hunk at ${loc.start} after the cursor moved to ${cursor}`,
      )
    }
    cursor = unordered ? 0 : end
    if (loc.oldLength > 0) claimed.push({ start: loc.start, end })
    placed.push({ location: loc, order, hunk })
    placements[order] = loc.start
  }
  return ok({ placed, placements })
}

/**
 * The hunk indexes in the order of their stated lines (stable), when every hunk states one and
 * the patch does not already list them so; null otherwise.
 */
function byStatedLine(hunks: readonly LineHunk[]): number[] | null {
  let sorted = true
  for (let i = 0; i < hunks.length; i++) {
    const start = (hunks[i] as LineHunk).oldStartLine
    if (start === undefined) return null
    if (i > 0 && start < ((hunks[i - 1] as LineHunk).oldStartLine as number)) sorted = false
  }
  if (sorted) return null
  const line = (i: number) => (hunks[i] as LineHunk).oldStartLine as number
  return hunks.map((_, i) => i).sort((a, b) => line(a) - line(b) || a - b)
}

function reorderedWarning(hunks: readonly LineHunk[], path: string): Warning {
  const at = hunks.map((h) => `${h.patchLine} (line ${h.oldStartLine ?? '?'})`).join(', ')
  return {
    code: 'match.reordered',
    message: `${path}: the hunks are not in the order of their stated lines (patch lines ${at}); each was placed near its stated line, in that order, as git apply does.`,
    path,
    patchLine: (hunks[0] as LineHunk).patchLine,
  }
}

// One table for all hunks, so a hunk costs its own lines, not the file's (DECISIONS.md D-070).
/**
 * 'sequential' mode (SEARCH/REPLACE) on one LineTable (src/text/line-table.ts) for all hunks:
 * each hunk is located in the text the previous ones left and rewrites only its own lines, with
 * the result of splicing the whole file per hunk (test/helpers/apply-hunks-oracle.ts, the
 * reference).
 */
function applySequential(
  input: ApplyHunksInput,
  eol: Exclude<Eol, ''>,
  added: (line: HunkLine) => Exclude<Eol, ''>,
  hadFinalNewline: boolean,
): Result<ApplyHunksOutput> {
  const table = new LineTable(input.lines)
  const warnings: Warning[] = []
  const text: SequentialText = {
    get length() {
      return table.length
    },
    path: input.path,
    exactOnly: input.exactOnly,
    find: (wanted, passes, limit) => findTableMatches(table, wanted, passes, limit),
    slice: (from, to) => table.texts(from, to),
    context: () => contextFor(table.toLines(), input),
  }
  let endHunk: LineHunk | null = null
  const placements: number[] = []
  for (const hunk of input.hunks) {
    const found = locateSequentialIn(text, hunk)
    if (!found.ok) return found
    const loc = found.value
    if (loc.refusal !== undefined) return fail(loc.refusal)
    const pairing = checkPairing(text, table, hunk, loc, added)
    if (pairing !== null) return fail(pairing)
    placements.push(loc.start)
    warnings.push(...loc.warnings)
    if (loc.start + loc.oldLength === table.length) endHunk = hunk
    spliceOne(table, loc, eol, added)
  }
  const last = table.length > 0 ? table.line(table.length - 1) : undefined
  if (last !== undefined) {
    const rule = finalNewlineRule(input)
    const [finished] = finishLastLine([last], endHunk, rule, hadFinalNewline, eol)
    if (finished !== last) table.replace(table.length - 1, table.length, [finished as Line])
  }
  const regions = table.regions()
  // One region (or none) renders as the whole-file diff always did; several render per region,
  // as for the other locate modes, instead of one diff across the whole file.
  if (regions.length <= 1) return ok({ lines: table.toLines(), warnings, placements })
  return ok({ lines: table.toLines(), warnings, regions, placements })
}

/**
 * splice() for one located hunk, in place: context lines are the file's, removed lines go, added
 * lines are restyled. A line left unterminated by an earlier end of file gets `eol` once lines
 * follow it.
 */
function spliceOne(
  table: LineTable,
  location: Location,
  eol: Exclude<Eol, ''>,
  added: (line: HunkLine) => Exclude<Eol, ''>,
): void {
  let start = location.start
  const end = start + location.oldLength
  const fresh = freshLines(table, location, added)
  const atEnd = end === table.length
  for (let k = 0; k < fresh.length; k++) {
    const line = fresh[k] as Line
    if (line.eol === '' && !(atEnd && k === fresh.length - 1)) fresh[k] = { text: line.text, eol }
  }
  if (start > 0 && fresh.length > 0) {
    const prev = table.line(start - 1)
    if (prev.eol === '') {
      fresh.unshift({ text: prev.text, eol })
      start--
    }
  }
  table.replace(start, end, fresh)
}

/** The lines a located hunk puts in place of its old ones: the file's for context, added lines. */
function freshLines(
  table: LineTable,
  location: Location,
  added: (line: HunkLine) => Exclude<Eol, ''>,
): Line[] {
  const fresh: Line[] = []
  let fileIndex = location.start
  for (const [i, line] of location.lines.entries()) {
    if (line.op === '+') {
      fresh.push({ text: addedLineText(location, i, line), eol: added(line) })
    } else {
      if (fileIndex >= table.length) {
        throw new Error('applyHunks: cannot splice a hunk past the end of the file')
      }
      const own = table.line(fileIndex++)
      if (line.op === ' ') fresh.push(own)
    }
  }
  return fresh
}

/**
 * A SEARCH/REPLACE block whose SEARCH and REPLACE lines pair two ways (LineHunk.altLines) is
 * certain after an exact match, where context lines are the patch's own text either way. After
 * a lenient one they are the file's, so the other pairing is located too and both are written
 * out: MATCH_PAIRING_AMBIGUOUS when the lines differ, or when the other pairing cannot be placed.
 */
function checkPairing(
  text: SequentialText,
  table: LineTable,
  hunk: LineHunk,
  loc: Location,
  added: (line: HunkLine) => Exclude<Eol, ''>,
): EditErrorData | null {
  if (hunk.altLines === undefined || loc.pass === null || loc.pass === 'exact') return null
  const other = locateSequentialIn(text, { ...hunk, lines: hunk.altLines })
  const placed = other.ok && other.value.refusal === undefined ? other.value : null
  if (placed !== null && placed.start === loc.start) {
    const mine = freshLines(table, loc, added)
    const theirs = freshLines(table, placed, added)
    const same =
      mine.length === theirs.length &&
      mine.every((l, i) => l.text === theirs[i]?.text && l.eol === theirs[i]?.eol)
    if (same) return null
  }
  return pairingError(text.path, hunk, loc.start, loc.pass)
}

/** MATCH_PAIRING_AMBIGUOUS for `hunk`, matched at 0-based line `start` under `pass`. */
export function pairingError(
  path: string,
  hunk: LineHunk,
  start: number,
  pass: MatchPass,
): EditErrorData {
  return errorData(
    'MATCH_PAIRING_AMBIGUOUS',
    `The SEARCH/REPLACE block at patch line ${hunk.patchLine} matched ${path} at line ${start + 1} only ${passWords(pass)}, and its SEARCH and REPLACE lines pair two ways (a line repeated on both sides): the two pairings keep different lines of the file, so what the block means is not certain. Nothing was written.`,
    { path, patchLine: hunk.patchLine },
  )
}

/**
 * The ending each added line takes. When any line of the op's hunks states its ending, the patch
 * is explicit about every line (a line without a stated CRLF ends in LF), so a '-a'/'+a' pair
 * that differs only in its ending changes the line; otherwise new lines take `dominant`.
 */
function addedEol(
  hunks: readonly LineHunk[],
  dominant: Exclude<Eol, ''>,
): (line: HunkLine) => Exclude<Eol, ''> {
  const explicit = hunks.some((hunk) => hunk.lines.some((line) => line.eol !== undefined))
  if (!explicit) return () => dominant
  return (line) => line.eol ?? '\n'
}

function contextFor(lines: readonly Line[], input: ApplyHunksInput): LocateContext {
  return {
    index: indexLines(lines.map((l) => l.text)),
    path: input.path,
    exactOnly: input.exactOnly,
    ...(input.candidates === false ? { candidates: false } : {}),
  }
}

/**
 * One forward pass over the file: copies untouched lines, and for each placed hunk its context
 * lines (the file's), drops removed lines, and adds restyled new lines ending as `added` says.
 * A file line that loses its place as the unterminated last line gets `eol` (the dominant one).
 * `placed` must not overlap; it is processed in (start, order) order.
 */
function splice(
  lines: readonly Line[],
  placed: readonly Placed[],
  eol: Exclude<Eol, ''>,
  added: (line: HunkLine) => Exclude<Eol, ''>,
  regions?: LineRegion[],
): Line[] {
  const sorted = placed
    .slice()
    .sort((a, b) => a.location.start - b.location.start || a.order - b.order)
  const out: Line[] = []
  let next = 0
  for (const { location } of sorted) {
    while (next < location.start) out.push(lines[next++] as Line)
    let fileIndex = location.start
    // PERF: one region per run of removed and added lines, not per hunk: the diff (or the counts)
    // is then found run by run, so a hunk spanning a 20,000-line lockfile rewrite does not cost a
    // Myers diff of the whole span (that took 31 s for one real commit). Context lines are the
    // file's own on both sides, so the gaps between runs are untouched (render-diff.ts checks).
    let run: { oldStart: number; newStart: number } | null = null
    const closeRun = () => {
      if (run !== null) regions?.push({ ...run, oldEnd: fileIndex, newEnd: out.length })
      run = null
    }
    for (const [i, line] of location.lines.entries()) {
      if (line.op === ' ') closeRun()
      else run ??= { oldStart: fileIndex, newStart: out.length }
      if (line.op === '+') {
        out.push({ text: addedLineText(location, i, line), eol: added(line) })
      } else {
        const own = lines[fileIndex++]
        if (own === undefined) {
          throw new Error('applyHunks: cannot splice a hunk past the end of the file')
        }
        if (line.op === ' ') out.push(own)
      }
    }
    closeRun()
    next = fileIndex
  }
  while (next < lines.length) out.push(lines[next++] as Line)
  // A line that was last (no terminator) and now has lines after it needs one.
  for (let i = 0; i < out.length - 1; i++) {
    const line = out[i] as Line
    if (line.eol === '') out[i] = { text: line.text, eol }
  }
  return out
}

/** The format whose final-newline rule applies: the format's own, or 'edits' (keep the file's). */
function finalNewlineRule(input: ApplyHunksInput): PatchFormat {
  return input.keepFinalNewline === true ? 'edits' : input.format
}

/**
 * The final-newline rule, applied when a hunk touched the file's last line (matched it, or
 * inserted at the end): Codex patches end the file with a newline (as Codex does); unified diffs
 * follow the new side's "\ No newline at end of file" exactly; other formats, and any format
 * when the caller keeps the file's state (ApplyHunksInput.keepFinalNewline), keep the file's
 * original state. Untouched, the last line keeps its own terminator (or lack of one).
 */
function finishLastLine(
  lines: Line[],
  endHunk: LineHunk | null,
  rule: PatchFormat,
  hadFinalNewline: boolean,
  eol: Exclude<Eol, ''>,
): Line[] {
  const last = lines[lines.length - 1]
  if (endHunk === null || last === undefined) return lines
  let wanted: Eol
  switch (rule) {
    case 'codex':
      wanted = last.eol === '' ? eol : last.eol
      break
    case 'unified':
      wanted = endHunk.newNoNewlineAtEnd === true ? '' : last.eol === '' ? eol : last.eol
      break
    case 'search-replace':
    case 'edits':
      wanted = !hadFinalNewline ? '' : last.eol === '' ? eol : last.eol
      break
  }
  if (wanted !== last.eol) lines[lines.length - 1] = { text: last.text, eol: wanted }
  return lines
}
