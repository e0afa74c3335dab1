// The bounded regex searcher (src/engine/regex-search.ts, D-091): node:vm's timeout really
// interrupts a catastrophically backtracking RegExp on this Node, and matches come back as plain
// data of this realm.
import { describe, expect, it } from 'vitest'
import { boundedSearcher, REGEX_TIMEOUT_MS, searchRegex } from '../../../src/engine/regex-search.js'

describe('searchRegex', () => {
  it('interrupts (a+)+$ on 30 a’s and a b within the bound', () => {
    const started = performance.now()
    const result = boundedSearcher(50)(`${'a'.repeat(30)}b`, '(a+)+$', '')
    const took = performance.now() - started
    expect(result).toEqual({ ok: false, timeoutMs: 50 })
    // Unbounded this takes minutes; allow the bound plus generous scheduling slack.
    expect(took).toBeGreaterThanOrEqual(40)
    expect(took).toBeLessThan(2000)
  })

  it('uses a 100 ms bound by default and still answers after a timeout', () => {
    expect(REGEX_TIMEOUT_MS).toBe(100)
    expect(searchRegex(`${'a'.repeat(30)}b`, '(a+)+$', '')).toEqual({ ok: false, timeoutMs: 100 })
    expect(searchRegex('a1 b2', '(\\w)(\\d)', '')).toMatchObject({ ok: true })
  })

  it('returns every match with captures, unmatched groups as undefined, named groups', () => {
    const result = searchRegex('a1 b c3', '(?<l>[a-z])(\\d)?', '')
    expect(result).toEqual({
      ok: true,
      matches: [
        { start: 0, end: 2, captures: ['a', '1'], named: { l: 'a' } },
        { start: 3, end: 4, captures: ['b', undefined], named: { l: 'b' } },
        { start: 5, end: 7, captures: ['c', '3'], named: { l: 'c' } },
      ],
    })
    // Plain objects of this realm: they clone and compare like any other data.
    if (!result.ok) throw new Error('expected matches')
    expect(Object.getPrototypeOf(result.matches[0])).toBe(Object.prototype)
    expect(structuredClone(result)).toEqual(result)
  })

  it('applies the flags it is given', () => {
    expect(searchRegex('A\nb', '^b', '')).toEqual({ ok: true, matches: [] })
    expect(searchRegex('A\nb', '^b', 'm')).toMatchObject({ ok: true, matches: [{ start: 2 }] })
    expect(searchRegex('A', 'a', 'i')).toMatchObject({ ok: true, matches: [{ start: 0, end: 1 }] })
  })

  it('stops at the first empty match (the core refuses it)', () => {
    const result = searchRegex('x'.repeat(1000), 'y*', '')
    expect(result).toEqual({ ok: true, matches: [{ start: 0, end: 0, captures: [] }] })
  })
})
