// Conversion of raw LSP diagnostics and the before/after comparison: multiset matching tolerant
// of line shifts, closest-first pairing of duplicates, the severity filter, per-file caps with
// omitted counts, stable ordering, and the CLI's one-line format.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  compareDiagnostics,
  formatDiagnostic,
  severityName,
  sortDiagnostics,
  toFileDiagnostic,
  workspaceRelativePath,
} from '../../../src/lsp/diagnostics.js'
import type { RawDiagnostic } from '../../../src/lsp/session-types.js'
import type { FileDiagnostic } from '../../../src/lsp/reports.js'

function diag(path: string, line: number, extra: Partial<FileDiagnostic> = {}): FileDiagnostic {
  return {
    path,
    line,
    column: 1,
    endLine: line,
    endColumn: 5,
    severity: 'error',
    code: '2322',
    source: 'ts',
    message: "Type 'string' is not assignable to type 'number'.",
    ...extra,
  }
}

const lines = (list: readonly FileDiagnostic[]) => list.map((d) => `${d.path}:${d.line}`)

describe('toFileDiagnostic', () => {
  const raw: RawDiagnostic = {
    range: { start: { line: 0, character: 6 }, end: { line: 2, character: 0 } },
    severity: 2,
    code: 2322,
    source: 'ts',
    message: 'm',
  }

  it('makes positions 1-based, the path workspace-relative and the code a string', () => {
    expect(toFileDiagnostic(raw, '/ws/src/a.ts', '/ws')).toEqual({
      path: 'src/a.ts',
      line: 1,
      column: 7,
      endLine: 3,
      endColumn: 1,
      severity: 'warning',
      code: '2322',
      source: 'ts',
      message: 'm',
    })
  })

  it('leaves out code and source the server did not send, and survives structuredClone', () => {
    const bare: RawDiagnostic = { range: raw.range, message: 'x' }
    const d = toFileDiagnostic(bare, '/ws/a.py', '/ws')
    expect(Object.keys(d)).not.toContain('code')
    expect(Object.keys(d)).not.toContain('source')
    expect(d.severity).toBe('error')
    expect(structuredClone(d)).toStrictEqual(d)
  })

  it('keeps string codes as they are', () => {
    const d = toFileDiagnostic({ ...raw, code: 'reportAssignmentType' }, '/ws/a.py', '/ws')
    expect(d.code).toBe('reportAssignmentType')
  })
})

describe('severityName', () => {
  it('maps 1..4 and treats absent or out-of-range severities as errors', () => {
    expect([1, 2, 3, 4, undefined, 0, 9].map(severityName)).toEqual([
      'error',
      'warning',
      'information',
      'hint',
      'error',
      'error',
      'error',
    ])
  })
})

describe('workspaceRelativePath', () => {
  it('relativises POSIX and Windows spellings with / separators', () => {
    expect(workspaceRelativePath('/ws/src/a.ts', '/ws/')).toBe('src/a.ts')
    expect(workspaceRelativePath('C:\\ws\\src\\a.ts', 'C:\\ws')).toBe('src/a.ts')
    expect(workspaceRelativePath('/ws', '/ws')).toBe('.')
    expect(workspaceRelativePath('/ws/./x/../y.ts', '/ws')).toBe('y.ts')
  })

  it('climbs with .. for a path outside the workspace', () => {
    expect(workspaceRelativePath('/other/lib.d.ts', '/ws/app')).toBe('../../other/lib.d.ts')
  })
})

describe('compareDiagnostics', () => {
  it('tells introduced, resolved and remaining apart', () => {
    const old = diag('a.ts', 3, { message: 'old noise' })
    const fixed = diag('a.ts', 8, { message: 'fixed' })
    const fresh = diag('b.ts', 1, { message: 'new' })
    const result = compareDiagnostics([old, fixed], [old, fresh])
    expect(result).toEqual({ introduced: [fresh], resolved: [fixed], remaining: [old] })
  })

  it('counts an error moved by an edit above it as remaining, at its new line', () => {
    const before = [diag('a.ts', 10)]
    const after = [diag('a.ts', 14)]
    const result = compareDiagnostics(before, after)
    expect(result.introduced).toEqual([])
    expect(result.resolved).toEqual([])
    expect(lines(result.remaining)).toEqual(['a.ts:14'])
  })

  it('does not match across paths, codes, sources or messages', () => {
    const base = diag('a.ts', 1)
    const variants = [
      diag('b.ts', 1),
      diag('a.ts', 1, { code: '2345' }),
      diag('a.ts', 1, { source: 'eslint' }),
      diag('a.ts', 1, { message: 'other' }),
    ]
    for (const v of variants) {
      const result = compareDiagnostics([base], [v])
      expect(result.introduced).toEqual([v])
      expect(result.resolved).toEqual([base])
      expect(result.remaining).toEqual([])
    }
  })

  it('treats an absent code as different from any code', () => {
    const { code: _code, ...uncoded } = diag('a.ts', 1)
    const result = compareDiagnostics([uncoded], [diag('a.ts', 1)])
    expect(result.remaining).toEqual([])
  })

  it('matches duplicates as a multiset: one more copy is one introduced', () => {
    const before = [diag('a.ts', 5), diag('a.ts', 20)]
    const after = [diag('a.ts', 5), diag('a.ts', 12), diag('a.ts', 20)]
    const result = compareDiagnostics(before, after)
    expect(lines(result.introduced)).toEqual(['a.ts:12'])
    expect(lines(result.remaining)).toEqual(['a.ts:5', 'a.ts:20'])
    expect(result.resolved).toEqual([])
  })

  it('pairs the closest lines first when a copy goes away', () => {
    const before = [diag('a.ts', 5), diag('a.ts', 40), diag('a.ts', 90)]
    const after = [diag('a.ts', 7), diag('a.ts', 92)]
    const result = compareDiagnostics(before, after)
    expect(lines(result.resolved)).toEqual(['a.ts:40'])
    expect(lines(result.remaining)).toEqual(['a.ts:7', 'a.ts:92'])
    expect(result.introduced).toEqual([])
  })

  it('breaks equal distances by column, then towards the earlier diagnostic', () => {
    const before = [diag('a.ts', 10, { column: 3 }), diag('a.ts', 10, { column: 30 })]
    const after = [diag('a.ts', 10, { column: 29 })]
    expect(compareDiagnostics(before, after).resolved).toEqual([before[0]])
    const tie = compareDiagnostics([diag('a.ts', 5), diag('a.ts', 15)], [diag('a.ts', 10)])
    expect(lines(tie.resolved)).toEqual(['a.ts:15'])
  })

  it('keeps errors only by default and honours minSeverity', () => {
    const warn = diag('a.ts', 2, { severity: 'warning', message: 'w' })
    const hint = diag('a.ts', 3, { severity: 'hint', message: 'h' })
    const err = diag('a.ts', 4, { message: 'e' })
    expect(compareDiagnostics([], [warn, hint, err]).introduced).toEqual([err])
    expect(
      compareDiagnostics([], [warn, hint, err], { minSeverity: 'warning' }).introduced,
    ).toEqual([warn, err])
    expect(compareDiagnostics([], [hint], { minSeverity: 'hint' }).introduced).toEqual([hint])
  })

  it('reports an error downgraded to a warning as resolved under the error filter', () => {
    const asError = diag('a.ts', 4)
    const asWarning = diag('a.ts', 4, { severity: 'warning' })
    const result = compareDiagnostics([asError], [asWarning])
    expect(result).toEqual({ introduced: [], resolved: [asError], remaining: [] })
  })

  it('caps each list per file and counts what it left out', () => {
    const after = Array.from({ length: 25 }, (_, i) => diag('big.ts', 25 - i, { message: `e${i}` }))
    const small = [diag('small.ts', 1, { message: 's' })]
    const result = compareDiagnostics(small, [...after, ...small], { maxPerFile: 20 })
    expect(result.introduced).toHaveLength(20)
    expect(lines(result.introduced).slice(0, 2)).toEqual(['big.ts:1', 'big.ts:2'])
    expect(result.remaining).toEqual(small)
    expect(result.omitted).toEqual({ 'big.ts': 5 })
  })

  it('defaults the cap to 20 and sums omissions across lists for one path', () => {
    const before = Array.from({ length: 22 }, (_, i) => diag('a.ts', i + 1, { message: `r${i}` }))
    const after = Array.from({ length: 23 }, (_, i) => diag('a.ts', i + 1, { message: `n${i}` }))
    const result = compareDiagnostics(before, after)
    expect(result.resolved).toHaveLength(20)
    expect(result.introduced).toHaveLength(20)
    expect(result.omitted).toEqual({ 'a.ts': 5 })
  })

  it('leaves omitted out when nothing was capped', () => {
    expect(Object.keys(compareDiagnostics([], [diag('a.ts', 1)]))).not.toContain('omitted')
  })

  it('sorts by path, line and column, stably', () => {
    const list = [
      diag('b.ts', 1, { message: 'b1' }),
      diag('a.ts', 9, { column: 4, message: 'a9c4' }),
      diag('a.ts', 9, { column: 2, message: 'a9c2' }),
      diag('a.ts', 2, { message: 'first' }),
      diag('a.ts', 2, { message: 'second' }),
      diag('B.ts', 1, { message: 'upper' }),
    ]
    const order = compareDiagnostics([], list).introduced.map((d) => d.message)
    expect(order).toEqual(['upper', 'first', 'second', 'a9c2', 'a9c4', 'b1'])
    expect(sortDiagnostics(list).map((d) => d.message)).toEqual(order)
  })

  it('falls back to position order for a very large key without losing counts', () => {
    const before = Array.from({ length: 300 }, (_, i) => diag('gen.ts', i + 1))
    const after = Array.from({ length: 301 }, (_, i) => diag('gen.ts', i + 1))
    const result = compareDiagnostics(before, after, { maxPerFile: 1000 })
    expect(result.remaining).toHaveLength(300)
    expect(result.introduced).toHaveLength(1)
    expect(result.resolved).toHaveLength(0)
  })

  it('conserves counts: remaining + introduced = after, remaining + resolved = before', () => {
    const arb = fc.array(
      fc.record({
        path: fc.constantFrom('a.ts', 'b.ts'),
        line: fc.integer({ min: 1, max: 30 }),
        message: fc.constantFrom('m1', 'm2', 'm3'),
      }),
      { maxLength: 40 },
    )
    fc.assert(
      fc.property(arb, arb, (b, a) => {
        const before = b.map((x) => diag(x.path, x.line, { message: x.message }))
        const after = a.map((x) => diag(x.path, x.line, { message: x.message }))
        const r = compareDiagnostics(before, after, { maxPerFile: 1000 })
        expect(r.remaining.length + r.introduced.length).toBe(after.length)
        expect(r.remaining.length + r.resolved.length).toBe(before.length)
        const same = compareDiagnostics(after, after, { maxPerFile: 1000 })
        expect(same.introduced.length + same.resolved.length).toBe(0)
      }),
    )
  })
})

describe('formatDiagnostic', () => {
  it('prints TypeScript codes with their TS prefix', () => {
    expect(formatDiagnostic(diag('src/a.ts', 3, { column: 7 }))).toBe(
      "src/a.ts:3:7 error TS2322: Type 'string' is not assignable to type 'number'.",
    )
  })

  it('prints other codes as sent, omits an absent code and joins multi-line messages', () => {
    const py = diag('m.py', 1, {
      code: 'reportAssignmentType',
      source: 'Pyright',
      severity: 'warning',
      message: 'Type mismatch\n  "str" is not "int"',
    })
    expect(formatDiagnostic(py)).toBe(
      'm.py:1:1 warning reportAssignmentType: Type mismatch "str" is not "int"',
    )
    const { code: _code, ...uncoded } = diag('x.c', 2, { source: 'clang', message: 'boom' })
    expect(formatDiagnostic(uncoded)).toBe('x.c:2:1 error: boom')
  })
})
