import { describe, expect, it } from 'vitest'
import { EditError, ERROR_CODES, errorData, isEditError, type ErrorCode } from '../../src/errors.js'

const CODES = Object.keys(ERROR_CODES) as ErrorCode[]

// Areas from the house style's catalogue, plus APPROVAL (library approve callback), USAGE (CLI),
// LIMIT (request-size limits), UNDO (journal undo), REPLAY (history replay), EDIT (edit-level
// refusals), PATCH (a patch's change to a file as a whole) and SERVER (the MCP/HTTP server).
const AREAS = [
  'PARSE',
  'PATH',
  'FILE',
  'MATCH',
  'APPROVAL',
  'JOURNAL',
  'WORKER',
  'REQUEST',
  'LSP',
  'CONFIG',
  'USAGE',
  'LIMIT',
  'UNDO',
  'REPLAY',
  'EDIT',
  'PATCH',
  'SERVER',
  'QUEUE',
  'BATCH',
]

// "Resending the same request, unchanged, may succeed": only these conditions pass by themselves.
const TRANSIENT = new Set<string>([
  'FILE_CHANGED',
  'JOURNAL_COMMIT_FAILED',
  'JOURNAL_NO_SPACE',
  'JOURNAL_TOO_MANY_OPEN_FILES',
  'JOURNAL_LOCKED',
  'WORKER_CRASHED',
  'REQUEST_CANCELLED',
  'REQUEST_TIMEOUT',
  'LSP_START_FAILED',
  'LSP_TIMEOUT',
  'LSP_CRASHED',
  'SERVER_BUSY',
  'SERVER_CLOSING',
  'QUEUE_UNREACHABLE',
  'QUEUE_CLONE_FAILED',
])

describe('ERROR_CODES', () => {
  it('names every code AREA_REASON with a known area (INTERNAL alone has no reason)', () => {
    for (const code of CODES) {
      if (code === 'INTERNAL') continue
      expect(code).toMatch(/^[A-Z]+_[A-Z_]+$/)
      expect(AREAS, code).toContain(code.split('_')[0])
    }
  })

  it('gives every code a meaning and a hint', () => {
    for (const code of CODES) {
      expect(ERROR_CODES[code].meaning.trim(), code).not.toBe('')
      expect(ERROR_CODES[code].hint.trim(), code).not.toBe('')
    }
  })

  it('marks exactly the transient codes retryable', () => {
    for (const code of CODES) expect(ERROR_CODES[code].retryable, code).toBe(TRANSIENT.has(code))
  })
})

describe('errorData', () => {
  it('fills hint and retryable from the table and omits absent details', () => {
    const data = errorData('FILE_CHANGED', 'a.txt changed.')
    expect(data).toEqual({
      code: 'FILE_CHANGED',
      message: 'a.txt changed.',
      hint: ERROR_CODES.FILE_CHANGED.hint,
      retryable: true,
    })
    expect(Object.keys(data)).not.toContain('path')
  })

  it('keeps a sharper hint and every detail given', () => {
    const candidates = [{ fileLine: 3, score: 0.9, preview: 'x' }]
    const details = { hint: 'h', path: 'p', patchLine: 7, candidates, currentHash: 'sha256:0' }
    expect(errorData('MATCH_NOT_FOUND', 'm', details)).toEqual({
      code: 'MATCH_NOT_FOUND',
      message: 'm',
      hint: 'h',
      retryable: false,
      path: 'p',
      patchLine: 7,
      candidates,
      currentHash: 'sha256:0',
    })
  })
})

describe('EditError', () => {
  const message = 'src/a.ts: the hunk at patch line 9 matches at lines 3 and 30.'
  const data = errorData('MATCH_AMBIGUOUS', message, {
    path: 'src/a.ts',
    patchLine: 9,
    candidates: [
      { fileLine: 3, score: 1, preview: 'foo()' },
      { fileLine: 30, score: 1, preview: 'foo()' },
    ],
  })

  it('round-trips through fromData and toData', () => {
    const error = EditError.fromData(data)
    expect(error).toBeInstanceOf(Error)
    expect(isEditError(error)).toBe(true)
    expect(error.message).toBe(data.message)
    expect(error.toData()).toEqual(data)
  })

  it('keeps the cause without serialising it', () => {
    const cause = new Error('EACCES')
    const error = EditError.fromData(data, cause)
    expect(error.cause).toBe(cause)
    expect(JSON.stringify(error.toData())).not.toContain('EACCES')
  })

  it('derives retryable from the code', () => {
    expect(new EditError('REQUEST_CANCELLED', 'cancelled').retryable).toBe(true)
    expect(new EditError('PATH_DENIED', 'denied').retryable).toBe(false)
  })

  it('produces data that survives structuredClone and JSON unchanged', () => {
    const out = EditError.fromData(data).toData()
    expect(structuredClone(out)).toEqual(data)
    expect(JSON.parse(JSON.stringify(out))).toEqual(data)
  })

  it('is not mistaken for a plain Error', () => {
    expect(isEditError(new Error('x'))).toBe(false)
    expect(isEditError({ ...data })).toBe(false)
  })
})
