import { describe, expect, it } from 'vitest'
import { isAnchoredEdit, rebaseVerdict, splitLines } from '../../../src/engine/rebase.js'
import type { StringEdit } from '../../../src/types.js'

const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('')
const replaceLine = (text: string, n: number, by: string): string => text.replace(`line ${n}\n`, by)

describe('splitLines', () => {
  it('keeps each terminator, and an unterminated last line', () => {
    expect(splitLines('a\r\nb\nc')).toEqual(['a\r\n', 'b\n', 'c'])
    expect(splitLines('')).toEqual([])
    expect(splitLines('a\n').join('')).toBe('a\n')
  })
})

describe('rebaseVerdict', () => {
  const base = lines(20)

  it('accepts an edit at the top over a change at the bottom', () => {
    const edited = replaceLine(base, 2, 'TOP\n')
    const current = replaceLine(base, 19, 'BOTTOM\n')
    const ours = replaceLine(current, 2, 'TOP\n')
    expect(rebaseVerdict(base, edited, current, ours)).toEqual({ ok: true })
  })

  it('accepts an edit below lines the other change inserted and removed', () => {
    const edited = replaceLine(base, 15, 'MINE\n')
    const current = replaceLine(replaceLine(base, 3, 'x\ny\nz\n'), 5, '')
    const ours = replaceLine(current, 15, 'MINE\n')
    expect(rebaseVerdict(base, edited, current, ours)).toEqual({ ok: true })
  })

  it('refuses when both changed the same line', () => {
    const edited = replaceLine(base, 10, 'MINE\n')
    const current = replaceLine(base, 10, 'THEIRS\n')
    expect(rebaseVerdict(base, edited, current, replaceLine(current, 10, 'MINE\n'))).toEqual({
      ok: false,
      reason: 'overlap',
    })
  })

  it('refuses changes to adjacent lines (their order is not known)', () => {
    const edited = replaceLine(base, 10, 'MINE\n')
    const current = replaceLine(base, 11, 'THEIRS\n')
    const ours = replaceLine(current, 10, 'MINE\n')
    expect(rebaseVerdict(base, edited, current, ours).ok).toBe(false)
  })

  it('refuses an insertion at the point where the other change inserted', () => {
    const edited = base.replace('line 5\n', 'line 5\nMINE\n')
    const current = base.replace('line 5\n', 'line 5\nTHEIRS\n')
    const ours = current.replace('THEIRS\n', 'THEIRS\nMINE\n')
    expect(rebaseVerdict(base, edited, current, ours).ok).toBe(false)
  })

  it('refuses a result on the current text that is not the merge (the edit landed elsewhere)', () => {
    const edited = replaceLine(base, 2, 'TOP\n')
    const current = replaceLine(base, 19, 'BOTTOM\n')
    // The engine's result on the current text changed another line: not the merge.
    const wrong = replaceLine(current, 3, 'TOP\n')
    expect(rebaseVerdict(base, edited, current, wrong)).toEqual({ ok: false, reason: 'differs' })
  })

  it('accepts when the other change is nothing at all (same text)', () => {
    const edited = replaceLine(base, 2, 'TOP\n')
    expect(rebaseVerdict(base, edited, base, edited)).toEqual({ ok: true })
  })
})

describe('isAnchoredEdit', () => {
  const replace = {
    mode: 'replace',
    index: 0,
    oldString: 'a',
    newString: 'b',
    replaceAll: false,
  } as const

  it('takes a replace or insert that names one place by its text', () => {
    expect(isAnchoredEdit(replace)).toBe(true)
    expect(isAnchoredEdit({ ...replace, expectedMatches: 1, regex: true })).toBe(true)
    const insert: StringEdit = {
      mode: 'insert',
      index: 0,
      anchor: 'a',
      position: 'after',
      newString: 'b',
    }
    expect(isAnchoredEdit(insert)).toBe(true)
    expect(isAnchoredEdit({ ...insert, occurrence: 1 })).toBe(false)
  })

  it('refuses every match, the nth match, line numbers and whole-file writes', () => {
    expect(isAnchoredEdit({ ...replace, replaceAll: true })).toBe(false)
    expect(isAnchoredEdit({ ...replace, expectedMatches: 2 })).toBe(false)
    expect(isAnchoredEdit({ ...replace, occurrence: -1 })).toBe(false)
    expect(
      isAnchoredEdit({ mode: 'replace_range', index: 0, startLine: 1, endLine: 1, newString: '' }),
    ).toBe(false)
    expect(isAnchoredEdit({ mode: 'delete_range', index: 0, startLine: 1, endLine: 1 })).toBe(false)
    expect(isAnchoredEdit({ mode: 'write', index: 0, content: '' })).toBe(false)
  })
})
