// Rebasing an agent's edit over a change it has not seen. The agent read version R of a
// file; someone else's change made it C. The agent's edit, applied to R, gives R'. The edit may
// land on C only when its change and the intervening one touch lines far apart: then the
// three-way merge of R' and C over R is well defined, and the engine's own result on C must be
// exactly that merge. Anything else (overlapping or adjacent changes, a different result) is a
// refusal, never a guess. Pure: strings in, a verdict out.
import { diffArrays } from 'diff'

/** A change to a base text's lines: lines [start, end) of the base become `lines`. */
interface LineChange {
  readonly start: number
  readonly end: number
  readonly lines: readonly string[]
}

export type RebaseVerdict =
  { readonly ok: true } | { readonly ok: false; readonly reason: 'overlap' | 'differs' }

/**
 * Whether `ours` (the engine's result of the edit on `current`) is the clean three-way merge of
 * `edited` (the edit's result on `base`) and `current` over `base`.
 *
 * @example
 * rebaseVerdict('a\nb\nc\nd\n', 'A\nb\nc\nd\n', 'a\nb\nc\nD\n', 'A\nb\nc\nD\n') // { ok: true }
 */
export function rebaseVerdict(
  base: string,
  edited: string,
  current: string,
  ours: string,
): RebaseVerdict {
  const baseLines = splitLines(base)
  const theirs = changesBetween(baseLines, splitLines(current))
  const mine = changesBetween(baseLines, splitLines(edited))
  if (mine.some((m) => theirs.some((t) => touches(m, t)))) return { ok: false, reason: 'overlap' }
  const merged = applyChanges(baseLines, [...mine, ...theirs])
  return merged === ours ? { ok: true } : { ok: false, reason: 'differs' }
}

/** Lines with their terminators, so joining them gives the text back byte for byte. */
export function splitLines(text: string): string[] {
  const lines: string[] = []
  let from = 0
  for (;;) {
    const nl = text.indexOf('\n', from)
    if (nl === -1) break
    lines.push(text.slice(from, nl + 1))
    from = nl + 1
  }
  if (from < text.length) lines.push(text.slice(from))
  return lines
}

/** The base line ranges that `after` replaced, each with its new lines. */
function changesBetween(base: readonly string[], after: readonly string[]): LineChange[] {
  const changes: LineChange[] = []
  let at = 0
  let open: { start: number; end: number; lines: string[] } | undefined
  for (const part of diffArrays(base as string[], after as string[])) {
    const count = part.value.length
    if (!part.added && !part.removed) {
      if (open !== undefined) changes.push(open)
      open = undefined
      at += count
      continue
    }
    open ??= { start: at, end: at, lines: [] }
    if (part.removed) {
      open.end += count
      at += count
    } else open.lines.push(...part.value)
  }
  if (open !== undefined) changes.push(open)
  return changes
}

/**
 * Two changes conflict when their ranges overlap or meet: git's merge treats adjacent changes as
 * a conflict too, since the order of two insertions at one point is not known.
 */
function touches(a: LineChange, b: LineChange): boolean {
  return a.start <= b.end && b.start <= a.end
}

function applyChanges(base: readonly string[], changes: readonly LineChange[]): string {
  const sorted = [...changes].sort((x, y) => x.start - y.start)
  const out: string[] = []
  let at = 0
  for (const change of sorted) {
    out.push(...base.slice(at, change.start), ...change.lines)
    at = change.end
  }
  out.push(...base.slice(at))
  return out.join('')
}
