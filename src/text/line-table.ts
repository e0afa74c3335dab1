// One file's lines under a sequence of edits that each see the previous ones' result (JSON string
// edits, SEARCH/REPLACE blocks). A piece table: the file's own lines stay in one array (the base)
// and each edit replaces a run of current lines with a small piece of fresh lines, so an edit
// costs its own size plus a walk over the pieces, never a re-split or re-join of the file. The
// ladder's per-pass keys of the base lines are built once (lazily) and shared by every edit.
// Line numbers are current ones (0-based); the base and regions() map them back to the file as
// read. Lines are stored as given: the caller keeps them split the way src/text/lines.ts does
// (string edits re-split each edited region; SEARCH/REPLACE never re-splits). Pure, error-free.
import type { Eol, Line } from './lines.js'
import { isPlainLine, normalizeLine, type MatchPass } from './normalize.js'

/** A replaced span: base lines [oldStart, oldEnd) became current lines [newStart, newEnd). */
export interface TableRegion {
  readonly oldStart: number
  readonly oldEnd: number
  readonly newStart: number
  readonly newEnd: number
}

/**
 * Base lines [from, to) when `fresh` is null; otherwise fresh lines, sitting where base line
 * `from` (= `to`) would follow, so pieces stay ordered by `from` (see #pieceOfBase).
 */
interface Piece {
  readonly from: number
  readonly to: number
  readonly fresh: readonly Line[] | null
  /** Per-pass keys of a fresh piece, built on first use. */
  keys?: Map<MatchPass, readonly string[]>
}

/**
 * Key lookups answered by scanning before the base positions map is built. PERF: building it
 * costs about as much as a few dozen scans, and most requests make only a few lookups (the same
 * trade as SCANS_BEFORE_MAP in src/match/ladder.ts; bench/edits.bench.ts).
 */
const SCANS_BEFORE_MAP = 16

/** First index in the ascending `list` whose value is >= `min`. */
export function lowerBound(list: readonly number[], min: number): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((list[mid] as number) < min) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The ascending union of two ascending lists without common values. */
function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && (a[i] as number) < (b[j] as number)))
      out.push(a[i++] as number)
    else out.push(b[j++] as number)
  }
  return out
}

function sameLine(a: Line, b: Line): boolean {
  return a === b || (a.text === b.text && a.eol === b.eol)
}

export class LineTable {
  readonly #base: readonly Line[]
  #pieces: Piece[]
  /** Current index of each piece's first line, plus the line count at index pieces.length. */
  #starts: number[]
  #lf = 0
  #crlf = 0
  readonly #baseKeys = new Map<MatchPass, readonly string[]>()
  readonly #basePositions = new Map<MatchPass, Map<string, number[]>>()
  readonly #scans = new Map<MatchPass, number>()

  /** `lines` is kept, not copied: the caller must not change it afterwards. */
  constructor(lines: readonly Line[]) {
    this.#base = lines
    this.#pieces = lines.length === 0 ? [] : [{ from: 0, to: lines.length, fresh: null }]
    this.#starts = lines.length === 0 ? [0] : [0, lines.length]
    this.#count(lines, 1)
  }

  /** The lines the table started from. */
  get base(): readonly Line[] {
    return this.#base
  }

  get length(): number {
    return this.#starts[this.#pieces.length] as number
  }

  /** The terminator most current lines use ('\n' on ties and when none has one). */
  dominant(): Exclude<Eol, ''> {
    return this.#crlf > this.#lf ? '\r\n' : '\n'
  }

  line(i: number): Line {
    const p = this.#pieceAt(i)
    const piece = this.#pieces[p] as Piece
    const offset = i - (this.#starts[p] as number)
    return (piece.fresh === null ? this.#base[piece.from + offset] : piece.fresh[offset]) as Line
  }

  /** Current lines [start, end), clipped to the table. */
  lines(start: number, end: number): Line[] {
    const out: Line[] = []
    this.#each(start, end, (lines, from, to) => {
      for (let k = from; k < to; k++) out.push(lines[k] as Line)
    })
    return out
  }

  /** The texts of current lines [start, end), clipped to the table. */
  texts(start: number, end: number): string[] {
    const out: string[] = []
    this.#each(start, end, (lines, from, to) => {
      for (let k = from; k < to; k++) out.push((lines[k] as Line).text)
    })
    return out
  }

  /** Every current line; untouched lines are the base's own objects. */
  toLines(): Line[] {
    const parts: (readonly Line[])[] = []
    for (const piece of this.#pieces) {
      parts.push(piece.fresh ?? this.#base.slice(piece.from, piece.to))
    }
    return ([] as Line[]).concat(...parts)
  }

  /** The pieces in order, as plain data: base ranges and fresh lines. */
  pieces(): readonly ({ from: number; to: number } | { fresh: readonly Line[] })[] {
    return this.#pieces.map((p) =>
      p.fresh === null ? { from: p.from, to: p.to } : { fresh: p.fresh },
    )
  }

  /** Line i's key under `pass` (normalizeLine of its text). */
  key(i: number, pass: MatchPass): string {
    const p = this.#pieceAt(i)
    const piece = this.#pieces[p] as Piece
    const offset = i - (this.#starts[p] as number)
    if (piece.fresh === null) return this.#baseKey(piece.from + offset, pass)
    return this.#keysOfFresh(piece, pass)[offset] as string
  }

  /** Ascending current indices of the lines whose key under `pass` is `key`. */
  find(pass: MatchPass, key: string): number[] {
    const scans = this.#scans.get(pass) ?? 0
    if (scans < SCANS_BEFORE_MAP) {
      this.#scans.set(pass, scans + 1)
      return this.#scan(pass, key)
    }
    const positions = this.#positionsOf(pass).get(key) ?? []
    const fromBase: number[] = []
    const fromFresh: number[] = []
    const pieces = this.#pieces
    if (positions.length < pieces.length) {
      // Few base lines hold the key: place each (pieces are ordered by base line).
      for (const o of positions) {
        const p = this.#pieceOfBase(o)
        const piece = pieces[p]
        if (piece !== undefined && piece.fresh === null && o < piece.to) {
          fromBase.push((this.#starts[p] as number) + o - piece.from)
        }
      }
    }
    for (let p = 0; p < pieces.length; p++) {
      const piece = pieces[p] as Piece
      const start = this.#starts[p] as number
      if (piece.fresh !== null) {
        const keys = this.#keysOfFresh(piece, pass)
        for (let k = 0; k < keys.length; k++) if (keys[k] === key) fromFresh.push(start + k)
      } else if (positions.length >= pieces.length) {
        for (let j = lowerBound(positions, piece.from); j < positions.length; j++) {
          const o = positions[j] as number
          if (o >= piece.to) break
          fromBase.push(start + o - piece.from)
        }
      }
    }
    return fromFresh.length === 0 ? fromBase : mergeSorted(fromBase, fromFresh)
  }

  /**
   * The index in [from, to) of the key held by the fewest base lines, once the positions map for
   * `pass` exists; null before (counting would cost a scan per key).
   */
  rarest(pass: MatchPass, keys: readonly string[], from: number, to: number): number | null {
    if ((this.#scans.get(pass) ?? 0) < SCANS_BEFORE_MAP) return null
    const positions = this.#positionsOf(pass)
    let best = from
    let fewest = Infinity
    for (let j = from; j < to; j++) {
      const count = positions.get(keys[j] as string)?.length ?? 0
      if (count < fewest) {
        fewest = count
        best = j
      }
    }
    return best
  }

  /** Whether current lines s, s + 1, ... have `keys` under `pass` (all inside the table). */
  hasKeysAt(s: number, keys: readonly string[], pass: MatchPass): boolean {
    let p = this.#pieceAt(s)
    let offset = s - (this.#starts[p] as number)
    for (let j = 0; j < keys.length; j++) {
      let piece = this.#pieces[p]
      if (piece === undefined) return false
      let size = piece.fresh?.length ?? piece.to - piece.from
      while (offset >= size) {
        offset -= size
        piece = this.#pieces[++p]
        if (piece === undefined) return false
        size = piece.fresh?.length ?? piece.to - piece.from
      }
      const key =
        piece.fresh === null
          ? this.#baseKey(piece.from + offset, pass)
          : this.#keysOfFresh(piece, pass)[offset]
      if (key !== keys[j]) return false
      offset++
    }
    return true
  }

  /**
   * Replaces current lines [start, end) with `fresh`. Lines equal to the ones they replace at
   * either end are left in place, so the regions stay tight and untouched base lines stay base.
   */
  replace(start: number, end: number, fresh: readonly Line[]): void {
    if (start < 0 || end < start || end > this.length) {
      throw new Error(`LineTable: cannot replace lines ${start}-${end} of ${this.length}`)
    }
    let head = 0
    while (
      head < fresh.length &&
      start + head < end &&
      sameLine(this.line(start + head), fresh[head] as Line)
    ) {
      head++
    }
    let tail = 0
    while (
      tail < fresh.length - head &&
      end - tail > start + head &&
      sameLine(this.line(end - 1 - tail), fresh[fresh.length - 1 - tail] as Line)
    ) {
      tail++
    }
    const from = start + head
    const to = end - tail
    const lines = fresh.slice(head, fresh.length - tail)
    if (from === to && lines.length === 0) return
    this.#count(this.lines(from, to), -1)
    this.#count(lines, 1)

    const first = this.#split(from)
    const last = this.#split(to)
    const removed = this.#pieces.slice(first, last)
    // Fresh lines sit where the first replaced base line was (or after the base before them).
    const at =
      removed.find((p) => p.fresh === null)?.from ??
      removed[0]?.from ??
      this.#pieces[first]?.from ??
      this.#base.length
    const inserted: Piece[] = lines.length === 0 ? [] : [{ from: at, to: at, fresh: lines }]
    this.#pieces.splice(first, last - first, ...inserted)
    // Base pieces left adjacent by a deletion join again, so a search of the base text sees them
    // as one run (baseRun) and no region is reported between them.
    let from0 = first
    const before = this.#pieces[first - 1]
    const after = this.#pieces[first]
    if (inserted.length === 0 && before?.fresh === null && after?.fresh === null) {
      if (before.to === after.from) {
        this.#pieces.splice(first - 1, 2, { from: before.from, to: after.to, fresh: null })
        from0 = first - 1
      }
    }
    const starts = this.#starts
    starts.length = from0 + 1
    for (let p = from0; p < this.#pieces.length; p++) {
      const piece = this.#pieces[p] as Piece
      starts.push((starts[p] as number) + (piece.fresh?.length ?? piece.to - piece.from))
    }
  }

  /**
   * The current index of base line `a` when base lines a..b (inclusive) are all still in the
   * table, unchanged and adjacent; -1 otherwise.
   */
  baseRun(a: number, b: number): number {
    const p = this.#pieceOfBase(a)
    if (p < 0) return -1
    const piece = this.#pieces[p] as Piece
    if (piece.fresh !== null || a >= piece.to || b >= piece.to) return -1
    return (this.#starts[p] as number) + (a - piece.from)
  }

  /**
   * Ascending current starts i whose lines [i, i + span] include a fresh line or two lines that
   * were not adjacent in the base: where a search of the base text cannot see a match.
   */
  startsNearEdits(span: number): number[] {
    const ranges: [number, number][] = []
    for (let p = 0; p < this.#pieces.length; p++) {
      const piece = this.#pieces[p] as Piece
      const start = this.#starts[p] as number
      if (piece.fresh !== null) ranges.push([start - span, start + piece.fresh.length - 1])
      else if (p > 0) ranges.push([start - span, start - 1])
    }
    const out: number[] = []
    const total = this.length
    let next = 0
    for (const [lo, hi] of ranges) {
      for (let i = Math.max(lo, next, 0); i <= hi && i < total; i++) out.push(i)
      next = Math.max(next, hi + 1)
    }
    return out
  }

  /** The changed spans, in order: what differs between the base and the current lines. */
  regions(): TableRegion[] {
    const regions: TableRegion[] = []
    let oldPos = 0
    let newPos = 0
    let open = false
    let regionNew = 0
    for (const piece of this.#pieces) {
      if (piece.fresh !== null) {
        newPos += piece.fresh.length
        open = true
        continue
      }
      if (open || piece.from !== oldPos) {
        regions.push({ oldStart: oldPos, oldEnd: piece.from, newStart: regionNew, newEnd: newPos })
      }
      oldPos = piece.to
      newPos += piece.to - piece.from
      regionNew = newPos
      open = false
    }
    if (open || oldPos !== this.#base.length) {
      regions.push({
        oldStart: oldPos,
        oldEnd: this.#base.length,
        newStart: regionNew,
        newEnd: newPos,
      })
    }
    return regions
  }

  // -------------------------------------------------------------------------------------------

  #count(lines: readonly Line[], sign: 1 | -1): void {
    for (const line of lines) {
      if (line.eol === '\n') this.#lf += sign
      else if (line.eol === '\r\n') this.#crlf += sign
    }
  }

  /** The piece holding current line i (pieces.length for i === length). */
  #pieceAt(i: number): number {
    const starts = this.#starts
    let lo = 0
    let hi = this.#pieces.length
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if ((starts[mid] as number) <= i) lo = mid
      else hi = mid - 1
    }
    return lo
  }

  /** The last piece whose `from` is <= a (the one holding base line a, if any), or -1. */
  #pieceOfBase(a: number): number {
    let lo = -1
    let hi = this.#pieces.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if ((this.#pieces[mid] as Piece).from <= a) lo = mid
      else hi = mid - 1
    }
    return lo
  }

  /** Splits the piece holding current line i so a piece starts there; returns that piece's index. */
  #split(i: number): number {
    const p = this.#pieceAt(i)
    if (p >= this.#pieces.length || this.#starts[p] === i) return p
    const piece = this.#pieces[p] as Piece
    const cut = i - (this.#starts[p] as number)
    let left: Piece
    let right: Piece
    if (piece.fresh === null) {
      left = { from: piece.from, to: piece.from + cut, fresh: null }
      right = { from: piece.from + cut, to: piece.to, fresh: null }
    } else {
      left = { from: piece.from, to: piece.to, fresh: piece.fresh.slice(0, cut) }
      right = { from: piece.from, to: piece.to, fresh: piece.fresh.slice(cut) }
    }
    this.#pieces.splice(p, 1, left, right)
    this.#starts.splice(p + 1, 0, i)
    return p + 1
  }

  #each(
    start: number,
    end: number,
    visit: (lines: readonly Line[], from: number, to: number) => void,
  ): void {
    const lo = Math.max(0, start)
    const hi = Math.min(this.length, end)
    if (lo >= hi) return
    for (let p = this.#pieceAt(lo); p < this.#pieces.length; p++) {
      const pieceStart = this.#starts[p] as number
      if (pieceStart >= hi) break
      const piece = this.#pieces[p] as Piece
      const a = Math.max(lo, pieceStart) - pieceStart
      const b = Math.min(hi, this.#starts[p + 1] as number) - pieceStart
      if (piece.fresh === null) visit(this.#base, piece.from + a, piece.from + b)
      else visit(piece.fresh, a, b)
    }
  }

  /** find() before the positions map: one pass over every current line. */
  #scan(pass: MatchPass, key: string): number[] {
    const found: number[] = []
    // PERF: an exact scan reads the lines' own texts; an array of them is built with the map.
    const baseKeys = pass === 'exact' ? null : this.#keysOfBase(pass)
    const base = this.#base
    for (let p = 0; p < this.#pieces.length; p++) {
      const piece = this.#pieces[p] as Piece
      const start = (this.#starts[p] as number) - piece.from
      if (piece.fresh !== null) {
        const keys = this.#keysOfFresh(piece, pass)
        for (let k = 0; k < keys.length; k++)
          if (keys[k] === key) found.push(start + piece.from + k)
      } else if (baseKeys === null) {
        for (let o = piece.from; o < piece.to; o++) {
          if ((base[o] as Line).text === key) found.push(start + o)
        }
      } else {
        for (let o = piece.from; o < piece.to; o++) if (baseKeys[o] === key) found.push(start + o)
      }
    }
    return found
  }

  #baseKey(o: number, pass: MatchPass): string {
    if (pass === 'exact') return (this.#base[o] as Line).text
    return this.#keysOfBase(pass)[o] as string
  }

  #keysOfBase(pass: MatchPass): readonly string[] {
    let keys = this.#baseKeys.get(pass)
    if (keys === undefined) {
      keys = this.#keysOf(this.#base, pass)
      this.#baseKeys.set(pass, keys)
    }
    return keys
  }

  #keysOfFresh(piece: Piece, pass: MatchPass): readonly string[] {
    piece.keys ??= new Map()
    let keys = piece.keys.get(pass)
    if (keys === undefined) {
      keys = this.#keysOf(piece.fresh ?? [], pass)
      piece.keys.set(pass, keys)
    }
    return keys
  }

  #keysOf(lines: readonly Line[], pass: MatchPass): readonly string[] {
    if (pass === 'exact') return lines.map((line) => line.text)
    if (pass === 'fold' && lines === this.#base) {
      // PERF: a plain ASCII line's fold key is its trim key (as in src/match/ladder.ts).
      const trim = this.#keysOfBase('trim')
      return lines.map((line, i) =>
        isPlainLine(line.text) ? (trim[i] as string) : normalizeLine(line.text, pass),
      )
    }
    return lines.map((line) => normalizeLine(line.text, pass))
  }

  #positionsOf(pass: MatchPass): Map<string, number[]> {
    let positions = this.#basePositions.get(pass)
    if (positions === undefined) {
      positions = new Map()
      const keys = this.#keysOfBase(pass)
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string
        const list = positions.get(key)
        if (list === undefined) positions.set(key, [i])
        else list.push(i)
      }
      this.#basePositions.set(pass, positions)
    }
    return positions
  }
}
