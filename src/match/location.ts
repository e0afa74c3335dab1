// What the hunk locators share, one per LocateMode: locate-cursor.ts (Codex), locate-near.ts
// (unified) and locate-sequential.ts (SEARCH/REPLACE). Here are the context they read and the
// Location they return, built with the restyle a lenient match learns and its warning. Every
// mode climbs the ladder (exact -> trim-end -> trim -> fold) and refuses rather than guesses.
// They compute positions only; splicing the lines is src/apply/apply-hunks.ts's job.
import { errorData, type EditErrorData } from '../errors.js'
import type { MatchPass } from '../text/normalize.js'
import type { HunkLine, LineHunk, Warning } from '../types.js'
import type { LineIndex } from './ladder.js'
import { deriveRestyle, IDENTITY_RESTYLE, type Restyle } from './restyle.js'
import { reindentLine, type Reindent } from './reindent.js'
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

/** located() over any text that can hand out slices of its lines. */
export function locatedIn(
  slice: (from: number, to: number) => readonly string[],
  total: number,
  path: string,
  hunk: LineHunk,
  lines: readonly HunkLine[],
  start: number,
  pass: MatchPass | null,
  extraWarnings: readonly Warning[] = [],
): Location {
  const old = oldSide(lines)
  let restyle = IDENTITY_RESTYLE
  // Only 'trim' and 'fold' restyle (deriveRestyle); the others need no slice of the file.
  if (pass === 'trim' || pass === 'fold') {
    const [lo, hi] = surroundingRange(start, start + old.length, total)
    const surrounding = slice(lo, hi)
    restyle = deriveRestyle(surrounding.slice(start - lo, start - lo + old.length), old, pass, {
      added: lines.filter((l) => l.op === '+').map((l) => l.text),
      surrounding,
    })
  }
  let fixed: Flattened | null = null
  if (pass === 'trim' || pass === 'fold') {
    const [before] = start > 0 ? slice(start - 1, start) : []
    const [after] = slice(start + old.length, start + old.length + 1)
    const fileOld = slice(start, start + old.length)
    fixed = flattened(fileOld, lines, before, after)
    if (fixed === null && restyle.indent !== null) {
      const unsure = unsureReindent(fileOld, lines, restyle.indent, before, after)
      if (unsure !== undefined) fixed = { lines, indices: [], unplaced: unsure }
    }
  }
  const warnings = pass === null ? [] : lenientWarning({ path }, hunk, pass, start)
  const refusal =
    fixed?.unplaced === undefined
      ? undefined
      : errorData(
          'MATCH_INDENT_AMBIGUOUS',
          `${capitalise(hunkName(hunk))} matched ${path} at line ${start + 1} only ${passWords(pass as MatchPass)}, and its old lines sit at indentation offsets from the file's that disagree, so the depth of its added line "${fixed.unplaced.trim()}" cannot be told.`,
          { path, patchLine: hunk.patchLine },
        )
  return {
    start,
    oldLength: old.length,
    lines: fixed?.lines ?? lines,
    pass,
    restyle,
    warnings: [...warnings, ...extraWarnings],
    ...(fixed === null || fixed.indices.length === 0 ? {} : { fileIndented: fixed.indices }),
    ...(refusal === undefined ? {} : { refusal }),
  }
}

interface Flattened {
  readonly lines: readonly HunkLine[]
  readonly indices: readonly number[]
  /** The first added line whose depth cannot be told. */
  readonly unplaced?: string
}

const leading = (text: string): string => /^[ \t]*/.exec(text)?.[0] ?? ''

/** Columns of an indentation, a tab counting four (only compared with each other here). */
function width(ws: string): number {
  let cols = 0
  for (const ch of ws) cols = ch === '\t' ? cols - (cols % 4) + 4 : cols + 1
  return cols
}

/** `cols` columns written in the style of `like` (all spaces or all tabs), or null. */
function indentLike(like: string, cols: number): string | null {
  if (cols < 0) return null
  if (!like.includes('\t')) return ' '.repeat(cols)
  if (/^\t*$/.test(like) && cols % 4 === 0) return '\t'.repeat(cols / 4)
  return null
}

/**
 * When the hunk's old lines sit at offsets from the file's that disagree (the patch flattened or
 * scrambled the nesting: `if x:` and `a()` both at column 0 where the file has 4 and 8), no one
 * offset re-indents its added lines right, and reindent.ts would guess. Then an added line's
 * depth comes only from what the file says at its place: in a run that replaces lines, the n-th
 * added line written at the n-th removed line's indentation takes that line's depth, and the
 * others keep their depth relative to the run's first added line, which sits where the first
 * replaced line did; in a run that only inserts, a line keeps its own indentation where a file
 * line next to the run has it. Any other added line cannot be placed and is named in `unplaced`. Null
 * when the offsets agree (reindent.ts then re-indents as it learned).
 */
function flattened(
  fileOld: readonly string[],
  lines: readonly HunkLine[],
  before: string | undefined,
  after: string | undefined,
): Flattened | null {
  const offsets = new Set<number>()
  let k = 0
  for (const line of lines) {
    if (line.op === '+') continue
    const file = fileOld[k++]
    if (file === undefined || file.trim() === '' || line.text.trim() === '') continue
    offsets.add(width(leading(file)) - width(leading(line.text)))
  }
  if (offsets.size <= 1) return null
  const out = lines.slice()
  const indices: number[] = []
  let unplaced: string | undefined
  // The file's indentation at each old line, and the context lines around each run of changes.
  const fileWs: (string | undefined)[] = []
  k = 0
  for (const line of lines) fileWs.push(line.op === '+' ? undefined : leading(fileOld[k++] ?? ''))
  const contextWs = (from: number, step: number, edge: string | undefined): string | undefined => {
    for (let i = from; i >= 0 && i < lines.length; i += step) {
      const line = lines[i] as HunkLine
      if (line.op === ' ' && line.text.trim() !== '') return fileWs[i]
    }
    return edge === undefined ? undefined : leading(edge)
  }
  for (let i = 0; i < lines.length;) {
    if ((lines[i] as HunkLine).op === ' ') {
      i++
      continue
    }
    let j = i
    while (j < lines.length && (lines[j] as HunkLine).op !== ' ') j++
    const run = [...Array(j - i).keys()].map((d) => i + d)
    const removed = run.filter((r) => (lines[r] as HunkLine).op === '-')
    const added = run.filter(
      (r) => (lines[r] as HunkLine).op === '+' && lines[r]?.text.trim() !== '',
    )
    const first = added[0]
    if (first !== undefined) {
      const firstWs = leading((lines[first] as HunkLine).text)
      const replaced = removed.length > 0 ? (fileWs[removed[0] as number] as string) : undefined
      const around = [contextWs(i - 1, -1, before), contextWs(j, 1, after)]
      for (const [n, r] of added.entries()) {
        const line = lines[r] as HunkLine
        const ws = leading(line.text)
        // The n-th added line written as the n-th removed one is: it takes that line's depth.
        const twin = removed[n]
        let want: string | null
        if (twin !== undefined && leading((lines[twin] as HunkLine).text) === ws) {
          want = fileWs[twin] as string
        } else if (replaced !== undefined) {
          want = indentLike(replaced, width(replaced) + width(ws) - width(firstWs))
        } else want = around.includes(ws) ? ws : null
        if (want === null) {
          unplaced ??= line.text
          continue
        }
        indices.push(r)
        out[r] = { ...line, text: want + line.text.slice(ws.length) }
      }
    }
    i = j
  }
  return { lines: out, indices, ...(unplaced === undefined ? {} : { unplaced }) }
}

/**
 * The first added line that two readings place differently, each plausible: re-indented by the
 * offset the context lines show (`reindent`), or as written, where the file's line next to its
 * run of changes has that indentation (the model wrote the added line in the file's columns and
 * lost the context's). An added line at an indentation some old line of the hunk has is
 * re-indented as that line was matched, not doubted. Such a line's depth cannot be told.
 */
function unsureReindent(
  fileOld: readonly string[],
  lines: readonly HunkLine[],
  reindent: Reindent,
  before: string | undefined,
  after: string | undefined,
): string | undefined {
  const fileWs: (string | undefined)[] = []
  let k = 0
  for (const line of lines) fileWs.push(line.op === '+' ? undefined : leading(fileOld[k++] ?? ''))
  const contextWs = (from: number, step: number, edge: string | undefined): string | undefined => {
    for (let i = from; i >= 0 && i < lines.length; i += step) {
      const line = lines[i] as HunkLine
      if (line.op === ' ' && line.text.trim() !== '') return fileWs[i]
    }
    return edge === undefined ? undefined : leading(edge)
  }
  const oldWs = new Set(
    lines.filter((l) => l.op !== '+' && l.text.trim() !== '').map((l) => leading(l.text)),
  )
  let runStart = 0
  for (const [i, line] of lines.entries()) {
    if (line.op === ' ' || i === 0 || (lines[i - 1] as HunkLine).op === ' ') runStart = i
    if (line.op !== '+' || line.text.trim() === '') continue
    const own = leading(line.text)
    // At an indentation an old line of the hunk has, the offset learned there is evidence.
    if (oldWs.has(own)) continue
    const shifted = leading(reindentLine(line.text, reindent))
    if (shifted === own) continue
    let runEnd = i
    while (runEnd < lines.length && (lines[runEnd] as HunkLine).op !== ' ') runEnd++
    const around = [contextWs(runStart - 1, -1, before), contextWs(runEnd, 1, after)]
    if (around.includes(own)) return line.text
  }
  return undefined
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
