import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  deriveReindent,
  reindentLine,
  shiftsPastZero,
  type Reindent,
} from '../../../src/match/reindent.js'

function mapping(
  file: readonly string[],
  patch: readonly string[],
  added: readonly string[] = [],
  surrounding: readonly string[] = [],
): Reindent {
  const reindent = deriveReindent(file, patch, { added, surrounding })
  if (reindent === null) throw new Error('expected a mapping')
  return reindent
}

describe('deriveReindent', () => {
  it('is null without a non-blank pair or when every pair is already indented as the file', () => {
    expect(deriveReindent(['', '  '], ['', ''])).toBeNull()
    expect(deriveReindent(['    a', '    b'], ['    a', '    b'])).toBeNull()
  })

  it('learns the patch columns per level from pairs at different file levels', () => {
    const reindent = mapping(['    if x:', '        y()'], ['if x:', '  y()'])
    expect(reindent).toMatchObject({ patchUnit: 2, refColumns: 0, refFile: '    ' })
  })

  it('falls back to the steps between the patch lines, added ones included', () => {
    const reindent = mapping(
      ['        a()'],
      ['a()'],
      ['  b()'],
      ['def f():', '    if x:', '        a()'],
    )
    expect(reindent.patchUnit).toBe(2)
    expect(reindent.fileUnit).toBe('    ')
    expect(reindentLine('  b()', reindent)).toBe('            b()')
  })

  it('takes the tab style from the matched lines', () => {
    expect(mapping(['\tx', '\t\ty'], ['x', '    y']).fileUnit).toBe('\t')
  })

  it('takes the space unit from the surrounding lines', () => {
    const around = ['a:', '  b:', '    c: 1', '  d: 2']
    expect(mapping(['    c: 1'], ['c: 1'], [], around).fileUnit).toBe('  ')
  })

  it('drops a patch indentation that the file indents two ways from the known list', () => {
    const reindent = mapping(['  a', '    b'], ['a', 'b'])
    expect(reindent.known).toEqual([])
  })
})

describe('reindentLine', () => {
  it('gives a line indented like a matched line that line’s file indentation', () => {
    const reindent = mapping(['\t\tfoo()'], ['    foo()'])
    expect(reindentLine('    bar()', reindent)).toBe('\t\tbar()')
  })

  it('shifts deeper and shallower lines by whole levels in the file’s unit', () => {
    const reindent = mapping(['    if x:', '        y()'], ['if x:', '  y()'])
    expect(reindentLine('    z()', reindent)).toBe('            z()')
    expect(reindentLine('w()', reindent)).toBe('    w()')
  })

  it('keeps alignment spaces in a space-indented file', () => {
    const reindent = mapping(['        call(a,'], ['    call(a,'])
    expect(reindentLine('         b)', reindent)).toBe('             b)')
  })

  it('rounds alignment to a level in a tab file that never mixes, keeps it where it does', () => {
    const pure = mapping(['\tcall(a,'], ['    call(a,'])
    expect(reindentLine('      b)', pure)).toBe('\t\tb)')
    expect(reindentLine('     b)', pure)).toBe('\tb)')
    const mixed = mapping(['\tcall(a,'], ['    call(a,'], [], ['\tcall(a,', '\t     b)'])
    expect(reindentLine('     b)', mixed)).toBe('\t b)')
  })

  it('never indents below column 0', () => {
    const reindent = mapping(['a()'], ['    a()'])
    expect(reindentLine('b()', reindent)).toBe('b()')
  })

  it('leaves blank and whitespace-only lines alone', () => {
    const reindent = mapping(['    a'], ['a'])
    expect(reindentLine('', reindent)).toBe('')
    expect(reindentLine('  ', reindent)).toBe('  ')
  })
})

describe('reindentLine property', () => {
  const units = fc.constantFrom('\t', '  ', '    ', '        ')
  // Depths of a well-formed nest: each line at most one level deeper than the one before.
  const depths = fc
    .array(fc.integer({ min: -3, max: 1 }), { minLength: 2, maxLength: 12 })
    .map((moves) => {
      let d = 0
      return moves.map((m) => (d = Math.max(0, d + m)))
    })

  it('puts every added line at its depth in the file’s unit, whatever the patch’s unit and base', () => {
    fc.assert(
      fc.property(
        depths,
        fc.integer({ min: 1, max: 11 }),
        units,
        units,
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 3 }),
        (depth, split, fileUnit, patchUnit, fileBase, patchBase) => {
          const cut = Math.min(split, depth.length - 1)
          const file = depth.map((d, i) => `${fileUnit.repeat(d + fileBase)}line${i}`)
          const patch = depth.map((d, i) => `${patchUnit.repeat(d + patchBase)}line${i}`)
          const matched = depth.slice(0, cut)
          fc.pre(matched.some((_, i) => file[i] !== patch[i]))
          const reindent = deriveReindent(file.slice(0, cut), patch.slice(0, cut), {
            added: patch.slice(cut),
            surrounding: file,
          })
          if (reindent === null) throw new Error('expected a mapping')
          for (let i = cut; i < depth.length; i++) {
            const got = reindentLine(patch[i] as string, reindent)
            expect(got).toBe(file[i])
          }
        },
      ),
      { numRuns: 500 },
    )
  })
})

describe('shiftsPastZero', () => {
  it('tells a line the learned offset would move left of column 0', () => {
    // Patch four columns right of the file: 6 -> 2, 4 -> 0.
    const m = mapping(['  })', '})'], ['      })', '    })'])
    expect(reindentLine('  x()', m)).toBe('x()')
    expect(shiftsPastZero('  x()', m)).toBe(true)
    expect(shiftsPastZero('x()', m)).toBe(true)
    expect(shiftsPastZero('    })', m)).toBe(false)
    expect(shiftsPastZero('        y()', m)).toBe(false)
    expect(shiftsPastZero('', m)).toBe(false)
  })
})
