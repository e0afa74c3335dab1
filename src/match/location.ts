// What the hunk locators share, one per LocateMode: locate-cursor.ts (Codex), locate-near.ts
// (unified) and locate-sequential.ts (SEARCH/REPLACE). Here are the context they read and the
// Location they return, built with the restyle a lenient match learns and its warning. Every
// mode climbs the ladder (exact -> trim-end -> trim -> fold) and refuses rather than guesses.
// They compute positions only; splicing the lines is src/apply/apply-hunks.ts's job.
import { errorData, type EditErrorData } from '../errors.js'
import type { MatchPass } from '../text/normalize.js'
import type { HunkLine, LineHunk, Warning } from '../types.js'
import type { LineIndex } from './ladder.js'
import { deriveRestyle, IDENTITY_RESTYLE, restyleLine, type Restyle } from './restyle.js'
import { fileDepths, type FileDepths } from './indent-depth.js'
import { passWords } from './pass-words.js'

/** Where a hunk goes: lines [start, start + oldLength) of the searched text are replaced. */
export interface Location {
  /** 0-based first line replaced, or the insertion index when oldLength is 0. */
  readonly start: number
  readonly oldLength: number
  /** The hunk's lines as applied (a spurious trailing empty line may have been dropped). */
  readonly lines: readonly HunkLine[]
  /** The ladder pass that matched; null for a pure insertion, which matches nothing. */
  readonly pass: MatchPass | null
  readonly restyle: Restyle
  readonly warnings: readonly Warning[]
  /**
   * Indices into `lines` of added lines that already carry the file's indentation (they took the
   * line they replace's, as the patch's was flattened): restyled, but not re-indented.
   */
  readonly fileIndented?: readonly number[]
  /** Set when the hunk cannot be placed after all (flattened indentation): the caller refuses. */
  readonly refusal?: EditErrorData
}

export interface LocateContext {
  readonly index: LineIndex
  readonly path: string
  /** Bytes-mode file: only the exact pass may match (FILE_NOT_TEXT otherwise). */
  readonly exactOnly: boolean
  /**
   * false: a MATCH_NOT_FOUND carries no near-miss candidates. Finding them scores every line of
   * the searched region; history replay, which only counts refusals, skips that.
   */
  readonly candidates?: boolean
}

/** A previously located hunk's range, for overlap reports. */
export interface Claimed {
  readonly start: number
  readonly end: number
}

/**
 * Lines on each side of a lenient match that reveal the file's indentation unit. PERF: bounded so
 * a lenient hunk in a huge file costs a window, not a file scan.
 */
const SURROUNDING = 400

export function oldSide(lines: readonly HunkLine[]): string[] {
  const out: string[] = []
  for (const line of lines) if (line.op !== '+') out.push(line.text)
  return out
}

export function newSide(lines: readonly HunkLine[]): string[] {
  const out: string[] = []
  for (const line of lines) if (line.op !== '-') out.push(line.text)
  return out
}

/** File lines in view when learning the file's indentation style (bounded, see SURROUNDING). */
export function surroundingLines(
  lines: readonly string[],
  start: number,
  end: number,
): readonly string[] {
  const [lo, hi] = surroundingRange(start, end, lines.length)
  return lines.slice(lo, hi)
}

/** The [lo, hi) line range surroundingLines gives for lines [start, end) of `total` lines. */
export function surroundingRange(start: number, end: number, total: number): [number, number] {
  return [Math.max(0, start - SURROUNDING), Math.min(total, end + SURROUNDING)]
}

/**
 * The Location of a hunk placed at `start` under `pass`, with the restyle a lenient match
 * learns from the file around it and the match.lenient warning.
 */
export function located(
  ctx: LocateContext,
  hunk: LineHunk,
  lines: readonly HunkLine[],
  start: number,
  pass: MatchPass | null,
  extraWarnings: readonly Warning[] = [],
): Location {
  const slice = (from: number, to: number) => ctx.index.lines.slice(from, to)
  return locatedIn(slice, ctx.index.lines.length, ctx.path, hunk, lines, start, pass, extraWarnings)
}

/** located() over any text that can hand out slices of its lines; `name` names the hunk. */
export function locatedIn(
  slice: (from: number, to: number) => readonly string[],
  total: number,
  path: string,
  hunk: LineHunk,
  lines: readonly HunkLine[],
  start: number,
  pass: MatchPass | null,
  extraWarnings: readonly Warning[] = [],
  name: string = hunkName(hunk),
): Location {
  const old = oldSide(lines)
  let restyle = IDENTITY_RESTYLE
  let depths: FileDepths | null = null
  // Only 'trim' and 'fold' restyle (deriveRestyle); the others need no slice of the file.
  if (pass === 'trim' || pass === 'fold') {
    const [lo, hi] = surroundingRange(start, start + old.length, total)
    const surrounding = slice(lo, hi)
    const at = start - lo
    const fileOld = surrounding.slice(at, at + old.length)
    restyle = deriveRestyle(fileOld, old, pass, {
      added: lines.filter((l) => l.op === '+').map((l) => l.text),
      surrounding,
    })
    depths = fileDepths(
      fileOld,
      lines,
      restyle.indent,
      surrounding[at - 1],
      surrounding[at + old.length],
    )
  }
  const warnings = pass === null ? [] : lenientWarning({ path }, hunk, pass, start)
  const unplaced = depths?.unplaced
  const refusal =
    unplaced === undefined
      ? undefined
      : errorData(
          'MATCH_INDENT_AMBIGUOUS',
          `${capitalise(name)} matched ${path} at line ${start + 1} only ${passWords(pass as MatchPass)}, and ${unplaced.why}, so the depth of its added line "${unplaced.text.trim()}" cannot be told.`,
          { path, patchLine: hunk.patchLine },
        )
  return {
    start,
    oldLength: old.length,
    lines: depths?.lines ?? lines,
    pass,
    restyle,
    warnings: [...warnings, ...extraWarnings],
    ...(depths === null || depths.indices.length === 0 ? {} : { fileIndented: depths.indices }),
    ...(refusal === undefined ? {} : { refusal }),
  }
}

/**
 * How the added line `line` (index `i` of `location.lines`) is written: restyled to the file,
 * and re-indented unless it already took the indentation of the line it replaces.
 */
export function addedLineText(location: Location, i: number, line: HunkLine): string {
  const fixed = location.fileIndented?.includes(i) === true
  return restyleLine(line.text, fixed ? { ...location.restyle, indent: null } : location.restyle)
}

/** How a message names a hunk. */
export function hunkName(hunk: LineHunk): string {
  return `the hunk at patch line ${hunk.patchLine}`
}

export function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** The match.lenient warning for a hunk placed at `start` by a pass other than 'exact'. */
function lenientWarning(
  ctx: Pick<LocateContext, 'path'>,
  hunk: LineHunk,
  pass: MatchPass,
  start: number,
): Warning[] {
  if (pass === 'exact') return []
  return [
    {
      code: 'match.lenient',
      message: `${capitalise(hunkName(hunk))} matched ${ctx.path} at line ${start + 1} only ${passWords(pass)} (pass '${pass}').`,
      path: ctx.path,
      patchLine: hunk.patchLine,
    },
  ]
}
