import { describe, expect, it } from 'vitest'
import { findCandidates, lineSimilarity, previewOf } from '../../../src/match/candidates.js'

describe('lineSimilarity', () => {
  it('is 1 for equal strings and 0 for unrelated ones', () => {
    expect(lineSimilarity('abc', 'abc')).toBe(1)
    expect(lineSimilarity('abcd', 'wxyz')).toBe(0)
    expect(lineSimilarity('a', 'b')).toBe(0)
  })

  it('scores near misses between 0 and 1', () => {
    const s = lineSimilarity('const value = compute(a, b)', 'const value = compute(a, c)')
    expect(s).toBeGreaterThan(0.8)
    expect(s).toBeLessThan(1)
  })
})

describe('previewOf', () => {
  it('returns the first non-blank line, trimmed and shortened to 80 chars', () => {
    expect(previewOf(['', '   ', '  hello  '], 0, 3)).toBe('hello')
    expect(previewOf(['x'.repeat(100)], 0, 1)).toHaveLength(80)
    expect(previewOf(['', ''], 0, 2)).toBe('')
  })
})

describe('findCandidates', () => {
  const file = [
    'function a() {',
    '  return 1',
    '}',
    '',
    'function b() {',
    '  return 2',
    '}',
    '',
    'function c() {',
    '  return 3 + 4',
    '}',
  ]

  it('ranks the region with the most matching lines first', () => {
    const candidates = findCandidates(file, ['function b() {', '  return 22', '}'])
    expect(candidates[0]).toMatchObject({ fileLine: 5, preview: 'function b() {' })
    expect(candidates[0]?.score).toBeGreaterThan(0.8)
    expect(candidates[0]?.score).toBeLessThan(1)
  })

  it('scores an identical-after-folding region as 1 with two decimals at most', () => {
    const candidates = findCandidates(['x', 'say \u201chi\u201d', 'y'], ['say "hi"'])
    expect(candidates[0]).toEqual({ fileLine: 2, score: 1, preview: 'say \u201chi\u201d' })
    for (const c of findCandidates(file, ['function b() {', 'return 7'])) {
      expect(Math.round(c.score * 100) / 100).toBe(c.score)
      expect(c.score).toBeGreaterThan(0)
      expect(c.score).toBeLessThanOrEqual(1)
    }
  })

  it('returns at most max candidates, best first, without overlapping regions', () => {
    const candidates = findCandidates(file, ['function x() {', '  return 0', '}'], 2)
    expect(candidates).toHaveLength(2)
    expect(candidates[0]!.score).toBeGreaterThanOrEqual(candidates[1]!.score)
    expect(Math.abs(candidates[0]!.fileLine - candidates[1]!.fileLine)).toBeGreaterThanOrEqual(3)
  })

  it('falls back to single-line similarity when no line matches', () => {
    const candidates = findCandidates(file, ['  retrun 3 + 4'])
    expect(candidates[0]).toMatchObject({ fileLine: 10, preview: 'return 3 + 4' })
  })

  it('still proposes regions when the block is made of very common lines', () => {
    const common = Array.from({ length: 600 }, (_, i) => (i % 2 === 0 ? '}' : 'x()'))
    expect(findCandidates(common, ['}', 'y()']).length).toBeGreaterThan(0)
  })

  it('returns nothing for an empty block, an empty file or nothing similar', () => {
    expect(findCandidates(file, [])).toEqual([])
    expect(findCandidates([], ['a'])).toEqual([])
    expect(findCandidates(['abc'], ['zzzzzzzz'])).toEqual([])
  })

  it('stays fast on a 20k-line file, with and without voting lines', () => {
    const big = Array.from(
      { length: 20_000 },
      (_, i) => `  item_${i}: compute(${i}, ${(i * 7) % 13})`,
    )
    const t0 = performance.now()
    const voted = findCandidates(big, ['  item_15000: compute(15000, 12)', '  item_15001: nope'])
    const fallback = findCandidates(big, ['  itme_12345: compute(12345, 8)'])
    expect(performance.now() - t0).toBeLessThan(3_000)
    expect(voted[0]?.fileLine).toBe(15_001)
    expect(fallback[0]?.fileLine).toBe(12_346)
  })
})
