// OpenAI apply_patch operations as Codex sections (src/adapters/v4a.ts): the text each one
// becomes, the refusals (an envelope, a header a line would inject, a line break in a path,
// a create line without '+'), where each diff lands in the combined patch, and a property: any
// operation it accepts parses, through the Codex parser, as exactly that one file operation.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  codexPatch,
  codexSection,
  sectionLines,
  type CodexSection,
} from '../../../src/adapters/v4a.js'
import { parseCodexPatch } from '../../../src/parse/codex.js'
import { fuzzRuns } from '../../helpers/test-mode.js'

function section(operation: unknown): CodexSection {
  const result = codexSection(operation)
  if (!result.ok) throw new Error(`refused: ${result.error.code} ${result.error.message}`)
  return result.value
}

function refusal(operation: unknown): { code: string; message: string } {
  const result = codexSection(operation)
  if (result.ok) throw new Error(`accepted: ${JSON.stringify(result.value.text)}`)
  return { code: result.error.code, message: result.error.message }
}

describe('codexSection', () => {
  it('makes an update_file diff the body of an Update File, hints and End of File as they are', () => {
    const s = section({
      type: 'update_file',
      path: 'src/a.ts',
      diff: '@@ class A\n@@ def f\n ctx\n-old\n+new\n*** End of File',
    })
    expect(s).toEqual({
      type: 'update_file',
      text: '*** Update File: src/a.ts\n@@ class A\n@@ def f\n ctx\n-old\n+new\n*** End of File\n',
      headerLines: 1,
      path: 'src/a.ts',
    })
  })

  it("splits a diff's lines as the Codex parser does: at LF, a trailing CR dropped", () => {
    expect(section({ type: 'update_file', path: 'a', diff: ' x\r\n-y\r\n+z\r\n' }).text).toBe(
      '*** Update File: a\n x\n-y\n+z\n',
    )
  })

  it("makes create_file's + lines an Add File, trailing blank lines ending it as in Codex", () => {
    expect(section({ type: 'create_file', path: 'n.txt', diff: '+a\n+\n+b\n\n' }).text).toBe(
      '*** Add File: n.txt\n+a\n+\n+b\n\n',
    )
    expect(section({ type: 'create_file', path: 'e.txt', diff: '' }).text).toBe(
      '*** Add File: e.txt\n',
    )
  })

  it('makes delete_file a Delete File, and an Agents SDK moveTo a Move to', () => {
    expect(section({ type: 'delete_file', path: ' old.txt ' })).toEqual({
      type: 'delete_file',
      text: '*** Delete File: old.txt\n',
      headerLines: 1,
      path: 'old.txt',
    })
    expect(section({ type: 'update_file', path: 'a', diff: '', moveTo: 'b' })).toEqual({
      type: 'update_file',
      text: '*** Update File: a\n*** Move to: b\n',
      headerLines: 2,
      path: 'a',
      moveTo: 'b',
    })
  })

  it('refuses a diff with an envelope of its own', () => {
    for (const diff of [
      '*** Begin Patch\n-a\n+b\n',
      '-a\n+b\n*** End Patch\n',
      '  *** End Patch\n',
    ]) {
      const r = refusal({ type: 'update_file', path: 'a', diff })
      expect(r.code).toBe('PARSE_BAD_HEADER')
      expect(r.message).toContain('carries a patch envelope of its own')
    }
  })

  it('refuses a line the Codex parser would read as another file operation, indented or not', () => {
    const lines = [
      '*** Add File: x',
      '*** Delete File: x',
      '*** Update File: x',
      '*** Move to: x',
      ' *** Update File: x',
      '\t*** Add File: x',
      '\uFEFF*** Delete File: x',
      '*** note',
    ]
    for (const line of lines) {
      const r = refusal({ type: 'update_file', path: 'a', diff: ` ctx\n${line}\n-a\n+b\n` })
      expect(r).toEqual({
        code: 'PARSE_BAD_HEADER',
        message: `Line 2 of the update_file diff of a is ${JSON.stringify(line)}, a *** directive: it would start another file operation. A V4A diff holds @@ lines, ' ', '-' and '+' lines and *** End of File only.`,
      })
    }
  })

  it('keeps an indented *** line that is not a header as context, as Codex does', () => {
    expect(
      section({ type: 'update_file', path: 'a', diff: ' *** banner ***\n-a\n+b\n' }).text,
    ).toBe('*** Update File: a\n *** banner ***\n-a\n+b\n')
    expect(
      section({ type: 'update_file', path: 'a', diff: '-a\n+b\n  *** End of File\n' }).text,
    ).toBe('*** Update File: a\n-a\n+b\n  *** End of File\n')
  })

  it("refuses a create_file line without '+', naming the diff's own line", () => {
    expect(refusal({ type: 'create_file', path: 'n', diff: '+a\nb\n' })).toEqual({
      code: 'PARSE_BAD_LINE',
      message:
        "Line 2 of the create_file diff of n (\"b\") does not start with '+'; every line of a new file's diff is '+' and the line's text ('+' alone for an empty line).",
    })
    expect(refusal({ type: 'create_file', path: 'n', diff: '+a\n\n+b\n' }).code).toBe(
      'PARSE_BAD_LINE',
    )
    expect(refusal({ type: 'create_file', path: 'n', diff: '+a\n*** End of File\n' }).code).toBe(
      'PARSE_BAD_LINE',
    )
  })

  it('refuses a path with a line break, an empty path, and a malformed operation', () => {
    expect(refusal({ type: 'delete_file', path: 'a\n*** Delete File: b' })).toEqual({
      code: 'PATH_INVALID',
      message: 'The path "a\\n*** Delete File: b" holds a line break; a path is one line.',
    })
    expect(refusal({ type: 'delete_file', path: 'a\rb' }).code).toBe('PATH_INVALID')
    expect(refusal({ type: 'update_file', path: 'a', diff: '-x\n+y\n', moveTo: 'b\nc' })).toEqual({
      code: 'PATH_INVALID',
      message: 'The moveTo "b\\nc" holds a line break; a path is one line.',
    })
    expect(refusal({ type: 'delete_file', path: '  ' })).toEqual({
      code: 'PATH_INVALID',
      message: 'The path is empty.',
    })
    expect(refusal({ type: 'rename_file', path: 'a' }).code).toBe('PARSE_BAD_HEADER')
    expect(refusal(null).code).toBe('PARSE_BAD_HEADER')
    expect(refusal({ type: 'update_file', path: 'a' }).message).toBe(
      'The update_file operation on a has no diff (a string).',
    )
    expect(refusal({ type: 'create_file', path: 'a', diff: '+x', moveTo: 'b' }).code).toBe(
      'PARSE_BAD_HEADER',
    )
  })
})

describe('codexPatch and sectionLines', () => {
  it("wrap the sections in one envelope and say where each one's header and diff are", () => {
    const sections = [
      section({ type: 'update_file', path: 'a', diff: '-x\n+y\n' }),
      section({ type: 'delete_file', path: 'b' }),
      section({ type: 'update_file', path: 'c', diff: '-x\n+y', moveTo: 'd' }),
    ]
    expect(codexPatch(sections)).toBe(
      [
        '*** Begin Patch',
        '*** Update File: a',
        '-x',
        '+y',
        '*** Delete File: b',
        '*** Update File: c',
        '*** Move to: d',
        '-x',
        '+y',
        '*** End Patch',
        '',
      ].join('\n'),
    )
    expect(sectionLines(sections)).toEqual([
      { header: 2, diff: 3 },
      { header: 5, diff: 6 },
      { header: 6, diff: 8 },
    ])
  })

  it('give, for any accepted operation, a patch the Codex parser reads as that one operation', () => {
    const line = fc.oneof(
      fc.constantFrom(
        '',
        '***',
        '*** Add File: x',
        ' *** Update File: y',
        '*** End of File',
        '@@',
        '@@ f',
      ),
      fc.string({ maxLength: 6 }),
    )
    const prefixed = fc.tuple(fc.constantFrom(' ', '-', '+', '', '  '), line).map(([p, l]) => p + l)
    const diff = fc.array(prefixed, { maxLength: 6 }).map((ls) => ls.join('\n'))
    const operation = fc.record({
      type: fc.constantFrom('create_file', 'update_file', 'delete_file'),
      path: fc.constantFrom('a.txt', 'dir/b.ts', ' c '),
      diff,
    })
    fc.assert(
      fc.property(operation, (op) => {
        const s = codexSection(op)
        if (!s.ok) return
        const plan = parseCodexPatch(codexPatch([s.value]))
        if (!plan.ok) return // A refusal of the parser's own is fine: no other operation runs.
        expect(plan.value.ops).toHaveLength(1)
        const [parsed] = plan.value.ops
        expect(parsed?.path).toBe(op.path.trim())
        expect(parsed?.kind).toBe(
          { create_file: 'add', update_file: 'update', delete_file: 'delete' }[op.type],
        )
      }),
      { numRuns: fuzzRuns(2000) },
    )
  })
})
