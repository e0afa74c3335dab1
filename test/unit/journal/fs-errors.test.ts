// The errno -> error code mapping a failed commit reports, and whether each code is retryable.
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../../../src/errors.js'
import { codeForErrno, reasonOf } from '../../../src/journal/fs-errors.js'
import { errnoOf } from '../../../src/journal/fs.js'
import { errnoError } from './fixtures.js'

describe('codeForErrno', () => {
  const TABLE: [string, string, boolean][] = [
    ['ENOSPC', 'JOURNAL_NO_SPACE', true],
    ['EDQUOT', 'JOURNAL_NO_SPACE', true],
    ['EACCES', 'JOURNAL_PERMISSION_DENIED', false],
    ['EPERM', 'JOURNAL_PERMISSION_DENIED', false],
    ['EROFS', 'JOURNAL_READ_ONLY', false],
    ['EMFILE', 'JOURNAL_TOO_MANY_OPEN_FILES', true],
    ['ENFILE', 'JOURNAL_TOO_MANY_OPEN_FILES', true],
    ['EXDEV', 'JOURNAL_CROSS_DEVICE', false],
    ['EISDIR', 'FILE_CHANGED', true],
    ['ENOTDIR', 'FILE_CHANGED', true],
    ['ENOTEMPTY', 'FILE_CHANGED', true],
    ['EIO', 'JOURNAL_COMMIT_FAILED', true],
  ]
  for (const [errno, code, retryable] of TABLE) {
    it(`maps ${errno} to ${code} (retryable ${retryable})`, () => {
      expect(codeForErrno(errnoError(errno))).toBe(code)
      expect(ERROR_CODES[codeForErrno(errnoError(errno))].retryable).toBe(retryable)
    })
  }

  it('maps an error without an errno to JOURNAL_COMMIT_FAILED', () => {
    expect(codeForErrno(new Error('boom'))).toBe('JOURNAL_COMMIT_FAILED')
    expect(codeForErrno(undefined)).toBe('JOURNAL_COMMIT_FAILED')
  })
})

describe('reasonOf and errnoOf', () => {
  it('give the errno, or the message when there is none', () => {
    expect(reasonOf(errnoError('ENOSPC'))).toBe('ENOSPC')
    expect(reasonOf(new Error('boom'))).toBe('boom')
    expect(errnoOf(errnoError('EXDEV'))).toBe('EXDEV')
    expect(errnoOf(Object.assign(new Error('x'), { code: 5 }))).toBeUndefined()
    expect(errnoOf(null)).toBeUndefined()
  })
})
