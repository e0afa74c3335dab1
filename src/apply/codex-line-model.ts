// A Codex patch on a file that holds a lone CR is applied in Codex's own line model
// (src/text/codex-lines.ts, D-144). Its context and removed lines are read in that model too: a
// lone CR inside one ends a line there (a CR last in it ends that line; no empty line follows), so
// the hunk still states the file's bytes. Added lines keep their CRs as the patch states them and
// take the new-line ending after their last one.
import { firstEol, hasLoneCr, splitCodexLines } from '../text/codex-lines.js'
import type { Eol, Line } from '../text/lines.js'
import type { HunkLine, LineHunk } from '../types.js'

export interface CodexLineModel {
  readonly lines: Line[]
  readonly hunks: readonly LineHunk[]
  /** The ending new lines take: the first one the file uses. */
  readonly newLineEol: Exclude<Eol, ''>
}

/** The file and hunks in Codex's line model, or null when the file holds no lone CR. */
export function codexLineModel(text: string, hunks: readonly LineHunk[]): CodexLineModel | null {
  if (!hasLoneCr(text)) return null
  const lines = splitCodexLines(text)
  return { lines, hunks: hunks.map(splitHunkAtCr), newLineEol: firstEol(lines) }
}

/**
 * The hunk with each context or removed line holding a CR split into one line per CR-ended piece
 * (and the rest after the last CR), each with the line's op; the same object when none holds one.
 */
export function splitHunkAtCr(hunk: LineHunk): LineHunk {
  if (!hunk.lines.some((line) => line.op !== '+' && line.text.includes('\r'))) return hunk
  const lines: HunkLine[] = []
  for (const line of hunk.lines) {
    if (line.op === '+' || !line.text.includes('\r')) lines.push(line)
    else {
      const pieces = line.text.split('\r')
      if (pieces[pieces.length - 1] === '') pieces.pop()
      for (const piece of pieces) lines.push({ op: line.op, text: piece })
    }
  }
  // Its lines no longer follow the patch's one for one, so none is named by patch line.
  const { bodyOffset: _unused, ...rest } = hunk
  return { ...rest, lines }
}
