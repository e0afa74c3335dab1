// Unit tests for src/match/text-search.ts: exact spans, whole lines and lenient in-line hits over
// mixed line endings, which applyStringEdits relies on but only shows through whole edits.
import { describe, expect, it } from 'vitest'
import {
  disjointStarts,
  EditDoc,
  exactSpans,
  findLenientInLine,
  findWholeLines,
  wholeLines,
} from '../../../src/match/text-search.js'

describe('exactSpans', () => {
  it('returns one span per distinct line range holding the needle', () => {
    const doc = new EditDoc('x x\r\ny\r\nx\n')
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
    const doc = new EditDoc('a\n  b  \nc\n')
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
    const doc = new EditDoc('let x = 1   \nlet y = 2\n')
    expect(findLenientInLine(doc, 'x = 1  ')).toEqual({ pass: 'trim-end', spans: [[0, 0]] })
    expect(findLenientInLine(doc, 'z')).toBeNull()
  })
})
