import { describe, expect, it } from 'vitest'
import type { EditErrorData } from '../../../src/errors.js'
import { parseEditsJson } from '../../../src/parse/edits.js'
import type { EditPlan, EditsOp } from '../../../src/types.js'
import { runParserContract } from '../../contract/parser.contract.js'

const HASH = `sha256:${'ab'.repeat(32)}`
const XY = { old_string: 'x', new_string: 'y' }
const REPLACE_XY = { mode: 'replace', oldString: 'x', newString: 'y' } as const

function plan(value: unknown): EditPlan {
  const result = parseEditsJson(typeof value === 'string' ? value : JSON.stringify(value))
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`)
  return result.value
}

function edits(...list: unknown[]): EditsOp[] {
  return plan({ edits: list }).ops as EditsOp[]
}

function failure(value: unknown): EditErrorData {
  const result = parseEditsJson(typeof value === 'string' ? value : JSON.stringify(value))
  if (result.ok) throw new Error('expected a failure')
  return result.error
}

function editFailure(edit: unknown, before: unknown[] = []): EditErrorData {
  return failure({ edits: [...before, edit] })
}

runParserContract('edits', parseEditsJson, {
  valid: [
    '{"edits":[{"path":"a.ts","old_string":"x","new_string":"y"}]}',
    '[{"path":"a.ts","mode":"write","content":"hi"}]',
    JSON.stringify([{ path: 'b', mode: 'delete_range', startLine: 1, endLine: 2 }], null, 1),
  ],
  invalid: [
    '{"edits":[{"path":"a.ts"}]}',
    '{"edits":[',
    '{"edits":[]}',
    '{\n"edits": [\n{"path": "a", "old_string": "x", "new_string": "y", "bogus": 1}\n]\n}',
    '"just a string"',
  ],
})

describe('parseEditsJson', () => {
  it('parses a replace edit with defaults', () => {
    expect(plan({ edits: [{ path: 'a.ts', old_string: 'x', new_string: 'y' }] })).toEqual({
      format: 'edits',
      ops: [
        {
          kind: 'edits',
          path: 'a.ts',
          patchLine: 1,
          edits: [{ mode: 'replace', index: 0, oldString: 'x', newString: 'y', replaceAll: false }],
        },
      ],
    })
  })

  it('accepts a bare top-level array', () => {
    expect(plan([{ path: 'a', old_string: 'x', new_string: 'y' }])).toEqual(
      plan({ edits: [{ path: 'a', old_string: 'x', new_string: 'y' }] }),
    )
  })

  it('parses every mode with its fields', () => {
    const result = edits(
      { ...XY, path: 'a', mode: 'replace', replace_all: true, expected_hash: HASH },
      { path: 'a', old_string: 'x', new_string: 'y', expected_matches: 3 },
      { path: 'a', mode: 'insert', anchor: 'fn main', position: 'before', new_string: '// hi' },
      { path: 'a', mode: 'replace_range', start_line: 2, end_line: 4, new_string: 'z' },
      { path: 'a', mode: 'delete_range', start_line: 5, end_line: 5 },
      { path: 'a', mode: 'write', content: 'all' },
      { path: 'a', mode: 'insert', after_line: 0, new_string: 'top' },
      { path: 'a', mode: 'insert', afterLine: 7, newString: 'x' },
    )
    expect(result[0]?.edits).toEqual([
      { ...REPLACE_XY, index: 0, replaceAll: true, expectedHash: HASH },
      { ...REPLACE_XY, index: 1, replaceAll: false, expectedMatches: 3 },
      { mode: 'insert', index: 2, anchor: 'fn main', position: 'before', newString: '// hi' },
      { mode: 'replace_range', index: 3, startLine: 2, endLine: 4, newString: 'z' },
      { mode: 'delete_range', index: 4, startLine: 5, endLine: 5 },
      { mode: 'write', index: 5, content: 'all' },
      { mode: 'insert_line', index: 6, afterLine: 0, newString: 'top' },
      { mode: 'insert_line', index: 7, afterLine: 7, newString: 'x' },
    ])
  })

  it('accepts camelCase spellings', () => {
    const result = edits(
      { path: 'a', oldString: 'x', newString: 'y', replaceAll: false, expectedHash: HASH },
      { path: 'a', old_string: 'x', newString: 'y', expectedMatches: 2 },
      { path: 'a', mode: 'replace_range', startLine: 1, endLine: 1, newString: '' },
    )
    expect(result[0]?.edits).toEqual([
      { ...REPLACE_XY, index: 0, replaceAll: false, expectedHash: HASH },
      { ...REPLACE_XY, index: 1, replaceAll: false, expectedMatches: 2 },
      { mode: 'replace_range', index: 2, startLine: 1, endLine: 1, newString: '' },
    ])
  })

  it('allows an empty old_string (creation is decided at apply time)', () => {
    const [op] = edits({ path: 'new.txt', old_string: '', new_string: 'hi' })
    expect(op?.edits[0]).toMatchObject({ oldString: '' })
  })

  it('lower-cases expected_hash', () => {
    const upper = `sha256:${'AB'.repeat(32)}`
    const result = edits({ path: 'a', mode: 'write', content: '', expected_hash: upper })
    expect(result[0]?.edits[0]).toMatchObject({ expectedHash: HASH })
  })

  it('groups edits by path in order of first appearance, keeping request indexes', () => {
    const result = edits(
      { path: 'b', mode: 'write', content: '1' },
      { path: 'a', mode: 'write', content: '2' },
      { path: 'b', mode: 'write', content: '3' },
    )
    expect(result.map((op) => [op.path, op.patchLine, op.edits.map((e) => e.index)])).toEqual([
      ['b', 1, [0, 2]],
      ['a', 2, [1]],
    ])
  })

  it('refuses invalid JSON with PARSE_BAD_EDIT carrying the JSON error and its line', () => {
    const error = failure('{\n  "edits": [\n    {"path": "a",,}\n  ]\n}')
    expect(error.code).toBe('PARSE_BAD_EDIT')
    expect(error.message).toMatch(/^The edit list is not valid JSON: .+/)
    expect(error.patchLine).toBe(3)
  })

  it('refuses top-level shapes other than an edits object or array', () => {
    expect(failure('"x"').message).toContain('"edits" array')
    expect(failure('null').code).toBe('PARSE_BAD_EDIT')
    expect(failure({ edit: [] }).message).toContain('unknown field "edit"')
    expect(failure({ edits: {} }).message).toContain('"edits" field holding an array')
    expect(failure({ edits: [] }).message).toBe('The edit list is empty.')
  })

  it('names the edit number, path and field in every edit error', () => {
    const ok = { path: 'ok.txt', mode: 'write', content: '' }
    const error = editFailure({ path: 'src/a.ts', old_string: 'x' }, [ok, ok])
    expect(error).toMatchObject({ code: 'PARSE_BAD_EDIT', path: 'src/a.ts' })
    expect(error.message).toBe('Edit 3 (src/a.ts): field "new_string" is required.')
  })

  it.each([
    [['not an object'], 'Edit 1: must be an object.'],
    [{ old_string: 'x', new_string: 'y' }, 'field "path" is required'],
    [{ path: '', old_string: 'x', new_string: 'y' }, 'field "path" must be a non-empty string'],
    [{ path: 3, old_string: 'x', new_string: 'y' }, 'field "path" must be a non-empty string'],
    [{ path: 'a', new_string: 'y' }, 'field "old_string" is required (or set "mode")'],
    [{ path: 'a', mode: 'patch', content: '' }, 'field "mode" must be one of'],
    [{ path: 'a', old_string: 'x', new_string: 'y', extra: 1 }, 'unknown field "extra"'],
    [
      { path: 'a', old_string: 'x', new_string: 'y', content: 'c' },
      'field "content" does not apply to mode "replace"',
    ],
    [
      { path: 'a', mode: 'write', content: 'c', anchor: 'x' },
      'field "anchor" does not apply to mode "write"',
    ],
    [{ path: 'a', old_string: 1, new_string: 'y' }, 'field "old_string" must be a string'],
    [{ path: 'a', old_string: 'x', new_string: null }, 'field "new_string" must be a string'],
    [
      { path: 'a', old_string: 'x', new_string: 'y', replace_all: 'yes' },
      'field "replace_all" must be true or false',
    ],
    [
      { path: 'a', old_string: 'x', new_string: 'y', expected_matches: 0 },
      'field "expected_matches" must be a positive integer',
    ],
    [
      { path: 'a', old_string: 'x', new_string: 'y', expected_matches: 1.5 },
      'field "expected_matches" must be a positive integer',
    ],
    [
      { path: 'a', old_string: 'x', new_string: 'y', replace_all: true, expected_matches: 2 },
      'fields "replace_all" and "expected_matches" conflict',
    ],
    [
      { path: 'a', oldString: 'x', old_string: 'x', new_string: 'y' },
      'field "old_string" is given twice',
    ],
    [
      { path: 'a', mode: 'insert', anchor: '', position: 'after', new_string: 'x' },
      'field "anchor" must not be empty',
    ],
    [{ path: 'a', mode: 'insert', anchor: 'a', new_string: 'x' }, 'field "position" is required'],
    [
      { path: 'a', mode: 'insert', anchor: 'a', position: 'inside', new_string: 'x' },
      'field "position" must be "before" or "after"',
    ],
    [
      { path: 'a', mode: 'insert', anchor: 'a', position: 'after' },
      'field "new_string" is required',
    ],
    [
      { path: 'a', mode: 'insert', after_line: -1, new_string: 'x' },
      'field "after_line" must be an integer from 0 (before the first line)',
    ],
    [
      { path: 'a', mode: 'insert', after_line: 1.5, new_string: 'x' },
      'field "after_line" must be an integer from 0',
    ],
    [
      { path: 'a', mode: 'insert', after_line: 1, anchor: 'a', new_string: 'x' },
      'field "anchor" does not apply to an insert at "after_line"',
    ],
    [
      { path: 'a', mode: 'insert', after_line: 1, position: 'after', new_string: 'x' },
      'field "position" does not apply to an insert at "after_line"',
    ],
    [{ path: 'a', mode: 'insert', after_line: 1 }, 'field "new_string" is required'],
    [
      { path: 'a', mode: 'replace_range', start_line: 1, new_string: '' },
      'field "end_line" is required',
    ],
    [
      { path: 'a', mode: 'replace_range', start_line: 1, end_line: 2 },
      'field "new_string" is required',
    ],
    [
      { path: 'a', mode: 'delete_range', start_line: 0, end_line: 2 },
      'field "start_line" must be a positive integer',
    ],
    [
      { path: 'a', mode: 'delete_range', start_line: '1', end_line: 2 },
      'field "start_line" must be a positive integer',
    ],
    [
      { path: 'a', mode: 'delete_range', start_line: 3, end_line: 2 },
      'field "start_line" (3) is after "end_line" (2)',
    ],
    [
      { path: 'a', mode: 'delete_range', start_line: 1, end_line: 2, new_string: 'x' },
      'field "new_string" does not apply to mode "delete_range"',
    ],
    [{ path: 'a', mode: 'write' }, 'field "content" is required'],
    [
      { path: 'a', mode: 'write', content: '', expected_hash: 'md5:abc' },
      'field "expected_hash" must look like',
    ],
    [
      { path: 'a', mode: 'write', content: '', expected_hash: `sha256:${'a'.repeat(63)}` },
      'field "expected_hash" must look like',
    ],
  ])('refuses %j with PARSE_BAD_EDIT', (edit, expected) => {
    const error = editFailure(edit)
    expect(error.code).toBe('PARSE_BAD_EDIT')
    expect(error.message).toContain(expected)
    expect(error.message).toMatch(/^Edit 1\b/)
  })
})

describe('parseEditsJson error lines', () => {
  it('reports the last line, not a phantom one, for JSON cut off after a newline', () => {
    const error = failure('{"edits":[\n  {"path":"a"\n')
    expect(error.code).toBe('PARSE_BAD_EDIT')
    expect(error.patchLine).toBe(2)
  })
})
