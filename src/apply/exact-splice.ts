// The common case of a `git diff` hunk, applied to the file's bytes without decoding them: every
// hunk's old side is exactly the file's lines at the line it states, where the general path
// (apply-hunks.ts) could only place it too, with nothing to restyle. This answers that case or
// returns null, and the caller takes the general path; a property test holds both to the same
// bytes and counts. It applies only when the file is UTF-8 (the caller checked) without BOM, NUL
// or CR, and no hunk touches the last line, inserts without an old side, lacks trailing context,
// or states a line ending or a missing final newline.
import type { LineHunk, PackedBody, PackedHunk } from '../types.js'
import { asciiBytesOf, utf8Encode } from '../text/decode.js'
import { changedLineCounts } from './render-diff.js'

export interface SplicedFile {
  readonly bytes: Uint8Array
  readonly additions: number
  readonly deletions: number
}

const LF = 0x0a
const CR = 0x0d
const NUL = 0x00

/**
 * `plain`: the caller has checked that the file holds no CR and no NUL (a native search is much
 * faster than this module's loop); line starts are then found only as far as the hunks reach.
 * `count: false`: only the bytes are wanted, and additions and deletions are 0.
 */
export function spliceExact(
  source: Uint8Array,
  hunks: readonly LineHunk[],
  plain = false,
  count = true,
): SplicedFile | null {
  if (hunks.length === 0) return null
  if (source.length >= 3 && source[0] === 0xef && source[1] === 0xbb && source[2] === 0xbf)
    return null
  const lastHunk = hunks[hunks.length - 1] as LineHunk
  const reach = (lastHunk.oldStartLine ?? 0) + lastHunk.lines.length + 1
  const found = plain ? lineStartsUpTo(source, reach) : plainLineStarts(source)
  if (found === -1) return null
  const starts = lineStarts
  // The first `found` entries of starts end with one sentinel past the last line found: the end
  // of the file, or, when the search stopped early, the start of a line no hunk reaches (total is
  // then only a lower bound, which the "not the last line" check below handles the same way).
  const total = found - 1
  // PERF: first every hunk is checked and the output laid out as byte ranges of the file and
  // added lines; then one buffer is filled. No per-line arrays or encodes on the way.
  const parts: Array<number | string> = [] // [from, to) of the file, or an added line's text
  let size = source.length
  let additions = 0
  let deletions = 0
  let copiedTo = 0 // byte offset up to which the file is laid out
  let cursor = 0 // first line a hunk may start at
  for (const hunk of hunks) {
    if (hunk.oldNoNewlineAtEnd === true || hunk.newNoNewlineAtEnd === true) return null
    const start = (hunk.oldStartLine ?? 0) - 1
    let oldLength = 0
    for (const line of hunk.lines) {
      if (line.eol !== undefined) return null
      if (line.op !== '+') oldLength++
    }
    // The file's last line keeps or loses its terminator by rules of the general path; a hunk
    // without trailing context must end the file (anchorsOf in src/match/locate-near.ts), which
    // the general path checks and refuses.
    if (oldLength === 0 || start < cursor || start + oldLength > total - 1) return null
    if (hunk.lines[hunk.lines.length - 1]?.op !== ' ') return null
    // Counted a run of removed and added lines at a time, as the general path's diff is
    // (apply-hunks.ts regions): a hunk of thousands of changed lines costs no Myers diff of all.
    let old: string[] = []
    let added: string[] = []
    const countRun = () => {
      if (old.length === 0 && added.length === 0) return
      if (!count) {
        old = []
        added = []
        return
      }
      const counts = changedLineCounts(old, added)
      additions += counts.additions
      deletions += counts.deletions
      old = []
      added = []
    }
    let k = start
    for (const line of hunk.lines) {
      if (line.op === '+') {
        added.push(line.text)
        parts.push(copiedTo, starts[k] as number, line.text)
        copiedTo = starts[k] as number
        size += utf8Length(line.text) + 1
        continue
      }
      if (!sameLine(source, starts, k, line.text)) return null
      if (line.op === '-') {
        old.push(line.text)
        parts.push(copiedTo, starts[k] as number)
        copiedTo = starts[k + 1] as number
        size -= copiedTo - (starts[k] as number)
      } else countRun()
      k++
    }
    countRun()
    cursor = k
  }
  parts.push(copiedTo, source.length)
  return { bytes: fill(source, parts, size), additions, deletions }
}

/**
 * spliceExact for a packed section (src/parse/plain-section.ts): the same conditions and the same
 * result, read from the section's bytes by offsets, without its line objects. The section is
 * ASCII, so its chars are its bytes; each context or removed line is compared with the file's
 * line in place, and the new content is copied from the file and the patch.
 */
export function splicePacked(
  source: Uint8Array,
  body: PackedBody,
  plain = false,
): SplicedFile | null {
  const { text, hunks } = body
  if (hunks.length === 0) return null
  if (source.length >= 3 && source[0] === 0xef && source[1] === 0xbb && source[2] === 0xbf)
    return null
  const firstHunk = hunks[0] as PackedHunk
  const lastHunk = hunks[hunks.length - 1] as PackedHunk
  const reach = lastHunk.oldStart + lastHunk.oldCount + lastHunk.newCount + 1
  const found = plain ? lineStartsUpTo(source, reach) : plainLineStarts(source)
  if (found === -1) return null
  const starts = lineStarts
  const total = found - 1 // as in spliceExact
  const base = firstHunk.bodyFrom
  const patch = asciiBytesOf(text, base, lastHunk.bodyTo) // patch[i] is text[base + i]
  // [from, to) of the file, or [-1 - from, to) of the patch for an added line and its '\n'.
  const parts: number[] = []
  let size = source.length
  let additions = 0
  let deletions = 0
  let copiedTo = 0
  let cursor = 0
  for (const hunk of hunks) {
    const start = hunk.oldStart - 1
    const oldLength = hunk.oldCount
    if (oldLength === 0 || start < cursor || start + oldLength > total - 1) return null
    // Lines of the current run of removed and added lines (counted as spliceExact counts them).
    let olds = 0
    let news = 0
    const countRun = () => {
      if (olds === 0 && news === 0) return
      const counts = packedLineCounts(patch, text, base, olds, news)
      additions += counts.additions
      deletions += counts.deletions
      olds = 0
      news = 0
    }
    let k = start
    let op = SPACE
    for (let q = hunk.bodyFrom - base; q < hunk.bodyTo - base;) {
      op = patch[q] as number
      const from = q + 1 // the line's text in the patch
      if (op === PLUS) {
        let eol = from
        while (patch[eol] !== LF) eol++
        parts.push(copiedTo, starts[k] as number, -1 - from, eol + 1)
        copiedTo = starts[k] as number
        size += eol + 1 - from
        news = pushLine(newLines, news, from, eol)
        q = eol + 1
        continue
      }
      const at = starts[k] as number
      const length = (starts[k + 1] as number) - 1 - at // no hunk reaches the last line
      if (patch[from + length] !== LF) return null
      for (let i = 0; i < length; i++) if (patch[from + i] !== source[at + i]) return null
      if (op === MINUS) {
        olds = pushLine(oldLines, olds, from, from + length)
        parts.push(copiedTo, at)
        copiedTo = starts[k + 1] as number
        size -= copiedTo - at
      } else countRun()
      k++
      q = from + length + 1
    }
    // No trailing context: the hunk must end the file, which it does not (see spliceExact).
    if (op !== SPACE) return null
    countRun()
    cursor = k
  }
  parts.push(copiedTo, source.length)
  const out = new Uint8Array(size)
  let at = 0
  for (let i = 0; i < parts.length; i += 2) {
    const from = parts[i] as number
    const to = parts[i + 1] as number
    if (from < 0) for (let b = -1 - from; b < to; b++) out[at++] = patch[b] as number
    else if (to > from) {
      out.set(source.subarray(from, to), at)
      at += to - from
    }
  }
  return { bytes: out, additions, deletions }
}

/**
 * A hunk's old and new lines as [from, to) offsets into the patch bytes, two entries each, reused
 * from hunk to hunk (the splice runs to completion before the next one).
 */
let oldLines = new Int32Array(256)
let newLines = new Int32Array(256)

function pushLine(lines: Int32Array, count: number, from: number, to: number): number {
  if (2 * count + 2 > lines.length) {
    const grown = new Int32Array(lines.length * 2)
    grown.set(lines)
    if (lines === oldLines) oldLines = grown
    else newLines = grown
    lines = grown
  }
  lines[2 * count] = from
  lines[2 * count + 1] = to
  return count + 1
}

/**
 * changedLineCounts for a run's removed and added lines in oldLines and newLines: the common
 * prefix and suffix are dropped by comparing bytes; what is left on both sides (mostly nothing,
 * or a line or two) goes to changedLineCounts as strings.
 */
function packedLineCounts(
  patch: Uint8Array,
  text: string,
  base: number,
  olds: number,
  news: number,
): { additions: number; deletions: number } {
  let o0 = 0
  let n0 = 0
  let o1 = olds
  let n1 = news
  while (o0 < o1 && n0 < n1 && sameLines(patch, o0, n0)) {
    o0++
    n0++
  }
  while (o1 > o0 && n1 > n0 && sameLines(patch, o1 - 1, n1 - 1)) {
    o1--
    n1--
  }
  if (o0 === o1 || n0 === n1) return { additions: n1 - n0, deletions: o1 - o0 }
  // One line left on a side: it is common to both sides at most once.
  if (o1 - o0 === 1 || n1 - n0 === 1) {
    let common = 0
    for (let o = o0; o < o1 && common === 0; o++)
      for (let n = n0; n < n1 && common === 0; n++) if (sameLines(patch, o, n)) common = 1
    return { additions: n1 - n0 - common, deletions: o1 - o0 - common }
  }
  const strings = (lines: Int32Array, from: number, to: number) => {
    const out: string[] = []
    for (let i = from; i < to; i++)
      out.push(text.slice(base + (lines[2 * i] as number), base + (lines[2 * i + 1] as number)))
    return out
  }
  return changedLineCounts(strings(oldLines, o0, o1), strings(newLines, n0, n1))
}

function sameLines(patch: Uint8Array, o: number, n: number): boolean {
  const from = oldLines[2 * o] as number
  const length = (oldLines[2 * o + 1] as number) - from
  const other = newLines[2 * n] as number
  if ((newLines[2 * n + 1] as number) - other !== length) return false
  for (let i = 0; i < length; i++) if (patch[from + i] !== patch[other + i]) return false
  return true
}

const PLUS = 0x2b
const MINUS = 0x2d
const SPACE = 0x20

/**
 * Line starts found by the last search, reused from call to call: the splice runs to completion
 * before the next one, and a fresh array per file would be a worker's second-largest garbage.
 */
let lineStarts = new Int32Array(1024)

function pushStart(count: number, at: number): number {
  if (count === lineStarts.length) {
    const grown = new Int32Array(count * 2)
    grown.set(lineStarts)
    lineStarts = grown
  }
  lineStarts[count] = at
  return count + 1
}

/**
 * Byte offset where each line starts, plus one entry at the end of the file, into lineStarts;
 * returns how many entries, or -1 when the file holds a CR or a NUL. PERF: one loop over the
 * bytes; a native indexOf per line and two more whole-file scans cost several times as much on
 * 300-line files.
 */
function plainLineStarts(source: Uint8Array): number {
  let count = pushStart(0, 0)
  const n = source.length
  for (let i = 0; i < n; i++) {
    const b = source[i] as number
    if (b <= CR) {
      if (b === LF) count = pushStart(count, i + 1)
      else if (b === CR || b === NUL) return -1
    }
  }
  if ((lineStarts[count - 1] as number) !== n) count = pushStart(count, n)
  return count
}

/**
 * Line starts of the first `limit` lines (or all, if fewer) plus one sentinel, into lineStarts:
 * the next line's start, or the end of the file; returns how many entries. Only for a file known
 * to hold no CR or NUL.
 */
function lineStartsUpTo(source: Uint8Array, limit: number): number {
  let count = pushStart(0, 0)
  for (let at = source.indexOf(LF); at !== -1 && count <= limit;) {
    count = pushStart(count, at + 1)
    at = source.indexOf(LF, at + 1)
  }
  if ((lineStarts[count - 1] as number) !== source.length && count <= limit)
    count = pushStart(count, source.length)
  return count
}

/** Whether line k of the file (without its '\n') is exactly `text`. */
function sameLine(source: Uint8Array, starts: Int32Array, k: number, text: string): boolean {
  const from = starts[k] as number
  const to = (starts[k + 1] as number) - 1 // the line's '\n'; no hunk reaches the last line
  if (isAscii(text)) {
    if (text.length !== to - from) return false
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) !== source[from + i]) return false
    return true
  }
  const bytes = utf8Encode(text)
  if (bytes.length !== to - from) return false
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== source[from + i]) return false
  return true
}

// PERF: a native regex scan is about twice as fast as a charCodeAt loop over patch lines, which
// are slices of one long string.
const NON_ASCII = /[^\x00-\x7f]/

function isAscii(text: string): boolean {
  return !NON_ASCII.test(text)
}

function utf8Length(text: string): number {
  return isAscii(text) ? text.length : utf8Encode(text).length
}

/** The output: each pair of numbers a range of `source`, each string an added line plus '\n'. */
function fill(source: Uint8Array, parts: ReadonlyArray<number | string>, size: number): Uint8Array {
  const out = new Uint8Array(size)
  let at = 0
  for (let i = 0; i < parts.length;) {
    const part = parts[i] as number | string
    if (typeof part === 'string') {
      if (isAscii(part)) for (let c = 0; c < part.length; c++) out[at++] = part.charCodeAt(c)
      else {
        const bytes = utf8Encode(part)
        out.set(bytes, at)
        at += bytes.length
      }
      out[at++] = LF
      i++
      continue
    }
    const to = parts[i + 1] as number
    if (to > part) {
      out.set(source.subarray(part, to), at)
      at += to - part
    }
    i += 2
  }
  return out
}
