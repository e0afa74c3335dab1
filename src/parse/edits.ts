// JSON edit lists (str_replace style, `--format edits`) -> EditPlan with one EditsOp per path.
// Validates shape only: matching, line ranges against the file, expected_hash and creating a
// file for an empty old_string are checked later (src/apply/string-edits.ts and the engine).
// The request's grammar is stated at parseEditsJson.
import { errorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import type { EditPlan, EditsOp, StringEdit } from '../types.js'

/** The JSON modes; `insert` with `after_line` parses to the StringEdit mode 'insert_line'. */
type Mode = Exclude<StringEdit['mode'], 'insert_line'>

const MODES: readonly Mode[] = ['replace', 'insert', 'replace_range', 'delete_range', 'write']

const CAMEL_TO_SNAKE: Readonly<Record<string, string>> = {
  oldString: 'old_string',
  newString: 'new_string',
  replaceAll: 'replace_all',
  expectedMatches: 'expected_matches',
  startLine: 'start_line',
  endLine: 'end_line',
  afterLine: 'after_line',
  expectedHash: 'expected_hash',
  tolerantWhitespace: 'tolerant_whitespace',
  allowRewrite: 'allow_rewrite',
}

const FIELDS_BY_MODE: Readonly<Record<Mode, readonly string[]>> = {
  replace: [
    'old_string',
    'new_string',
    'replace_all',
    'expected_matches',
    'occurrence',
    'regex',
    'flags',
    'strict',
    'tolerant_whitespace',
    'allow_rewrite',
  ],
  insert: [
    'anchor',
    'position',
    'after_line',
    'new_string',
    'occurrence',
    'strict',
    'tolerant_whitespace',
  ],
  replace_range: ['start_line', 'end_line', 'new_string'],
  delete_range: ['start_line', 'end_line'],
  write: ['content'],
}

const COMMON_FIELDS = ['path', 'mode', 'expected_hash']
const KNOWN_FIELDS = new Set([...COMMON_FIELDS, ...Object.values(FIELDS_BY_MODE).flat()])
const HASH_RE = /^sha256:[0-9a-f]{64}$/i
/** RegExp flags a regex edit may set: 'g' is always on, 'y' and 'd' mean nothing here. */
const REGEX_FLAGS = 'imsuv'

/**
 * A validation failure inside one edit. Thrown only within this module (the checks nest deeply)
 * and always caught in parseEditsJson, which turns it into PARSE_BAD_EDIT with the edit's number.
 */
class FieldError extends Error {}

// The request, as parseEditsJson reads it:
//   request := { "edits": [edit, ...] } | [edit, ...]
//   edit    := { path, mode?: "replace", old_string, new_string, replace_all?, expected_matches?,
//                occurrence?, regex?, flags?, strict?, tolerant_whitespace?, allow_rewrite? }
//            | { path, mode: "insert", anchor, position: "before"|"after", new_string,
//                occurrence?, strict?, tolerant_whitespace? }
//            | { path, mode: "insert", after_line, new_string }   after_line: 0 (top) .. line count
//            | { path, mode: "replace_range", start_line, end_line, new_string }
//            | { path, mode: "delete_range", start_line, end_line }
//            | { path, mode: "write", content }          every edit: expected_hash?
//   occurrence := non-zero integer: 1 first match, 2 second, -1 last, -2 second to last; not with
//                 replace_all: true or expected_matches
//   regex      := true: old_string is a JavaScript RegExp source (non-empty, must compile with
//                 `flags`, a subset of "imsuv"; 'g' is implied, so without 'm' ^ and $ mean the
//                 start and end of the file); not with tolerant_whitespace
//   strict, tolerant_whitespace, allow_rewrite := true | false (default false)
// camelCase spellings (oldString, startLine, tolerantWhitespace, ...) are accepted; unknown
// fields are refused. Matching, occurrence ranges, the rewrite guard and no-op refusals are
// src/apply/edit-*.ts (DECISIONS.md D-091..D-094).
/**
 * Parses a JSON edit request into one EditsOp per path (order of first appearance).
 *
 * @example
 * parseEditsJson('{"edits":[{"path":"a.ts","old_string":"x","new_string":"y"}]}')
 */
export function parseEditsJson(text: string): Result<EditPlan> {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    const line = jsonErrorLine(text, detail)
    return fail(
      errorData('PARSE_BAD_EDIT', `The edit list is not valid JSON: ${detail}.`, {
        ...(line === undefined ? {} : { patchLine: line }),
      }),
    )
  }
  const list = editList(data)
  if (!list.ok) return list
  if (list.value.length === 0) return fail(errorData('PARSE_BAD_EDIT', 'The edit list is empty.'))

  const byPath = new Map<string, { patchLine: number; edits: StringEdit[] }>()
  for (const [index, raw] of list.value.entries()) {
    let parsed: { path: string; edit: StringEdit }
    try {
      parsed = parseEdit(raw, index)
    } catch (error) {
      if (!(error instanceof FieldError)) throw error
      const path = pathOf(raw)
      const where = path === undefined ? '' : ` (${path})`
      return fail(
        errorData('PARSE_BAD_EDIT', `Edit ${index + 1}${where}: ${error.message}.`, {
          ...(path === undefined ? {} : { path }),
        }),
      )
    }
    const group = byPath.get(parsed.path)
    if (group === undefined) byPath.set(parsed.path, { patchLine: index + 1, edits: [parsed.edit] })
    else group.edits.push(parsed.edit)
  }
  const ops: EditsOp[] = []
  for (const [path, group] of byPath) {
    ops.push({ kind: 'edits', path, patchLine: group.patchLine, edits: group.edits })
  }
  return ok({ format: 'edits', ops })
}

/**
 * The 1-based line of a JSON.parse failure. V8 says "at position N" (Node 20) and may add
 * "(line L column C)" (newer releases); agents fix a request faster when they get the line.
 */
function jsonErrorLine(text: string, detail: string): number | undefined {
  const line = /\(line (\d+) column \d+\)/.exec(detail)?.[1]
  if (line !== undefined) return Number(line)
  const position = /at position (\d+)/.exec(detail)?.[1]
  if (position === undefined) return undefined
  let count = 1
  let total = 1
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== 10 || i === text.length - 1) continue
    total++
    if (i < Number(position)) count++
  }
  // "Unexpected end" points past a final newline: report the last line, not a phantom one.
  return Math.min(count, total)
}

function editList(data: unknown): Result<readonly unknown[]> {
  if (Array.isArray(data)) return ok(data)
  if (!isRecord(data)) {
    const message = 'The edit list must be an object with an "edits" array, or an array.'
    return fail(errorData('PARSE_BAD_EDIT', message))
  }
  for (const key of Object.keys(data)) {
    if (key !== 'edits') {
      return fail(errorData('PARSE_BAD_EDIT', `The request has an unknown field "${key}".`))
    }
  }
  const edits = data['edits']
  if (!Array.isArray(edits)) {
    return fail(errorData('PARSE_BAD_EDIT', 'The request needs an "edits" field holding an array.'))
  }
  return ok(edits)
}

function parseEdit(raw: unknown, index: number): { path: string; edit: StringEdit } {
  if (!isRecord(raw)) throw new FieldError('must be an object')
  const fields = snakeFields(raw)
  const path = fields.get('path')
  if (path === undefined) throw new FieldError('field "path" is required')
  if (typeof path !== 'string' || path.trim() === '') {
    throw new FieldError('field "path" must be a non-empty string')
  }
  const mode = modeOf(fields)
  const allowed = new Set([...COMMON_FIELDS, ...FIELDS_BY_MODE[mode]])
  for (const key of fields.keys()) {
    if (!KNOWN_FIELDS.has(key)) throw new FieldError(`unknown field "${key}"`)
    if (!allowed.has(key)) throw new FieldError(`field "${key}" does not apply to mode "${mode}"`)
  }
  const hash = optional(fields, 'expected_hash', expectHash)
  const extra = hash === undefined ? {} : { expectedHash: hash.toLowerCase() }
  const edit = ((): StringEdit => {
    switch (mode) {
      case 'replace': {
        const replaceAll = optional(fields, 'replace_all', expectBoolean) ?? false
        const expectedMatches = optional(fields, 'expected_matches', expectPositiveInteger)
        if (replaceAll && expectedMatches !== undefined) {
          throw new FieldError('fields "replace_all" and "expected_matches" conflict; give one')
        }
        const occurrence = optional(fields, 'occurrence', expectOccurrence)
        if (occurrence !== undefined && (replaceAll || expectedMatches !== undefined)) {
          const other = replaceAll ? 'replace_all' : 'expected_matches'
          throw new FieldError(`fields "occurrence" and "${other}" conflict; give one`)
        }
        const oldString = required(fields, 'old_string', expectString)
        const newString = required(fields, 'new_string', expectString)
        const regex = optional(fields, 'regex', expectBoolean) ?? false
        const flags = optional(fields, 'flags', expectString)
        const matching = matchingFlags(fields)
        if (regex) checkRegex(oldString, flags ?? '', matching.tolerantWhitespace === true)
        else if (flags !== undefined) throw new FieldError('field "flags" needs "regex": true')
        const allowRewrite = optional(fields, 'allow_rewrite', expectBoolean) ?? false
        return {
          mode,
          index,
          oldString,
          newString,
          replaceAll,
          ...(expectedMatches === undefined ? {} : { expectedMatches }),
          ...(occurrence === undefined ? {} : { occurrence }),
          ...(regex ? { regex } : {}),
          ...(regex && flags !== undefined && flags !== '' ? { flags } : {}),
          ...matching,
          ...(allowRewrite ? { allowRewrite } : {}),
          ...extra,
        }
      }
      case 'insert': {
        if (fields.has('after_line')) {
          for (const other of [
            'anchor',
            'position',
            'occurrence',
            'strict',
            'tolerant_whitespace',
          ]) {
            if (fields.has(other)) {
              throw new FieldError(`field "${other}" does not apply to an insert at "after_line"`)
            }
          }
          const afterLine = required(fields, 'after_line', expectLineIndex)
          const newString = required(fields, 'new_string', expectString)
          return { mode: 'insert_line', index, afterLine, newString, ...extra }
        }
        const anchor = required(fields, 'anchor', expectString)
        if (anchor === '') throw new FieldError('field "anchor" must not be empty')
        const position = required(fields, 'position', expectString)
        if (position !== 'before' && position !== 'after') {
          throw new FieldError('field "position" must be "before" or "after"')
        }
        const newString = required(fields, 'new_string', expectString)
        const occurrence = optional(fields, 'occurrence', expectOccurrence)
        return {
          mode,
          index,
          anchor,
          position,
          newString,
          ...(occurrence === undefined ? {} : { occurrence }),
          ...matchingFlags(fields),
          ...extra,
        }
      }
      case 'replace_range':
      case 'delete_range': {
        const startLine = required(fields, 'start_line', expectPositiveInteger)
        const endLine = required(fields, 'end_line', expectPositiveInteger)
        if (startLine > endLine) {
          throw new FieldError(`field "start_line" (${startLine}) is after "end_line" (${endLine})`)
        }
        if (mode === 'delete_range') return { mode, index, startLine, endLine, ...extra }
        const newString = required(fields, 'new_string', expectString)
        return { mode, index, startLine, endLine, newString, ...extra }
      }
      case 'write':
        return { mode, index, content: required(fields, 'content', expectString), ...extra }
    }
  })()
  return { path, edit }
}

/** strict and tolerant_whitespace, present only when true (the edit stays minimal plain data). */
function matchingFlags(fields: ReadonlyMap<string, unknown>): {
  strict?: boolean
  tolerantWhitespace?: boolean
} {
  const strict = optional(fields, 'strict', expectBoolean) ?? false
  const tolerant = optional(fields, 'tolerant_whitespace', expectBoolean) ?? false
  return { ...(strict ? { strict } : {}), ...(tolerant ? { tolerantWhitespace: tolerant } : {}) }
}

/**
 * A regex edit's pattern must compile here, so a typo fails before any file is read; compiling
 * is linear in the pattern, only running it can take unbounded time (that is bounded by the
 * searcher, src/engine/regex-search.ts).
 */
function checkRegex(source: string, flags: string, tolerant: boolean): void {
  if (tolerant) {
    throw new FieldError(
      'fields "regex" and "tolerant_whitespace" conflict: a regex matches exactly',
    )
  }
  if (source === '') throw new FieldError('field "old_string" must not be empty for a regex edit')
  for (const [i, flag] of [...flags].entries()) {
    if (!REGEX_FLAGS.includes(flag) || flags.indexOf(flag) !== i) {
      throw new FieldError(
        `field "flags" may hold each of "${REGEX_FLAGS}" once (got "${flags}"; 'g' is implied)`,
      )
    }
  }
  try {
    // Without the implied 'g', so V8's message shows the flags the edit gave.
    new RegExp(source, flags)
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    throw new FieldError(`old_string is not a valid regular expression: ${detail}`)
  }
}

/** Renames camelCase keys to snake_case; giving both spellings of one field is a conflict. */
function snakeFields(raw: Readonly<Record<string, unknown>>): Map<string, unknown> {
  const fields = new Map<string, unknown>()
  for (const [key, value] of Object.entries(raw)) {
    const name = CAMEL_TO_SNAKE[key] ?? key
    if (fields.has(name)) throw new FieldError(`field "${name}" is given twice (as "${key}" too)`)
    fields.set(name, value)
  }
  return fields
}

function modeOf(fields: ReadonlyMap<string, unknown>): Mode {
  const mode = fields.get('mode')
  if (mode === undefined) {
    if (fields.has('old_string')) return 'replace'
    throw new FieldError('field "old_string" is required (or set "mode")')
  }
  if (typeof mode !== 'string' || !(MODES as readonly string[]).includes(mode)) {
    throw new FieldError(`field "mode" must be one of ${MODES.map((m) => `"${m}"`).join(', ')}`)
  }
  return mode as Mode
}

type Check<T> = (value: unknown, name: string) => T

function required<T>(fields: ReadonlyMap<string, unknown>, name: string, check: Check<T>): T {
  if (!fields.has(name)) throw new FieldError(`field "${name}" is required`)
  return check(fields.get(name), name)
}

function optional<T>(
  fields: ReadonlyMap<string, unknown>,
  name: string,
  check: Check<T>,
): T | undefined {
  return fields.has(name) ? check(fields.get(name), name) : undefined
}

const expectString: Check<string> = (value, name) => {
  if (typeof value !== 'string') throw new FieldError(`field "${name}" must be a string`)
  return value
}

const expectBoolean: Check<boolean> = (value, name) => {
  if (typeof value !== 'boolean') throw new FieldError(`field "${name}" must be true or false`)
  return value
}

const expectPositiveInteger: Check<number> = (value, name) => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new FieldError(`field "${name}" must be a positive integer`)
  }
  return value
}

const expectLineIndex: Check<number> = (value, name) => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new FieldError(`field "${name}" must be an integer from 0 (before the first line)`)
  }
  return value
}

const expectOccurrence: Check<number> = (value, name) => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value === 0) {
    throw new FieldError(
      `field "${name}" must be a non-zero integer (1 first, 2 second, -1 last, -2 second to last)`,
    )
  }
  return value
}

const expectHash: Check<string> = (value, name) => {
  if (typeof value !== 'string' || !HASH_RE.test(value)) {
    throw new FieldError(`field "${name}" must look like "sha256:<64 hex digits>"`)
  }
  return value
}

function pathOf(raw: unknown): string | undefined {
  if (!isRecord(raw)) return undefined
  const path = raw['path']
  return typeof path === 'string' && path.trim() !== '' ? path : undefined
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
