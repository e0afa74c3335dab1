// Finds a string edit's old_string or anchor in one file's text. EditDoc holds the text as one
// LineTable for all of a file's edits; an occurrence is a (line, column) position in it. A search
// string matches CRLF and LF alike: it is compared with an LF view of the lines; a lone CR is
// content in the file and in the search string (toLf, DECISIONS.md D-032). A needle holding a
// whole line is found through that line's key; a shorter one by one indexOf pass over the view
// of the text as read, plus line checks where edits changed it (DECISIONS.md D-070). Pure and
// error-free: whether a lenient hit is allowed, and what an error says, is src/apply/.
import { findTableMatches, type LineMatches } from './ladder.js'
import { joinLines, splitLines, splitLinesAt, type Line } from '../text/lines.js'
import { LineTable } from '../text/line-table.js'
import { MATCH_PASSES, normalizeLine, type MatchPass } from '../text/normalize.js'

const LENIENT_PASSES: readonly MatchPass[] = MATCH_PASSES.filter((pass) => pass !== 'exact')

/** 0-based [firstLine, lastLine] of one match. */
export type Span = [number, number]

/** CRLF written as LF; a lone CR is content and stays. */
export function toLf(text: string): string {
  return text.replace(/\r\n/g, '\n')
}

/** Lines of a new_string that is inserted as whole lines: one trailing newline is optional. */
export function wholeLines(newString: string): string[] {
  const lf = toLf(newString)
  if (lf === '') return []
  return (lf.endsWith('\n') ? lf.slice(0, -1) : lf).split('\n')
}

/** The ladder reports overlapping starts for repetitive text; replace_all needs disjoint ones. */
export function disjointStarts(starts: readonly number[], length: number): number[] {
  const disjoint: number[] = []
  for (const s of starts) {
    const prev = disjoint[disjoint.length - 1]
    if (prev === undefined || s >= prev + length) disjoint.push(s)
  }
  return disjoint
}

/**
 * One exact occurrence in current coordinates: from column `col` of line `line` to column
 * `endCol` of line `endLine` (0-based; endLine may be the line count when the match ends with the
 * file's final line break). Columns count chars of a line's text; a line's break is one '\n'.
 */
export interface Occurrence {
  readonly line: number
  readonly col: number
  readonly endLine: number
  readonly endCol: number
}

/**
 * A file's text as a sequence of string edits sees it: a LineTable over its lines, kept split
 * exactly as splitLines would split the current text (each edited region is re-split on its own),
 * plus an LF view of the base text for substring search. What one edit changes costs that edit;
 * the whole text is split once and joined once.
 */
export class EditDoc {
  readonly table: LineTable
  readonly #text: string
  #view: string | undefined
  #viewStarts: Int32Array | undefined
  readonly #textStarts: Int32Array

  constructor(text: string) {
    this.#text = text
    const { lines, starts } = splitLinesAt(text)
    this.table = new LineTable(lines)
    this.#textStarts = starts
  }

  /**
   * Replaces current lines [start, end) (whole lines, with their breaks) by `text`, as if the
   * whole text were rebuilt and re-split: a region that no longer ends in a line break joins the
   * line after it, and one after an unterminated line joins that line.
   */
  replaceText(start: number, end: number, text: string): void {
    const table = this.table
    let from = start
    let to = end
    let joined = text
    const prev = from > 0 ? table.line(from - 1) : undefined
    if (prev !== undefined && prev.eol === '' && joined !== '') {
      joined = prev.text + joined
      from--
    }
    if (joined !== '' && !joined.endsWith('\n') && to < table.length) {
      const next = table.line(to)
      joined += next.text + next.eol
      to++
    }
    table.replace(from, to, splitLines(joined))
  }

  /** The current text: slices of the text the document was made from, and the fresh lines. */
  toText(): string {
    const starts = this.#baseTextStarts()
    let out = ''
    for (const piece of this.table.pieces()) {
      if ('fresh' in piece) out += joinLines(piece.fresh)
      else out += this.#text.slice(starts[piece.from], starts[piece.to])
    }
    return out
  }

  /**
   * Non-overlapping occurrences of `needle` (LF line breaks, non-empty) in the current LF view,
   * leftmost first: what occurrences(view, needle) finds, without building the view. A needle
   * with a whole line inside it is looked up by that line's key; a shorter one is searched in the
   * base text's view (one indexOf pass) and, near the edited places, line by line.
   */
  occurrences(needle: string): Occurrence[] {
    const parts = needle.split('\n')
    const k = parts.length - 1
    const found: Occurrence[] = []
    const at = (line: number, col: number): Occurrence => ({
      line,
      col,
      endLine: line + k,
      endCol: k === 0 ? col + needle.length : (parts[k] as string).length,
    })
    if (k >= 2) {
      // Every match holds parts[j] as a whole line: the rarest one leaves the fewest candidates
      // (before the table can count lines, the longest, the likeliest to be rare).
      const rare = this.table.rarest('exact', parts, 1, k)
      let j = rare ?? 1
      if (rare === null) {
        for (let m = 2; m < k; m++) {
          if ((parts[m] as string).length > (parts[j] as string).length) j = m
        }
      }
      for (const pos of this.table.find('exact', parts[j] as string)) {
        const i = pos - j
        if (i >= 0 && this.#matchesAt(parts, i)) found.push(at(i, this.#startCol(parts, i)))
      }
    } else {
      this.#baseOccurrences(needle, (line, col) => found.push(at(line, col)))
      const span = k - (parts[k] === '' ? 1 : 0)
      const near = this.table.startsNearEdits(span)
      const nearFound: Occurrence[] = []
      for (const i of near) {
        if (k === 0) {
          const text = this.table.line(i).text
          for (let c = text.indexOf(needle); c !== -1; c = text.indexOf(needle, c + 1)) {
            nearFound.push(at(i, c))
          }
        } else if (this.#matchesAt(parts, i)) nearFound.push(at(i, this.#startCol(parts, i)))
      }
      if (nearFound.length > 0) {
        found.push(...nearFound)
        found.sort((a, b) => a.line - b.line || a.col - b.col)
      }
    }
    // Leftmost-first, skipping overlaps, as an indexOf loop stepping by the needle's length.
    const chosen: Occurrence[] = []
    let endLine = -1
    let endCol = 0
    for (const o of found) {
      if (o.line > endLine || (o.line === endLine && o.col >= endCol)) {
        chosen.push(o)
        endLine = o.endLine
        endCol = o.endCol
      }
    }
    return chosen
  }

  #startCol(parts: readonly string[], i: number): number {
    return this.table.line(i).text.length - (parts[0] as string).length
  }

  /** Whether a needle of two or more parts starts in line i (parts[0] ends that line). */
  #matchesAt(parts: readonly string[], i: number): boolean {
    const table = this.table
    const k = parts.length - 1
    if (i < 0 || i + k - 1 >= table.length) return false
    const first = table.line(i)
    if (first.eol === '' || !first.text.endsWith(parts[0] as string)) return false
    for (let j = 1; j < k; j++) {
      const line = table.line(i + j)
      if (line.eol === '' || line.text !== parts[j]) return false
    }
    const last = parts[k] as string
    if (last === '') return true
    return i + k < table.length && table.line(i + k).text.startsWith(last)
  }

  /** Occurrences in the base text whose lines are all still in place and adjacent. */
  #baseOccurrences(needle: string, push: (line: number, col: number) => void): void {
    const view = this.#baseView()
    const starts = this.#baseViewStarts()
    for (let p = view.indexOf(needle); p !== -1; p = view.indexOf(needle, p + 1)) {
      const a = lineOf(starts, p)
      const b = lineOf(starts, p + needle.length - 1)
      const line = this.table.baseRun(a, b)
      if (line >= 0) push(line, p - (starts[a] as number))
    }
  }

  #baseView(): string {
    if (this.#view === undefined) {
      const crlf = this.#text.includes('\r\n')
      this.#view = crlf ? toLf(this.#text) : this.#text
      // Without CRLF the view is the text, so its line starts are the text's.
      if (!crlf) this.#viewStarts = this.#textStarts
    }
    return this.#view
  }

  /** View offset of each base line's start, plus the view's length. */
  #baseViewStarts(): Int32Array {
    if (this.#viewStarts === undefined) {
      const base = this.table.base
      const starts = new Int32Array(base.length + 1)
      let v = 0
      for (let i = 0; i < base.length; i++) {
        starts[i] = v
        const line = base[i] as Line
        v += line.text.length + (line.eol === '' ? 0 : 1)
      }
      starts[base.length] = v
      this.#viewStarts = starts
    }
    return this.#viewStarts
  }

  /** Text offset of each base line's start, plus the text's length. */
  #baseTextStarts(): Int32Array {
    return this.#textStarts
  }
}

/** The line whose view range holds offset `p` (starts as #baseViewStarts builds them). */
function lineOf(starts: Int32Array, p: number): number {
  let lo = 0
  let hi = starts.length - 2
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1
    if ((starts[mid] as number) <= p) lo = mid
    else hi = mid - 1
  }
  return lo
}

/** Distinct line spans of the exact occurrences of `needle` (LF line breaks, no trailing one). */
export function exactSpans(doc: EditDoc, needle: string): Span[] {
  const spans: Span[] = []
  const lastLine = needle.split('\n').length - 1
  for (const o of doc.occurrences(needle)) {
    // The needle has no trailing break here, so its last char is on line o.line + lastLine.
    const span: Span = [o.line, o.line + lastLine]
    const prev = spans[spans.length - 1]
    if (prev === undefined || prev[0] !== span[0] || prev[1] !== span[1]) spans.push(span)
  }
  return spans
}

/**
 * Whole-line search through the ladder over the document's current lines, for after the exact
 * substring search failed. 'exact' stays in: a block ending in '\n' matches an unterminated last
 * line only line by line.
 */
export function findWholeLines(doc: EditDoc, wanted: readonly string[]): LineMatches | null {
  return findTableMatches(doc.table, wanted)
}

/**
 * The first lenient pass under which a one-line anchor is part of some current line (compared
 * after that pass's normalisation), with the one-line spans it hits; null when no pass hits.
 */
export function findLenientInLine(
  doc: EditDoc,
  anchor: string,
): { pass: MatchPass; spans: Span[] } | null {
  const table = doc.table
  for (const pass of LENIENT_PASSES) {
    const key = normalizeLine(anchor, pass)
    if (key === '') continue
    const spans: Span[] = []
    for (let i = 0; i < table.length; i++) if (table.key(i, pass).includes(key)) spans.push([i, i])
    if (spans.length > 0) return { pass, spans }
  }
  return null
}

// The key of the tolerant_whitespace rung: a tab counts as four spaces, not as a move to the next
// tab stop (DECISIONS.md D-092).
/** A line with each tab of its leading indentation written as four spaces. */
export function tabKey(text: string): string {
  return text.replace(/^[ \t]+/, (indent) => indent.replace(/\t/g, '    '))
}

/** 0-based starts where `wanted` matches whole current lines compared by tabKey. */
export function findTabLines(doc: EditDoc, wanted: readonly string[]): number[] {
  const keys = wanted.map(tabKey)
  const texts = doc.table.texts(0, doc.table.length)
  const starts: number[] = []
  for (let i = 0; i + keys.length <= texts.length; i++) {
    let all = true
    for (let j = 0; j < keys.length && all; j++) all = tabKey(texts[i + j] as string) === keys[j]
    if (all) starts.push(i)
  }
  return starts
}

/** The one-line spans of the current lines that hold a one-line anchor, both compared by tabKey. */
export function findTabInLine(doc: EditDoc, anchor: string): Span[] {
  const key = tabKey(anchor)
  const spans: Span[] = []
  doc.table.texts(0, doc.table.length).forEach((text, i) => {
    if (tabKey(text).includes(key)) spans.push([i, i])
  })
  return spans
}
