// The edit-mode fields in the JSON edit grammar (src/parse/edits.ts): occurrence, regex
// and flags, strict, tolerant_whitespace, allow_rewrite, their camelCase spellings and conflicts.
import { describe, expect, it } from 'vitest'
import type { EditErrorData } from '../../../src/errors.js'
import { parseEditsJson } from '../../../src/parse/edits.js'
import type { EditsOp, StringEdit } from '../../../src/types.js'

function edit(fields: Record<string, unknown>): StringEdit {
  const result = parseEditsJson(JSON.stringify({ edits: [{ path: 'a.ts', ...fields }] }))
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`)
  return (result.value.ops[0] as EditsOp).edits[0] as StringEdit
}

function refusal(fields: Record<string, unknown>): EditErrorData {
  const result = parseEditsJson(JSON.stringify({ edits: [{ path: 'a.ts', ...fields }] }))
  if (result.ok) throw new Error('expected a failure')
  return result.error
}

const XY = { old_string: 'x', new_string: 'y' }
const INSERT = { mode: 'insert', anchor: 'a', position: 'after', new_string: 'b' }

describe('parseEditsJson edit modes', () => {
  it('keeps occurrence on replace and insert, negative values included', () => {
    expect(edit({ ...XY, occurrence: 2 })).toMatchObject({ mode: 'replace', occurrence: 2 })
    expect(edit({ ...XY, occurrence: -1 })).toMatchObject({ occurrence: -1 })
    expect(edit({ ...INSERT, occurrence: -2 })).toMatchObject({ mode: 'insert', occurrence: -2 })
  })

  it('refuses occurrence 0, a fraction or a string', () => {
    for (const occurrence of [0, 1.5, '1']) {
      expect(refusal({ ...XY, occurrence })).toMatchObject({
        code: 'PARSE_BAD_EDIT',
        message: expect.stringContaining('"occurrence" must be a non-zero integer'),
      })
    }
  })

  it('refuses occurrence with replace_all or expected_matches', () => {
    expect(refusal({ ...XY, occurrence: 1, replace_all: true }).message).toContain(
      'fields "occurrence" and "replace_all" conflict',
    )
    expect(refusal({ ...XY, occurrence: 1, expectedMatches: 2 }).message).toContain(
      'fields "occurrence" and "expected_matches" conflict',
    )
    expect(edit({ ...XY, occurrence: 1, replace_all: false })).toMatchObject({ occurrence: 1 })
  })

  it('keeps regex and its flags, and leaves them out when false or empty', () => {
    expect(edit({ old_string: 'a(\\d)', new_string: '$1', regex: true, flags: 'mi' })).toEqual({
      mode: 'replace',
      index: 0,
      oldString: 'a(\\d)',
      newString: '$1',
      replaceAll: false,
      regex: true,
      flags: 'mi',
    })
    expect(edit({ ...XY, regex: false })).not.toHaveProperty('regex')
    expect(edit({ ...XY, regex: true, flags: '' })).not.toHaveProperty('flags')
  })

  it('refuses a pattern that does not compile, with the engine message', () => {
    expect(refusal({ old_string: 'a(', new_string: 'b', regex: true })).toMatchObject({
      code: 'PARSE_BAD_EDIT',
      path: 'a.ts',
      message: expect.stringMatching(
        /^Edit 1 \(a\.ts\): old_string is not a valid regular expression: Invalid regular expression: .*a\(.*Unterminated group/,
      ),
    })
  })

  it('refuses unknown, repeated or global flags, and flags without regex', () => {
    for (const flags of ['g', 'y', 'mm', 'x']) {
      expect(refusal({ ...XY, regex: true, flags }).message).toContain(
        'field "flags" may hold each of "imsuv" once',
      )
    }
    expect(refusal({ ...XY, regex: true, flags: 'uv' }).message).toContain(
      'not a valid regular expression',
    )
    expect(refusal({ ...XY, flags: 'm' }).message).toContain('field "flags" needs "regex": true')
  })

  it('refuses an empty regex and regex with tolerant_whitespace', () => {
    expect(refusal({ old_string: '', new_string: 'b', regex: true }).message).toContain(
      'field "old_string" must not be empty for a regex edit',
    )
    expect(refusal({ ...XY, regex: true, tolerant_whitespace: true }).message).toContain(
      'fields "regex" and "tolerant_whitespace" conflict',
    )
  })

  it('accepts strict, tolerant_whitespace and allow_rewrite, camelCase too', () => {
    expect(edit({ ...XY, strict: true, tolerantWhitespace: true, allowRewrite: true })).toEqual({
      mode: 'replace',
      index: 0,
      oldString: 'x',
      newString: 'y',
      replaceAll: false,
      strict: true,
      tolerantWhitespace: true,
      allowRewrite: true,
    })
    expect(edit({ ...INSERT, strict: true, tolerant_whitespace: true })).toMatchObject({
      strict: true,
      tolerantWhitespace: true,
    })
    expect(edit({ ...XY, strict: false, allow_rewrite: false })).toEqual({
      mode: 'replace',
      index: 0,
      oldString: 'x',
      newString: 'y',
      replaceAll: false,
    })
  })

  it('refuses both spellings of one field and non-boolean switches', () => {
    expect(refusal({ ...XY, allow_rewrite: true, allowRewrite: true }).message).toContain(
      'field "allow_rewrite" is given twice',
    )
    expect(refusal({ ...XY, strict: 'yes' }).message).toContain(
      'field "strict" must be true or false',
    )
  })

  it('refuses fields of other modes: allow_rewrite and regex on insert, strict on ranges', () => {
    expect(refusal({ ...INSERT, allow_rewrite: true }).message).toContain(
      'field "allow_rewrite" does not apply to mode "insert"',
    )
    expect(refusal({ ...INSERT, regex: true }).message).toContain(
      'field "regex" does not apply to mode "insert"',
    )
    expect(
      refusal({ mode: 'replace_range', start_line: 1, end_line: 1, new_string: 'x', strict: true })
        .message,
    ).toContain('field "strict" does not apply to mode "replace_range"')
  })

  it('gives edits that survive structuredClone unchanged', () => {
    const parsed = edit({ old_string: '(?<n>x)', new_string: '$<n>', regex: true, occurrence: -1 })
    expect(structuredClone(parsed)).toEqual(parsed)
  })
})
