import { describe, expect, it } from 'vitest'
import { indexLines } from '../../../src/match/ladder.js'
import { locateCursor } from '../../../src/match/locate-cursor.js'
import { locateNearLine } from '../../../src/match/locate-near.js'
import { locateSequential } from '../../../src/match/locate-sequential.js'
import { newSide, oldSide, type LocateContext } from '../../../src/match/location.js'
import type { HunkLine, LineHunk } from '../../../src/types.js'

function hunk(body: readonly string[], extra: Partial<LineHunk> = {}): LineHunk {
  const lines: HunkLine[] = body.map((l) => ({ op: l[0] as HunkLine['op'], text: l.slice(1) }))
  return { patchLine: 2, hints: [], endOfFile: false, lines, ...extra }
}

function ctx(lines: readonly string[], exactOnly = false): LocateContext {
  return { index: indexLines(lines), path: 'a.txt', exactOnly }
}

describe('oldSide and newSide', () => {
  it('split hunk lines into the two sides', () => {
    const lines = hunk([' a', '-b', '+c', ' d']).lines
    expect(oldSide(lines)).toEqual(['a', 'b', 'd'])
    expect(newSide(lines)).toEqual(['a', 'c', 'd'])
  })
})

describe('locateCursor', () => {
  it('returns the start, old length, pass and identity restyle for an exact match', () => {
    const result = locateCursor(ctx(['a', 'b', 'c']), hunk([' b', '-c', '+x']), 0)
    expect(result).toMatchObject({
      ok: true,
      value: { start: 1, oldLength: 2, pass: 'exact', warnings: [] },
    })
    if (result.ok) expect(result.value.restyle.indent).toBeNull()
  })

  it('ignores matches before the cursor', () => {
    const result = locateCursor(ctx(['x', 'y', 'x']), hunk(['-x', '+z']), 1)
    expect(result).toMatchObject({ ok: true, value: { start: 2 } })
  })

  it('derives the restyle from the matched lines', () => {
    const result = locateCursor(
      ctx(['  if (a) {', '    b()']),
      hunk([' if (a) {', '-  b()', '+  c()']),
      0,
    )
    expect(result.ok && result.value.restyle.indent).toMatchObject({ refColumns: 0, refFile: '  ' })
    expect(result.ok && result.value.pass).toBe('trim')
  })

  it('reports the dropped trailing empty line in the returned lines', () => {
    const result = locateCursor(ctx(['a', 'b']), hunk([' a', '-b', '+c', ' ']), 0)
    expect(result.ok && result.value.lines.map((l) => l.op + l.text)).toEqual([' a', '-b', '+c'])
  })

  it('drops several trailing empty context lines left before *** End Patch', () => {
    const result = locateCursor(ctx(['a', 'b']), hunk(['-a', '+A', ' b', ' ', ' ']), 0)
    expect(result.ok && result.value.lines.map((l) => l.op + l.text)).toEqual(['-a', '+A', ' b'])
  })

  it('keeps the trailing empty lines that the file does have', () => {
    const result = locateCursor(ctx(['a', '', 'b']), hunk(['-a', '+A', ' ', ' ', ' ']), 0)
    expect(result.ok && result.value.lines.map((l) => l.op + l.text)).toEqual(['-a', '+A', ' '])
  })

  it('never drops empty context down to a pure insertion', () => {
    const result = locateCursor(ctx(['a', 'b']), hunk(['+x', ' ', ' ']), 0)
    expect(result).toMatchObject({ ok: false, error: { code: 'MATCH_NOT_FOUND' } })
  })

  it('offers candidates before the cursor when nothing after it resembles the chunk', () => {
    const result = locateCursor(ctx(['alpha()', 'b', 'c', 'd']), hunk(['-alpha()', '+beta()']), 3)
    expect(result).toMatchObject({ ok: false, error: { code: 'MATCH_NOT_FOUND' } })
    if (!result.ok) {
      expect(result.error.candidates?.[0]).toMatchObject({ fileLine: 1 })
      expect(result.error.message).toContain('after line 3')
    }
  })

  it('places an End of File chunk that overlaps the previous chunk as an overlap', () => {
    const result = locateCursor(ctx(['a', 'b']), hunk([' a', '-b'], { endOfFile: true }), 1, [
      { start: 0, end: 1 },
    ])
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.code).toBe('MATCH_OVERLAP')
  })

  it('names the pass in a lenient warning', () => {
    const result = locateCursor(ctx(['\u201cq\u201d']), hunk(['-"q"', '+"r"']), 0)
    expect(result.ok && result.value.warnings[0]).toMatchObject({
      code: 'match.lenient',
      patchLine: 2,
    })
    expect(result.ok && result.value.restyle.curlyDouble).toBe(true)
  })
})

describe('locateNearLine', () => {
  it('returns the stated start so the caller can carry the offset', () => {
    const result = locateNearLine(
      ctx(['a', 'b', 'c', 'd']),
      hunk(['-d', '+e'], { oldStartLine: 2 }),
      0,
      0,
    )
    expect(result).toMatchObject({ ok: true, value: { start: 3, statedStart: 1 } })
  })

  it('shifts the expected position by the offset', () => {
    const lines = ['k', 'q', 'k', 'q', 'k']
    const result = locateNearLine(ctx(lines), hunk(['-k', '+K', ' q'], { oldStartLine: 2 }), 0, 1)
    expect(result).toMatchObject({ ok: true, value: { start: 2 } })
  })

  it('never searches before minStart', () => {
    const result = locateNearLine(
      ctx(['x', 'b', 'a', 'x', 'b']),
      hunk(['-x', '+y', ' b'], { oldStartLine: 2 }),
      1,
      0,
    )
    expect(result).toMatchObject({ ok: true, value: { start: 3 } })
  })

  it('places a hunk that adds lines without context only in an empty file', () => {
    const empty = locateNearLine(ctx([]), hunk(['+x'], { oldStartLine: 0 }), 0, 0)
    expect(empty).toMatchObject({ ok: true, value: { start: 0, oldLength: 0, pass: null } })
    for (const oldStartLine of [0, 1, 9]) {
      const result = locateNearLine(ctx(['a']), hunk(['+x'], { oldStartLine }), 0, 0)
      expect(result).toMatchObject({
        ok: false,
        error: { code: 'MATCH_NOT_ANCHORED', path: 'a.txt', patchLine: 2, candidates: [] },
      })
    }
  })

  it('fails when an old side marked no-newline does not end at the last line', () => {
    const result = locateNearLine(
      ctx(['a', 'b']),
      hunk(['-a'], { oldStartLine: 1, oldNoNewlineAtEnd: true }),
      0,
      0,
    )
    expect(!result.ok && result.error.code).toBe('MATCH_NOT_FOUND')
  })
})

describe('locateNearLine anchors (git apply: match beginning, match end)', () => {
  const place = (lines: readonly string[], body: readonly string[], oldStartLine: number) =>
    locateNearLine(ctx(lines), hunk(body, { oldStartLine }), 0, 0)

  it('puts a hunk without trailing context at the end, past a nearer match', () => {
    const result = place(['p', 'x', 'q', 'p', 'x'], [' p', '-x', '+y'], 1)
    expect(result).toMatchObject({ ok: true, value: { start: 3 } })
  })

  it('refuses a hunk without trailing context whose lines do not end the file', () => {
    const result = place(['p', 'x', 'q'], [' p', '-x', '+y'], 1)
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'MATCH_NOT_ANCHORED', patchLine: 2, candidates: [{ fileLine: 1 }] },
    })
    if (!result.ok) expect(result.error.message).toContain('no trailing context')
  })

  it('puts a hunk without leading context that states line 1 at the start only', () => {
    expect(place(['x', 'q', 'h', 'x', 'q'], ['-x', '+y', ' q'], 1)).toMatchObject({
      ok: true,
      value: { start: 0 },
    })
    const moved = place(['h', 'x', 'q'], ['-x', '+y', ' q'], 1)
    expect(moved).toMatchObject({ ok: false, error: { code: 'MATCH_NOT_ANCHORED' } })
    if (!moved.ok) expect(moved.error.message).toContain('no leading context')
    // Stating another line lifts the start anchor: the hunk is placed by its lines.
    expect(place(['h', 'x', 'q'], ['-x', '+y', ' q'], 2)).toMatchObject({
      ok: true,
      value: { start: 1 },
    })
  })

  it('places a hunk with leading context by that context, whatever line it states', () => {
    expect(place(['h', 'p', 'x', 'q'], [' p', '-x', '+y', ' q'], 1)).toMatchObject({
      ok: true,
      value: { start: 1 },
    })
  })

  it('needs a hunk without any context that states line 1 to be the whole file', () => {
    expect(place(['x'], ['-x', '+y'], 1)).toMatchObject({ ok: true, value: { start: 0 } })
    const result = place(['x', 'z'], ['-x', '+y'], 1)
    expect(result).toMatchObject({ ok: false, error: { code: 'MATCH_NOT_ANCHORED' } })
    if (!result.ok) expect(result.error.message).toContain('must be the whole file')
  })

  it('keeps the anchors under the lenient passes', () => {
    // Only a trim-end match, at the end: allowed, with the lenient warning.
    const lenient = place(['q', 'x  '], ['-x', '+y'], 2)
    expect(lenient).toMatchObject({ ok: true, value: { start: 1, pass: 'trim-end' } })
    // A trim-end match that does not end the file is refused, not placed there.
    expect(place(['x  ', 'q'], ['-x', '+y'], 2)).toMatchObject({
      ok: false,
      error: { code: 'MATCH_NOT_ANCHORED' },
    })
    // The first pass with any match decides (D-002): an exact match away from the end is not
    // passed over for a lenient one at the end.
    expect(place(['x', 'q', 'x  '], ['-x', '+y'], 2)).toMatchObject({
      ok: false,
      error: { code: 'MATCH_NOT_ANCHORED', candidates: [{ fileLine: 1 }] },
    })
  })
})

describe('locateSequential', () => {
  it('finds a block anywhere in the text', () => {
    const result = locateSequential(ctx(['a', 'b', 'c']), hunk(['-c', '+d']))
    expect(result).toMatchObject({ ok: true, value: { start: 2, oldLength: 1 } })
  })

  it('appends an empty old side at the end', () => {
    const result = locateSequential(ctx(['a', 'b']), hunk(['+c']))
    expect(result).toMatchObject({ ok: true, value: { start: 2, oldLength: 0, pass: null } })
  })

  it('refuses with FILE_NOT_TEXT in exact-only mode when only a lenient pass matches', () => {
    const result = locateSequential(ctx(['a '], true), hunk(['-a', '+b']))
    expect(!result.ok && result.error.code).toBe('FILE_NOT_TEXT')
  })
})

describe('ambiguity reports', () => {
  it('cap the candidates at five and the listed lines at ten', () => {
    const file = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? '}' : `x${i}`))
    const result = locateSequential(ctx(file), hunk(['-}', '+{']))
    expect(result).toMatchObject({ ok: false, error: { code: 'MATCH_AMBIGUOUS' } })
    if (!result.ok) {
      expect(result.error.candidates?.map((c) => c.fileLine)).toEqual([1, 3, 5, 7, 9])
      expect(result.error.message).toContain(
        'at lines 1, 3, 5, 7, 9, 11, 13, 15, 17, 19 and 10 more;',
      )
    }
  })
})

describe('locateCursor with @@ hints (scopes)', () => {
  const file = ['def g():', '    a = 1', '', 'def h():', '    a = 1', '    b = 2']

  it('refuses lines that exist only outside the hint’s scope and says where they are', () => {
    const result = locateCursor(
      ctx(file),
      hunk([' a = 1', '-b = 2', '+b = 3'], { hints: ['def g():'] }),
      0,
    )
    expect(result).toMatchObject({ ok: false, error: { code: 'MATCH_NOT_FOUND' } })
    if (!result.ok) {
      expect(result.error.candidates?.map((c) => c.fileLine)).toEqual([5])
      expect(result.error.message).toContain(
        'is not inside the scope of its @@ hint "def g():" (lines 1-3)',
      )
      expect(result.error.message).toContain(
        'outside that scope, matching after ignoring leading and trailing whitespace at line 5',
      )
    }
  })

  it('prefers a lenient match inside the scope to an exact one below it', () => {
    const lines = ['def g():', '    x = 1', 'def h():', '  x = 1']
    const result = locateCursor(
      ctx(lines),
      hunk(['-  x = 1', '+  x = 2'], { hints: ['def g():'] }),
      0,
    )
    expect(result).toMatchObject({ ok: true, value: { start: 1, pass: 'trim' } })
  })

  it('searches a nested hint only inside the outer hint’s scope', () => {
    const lines = ['class A:', '    pass', 'def run():', '    x = 1']
    const result = locateCursor(
      ctx(lines),
      hunk(['-    x = 1'], { hints: ['class A:', 'def run():'] }),
      0,
    )
    expect(result).toMatchObject({ ok: false, error: { code: 'MATCH_NOT_FOUND' } })
    if (!result.ok)
      expect(result.error.message).toContain('inside the scope of the hint before it (lines 1-2)')
  })

  it('offers near misses inside the scope when the lines are nowhere', () => {
    const result = locateCursor(ctx(file), hunk(['-a = 11', '+a = 2'], { hints: ['def h():'] }), 0)
    expect(result).toMatchObject({ ok: false, error: { code: 'MATCH_NOT_FOUND' } })
    if (!result.ok) {
      expect(result.error.candidates?.[0]).toMatchObject({ fileLine: 5 })
      expect(result.error.message).toContain('the lines inside the scope of its @@ hint')
    }
  })
})

describe('locateCursor scope edges', () => {
  const file = ['def g():', '    a = 1', '', 'def h():', '    b = 2']

  it('lets trailing context run past the scope when the change is inside it', () => {
    const result = locateCursor(
      ctx(file),
      hunk(['     a = 1', '+    c = 3', ' ', ' def h():'], { hints: ['def g():'] }),
      0,
    )
    expect(result).toMatchObject({ ok: true, value: { start: 1, oldLength: 3 } })
  })

  it('refuses a hunk that starts in the scope but removes a line after it', () => {
    const result = locateCursor(
      ctx(file),
      hunk(['     a = 1', ' ', '-def h():', '+def k():'], { hints: ['def g():'] }),
      0,
    )
    expect(result).toMatchObject({ ok: false, error: { code: 'MATCH_NOT_FOUND' } })
    if (!result.ok)
      expect(result.error.message).toContain('would change lines past the end of the scope')
  })

  it('refuses with FILE_NOT_TEXT when only a lenient match lies inside the scope', () => {
    const result = locateCursor(
      ctx(['h', '  b', 'x'], true),
      hunk(['-b', '+c'], { hints: ['h'] }),
      0,
    )
    expect(result).toMatchObject({ ok: false, error: { code: 'FILE_NOT_TEXT' } })
  })
})
