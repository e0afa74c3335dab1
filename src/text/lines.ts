// Line splitting that keeps each line's own terminator, so a file can be rebuilt byte for byte.
// LF and CRLF end a line; a lone CR is content, part of the line's text, as git sees it (D-032: a
// generated file with CRs mid-line must match its own `git diff`; Codex patches on such a file use
// Codex's model, src/text/codex-lines.ts). So a classic-Mac file is one long line, and a CR just
// before the end of the file is its last line's text; that line's `eol` is '' without a final
// newline. Patch text is split differently (splitPatchLines): only '\n' ends a patch line, and a
// trailing '\r' is dropped so CRLF patches read like LF ones. Unified diffs can state a line's
// CRLF ending with that '\r', so they split with splitPatchLinesWithCr, which reports it.

/** '\r' only in Codex's line model (src/text/codex-lines.ts); splitLines never gives it. */
export type Eol = '\n' | '\r\n' | '\r' | ''

export interface Line {
  readonly text: string
  readonly eol: Eol
}

/** Splits text into lines with their terminators. '' gives []. */
export function splitLines(text: string): Line[] {
  const lines: Line[] = []
  let start = 0
  // PERF: indexOf over LF measured faster than a per-character scan (about 1.5x on a 200k-line
  // file), which was itself about 3x faster than a regex split (bench/match.bench.ts).
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    const crlf = i > start && text.charCodeAt(i - 1) === 13
    lines.push({ text: text.slice(start, crlf ? i - 1 : i), eol: crlf ? '\r\n' : '\n' })
    start = i + 1
  }
  if (start < text.length) lines.push({ text: text.slice(start), eol: '' })
  return lines
}

/**
 * splitLines, also giving each line's start offset in `text` (plus text.length at the end), for
 * callers that slice the text by lines later (src/match/text-search.ts).
 */
export function splitLinesAt(text: string): { lines: Line[]; starts: Int32Array } {
  // PERF: the offsets summed from the lines afterwards; pushing them inside the split loop
  // made it about 15% slower (a 2,000-line file's small edit: 68 -> 59 us, interleaved runs).
  const lines = splitLines(text)
  const starts = new Int32Array(lines.length + 1)
  let offset = 0
  for (let i = 0; i < lines.length; i++) {
    starts[i] = offset
    const line = lines[i] as Line
    offset += line.text.length + line.eol.length
  }
  starts[lines.length] = offset
  return { lines, starts }
}

export function joinLines(lines: readonly Line[]): string {
  let out = ''
  for (const line of lines) out += line.text + line.eol
  return out
}

/**
 * The terminator most lines use; '\n' when there are none (a lone CR is no terminator, so a
 * CR-only file has none and new lines in it end in '\n', as git would write them). Ties prefer
 * '\n'.
 */
export function dominantEol(lines: readonly Line[]): '\n' | '\r\n' {
  let lf = 0
  let crlf = 0
  for (const line of lines) {
    if (line.eol === '\n') lf++
    else if (line.eol === '\r\n') crlf++
  }
  return crlf > lf ? '\r\n' : '\n'
}

/** Whether the text ends with a line terminator (true for ''). */
export function endsWithNewline(lines: readonly Line[]): boolean {
  const last = lines[lines.length - 1]
  return last === undefined || last.eol !== ''
}

/**
 * Splits patch text on '\n' and drops one trailing '\r' per line. A final '\n' does not produce
 * an extra empty line. Returned strings index from 0; patchLine = index + 1.
 */
export function splitPatchLines(text: string): string[] {
  if (text === '') return []
  const parts = text.split('\n')
  if (parts[parts.length - 1] === '') parts.pop()
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as string
    if (p.endsWith('\r')) parts[i] = p.slice(0, -1)
  }
  return parts
}

/** Patch lines as splitPatchLines gives them, and which ended in a '\r' that is content. */
export interface PatchLines {
  readonly lines: string[]
  /** Per line (same index): true when its dropped trailing '\r' states a CRLF ending. */
  readonly crEnded: readonly boolean[]
}

/**
 * Splits patch text like splitPatchLines, but tells a '\r' that is content from one added in
 * transit. When every '\n'-terminated line ends in '\r' (headers included), the whole text was
 * CRLF-converted (a mailer, an editor): one '\r' per line is dropped and a '\r' left after it is
 * content. Otherwise a trailing '\r' is content, as in `git diff` output for a CRLF file, whose
 * headers are LF and whose body lines end in "\r\n". Either way `lines` hold no trailing '\r'.
 */
/** crEnded for a text without a CR: every index reads as false. */
const NO_CR: readonly boolean[] = Object.freeze([])

export function splitPatchLinesWithCr(text: string): PatchLines {
  if (text === '') return { lines: [], crEnded: [] }
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  // PERF: a patch without a CR (every run a worker parses, src/parse/segments.ts) needs no
  // per-line pass: no line ends in one.
  if (text.indexOf('\r') === -1) return { lines, crEnded: NO_CR }
  const terminated = text.endsWith('\n') ? lines.length : lines.length - 1
  let converted = terminated > 0
  for (let i = 0; i < terminated && converted; i++) converted = (lines[i] as string).endsWith('\r')
  const crEnded: boolean[] = []
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i] as string
    if (converted && line.endsWith('\r')) line = line.slice(0, -1)
    const cr = line.endsWith('\r')
    lines[i] = cr ? line.slice(0, -1) : line
    crEnded.push(cr)
  }
  return { lines, crEnded }
}
