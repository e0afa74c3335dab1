// Unit tests for src/text/line-table.ts: a LineTable under random replacements must read like a
// plain array of lines edited with splice (the model), for every query, before and after its
// positions map is built; regions() must describe exactly what changed.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findTableMatches } from '../../../src/match/ladder.js'
import { LineTable } from '../../../src/text/line-table.js'
import type { Line } from '../../../src/text/lines.js'
import { MATCH_PASSES, normalizeLine } from '../../../src/text/normalize.js'
import { fuzzRuns } from '../../helpers/test-mode.js'

/** Thousands of random requests: more than vitest's default on a loaded 2-core machine. */
const PROPERTY_TIMEOUT_MS = 60_000

const line = fc.record({
  text: fc.constantFrom('a', 'b', ' a', 'a ', '', '“q”', '"q"', '\u00a0a'),
  eol: fc.constantFrom<Line['eol']>('\n', '\n', '\r\n'),
})
const lines = fc.array(line, { maxLength: 12 })

/** A replacement drawn as fractions of the table's length at the time it applies. */
const op = fc.record({
  at: fc.nat(),
  span: fc.nat({ max: 3 }),
  fresh: fc.array(line, { maxLength: 3 }),
})

describe('LineTable', () => {
  it(
    'reads like a spliced array after any replacements, before and after its map is built',
    () => {
      fc.assert(
        fc.property(
          lines,
          fc.array(op, { maxLength: 10 }),
          fc.nat({ max: 20 }),
          (base, ops, warm) => {
            const table = new LineTable(base)
            const model = base.slice()
            // Lookups before the edits: enough of them switches the table to its positions map.
            for (let w = 0; w < warm; w++) table.find('exact', 'a')
            for (const { at, span, fresh } of ops) {
              const start = at % (model.length + 1)
              const end = Math.min(model.length, start + span)
              table.replace(start, end, fresh)
              model.splice(start, end - start, ...fresh)
            }
            expect(table.length).toBe(model.length)
            expect(table.toLines()).toEqual(model)
            expect(table.texts(1, model.length - 1)).toEqual(model.slice(1, -1).map((l) => l.text))
            for (let i = 0; i < model.length; i++) expect(table.line(i)).toEqual(model[i])
            const lf = model.filter((l) => l.eol === '\n').length
            const crlf = model.filter((l) => l.eol === '\r\n').length
            expect(table.dominant()).toBe(crlf > lf ? '\r\n' : '\n')
            for (const pass of MATCH_PASSES) {
              for (const key of ['a', '', '"q"', "'q'"]) {
                const want = model.flatMap((l, i) =>
                  normalizeLine(l.text, pass) === key ? [i] : [],
                )
                expect(table.find(pass, key)).toEqual(want)
              }
            }
            // regions(): outside them the lines are the base's own; inside, the current ones.
            let o = 0
            let n = 0
            for (const r of table.regions()) {
              expect(r.oldStart - o).toBe(r.newStart - n)
              expect(r.oldStart > o || r.oldEnd > r.oldStart || r.newEnd > r.newStart).toBe(true)
              expect(model.slice(n, r.newStart)).toEqual(base.slice(o, r.oldStart))
              o = r.oldEnd
              n = r.newEnd
            }
            expect(model.slice(n)).toEqual(base.slice(o))
          },
        ),
        { numRuns: fuzzRuns(2000, 200) },
      )
    },
    PROPERTY_TIMEOUT_MS,
  )

  it('finds blocks of lines like the ladder, first pass with a hit deciding', () => {
    const base: Line[] = ['x', '  a', 'b', 'a', 'b'].map((text) => ({ text, eol: '\n' }))
    const table = new LineTable(base)
    expect(findTableMatches(table, ['a', 'b'])).toEqual({ pass: 'exact', starts: [3] })
    table.replace(3, 5, [])
    expect(findTableMatches(table, ['a', 'b'])).toEqual({ pass: 'trim', starts: [1] })
    expect(findTableMatches(table, ['a', 'b', 'c'])).toBeNull()
    expect(findTableMatches(table, [])).toBeNull()
  })

  it('keeps lines equal to the ones they replace in place, so regions stay tight', () => {
    const base: Line[] = ['a', 'b', 'c'].map((text) => ({ text, eol: '\n' }))
    const table = new LineTable(base)
    table.replace(0, 3, [base[0]!, { text: 'B', eol: '\n' }, { text: 'c', eol: '\n' }])
    expect(table.regions()).toEqual([{ oldStart: 1, oldEnd: 2, newStart: 1, newEnd: 2 }])
    expect(table.baseRun(0, 0)).toBe(0)
    expect(table.baseRun(1, 1)).toBe(-1)
    expect(table.baseRun(0, 2)).toBe(-1)
  })

  it('reports the starts whose lines touch an edit, and only those', () => {
    const base: Line[] = ['a', 'b', 'c', 'd', 'e', 'f'].map((text) => ({ text, eol: '\n' }))
    const table = new LineTable(base)
    table.replace(3, 3, [{ text: 'new', eol: '\n' }])
    // a b c new d e f: spans of 2 lines touching "new" start at 2 and 3.
    expect(table.startsNearEdits(1)).toEqual([2, 3])
    expect(table.startsNearEdits(0)).toEqual([3])
    table.replace(6, 7, [])
    // a b c new d e: "e" and "d" are still adjacent base lines, "f" is gone.
    expect(table.startsNearEdits(1)).toEqual([2, 3])
    expect(table.regions()).toEqual([
      { oldStart: 3, oldEnd: 3, newStart: 3, newEnd: 4 },
      { oldStart: 5, oldEnd: 6, newStart: 6, newEnd: 6 },
    ])
  })

  it('refuses a replacement outside the table', () => {
    const table = new LineTable([{ text: 'a', eol: '' }])
    expect(() => table.replace(1, 2, [])).toThrow(/cannot replace lines 1-2 of 1/)
  })
})
