// Codex's own line model, for Codex patches on files that hold a lone CR (D-144): CR, LF and CRLF
// each end a line; an unchanged line keeps its ending; a new line takes the first ending the file
// uses (LF when it has none). Everywhere else a lone CR is content (src/text/lines.ts, D-032), as
// git sees it. src/apply/codex-line-model.ts reads a patch's hunks the same way.
import type { Eol, Line } from './lines.js'

/** Whether `text` holds a CR that no LF follows. */
export function hasLoneCr(text: string): boolean {
  for (let i = text.indexOf('\r'); i !== -1; i = text.indexOf('\r', i + 1)) {
    if (text.charCodeAt(i + 1) !== 10) return true
  }
  return false
}

/** Splits text into lines at CR, LF and CRLF, each line keeping its own ending. '' gives []. */
export function splitCodexLines(text: string): Line[] {
  const lines: Line[] = []
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10) {
      lines.push({ text: text.slice(start, i), eol: '\n' })
      start = i + 1
    } else if (c === 13) {
      const crlf = text.charCodeAt(i + 1) === 10
      lines.push({ text: text.slice(start, i), eol: crlf ? '\r\n' : '\r' })
      if (crlf) i++
      start = i + 1
    }
  }
  if (start < text.length) lines.push({ text: text.slice(start), eol: '' })
  return lines
}

/** The first ending among `lines`; '\n' when none has one. */
export function firstEol(lines: readonly Line[]): Exclude<Eol, ''> {
  for (const line of lines) if (line.eol !== '') return line.eol
  return '\n'
}
