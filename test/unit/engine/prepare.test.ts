import { describe, expect, it } from 'vitest'
import { EditError } from '../../../src/errors.js'
import { checkDuplicates, type ResolvedOp } from '../../../src/engine/prepare.js'

function add(rel: string, patchLine: number): ResolvedOp {
  return {
    op: { kind: 'add', path: rel, patchLine, content: '', overwrite: false },
    target: { input: rel, rel, abs: `/ws/${rel}` },
  }
}

function errorOf(run: () => void): EditError | undefined {
  try {
    run()
    return undefined
  } catch (error) {
    return error as EditError
  }
}

describe('checkDuplicates', () => {
  it('allows names that differ only in case on a case-sensitive filesystem', () => {
    expect(errorOf(() => checkDuplicates([add('README.md', 2), add('readme.md', 5)], false))).toBe(
      undefined,
    )
  })

  it('refuses names that differ only in case on a case-insensitive filesystem', () => {
    const error = errorOf(() => checkDuplicates([add('README.md', 2), add('readme.md', 5)], true))
    expect(error).toMatchObject({ code: 'PATH_DUPLICATE', path: 'readme.md', patchLine: 5 })
    expect(error?.message).toContain('as README.md; this filesystem ignores case')
  })

  it('refuses the same path twice either way, and counts move destinations', () => {
    for (const folds of [false, true]) {
      expect(errorOf(() => checkDuplicates([add('a.txt', 2), add('a.txt', 4)], folds))?.code).toBe(
        'PATH_DUPLICATE',
      )
    }
    const move: ResolvedOp = {
      ...add('old.txt', 2),
      moveTo: { input: 'New.txt', rel: 'New.txt', abs: '/ws/New.txt' },
    }
    expect(errorOf(() => checkDuplicates([move, add('new.txt', 6)], true))?.code).toBe(
      'PATH_DUPLICATE',
    )
    expect(errorOf(() => checkDuplicates([move, add('new.txt', 6)], false))).toBe(undefined)
  })

  it('says two names are one file through a symlink, not by case folding', () => {
    const alias: ResolvedOp = {
      ...add('alias.txt', 5),
      target: { input: 'alias.txt', rel: 'alias.txt', abs: '/ws/real.txt' },
    }
    for (const folds of [false, true]) {
      const error = errorOf(() => checkDuplicates([add('real.txt', 2), alias], folds))
      expect(error).toMatchObject({ code: 'PATH_DUPLICATE', path: 'alias.txt', patchLine: 5 })
      expect(error?.message).toContain('as real.txt; the same file through a symlink')
    }
  })

  it('leaves a path named again as written to the sequence rules of a unified plan', () => {
    const del: ResolvedOp = {
      op: { kind: 'delete', path: 'f', patchLine: 1, hunks: [] },
      target: { input: 'f', rel: 'f', abs: '/ws/f' },
    }
    expect(errorOf(() => checkDuplicates([del, add('f', 8)], false, true))).toBe(undefined)
    expect(errorOf(() => checkDuplicates([add('f', 1), add('f', 8)], false, true))).toBe(undefined)
    // Other formats name each path once.
    expect(errorOf(() => checkDuplicates([del, add('f', 8)], false))?.code).toBe('PATH_DUPLICATE')
    // Two spellings of one file stay two changes to it, even in a unified plan.
    const viaLink: ResolvedOp = {
      ...add('alias', 8),
      target: { input: 'alias', rel: 'alias', abs: '/ws/f' },
    }
    expect(errorOf(() => checkDuplicates([del, viaLink], false, true))?.code).toBe('PATH_DUPLICATE')
  })
})
