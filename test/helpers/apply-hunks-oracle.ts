// applyHunks as it was before the line table (src/apply/apply-hunks.ts at 8a87928), the oracle
// for the SEARCH/REPLACE property test: in 'sequential' mode every hunk re-indexes and re-splices
// the whole line array. Do not optimise this file.
// Applies a file's line hunks: locates each (src/match/locate-*.ts, per LocateMode) and splices the
// new lines in, keeping the file's own bytes wherever the patch does not change them: context and
// removed lines are the FILE's lines (text and terminator), added lines are restyled to the
// file's indentation/quotes (src/match/restyle.ts, learned by the locator from the matched lines
// and the added ones) and take its dominant line ending, unless the patch states endings
// (a unified diff of a CRLF file, HunkLine.eol): then they take exactly the stated ones, as
// `git apply` writes them. The final-newline rule depends on the patch format (finishLastLine).
// Decoding, BOMs and patch-text conversion are the caller's (src/apply/compute.ts); this module
// sees lines only.
import { fail, ok, type Result } from '../../src/result.js'
import { dominantEol, endsWithNewline, type Eol, type Line } from '../../src/text/lines.js'
import type { HunkLine, LineHunk, LocateMode, PatchFormat, Warning } from '../../src/types.js'
import { indexLines } from '../../src/match/ladder.js'
import { locateCursor } from '../../src/match/locate-cursor.js'
import { locateNearLine } from '../../src/match/locate-near.js'
import { locateSequential } from '../../src/match/locate-sequential.js'
import { pairingError } from '../../src/apply/apply-hunks.js'
import type { Claimed, LocateContext, Location } from '../../src/match/location.js'
import { restyleLine } from '../../src/match/restyle.js'
import type { LineRegion } from '../../src/apply/render-diff.js'

interface ApplyHunksInput {
  /** The file's lines from splitLines(); the last eol is '' when there is no final newline. */
  readonly lines: readonly Line[]
  /** Hunk texts already in the file's text mode. */
  readonly hunks: readonly LineHunk[]
  readonly mode: LocateMode
  readonly format: PatchFormat
  readonly path: string
  /** Bytes-mode file: only byte-exact matches are allowed (FILE_NOT_TEXT otherwise). */
  readonly exactOnly: boolean
  /** true: the file keeps its final-newline state whatever the format's rule. */
  readonly keepFinalNewline?: boolean
}

interface ApplyHunksOutput {
  readonly lines: Line[]
  readonly warnings: Warning[]
  /**
   * The old/new line ranges each hunk replaced, in order ('cursor' and 'near-line' modes), so the
   * diff can be rendered from them alone (src/apply/render-diff.ts). Absent in 'sequential' mode,
   * where later hunks see earlier ones' output.
   */
  readonly regions?: readonly LineRegion[]
}

interface Placed {
  readonly location: Location
  /** Position in the patch, to keep insertions at one index in patch order. */
  readonly order: number
  readonly hunk: LineHunk
}

/**
 * Locates and applies every hunk; all-or-nothing (the first failure is returned, input untouched).
 *
 * @example
 * const lines = splitLines('a\nb\n')
 * applyHunks({ lines, hunks, mode: 'cursor', format: 'codex', path: 'f', exactOnly: false })
 */
export function applyHunksOracle(input: ApplyHunksInput): Result<ApplyHunksOutput> {
  const eol = dominantEol(input.lines)
  const added = addedEol(input.hunks, eol)
  const hadFinalNewline = endsWithNewline(input.lines)
  const warnings: Warning[] = []

  if (input.mode === 'sequential') {
    let current: Line[] = input.lines.slice()
    let endHunk: LineHunk | null = null
    for (const hunk of input.hunks) {
      const ctx = contextFor(current, input)
      const found = locateSequential(ctx, hunk)
      if (!found.ok) return found
      const loc = found.value
      if (loc.refusal !== undefined) return fail(loc.refusal)
      warnings.push(...loc.warnings)
      if (loc.start + loc.oldLength === current.length) endHunk = hunk
      const next = splice(current, [{ location: loc, order: 0, hunk }], eol, added)
      // A block whose lines pair two ways must write the same file either way after a lenient
      // match (context lines are then the file's, not the block's).
      if (hunk.altLines !== undefined && loc.pass !== null && loc.pass !== 'exact') {
        const other = locateSequential(ctx, { ...hunk, lines: hunk.altLines })
        const otherLoc = other.ok && other.value.refusal === undefined ? other.value : null
        const alt =
          otherLoc === null
            ? null
            : splice(current, [{ location: otherLoc, order: 0, hunk }], eol, added)
        if (alt === null || JSON.stringify(alt) !== JSON.stringify(next)) {
          return fail(pairingError(input.path, hunk, loc.start, loc.pass))
        }
      }
      current = next
    }
    const finished = finishLastLine(current, endHunk, ruleOf(input), hadFinalNewline, eol)
    return ok({ lines: finished, warnings })
  }

  const ctx = contextFor(input.lines, input)
  const total = input.lines.length
  const placed: Placed[] = []
  const claimed: Claimed[] = []
  let cursor = 0
  let offset = 0
  for (let order = 0; order < input.hunks.length; order++) {
    const hunk = input.hunks[order] as LineHunk
    let loc: Location
    if (input.mode === 'cursor') {
      const found = locateCursor(ctx, hunk, cursor, claimed)
      if (!found.ok) return found
      loc = found.value
    } else {
      const found = locateNearLine(ctx, hunk, cursor, offset, claimed)
      if (!found.ok) return found
      loc = found.value
      offset = loc.start - found.value.statedStart
    }
    if (loc.refusal !== undefined) return fail(loc.refusal)
    const end = loc.start + loc.oldLength
    // Locators search after `cursor`, so this only trips on a locator bug, never on input.
    if (loc.start < cursor) {
      throw new Error(
        `applyHunks: cannot place a hunk at ${loc.start} after the cursor moved to ${cursor}`,
      )
    }
    cursor = end
    if (loc.oldLength > 0) claimed.push({ start: loc.start, end })
    warnings.push(...loc.warnings)
    placed.push({ location: loc, order, hunk })
  }

  let endHunk: LineHunk | null = null
  for (const p of placed) {
    if (p.location.start + p.location.oldLength === total) endHunk = p.hunk
  }
  const regions: LineRegion[] = []
  const spliced = splice(input.lines, placed, eol, added, regions)
  const finished = finishLastLine(spliced, endHunk, ruleOf(input), hadFinalNewline, eol)
  return ok({ lines: finished, warnings, regions })
}

/**
 * The ending each added line takes. When any line of the op's hunks states its ending, the patch
 * is explicit about every line (a line without a stated CRLF ends in LF), so a '-a'/'+a' pair
 * that differs only in its ending changes the line; otherwise new lines take `dominant`.
 */
function addedEol(
  hunks: readonly LineHunk[],
  dominant: Exclude<Eol, ''>,
): (line: HunkLine) => Exclude<Eol, ''> {
  const explicit = hunks.some((hunk) => hunk.lines.some((line) => line.eol !== undefined))
  if (!explicit) return () => dominant
  return (line) => line.eol ?? '\n'
}

function contextFor(lines: readonly Line[], input: ApplyHunksInput): LocateContext {
  return {
    index: indexLines(lines.map((l) => l.text)),
    path: input.path,
    exactOnly: input.exactOnly,
  }
}

/**
 * One forward pass over the file: copies untouched lines, and for each placed hunk its context
 * lines (the file's), drops removed lines, and adds restyled new lines ending as `added` says.
 * A file line that loses its place as the unterminated last line gets `eol` (the dominant one).
 * `placed` must not overlap; it is processed in (start, order) order.
 */
function splice(
  lines: readonly Line[],
  placed: readonly Placed[],
  eol: Exclude<Eol, ''>,
  added: (line: HunkLine) => Exclude<Eol, ''>,
  regions?: LineRegion[],
): Line[] {
  const sorted = placed
    .slice()
    .sort((a, b) => a.location.start - b.location.start || a.order - b.order)
  const out: Line[] = []
  let next = 0
  for (const { location } of sorted) {
    while (next < location.start) out.push(lines[next++] as Line)
    const newStart = out.length
    let fileIndex = location.start
    for (const [i, line] of location.lines.entries()) {
      if (line.op === '+') {
        // A line that took a replaced line's indentation is not re-indented (location.ts).
        const restyle = location.fileIndented?.includes(i)
          ? { ...location.restyle, indent: null }
          : location.restyle
        out.push({ text: restyleLine(line.text, restyle), eol: added(line) })
      } else {
        const own = lines[fileIndex++]
        if (own === undefined) {
          throw new Error('applyHunks: cannot splice a hunk past the end of the file')
        }
        if (line.op === ' ') out.push(own)
      }
    }
    next = fileIndex
    regions?.push({ oldStart: location.start, oldEnd: fileIndex, newStart, newEnd: out.length })
  }
  while (next < lines.length) out.push(lines[next++] as Line)
  // A line that was last (no terminator) and now has lines after it needs one.
  for (let i = 0; i < out.length - 1; i++) {
    const line = out[i] as Line
    if (line.eol === '') out[i] = { text: line.text, eol }
  }
  return out
}

/** The format whose final-newline rule applies: 'edits' (the file's state) when it is kept. */
function ruleOf(input: ApplyHunksInput): PatchFormat {
  return input.keepFinalNewline === true ? 'edits' : input.format
}

/**
 * The final-newline rule, applied when a hunk touched the file's last line (matched it, or
 * inserted at the end): Codex patches end the file with a newline (as Codex does); unified diffs
 * follow the new side's "\ No newline at end of file" exactly; other formats keep the file's
 * original state. Untouched, the last line keeps its own terminator (or lack of one).
 */
function finishLastLine(
  lines: Line[],
  endHunk: LineHunk | null,
  format: PatchFormat,
  hadFinalNewline: boolean,
  eol: Exclude<Eol, ''>,
): Line[] {
  const last = lines[lines.length - 1]
  if (endHunk === null || last === undefined) return lines
  let wanted: Eol
  switch (format) {
    case 'codex':
      wanted = last.eol === '' ? eol : last.eol
      break
    case 'unified':
      wanted = endHunk.newNoNewlineAtEnd === true ? '' : last.eol === '' ? eol : last.eol
      break
    case 'search-replace':
    case 'edits':
      wanted = !hadFinalNewline ? '' : last.eol === '' ? eol : last.eol
      break
  }
  if (wanted !== last.eol) lines[lines.length - 1] = { text: last.text, eol: wanted }
  return lines
}
