// decodeText: which files are text (UTF-8 without NUL) and which are handled byte per char, and
// why; the BOM is remembered only for text.
import { describe, expect, it } from 'vitest'
import { decodeText, encodeText } from '../../../src/text/decode.js'

const bytes = (...values: number[]) => new Uint8Array(values)
const BOM = [0xef, 0xbb, 0xbf]

describe('decodeText', () => {
  it('reads UTF-8 without NUL as text, remembering a BOM', () => {
    expect(decodeText(bytes(0x68, 0xc3, 0xa9, 0x0a))).toEqual({
      mode: 'utf8',
      bom: false,
      text: 'hé\n',
    })
    expect(decodeText(bytes(...BOM, 0x61))).toEqual({ mode: 'utf8', bom: true, text: 'a' })
  })

  it('reads a file with a NUL byte per byte, BOM and all, and says why', () => {
    expect(decodeText(bytes(0x61, 0x00, 0x62))).toEqual({
      mode: 'bytes',
      bom: false,
      text: 'a\0b',
      reason: 'nul',
    })
    const withBom = decodeText(bytes(...BOM, 0x00))
    expect(withBom).toMatchObject({ mode: 'bytes', bom: false, reason: 'nul' })
    expect(withBom.text).toBe('\xef\xbb\xbf\0')
  })

  it('names NUL as the reason when the bytes are not UTF-8 either', () => {
    expect(decodeText(bytes(0xff, 0x00))).toMatchObject({ mode: 'bytes', reason: 'nul' })
    expect(decodeText(bytes(0xff, 0x61))).toEqual({
      mode: 'bytes',
      bom: false,
      text: '\xffa',
      reason: 'invalid-utf8',
    })
  })

  it('round-trips any bytes through its mode', () => {
    for (const input of [bytes(...BOM, 0x61, 0x0a), bytes(0x00, 0xff, 0x0d), bytes(0xc3, 0xa9)]) {
      const decoded = decodeText(input)
      expect(encodeText(decoded.text, decoded.mode, decoded.bom)).toEqual(input)
    }
  })
})
