// The depth of added lines when a hunk's indentation cannot be trusted (DECISIONS.md D-142): the
// patch flattened or scrambled the nesting, so the one offset reindent.ts learns would guess.
// Added lines then take a depth the file vouches for, or the hunk is refused; location.ts calls
// it for the matches that ignored indentation. Pure, plain data.
import type { HunkLine } from '../types.js'
import {
  columns,
  isBlank,
  leadingWhitespace as leading,
  reindentLine,
  shiftsPastZero,
  type Reindent,
} from './reindent.js'

/** Added lines given the file's depth, or the first one whose depth cannot be told. */
export interface FileDepths {
  readonly lines: readonly HunkLine[]
  /** Indices into `lines` of added lines that now carry the file's indentation. */
  readonly indices: readonly number[]
  /** The first added line whose depth cannot be told, and why. */
  readonly unplaced?: { readonly text: string; readonly why: string }
}

/** One run of changed lines and the file's indentation just outside it. */
interface Run {
  readonly removed: readonly number[]
  readonly added: readonly number[]
  /** The file's indentation of the nearest non-blank context line before and after the run. */
  readonly around: readonly (string | undefined)[]
}

const TAB = 4

/** `cols` columns written in the style of `like` (all spaces or all tabs), or null. */
function indentLike(like: string, cols: number): string | null {
  if (cols < 0) return null
  if (!like.includes('\t')) return ' '.repeat(cols)
  if (/^\t*$/.test(like) && cols % TAB === 0) return '\t'.repeat(cols / TAB)
  return null
}

/**
 * The hunk's runs of changes, with the file's indentation of each old line (`fileWs`, by index
 * into `lines`). `before` and `after` are the file lines just outside the match.
 */
function runsOf(
  fileOld: readonly string[],
  lines: readonly HunkLine[],
  before: string | undefined,
  after: string | undefined,
): { runs: Run[]; fileWs: (string | undefined)[] } {
  const fileWs: (string | undefined)[] = []
  let k = 0
  for (const line of lines) fileWs.push(line.op === '+' ? undefined : leading(fileOld[k++] ?? ''))
  const contextWs = (from: number, step: number, edge: string | undefined): string | undefined => {
    for (let i = from; i >= 0 && i < lines.length; i += step) {
      const line = lines[i] as HunkLine
      if (line.op === ' ' && !isBlank(line.text)) return fileWs[i]
    }
    return edge === undefined ? undefined : leading(edge)
  }
  const runs: Run[] = []
  for (let i = 0; i < lines.length;) {
    if ((lines[i] as HunkLine).op === ' ') {
      i++
      continue
    }
    let j = i
    const removed: number[] = []
    const added: number[] = []
    for (; j < lines.length && (lines[j] as HunkLine).op !== ' '; j++) {
      const line = lines[j] as HunkLine
      if (line.op === '-') removed.push(j)
      else if (!isBlank(line.text)) added.push(j)
    }
    runs.push({ removed, added, around: [contextWs(i - 1, -1, before), contextWs(j, 1, after)] })
    i = j
  }
  return { runs, fileWs }
}

/**
 * Added lines' depth where the hunk's indentation cannot be trusted, or null where it can (then
 * reindent.ts re-indents as it learned). Two cases:
 * - The old lines sit at offsets from the file's that disagree (`if x:` and `a()` both at
 *   column 0 where the file has 4 and 8): in a run that replaces lines, the n-th added line
 *   written at the n-th removed line's indentation takes that line's depth, the others keep
 *   their depth relative to the run's first added line, which sits where the first replaced
 *   line did; in a run that only inserts, a line keeps its own indentation where a file line
 *   next to the run has it, or takes the one depth of the file that the hunk's old lines
 *   written at its indentation all sit at. An indentation that old lines of the hunk are
 *   written at and that sits at several depths in the file tells nothing, so no line but a twin
 *   is placed by it; and when the added lines are written at indentations no old line has (in
 *   their own columns, likely the file's), a line placed anywhere but as written reads two
 *   ways. Any other added line cannot be placed.
 * - The offsets agree, but an added line at an indentation no old line of the hunk has reads two
 *   ways: shifted by that offset, or as written, where the file line next to its run, or a line
 *   the run replaces, has the written indentation (the model wrote it in the file's columns and
 *   lost the context's).
 */
export function fileDepths(
  fileOld: readonly string[],
  lines: readonly HunkLine[],
  reindent: Reindent | null,
  before: string | undefined,
  after: string | undefined,
): FileDepths | null {
  const width = (ws: string): number => columns(ws, TAB)
  const offsets = new Set<number>()
  // Each patch indentation of the old lines, and the file indentations it was matched at.
  const depthsOf = new Map<string, Set<string>>()
  let k = 0
  for (const line of lines) {
    if (line.op === '+') continue
    const file = fileOld[k++]
    if (file === undefined || isBlank(file) || isBlank(line.text)) continue
    offsets.add(width(leading(file)) - width(leading(line.text)))
    const seen = depthsOf.get(leading(line.text)) ?? new Set<string>()
    depthsOf.set(leading(line.text), seen.add(leading(file)))
  }
  if (offsets.size <= 1 && reindent === null) return null
  const { runs, fileWs } = runsOf(fileOld, lines, before, after)
  if (offsets.size <= 1) return twoReadings(lines, runs, fileWs, reindent as Reindent)
  const flattened = (ws: string): boolean => (depthsOf.get(ws)?.size ?? 0) > 1
  // Added lines at an indentation no old line is written at are in columns of their own, and
  // an old lines' indentation found at several depths tells nothing (DECISIONS.md D-148).
  const ownColumns = lines.some(
    (l) => l.op === '+' && !isBlank(l.text) && !depthsOf.has(leading(l.text)),
  )
  const out = lines.slice()
  const indices: number[] = []
  let unplaced: FileDepths['unplaced']
  for (const run of runs) {
    const first = run.added[0]
    if (first === undefined) continue
    const firstWs = leading((lines[first] as HunkLine).text)
    const replaced =
      run.removed.length > 0 ? (fileWs[run.removed[0] as number] as string) : undefined
    for (const [n, r] of run.added.entries()) {
      const line = lines[r] as HunkLine
      const ws = leading(line.text)
      // The n-th added line written as the n-th removed one is: it takes that line's depth.
      const twin = run.removed[n]
      let want: string | null
      const seen = depthsOf.get(ws)
      if (twin !== undefined && leading((lines[twin] as HunkLine).text) === ws) {
        want = fileWs[twin] as string
      } else if (!ownColumns && n > 0 && flattened(ws)) {
        want = null
      } else if (replaced !== undefined) {
        want = indentLike(replaced, width(replaced) + width(ws) - width(firstWs))
      } else {
        const told = ownColumns || seen === undefined || (seen.size === 1 && seen.has(ws))
        want = told && run.around.includes(ws) ? ws : null
        // Written where old lines of the hunk are written, and those all sit at one depth of the
        // file: the line is at that depth (an insertion under `  y = 1`, matched at 8 columns).
        if (want === null && !ownColumns && seen?.size === 1) want = [...seen][0] as string
      }
      if (want === null) {
        unplaced ??= {
          text: line.text,
          why: "its old lines sit at indentation offsets from the file's that disagree",
        }
        continue
      }
      if (ownColumns && want !== ws) {
        unplaced ??= {
          text: line.text,
          why: "its old lines sit at indentation offsets from the file's that disagree while its added lines are indented as none of them is, so it reads two ways, as written or at the depth of the line it replaces",
        }
        continue
      }
      indices.push(r)
      out[r] = { ...line, text: want + line.text.slice(ws.length) }
    }
  }
  return { lines: out, indices, ...(unplaced === undefined ? {} : { unplaced }) }
}

/** The second case of fileDepths: the first added line that reads two ways, if any. */
function twoReadings(
  lines: readonly HunkLine[],
  runs: readonly Run[],
  fileWs: readonly (string | undefined)[],
  reindent: Reindent,
): FileDepths | null {
  const oldWs = new Set(
    lines.filter((l) => l.op !== '+' && !isBlank(l.text)).map((l) => leading(l.text)),
  )
  for (const run of runs) {
    for (const r of run.added) {
      const text = (lines[r] as HunkLine).text
      const own = leading(text)
      // Indented less than the offset takes away: not in the old lines' columns, so shifting it
      // to column 0 would be a guess (DECISIONS.md D-154).
      if (!oldWs.has(own) && shiftsPastZero(text, reindent)) {
        const why =
          'its added line is indented less than the offset its context shows, so it was not written in the columns of its context and reads two ways'
        return { lines, indices: [], unplaced: { text, why } }
      }
      // At an indentation an old line of the hunk has, the offset learned there is evidence.
      if (oldWs.has(own) || leading(reindentLine(text, reindent)) === own) continue
      if (run.around.includes(own) || run.removed.some((i) => fileWs[i] === own)) {
        const why =
          'its added line reads two ways, shifted by the offset its context shows or as written, as the file line next to it or a line it replaces is indented'
        return { lines, indices: [], unplaced: { text, why } }
      }
    }
  }
  return null
}
