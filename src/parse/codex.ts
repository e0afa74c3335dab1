// Codex `*** Begin Patch` text -> EditPlan. Syntax only: paths pass through trimmed (the engine
// resolves and checks them, and finds two ops on one path); chunks are located later by
// src/match/ in 'cursor' mode. Never throws for bad input: every refusal is a PARSE_* Result.
// The grammar, the leniencies and the known limits are stated at parseCodexPatch.
import { errorData, type ErrorCode } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import { splitPatchLines } from '../text/lines.js'
import type { AddOp, DeleteOp, EditPlan, FileOp, HunkLine, LineHunk, UpdateOp } from '../types.js'

const BEGIN_PATCH = '*** Begin Patch'
const END_PATCH = '*** End Patch'
const END_OF_FILE = '*** End of File'
const ADD_FILE = '*** Add File:'
const DELETE_FILE = '*** Delete File:'
const UPDATE_FILE = '*** Update File:'
const MOVE_TO = '*** Move to:'

const PREVIEW_CHARS = 60

// Heredoc openers as agents write them; the delimiter is any shell word, optionally quoted.
const HEREDOC_OPENER =
  /^(?:(?:apply_patch|applypatch)\s+)?<<-?\s*(?:'([^'\s]+)'|"([^"\s]+)"|([^\s'"<>|&;()]+))$/

type Marker =
  | { readonly kind: 'begin' | 'end' | 'eof' | 'unknown' }
  | { readonly kind: 'add' | 'delete' | 'update' | 'move'; readonly path: string }

/** A successful sub-parse: what it produced and the 0-based index of the first unread line. */
interface Step<T> {
  readonly value: T
  readonly next: number
}

type StepResult<T> = Result<Step<T>>

// Grammar (markers and headers compare on the trimmed line; NL is '\n' or '\r\n'):
//   patch     := blank* "*** Begin Patch" NL section+ "*** End Patch" NL blank*
//   section   := (add | delete | update) blank*
//   add       := "*** Add File:" path NL ("+" text NL)*        -- content: each text + '\n'
//   delete    := "*** Delete File:" path NL
//   update    := "*** Update File:" path NL ("*** Move to:" path NL)? chunk*  -- Move to or chunk
//   chunk     := at-line* body-line+ ("*** End of File" NL)?  -- at-line+ except on the 1st chunk
//   at-line   := "@@" | "@@ " hint                            -- at column 0; consecutive ones nest
//   body-line := (" " | "-" | "+") text NL | NL               -- bare NL: an empty context line
//
// Leniencies (each pinned by a test in test/unit/parse/codex.test.ts):
//   1. marker and header lines may be padded with whitespace (a BOM too); paths are trimmed;
//   2. CRLF patch text reads like LF (splitPatchLines);
//   3. a heredoc wrapper is stripped: first non-blank line `[apply_patch|applypatch] <<[-]WORD`
//      (WORD bare, 'quoted' or "quoted") and a last non-blank line WORD; a missing closing WORD
//      is tolerated, since the patch inside is still complete;
//   4. blank lines before Begin Patch, after End Patch, between sections and before a chunk's @@
//      line are skipped (blank lines that end a chunk body stay its empty context lines);
//   5. several consecutive @@ lines are nested hints for one chunk (Codex itself rejects them);
//   6. the first chunk of an Update may omit @@; an Update with only Move to is a pure rename.
// Known limit: a ' '-prefixed context line whose trimmed text is a marker (say ` *** End Patch`)
// reads as that marker, the price of leniency 1. Unknown `***` directives count only at column 0,
// so an indented ` *** note` stays a context line. Strict where others guess: a blank line inside
// Add File content is PARSE_BAD_LINE (write a lone '+'), not a silent empty line.
/**
 * Parses a Codex patch into an EditPlan with format 'codex'.
 *
 * @example
 * const result = parseCodexPatch('*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n')
 * // result.value.ops[0] -> { kind: 'delete', path: 'old.txt', patchLine: 2, hunks: [] }
 */
export function parseCodexPatch(text: string): Result<EditPlan> {
  const lines = splitPatchLines(text)
  const { start, stop } = heredocSpan(lines)

  const begin = skipBlank(lines, start, stop)
  if (begin >= stop) {
    return failWith('PARSE_BAD_HEADER', 'The patch is empty; it must start with *** Begin Patch.')
  }
  if (lineAt(lines, begin).trim() !== BEGIN_PATCH) {
    return failWith(
      'PARSE_BAD_HEADER',
      `The patch must start with *** Begin Patch, but line ${begin + 1} is ` +
        `${preview(lineAt(lines, begin))}.`,
      { patchLine: begin + 1 },
    )
  }

  const end = findEndPatch(lines, begin + 1, stop)
  if (end === -1) {
    const last = lastNonBlank(lines, begin, stop)
    return failWith(
      'PARSE_UNTERMINATED',
      `The patch has no *** End Patch line; it stops at line ${last + 1}.`,
      { patchLine: last + 1 },
    )
  }

  const sections = parseSections(lines, begin + 1, end)
  if (!sections.ok) return sections
  if (sections.value.length === 0) {
    return failWith(
      'PARSE_EMPTY_HUNK',
      `The patch that begins at line ${begin + 1} has no Add, Delete or Update File section.`,
      { patchLine: begin + 1 },
    )
  }

  const trailing = skipBlank(lines, end + 1, stop)
  if (trailing < stop) {
    return failWith(
      'PARSE_TRAILING_TEXT',
      `Line ${trailing + 1} (${preview(lineAt(lines, trailing))}) follows *** End Patch, ` +
        'where only blank lines may come.',
      { patchLine: trailing + 1 },
    )
  }

  return ok({ format: 'codex', ops: sections.value })
}

/** The 0-based [start, stop) range of lines inside an optional heredoc wrapper. */
function heredocSpan(lines: readonly string[]): { start: number; stop: number } {
  const whole = { start: 0, stop: lines.length }
  const first = skipBlank(lines, 0, lines.length)
  if (first >= lines.length) return whole
  const match = HEREDOC_OPENER.exec(lineAt(lines, first).trim())
  if (match === null) return whole
  const word = match[1] ?? match[2] ?? match[3]
  const last = lastNonBlank(lines, first + 1, lines.length)
  const closes = last > first && lineAt(lines, last).trim() === word
  return { start: first + 1, stop: closes ? last : lines.length }
}

function parseSections(lines: readonly string[], from: number, to: number): Result<FileOp[]> {
  const ops: FileOp[] = []
  let i = from
  while (i < to) {
    const line = lineAt(lines, i)
    if (isBlank(line)) {
      i++
      continue
    }
    const marker = classifyMarker(line)
    if (marker === null) {
      return failWith(
        'PARSE_BAD_HEADER',
        `Line ${i + 1} (${preview(line)}) is not a file header; expected *** Add File:, ` +
          '*** Delete File:, *** Update File: or *** End Patch.',
        { patchLine: i + 1 },
      )
    }
    let step: StepResult<FileOp>
    switch (marker.kind) {
      case 'add':
      case 'delete':
      case 'update': {
        if (marker.path === '') {
          return failWith('PARSE_BAD_HEADER', `The file header on line ${i + 1} names no path.`, {
            patchLine: i + 1,
          })
        }
        if (marker.kind === 'add') step = parseAdd(lines, i, to, marker.path)
        else if (marker.kind === 'delete') step = parseDelete(lines, i, to, marker.path)
        else step = parseUpdate(lines, i, to, marker.path)
        break
      }
      case 'move':
        return failWith(
          'PARSE_BAD_HEADER',
          `*** Move to on line ${i + 1} must directly follow an *** Update File header.`,
          { patchLine: i + 1 },
        )
      case 'eof':
        return failWith(
          'PARSE_BAD_HEADER',
          `*** End of File on line ${i + 1} must close a chunk of an *** Update File section.`,
          { patchLine: i + 1 },
        )
      case 'begin':
        return failWith(
          'PARSE_BAD_HEADER',
          `Line ${i + 1} opens a second *** Begin Patch before the first one ended.`,
          { patchLine: i + 1 },
        )
      case 'end':
      case 'unknown':
        // 'end' cannot occur: `to` is the first End Patch line. Treat it as unknown to stay total.
        return failWith(
          'PARSE_BAD_HEADER',
          `Line ${i + 1} (${preview(line)}) is not a known *** directive ` +
            '(Add File, Delete File, Update File, Move to, End of File, End Patch).',
          { patchLine: i + 1 },
        )
    }
    if (!step.ok) return step
    ops.push(step.value.value)
    i = step.value.next
  }
  return ok(ops)
}

function parseAdd(
  lines: readonly string[],
  header: number,
  to: number,
  path: string,
): StepResult<AddOp> {
  let content = ''
  let i = header + 1
  while (i < to) {
    const line = lineAt(lines, i)
    if (classifyMarker(line) !== null) break
    if (line.startsWith('+')) {
      content += `${line.slice(1)}\n`
      i++
      continue
    }
    // Blank lines may separate sections; inside the content they would be a silent guess.
    if (isBlank(line) && endsSection(lines, i, to)) {
      i = skipBlank(lines, i, to)
      break
    }
    return failWith(
      'PARSE_BAD_LINE',
      `Line ${i + 1} (${preview(line)}) in Add File ${path} must start with '+'; ` +
        "write a lone '+' for an empty line.",
      { path, patchLine: i + 1 },
    )
  }
  const op: AddOp = { kind: 'add', path, patchLine: header + 1, content, overwrite: true }
  return ok({ value: op, next: i })
}

function parseDelete(
  lines: readonly string[],
  header: number,
  to: number,
  path: string,
): StepResult<DeleteOp> {
  const next = skipBlank(lines, header + 1, to)
  if (next < to && classifyMarker(lineAt(lines, next)) === null) {
    return failWith(
      'PARSE_BAD_LINE',
      `Line ${next + 1} (${preview(lineAt(lines, next))}) follows Delete File ${path}, ` +
        'which takes no body lines.',
      { path, patchLine: next + 1 },
    )
  }
  const op: DeleteOp = { kind: 'delete', path, patchLine: header + 1, hunks: [] }
  return ok({ value: op, next })
}

function parseUpdate(
  lines: readonly string[],
  header: number,
  to: number,
  path: string,
): StepResult<UpdateOp> {
  let i = header + 1
  let moveTo: string | undefined
  const move = i < to ? classifyMarker(lineAt(lines, i)) : null
  if (move !== null && move.kind === 'move') {
    if (move.path === '') {
      return failWith('PARSE_BAD_HEADER', `The *** Move to on line ${i + 1} names no path.`, {
        path,
        patchLine: i + 1,
      })
    }
    moveTo = move.path
    i++
  }

  const hunks: LineHunk[] = []
  for (;;) {
    const next = skipBlank(lines, i, to)
    if (next >= to) {
      i = next
      break
    }
    const line = lineAt(lines, next)
    const marker = classifyMarker(line)
    if (marker !== null) {
      if (marker.kind === 'move') {
        return failWith(
          'PARSE_BAD_HEADER',
          `*** Move to on line ${next + 1} must directly follow the *** Update File header ` +
            `of ${path}.`,
          { path, patchLine: next + 1 },
        )
      }
      if (marker.kind === 'eof') {
        return failWith(
          'PARSE_BAD_HEADER',
          `*** End of File on line ${next + 1} in the update of ${path} closes no chunk.`,
          { path, patchLine: next + 1 },
        )
      }
      i = next
      break
    }
    let chunkStart = next
    if (!line.startsWith('@@')) {
      if (hunks.length > 0) {
        return failWith(
          'PARSE_BAD_HEADER',
          `Line ${next + 1} (${preview(line)}) in the update of ${path} needs an @@ line ` +
            'to start a new chunk after *** End of File.',
          { path, patchLine: next + 1 },
        )
      }
      // The first chunk may omit @@; blank lines before its first body line are its context.
      chunkStart = i
    }
    const chunk = parseChunk(lines, chunkStart, to, path)
    if (!chunk.ok) return chunk
    hunks.push(chunk.value.value)
    i = chunk.value.next
  }

  if (hunks.length === 0 && moveTo === undefined) {
    return failWith(
      'PARSE_EMPTY_HUNK',
      `*** Update File: ${path} on line ${header + 1} has no chunks and no *** Move to.`,
      { path, patchLine: header + 1 },
    )
  }
  const op: UpdateOp = {
    kind: 'update',
    path,
    patchLine: header + 1,
    hunks,
    locate: 'cursor',
    ...(moveTo === undefined ? {} : { moveTo }),
  }
  return ok({ value: op, next: i })
}

function parseChunk(
  lines: readonly string[],
  start: number,
  to: number,
  path: string,
): StepResult<LineHunk> {
  const hints: string[] = []
  let i = start
  while (i < to && lineAt(lines, i).startsWith('@@')) {
    const line = lineAt(lines, i)
    if (line.startsWith('@@ ')) {
      const hint = line.slice(3).trimEnd()
      if (hint !== '') hints.push(hint)
    } else if (line.trimEnd() !== '@@') {
      return failWith(
        'PARSE_BAD_HEADER',
        `Line ${i + 1} (${preview(line)}) in the update of ${path} is not "@@" or "@@ <hint>".`,
        { path, patchLine: i + 1 },
      )
    }
    i++
  }
  const bodyOffset = i - start

  const body: HunkLine[] = []
  let endOfFile = false
  while (i < to) {
    const line = lineAt(lines, i)
    const marker = classifyMarker(line)
    if (marker !== null) {
      if (marker.kind === 'eof') {
        endOfFile = true
        i++
      }
      break
    }
    if (line.startsWith('@@')) break
    const op = line === '' ? ' ' : line[0]
    if (op !== ' ' && op !== '-' && op !== '+') {
      return failWith(
        'PARSE_BAD_LINE',
        `Line ${i + 1} (${preview(line)}) in the update of ${path} must start with ` +
          "' ' (context), '-' (remove) or '+' (add).",
        { path, patchLine: i + 1 },
      )
    }
    body.push({ op, text: line.slice(1) })
    i++
  }

  if (body.length === 0) {
    return failWith(
      'PARSE_EMPTY_HUNK',
      `The chunk on line ${start + 1} in the update of ${path} has no lines.`,
      { path, patchLine: start + 1 },
    )
  }
  return ok({ value: { patchLine: start + 1, hints, bodyOffset, endOfFile, lines: body }, next: i })
}

/** Reads a line as a patch marker, or null when it is not one (body lines, prose). */
function classifyMarker(line: string): Marker | null {
  const trimmed = line.trim()
  if (!trimmed.startsWith('***')) return null
  if (trimmed === BEGIN_PATCH) return { kind: 'begin' }
  if (trimmed === END_PATCH) return { kind: 'end' }
  if (trimmed === END_OF_FILE) return { kind: 'eof' }
  if (trimmed.startsWith(ADD_FILE)) {
    return { kind: 'add', path: trimmed.slice(ADD_FILE.length).trim() }
  }
  if (trimmed.startsWith(DELETE_FILE)) {
    return { kind: 'delete', path: trimmed.slice(DELETE_FILE.length).trim() }
  }
  if (trimmed.startsWith(UPDATE_FILE)) {
    return { kind: 'update', path: trimmed.slice(UPDATE_FILE.length).trim() }
  }
  if (trimmed.startsWith(MOVE_TO)) {
    return { kind: 'move', path: trimmed.slice(MOVE_TO.length).trim() }
  }
  // Indented, an unknown `***` line is ordinary text (a C comment, a Markdown rule) in a chunk.
  return line.startsWith('***') ? { kind: 'unknown' } : null
}

/** Index of the first line that reads as *** End Patch in [from, to), or -1. */
function findEndPatch(lines: readonly string[], from: number, to: number): number {
  for (let i = from; i < to; i++) {
    if (lineAt(lines, i).trim() === END_PATCH) return i
  }
  return -1
}

/** Whether the blank run at `i` is followed by a marker or by nothing: a section separator. */
function endsSection(lines: readonly string[], i: number, to: number): boolean {
  const next = skipBlank(lines, i, to)
  return next >= to || classifyMarker(lineAt(lines, next)) !== null
}

function skipBlank(lines: readonly string[], from: number, to: number): number {
  let i = from
  while (i < to && isBlank(lineAt(lines, i))) i++
  return i
}

/** Index of the last non-blank line in [from, to), or `from` when there is none. */
function lastNonBlank(lines: readonly string[], from: number, to: number): number {
  for (let i = to - 1; i >= from; i--) {
    if (!isBlank(lineAt(lines, i))) return i
  }
  return from
}

function isBlank(line: string): boolean {
  return line.trim() === ''
}

function lineAt(lines: readonly string[], index: number): string {
  return lines[index] ?? ''
}

function preview(line: string): string {
  const short = line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS)}…` : line
  return JSON.stringify(short)
}

function failWith<T>(
  code: ErrorCode,
  message: string,
  details: { readonly path?: string; readonly patchLine?: number } = {},
): Result<T> {
  return fail(errorData(code, message, details))
}
