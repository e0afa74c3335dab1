// Unit tests for src/match/text-search.ts: the LF view and its offset mapping over mixed line
// endings, which applyStringEdits relies on but only shows through whole edits.
import { describe, expect, it } from 'vitest'
import {
  disjointStarts,
  eolsIn,
  exactSpans,
  findLenientInLine,
  findWholeLines,
  lineAt,
  occurrences,
  toDoc,
  toTextOffset,
  wholeLines,
} from '../../../src/match/text-search.js'

describe('toDoc', () => {
  it('writes every terminator as LF in the view and keeps a missing final newline missing', () => {
    const doc = toDoc('a\r\nb\nc\r\nd')
    expect(doc.view).toBe('a\nb\nc\nd')
    expect(doc.viewStarts).toEqual([0, 2, 4, 6, 7])
    expect(doc.textStarts).toEqual([0, 3, 5, 8, 9])
    expect(doc.texts).toEqual(['a', 'b', 'c', 'd'])
  })

  it('keeps a lone CR as content in the view and the texts (#8)', () => {
    const doc = toDoc('a\rb\nc\r\r\nd\r')
    expect(doc.view).toBe('a\rb\nc\r\nd\r')
    expect(doc.texts).toEqual(['a\rb', 'c\r', 'd\r'])
    expect(doc.textStarts).toEqual([0, 4, 8, 10])
    expect(doc.dominant).toBe('\n')
  })
})

describe('lineAt and toTextOffset', () => {
  it('map view offsets back to 0-based lines and text offsets before each terminator', () => {
    const doc = toDoc('ab\r\ncd\r\n')
    expect(lineAt(doc, 0)).toBe(0)
    expect(lineAt(doc, 2)).toBe(0)
    expect(lineAt(doc, 3)).toBe(1)
    expect(lineAt(doc, doc.view.length)).toBe(2)
    expect(toTextOffset(doc, 2)).toBe(2)
    expect(toTextOffset(doc, 3)).toBe(4)
    expect(toTextOffset(doc, doc.view.length)).toBe(doc.text.length)
  })
})

describe('eolsIn', () => {
  it('lists the file terminators of the LFs inside a view range, in order', () => {
    const doc = toDoc('a\r\nb\rc\nd')
    expect(eolsIn(doc, 0, doc.view.length)).toEqual(['\r\n', '\n'])
    expect(eolsIn(doc, 2, 6)).toEqual(['\n'])
  })
})

describe('occurrences', () => {
  it('returns non-overlapping start offsets', () => {
    expect(occurrences('aaaa', 'aa')).toEqual([0, 2])
    expect(occurrences('abc', 'x')).toEqual([])
  })
})

describe('exactSpans', () => {
  it('returns one span per distinct line range holding the needle', () => {
    const doc = toDoc('x x\r\ny\r\nx\n')
    expect(exactSpans(doc, 'x')).toEqual([
      [0, 0],
      [2, 2],
    ])
    expect(exactSpans(doc, 'x\ny')).toEqual([[0, 1]])
  })
})

describe('wholeLines', () => {
  it('treats one trailing line break as optional, normalises CRLF and keeps a lone CR', () => {
    expect(wholeLines('a\r\nb\r\n')).toEqual(['a', 'b'])
    expect(wholeLines('a\rb')).toEqual(['a\rb'])
    expect(wholeLines('a\r\r\n')).toEqual(['a\r'])
    expect(wholeLines('')).toEqual([])
  })
})

describe('findWholeLines', () => {
  it('finds whole lines through the lenient passes and nothing for an empty block', () => {
    const doc = toDoc('a\n  b  \nc\n')
    expect(findWholeLines(doc, ['b'])).toEqual({ pass: 'trim', starts: [1] })
    expect(findWholeLines(doc, [])).toBeNull()
  })
})

describe('disjointStarts', () => {
  it('drops starts that overlap the previous kept match', () => {
    expect(disjointStarts([0, 1, 2, 3, 5], 2)).toEqual([0, 2, 5])
  })
})

describe('findLenientInLine', () => {
  it('returns the first lenient pass under which the anchor is part of a line', () => {
    const doc = toDoc('let x = 1   \nlet y = 2\n')
    expect(findLenientInLine(doc, 'x = 1  ')).toEqual({ pass: 'trim-end', spans: [[0, 0]] })
    expect(findLenientInLine(doc, 'z')).toBeNull()
  })
})
