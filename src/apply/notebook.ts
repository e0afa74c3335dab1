// The notebook check (DECISIONS.md D-095): a Jupyter notebook (a path ending in .ipynb) is JSON,
// and an edit made to it as text, in any patch format, must leave it JSON. Run by the
// verification (src/engine/verify.ts) on the new bytes of every op, after they are computed. A
// notebook that was not valid JSON before the edit is not checked: refusing to touch what is
// already broken would block the edit that repairs it. Pure.
import { errorData, type EditErrorData } from '../errors.js'
import { decodeText } from '../text/decode.js'

/** Whether `path` names a notebook (the extension compared without case, as Jupyter does). */
export function isNotebookPath(path: string): boolean {
  return path.toLowerCase().endsWith('.ipynb')
}

/**
 * EDIT_NOTEBOOK_INVALID when `after` is not JSON while `before` was (or the file is new); null
 * otherwise. The message names the JSON error's line and column in the new text.
 */
export function checkNotebook(
  path: string,
  patchLine: number,
  before: Uint8Array | null,
  after: Uint8Array,
): EditErrorData | null {
  const problem = jsonProblem(after)
  if (problem === null) return null
  if (before !== null && jsonProblem(before) !== null) return null
  return errorData(
    'EDIT_NOTEBOOK_INVALID',
    `${path}: the edited notebook is not valid JSON: ${problem.message}` +
      (problem.line === undefined ? '.' : ` (line ${problem.line}, column ${problem.column}).`),
    { path, patchLine },
  )
}

interface JsonProblem {
  readonly message: string
  readonly line?: number
  readonly column?: number
}

function jsonProblem(bytes: Uint8Array): JsonProblem | null {
  // decodeText drops a BOM, which JSON.parse would refuse but Jupyter reads.
  const { text } = decodeText(bytes)
  try {
    JSON.parse(text)
    return null
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '')
    // V8 says "... in JSON at position N" (Node 20); newer releases add "(line L column C)".
    const position = /at position (\d+)/.exec(message)?.[1]
    // "Unexpected end of JSON input" has no position: the problem is at the end.
    const atEnd = /end of JSON input/.test(message) ? text.length : undefined
    const offset = position === undefined ? atEnd : Number(position)
    if (offset === undefined) return { message }
    let line = 1
    let lineStart = 0
    for (let i = 0; i < offset && i < text.length; i++) {
      if (text.charCodeAt(i) === 10) {
        line++
        lineStart = i + 1
      }
    }
    return { message, line, column: offset - lineStart + 1 }
  }
}
