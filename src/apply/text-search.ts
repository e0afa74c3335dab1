// Finding a string edit's old_string or anchor in one file's text. A Doc pairs the file's lines
// with an LF view (every terminator written as '\n'), so a search string matches CRLF and LF
// alike; a lone CR is content in the file (src/text/lines.ts) and in the search string (toLf).
// View offsets map back to 0-based lines and text offsets. Whole-line search falls back to the
// lenient passes. Pure and error-free: whether a lenient hit is allowed (bytes mode), and
// what the error says, is src/apply/string-edits.ts.
import { findLineMatches } from '../match/ladder.js'
import { dominantEol, splitLines, type Eol, type Line } from '../text/lines.js'
import { MATCH_PASSES, normalizeLine, type MatchPass } from '../text/normalize.js'

const LENIENT_PASSES: readonly MatchPass[] = MATCH_PASSES.filter((pass) => pass !== 'exact')

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

/** A lenient (or line-by-line exact) hit: the pass that found it and 0-based start lines. */
export interface LineHits {
  readonly pass: MatchPass
  readonly starts: number[]
}

/** 0-based [firstLine, lastLine] of one match. */
export type Span = [number, number]

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

/** CRLF written as LF; a lone CR is content and stays (D-032). */
export function toLf(text: string): string {
  return text.replace(/\r\n/g, '\n')
}

/** Non-overlapping occurrences of `needle` in `hay`, as start offsets. */
export function occurrences(hay: string, needle: string): number[] {
  const found: number[] = []
  for (let at = hay.indexOf(needle); at !== -1; at = hay.indexOf(needle, at + needle.length)) {
    found.push(at)
  }
  return found
}

/** Lines of a new_string that is inserted as whole lines: one trailing newline is optional. */
export function wholeLines(newString: string): string[] {
  const lf = toLf(newString)
  if (lf === '') return []
  return (lf.endsWith('\n') ? lf.slice(0, -1) : lf).split('\n')
}

/** Distinct spans holding `needle` in the LF view. */
export function exactSpans(doc: Doc, needle: string): Span[] {
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
export function findWholeLines(doc: Doc, wanted: readonly string[]): LineHits | null {
  return wanted.length === 0 ? null : findLineMatches(doc.texts, wanted, 0, doc.texts.length)
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
 * The first lenient pass under which a one-line anchor is part of some line (compared after
 * that pass's normalisation), with the one-line spans it hits; null when no pass hits.
 */
export function findLenientInLine(
  doc: Doc,
  anchor: string,
): { pass: MatchPass; spans: Span[] } | null {
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
