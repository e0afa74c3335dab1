// Re-indentation of added lines after an indentation-tolerant match (DECISIONS.md D-026).
// Learns, from the matched (file, patch) line pairs, how the patch's indentation maps onto the
// file's: exact indentation strings seen on matched lines, one reference pair, the patch's columns
// per level and the file's unit (a tab or N spaces). reindentLine() gives an added line the file
// line's indentation when the patch spelled it like a matched line, else the reference's file
// indentation shifted by the line's offset in patch levels, in the file's unit. It never mixes
// tabs and spaces unless the file's own indentation does. Text after the indentation is the
// caller's (src/match/restyle.ts); plain data, so it crosses threads.

/** The indentation mapping learned from matched lines; null in a Restyle means "leave alone". */
export interface Reindent {
  /** Patch indentation strings seen on matched lines and the file's indentation there. */
  readonly known: readonly (readonly [string, string])[]
  /** The reference pair: the first matched non-blank line's patch indentation in columns... */
  readonly refColumns: number
  /** ...and the file's indentation on that line. */
  readonly refFile: string
  /** Patch columns per indentation level (>= 1). */
  readonly patchUnit: number
  /** The file's indentation unit: '\t' or a run of spaces. */
  readonly fileUnit: string
  /** Whether the file's own lines put spaces after tabs (then alignment spaces are kept). */
  readonly fileMixes: boolean
}

/** What else the mapping may look at to learn the indentation units. */
export interface RestyleExtra {
  /** The lines the patch adds, in order (their steps reveal the patch's unit). */
  readonly added?: readonly string[]
  /** File lines around the match (the file's unit and its tab/space style). */
  readonly surrounding?: readonly string[]
}

/** A patch tab counts as this many columns: one level, as models that emit tabs mean it. */
const PATCH_TAB_COLUMNS = 4
/** Indentation steps wider than this are alignment or continuation, not a unit. */
const MAX_UNIT = 8
const DEFAULT_UNIT = 4

export function leadingWhitespace(text: string): string {
  const match = /^[ \t]*/.exec(text)
  return match === null ? '' : match[0]
}

export function isBlank(text: string): boolean {
  return text.trim() === ''
}

export function columns(ws: string, tab: number): number {
  let cols = 0
  for (const ch of ws) cols = ch === '\t' ? cols - (cols % tab) + tab : cols + 1
  return cols
}

/** The most frequent step (1..MAX_UNIT columns) between consecutive indented lines; ties: smaller. */
function commonStep(widths: readonly number[]): number | null {
  const votes = new Map<number, number>()
  for (let i = 1; i < widths.length; i++) {
    const step = Math.abs((widths[i] as number) - (widths[i - 1] as number))
    if (step >= 1 && step <= MAX_UNIT) votes.set(step, (votes.get(step) ?? 0) + 1)
  }
  let best: number | null = null
  let bestVotes = 0
  for (const [step, count] of votes) {
    if (count > bestVotes || (count === bestVotes && best !== null && step < best)) {
      best = step
      bestVotes = count
    }
  }
  return best
}

interface FileStyle {
  readonly unit: string
  readonly mixes: boolean
}

/**
 * The file's unit: tabs when the matched lines (else the surrounding ones) indent with tabs,
 * otherwise spaces at the most common step of the surrounding lines. Null when nothing in view
 * is indented at all (then the patch's own indentation characters are the best guess).
 */
function fileStyle(matched: readonly string[], surrounding: readonly string[]): FileStyle | null {
  const lead = (lines: readonly string[]): string[] =>
    lines.filter((l) => !isBlank(l)).map(leadingWhitespace)
  const near = lead(matched)
  const around = lead(surrounding.length > 0 ? surrounding : matched)
  const mixes = around.some((ws) => ws.includes('\t') && ws.includes(' '))
  const tabsVsSpaces = (list: readonly string[]): number => {
    let score = 0
    for (const ws of list) {
      if (ws.startsWith('\t')) score++
      else if (ws.startsWith(' ')) score--
    }
    return score
  }
  const byMatched = tabsVsSpaces(near)
  const byAround = tabsVsSpaces(around)
  const indented = near.some((ws) => ws !== '') || around.some((ws) => ws !== '')
  if (!indented) return null
  if (byMatched > 0 || (byMatched === 0 && byAround > 0)) return { unit: '\t', mixes }
  const spaced = around.filter((ws) => !ws.includes('\t')).map((ws) => ws.length)
  const step = commonStep(spaced) ?? commonStep(near.map((ws) => ws.length)) ?? DEFAULT_UNIT
  return { unit: ' '.repeat(step), mixes }
}

/** A file indentation as whole units plus extra spaces. */
function fileLevels(ws: string, unit: string): { levels: number; extra: number } {
  if (unit === '\t') {
    let tabs = 0
    for (const ch of ws) if (ch === '\t') tabs++
    return { levels: tabs, extra: ws.length - tabs }
  }
  const cols = columns(ws, unit.length)
  return { levels: Math.floor(cols / unit.length), extra: cols % unit.length }
}

/**
 * Learns the mapping from matched pairs (fileLines[i] matched patchLines[i]); null when no
 * non-blank pair exists or the mapping would change nothing.
 */
export function deriveReindent(
  fileLines: readonly string[],
  patchLines: readonly string[],
  extra: RestyleExtra = {},
): Reindent | null {
  const pairs: { patch: string; file: string }[] = []
  for (let i = 0; i < Math.min(fileLines.length, patchLines.length); i++) {
    const file = fileLines[i] as string
    const patch = patchLines[i] as string
    if (isBlank(file) || isBlank(patch)) continue
    pairs.push({ patch: leadingWhitespace(patch), file: leadingWhitespace(file) })
  }
  const ref = pairs[0]
  if (ref === undefined) return null
  if (pairs.every((p) => p.patch === p.file)) {
    // The patch's indentation was right on every matched line: only a line the patch indents
    // differently from all of them could need a change, and then the patch knows better.
    return null
  }
  const known = new Map<string, string | null>()
  for (const p of pairs) {
    const seen = known.get(p.patch)
    if (seen === undefined) known.set(p.patch, p.file)
    else if (seen !== p.file) known.set(p.patch, null)
  }
  const patchTexts = [...patchLines, ...(extra.added ?? [])].filter((l) => !isBlank(l))
  const patchWs = patchTexts.map(leadingWhitespace)
  const style = fileStyle(fileLines, extra.surrounding ?? [])
  const patchUsesTabs = patchWs.some((ws) => ws.startsWith('\t'))
  const fileUnit = style?.unit ?? (patchUsesTabs ? '\t' : ' '.repeat(DEFAULT_UNIT))
  const patchCols = (ws: string): number => columns(ws, PATCH_TAB_COLUMNS)
  return {
    known: [...known].filter((e): e is [string, string] => e[1] !== null),
    refColumns: patchCols(ref.patch),
    refFile: ref.file,
    patchUnit: patchUnitOf(pairs, patchWs.map(patchCols), fileUnit, patchCols),
    fileUnit,
    fileMixes: style?.mixes ?? false,
  }
}

/**
 * Patch columns per file level: first from matched pairs at different file levels (the direct
 * evidence), then from the steps between the patch's own lines, then the file's unit width.
 */
function patchUnitOf(
  pairs: readonly { patch: string; file: string }[],
  patchWidths: readonly number[],
  fileUnit: string,
  patchCols: (ws: string) => number,
): number {
  const votes = new Map<number, number>()
  for (let i = 1; i < pairs.length; i++) {
    const a = pairs[i - 1] as { patch: string; file: string }
    const b = pairs[i] as { patch: string; file: string }
    const fa = fileLevels(a.file, fileUnit)
    const fb = fileLevels(b.file, fileUnit)
    if (fa.extra !== 0 || fb.extra !== 0 || fa.levels === fb.levels) continue
    const ratio = (patchCols(b.patch) - patchCols(a.patch)) / (fb.levels - fa.levels)
    if (Number.isInteger(ratio) && ratio >= 1 && ratio <= MAX_UNIT) {
      votes.set(ratio, (votes.get(ratio) ?? 0) + 1)
    }
  }
  let best = 0
  let bestVotes = 0
  for (const [ratio, count] of votes) {
    if (count > bestVotes) {
      best = ratio
      bestVotes = count
    }
  }
  if (best > 0) return best
  return commonStep(patchWidths) ?? (fileUnit === '\t' ? DEFAULT_UNIT : fileUnit.length)
}

/** Applies a Reindent to one added line (text without its terminator); blank lines stay as-is. */
export function reindentLine(text: string, reindent: Reindent): string {
  if (isBlank(text)) return text
  const ws = leadingWhitespace(text)
  const body = text.slice(ws.length)
  for (const [patch, file] of reindent.known) if (patch === ws) return file + body
  const { levels, extra } = shiftedLevels(ws, reindent)
  if (levels < 0) return body
  return reindent.fileUnit.repeat(levels) + ' '.repeat(extra) + body
}

/**
 * Whether the learned offset would move an added line left of column 0, where reindentLine
 * drops its indentation instead: the line was not written in the columns of the lines the
 * offset was learned from.
 */
export function shiftsPastZero(text: string, reindent: Reindent): boolean {
  if (isBlank(text)) return false
  const ws = leadingWhitespace(text)
  if (reindent.known.some(([patch]) => patch === ws)) return false
  return shiftedLevels(ws, reindent).levels < 0
}

/** The file levels and extra spaces of a patch indentation, shifted by the learned offset. */
function shiftedLevels(ws: string, reindent: Reindent): { levels: number; extra: number } {
  const unit = reindent.patchUnit
  const offset = columns(ws, PATCH_TAB_COLUMNS) - reindent.refColumns
  const steps = Math.floor(offset / unit)
  const rest = offset - steps * unit
  const base = fileLevels(reindent.refFile, reindent.fileUnit)
  let levels = base.levels + steps
  let extra = base.extra + rest
  if (reindent.fileUnit === '\t') {
    if (!reindent.fileMixes && extra > 0) {
      // Alignment spaces after tabs would mix the two; round to the nearest level instead.
      if (extra * 2 >= unit) levels++
      extra = 0
    }
  } else {
    levels += Math.floor(extra / reindent.fileUnit.length)
    extra %= reindent.fileUnit.length
  }
  return { levels, extra }
}
