// Unit tests for src/text/lines.ts: which characters end a line in a file (LF and CRLF, never a
// lone CR: git and Codex see it as content) and in patch text.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  dominantEol,
  endsWithNewline,
  joinLines,
  splitLines,
  splitLinesAt,
} from '../../../src/text/lines.js'

describe('splitLines', () => {
  it('ends lines at LF and CRLF and keeps each terminator', () => {
    expect(splitLines('a\nb\r\nc')).toEqual([
      { text: 'a', eol: '\n' },
      { text: 'b', eol: '\r\n' },
      { text: 'c', eol: '' },
    ])
    expect(splitLines('')).toEqual([])
    expect(splitLines('\n\r\n')).toEqual([
      { text: '', eol: '\n' },
      { text: '', eol: '\r\n' },
    ])
  })

  it('keeps a lone CR in the line: mid-line, before a CRLF and at the end of the file', () => {
    expect(splitLines('<p>a\rb</p>\nx\r\r\ny\r')).toEqual([
      { text: '<p>a\rb</p>', eol: '\n' },
      { text: 'x\r', eol: '\r\n' },
      { text: 'y\r', eol: '' },
    ])
  })

  it('reads a classic-Mac CR-only file as one line without a final newline, as git does', () => {
    const lines = splitLines('a\rb\rc\r')
    expect(lines).toEqual([{ text: 'a\rb\rc\r', eol: '' }])
    expect(endsWithNewline(lines)).toBe(false)
  })

  it('splits the way git does and joins back to the same text', () => {
    const text = fc.string({ unit: fc.constantFrom('a', '\r', '\n', ' ') })
    fc.assert(
      fc.property(text, (t) => {
        const lines = splitLines(t)
        expect(joinLines(lines)).toBe(t)
        // git's lines: split after every LF.
        const git = t.split(/(?<=\n)/).filter((part) => part !== '')
        expect(lines.map((l) => l.text + l.eol)).toEqual(git)
      }),
      { seed: 8, numRuns: 500 },
    )
  })
})

describe('dominantEol', () => {
  it('takes the more common of LF and CRLF, preferring LF on a tie', () => {
    expect(dominantEol(splitLines('a\r\nb\r\nc\n'))).toBe('\r\n')
    expect(dominantEol(splitLines('a\r\nb\n'))).toBe('\n')
    expect(dominantEol([])).toBe('\n')
  })

  it('gives LF for a file whose lines end in lone CRs: a lone CR terminates nothing', () => {
    expect(dominantEol(splitLines('a\rb\rc\r'))).toBe('\n')
    expect(dominantEol(splitLines('a\rb\r\nc\rd\r\n'))).toBe('\r\n')
  })
})

describe('splitLinesAt', () => {
  it('splits like splitLines and gives each line its start offset', () => {
    const text = fc.array(fc.constantFrom('a', '\n', '\r\n', '\r', 'bc'), { maxLength: 12 })
    fc.assert(
      fc.property(text, (parts) => {
        const joined = parts.join('')
        const { lines, starts } = splitLinesAt(joined)
        expect(lines).toEqual(splitLines(joined))
        expect(starts.length).toBe(lines.length + 1)
        lines.forEach((line, i) => {
          expect(joined.slice(starts[i], starts[i + 1])).toBe(line.text + line.eol)
        })
        expect(starts[lines.length]).toBe(joined.length)
      }),
    )
  })
})
