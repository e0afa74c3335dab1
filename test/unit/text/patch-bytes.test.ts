import { describe, expect, it } from 'vitest'
import {
  decodePatchBytes,
  hasLoneSurrogate,
  hasRawBytes,
  rawTextToByteChars,
  rawTextToBytes,
} from '../../../src/text/patch-bytes.js'

const b = (...xs: number[]) => Uint8Array.from(xs)

describe('decodePatchBytes', () => {
  it('decodes valid UTF-8 as usual, BOM kept, no raw line', () => {
    const text = '\ufeffnaïve 💀 €\n'
    expect(decodePatchBytes(new Uint8Array(Buffer.from(text, 'utf8')))).toEqual({ text })
  })

  it('keeps each byte of an invalid sequence as a raw-byte char, valid text around it decoded', () => {
    // line 1 UTF-8 "é", line 2 Latin-1 "é" (0xe9) then UTF-8 "é".
    const decoded = decodePatchBytes(b(0xc3, 0xa9, 0x0a, 0xe9, 0xc3, 0xa9, 0x0a))
    expect(decoded).toEqual({ text: 'é\n\udce9é\n', firstRawLine: 2 })
    expect(hasRawBytes(decoded.text)).toBe(true)
  })

  it.each([
    ['overlong', [0xc0, 0xaf]],
    ['overlong three-byte', [0xe0, 0x80, 0xaf]],
    ['UTF-16 surrogate', [0xed, 0xa0, 0x80]],
    ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['truncated at the end', [0xe2, 0x82]],
    ['lone continuation', [0x80]],
    ['0xff', [0xff]],
  ])('turns a %s sequence into raw bytes, one char each', (_name, seq) => {
    const decoded = decodePatchBytes(b(0x61, ...seq, 0x62))
    expect(decoded.text).toBe(`a${seq.map((x) => String.fromCharCode(0xdc00 + x)).join('')}b`)
  })

  it('round-trips any byte sequence exactly (seeded random bytes)', () => {
    let seed = 8
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256
    for (let round = 0; round < 200; round++) {
      const input = Uint8Array.from({ length: 1 + (round % 40) }, () => {
        const x = next()
        return x < 40 ? 0x0a : x
      })
      const { text } = decodePatchBytes(input)
      expect(rawTextToBytes(text)).toEqual(input)
      expect(Buffer.from(rawTextToByteChars(text), 'latin1')).toEqual(Buffer.from(input))
    }
  })
})

describe('hasRawBytes and hasLoneSurrogate', () => {
  it('does not mistake the low half of a surrogate pair for a raw byte', () => {
    // U+1F480 is \ud83d\udc80: its low half lies in the raw-byte range.
    expect(hasRawBytes('💀')).toBe(false)
    expect(hasLoneSurrogate('💀')).toBe(false)
    expect(hasRawBytes('\udc80')).toBe(true)
    expect(hasLoneSurrogate('a\ud800b')).toBe(true)
  })
})

describe('rawTextToBytes', () => {
  it('encodes text without raw bytes as UTF-8', () => {
    expect(rawTextToBytes('é💀')).toEqual(new Uint8Array(Buffer.from('é💀', 'utf8')))
  })
})
