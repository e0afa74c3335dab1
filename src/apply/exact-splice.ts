// The common case of a `git diff` hunk, applied to the file's bytes without decoding them (#9):
// every hunk's old side is exactly the file's lines at the line the hunk states, so the general
// path (decode, split into lines, locate, splice, join, encode; apply-hunks.ts) could only place it
// there, unchanged (an exact match where expected wins outright, locate.ts) and with nothing to
// restyle. This module answers that case, or null for anything else, and the caller then takes
// the general path; a property test holds the two to the same bytes and counts.
// It applies only when the result cannot depend on what the general path decides from the text:
// the file is UTF-8 (the caller checked it), has no BOM, NUL or CR, and no hunk touches the
// file's last line, inserts without an old side, states a line ending or a missing final newline.
import type { LineHunk } from '../types.js'
import { utf8Encode } from '../text/decode.js'
import { changedLineCounts } from './render-diff.js'

export interface SplicedFile {
  readonly bytes: Uint8Array
  readonly additions: number
  readonly deletions: number
}

const LF = 0x0a
const CR = 0x0d
const NUL = 0x00

export function spliceExact(source: Uint8Array, hunks: readonly LineHunk[]): SplicedFile | null {
  if (hunks.length === 0 || source.indexOf(CR) !== -1 || source.indexOf(NUL) !== -1) return null
  if (source.length >= 3 && source[0] === 0xef && source[1] === 0xbb && source[2] === 0xbf)
    return null
  const starts = lineStarts(source)
  const total = starts.length - 1 // starts has one sentinel entry past the last line
  const pieces: Uint8Array[] = []
  let additions = 0
  let deletions = 0
  let copiedTo = 0 // byte offset up to which the file has been copied
  let cursor = 0 // first line a hunk may start at
  for (const hunk of hunks) {
    if (hunk.oldNoNewlineAtEnd === true || hunk.newNoNewlineAtEnd === true) return null
    const stated = hunk.oldStartLine ?? 0
    const start = stated - 1
    const old: string[] = []
    const added: string[] = []
    for (const line of hunk.lines) {
      if (line.eol !== undefined) return null
      if (line.op !== '+') old.push(line.text)
      if (line.op !== '-') added.push(line.text)
    }
    // The file's last line keeps or loses its terminator by rules of the general path.
    if (old.length === 0 || start < cursor || start + old.length > total - 1) return null
    for (let j = 0; j < old.length; j++) {
      if (!sameLine(source, starts, start + j, old[j] as string)) return null
    }
    pieces.push(source.subarray(copiedTo, starts[start] as number))
    // Context lines are the file's own bytes; added lines end as the file's lines do ('\n').
    let k = start
    for (const line of hunk.lines) {
      if (line.op === '+') pieces.push(utf8Encode(line.text + '\n'))
      else {
        if (line.op === ' ') pieces.push(source.subarray(starts[k] as number, starts[k + 1]))
        k++
      }
    }
    copiedTo = starts[start + old.length] as number
    cursor = start + old.length
    const counts = changedLineCounts(old, added)
    additions += counts.additions
    deletions += counts.deletions
  }
  pieces.push(source.subarray(copiedTo))
  return { bytes: concat(pieces), additions, deletions }
}

/** Byte offset where each line starts, plus one entry at the end of the file. */
function lineStarts(source: Uint8Array): number[] {
  const starts = [0]
  for (let at = source.indexOf(LF); at !== -1; at = source.indexOf(LF, at + 1)) starts.push(at + 1)
  if ((starts[starts.length - 1] as number) !== source.length) starts.push(source.length)
  return starts
}

/** Whether line k of the file (without its '\n') is exactly `text`. */
function sameLine(source: Uint8Array, starts: readonly number[], k: number, text: string): boolean {
  const from = starts[k] as number
  const to = (starts[k + 1] as number) - 1 // the line's '\n'; no hunk reaches the last line
  const bytes = utf8Encode(text)
  if (bytes.length !== to - from) return false
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== source[from + i]) return false
  return true
}

function concat(pieces: readonly Uint8Array[]): Uint8Array {
  let size = 0
  for (const p of pieces) size += p.length
  const out = new Uint8Array(size)
  let at = 0
  for (const p of pieces) {
    out.set(p, at)
    at += p.length
  }
  return out
}
