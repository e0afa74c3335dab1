// One line per changed file, the summary both the CLI and the server's tools print:
// `A path`, `M path (+3 -1)`, `R old -> new (+1 -1)`, with binary, overwrite and mode notes.
// Pure presentation: strings in, strings out.
import type { FileMode, ResultOp } from '../types.js'

/** What a file line needs; FileResult and PatchFileSummary both fit. */
export interface FileLineFacts {
  readonly path: string
  readonly op: ResultOp
  readonly from?: string
  readonly additions: number | null
  readonly deletions: number | null
  readonly modeBefore?: FileMode
  readonly modeAfter?: FileMode
  readonly overwrote?: boolean
  readonly binary?: true
}

const OP_LETTER: Record<ResultOp, string> = {
  add: 'A',
  update: 'M',
  delete: 'D',
  move: 'R',
  copy: 'C',
}

function count(n: number | null): string {
  return n === null ? '?' : String(n)
}

/** One line per file: `A path`, `M path (+3 -1)`, `D path`, `R old -> new (+1 -1)`, ... */
export function renderFileLine(file: FileLineFacts): string {
  const letter = OP_LETTER[file.op]
  const target = file.from === undefined ? file.path : `${file.from} -> ${file.path}`
  let line = `${letter} ${target}`
  if (file.op !== 'add' && file.op !== 'delete') {
    const counts = `(+${count(file.additions)} -${count(file.deletions)})`
    line += file.binary === true ? ' (binary)' : ` ${counts}`
  } else if (file.binary === true) {
    line += ' (binary)'
  }
  if (file.overwrote === true) line += ' [overwrote]'
  if (file.modeBefore !== undefined && file.modeAfter !== undefined) {
    if (file.modeBefore !== file.modeAfter) line += ` mode ${file.modeBefore} -> ${file.modeAfter}`
  } else if (file.op === 'add' && file.modeAfter !== undefined && file.modeAfter !== '100644') {
    // A new file's mode is only news when it is not the ordinary one.
    line += ` mode ${file.modeAfter}`
  }
  return line
}
