// Unified diff hunks: the `@@ -a,b +c,d @@` header, the body (counted, or recounted when the
// counts are wrong), `\ No newline at end of file` markers, CRLF endings a body line states, and
// the checks that a creation has only added lines and a deletion only removed ones. File headers,
// names and which op the hunks belong to are src/parse/unified.ts and unified-names.ts. How a
// hunk's body ends is stated at parseHunks.
import { errorData, type EditErrorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import type { HunkLine, LineHunk } from '../types.js'
import { clip, DEV_NULL, parseName, stripPlainNames } from './unified-names.js'

const HUNK_HEADER_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(?: (.*))?$/
// Headers that models write without usable numbers: a bare `@@`, Aider's `@@ ... @@` (text after
// it is ignored), and a header cut short before its closing `@@` (`@@ -24,6`, `@@ -163,6 +1`).
// Such a hunk has no counts and no stated line: it is placed by its lines alone, in exactly one
// place or refused (src/match/locate-near.ts), as a Codex chunk is.
const NUMBERLESS_HEADER_RE =
  /^@@(?:[ \t]*|[ \t]+\.\.\.[ \t]+@@.*|[ \t]+@@.*|[ \t]+-\d+(?:,\d*)?(?:[ \t]+\+\d*(?:,\d*)?)?[ \t]*)$/

export const UNIFIED_EMPTY_HINT =
  'Give each file "--- a/path" and "+++ b/path" headers, then @@ hunks with at least one line.'

export interface Hunks {
  readonly hunks: LineHunk[]
  /** 0-based index of the first line after the last hunk. */
  readonly next: number
}

// While a hunk's stated counts are not yet used up, every body line belongs to it, whatever it
// looks like (`--- x`, `-- `, `diff`-like text removed from a file), as `git apply` reads it. Only
// when the body disagrees with the counts is the hunk recounted, and only then do `--- `/`+++ `
// pairs, `diff ` lines and a `-- ` signature end it. A non-empty line that starts with none of
// ' ', '-', '+', '\' met while the counts still run is corrupt (PARSE_BAD_LINE), unless it is
// the next hunk or file (`@@`, `diff `, `Index: `) ending a miscounted hunk; see corruptLine. A
// hunk of context lines alone changes nothing and is refused, as git apply refuses it.
//
//   hunk      = "@@ -" a ["," b] " +" c ["," d] " @@" [section] NL { body-line }
//   body-line = (" " | "-" | "+") text NL | "\" text NL          (\ No newline at end of file)
/**
 * Reads the hunks starting at `start` (zero or more); `path` labels errors. `crEnded[i]` says
 * line i ended in a '\r' that is content (splitPatchLinesWithCr); such body lines get eol '\r\n'.
 * `cut` is the index of the patch's last line when no newline ends it (-1 otherwise): a hunk
 * that ends there short of its counts was cut off.
 */
export function parseHunks(
  lines: readonly string[],
  start: number,
  path: string,
  crEnded: readonly boolean[] = [],
  cut = -1,
): Result<Hunks> {
  const hunks: LineHunk[] = []
  let index = start
  for (;;) {
    // Leniency: blank lines between the hunks of one file are tolerated when another hunk follows.
    let probe = index
    while (lines[probe] === '') probe++
    if (!(lines[probe] ?? '').startsWith('@@')) break
    const read = parseHunk(lines, probe, path, crEnded, cut)
    if (!read.ok) return read
    hunks.push(read.value.hunk)
    index = read.value.next
  }
  return ok({ hunks, next: index })
}

function badHunkLine(
  path: string,
  index: number,
  why: string,
): Result<{ hunk: LineHunk; next: number }> {
  return fail(
    errorData('PARSE_BAD_LINE', `Patch line ${index + 1} in the hunk for ${path} ${why}.`, {
      path,
      patchLine: index + 1,
    }),
  )
}

function parseHunk(
  lines: readonly string[],
  start: number,
  path: string,
  crEnded: readonly boolean[],
  cut: number,
): Result<{ hunk: LineHunk; next: number }> {
  const patchLine = start + 1
  const header = lines[start] as string
  const match = HUNK_HEADER_RE.exec(header)
  const numberless = match === null && NUMBERLESS_HEADER_RE.test(header)
  if (match === null && !numberless) {
    return fail(
      errorData(
        'PARSE_BAD_HEADER',
        `The hunk header "${clip(header)}" for ${path} at patch line ${patchLine} is not "@@ -a,b +c,d @@".`,
        { path, patchLine },
      ),
    )
  }
  const read =
    match === null
      ? numberlessEnd(lines, start, path, cut)
      : countedBody(lines, start, path, cut, match)
  if (!read.ok) return read
  const end = read.value

  const body: HunkLine[] = []
  let oldNoNewlineAtEnd = false
  let newNoNewlineAtEnd = false
  for (let index = start + 1; index < end; index++) {
    const line = lines[index] as string
    if (line.startsWith('\\')) {
      const previous = body[body.length - 1]
      if (previous === undefined) {
        return badHunkLine(path, index, 'is a "\\ No newline" marker with no line before it')
      }
      if (previous.op !== '+') oldNoNewlineAtEnd = true
      if (previous.op !== '-') newNoNewlineAtEnd = true
      // A line with no newline ends in no CRLF either: its '\r' is content, a lone CR (D-032).
      if (previous.eol !== undefined)
        body[body.length - 1] = { op: previous.op, text: previous.text + '\r' }
      continue
    }
    // Leniency: an empty line is an empty context line (whitespace-stripped patches).
    const op = line === '' ? ' ' : (line[0] as HunkLine['op'])
    if ((op !== '+' && oldNoNewlineAtEnd) || (op !== '-' && newNoNewlineAtEnd)) {
      return badHunkLine(
        path,
        index,
        'follows a "\\ No newline at end of file" marker on the same side',
      )
    }
    // PERF: no closure or spread per line; they would be most of a worker's garbage.
    const text = line.slice(1)
    body.push(crEnded[index] === true ? { op, text, eol: '\r\n' } : { op, text })
  }
  if (body.length === 0) {
    return fail(
      errorData(
        'PARSE_EMPTY_HUNK',
        `The hunk for ${path} at patch line ${patchLine} has no lines.`,
        { hint: UNIFIED_EMPTY_HINT, path, patchLine },
      ),
    )
  }
  // A hunk of context lines alone changes nothing; git apply calls it a corrupt patch.
  if (!body.some((line) => line.op !== ' ')) {
    return fail(
      errorData(
        'PARSE_EMPTY_HUNK',
        `The hunk for ${path} at patch line ${patchLine} changes nothing: it has only context lines.`,
        {
          hint: 'Give each hunk at least one "-" or "+" line, or leave the hunk out.',
          path,
          patchLine,
        },
      ),
    )
  }
  const hunk: LineHunk = {
    patchLine,
    hints: [],
    ...(match === null ? {} : { oldStartLine: Number(match[1]) }),
    endOfFile: false,
    lines: body,
    ...(oldNoNewlineAtEnd ? { oldNoNewlineAtEnd } : {}),
    ...(newNoNewlineAtEnd ? { newNoNewlineAtEnd } : {}),
    ...(match?.[5] === undefined || match[5] === '' ? {} : { section: match[5] }),
  }
  return ok({ hunk, next: end })
}

/**
 * Where a hunk with stated counts ends: at its counts when the body agrees with them, else
 * recounted; PARSE_BAD_LINE for a corrupt line while the counts run, PARSE_TRUNCATED for a body
 * cut off short of them.
 */
function countedBody(
  lines: readonly string[],
  start: number,
  path: string,
  cut: number,
  match: RegExpExecArray,
): Result<number> {
  const patchLine = start + 1
  const oldCount = match[2] === undefined ? 1 : Number(match[2])
  const newCount = match[4] === undefined ? 1 : Number(match[4])
  const counted = countedEnd(lines, start + 1, oldCount, newCount)
  if (counted === null) {
    const corrupt = corruptLine(lines, start + 1, oldCount, newCount)
    if (corrupt !== null) {
      const text = lines[corrupt] as string
      return fail(
        errorData(
          'PARSE_BAD_LINE',
          `Patch line ${corrupt + 1} ("${clip(text)}") in the hunk for ${path} at patch line ${patchLine} starts with none of " ", "-", "+", "\\" while the hunk's counts still run.`,
          {
            hint: 'Start every hunk line with " " (context, also for a context line that lost its space), "-" or "+", or fix the @@ counts.',
            path,
            patchLine: corrupt + 1,
          },
        ),
      )
    }
  }
  const end = counted ?? recountedEnd(lines, start + 1)
  if (counted === null && end - 1 === cut) {
    const truncated = truncation(lines, start, end, oldCount, newCount, path)
    if (truncated !== null) return fail(truncated)
  }
  return ok(end)
}

/**
 * Where a hunk without numbers ends: at the first line that cannot be a hunk line. With no
 * counts to show it whole, a body that stops mid-line on an added line (nothing in the file can
 * vouch for it) is PARSE_TRUNCATED; a cut context or removed line is checked against the file.
 */
function numberlessEnd(
  lines: readonly string[],
  start: number,
  path: string,
  cut: number,
): Result<number> {
  const end = recountedEnd(lines, start + 1)
  const last = lines[end - 1] as string
  if (end - 1 === cut && end - 1 > start && last.startsWith('+')) {
    return fail(
      errorData(
        'PARSE_TRUNCATED',
        `The patch stops in the middle of patch line ${end} ("${clip(last)}"), an added line of the hunk for ${path} at patch line ${start + 1}, whose header has no counts to show the hunk is whole. The output may have been cut off; nothing was written.`,
        { path, patchLine: end },
      ),
    )
  }
  return ok(end)
}

/**
 * PARSE_TRUNCATED when the hunk's body [start + 1, end), which ends on the patch's unterminated
 * last line, holds fewer lines than its header counts on either side: output cut off mid-line by
 * a length limit, whose last line is not what was meant. Wrong counts with every line whole stay
 * lenient (recountedEnd), and so does a whole hunk whose patch lost only its final newline.
 */
function truncation(
  lines: readonly string[],
  start: number,
  end: number,
  oldCount: number,
  newCount: number,
  path: string,
): EditErrorData | null {
  let oldSeen = 0
  let newSeen = 0
  for (let index = start + 1; index < end; index++) {
    const line = lines[index] as string
    oldSeen += countsOld(line)
    newSeen += countsNew(line)
  }
  if (oldSeen >= oldCount && newSeen >= newCount) return null
  const header = lines[start] as string
  return errorData(
    'PARSE_TRUNCATED',
    `The patch stops in the middle of patch line ${end} ("${clip(lines[end - 1] as string)}"), inside the hunk for ${path} at patch line ${start + 1}: "${clip(header)}" counts ${oldCount} old and ${newCount} new lines, the body has ${oldSeen} and ${newSeen}. The output was cut off; nothing was written.`,
    { path, patchLine: end },
  )
}

function isFileHeaderPair(lines: readonly string[], index: number): boolean {
  return (lines[index] ?? '').startsWith('--- ') && (lines[index + 1] ?? '').startsWith('+++ ')
}

function isBodyLine(line: string | undefined): boolean {
  if (line === undefined) return false
  if (line === '') return true
  const c = line[0]
  return c === ' ' || c === '-' || c === '+' || c === '\\'
}

// `-- ` is the signature separator `git format-patch` writes after the last file.
function isSignature(lines: readonly string[], index: number): boolean {
  return lines[index] === '-- ' && !isBodyLine(lines[index + 1])
}

// Whether a body line counts toward the old and the new side's line count: context (an empty
// line is blank context) counts on both, '-' on the old side, '+' on the new, '\' on neither.
function countsOld(line: string): number {
  return line === '' || line[0] === ' ' || line[0] === '-' ? 1 : 0
}

function countsNew(line: string): number {
  return line === '' || line[0] === ' ' || line[0] === '+' ? 1 : 0
}

/**
 * Where the hunk ends when its body agrees with the stated counts, or null when it does not:
 * the body runs out or hits a non-hunk line first, overshoots a count, or clearly continues
 * past the counted end. Within the counts a `--- `/`+++ ` pair is body (a removed `-- x` line
 * next to an added `++ y` one), as git apply reads it; a real file header after a hunk whose
 * counts are too large makes the count run into the `@@` after it, and the hunk is recounted.
 * One exception: counts that are one too large on each side end exactly on the next file's
 * header (a hand-written multi-file diff); see endsOnFileHeader.
 */
function countedEnd(
  lines: readonly string[],
  start: number,
  oldCount: number,
  newCount: number,
): number | null {
  let oldSeen = 0
  let newSeen = 0
  let index = start
  while (oldSeen < oldCount || newSeen < newCount) {
    const line = lines[index]
    if (line === undefined || !isBodyLine(line)) return null
    oldSeen += countsOld(line)
    newSeen += countsNew(line)
    if (oldSeen > oldCount || newSeen > newCount) return null
    index++
  }
  if (endsOnFileHeader(lines, start, index)) return null
  if ((lines[index] ?? '').startsWith('\\')) index++
  const after = lines[index]
  const continues =
    after !== undefined &&
    after !== '' &&
    isBodyLine(after) &&
    !isFileHeaderPair(lines, index) &&
    !isSignature(lines, index)
  if (continues) {
    return null
  }
  return index
}

/**
 * Whether the counted body [start, end) ends with a `--- `/`+++ ` pair that is a file header:
 * its names are one file (a/x and b/x, or /dev/null on one side) and a hunk header follows.
 * Content lines `-- x` and `++ y` removed and added at the very end of a hunk do not name one
 * file, so they stay body; the next file's header swallowed by miscounted (too large) counts
 * does, and the hunk is recounted instead of taking the next file's hunks as its own.
 */
function endsOnFileHeader(lines: readonly string[], start: number, end: number): boolean {
  if (end - start < 2 || !isFileHeaderPair(lines, end - 2)) return false
  if (!(lines[end] ?? '').startsWith('@@ -')) return false
  const oldName = parseName((lines[end - 2] as string).slice(4), 'traditional')
  const newName = parseName((lines[end - 1] as string).slice(4), 'traditional')
  if (oldName === null || newName === null) return false
  if (oldName.name === DEV_NULL || newName.name === DEV_NULL) return true
  const names = stripPlainNames(oldName.name, newName.name)
  return names.old === names.new
}

// Lines that may follow a miscounted hunk (too large counts) without making it corrupt: the next
// hunk, the next file (`diff ...`, an svn `Index:` line) or the end of the patch.
function endsMiscountedHunk(line: string): boolean {
  return line.startsWith('@@') || line.startsWith('diff ') || line.startsWith('Index: ')
}

/**
 * The 0-based index of a line that starts with none of ' ', '-', '+', '\' (and is not empty)
 * met while the stated counts still run, or null. Such a line is a context line that lost its
 * leading space (or got a tab instead): ending the hunk there would drop every line after it and
 * still report the patch as applied, so git and GNU patch call it corrupt. Once the counts
 * are used up, what follows is junk or the next header, as git reads it; and a miscounted hunk
 * may still end at the next hunk, file header or signature (recountedEnd).
 */
function corruptLine(
  lines: readonly string[],
  start: number,
  oldCount: number,
  newCount: number,
): number | null {
  let oldSeen = 0
  let newSeen = 0
  for (let index = start; oldSeen < oldCount || newSeen < newCount; index++) {
    const line = lines[index]
    if (line === undefined || isFileHeaderPair(lines, index) || isSignature(lines, index)) {
      return null
    }
    if (!isBodyLine(line)) return endsMiscountedHunk(line) ? null : index
    oldSeen += countsOld(line)
    newSeen += countsNew(line)
  }
  return null
}

/**
 * Leniency for wrong hunk counts: the hunk ends at the first line that cannot be a hunk line, a
 * `diff ` line, an `@@ ` line, a `--- `/`+++ ` pair, or a `-- ` signature.
 */
function recountedEnd(lines: readonly string[], start: number): number {
  let index = start
  while (index < lines.length) {
    const line = lines[index] as string
    if (!isBodyLine(line) || isFileHeaderPair(lines, index) || isSignature(lines, index)) break
    index++
  }
  // Trailing empty lines belong to whatever follows (usually nothing), not to the hunk.
  while (index > start && lines[index - 1] === '') index--
  return index
}

/** The content of a created file: its hunks may hold only added lines. */
export function creationContent(hunks: readonly LineHunk[], path: string): Result<string> {
  const added: HunkLine[] = []
  let noNewline = false
  for (const hunk of hunks) {
    const stray = hunk.lines.find((line) => line.op !== '+')
    if (stray !== undefined) {
      return fail(
        errorData(
          'PARSE_BAD_LINE',
          `The hunk at patch line ${hunk.patchLine} creates ${path} but has context or removed lines.`,
          { path, patchLine: hunk.patchLine },
        ),
      )
    }
    for (const line of hunk.lines) added.push(line)
    noNewline = hunk.newNoNewlineAtEnd === true
  }
  let content = ''
  for (let i = 0; i < added.length; i++) {
    const line = added[i] as HunkLine
    content += line.text + (noNewline && i === added.length - 1 ? '' : (line.eol ?? '\n'))
  }
  return ok(content)
}

/** The error for a deletion whose hunks hold anything but removed lines, else null. */
export function deletionStray(hunks: readonly LineHunk[], path: string): EditErrorData | null {
  const hunk = hunks.find((h) => h.lines.some((line) => line.op !== '-'))
  if (hunk === undefined) return null
  return errorData(
    'PARSE_BAD_LINE',
    `The hunk at patch line ${hunk.patchLine} deletes ${path} but has context or added lines.`,
    { path, patchLine: hunk.patchLine },
  )
}
