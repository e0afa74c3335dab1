// Unified diff hunks: the `@@ -a,b +c,d @@` header, the body (counted, or recounted when the
// counts are wrong), `\ No newline at end of file` markers, and the checks that a creation has
// only added lines and a deletion only removed ones. File headers, names and which op the hunks
// belong to are src/parse/unified.ts and unified-names.ts.
//
//   hunk      = "@@ -" a ["," b] " +" c ["," d] " @@" [section] NL { body-line }
//   body-line = (" " | "-" | "+") text NL | "\" text NL          (\ No newline at end of file)
import { errorData, type EditErrorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import type { HunkLine, LineHunk } from '../types.js'
import { clip } from './unified-names.js'

const HUNK_HEADER_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(?: .*)?$/

export const UNIFIED_EMPTY_HINT =
  'Give each file "--- a/path" and "+++ b/path" headers, then @@ hunks with at least one line.'

export interface Hunks {
  readonly hunks: LineHunk[]
  /** 0-based index of the first line after the last hunk. */
  readonly next: number
}

/** Reads the hunks starting at `start` (zero or more); `path` labels errors. */
export function parseHunks(lines: readonly string[], start: number, path: string): Result<Hunks> {
  const hunks: LineHunk[] = []
  let index = start
  for (;;) {
    // Leniency: blank lines between the hunks of one file are tolerated when another hunk follows.
    let probe = index
    while (lines[probe] === '') probe++
    if (!(lines[probe] ?? '').startsWith('@@')) break
    const read = parseHunk(lines, probe, path)
    if (!read.ok) return read
    hunks.push(read.value.hunk)
    index = read.value.next
  }
  return ok({ hunks, next: index })
}

function parseHunk(
  lines: readonly string[],
  start: number,
  path: string,
): Result<{ hunk: LineHunk; next: number }> {
  const patchLine = start + 1
  const header = lines[start] as string
  const match = HUNK_HEADER_RE.exec(header)
  if (match === null) {
    return fail(
      errorData(
        'PARSE_BAD_HEADER',
        `The hunk header "${clip(header)}" for ${path} at patch line ${patchLine} is not "@@ -a,b +c,d @@".`,
        { path, patchLine },
      ),
    )
  }
  const oldStartLine = Number(match[1])
  const oldCount = match[2] === undefined ? 1 : Number(match[2])
  const newCount = match[4] === undefined ? 1 : Number(match[4])
  const end = countedEnd(lines, start + 1, oldCount, newCount) ?? recountedEnd(lines, start + 1)

  const body: HunkLine[] = []
  let oldNoNewlineAtEnd = false
  let newNoNewlineAtEnd = false
  for (let index = start + 1; index < end; index++) {
    const line = lines[index] as string
    const badLine = (why: string): Result<{ hunk: LineHunk; next: number }> =>
      fail(
        errorData('PARSE_BAD_LINE', `Patch line ${index + 1} in the hunk for ${path} ${why}.`, {
          path,
          patchLine: index + 1,
        }),
      )
    if (line.startsWith('\\')) {
      const previous = body[body.length - 1]
      if (previous === undefined) {
        return badLine('is a "\\ No newline" marker with no line before it')
      }
      if (previous.op !== '+') oldNoNewlineAtEnd = true
      if (previous.op !== '-') newNoNewlineAtEnd = true
      continue
    }
    // Leniency: an empty line is an empty context line (whitespace-stripped patches).
    const op = line === '' ? ' ' : (line[0] as HunkLine['op'])
    if ((op !== '+' && oldNoNewlineAtEnd) || (op !== '-' && newNoNewlineAtEnd)) {
      return badLine('follows a "\\ No newline at end of file" marker on the same side')
    }
    body.push({ op, text: line.slice(1) })
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
  const hunk: LineHunk = {
    patchLine,
    hints: [],
    oldStartLine,
    endOfFile: false,
    lines: body,
    ...(oldNoNewlineAtEnd ? { oldNoNewlineAtEnd } : {}),
    ...(newNoNewlineAtEnd ? { newNoNewlineAtEnd } : {}),
  }
  return ok({ hunk, next: end })
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

/**
 * Where the hunk ends when its body agrees with the stated counts, or null when it does not:
 * the body runs out or hits a non-hunk line first, overshoots a count, or clearly continues
 * past the counted end.
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
    if (line === undefined || !isBodyLine(line) || isFileHeaderPair(lines, index)) return null
    const c = line === '' ? ' ' : line[0]
    if (c === ' ') {
      oldSeen++
      newSeen++
    } else if (c === '-') oldSeen++
    else if (c === '+') newSeen++
    if (oldSeen > oldCount || newSeen > newCount) return null
    index++
  }
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
  const added: string[] = []
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
    for (const line of hunk.lines) added.push(line.text)
    noNewline = hunk.newNoNewlineAtEnd === true
  }
  if (added.length === 0) return ok('')
  return ok(added.join('\n') + (noNewline ? '' : '\n'))
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
