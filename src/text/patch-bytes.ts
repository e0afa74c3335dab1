// The patch as bytes (#8). A patch that is valid UTF-8 becomes its decoded text, as always. A
// patch that is not keeps every byte: valid UTF-8 sequences decode as usual and each byte of an
// invalid sequence becomes one "raw byte" char, U+DC80..U+DCFF (the lone low surrogate 0xDC00 +
// byte, Python's surrogateescape). A strict UTF-8 decode never yields a lone surrogate, so a raw
// byte cannot be confused with text, and the parsers, which only slice lines, carry raw bytes
// through to the plan unchanged. This module decodes and converts; it does not decide what an
// operation whose text holds raw bytes may do (src/coordinator/patch-text.ts, D-040).

const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
const utf8Encoder = new TextEncoder()

const RAW_BASE = 0xdc00
/** A raw byte char: a lone surrogate in U+DC80..U+DCFF (the `u` flag skips paired halves). */
const RAW_BYTE_RE = /[\udc80-\udcff]/u
/** Any lone surrogate: text that has no UTF-8 encoding. */
const LONE_SURROGATE_RE = /\p{Surrogate}/u

export interface PatchText {
  /** The text the parsers read; raw bytes appear as U+DC80..U+DCFF. */
  readonly text: string
  /** 1-based line of the first byte that is not UTF-8; absent when the patch is valid UTF-8. */
  readonly firstRawLine?: number
}

/** Decodes patch bytes: strict UTF-8 when valid, otherwise UTF-8 with raw-byte chars. */
export function decodePatchBytes(bytes: Uint8Array): PatchText {
  try {
    return { text: utf8Strict.decode(bytes) }
  } catch {
    // Decoded line by line: a '\n' byte never sits inside a UTF-8 sequence, so each line is
    // judged alone and the valid ones take the fast native path.
    const parts: string[] = []
    let firstRawLine: number | undefined
    let line = 1
    let start = 0
    while (start <= bytes.length) {
      const nl = bytes.indexOf(0x0a, start)
      const end = nl === -1 ? bytes.length : nl + 1
      const chunk = bytes.subarray(start, end)
      try {
        parts.push(utf8Strict.decode(chunk))
      } catch {
        firstRawLine ??= line
        parts.push(decodeWithRawBytes(chunk))
      }
      if (nl === -1) break
      start = end
      line++
    }
    return { text: parts.join(''), ...(firstRawLine === undefined ? {} : { firstRawLine }) }
  }
}

/** True when `text` holds a raw byte char (it came from a patch that is not UTF-8 there). */
export function hasRawBytes(text: string): boolean {
  return RAW_BYTE_RE.test(text)
}

/** True when `text` holds a lone surrogate, which no UTF-8 byte sequence decodes to. */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE_RE.test(text)
}

/**
 * The bytes `text` stands for: raw byte chars give their byte, everything else its UTF-8
 * encoding. The exact inverse of decodePatchBytes.
 */
export function rawTextToBytes(text: string): Uint8Array {
  if (!hasRawBytes(text)) return utf8Encoder.encode(text)
  const out: number[] = []
  for (const ch of text) {
    const code = ch.codePointAt(0) as number
    if (code >= 0xdc80 && code <= 0xdcff) out.push(code - RAW_BASE)
    else if (code < 0x80) out.push(code)
    else out.push(...utf8Encoder.encode(ch))
  }
  return Uint8Array.from(out)
}

/** rawTextToBytes as one char per byte (the 'bytes' text mode of src/text/decode.ts). */
export function rawTextToByteChars(text: string): string {
  const bytes = rawTextToBytes(text)
  let out = ''
  const CHUNK = 0x8000
  for (let i = 0; i < bytes.length; i += CHUNK) {
    out += String.fromCharCode(...bytes.subarray(i, i + CHUNK))
  }
  return out
}

/**
 * Byte by byte: a well-formed UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF)
 * decodes to its char; every other byte becomes a raw byte char. Re-encoding gives the input back.
 */
function decodeWithRawBytes(bytes: Uint8Array): string {
  let out = ''
  let i = 0
  while (i < bytes.length) {
    const b = bytes[i] as number
    const length = sequenceLength(bytes, i)
    if (length === 0) {
      out += String.fromCharCode(b < 0x80 ? b : RAW_BASE + b)
      i++
      continue
    }
    out += length === 1 ? String.fromCharCode(b) : utf8Strict.decode(bytes.subarray(i, i + length))
    i += length
  }
  return out
}

/** Length of the well-formed UTF-8 sequence at `i` (1-4), or 0 when the byte there starts none. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i] as number
  if (b < 0x80) return 1
  let length: number
  let low = 0x80
  let high = 0xbf
  if (b >= 0xc2 && b <= 0xdf) length = 2
  else if (b >= 0xe0 && b <= 0xef) {
    length = 3
    if (b === 0xe0) low = 0xa0
    if (b === 0xed) high = 0x9f
  } else if (b >= 0xf0 && b <= 0xf4) {
    length = 4
    if (b === 0xf0) low = 0x90
    if (b === 0xf4) high = 0x8f
  } else return 0
  if (i + length > bytes.length) return 0
  const second = bytes[i + 1] as number
  if (second < low || second > high) return 0
  for (let k = 2; k < length; k++) {
    const c = bytes[i + k] as number
    if (c < 0x80 || c > 0xbf) return 0
  }
  return length
}
