import { describe, expect, it } from 'vitest'
import { patchTextOf } from '../../../src/bytes/patch-input.js'
import { decodePatchBytes, rawTextToBytes } from '../../../src/text/patch-bytes.js'

describe('patchTextOf', () => {
  it('decodes bytes, keeping what is not UTF-8 as raw-byte chars', () => {
    expect(patchTextOf(Uint8Array.from([0x61, 0xe9, 0x0a]), 100)).toEqual({
      text: 'a\udce9\n',
      firstRawLine: 1,
    })
  })

  it('gives the same text as the portable decoder (Node fast path keeps raw bytes)', () => {
    const bytes = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256)
    const fast = patchTextOf(bytes, 10_000)
    expect(fast).toEqual(decodePatchBytes(bytes))
    expect(rawTextToBytes(fast.text)).toEqual(bytes)
  })

  it('refuses bytes over the limit from their length', () => {
    expect(() => patchTextOf(new Uint8Array(11), 10)).toThrow(
      expect.objectContaining({ code: 'LIMIT_PATCH_TOO_LARGE' }),
    )
    expect(patchTextOf(new Uint8Array(10), 10).text).toHaveLength(10)
  })

  it('refuses a string with an unpaired surrogate rather than writing U+FFFD for it', () => {
    expect(() => patchTextOf('*** Begin Patch\n+\udce9\n', 100)).toThrow(
      expect.objectContaining({ code: 'PARSE_BAD_ENCODING' }),
    )
    expect(patchTextOf('+💀\n', 100)).toEqual({ text: '+💀\n' })
  })

  it('vouches for bytes that are ASCII without CR or NUL, and only for those', () => {
    const bytes = (text: string) => new TextEncoder().encode(text)
    expect(patchTextOf(bytes('-a\n+b\n'), 100).plain).toBe(true)
    for (const text of ['-a\r\n+b\r\n', '-a\0\n', '-caf\u00e9\n'])
      expect(patchTextOf(bytes(text), 100).plain).toBeUndefined()
    // A string is not scanned here: its runs look for themselves.
    expect(patchTextOf('-a\n+b\n', 100).plain).toBeUndefined()
  })

  it('cuts model stop tokens from the end of a string or of bytes, and says which', () => {
    const bytes = (text: string) => new TextEncoder().encode(text)
    // The line the token was glued to is ended: the model finished it.
    const want = { text: '-a\n+b\n', stopTokens: { tokens: ['<|endoftext|>'], line: 2 } }
    expect(patchTextOf('-a\n+b<|endoftext|>\n', 100)).toEqual(want)
    expect(patchTextOf(bytes('-a\n+b<|endoftext|>\n'), 100)).toEqual({ ...want, plain: true })
    // Bytes that are not UTF-8 before it stay raw bytes, on the line they were.
    expect(patchTextOf(Uint8Array.from([0xe9, 0x0a, ...bytes('+b<|im_end|>')]), 100)).toEqual({
      text: '\udce9\n+b\n',
      firstRawLine: 1,
      stopTokens: { tokens: ['<|im_end|>'], line: 2 },
    })
    // Git's own diffs (history replay) are read as they are.
    expect(patchTextOf('+b<|endoftext|>', 100, { keepStopTokens: true })).toEqual({
      text: '+b<|endoftext|>',
    })
  })

  it('ends the glued line as the lines before it end', () => {
    expect(patchTextOf('-a\r\n+b<|im_end|>', 100).text).toBe('-a\r\n+b\r\n')
    expect(patchTextOf('-a\r\n+b\r<|im_end|>', 100).text).toBe('-a\r\n+b\r\n')
    expect(patchTextOf('+b\n<|im_end|>', 100).text).toBe('+b\n')
  })

  it('refuses anything but a string or bytes', () => {
    expect(() => patchTextOf(42, 100)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }))
  })
})
