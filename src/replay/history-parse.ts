// Reads the output of the one `git log` that git-history.ts runs for a replay: commits with
// their --raw lines and their patch, incrementally, so memory is bounded by one commit's output
// and not by the history's length. Pure (no Node imports): it only slices bytes. It does not run
// git, choose the flags or judge a commit; git-history.ts does that. The grammar is at
// HistoryStreamParser.
import { decodePatchBytes } from '../text/patch-bytes.js'

/** The `--format` given to `git log`: what HistoryStreamParser reads at the start of a commit. */
export const HISTORY_LOG_FORMAT = 'tformat:%x00patchloom %H %P'
const MARKER = Uint8Array.from([0, ...new TextEncoder().encode('patchloom ')])

const LF = 0x0a
const TAB = 0x09
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const OBJECT_ID_RE = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/
const MODE_RE = /^[0-7]{6}$/
const DIFF_GIT = new TextEncoder().encode('diff --git ')

export interface RawChange {
  /** git's status letter: A added, D deleted, M modified, T type change, R renamed, C copied. */
  readonly status: 'A' | 'D' | 'M' | 'T' | 'R' | 'C'
  /** '000000' when added; octal as git prints it: 100644, 100755, 120000, 160000. */
  readonly srcMode: string
  /** '000000' when deleted. */
  readonly dstMode: string
  /** 40 hex, all zeros when added. */
  readonly srcId: string
  /** 40 hex, all zeros when deleted. */
  readonly dstId: string
  /**
   * The path after the change (for D: the deleted path). Unquoted, as bytes decoded as UTF-8;
   * bytes that are not UTF-8 become raw-byte chars (src/text/patch-bytes.ts), as in a patch.
   */
  readonly path: string
  /** R and C: the source path. */
  readonly from?: string
}

export interface HistoryCommit {
  readonly sha: string
  readonly parents: readonly string[]
  /** git's --raw lines for this commit against its first parent (empty for an empty commit). */
  readonly changes: readonly RawChange[]
  /**
   * The commit's diff against its first parent exactly as git printed it (may be empty). A view
   * into a buffer this commit owns alone (its header and raw lines come before it).
   */
  readonly patch: Uint8Array
}

//   output   = commit*
//   commit   = MARKER sha (" " parent)* " "? LF [ LF raw-line+ [ LF patch ] ]
//   raw-line = ":" mode " " mode " " id " " id " " status [score] TAB path [TAB path] LF
//   path     = bytes without TAB or LF | C-quoted "..." (\a \b \t \n \v \f \r \" \\ \ooo)
//   patch    = the bytes up to the next MARKER that starts a line, or the end of the output
//
// MARKER starts with a NUL, which never starts a line of a patch (every patch line starts with a
// header word, a hunk prefix or a base85 length letter), so a NUL after a LF is all the scanner
// looks for; a marker may be split across chunks, and so may everything else.
/**
 * Incremental parser: feed stdout chunks, take complete commits out. A commit comes out when the
 * next one's marker arrives, or at end(); a malformed output throws a plain Error (the caller
 * decides what it means). A class because it holds the partial commit; it never crosses a thread,
 * and what it returns is plain data.
 */
export class HistoryStreamParser {
  /** Bytes of the current commit from its marker on (or before the first marker: nothing). */
  #parts: Uint8Array[] = []
  #size = 0
  /** The byte before the next chunk; the start of the output counts as the start of a line. */
  #last = LF
  /** The tail of the last chunk that may be the start of a split marker. */
  #held: Uint8Array | null = null
  #ended = false

  push(chunk: Uint8Array): HistoryCommit[] {
    if (this.#ended) throw new Error('history-parse: cannot push after end()')
    const out: HistoryCommit[] = []
    let data = chunk
    if (this.#held !== null) {
      data = concat([this.#held, chunk], this.#held.length + chunk.length)
      this.#held = null
    }
    let from = 0
    // PERF: NULs are rare in git's output, so the native indexOf skips almost everything.
    for (let at = data.indexOf(0); at !== -1; at = data.indexOf(0, at + 1)) {
      const before = at === 0 ? this.#last : (data[at - 1] as number)
      if (before !== LF) continue
      const seen = Math.min(MARKER.length, data.length - at)
      if (!startsWith(data, at, MARKER, seen)) continue
      if (seen < MARKER.length) {
        this.#append(data.subarray(from, at))
        this.#last = before
        this.#held = data.slice(at)
        return out
      }
      this.#append(data.subarray(from, at))
      const done = this.#finish()
      if (done !== null) out.push(done)
      from = at
    }
    this.#append(data.subarray(from))
    if (data.length > 0) this.#last = data[data.length - 1] as number
    return out
  }

  end(): HistoryCommit[] {
    if (this.#ended) throw new Error('history-parse: cannot end() twice')
    if (this.#held !== null) this.#append(this.#held)
    this.#held = null
    this.#ended = true
    const done = this.#finish()
    return done === null ? [] : [done]
  }

  #append(bytes: Uint8Array): void {
    if (bytes.length === 0) return
    this.#parts.push(bytes)
    this.#size += bytes.length
  }

  #finish(): HistoryCommit | null {
    const parts = this.#parts
    const size = this.#size
    this.#parts = []
    this.#size = 0
    if (size === 0) return null
    // One copy per byte: the commit owns its buffer, so a caller may transfer it to a worker
    // (stream chunks may share a pooled ArrayBuffer).
    return parseCommit(concat(parts, size))
  }
}

/** One commit's bytes, from its marker to just before the next. */
function parseCommit(buf: Uint8Array): HistoryCommit {
  if (!startsWith(buf, 0, MARKER, MARKER.length)) {
    throw new Error(`history-parse: output does not start with a commit marker: ${preview(buf, 0)}`)
  }
  const headerEnd = lineEnd(buf, 0)
  const fields = ascii(buf, MARKER.length, headerEnd)
    .split(' ')
    .filter((f) => f !== '')
  const [sha, ...parents] = fields
  if (sha === undefined || !fields.every((f) => OBJECT_ID_RE.test(f))) {
    throw new Error(`history-parse: bad commit header: ${preview(buf, 0)}`)
  }
  let at = headerEnd + 1
  const changes: RawChange[] = []
  if (at < buf.length) {
    if (buf[at] !== LF) throw new Error(`history-parse: unexpected line after ${sha}'s header`)
    at++
    while (at < buf.length && buf[at] === COLON) {
      const end = lineEnd(buf, at)
      changes.push(parseRawLine(buf, at, end))
      at = end + 1
    }
    if (at < buf.length) {
      if (buf[at] !== LF)
        throw new Error(`history-parse: unexpected line in ${sha}: ${preview(buf, at)}`)
      at++
    }
  }
  const patch = buf.subarray(Math.min(at, buf.length))
  if (patch.length > 0 && !startsWith(patch, 0, DIFF_GIT, DIFF_GIT.length)) {
    throw new Error(
      `history-parse: ${sha}'s patch does not start with diff --git: ${preview(patch, 0)}`,
    )
  }
  return { sha, parents, changes, patch }
}

/** One --raw line, `start` at its ':' and `end` at its LF (or the end of the buffer). */
function parseRawLine(buf: Uint8Array, start: number, end: number): RawChange {
  const tab = buf.indexOf(TAB, start)
  if (tab === -1 || tab > end)
    throw new Error(`history-parse: bad raw line: ${preview(buf, start)}`)
  const [srcMode, dstMode, srcId, dstId, statusScore] = ascii(buf, start + 1, tab).split(' ')
  const status = statusScore?.[0]
  const ok =
    MODE_RE.test(srcMode ?? '') &&
    MODE_RE.test(dstMode ?? '') &&
    OBJECT_ID_RE.test(srcId ?? '') &&
    OBJECT_ID_RE.test(dstId ?? '') &&
    (status === 'A' ||
      status === 'D' ||
      status === 'M' ||
      status === 'T' ||
      status === 'R' ||
      status === 'C')
  if (!ok) throw new Error(`history-parse: bad raw line: ${preview(buf, start)}`)
  const first = readPath(buf, tab + 1, end)
  const base = {
    status: status as RawChange['status'],
    srcMode: srcMode as string,
    dstMode: dstMode as string,
    srcId: srcId as string,
    dstId: dstId as string,
  }
  if (status === 'R' || status === 'C') {
    if (buf[first.end] !== TAB)
      throw new Error(`history-parse: ${status} needs two paths: ${preview(buf, start)}`)
    const second = readPath(buf, first.end + 1, end)
    if (second.end !== end) throw new Error(`history-parse: bad raw line: ${preview(buf, start)}`)
    return { ...base, path: second.path, from: first.path }
  }
  if (first.end !== end) throw new Error(`history-parse: bad raw line: ${preview(buf, start)}`)
  return { ...base, path: first.path }
}

const ESCAPES: Readonly<Record<number, number>> = {
  0x61: 7, // a
  0x62: 8, // b
  0x74: 9, // t
  0x6e: 10, // n
  0x76: 11, // v
  0x66: 12, // f
  0x72: 13, // r
  0x22: 0x22, // "
  0x5c: 0x5c, // \
}

/**
 * A path at `start`, plain up to a TAB or `end`, or C-quoted. Quoted names are unquoted as bytes
 * (not through src/parse/unified-names.ts's parseName, which takes decoded text: with
 * core.quotePath=false a quoted name may hold raw non-UTF-8 bytes that text cannot carry).
 */
function readPath(buf: Uint8Array, start: number, end: number): { path: string; end: number } {
  if (buf[start] !== QUOTE) {
    let stop = buf.indexOf(TAB, start)
    if (stop === -1 || stop > end) stop = end
    if (stop === start) throw new Error(`history-parse: empty path: ${preview(buf, start)}`)
    return { path: decodePatchBytes(buf.subarray(start, stop)).text, end: stop }
  }
  const bytes: number[] = []
  for (let at = start + 1; at < end;) {
    const c = buf[at] as number
    if (c === QUOTE) return { path: decodePatchBytes(Uint8Array.from(bytes)).text, end: at + 1 }
    if (c !== BACKSLASH) {
      bytes.push(c)
      at++
      continue
    }
    const e = buf[at + 1] as number
    const simple = ESCAPES[e]
    if (simple !== undefined) {
      bytes.push(simple)
      at += 2
      continue
    }
    const o1 = (buf[at + 1] as number) - 0x30
    const o2 = (buf[at + 2] as number) - 0x30
    const o3 = (buf[at + 3] as number) - 0x30
    if (!(o1 >= 0 && o1 <= 3 && o2 >= 0 && o2 <= 7 && o3 >= 0 && o3 <= 7)) break
    bytes.push(o1 * 64 + o2 * 8 + o3)
    at += 4
  }
  throw new Error(`history-parse: badly quoted path: ${preview(buf, start)}`)
}

function lineEnd(buf: Uint8Array, from: number): number {
  const end = buf.indexOf(LF, from)
  return end === -1 ? buf.length : end
}

function startsWith(buf: Uint8Array, at: number, prefix: Uint8Array, count: number): boolean {
  for (let i = 0; i < count; i++) if (buf[at + i] !== prefix[i]) return false
  return true
}

function concat(parts: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

function ascii(buf: Uint8Array, start: number, end: number): string {
  let text = ''
  for (let i = start; i < end; i++) text += String.fromCharCode(buf[i] as number)
  return text
}

/** The line at `at` for an error message: at most 60 chars, NUL shown as \0. */
function preview(buf: Uint8Array, at: number): string {
  const line = decodePatchBytes(buf.subarray(at, Math.min(lineEnd(buf, at), at + 60))).text
  return JSON.stringify(line)
}
