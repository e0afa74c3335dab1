import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  cachedIndex,
  findLineMatches,
  findLineMatchesIn,
  indexLines,
} from '../../../src/match/ladder.js'

describe('findLineMatches', () => {
  it('finds every exact start in the range', () => {
    const file = ['a', 'b', 'a', 'b', 'c']
    expect(findLineMatches(file, ['a', 'b'], 0, file.length)).toEqual({
      pass: 'exact',
      starts: [0, 2],
    })
  })

  it('respects from and to, including a block that must end before to', () => {
    const file = ['a', 'b', 'a', 'b', 'c']
    expect(findLineMatches(file, ['a', 'b'], 1, 5)).toEqual({ pass: 'exact', starts: [2] })
    expect(findLineMatches(file, ['a', 'b'], 0, 3)).toEqual({ pass: 'exact', starts: [0] })
    expect(findLineMatches(file, ['b', 'c'], 0, 4)).toBeNull()
  })

  it('clamps a range that lies partly outside the file', () => {
    expect(findLineMatches(['x', 'y'], ['y'], -5, 99)).toEqual({ pass: 'exact', starts: [1] })
  })

  it('climbs to trim-end when only trailing whitespace differs', () => {
    expect(findLineMatches(['foo  ', 'bar\t'], ['foo', 'bar'], 0, 2)).toEqual({
      pass: 'trim-end',
      starts: [0],
    })
  })

  it('climbs to trim when indentation differs', () => {
    expect(findLineMatches(['    foo', '    bar'], ['foo', '  bar'], 0, 2)).toEqual({
      pass: 'trim',
      starts: [0],
    })
  })

  it('climbs to fold for curly quotes, Unicode dashes and odd spaces', () => {
    const file = ['say \u201chi\u201d', 'a \u2013 b', 'x\u00a0y', 'it\u2019s']
    expect(findLineMatches(file, ['say "hi"', 'a - b', 'x y', "it's"], 0, 4)).toEqual({
      pass: 'fold',
      starts: [0],
    })
  })

  it('lets the first pass with any hit decide, even if a later pass would find more', () => {
    const file = ['foo', 'foo ', '  foo']
    expect(findLineMatches(file, ['foo'], 0, 3)).toEqual({ pass: 'exact', starts: [0] })
    expect(findLineMatches(file, ['foo '], 0, 3)).toEqual({ pass: 'exact', starts: [1] })
    expect(findLineMatches(file, ['foo  '], 0, 3)).toEqual({ pass: 'trim-end', starts: [0, 1] })
  })

  it('uses only the passes it is given', () => {
    expect(findLineMatches(['  foo'], ['foo'], 0, 1, ['exact'])).toBeNull()
    expect(findLineMatches(['  foo'], ['foo'], 0, 1, ['trim'])).toEqual({
      pass: 'trim',
      starts: [0],
    })
  })

  it('returns null for an empty wanted block and for no match', () => {
    expect(findLineMatches(['a'], [], 0, 1)).toBeNull()
    expect(findLineMatches(['a'], ['zzz'], 0, 1)).toBeNull()
    expect(findLineMatches([], ['a'], 0, 0)).toBeNull()
  })

  it('does not read stale keys after the array is mutated in place', () => {
    const file = ['a', 'b', 'c']
    expect(findLineMatches(file, ['b'], 0, 3)?.starts).toEqual([1])
    file[1] = 'x'
    file[2] = 'b'
    expect(findLineMatches(file, ['b'], 0, 3)?.starts).toEqual([2])
  })

  it('finds blocks in a 20k-line file quickly', () => {
    const file = Array.from({ length: 20_000 }, (_, i) => `  line ${i} = value(${i % 97})`)
    file[19_990] = 'needle()'
    const t0 = performance.now()
    for (let k = 0; k < 50; k++) {
      expect(
        findLineMatches(file, ['needle()', '  line 19991 = value(9)'], 0, file.length),
      ).toEqual({
        pass: 'exact',
        starts: [19_990],
      })
      expect(findLineMatches(file, ['line 5 = value(5)'], 0, file.length)).toEqual({
        pass: 'trim',
        starts: [5],
      })
    }
    expect(performance.now() - t0).toBeLessThan(2_000)
  })
})

describe('indexLines', () => {
  it('snapshots the lines so later mutations do not leak in', () => {
    const file = ['a', 'b']
    const index = indexLines(file)
    file[0] = 'z'
    expect(findLineMatchesIn(index, ['a'], 0, 2)).toEqual({ pass: 'exact', starts: [0] })
  })

  it('builds each pass lazily and reuses it', () => {
    const index = indexLines([' a ', 'b'])
    expect(index.pass('trim')).toBe(index.pass('trim'))
    expect(index.pass('trim').keys).toEqual(['a', 'b'])
    expect(index.pass('trim').positions.get('a')).toEqual([0])
  })
})

describe('cachedIndex', () => {
  it('returns the same index for an unchanged array', () => {
    const file = ['a', 'b']
    expect(cachedIndex(file)).toBe(cachedIndex(file))
  })
})

describe('findLineMatchesIn', () => {
  it('stops after limit starts', () => {
    const index = indexLines(['a', 'a', 'a', 'b', 'a'])
    expect(findLineMatchesIn(index, ['a'], 1, 5, undefined, 1)).toEqual({
      pass: 'exact',
      starts: [1],
    })
    expect(findLineMatchesIn(index, ['a'], 0, 5, undefined, 2)).toEqual({
      pass: 'exact',
      starts: [0, 1],
    })
  })
})

describe('findLineMatches (property)', () => {
  it('finds every slice of a random file at exactly the starts a naive scan finds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', ' a', 'a ', '\u201ca\u201d', '"a"', ''), {
          maxLength: 30,
        }),
        fc.nat(),
        fc.integer({ min: 1, max: 4 }),
        (file, at, length) => {
          if (file.length === 0) return
          const start = at % file.length
          const wanted = file.slice(start, start + length)
          const found = findLineMatches(file, wanted, 0, file.length)
          const naive: number[] = []
          for (let s = 0; s + wanted.length <= file.length; s++) {
            if (wanted.every((w, j) => file[s + j] === w)) naive.push(s)
          }
          expect(found).toEqual({ pass: 'exact', starts: naive })
        },
      ),
    )
  })
})
