// Writes a string edit's new text into its EditDoc with the right line endings: a line break
// that pairs with an unchanged old line (the line diff of src/text/line-diff.ts) keeps that
// line's terminator, a new one takes the file's dominant ending, and the last touched line keeps
// its own, so a missing final newline stays missing.
import type { EditDoc, Occurrence } from '../match/text-search.js'
import { lineChanges } from '../text/line-diff.js'
import { joinLines, type Eol, type Line } from '../text/lines.js'

/**
 * For each new index that the line diff pairs with an unchanged old one, that old index. `ties`
 * 'last' breaks ties the other way: a line repeated on both sides pairs with its last copy.
 */
export function commonPairs(
  oldParts: readonly string[],
  newParts: readonly string[],
  ties: 'first' | 'last' = 'first',
): Map<number, number> {
  const pairs = new Map<number, number>()
  let o = 0
  let n = 0
  for (const change of lineChanges(oldParts, newParts, ties) ?? []) {
    const count = change.value.length
    if (change.removed === true) o += count
    else if (change.added === true) n += count
    else {
      for (let k = 0; k < count; k++) pairs.set(n + k, o + k)
      o += count
      n += count
    }
  }
  return pairs
}

/** Whether two pairings are the same. */
export function samePairs(a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number>): boolean {
  if (a.size !== b.size) return false
  for (const [k, j] of a) if (b.get(k) !== j) return false
  return true
}

/**
 * Rebuilds the text for an exact substring replacement. `oldEols[j]` is the file's terminator
 * after oldParts[j]; a new break keeps the terminator of the old line it pairs with, the final
 * break keeps the final old one, and any other break takes the dominant ending.
 */
export function withEols(
  oldParts: readonly string[],
  oldEols: readonly Eol[],
  newParts: readonly string[],
  dominant: Eol,
): string {
  const pairs = commonPairs(oldParts, newParts)
  const lastOld = oldParts.length - 1
  const lastNew = newParts.length - 1
  const bothEndWithBreak = lastOld >= 1 && oldParts[lastOld] === '' && newParts[lastNew] === ''
  let out = ''
  for (let k = 0; k <= lastNew; k++) {
    out += newParts[k] as string
    if (k === lastNew) break
    const j = pairs.get(k)
    if (j !== undefined && j < lastOld) out += oldEols[j] as Eol
    else if (k === lastNew - 1 && bothEndWithBreak) out += oldEols[lastOld - 1] as Eol
    else out += dominant
  }
  return out
}

/**
 * Where the lines, as re-splitting the text after each edit would hold them, end in an empty
 * line without a break: deleting an unterminated last line moves "no final newline" onto the
 * line before it, and when that line is empty it is no line at all once the text is joined and
 * split again, but a later (earlier-placed) match of the same edit still counts it as its last
 * line. The table holds only split lines, so this remembers that one line.
 */
export interface SpliceState {
  phantom: boolean
}

/**
 * Replaces lines [start, start + count) with whole lines. A new line paired with an old one keeps
 * its terminator; the last new line keeps the last old line's (so a missing final newline stays
 * missing); other lines take the dominant ending. Returns false, replacing nothing, when the
 * lines as written are the bytes already there (a lone CR before a new LF ending reads as the
 * CRLF it replaces, say).
 */
export function spliceWholeLines(
  doc: EditDoc,
  start: number,
  count: number,
  newTexts: readonly string[],
  pairs: ReadonlyMap<number, number>,
  dominant: Exclude<Eol, ''>,
  state: SpliceState,
): boolean {
  const table = doc.table
  const length = table.length + (state.phantom ? 1 : 0)
  const end = start + count
  const old = table.lines(start, end)
  if (state.phantom && end === length) old.push({ text: '', eol: '' })
  const lastOld = old[old.length - 1]
  let from = start
  let fresh: Line[] = newTexts.map((text, k) => {
    if (k === newTexts.length - 1 && lastOld !== undefined) return { text, eol: lastOld.eol }
    const j = pairs.get(k)
    const paired = j === undefined ? undefined : old[j]
    return { text, eol: paired !== undefined && paired.eol !== '' ? paired.eol : dominant }
  })
  // Deleting the unterminated last line moves "no final newline" to the line now last.
  if (fresh.length === 0 && end === length && lastOld?.eol === '' && start > 0) {
    from = start - 1
    fresh = [{ text: table.line(from).text, eol: '' }]
  }
  if (end === length) {
    const last = fresh[fresh.length - 1]
    state.phantom = last !== undefined && last.text === '' && last.eol === ''
  }
  const to = Math.min(end, table.length)
  const text = joinLines(fresh)
  if (text === joinLines(table.lines(from, to))) return false
  doc.replaceText(from, to, text)
  return true
}

/**
 * Rewrites the exact occurrences. The replacement text (its line breaks) is decided from the
 * text as the edit found it. Occurrences that share a line are rewritten as one piece of text,
 * as a text-wide replacement would (re-splitting between them could pair a CR left by one with a
 * line break written by the next); separate pieces go bottom-up, so earlier lines stay put.
 */
export function replaceExact(
  doc: EditDoc,
  found: readonly Occurrence[],
  oldTexts: readonly string[],
  newTexts: readonly string[],
): void {
  const table = doc.table
  const dominant = table.dominant()
  let oldParts: string[] = []
  let newParts: string[] = []
  const replacements = found.map((o, k) => {
    // A plain edit passes one string for every match: split it once.
    if (k === 0 || oldTexts[k] !== oldTexts[k - 1]) oldParts = (oldTexts[k] as string).split('\n')
    if (k === 0 || newTexts[k] !== newTexts[k - 1]) newParts = (newTexts[k] as string).split('\n')
    const eols = table.lines(o.line, o.endLine).map((line) => line.eol)
    return withEols(oldParts, eols, newParts, dominant)
  })
  // Groups of occurrences [first, last] whose lines overlap; a match ending at the start of a
  // line (its final break included) does not hold that line.
  const groups: [number, number][] = []
  for (let k = 0; k < found.length; k++) {
    const o = found[k] as Occurrence
    const group = groups[groups.length - 1]
    const prev = group === undefined ? undefined : (found[group[1]] as Occurrence)
    const prevLast = prev === undefined ? -1 : prev.endCol === 0 ? prev.endLine - 1 : prev.endLine
    if (group !== undefined && o.line <= prevLast) group[1] = k
    else groups.push([k, k])
  }
  for (let g = groups.length - 1; g >= 0; g--) {
    const [first, last] = groups[g] as [number, number]
    const start = (found[first] as Occurrence).line
    let text = ''
    let line = start
    let col = 0
    for (let k = first; k <= last; k++) {
      const o = found[k] as Occurrence
      text += textBetween(table, line, col, o.line, o.col) + (replacements[k] as string)
      line = o.endLine
      col = o.endCol
    }
    if (col === 0) {
      doc.replaceText(start, line, text)
    } else {
      const end = table.line(line)
      doc.replaceText(start, line + 1, text + end.text.slice(col) + end.eol)
    }
  }
}

/** The current text from column c1 of line l1 to column c2 of line l2 (breaks as in the file). */
function textBetween(
  table: EditDoc['table'],
  l1: number,
  c1: number,
  l2: number,
  c2: number,
): string {
  if (l1 === l2) return table.line(l1).text.slice(c1, c2)
  const first = table.line(l1)
  let text = first.text.slice(c1) + first.eol
  for (let i = l1 + 1; i < l2; i++) {
    const line = table.line(i)
    text += line.text + line.eol
  }
  return c2 === 0 ? text : text + table.line(l2).text.slice(0, c2)
}
