// The text editor's writing commands, each one call of the server's tools: create is write_file,
// str_replace is an edit_file replace, insert an edit_file insert at a line number. The server
// keeps its rules (read-before-write, a unique match, the file's line endings and quotes, the
// rebase of a str_replace onto a file changed since it was viewed); this module words the result
// as the tool does: a `cat -n` snippet of the change and the new content hash, or the refusal
// with what the model needs to fix its call (the near lines, the other matches, the valid range).
import { errorData, isEditError } from '../errors.js'
import type { ToolOutcome } from '../server/format.js'
import { linesOf, readForAgent } from '../server/read.js'
import { decodeText } from '../server/workspace.js'
import {
  commonError,
  failureOf,
  failureOfData,
  toolWords,
  type ToolFailure,
} from './anthropic-errors.js'
import { fileView, numbered, type Reply } from './anthropic-view.js'
import { callTool, type Session } from './session.js'

/** The fields of a write outcome's structured result that the replies use (format.ts). */
interface WriteResult {
  readonly files: readonly {
    readonly path: string
    readonly op: string
    readonly content_hash: string | null
    readonly previous_hash: string | null
    readonly diff: string
    readonly rebased_from?: string
  }[]
  readonly warnings: readonly { readonly code: string; readonly message: string }[]
}

/** Codes commonError words the same for every command. */
const COMMON = new Set([
  'PATH_OUTSIDE_ROOT',
  'PATH_BEYOND_SYMLINK',
  'PATH_INVALID',
  'PATH_DENIED',
  'FILE_NOT_FOUND',
  'FILE_IS_DIRECTORY',
  'FILE_NOT_TEXT',
  'FILE_NOT_REGULAR',
])

export async function create(
  session: Session,
  path: string,
  fileText: string,
  maxCharacters: number | undefined,
): Promise<Reply> {
  const outcome = await callTool(session, 'write_file', { path, content: fileText })
  if (outcome.ok) {
    const { file, notes } = written(outcome)
    const count = linesOf(fileText).length
    const size = `${count} ${count === 1 ? 'line' : 'lines'}`
    const what =
      file === undefined || file.content_hash === file.previous_hash
        ? `The file ${path} already has exactly this content; nothing was written.`
        : file.op === 'add'
          ? `File created at ${path} (${size}).`
          : `File ${path} overwritten with the new content (${size}).`
    return done([what, ...notes])
  }
  const failure = failureOf(outcome)
  switch (failure.code) {
    case 'FILE_STALE_READ':
      return refuse(
        `The file ${path} already exists and has not been viewed as it is now, so create would overwrite what you have not seen. View it first (then create may replace it), or change part of it with str_replace.`,
      )
    case 'FILE_HASH_MISMATCH':
      return stale(
        session,
        'The file was not written',
        path,
        'create would overwrite that change',
        maxCharacters,
      )
    default:
      return refuse(worded(session, 'create', 'The file was not written', path, failure))
  }
}

export async function strReplace(
  session: Session,
  path: string,
  oldStr: string,
  newStr: string,
  maxCharacters: number | undefined,
): Promise<Reply> {
  const outcome = await callTool(session, 'edit_file', {
    path,
    old_string: oldStr,
    new_string: newStr,
  })
  if (outcome.ok) {
    const { file, notes } = written(outcome)
    const lines = [`The file ${path} has been edited.`]
    if (file !== undefined) {
      lines.push(...snippetLines(path, file.diff))
      if (file.rebased_from !== undefined) {
        lines.push(
          `Note: ${path} had changed since you viewed it (someone else edited it); old_str still matched exactly once, in lines the other change did not touch, so the edit was made on the current content. View the file to see the other change.`,
        )
      }
    }
    return done([...lines, ...notes])
  }
  const failure = failureOf(outcome)
  const lead = 'No replacement was made'
  switch (failure.code) {
    case 'MATCH_NOT_FOUND':
      return refuse(notFound(path, failure))
    case 'MATCH_AMBIGUOUS':
      return refuse(ambiguous(path, failure))
    case 'FILE_STALE_READ':
      return refuse(
        `${lead}: the file ${path} has not been viewed yet. View it first, then run str_replace again with old_str copied from it.`,
      )
    case 'FILE_HASH_MISMATCH':
      return stale(session, lead, path, rebaseRefusal(failure.message), maxCharacters)
    default:
      return refuse(worded(session, 'str_replace', lead, path, failure))
  }
}

export async function insert(
  session: Session,
  path: string,
  insertLine: number,
  newStr: string,
  maxCharacters: number | undefined,
): Promise<Reply> {
  if (insertLine < 0) {
    const count = await lineCount(session, path)
    if (typeof count !== 'number') return refuse(worded(session, 'insert', '', path, count))
    return refuse(outOfRange(path, insertLine, count))
  }
  const outcome = await callTool(session, 'edit_file', {
    path,
    mode: 'insert',
    after_line: insertLine,
    new_string: newStr,
  })
  if (outcome.ok) {
    const { file, notes } = written(outcome)
    const count = linesOf(newStr).length
    const size = `${count} ${count === 1 ? 'line' : 'lines'}`
    const where = insertLine === 0 ? `at the top of ${path}` : `after line ${insertLine} of ${path}`
    const lines = [`Inserted ${size} ${where}.`]
    if (file !== undefined) lines.push(...snippetLines(path, file.diff))
    return done([...lines, ...notes])
  }
  const failure = failureOf(outcome)
  const lead = 'Nothing was inserted'
  switch (failure.code) {
    case 'MATCH_OUT_OF_RANGE': {
      const count = /which has (\d+) lines?/.exec(failure.message)?.[1]
      if (count !== undefined) return refuse(outOfRange(path, insertLine, Number(count)))
      return refuse(worded(session, 'insert', lead, path, failure))
    }
    case 'FILE_STALE_READ':
      return refuse(
        `${lead}: the file ${path} has not been viewed yet. View it first, then insert again.`,
      )
    case 'FILE_HASH_MISMATCH':
      return stale(
        session,
        lead,
        path,
        'an insert at a line number is not carried over onto changed lines',
        maxCharacters,
      )
    default:
      return refuse(worded(session, 'insert', lead, path, failure))
  }
}

function outOfRange(path: string, insertLine: number, count: number): string {
  return `Invalid insert_line ${insertLine}: it should be within the range of lines of ${path}, [0, ${count}] (0 inserts at the top, ${count} after the last line).`
}

/** The file's line count as insert sees it, or why it cannot be read. */
async function lineCount(session: Session, path: string): Promise<number | ToolFailure> {
  try {
    const now = await session.workspace.now(await session.workspace.resolve(path))
    if (now === null) {
      return failureOfData(errorData('FILE_NOT_FOUND', `${path} does not exist.`, { path }))
    }
    const text = decodeText(now.bytes)
    if (text === null) {
      return failureOfData(errorData('FILE_NOT_TEXT', `${path} is not UTF-8 text.`, { path }))
    }
    return linesOf(text).length
  } catch (error) {
    if (isEditError(error)) return failureOfData(error.toData())
    throw error
  }
}

/** MATCH_NOT_FOUND: old_str is nowhere in the file; the lines most like it, with their numbers. */
function notFound(path: string, failure: ToolFailure): string {
  const lines = [
    `No replacement was made: old_str did not appear verbatim in ${path}, nor with only whitespace or punctuation differences.`,
  ]
  const candidates = failure.candidates ?? []
  if (candidates.length > 0) {
    lines.push('The lines most like it:')
    for (const c of candidates) {
      lines.push(`  line ${c.line} (${Math.round(c.score * 100)}% alike): ${c.preview}`)
    }
  }
  lines.push('View the file and copy old_str from it exactly, whitespace and indentation included.')
  return lines.join('\n')
}

/** MATCH_AMBIGUOUS: old_str is in the file more than once; where, and each place's line. */
function ambiguous(path: string, failure: ToolFailure): string {
  const counted = /matches (\d+) places in .* \((lines? [^)]*)\)\.?$/.exec(failure.message)
  const candidates = failure.candidates ?? []
  const times = counted?.[1] ?? String(candidates.length)
  const where = counted?.[2] ?? `lines ${candidates.map((c) => c.line).join(', ')}`
  const lines = [`No replacement was made: old_str appears ${times} times in ${path}, at ${where}:`]
  for (const c of candidates) lines.push(`  line ${c.line}: ${c.preview}`)
  lines.push('Include more of the lines around it in old_str, so that it matches exactly once.')
  return lines.join('\n')
}

/** Why a str_replace could not be carried over onto the file as it is now (json-edits.ts). */
function rebaseRefusal(message: string): string {
  if (message.includes('touched the lines')) {
    return 'the other change touched the lines old_str covers (or the lines next to them)'
  }
  if (message.includes('MATCH_NOT_FOUND')) return 'old_str does not appear in its current content'
  if (message.includes('MATCH_AMBIGUOUS')) {
    return 'old_str appears more than once in its current content'
  }
  if (message.includes('no longer remembered')) {
    return 'the version you viewed is no longer remembered, so the edit could not be carried over'
  }
  const at = message.indexOf('): ')
  return toolWords(at === -1 ? message : message.slice(at + 3)).replace(/\.$/, '')
}

/**
 * The refusal of an edit made against a version of the file someone else has changed since:
 * the file as it is now, shown and counted as viewed, so the next call can be made against it.
 */
async function stale(
  session: Session,
  lead: string,
  path: string,
  reason: string,
  maxCharacters: number | undefined,
): Promise<Reply> {
  let file
  try {
    // Recorded as a view, so the next call needs none (DECISIONS.md D-163).
    file = await readForAgent(session.workspace, session.agent, path)
  } catch (error) {
    if (isEditError(error) && error.code === 'FILE_NOT_FOUND') {
      return refuse(`${lead}: ${path} was deleted since you viewed it.`)
    }
    throw error
  }
  const view = fileView(path, file.lines, { first: 1, last: file.lines.length }, maxCharacters)
  return refuse(
    `${lead}: ${path} changed since you last viewed it (someone else edited it), and ${reason}. Its current content follows, and counts as viewed: make the edit against it.\n${view}`,
  )
}

function worded(
  session: Session,
  command: 'create' | 'str_replace' | 'insert',
  lead: string,
  path: string,
  failure: ToolFailure,
): string {
  const text = commonError(command, path, failure, session.workspace.root)
  return COMMON.has(failure.code) || lead === '' ? text : `${lead}: ${text}`
}

/** The written file, and the notes every write reply ends with: warnings, hash, diagnostics. */
function written(outcome: ToolOutcome): {
  file: WriteResult['files'][number] | undefined
  notes: string[]
} {
  const result = outcome.structured as unknown as WriteResult
  const file = result.files[0]
  const notes: string[] = []
  for (const w of result.warnings) {
    const message = toolWords(w.message).replace(/^edit \d+ /, 'old_str ')
    notes.push(`Note: ${message}${message.endsWith('.') ? '' : '.'}`)
  }
  if (file?.content_hash != null) notes.push(`content_hash: ${file.content_hash}`)
  notes.push(...diagnosticLines(outcome.text))
  return { file, notes }
}

/**
 * The language-server lines of a write outcome's text (format.ts writes them before the diff,
 * each starting "introduced ", "resolved " or "diagnostics: "), as the server words them.
 */
export function diagnosticLines(text: string): string[] {
  const head = text.split('\n\n', 1)[0] as string
  return head
    .split('\n')
    .filter(
      (l) =>
        l.startsWith('introduced ') || l.startsWith('resolved ') || l.startsWith('diagnostics: '),
    )
}

/** "Here's ... a snippet" and the new side of each hunk of `diff`, numbered as `cat -n` does. */
function snippetLines(path: string, diff: string): string[] {
  const snippet = snippetOf(diff)
  if (snippet === '') return []
  return [`Here's the result of running \`cat -n\` on a snippet of ${path}:`, snippet]
}

/**
 * The new side of a one-file unified diff's hunks (context and added lines) with their line
 * numbers in the new file; hunks apart are separated by a "..." line.
 */
export function snippetOf(diff: string): string {
  const groups: string[][] = []
  let group: string[] | null = null
  let line = 0
  for (const row of diff.split('\n')) {
    const header = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(row)
    if (header !== null) {
      group = []
      groups.push(group)
      line = Number(header[1])
      continue
    }
    if (group === null || !(row.startsWith('+') || row.startsWith(' '))) continue
    const text = row.endsWith('\r') ? row.slice(1, -1) : row.slice(1)
    group.push(...numbered([text], line))
    line++
  }
  return groups
    .filter((g) => g.length > 0)
    .map((g) => g.join('\n'))
    .join('\n   ...\n')
}

function done(lines: readonly string[]): Reply {
  return { content: lines.join('\n'), isError: false }
}

function refuse(content: string): Reply {
  return { content, isError: true }
}
