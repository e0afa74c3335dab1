// Splits a large `git diff` into runs of whole file sections, so verification workers can each
// parse their own run instead of being sent a parsed plan (cloning hundreds of thousands of hunk
// lines costs more than parsing them). Only a plain case is split: sections that start with
// "diff --git " and a patch without any CR, so the unified parser's whole-patch rules (the CRLF
// conversion in splitPatchLinesWithCr) cannot differ between a run and the whole. A run numbers
// its lines from 1; shiftPatchLines turns them into the whole patch's. A run that fails to parse,
// or gives another number of ops than it has sections, sends the caller (the engine) back to the
// whole patch, so a split never changes a result and every parse error is the whole patch's own.
import type { FileOp, LineHunk } from '../types.js'

export interface PatchSegment {
  /** The run's text: whole sections (the first run also holds what precedes its first one). */
  readonly text: string
  /** 1-based patch line of the run's first section. */
  readonly firstLine: number
  /** Sections ("diff --git" lines) in the run: the ops it must parse to. */
  readonly sections: number
  /** The run is ASCII with no CR or NUL (PatchText.plain); absent when nobody checked. */
  readonly plain?: boolean
}

export const SECTION = 'diff --git '

/**
 * Runs of `text`'s sections, as many as `segmentsFor(sections)` asks (at most one per section),
 * or null when the patch is not split (fewer than two sections or runs, or a CR anywhere). The
 * runs cover the whole text, in order.
 */
export function splitUnifiedSections(
  text: string,
  segmentsFor: (sections: number) => number,
): PatchSegment[] | null {
  if (text.includes('\r')) return null
  const starts: number[] = text.startsWith(SECTION) ? [0] : []
  for (let at = text.indexOf('\n' + SECTION); at !== -1; at = text.indexOf('\n' + SECTION, at + 1))
    starts.push(at + 1)
  if (starts.length < 2) return null
  const count = Math.min(segmentsFor(starts.length), starts.length)
  if (count < 2) return null
  const per = Math.ceil(starts.length / count)
  const segments: PatchSegment[] = []
  let line = 1
  let lineAt = 0
  for (let k = 0; k < starts.length; k += per) {
    // The first run also keeps whatever precedes the first section (a commit message, say).
    const from = k === 0 ? 0 : (starts[k] as number)
    const to = k + per < starts.length ? (starts[k + per] as number) : text.length
    line += countNewlines(text, lineAt, from)
    lineAt = from
    segments.push({
      text: text.slice(from, to),
      firstLine: line,
      sections: Math.min(per, starts.length - k),
    })
  }
  return segments
}

/** Line ends in text[from, to). */
export function countNewlines(text: string, from: number, to: number): number {
  let n = 0
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) n++
  return n
}

/** `ops` parsed from a run that starts at patch line `firstLine`, numbered as in the whole patch. */
export function shiftPatchLines(ops: readonly FileOp[], firstLine: number): FileOp[] {
  const by = firstLine - 1
  if (by === 0) return ops.slice()
  const hunks = (list: readonly LineHunk[]) =>
    list.map((h) => ({ ...h, patchLine: h.patchLine + by }))
  return ops.map((op): FileOp => {
    switch (op.kind) {
      case 'add':
      case 'edits':
        return { ...op, patchLine: op.patchLine + by }
      case 'delete':
      case 'update':
      case 'copy':
        return { ...op, patchLine: op.patchLine + by, hunks: hunks(op.hunks) }
    }
  })
}
