// The commonest `git diff` section, read without making a string or object per line
// (DECISIONS.md D-075): scanPlainSection reads a plain section (its grammar is stated there) as a
// packed update and answers null for anything else, or any doubt, which then goes to the general
// parser (unified.ts); so does a packed section whose file cannot take the exact splice
// (unpackHunks, called by src/apply/compute.ts). A property test holds unpackHunks to
// parseUnifiedDiff's own op for every section it accepts.
import type { FileOp, PackedBody, PackedHunk, UpdateOp } from '../types.js'
import { checkPlanEncoding } from './raw-bytes.js'
import { countNewlines, SECTION, shiftPatchLines, type PatchSegment } from './segments.js'
import { parseUnifiedDiff } from './unified.js'

/** A section read by scanPlainSection: the op (hunks packed) and the lines the section spans. */
export interface PlainSection {
  readonly op: UpdateOp
  readonly lines: number
}

const SPACE = 32
const PLUS = 43
const MINUS = 45
const COMMA = 44
const DIGIT_0 = 48
const DIGIT_9 = 57
// Longest line number read here: nine digits stay exact and far above any file size limit.
const MAX_DIGITS = 9
// What may not appear anywhere in a plain section: non-ASCII, CR and NUL.
const NOT_PLAIN = /[^\x01-\x0c\x0e-\x7f]/g
const PLAIN_NAME = /^[!#-[\]-~]+$/ // printable ASCII but space, '"' and '\'
const INDEX_LINE = /^index [0-9a-f]{4,64}\.\.[0-9a-f]{4,64}(?: 100644| 100755)?$/

/**
 * The ops of a run of a git diff's sections (segments.ts), numbered as in the whole patch, or
 * null when the run does not read as exactly its sections' ops (the caller then parses the whole
 * patch). With `pack`, each plain section becomes a packed update and the sections between them
 * go to the general parser a stretch at a time; without it, the whole run does.
 */
export function readUnifiedRun(run: PatchSegment, pack: boolean): FileOp[] | null {
  const { text, firstLine, sections } = run
  if (!pack) return parseStretch(text, 0, text.length, firstLine, sections)
  const starts: number[] = text.startsWith(SECTION) ? [0] : []
  for (let at = text.indexOf('\n' + SECTION); at !== -1; at = text.indexOf('\n' + SECTION, at + 1))
    starts.push(at + 1)
  if (starts.length !== sections || sections === 0) return null
  const ops: FileOp[] = []
  // The stretch not yet parsed: [stretchFrom, from), holding stretchSections sections and starting
  // at patch line stretchLine. What precedes the first section stays with it.
  let stretchFrom = 0
  let stretchSections = 0
  let stretchLine = firstLine
  let line = firstLine + countNewlines(text, 0, starts[0] as number)
  // Where the next char no plain section may hold is, unless the caller vouched for the run.
  let notPlain = run.plain === true ? text.length : nextNotPlain(text, 0)
  for (let i = 0; i < starts.length; i++) {
    const from = starts[i] as number
    const to = i + 1 < starts.length ? (starts[i + 1] as number) : text.length
    if (notPlain < from) notPlain = nextNotPlain(text, from)
    const plain =
      notPlain >= to && (i > 0 || from === 0) ? scanPlainSection(text, from, to, line) : null
    if (plain === null) {
      stretchSections++
      line += countNewlines(text, from, to)
      continue
    }
    if (stretchSections > 0) {
      const parsed = parseStretch(text, stretchFrom, from, stretchLine, stretchSections)
      if (parsed === null) return null
      ops.push(...parsed)
    }
    ops.push(plain.op)
    line += plain.lines
    stretchFrom = to
    stretchSections = 0
    stretchLine = line
  }
  if (stretchSections > 0) {
    const parsed = parseStretch(text, stretchFrom, text.length, stretchLine, stretchSections)
    if (parsed === null) return null
    ops.push(...parsed)
  }
  return ops
}

/** text[from, to) by the general parser, if it reads as exactly `sections` ops. */
function parseStretch(
  text: string,
  from: number,
  to: number,
  firstLine: number,
  sections: number,
): FileOp[] | null {
  const plan = parseUnifiedDiff(from === 0 && to === text.length ? text : text.slice(from, to))
  if (
    !plan.ok ||
    plan.value.ops.length !== sections ||
    !checkPlanEncoding(plan.value, undefined).ok
  )
    return null
  return shiftPatchLines(plan.value.ops, firstLine)
}

/**
 * The first offset at or after `from` in `text` that no plain section may hold, or text.length.
 * Sections before it need no further check (the caller scans a run's sections in order).
 */
export function nextNotPlain(text: string, from: number): number {
  NOT_PLAIN.lastIndex = from
  const found = NOT_PLAIN.exec(text)
  return found === null ? text.length : found.index
}

// A plain section:
//
//   plain-section = "diff --git a/" P " b/" P NL [ "index " hex ".." hex [" " mode] NL ]
//                   "--- a/" P NL "+++ b/" P NL hunk { hunk }
//   hunk          = "@@ -" a ["," b] " +" c ["," d] " @@" [" " text] NL
//                   { (" " | "-" | "+") text NL }
//
// where the section is ASCII with no CR or NUL, P is printable with no space, quote or backslash,
// the mode is a regular file's (100644 or 100755), every hunk's body uses up its stated counts
// exactly, holds a "-" or "+" line, and is followed by the next hunk or the section's end. For
// such a section the general parser (unified.ts, unified-hunks.ts) has no choice to make and no
// leniency to apply: it reads one update of P, locating near the stated lines, with these hunks
// and nothing else (its header rules, D-129, all hold: one name, no mode line).
/**
 * The section text[at, end) as a packed update, or null when it is not a plain section. The
 * caller has checked that the range holds only plain characters (nextNotPlain) and that `end` is
 * where the next "diff --git " line or the text ends. `patchLine` numbers the section's first
 * line in the whole patch.
 */
export function scanPlainSection(
  text: string,
  at: number,
  end: number,
  patchLine: number,
): PlainSection | null {
  if (!text.startsWith('diff --git a/', at)) return null
  let eol = lineEnd(text, at, end)
  if (eol === -1) return null
  const names = text.slice(at + 13, eol) // "P b/P"
  if ((names.length - 3) % 2 !== 0) return null
  const path = names.slice(0, (names.length - 3) / 2)
  if (!PLAIN_NAME.test(path) || names.slice(path.length) !== ` b/${path}`) return null
  let p = eol + 1
  let lines = 1
  if (text.startsWith('index ', p)) {
    eol = lineEnd(text, p, end)
    if (eol === -1 || !INDEX_LINE.test(text.slice(p, eol))) return null
    p = eol + 1
    lines++
  }
  const oldHeader = `--- a/${path}\n`
  const newHeader = `+++ b/${path}\n`
  if (!text.startsWith(oldHeader, p) || !text.startsWith(newHeader, p + oldHeader.length))
    return null
  p += oldHeader.length + newHeader.length
  lines += 2
  const hunks: PackedHunk[] = []
  while (p < end) {
    const hunk = scanHunk(text, p, end)
    if (hunk === null) return null
    hunks.push(hunk.hunk)
    lines += hunk.lines
    p = hunk.next
  }
  if (hunks.length === 0) return null
  const packed: PackedBody = { text, from: at, to: end, hunks }
  return {
    op: { kind: 'update', path, patchLine, hunks: [], locate: 'near-line', packed },
    lines,
  }
}

/** One hunk at text[p]: its header, and a body that uses up the stated counts exactly. */
function scanHunk(
  text: string,
  p: number,
  end: number,
): { hunk: PackedHunk; lines: number; next: number } | null {
  if (!text.startsWith('@@ -', p)) return null
  const old = rangeAt(text, p + 4)
  if (old === null || !text.startsWith(' +', old.next)) return null
  const added = rangeAt(text, old.next + 2)
  if (added === null) return null
  const oldStart = old.start
  const oldCount = old.count
  const newCount = added.count
  let k = added.next
  if (!text.startsWith(' @@', k)) return null
  k += 3
  const headerEnd = lineEnd(text, p, end)
  if (headerEnd === -1 || (k !== headerEnd && text.charCodeAt(k) !== SPACE)) return null
  const bodyFrom = headerEnd + 1
  let q = bodyFrom
  let oldSeen = 0
  let newSeen = 0
  let lines = 1
  let previous = -1 // start of the body line before q
  let last = -1
  let changes = false
  while (oldSeen < oldCount || newSeen < newCount) {
    if (q >= end) return null
    const op = text.charCodeAt(q)
    if (op === SPACE) {
      oldSeen++
      newSeen++
    } else if (op === MINUS) {
      oldSeen++
      changes = true
    } else if (op === PLUS) {
      newSeen++
      changes = true
    } else return null
    if (oldSeen > oldCount || newSeen > newCount) return null
    const eol = lineEnd(text, q, end)
    if (eol === -1) return null
    previous = last
    last = q
    q = eol + 1
    lines++
  }
  // No body, or only context lines: the general parser refuses such a hunk.
  if (!changes) return null
  // A body ending in a "--- "/"+++ " pair may be the next file's header swallowed by miscounted
  // counts; the general parser decides that (unified-hunks.ts endsOnFileHeader).
  if (previous !== -1 && text.startsWith('--- ', previous) && text.startsWith('+++ ', last))
    return null
  if (q !== end && !text.startsWith('@@ -', q)) return null
  return {
    hunk: { oldStart, oldCount, newCount, bodyFrom, bodyTo: q },
    lines,
    next: q,
  }
}

/** A hunk header's "start[,count]" at text[from]; the count is 1 when omitted, as git writes it. */
function rangeAt(
  text: string,
  from: number,
): { start: number; count: number; next: number } | null {
  const start = digitsAt(text, from)
  if (start === null) return null
  if (text.charCodeAt(start.next) !== COMMA)
    return { start: start.value, count: 1, next: start.next }
  const count = digitsAt(text, start.next + 1)
  return count === null ? null : { start: start.value, count: count.value, next: count.next }
}

/** Offset of the '\n' that ends the line starting at `from`, or -1 when it is not before `end`. */
function lineEnd(text: string, from: number, end: number): number {
  const eol = text.indexOf('\n', from)
  return eol === -1 || eol >= end ? -1 : eol
}

function digitsAt(text: string, from: number): { value: number; next: number } | null {
  let value = 0
  let k = from
  for (; k < text.length && k - from <= MAX_DIGITS; k++) {
    const c = text.charCodeAt(k)
    if (c < DIGIT_0 || c > DIGIT_9) break
    value = value * 10 + (c - DIGIT_0)
  }
  if (k === from || k - from > MAX_DIGITS) return null
  return { value, next: k }
}

/**
 * The op with its hunks parsed by the general parser from the section's own text, numbered as in
 * the whole patch; an op without a packed body is returned as it is. Throws on a section the
 * general parser reads differently: scanPlainSection vouched for it, so that is a bug.
 */
export function unpackHunks(op: UpdateOp): UpdateOp {
  const packed = op.packed
  if (packed === undefined) return op
  const plan = parseUnifiedDiff(packed.text.slice(packed.from, packed.to))
  const parsed = plan.ok && plan.value.ops.length === 1 ? plan.value.ops[0] : undefined
  if (parsed?.kind !== 'update' || parsed.path !== op.path) {
    throw new Error(`plain-section: ${op.path} at patch line ${op.patchLine} parses otherwise`)
  }
  return shiftPatchLines([parsed], op.patchLine)[0] as UpdateOp
}
