// Unit tests for src/parse/base85.ts: git's alphabet and line format, checked against a line git
// wrote, a round-trip property, and every refusal.
import { inflateSync } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  BASE85_MAX_LINE_BYTES,
  decodeBase85,
  decodeBase85Line,
  encodeBase85Lines,
} from '../../../src/parse/base85.js'

function decoded(line: string): Uint8Array {
  const result = decodeBase85Line(line)
  if (!result.ok) throw new Error(result.error.message)
  return result.value
}

describe('decodeBase85Line', () => {
  it('decodes a line git wrote for a 6-byte file', () => {
    // `git diff --binary` of a new file holding 01 02 00 'a' 'b' 'c'.
    const bytes = decoded('NcmZQ%Vn|F%1^@zJ0V)6h')
    expect(bytes).toHaveLength(14)
    expect(new Uint8Array(inflateSync(bytes))).toEqual(Uint8Array.from([1, 2, 0, 97, 98, 99]))
  })

  it('decodes the empty-file literal git writes for an empty side', () => {
    expect(new Uint8Array(inflateSync(decoded('HcmV?d00001')))).toEqual(new Uint8Array(0))
  })

  it('reads the length character: A-Z as 1-26 bytes, a-z as 27-52', () => {
    expect(decoded('A00000')).toEqual(Uint8Array.from([0]))
    expect(decoded(`Z${'0'.repeat(35)}`)).toHaveLength(26)
    expect(decoded(`a${'0'.repeat(35)}`)).toHaveLength(27)
    expect(decoded(`z${'0'.repeat(65)}`)).toHaveLength(52)
  })

  it('decodes the largest 32-bit group and refuses one past it', () => {
    expect(decoded('D|NsC0')).toEqual(Uint8Array.from([0xff, 0xff, 0xff, 0xff]))
    expect(decodeBase85Line('D|NsC1')).toMatchObject({
      ok: false,
      error: { code: 'PARSE_BAD_BINARY' },
    })
    expect(decodeBase85Line('D~~~~~')).toMatchObject({
      ok: false,
      error: { code: 'PARSE_BAD_BINARY' },
    })
  })

  it('refuses a missing or invalid length character', () => {
    for (const line of ['', '100000', '#00000', ' 00000']) {
      const result = decodeBase85Line(line)
      expect(result).toMatchObject({ ok: false, error: { code: 'PARSE_BAD_BINARY' } })
    }
  })

  it('refuses a line whose character count does not fit its length character', () => {
    const result = decodeBase85Line('B0000')
    expect(result).toMatchObject({ ok: false, error: { code: 'PARSE_BAD_BINARY' } })
    expect(!result.ok && result.error.message).toContain('5 base85 characters')
    expect(decodeBase85Line('A000000')).toMatchObject({ ok: false })
  })

  it("refuses characters outside git's alphabet", () => {
    for (const bad of ['"', "'", ',', '.', '/', ':', '[', '\\', ']', ' ', '\0', 'é', '\u0130']) {
      const result = decodeBase85Line(`A0000${bad}`)
      expect([bad, result.ok]).toEqual([bad, false])
      if (!result.ok) expect(result.error.message).toContain(`contains "${bad}"`)
    }
  })
})

describe('decodeBase85', () => {
  it('concatenates the bytes of several lines', () => {
    const bytes = Uint8Array.from({ length: 60 }, (_, i) => i * 3)
    const lines = encodeBase85Lines(bytes)
    expect(lines).toHaveLength(2)
    expect(decodeBase85(lines)).toEqual({ ok: true, value: bytes })
  })

  it('gives empty bytes for no lines', () => {
    expect(decodeBase85([])).toEqual({ ok: true, value: new Uint8Array(0) })
  })

  it('stops at the first bad line', () => {
    expect(decodeBase85(['A00000', 'A0000'])).toMatchObject({
      ok: false,
      error: { code: 'PARSE_BAD_BINARY' },
    })
  })
})

describe('encodeBase85Lines', () => {
  it("writes lines of at most 52 bytes with git's length characters", () => {
    const lines = encodeBase85Lines(new Uint8Array(BASE85_MAX_LINE_BYTES * 2 + 1))
    expect(lines.map((line) => [line[0], line.length])).toEqual([
      ['z', 66],
      ['z', 66],
      ['A', 6],
    ])
  })

  it('reproduces the line git wrote', () => {
    expect(encodeBase85Lines(decoded('NcmZQ%Vn|F%1^@zJ0V)6h'))).toEqual(['NcmZQ%Vn|F%1^@zJ0V)6h'])
  })

  it('round-trips any bytes through decodeBase85', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        expect(decodeBase85(encodeBase85Lines(bytes))).toEqual({ ok: true, value: bytes })
      }),
    )
  })
})
