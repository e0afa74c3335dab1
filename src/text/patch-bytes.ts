// The patch as bytes. A patch that is valid UTF-8 becomes its decoded text, as always. A
// patch that is not keeps every byte: valid UTF-8 sequences decode as usual and each byte of an
// invalid sequence becomes one "raw byte" char, U+DC80..U+DCFF (the lone low surrogate 0xDC00 +
// byte, Python's surrogateescape). A strict UTF-8 decode never yields a lone surrogate, so a raw
// byte cannot be confused with text, and the parsers, which only slice lines, carry raw bytes
// through to the plan unchanged. This module decodes and converts; what an operation whose text
// holds raw bytes may do is decided in src/parse/raw-bytes.ts and src/apply/compute.ts (D-040).

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
  /**
   * Every char is ASCII other than CR and NUL, as the bytes were checked (patch-input.ts); the
   * runs of such a patch need not look for others (src/parse/plain-section.ts). Absent: unknown.
   */
  readonly plain?: true
  /**
   * Model stop tokens cut from the end (src/text/stop-tokens.ts): which, and the 1-based line the
   * first stood on. `text` is then what stood before them. Absent: none were cut.
   */
  readonly stopTokens?: { readonly tokens: readonly string[]; readonly line: number }
}

/** Turns UTF-16 code units into a string, lone surrogates kept. */
export type UnitsToString = (units: Uint16Array) => string

/**
 * Decodes patch bytes: strict UTF-8 when valid, otherwise UTF-8 with raw-byte chars.
 * `unitsToString` lets a Node caller pass a faster conversion than the portable default
 * (src/bytes/patch-input.ts); it must keep lone surrogates (WHATWG 'utf-16le' does not).
 */
export function decodePatchBytes(
  bytes: Uint8Array,
  unitsToString: UnitsToString = portableUnitsToString,
): PatchText {
  try {
    return { text: utf8Strict.decode(bytes) }
  } catch {
    return decodeWithRawBytes(bytes, unitsToString)
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
 * encoding (an unpaired surrogate other than a raw byte cannot occur: patch-input refuses it).
 * The exact inverse of decodePatchBytes.
 */
export function rawTextToBytes(text: string): Uint8Array {
  if (!hasRawBytes(text)) return utf8Encoder.encode(text)
  // PERF: one preallocated buffer, one pass; a 32 MiB Latin-1 Add File stays linear.
  const out = new Uint8Array(text.length * 3)
  let n = 0
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i)
    if (code < 0x80) {
      out[n++] = code
    } else if (code >= 0xdc80 && code <= 0xdcff && !isHighSurrogate(text.charCodeAt(i - 1))) {
      out[n++] = code - RAW_BASE
    } else if (code < 0x800) {
      out[n++] = 0xc0 | (code >> 6)
      out[n++] = 0x80 | (code & 0x3f)
    } else if (isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(i + 1))) {
      code = 0x10000 + ((code - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00)
      out[n++] = 0xf0 | (code >> 18)
      out[n++] = 0x80 | ((code >> 12) & 0x3f)
      out[n++] = 0x80 | ((code >> 6) & 0x3f)
      out[n++] = 0x80 | (code & 0x3f)
    } else {
      out[n++] = 0xe0 | (code >> 12)
      out[n++] = 0x80 | ((code >> 6) & 0x3f)
      out[n++] = 0x80 | (code & 0x3f)
    }
  }
  return out.slice(0, n)
}

/** rawTextToBytes as one char per byte (the 'bytes' text mode of src/text/decode.ts). */
export function rawTextToByteChars(text: string): string {
  return portableUnitsToString(rawTextToBytes(text))
}

/**
 * One pass over the bytes: a well-formed UTF-8 sequence (no overlongs, no surrogates, at most
 * U+10FFFF) becomes its UTF-16 units, every other byte a raw byte char. Re-encoding gives the
 * input back. PERF: no per-line exceptions or string concatenation; a 32 MiB Latin-1 patch
 * decodes in well under a second.
 */
function decodeWithRawBytes(bytes: Uint8Array, unitsToString: UnitsToString): PatchText {
  // At most one unit per byte: a 4-byte sequence gives 2 units.
  const units = new Uint16Array(bytes.length)
  let n = 0
  let firstBad = -1
  let i = 0
  while (i < bytes.length) {
    const b = bytes[i] as number
    if (b < 0x80) {
      units[n++] = b
      i++
      continue
    }
    const length = sequenceLength(bytes, i)
    if (length === 0) {
      if (firstBad === -1) firstBad = i
      units[n++] = RAW_BASE + b
      i++
      continue
    }
    const c1 = (bytes[i + 1] as number) & 0x3f
    if (length === 2) {
      units[n++] = ((b & 0x1f) << 6) | c1
    } else if (length === 3) {
      units[n++] = ((b & 0x0f) << 12) | (c1 << 6) | ((bytes[i + 2] as number) & 0x3f)
    } else {
      const cp =
        ((b & 0x07) << 18) |
        (c1 << 12) |
        (((bytes[i + 2] as number) & 0x3f) << 6) |
        ((bytes[i + 3] as number) & 0x3f)
      units[n++] = 0xd800 + ((cp - 0x10000) >> 10)
      units[n++] = 0xdc00 + ((cp - 0x10000) & 0x3ff)
    }
    i += length
  }
  let line = 1
  for (let k = 0; k < firstBad; k++) if (bytes[k] === 0x0a) line++
  return { text: unitsToString(units.subarray(0, n)), firstRawLine: line }
}

// PERF: apply() in 1024-unit chunks is ~7x faster than spreading 32k-unit chunks (measured on
// 32 MiB: 2 s against 14 s); Node's Buffer 'utf16le' is faster still (patch-input.ts).
function portableUnitsToString(units: Uint16Array | Uint8Array): string {
  const parts: string[] = []
  const CHUNK = 1024
  for (let i = 0; i < units.length; i += CHUNK) {
    parts.push(String.fromCharCode.apply(null, units.subarray(i, i + CHUNK) as unknown as number[]))
  }
  return parts.join('')
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
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
