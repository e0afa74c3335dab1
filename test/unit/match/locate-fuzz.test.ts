// Bounded fuzz (src/match/locate-fuzz.ts) through applyHunks: a unified or Codex hunk whose outer
// context lines drifted applies where the rest matches once in the whole file, with match.fuzz;
// everything else is refused.
import { describe, expect, it } from 'vitest'
import { applyHunks } from '../../../src/apply/apply-hunks.js'
import type { EditErrorData } from '../../../src/errors.js'
import { joinLines, splitLines } from '../../../src/text/lines.js'
import type { HunkLine, LineHunk, LocateMode, Warning } from '../../../src/types.js'

function hunk(body: readonly string[], extra: Partial<LineHunk> = {}): LineHunk {
  const lines: HunkLine[] = body.map((l) => ({ op: l[0] as HunkLine['op'], text: l.slice(1) }))
  return { patchLine: 10, hints: [], endOfFile: false, lines, ...extra }
}

/** A unified hunk stating old line `at`. */
function unified(at: number, body: readonly string[], patchLine = 10): LineHunk {
  return hunk(body, { oldStartLine: at, patchLine })
}

type Outcome =
  | { readonly ok: true; readonly text: string; readonly warnings: readonly Warning[] }
  | { readonly ok: false; readonly error: EditErrorData }

function apply(text: string, hunks: readonly LineHunk[], mode: LocateMode): Outcome {
  const result = applyHunks({
    lines: splitLines(text),
    hunks,
    mode,
    format: mode === 'cursor' ? 'codex' : 'unified',
    path: 'f.py',
    exactOnly: false,
  })
  if (!result.ok) return { ok: false, error: result.error }
  return { ok: true, text: joinLines(result.value.lines), warnings: result.value.warnings }
}

function applied(text: string, hunks: readonly LineHunk[], mode: LocateMode) {
  const out = apply(text, hunks, mode)
  if (!out.ok) throw new Error(`refused: ${out.error.code}: ${out.error.message}`)
  return out
}

function refused(text: string, hunks: readonly LineHunk[], mode: LocateMode): EditErrorData {
  const out = apply(text, hunks, mode)
  if (out.ok) throw new Error(`applied: ${JSON.stringify(out.text)}`)
  return out.error
}

const FILE = [
  'def a():',
  '    one = 1',
  '    two = 2',
  '    three = 3',
  '    four = 4',
  '    five = 5',
  '    six = 6',
  '    return one',
  '',
]
const TEXT = FILE.join('\n')

describe('bounded fuzz (unified)', () => {
  it('drops a first context line that drifted and names it', () => {
    const h = unified(1, [
      ' def a(x):',
      '     one = 1',
      '     two = 2',
      '-    three = 3',
      '+    three = 33',
      '     four = 4',
      '     five = 5',
      '     six = 6',
    ])
    const out = applied(TEXT, [h], 'near-line')
    expect(out.text).toBe(TEXT.replace('three = 3\n', 'three = 33\n'))
    const fuzz = out.warnings.filter((w) => w.code === 'match.fuzz')
    expect(fuzz).toHaveLength(1)
    expect(fuzz[0]?.message).toContain('"def a(x):" (patch line 11)')
    expect(fuzz[0]?.message).toContain('applied at line 2 without')
    expect(fuzz[0]?.patchLine).toBe(10)
    expect(out.warnings.some((w) => w.code === 'match.offset')).toBe(false)
  })

  it('drops two lines on each side, keeping the file its own lines there', () => {
    const h = unified(2, [
      ' X',
      '     two = 2',
      '     three = 3',
      '-    four = 4',
      '+    FOUR = 4',
      '     five = 5',
      '     six = 6',
      ' Y',
      ' Z',
    ])
    const out = applied(TEXT, [h], 'near-line')
    expect(out.text).toBe(TEXT.replace('four = 4', 'FOUR = 4'))
    const message = out.warnings.find((w) => w.code === 'match.fuzz')?.message ?? ''
    expect(message).toContain('"X" (patch line 11)')
    expect(message).toContain('"Y" (patch line 18)')
    expect(message).toContain('"Z" (patch line 19)')
    expect(message).not.toContain('two = 2')
  })

  it('refuses a hunk that needs three lines dropped on one side', () => {
    const h = unified(1, [' X', ' Y', ' Z', '-    three = 3', '+    three = 33', '     four = 4'])
    const error = refused(TEXT, [h], 'near-line')
    expect(error.code).toBe('MATCH_NOT_FOUND')
  })

  it('keeps one context line on a side that had context', () => {
    // Two leading lines: only the outer one may go; the inner one is still checked.
    const h = unified(3, [' X', ' Y', '-    three = 3', '+    three = 33', '     four = 4'])
    expect(refused(TEXT, [h], 'near-line').code).toBe('MATCH_NOT_FOUND')
    const one = unified(3, [' X', '-    three = 3', '+    three = 33', '     four = 4'])
    expect(refused(TEXT, [one], 'near-line').code).toBe('MATCH_NOT_FOUND')
  })

  it('refuses a hunk whose removed line is wrong, though its context matches', () => {
    const h = unified(2, [
      '     one = 1',
      '     two = 2',
      '-    three = 4',
      '+    three = 33',
      '     four = 4',
      '     five = 5',
    ])
    expect(refused(TEXT, [h], 'near-line').code).toBe('MATCH_NOT_FOUND')
  })

  it('refuses when the lines left match twice in the whole file, listing both', () => {
    const twice = [
      'def a():',
      '    x = 1',
      '    y = 2',
      '    z = 3',
      '',
      'def b():',
      '    x = 1',
      '    y = 2',
      '    z = 3',
      '',
    ].join('\n')
    const h = unified(1, [' def c():', '     x = 1', '-    y = 2', '+    y = 22', '     z = 3'])
    const error = refused(twice, [h], 'near-line')
    expect(error.code).toBe('MATCH_NOT_FOUND')
    expect(error.message).toContain('at lines 2, 7 of the whole file')
    expect(error.candidates?.map((c) => c.fileLine)).toEqual([2, 7])
  })

  it('counts matches in the whole file, not only after the hunk before it', () => {
    const text = [
      '    x = 1',
      '    y = 2',
      '    z = 3',
      'mid',
      'q',
      '    x = 1',
      '    y = 2',
      '    z = 3',
      '',
    ].join('\n')
    const first = unified(3, ['     z = 3', '-mid', '+MID', ' q'])
    const h = unified(6, [' other', '     x = 1', '-    y = 2', '+    y = 22', '     z = 3'])
    expect(refused(text, [first, h], 'near-line').code).toBe('MATCH_NOT_FOUND')
    // Alone, after nothing, it is as ambiguous.
    expect(refused(text, [h], 'near-line').candidates?.map((c) => c.fileLine)).toEqual([1, 6])
  })

  it('refuses a fuzzed place before the hunk ahead of it', () => {
    const text = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', ''].join('\n')
    // In the order of their stated lines, so nothing is reordered: the second hunk's fuzzed lines
    // fit only above the first.
    const first = unified(5, [' e', '-f', '+F', ' g'])
    const second = unified(7, [' X', ' a', '-b', '+B', ' c'])
    const error = refused(text, [first, second], 'near-line')
    expect(error.code).toBe('MATCH_NOT_FOUND')
    expect(error.message).toContain('before the end of the hunk ahead of it')
  })

  it('refuses a fuzzed place on lines another hunk claimed', () => {
    const text = ['a', 'b', 'c', 'd', 'e', ''].join('\n')
    const first = hunk([' a', '-b', '+B', ' c', ' d'], { patchLine: 3 })
    const second = hunk([' X', ' c', '-d', '+D', ' e'], { patchLine: 9 })
    const error = refused(text, [first, second], 'near-line')
    expect(error.code).toBe('MATCH_OVERLAP')
  })

  it('keeps a hunk without trailing context at the end of the file', () => {
    const text = ['a', 'b', 'c', 'd', 'e', ''].join('\n')
    // No trailing context: it must end the file (D-129); its lines are at 2-3, not at the end.
    const h = unified(2, [' X', ' a', ' b', '-c', '+C'])
    expect(refused(text, [h], 'near-line').code).toBe('MATCH_NOT_FOUND')
    const atEnd = unified(3, [' X', ' c', ' d', '-e', '+E'])
    expect(applied(text, [atEnd], 'near-line').text).toBe(text.replace('e\n', 'E\n'))
  })

  it('moves the next hunk by the offset the fuzzed hunk found', () => {
    const text = ['p', 'q', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', ''].join('\n')
    const first = unified(1, [' X', ' a', '-b', '+B', ' c'])
    const second = unified(5, [' e', '-f', '+F', ' g'])
    const out = applied(text, [first, second], 'near-line')
    expect(out.text).toBe(text.replace('b\n', 'B\n').replace('f\n', 'F\n'))
  })

  it('places a numberless hunk by fuzz too', () => {
    const h = hunk([
      ' def a(x):',
      '     one = 1',
      '-    two = 2',
      '+    two = 22',
      '     three = 3',
    ])
    const out = applied(TEXT, [h], 'near-line')
    expect(out.text).toBe(TEXT.replace('two = 2\n', 'two = 22\n'))
  })

  it('says which lenient pass the rest matched under', () => {
    const h = unified(1, [' def a(x):', ' one = 1', '-two = 2', '+two = 22', ' three = 3'])
    const out = applied(TEXT, [h], 'near-line')
    expect(out.text).toBe(TEXT.replace('two = 2\n', 'two = 22\n'))
    expect(out.warnings.map((w) => w.code).sort()).toEqual(['match.fuzz', 'match.lenient'])
  })
})

describe('bounded fuzz (Codex)', () => {
  it('drops a drifted first context line after the cursor', () => {
    const h = hunk([
      ' def a(x):',
      '     one = 1',
      '-    two = 2',
      '+    two = 22',
      '     three = 3',
    ])
    const out = applied(TEXT, [h], 'cursor')
    expect(out.text).toBe(TEXT.replace('two = 2\n', 'two = 22\n'))
    const message = out.warnings.find((w) => w.code === 'match.fuzz')?.message ?? ''
    expect(message).toContain('"def a(x):" (line 1 of the chunk)')
    // A parsed chunk knows where its body starts (below its @@ line): the patch line is named.
    const parsed = applied(TEXT, [{ ...h, bodyOffset: 1 }], 'cursor')
    const named = parsed.warnings.find((w) => w.code === 'match.fuzz')?.message ?? ''
    expect(named).toContain('"def a(x):" (patch line 11)')
  })

  it('refuses a fuzzed place outside the scope of its @@ hint', () => {
    const text = [
      'def a():',
      '    x = 1',
      '',
      'def b():',
      '    y = 2',
      '    z = 3',
      '    w = 4',
      '',
    ].join('\n')
    const h = hunk([' nope', '     y = 2', '-    z = 3', '+    z = 33', '     w = 4'], {
      hints: ['def a():'],
    })
    const error = refused(text, [h], 'cursor')
    expect(error.code).toBe('MATCH_NOT_FOUND')
    expect(error.message).toContain('outside the scope of its @@ hint')
    const inside = hunk([' nope', '     y = 2', '-    z = 3', '+    z = 33', '     w = 4'], {
      hints: ['def b():'],
    })
    expect(applied(text, [inside], 'cursor').text).toBe(text.replace('z = 3', 'z = 33'))
  })

  it('counts a match inside the hint scope and one outside it as two', () => {
    const text = [
      'def a():',
      '    y = 2',
      '    z = 3',
      '    w = 4',
      '',
      'def b():',
      '    y = 2',
      '    z = 3',
      '    w = 4',
      '',
    ].join('\n')
    const h = hunk([' nope', '     y = 2', '-    z = 3', '+    z = 33', '     w = 4'], {
      hints: ['def b():'],
    })
    const error = refused(text, [h], 'cursor')
    expect(error.code).toBe('MATCH_NOT_FOUND')
    expect(error.candidates?.map((c) => c.fileLine)).toEqual([2, 7])
  })

  it('never drops trailing context of an End of File chunk', () => {
    const text = ['a', 'b', 'c', 'd', ''].join('\n')
    const h = hunk([' X', ' b', '-c', '+C', ' Y'], { endOfFile: true })
    expect(refused(text, [h], 'cursor').code).toBe('MATCH_NOT_FOUND')
  })

  it('does not fuzz a chunk with context on one side only', () => {
    // Without trailing context (and no End of File) nothing pins where the change ends.
    const h = hunk([
      ' def a(x):',
      '     one = 1',
      '     two = 2',
      '-    three = 3',
      '+    three = 33',
    ])
    expect(refused(TEXT, [h], 'cursor').code).toBe('MATCH_NOT_FOUND')
    // Nor does it drop the chunk's trailing empty lines as well as its drifted context.
    const blank = hunk([' def a(x):', '     one = 1', '-    two = 2', '     three = 3', ' ', '+'])
    expect(refused(TEXT, [blank], 'cursor').code).toBe('MATCH_NOT_FOUND')
  })

  it('keeps the order of the chunks', () => {
    const text = ['a', 'b', 'c', 'd', 'e', 'f', ''].join('\n')
    const later = hunk([' d', '-e', '+E', ' f'])
    const earlier = hunk([' X', ' a', '-b', '+B', ' c'])
    expect(refused(text, [later, earlier], 'cursor').code).toBe('MATCH_NOT_FOUND')
  })
})

describe('bounded fuzz leaves other modes alone', () => {
  it('does not fuzz SEARCH/REPLACE blocks', () => {
    const h = hunk([
      ' def a(x):',
      '     one = 1',
      '-    two = 2',
      '+    two = 22',
      '     three = 3',
    ])
    expect(refused(TEXT, [h], 'sequential').code).toBe('MATCH_NOT_FOUND')
  })
})
