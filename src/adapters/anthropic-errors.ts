// The engine's refusals in the text editor tool's words: its field names (old_str, new_str,
// insert_line), its commands (view, create), and the path as the model wrote it. Each command
// module words its own special cases (matches, line ranges, stale files); commonError words the
// rest: paths outside the workspace, missing files, directories, binary files.
import type { EditErrorData } from '../errors.js'
import { errorOutcome, type ToolOutcome } from '../server/format.js'
import type { TextEditorCommandName } from './anthropic-input.js'

/** A failed tool outcome's error, as format.ts's errorOutcome shapes it. */
export interface ToolFailure {
  readonly code: string
  readonly message: string
  readonly hint: string
  readonly path?: string
  readonly current_hash?: string
  readonly candidates?: readonly {
    readonly line: number
    readonly score: number
    readonly preview: string
  }[]
}

export function failureOf(outcome: ToolOutcome): ToolFailure {
  return outcome.structured['error'] as ToolFailure
}

export function failureOfData(data: EditErrorData): ToolFailure {
  return failureOf(errorOutcome(data))
}

/**
 * An engine message in the tool's words: without the "Edit 1: " of an edit list, with the tool's
 * field names for the JSON edit's, and view for read_file.
 */
export function toolWords(text: string): string {
  return text
    .replace(/^Edit \d+(?: \([^)]*\))?: /, '')
    .replace(/\bold_string\b/g, 'old_str')
    .replace(/\bnew_string\b/g, 'new_str')
    .replace(/\bafter_line\b/g, 'insert_line')
    .replace(/\bread_file\b/g, 'view')
}

/** The words for a refusal no command words itself. */
export function commonError(
  command: TextEditorCommandName,
  path: string,
  failure: ToolFailure,
  root: string,
): string {
  switch (failure.code) {
    case 'PATH_OUTSIDE_ROOT':
    case 'PATH_BEYOND_SYMLINK':
      return `The path ${path} is outside the workspace, ${root}: give a path inside it, absolute or relative to it.`
    case 'PATH_INVALID':
      if (failure.message.includes('workspace root itself')) {
        return `The path ${path} is the workspace root, a directory; ${command} needs a file in it.`
      }
      return `The path ${path} is not valid: ${toolWords(failure.message)}`
    case 'PATH_DENIED':
      return `The path ${path} is not open to this tool: ${toolWords(failure.message)}`
    case 'FILE_NOT_FOUND':
      return command === 'str_replace' || command === 'insert'
        ? `The path ${path} does not exist. To make a new file, use create.`
        : `The path ${path} does not exist.`
    case 'FILE_IS_DIRECTORY':
      return `The path ${path} is a directory, and ${command} needs a file; view the directory to list its files.`
    case 'FILE_NOT_TEXT':
      return `${path} is not UTF-8 text (it has NUL bytes or invalid UTF-8), so this tool can neither show nor edit it.`
    case 'FILE_NOT_REGULAR':
      return `${path} is not a regular file (a FIFO, socket or device), so this tool cannot open it.`
    default:
      return `${toolWords(failure.message)} ${toolWords(failure.hint)}`
  }
}
