// OpenAI apply_patch operations (create_file, update_file, delete_file with V4A diffs) as
// sections of one Codex patch, for the server's apply_patch tool: the V4A diff is the body of a
// Codex Update File, create_file's '+' lines the content of an Add File. Pure: it checks what
// the Codex parser cannot tell apart from an operation of its own (an envelope, a `***` header,
// a line break in a path) and leaves every other check to the parser and the engine.
import { errorData, type EditErrorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'

/** One file operation, as the Responses API and the Agents SDK give it. */
export interface PatchOperation {
  readonly type: 'create_file' | 'update_file' | 'delete_file'
  readonly path: string
  readonly diff?: string
  /** update_file only, from the Agents SDK: the file's new path. */
  readonly moveTo?: string
}

/** One Codex section: its text, every line ending in '\n'. */
export interface CodexSection {
  readonly type: PatchOperation['type']
  readonly text: string
  /** Lines of the section before the diff (the headers). */
  readonly headerLines: number
  /** The path as the section names it (trimmed, as the Codex parser reads it). */
  readonly path: string
  readonly moveTo?: string
}

const BEGIN_PATCH = '*** Begin Patch'
const END_PATCH = '*** End Patch'
const END_OF_FILE = '*** End of File'
/** What the Codex parser reads as the start of another operation, on a trimmed line. */
const HEADERS = ['*** Add File:', '*** Delete File:', '*** Update File:', '*** Move to:']

/** The Codex section for `operation`, or the reason it cannot be one. */
export function codexSection(operation: unknown): Result<CodexSection> {
  const op = shapeOf(operation)
  if (!op.ok) return op
  const { type, diff } = op.value
  const path = checkPath(op.value.path, 'path')
  if (!path.ok) return path
  if (type === 'delete_file') {
    return ok({ type, text: `*** Delete File: ${path.value}\n`, headerLines: 1, path: path.value })
  }
  const lines = diffLines(diff ?? '')
  if (type === 'create_file') {
    const bad = createLinesError(lines, path.value)
    if (bad !== undefined) return fail(bad)
    return ok({
      type,
      text: `*** Add File: ${path.value}\n${body(lines)}`,
      headerLines: 1,
      path: path.value,
    })
  }
  let moveTo: string | undefined
  if (op.value.moveTo !== undefined) {
    const to = checkPath(op.value.moveTo, 'moveTo')
    if (!to.ok) return to
    moveTo = to.value
  }
  const bad = updateLinesError(lines, path.value)
  if (bad !== undefined) return fail(bad)
  const headers = `*** Update File: ${path.value}\n${moveTo === undefined ? '' : `*** Move to: ${moveTo}\n`}`
  return ok({
    type,
    text: headers + body(lines),
    headerLines: moveTo === undefined ? 1 : 2,
    path: path.value,
    ...(moveTo === undefined ? {} : { moveTo }),
  })
}

/** The Codex patch of `sections`, in order. */
export function codexPatch(sections: readonly CodexSection[]): string {
  return `${BEGIN_PATCH}\n${sections.map((s) => s.text).join('')}${END_PATCH}\n`
}

/** Where each section sits in codexPatch(sections): its header's patch line and its diff's. */
export function sectionLines(
  sections: readonly CodexSection[],
): { readonly header: number; readonly diff: number }[] {
  const out: { header: number; diff: number }[] = []
  let line = 2
  for (const s of sections) {
    out.push({ header: line, diff: line + s.headerLines })
    line += lineCount(s.text)
  }
  return out
}

const SHAPE_HINT =
  'Send the operation as the apply_patch tool defines it: type, path, and a diff for create_file and update_file.'

function shapeOf(operation: unknown): Result<PatchOperation> {
  const op = operation as Partial<Record<keyof PatchOperation, unknown>> | null
  const type = op?.type
  if (type !== 'create_file' && type !== 'update_file' && type !== 'delete_file') {
    return bad(
      'PARSE_BAD_HEADER',
      `The apply_patch operation's type is ${JSON.stringify(type)}; it must be create_file, update_file or delete_file.`,
      { hint: SHAPE_HINT },
    )
  }
  if (typeof op?.path !== 'string') {
    return bad('PATH_INVALID', `The ${type} operation has no path (a string).`, {
      hint: SHAPE_HINT,
    })
  }
  if (type !== 'delete_file' && typeof op.diff !== 'string') {
    return bad('PARSE_BAD_HEADER', `The ${type} operation on ${op.path} has no diff (a string).`, {
      path: op.path,
      hint: SHAPE_HINT,
    })
  }
  if (op.moveTo !== undefined && (type !== 'update_file' || typeof op.moveTo !== 'string')) {
    return bad(
      'PARSE_BAD_HEADER',
      'moveTo must be a path (a string) of an update_file operation.',
      { path: op.path, hint: SHAPE_HINT },
    )
  }
  return ok(op as PatchOperation)
}

/** The path as the Codex header carries it: trimmed, non-empty, on one line. */
function checkPath(raw: string, field: string): Result<string> {
  if (/[\r\n]/.test(raw)) {
    return bad(
      'PATH_INVALID',
      `The ${field} ${JSON.stringify(raw)} holds a line break; a path is one line.`,
      { path: raw },
    )
  }
  const path = raw.trim()
  if (path === '') return bad('PATH_INVALID', `The ${field} is empty.`)
  return ok(path)
}

/** The diff's lines as the Codex parser splits them: at '\n', a trailing '\r' dropped. */
function diffLines(diff: string): string[] {
  if (diff === '') return []
  const lines = diff.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
}

function body(lines: readonly string[]): string {
  return lines.map((l) => `${l}\n`).join('')
}

/** Every line starts with '+' (trailing blank lines end the section, as in Codex). */
function createLinesError(lines: readonly string[], path: string): EditErrorData | undefined {
  let end = lines.length
  while (end > 0 && (lines[end - 1] as string).trim() === '') end--
  for (let i = 0; i < end; i++) {
    const line = lines[i] as string
    if (line.startsWith('+')) continue
    return errorData(
      'PARSE_BAD_LINE',
      `Line ${i + 1} of the create_file diff of ${path} (${preview(line)}) does not start with '+'; every line of a new file's diff is '+' and the line's text ('+' alone for an empty line).`,
      { path, hint: "Prefix every line of the new file with '+', and resend the call." },
    )
  }
  return undefined
}

/**
 * No line the Codex parser would read as a patch envelope or another file's header (on the
 * trimmed line, as it compares them), and no unknown `***` directive at column 0; `*** End of
 * File` is the V4A and Codex marker it is.
 */
function updateLinesError(lines: readonly string[], path: string): EditErrorData | undefined {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    const trimmed = line.trim()
    if (!trimmed.startsWith('***') || trimmed === END_OF_FILE) continue
    const envelope = trimmed === BEGIN_PATCH || trimmed === END_PATCH
    const header = HEADERS.some((h) => trimmed.startsWith(h))
    if (!envelope && !header && !line.startsWith('***')) continue
    const message = envelope
      ? `Line ${i + 1} of the update_file diff of ${path} is ${preview(line)}: the diff carries a patch envelope of its own. Send only the diff (its @@, ' ', '-' and '+' lines); the envelope and the file header come from the operation.`
      : `Line ${i + 1} of the update_file diff of ${path} is ${preview(line)}, a *** directive: it would start another file operation. A V4A diff holds @@ lines, ' ', '-' and '+' lines and *** End of File only.`
    return errorData('PARSE_BAD_HEADER', message, {
      path,
      hint: 'Send the diff of this one file only, with no *** line but *** End of File; make each other file change a call of its own.',
    })
  }
  return undefined
}

function lineCount(text: string): number {
  let n = 0
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++
  return n
}

function preview(line: string): string {
  return JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line)
}

function bad<T>(
  code: Parameters<typeof errorData>[0],
  message: string,
  details: Parameters<typeof errorData>[2] = {},
): Result<T> {
  return fail(errorData(code, message, details))
}
