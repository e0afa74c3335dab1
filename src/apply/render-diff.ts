// Renders one file's change as a git-style unified diff (re-appliable with `git apply`) and
// counts added and removed lines. Only the regions a change touched are diffed: the caller passes
// the old/new line ranges each hunk replaced, and lines between them must be identical (checked;
// anything else falls back to diffing the whole file minus its common prefix and suffix), so no
// whole-file Myers diff runs on a large file (bench/apply.bench.ts). Inside a region jsdiff's
// diffArrays finds the minimal line diff. Lines are git's already (src/text/lines.ts ends them at
// LF only; a lone CR is content), so the diff replays with `git apply` as it is.
// Only the array differ: importing 'diff' whole loads every module of jsdiff (~20 ms at startup).
import { diffArrays } from 'diff/lib/diff/array.js'
import type { Line } from '../text/lines.js'
import type { FileMode } from '../types.js'

/** Lines of context around each change, as git uses. */
export const DIFF_CONTEXT_LINES = 3

/** A replaced span: old[oldStart, oldEnd) became new[newStart, newEnd) (0-based, half-open). */
export interface LineRegion {
  readonly oldStart: number
  readonly oldEnd: number
  readonly newStart: number
  readonly newEnd: number
}

export interface DiffHeader {
  /** Path before (for copies and renames, the source); null for a creation. */
  readonly oldPath: string | null
  /** Path after; null for a deletion. */
  readonly newPath: string | null
  readonly rename?: boolean
  readonly copy?: boolean
  readonly oldMode?: FileMode
  readonly newMode?: FileMode
  readonly binary?: boolean
}

export interface RenderedDiff {
  readonly additions: number
  readonly deletions: number
  readonly diff: string
}

/** A maximal run of removed and added lines: old[o, o+oLen) -> new[n, n+nLen). */
interface Change {
  readonly o: number
  readonly oLen: number
  readonly n: number
  readonly nLen: number
}

export function renderDiff(
  header: DiffHeader,
  oldLines: readonly Line[],
  newLines: readonly Line[],
  regions?: readonly LineRegion[] | undefined,
  text = true,
): RenderedDiff {
  if (!text) return countOnly(header, oldLines, newLines, regions)
  const headerText = renderHeader(header)
  if (header.binary === true) {
    const changed = !sameLines(oldLines, newLines, 0, oldLines.length, 0, newLines.length)
    const from = header.oldPath === null ? '/dev/null' : `a/${header.oldPath}`
    const to = header.newPath === null ? '/dev/null' : `b/${header.newPath}`
    if (!changed) return { additions: 0, deletions: 0, diff: headerText ?? '' }
    return {
      additions: 0,
      deletions: 0,
      diff: (headerText ?? gitLine(header)) + `Binary files ${from} and ${to} differ\n`,
    }
  }
  const changes = changesOf(oldLines, newLines, regions)
  let additions = 0
  let deletions = 0
  for (const c of changes) {
    additions += c.nLen
    deletions += c.oLen
  }
  if (changes.length === 0) return { additions, deletions, diff: headerText ?? '' }
  const from = header.oldPath === null ? '/dev/null' : quoteName(`a/${header.oldPath}`)
  const to = header.newPath === null ? '/dev/null' : quoteName(`b/${header.newPath}`)
  const out = [headerText ?? gitLine(header), `--- ${from}\n`, `+++ ${to}\n`]
  for (const hunk of groupHunks(changes, oldLines.length))
    out.push(renderHunk(hunk, oldLines, newLines))
  return { additions, deletions, diff: out.join('') }
}

/**
 * The counts renderDiff would report, without the text: per region, the lines a minimal diff
 * removes and adds (changedLineCounts).
 */
function countOnly(
  header: DiffHeader,
  oldLines: readonly Line[],
  newLines: readonly Line[],
  regions: readonly LineRegion[] | undefined,
): RenderedDiff {
  if (header.binary === true) return { additions: 0, deletions: 0, diff: '' }
  const spans =
    regions !== undefined && gapsUntouched(oldLines, newLines, regions)
      ? regions
      : [{ oldStart: 0, oldEnd: oldLines.length, newStart: 0, newEnd: newLines.length }]
  let additions = 0
  let deletions = 0
  for (const r of spans) {
    const counts = changedLineCounts(
      oldLines.slice(r.oldStart, r.oldEnd).map(lineKey),
      newLines.slice(r.newStart, r.newEnd).map(lineKey),
    )
    additions += counts.additions
    deletions += counts.deletions
  }
  return { additions, deletions, diff: '' }
}

/** Cells above which the longest common subsequence is left to jsdiff's O(ND) diff. */
const LCS_TABLE_MAX = 4096

/**
 * Lines a minimal diff from `before` to `after` adds and removes. However a minimal diff aligns
 * them, it keeps the longest common subsequence (LCS) and changes the rest, so the counts are
 * found without rendering: the common prefix and suffix are dropped, and the LCS of what is left
 * comes from a small table, or from jsdiff when that would be large.
 */
export function changedLineCounts(
  before: readonly string[],
  after: readonly string[],
): { additions: number; deletions: number } {
  let o0 = 0
  let n0 = 0
  let o1 = before.length
  let n1 = after.length
  while (o0 < o1 && n0 < n1 && before[o0] === after[n0]) {
    o0++
    n0++
  }
  while (o1 > o0 && n1 > n0 && before[o1 - 1] === after[n1 - 1]) {
    o1--
    n1--
  }
  const a = before.slice(o0, o1)
  const b = after.slice(n0, n1)
  const common = lcsLength(a, b)
  return { additions: b.length - common, deletions: a.length - common }
}

function lcsLength(a: readonly string[], b: readonly string[]): number {
  const n = a.length
  const m = b.length
  if (n === 0 || m === 0) return 0
  if (n * m > LCS_TABLE_MAX) {
    let kept = 0
    for (const part of diffArrays(a as string[], b as string[]))
      if (part.added !== true && part.removed !== true) kept += part.value.length
    return kept
  }
  let row = new Array<number>(m + 1).fill(0)
  for (let i = 1; i <= n; i++) {
    const next = new Array<number>(m + 1).fill(0)
    for (let j = 1; j <= m; j++) {
      next[j] =
        a[i - 1] === b[j - 1]
          ? (row[j - 1] as number) + 1
          : Math.max(row[j] as number, next[j - 1] as number)
    }
    row = next
  }
  return row[m] as number
}

/** The `diff --git` line and extended headers, or null when there is nothing but content to say. */
function renderHeader(h: DiffHeader): string | null {
  const creation = h.oldPath === null
  const deletion = h.newPath === null
  const modeChange =
    !creation &&
    !deletion &&
    h.oldMode !== undefined &&
    h.newMode !== undefined &&
    h.oldMode !== h.newMode
  if (!creation && !deletion && h.rename !== true && h.copy !== true && !modeChange) return null
  let text = gitLine(h)
  if (creation) text += `new file mode ${h.newMode ?? '100644'}\n`
  if (deletion) text += `deleted file mode ${h.oldMode ?? '100644'}\n`
  if (modeChange) text += `old mode ${h.oldMode}\nnew mode ${h.newMode}\n`
  if (h.rename === true)
    text += `rename from ${quoteName(h.oldPath ?? '')}\nrename to ${quoteName(h.newPath ?? '')}\n`
  if (h.copy === true)
    text += `copy from ${quoteName(h.oldPath ?? '')}\ncopy to ${quoteName(h.newPath ?? '')}\n`
  return text
}

function gitLine(h: DiffHeader): string {
  const a = h.oldPath ?? h.newPath ?? ''
  const b = h.newPath ?? h.oldPath ?? ''
  return `diff --git ${quoteName(`a/${a}`)} ${quoteName(`b/${b}`)}\n`
}

/**
 * Git's C-style quoting (of the whole prefixed name) for names with control characters, quotes
 * or backslashes.
 */
function quoteName(name: string): string {
  if (!/[\u0000-\u001f"\\\u007f]/.test(name)) return name
  const escaped = name.replace(/[\u0000-\u001f"\\\u007f]/g, (c) => {
    const named: Record<string, string> = {
      '\t': '\\t',
      '\n': '\\n',
      '"': '\\"',
      '\\': '\\\\',
      '\r': '\\r',
    }
    return named[c] ?? '\\' + c.charCodeAt(0).toString(8).padStart(3, '0')
  })
  return `"${escaped}"`
}

function lineKey(line: Line): string {
  return line.text + line.eol
}

function sameLines(
  a: readonly Line[],
  b: readonly Line[],
  aFrom: number,
  aTo: number,
  bFrom: number,
  bTo: number,
): boolean {
  if (aTo - aFrom !== bTo - bFrom) return false
  for (let i = 0; i < aTo - aFrom; i++) {
    const x = a[aFrom + i] as Line
    const y = b[bFrom + i] as Line
    if (x !== y && (x.text !== y.text || x.eol !== y.eol)) return false
  }
  return true
}

/** Every change, in order; from the regions when the lines between them are untouched. */
function changesOf(
  oldLines: readonly Line[],
  newLines: readonly Line[],
  regions?: readonly LineRegion[],
): Change[] {
  if (regions !== undefined && gapsUntouched(oldLines, newLines, regions)) {
    return regions.flatMap((r) => diffRegion(oldLines, newLines, r))
  }
  // Whole-file fallback, cheapened by skipping the common prefix and suffix.
  let start = 0
  const max = Math.min(oldLines.length, newLines.length)
  while (start < max && sameLines(oldLines, newLines, start, start + 1, start, start + 1)) start++
  let oldEnd = oldLines.length
  let newEnd = newLines.length
  while (
    oldEnd > start &&
    newEnd > start &&
    sameLines(oldLines, newLines, oldEnd - 1, oldEnd, newEnd - 1, newEnd)
  ) {
    oldEnd--
    newEnd--
  }
  return diffRegion(oldLines, newLines, { oldStart: start, oldEnd, newStart: start, newEnd })
}

function gapsUntouched(
  oldLines: readonly Line[],
  newLines: readonly Line[],
  regions: readonly LineRegion[],
): boolean {
  let o = 0
  let n = 0
  for (const r of regions) {
    if (r.oldStart < o || r.newStart < n) return false
    if (!sameLines(oldLines, newLines, o, r.oldStart, n, r.newStart)) return false
    o = r.oldEnd
    n = r.newEnd
  }
  return sameLines(oldLines, newLines, o, oldLines.length, n, newLines.length)
}

function diffRegion(oldLines: readonly Line[], newLines: readonly Line[], r: LineRegion): Change[] {
  if (r.oldStart === r.oldEnd && r.newStart === r.newEnd) return []
  const before = oldLines.slice(r.oldStart, r.oldEnd).map(lineKey)
  const after = newLines.slice(r.newStart, r.newEnd).map(lineKey)
  const changes: Change[] = []
  let o = r.oldStart
  let n = r.newStart
  let pending: { o: number; oLen: number; n: number; nLen: number } | null = null
  for (const part of diffArrays(before, after)) {
    const count = part.value.length
    if (part.added === true || part.removed === true) {
      pending ??= { o, oLen: 0, n, nLen: 0 }
      if (part.removed === true) {
        pending.oLen += count
        o += count
      } else {
        pending.nLen += count
        n += count
      }
    } else {
      if (pending !== null) changes.push(pending)
      pending = null
      o += count
      n += count
    }
  }
  if (pending !== null) changes.push(pending)
  return changes
}

interface Hunk {
  readonly changes: readonly Change[]
  readonly oldStart: number
  readonly oldEnd: number
  readonly newStart: number
  readonly newEnd: number
}

/** Groups changes whose context would touch or overlap into hunks with surrounding context. */
function groupHunks(changes: readonly Change[], oldLength: number): Hunk[] {
  const hunks: Hunk[] = []
  let group: Change[] = []
  const flush = () => {
    const first = group[0] as Change
    const last = group[group.length - 1] as Change
    const lead = Math.min(DIFF_CONTEXT_LINES, first.o)
    const trail = Math.min(DIFF_CONTEXT_LINES, oldLength - (last.o + last.oLen))
    hunks.push({
      changes: group,
      oldStart: first.o - lead,
      oldEnd: last.o + last.oLen + trail,
      newStart: first.n - lead,
      newEnd: last.n + last.nLen + trail,
    })
    group = []
  }
  for (const change of changes) {
    const previous = group[group.length - 1]
    if (previous !== undefined && change.o - (previous.o + previous.oLen) > 2 * DIFF_CONTEXT_LINES)
      flush()
    group.push(change)
  }
  if (group.length > 0) flush()
  return hunks
}

function renderHunk(hunk: Hunk, oldLines: readonly Line[], newLines: readonly Line[]): string {
  const oldCount = hunk.oldEnd - hunk.oldStart
  const newCount = hunk.newEnd - hunk.newStart
  const out = [`@@ -${range(hunk.oldStart, oldCount)} +${range(hunk.newStart, newCount)} @@\n`]
  let o = hunk.oldStart
  let n = hunk.newStart
  const emit = (prefix: string, line: Line) => {
    out.push(prefix, line.text, line.eol === '\r\n' ? '\r\n' : '\n')
    if (line.eol === '') out.push('\\ No newline at end of file\n')
  }
  for (const change of hunk.changes) {
    while (o < change.o) {
      emit(' ', oldLines[o] as Line)
      o++
      n++
    }
    for (let i = 0; i < change.oLen; i++) emit('-', oldLines[o++] as Line)
    for (let i = 0; i < change.nLen; i++) emit('+', newLines[n++] as Line)
  }
  while (o < hunk.oldEnd) {
    emit(' ', oldLines[o] as Line)
    o++
  }
  return out.join('')
}

/** `start,count` as git writes it: count 1 is implied; an empty side names the line before it. */
function range(start: number, count: number): string {
  if (count === 0) return `${start},0`
  if (count === 1) return `${start + 1}`
  return `${start + 1},${count}`
}
