// Git's base85 as used by `GIT binary patch` hunks: each line is one length character ('A'-'Z' =
// 1-26 bytes, 'a'-'z' = 27-52 bytes) followed by 5 characters per 4 bytes (big-endian, the last
// group zero-padded). This module only converts text <-> bytes; inflating and applying the data is
// src/apply/git-binary.ts, and finding the lines in a patch is src/parse/unified.ts. Errors carry
// no patchLine: the caller knows where the line came from and adds it.
import { errorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'

const ALPHABET =
  '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~'

/** The most bytes one line may carry ('z'). */
export const BASE85_MAX_LINE_BYTES = 52

// PERF: digits looked up by char code (-1: not base85), not by a Map of one-char strings.
const DIGIT_OF_CODE: Int8Array = (() => {
  const table = new Int8Array(128).fill(-1)
  for (let digit = 0; digit < ALPHABET.length; digit++) table[ALPHABET.charCodeAt(digit)] = digit
  return table
})()

function lineByteCount(lengthChar: string): number | null {
  const code = lengthChar.charCodeAt(0)
  if (code >= 65 && code <= 90) return code - 65 + 1
  if (code >= 97 && code <= 122) return code - 97 + 27
  return null
}

function lengthCharFor(byteCount: number): string {
  return byteCount <= 26
    ? String.fromCharCode(65 + byteCount - 1)
    : String.fromCharCode(97 + byteCount - 27)
}

/** Decodes one base85 line, length character included. */
export function decodeBase85Line(line: string): Result<Uint8Array> {
  const byteCount = line === '' ? null : lineByteCount(line[0] as string)
  if (byteCount === null) {
    return fail(
      errorData(
        'PARSE_BAD_BINARY',
        `Binary patch line "${preview(line)}" has no valid length character.`,
      ),
    )
  }
  const groups = Math.ceil(byteCount / 4)
  const encodedLength = line.length - 1
  if (encodedLength !== groups * 5) {
    return fail(
      errorData(
        'PARSE_BAD_BINARY',
        `Binary patch line "${preview(line)}" should carry ${groups * 5} base85 characters for ${byteCount} bytes but has ${encodedLength}.`,
      ),
    )
  }
  const out = new Uint8Array(groups * 4)
  for (let g = 0, at = 1; g < groups; g++) {
    let acc = 0
    for (let k = 0; k < 5; k++, at++) {
      const code = line.charCodeAt(at)
      const digit = code < 128 ? (DIGIT_OF_CODE[code] as number) : -1
      if (digit < 0) {
        return fail(
          errorData(
            'PARSE_BAD_BINARY',
            `Binary patch line "${preview(line)}" contains "${line[at] as string}", which is not a base85 character.`,
          ),
        )
      }
      acc = acc * 85 + digit
    }
    // Five base85 digits reach 85^5 - 1 > 2^32 - 1; git rejects the overflow, so do we.
    if (acc > 0xffffffff) {
      return fail(
        errorData(
          'PARSE_BAD_BINARY',
          `Binary patch line "${preview(line)}" has a base85 group larger than 32 bits.`,
        ),
      )
    }
    const o = g * 4
    out[o] = acc >>> 24
    out[o + 1] = (acc >>> 16) & 0xff
    out[o + 2] = (acc >>> 8) & 0xff
    out[o + 3] = acc & 0xff
  }
  // The last group's padding bytes are not the line's: a view without them.
  return ok(byteCount === out.length ? out : out.subarray(0, byteCount))
}

/** Decodes consecutive base85 lines and concatenates their bytes. */
export function decodeBase85(lines: readonly string[]): Result<Uint8Array> {
  const parts: Uint8Array[] = []
  let total = 0
  for (const line of lines) {
    const decoded = decodeBase85Line(line)
    if (!decoded.ok) return decoded
    parts.push(decoded.value)
    total += decoded.value.length
  }
  const out = new Uint8Array(total)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return ok(out)
}

/** Encodes bytes as git does: lines of up to 52 bytes, each with its length character. */
export function encodeBase85Lines(bytes: Uint8Array): string[] {
  const lines: string[] = []
  for (let start = 0; start < bytes.length; start += BASE85_MAX_LINE_BYTES) {
    const chunk = bytes.subarray(start, Math.min(start + BASE85_MAX_LINE_BYTES, bytes.length))
    let line = lengthCharFor(chunk.length)
    for (let g = 0; g < chunk.length; g += 4) {
      // Missing bytes of the last group count as zeros; the length character says which are real.
      let acc = 0
      for (let k = 0; k < 4; k++) acc = acc * 256 + (chunk[g + k] ?? 0)
      const digits: string[] = []
      for (let k = 0; k < 5; k++) {
        digits.push(ALPHABET[acc % 85] as string)
        acc = Math.floor(acc / 85)
      }
      line += digits.reverse().join('')
    }
    lines.push(line)
  }
  return lines
}

function preview(line: string): string {
  return line.length > 20 ? `${line.slice(0, 20)}...` : line
}
