import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyStringEdits } from '../../../src/apply/string-edits.js'
import { joinLines, splitLines } from '../../../src/text/lines.js'
import type { EditErrorData } from '../../../src/errors.js'
import type { Result } from '../../../src/result.js'
import type { StringEdit, Warning } from '../../../src/types.js'

type Draft = StringEdit extends infer E ? (E extends StringEdit ? Omit<E, 'index'> : never) : never

const replace = (
  oldString: string,
  newString: string,
  extra: { replaceAll?: boolean; expectedMatches?: number } = {},
): Draft => ({
  mode: 'replace',
  oldString,
  newString,
  replaceAll: extra.replaceAll ?? false,
  ...extra,
})
const insert = (anchor: string, position: 'before' | 'after', newString: string): Draft => ({
  mode: 'insert',
  anchor,
  position,
  newString,
})
const range = (startLine: number, endLine: number, newString: string): Draft => ({
  mode: 'replace_range',
  startLine,
  endLine,
  newString,
})
const remove = (startLine: number, endLine: number): Draft => ({
  mode: 'delete_range',
  startLine,
  endLine,
})
const write = (content: string): Draft => ({ mode: 'write', content })

interface Options {
  readonly exists?: boolean
  readonly exactOnly?: boolean
  readonly firstIndex?: number
}

function run(
  text: string,
  drafts: Draft[],
  options: Options = {},
): Result<{ text: string; warnings: Warning[] }> {
  const first = options.firstIndex ?? 0
  return applyStringEdits({
    text,
    exists: options.exists ?? true,
    edits: drafts.map((draft, i) => ({ ...draft, index: first + i }) as StringEdit),
    path: 'src/f.txt',
    exactOnly: options.exactOnly ?? false,
  })
}

function applied(text: string, drafts: Draft[], options: Options = {}): string {
  const result = run(text, drafts, options)
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
  return result.value.text
}

function failure(text: string, drafts: Draft[], options: Options = {}): EditErrorData {
  const result = run(text, drafts, options)
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value.text)}`)
  return result.error
}

describe('applyStringEdits replace', () => {
  it('replaces a unique exact match', () => {
    expect(applied('a\nb\nc\n', [replace('b', 'B')])).toBe('a\nB\nc\n')
  })

  it('replaces part of a line', () => {
    expect(applied('const x = 1\n', [replace('x = 1', 'x = 2')])).toBe('const x = 2\n')
  })

  it('matches an LF old_string in a CRLF file and writes CRLF breaks', () => {
    expect(applied('a\r\nb\r\nc\r\n', [replace('b\n', 'x\ny\n')])).toBe('a\r\nx\r\ny\r\nc\r\n')
  })

  it('matches a CRLF old_string in an LF file and writes LF breaks', () => {
    expect(applied('a\nb\nc\n', [replace('a\r\nb', 'A\r\nB')])).toBe('A\nB\nc\n')
  })

  it('treats a lone CR as content, not a line ending', () => {
    expect(applied('a\rb\nc\n', [replace('a\rb\n', 'x\ry\nz\n')])).toBe('x\ry\nz\nc\n')
    expect(applied('p\rq\r\r\n', [replace('q\r', 'Q\r')])).toBe('p\rQ\r\r\n')
    expect(failure('a\rb\rc\r', [replace('a\nb', 'a\nB')]).code).toBe('MATCH_NOT_FOUND')
  })

  it('keeps each unchanged line’s own ending in a mixed file', () => {
    // Dominant is LF; line a keeps CRLF because it is unchanged.
    expect(applied('a\r\nb\nc\n', [replace('a\nb\n', 'a\nb2\n')])).toBe('a\r\nb2\nc\n')
  })

  it('keeps the last touched line’s ending and gives new breaks the dominant one', () => {
    expect(applied('a\nb\r\nc\n', [replace('b\n', 'x\ny\n')])).toBe('a\nx\ny\r\nc\n')
  })

  it('keeps a missing final newline missing', () => {
    expect(applied('a\nb', [replace('b', 'c')])).toBe('a\nc')
    expect(applied('a\nb', [replace('b', 'c\nd')])).toBe('a\nc\nd')
  })

  it('matches an old_string ending in a newline against an unterminated last line', () => {
    const result = run('a\nb', [replace('b\n', 'c\n')])
    expect(result).toEqual({ ok: true, value: { text: 'a\nc', warnings: [] } })
  })

  it('replaces every occurrence with replace_all', () => {
    expect(applied('a\nb\na\n', [replace('a', 'z', { replaceAll: true })])).toBe('z\nb\nz\n')
    expect(applied('aaa', [replace('aa', 'b', { replaceAll: true })])).toBe('ba')
  })

  it('replaces every occurrence across CRLF lines with replace_all', () => {
    expect(applied('x\r\ny\r\nx\r\ny\r\n', [replace('x\ny\n', 'z\n', { replaceAll: true })])).toBe(
      'z\r\nz\r\n',
    )
  })

  it('replaces when expected_matches equals the count', () => {
    expect(applied('a a a\n', [replace('a', 'b', { expectedMatches: 3 })])).toBe('b b b\n')
  })

  it('refuses with MATCH_COUNT_MISMATCH listing the lines when expected_matches differs', () => {
    const error = failure('foo\nbar\nfoo\nfoo\n', [replace('foo', 'x', { expectedMatches: 2 })])
    expect(error).toMatchObject({ code: 'MATCH_COUNT_MISMATCH', path: 'src/f.txt', patchLine: 1 })
    expect(error.message).toBe(
      'Edit 1: expected 2 matches of old_string in src/f.txt but found 3 (lines 1, 3, 4).',
    )
  })

  it('refuses an ambiguous old_string with MATCH_AMBIGUOUS listing matching lines', () => {
    const error = failure('let a = 1\nlet b = 2\nlet a = 1\n', [replace('let a = 1', 'let a = 3')])
    expect(error.code).toBe('MATCH_AMBIGUOUS')
    expect(error.message).toBe('Edit 1: old_string matches 2 places in src/f.txt (lines 1, 3).')
    expect(error.candidates).toEqual([
      { fileLine: 1, score: 1, preview: 'let a = 1' },
      { fileLine: 3, score: 1, preview: 'let a = 1' },
    ])
  })

  it('caps ambiguity candidates at five while the message lists every line', () => {
    const error = failure('x\n'.repeat(7), [replace('x', 'y')])
    expect(error.candidates).toHaveLength(5)
    expect(error.message).toContain('(lines 1, 2, 3, 4, 5, 6, 7)')
  })

  it('refuses a missing old_string with MATCH_NOT_FOUND and near candidates', () => {
    const file = 'function foo() {\n  return 1\n}\n\nfunction bar() {\n  return 2\n}\n'
    const error = failure(file, [replace('function baz() {\n  return 2\n}', 'x')])
    expect(error).toMatchObject({ code: 'MATCH_NOT_FOUND', path: 'src/f.txt', patchLine: 1 })
    expect(error.message).toBe('Edit 1: old_string was not found in src/f.txt.')
    expect(error.candidates?.[0]).toMatchObject({ fileLine: 5, preview: 'function bar() {' })
  })

  it('matches ignoring trailing whitespace, keeps unchanged file lines, and warns', () => {
    const result = run('a  \nb \nc\n', [replace('a\nb', 'x\nb')])
    expect(result).toEqual({
      ok: true,
      value: {
        text: 'x\nb \nc\n',
        warnings: [
          {
            code: 'match.lenient',
            message: 'edit 1 matched after ignoring trailing whitespace at line 1',
            path: 'src/f.txt',
            patchLine: 1,
          },
        ],
      },
    })
  })

  it('restyles added lines to the file’s indentation after a trim match', () => {
    const file = '    if (x) {\n        go()\n    }\n'
    const edit = replace('if (x) {\n    go()\n}', 'if (x) {\n    go()\n    stop()\n}')
    const result = run(file, [edit])
    if (!result.ok) throw new Error(result.error.message)
    expect(result.value.text).toBe('    if (x) {\n        go()\n        stop()\n    }\n')
    expect(result.value.warnings[0]?.message).toBe(
      'edit 1 matched after ignoring leading and trailing whitespace at line 1',
    )
  })

  it('keeps the file’s curly quotes after a fold match', () => {
    const result = run('say “hi” now\nend\n', [replace('say "hi" now', 'say "bye" now')])
    if (!result.ok) throw new Error(result.error.message)
    expect(result.value.text).toBe('say “bye” now\nend\n')
    expect(result.value.warnings[0]?.message).toContain('folding Unicode punctuation')
  })

  it('keeps CRLF endings on lines replaced after a lenient match', () => {
    expect(applied('a \r\nb\r\n', [replace('a\n', 'x\ny\n')])).toBe('x\r\ny\r\nb\r\n')
  })

  it('replaces every lenient multi-line match bottom-up with replace_all', () => {
    const edit = replace('a\nb', 'z', { replaceAll: true })
    expect(applied('a \nb\nmid\na \nb\n', [edit])).toBe('z\nmid\nz\n')
  })

  it('refuses a lenient match that is ambiguous, and replaces all with replace_all', () => {
    expect(failure('x\nx\n', [replace('x  ', 'y')]).code).toBe('MATCH_AMBIGUOUS')
    expect(applied('x\nx\n', [replace('x  ', 'y', { replaceAll: true })])).toBe('y\ny\n')
  })

  it('checks expected_matches against lenient matches too', () => {
    expect(applied('x\nx\n', [replace('x  ', 'y', { expectedMatches: 2 })])).toBe('y\ny\n')
    expect(failure('x\nx\n', [replace('x  ', 'y', { expectedMatches: 1 })]).code).toBe(
      'MATCH_COUNT_MISMATCH',
    )
  })

  it('refuses an empty old_string on an existing file with PARSE_BAD_EDIT', () => {
    const error = failure('a\n', [replace('', 'x')])
    expect(error).toMatchObject({ code: 'PARSE_BAD_EDIT', path: 'src/f.txt' })
    expect(error.message).toContain('old_string is empty; use mode write or insert')
  })
})

describe('applyStringEdits on bytes-mode files (exactOnly)', () => {
  it('applies exact matches', () => {
    const out = applied('\u00ff\u0000a\n', [replace('a', 'b')], { exactOnly: true })
    expect(out).toBe('\u00ff\u0000b\n')
  })

  it('refuses with FILE_NOT_TEXT when only a lenient pass would match', () => {
    const error = failure('\u0000x  \n', [replace('\u0000x\n', 'y\n')], { exactOnly: true })
    expect(error.code).toBe('FILE_NOT_TEXT')
    expect(error.message).toContain('ignoring trailing whitespace')
    const anchor = failure('\u0000x  \n', [insert('x   ', 'after', 'y')], { exactOnly: true })
    expect(anchor.code).toBe('FILE_NOT_TEXT')
  })

  it('refuses with MATCH_NOT_FOUND when nothing would match', () => {
    expect(failure('\u0000x\n', [replace('zzz', 'y')], { exactOnly: true }).code).toBe(
      'MATCH_NOT_FOUND',
    )
  })
})

describe('applyStringEdits insert', () => {
  it('inserts whole lines after the anchor line', () => {
    expect(applied('a\nb\nc\n', [insert('b', 'after', 'x')])).toBe('a\nb\nx\nc\n')
  })

  it('inserts whole lines before the anchor line', () => {
    expect(applied('a\nb\nc\n', [insert('b', 'before', 'x\ny\n')])).toBe('a\nx\ny\nb\nc\n')
  })

  it('finds the anchor as part of a line', () => {
    expect(applied('use x\npub fn main() {\n}\n', [insert('fn main', 'before', '#[test]')])).toBe(
      'use x\n#[test]\npub fn main() {\n}\n',
    )
  })

  it('gives inserted lines the file’s dominant ending', () => {
    expect(applied('a\r\nb\r\n', [insert('a', 'after', 'x\ny')])).toBe('a\r\nx\r\ny\r\nb\r\n')
    // A lone CR ends no line: a CR-only file is one line, and new lines end in LF.
    expect(applied('a\rb\r', [insert('b', 'before', 'x\n')])).toBe('x\na\rb\r')
  })

  it('keeps a missing final newline missing when inserting after the last line', () => {
    expect(applied('a\nb', [insert('b', 'after', 'c')])).toBe('a\nb\nc')
  })

  it('matches a multi-line anchor across CRLF lines and inserts after its last line', () => {
    expect(applied('a\r\nb\r\nc\r\n', [insert('a\nb', 'after', 'x')])).toBe('a\r\nb\r\nx\r\nc\r\n')
    expect(applied('a\r\nb\r\nc\r\n', [insert('a\nb', 'before', 'x')])).toBe('x\r\na\r\nb\r\nc\r\n')
  })

  it('ignores a trailing newline on the anchor', () => {
    expect(applied('a\nb', [insert('b\n', 'before', 'x')])).toBe('a\nx\nb')
  })

  it('accepts an anchor found twice on the same line', () => {
    expect(applied('x = x + 1\ny\n', [insert('x', 'after', 'z')])).toBe('x = x + 1\nz\ny\n')
  })

  it('refuses an anchor on several lines with MATCH_AMBIGUOUS', () => {
    const error = failure('}\nfoo\n}\n', [insert('}', 'after', 'x')])
    expect(error).toMatchObject({ code: 'MATCH_AMBIGUOUS', path: 'src/f.txt' })
    expect(error.message).toBe('Edit 1: anchor matches 2 places in src/f.txt (lines 1, 3).')
    expect(error.candidates?.map((c) => c.fileLine)).toEqual([1, 3])
  })

  it('falls back to lenient passes and warns', () => {
    const result = run('a\nsay “hi”\n', [insert('say "hi"', 'after', 'b')])
    if (!result.ok) throw new Error(result.error.message)
    expect(result.value.text).toBe('a\nsay “hi”\nb\n')
    expect(result.value.warnings).toEqual([
      expect.objectContaining({
        code: 'match.lenient',
        message:
          'edit 1 anchor matched after ignoring leading and trailing whitespace and folding Unicode punctuation and spaces to ASCII at line 2',
      }),
    ])
  })

  it('refuses a missing anchor with MATCH_NOT_FOUND', () => {
    const error = failure('alpha\nbeta\n', [insert('gamma', 'after', 'x')])
    expect(error.code).toBe('MATCH_NOT_FOUND')
    expect(error.message).toBe('Edit 1: anchor was not found in src/f.txt.')
  })

  it('refuses an empty new_string with EDIT_NO_OP', () => {
    expect(failure('a\n', [insert('a', 'after', '')])).toMatchObject({
      code: 'EDIT_NO_OP',
      message: 'Edit 1: new_string is empty, so the edit would leave src/f.txt unchanged.',
    })
  })
})

describe('applyStringEdits replace_range and delete_range', () => {
  it('replaces whole lines, 1-based inclusive', () => {
    expect(applied('a\nb\nc\nd\n', [range(2, 3, 'x')])).toBe('a\nx\nd\n')
    expect(applied('a\nb\nc\nd\n', [range(2, 3, 'x\ny\nz\n')])).toBe('a\nx\ny\nz\nd\n')
  })

  it('keeps CRLF endings and the last replaced line’s terminator', () => {
    expect(applied('a\r\nb\r\nc\r\n', [range(1, 2, 'x\ny')])).toBe('x\r\ny\r\nc\r\n')
    expect(applied('a\r\nb\nc\r\n', [range(1, 2, 'a\nB')])).toBe('a\r\nB\nc\r\n')
  })

  it('keeps a missing final newline missing when replacing the last line', () => {
    expect(applied('a\nb', [range(2, 2, 'c\n')])).toBe('a\nc')
  })

  it('deletes lines', () => {
    expect(applied('a\nb\nc\n', [remove(2, 2)])).toBe('a\nc\n')
    expect(applied('a\nb\nc\n', [remove(1, 3)])).toBe('')
    expect(applied('a\nb\nc\n', [range(1, 1, '')])).toBe('b\nc\n')
  })

  it('moves a missing final newline to the new last line when deleting the last line', () => {
    expect(applied('a\nb', [remove(2, 2)])).toBe('a')
  })

  it('refuses ranges outside the file with MATCH_OUT_OF_RANGE naming the line count', () => {
    const error = failure('a\nb\nc\nd\n', [range(4, 5, 'x')])
    expect(error).toMatchObject({ code: 'MATCH_OUT_OF_RANGE', path: 'src/f.txt', patchLine: 1 })
    expect(error.message).toBe('Edit 1: lines 4-5 are outside src/f.txt, which has 4 lines.')
    expect(failure('', [remove(1, 1)]).message).toContain('which has 0 lines')
    expect(failure('a', [remove(1, 2)]).message).toContain('which has 1 line.')
    expect(failure('a\n', [remove(0, 1)]).code).toBe('MATCH_OUT_OF_RANGE')
  })
})

describe('applyStringEdits write and missing files', () => {
  it('replaces the text verbatim with write', () => {
    expect(applied('a\r\nb\r\n', [write('x\ny')])).toBe('x\ny')
  })

  it('creates a missing file with write', () => {
    expect(applied('', [write('new\n')], { exists: false })).toBe('new\n')
  })

  it('creates a missing file with an empty old_string as the first edit', () => {
    expect(applied('', [replace('', 'hello\n')], { exists: false })).toBe('hello\n')
  })

  it('applies later edits to the created or written text', () => {
    expect(applied('', [replace('', 'a\nb\n'), insert('a', 'after', 'x')], { exists: false })).toBe(
      'a\nx\nb\n',
    )
    expect(applied('old\n', [write('1\n2\n'), range(2, 2, 'two')])).toBe('1\ntwo\n')
  })

  it('refuses other edits on a missing file with FILE_NOT_FOUND', () => {
    const drafts = [replace('a', 'b'), insert('a', 'after', 'b'), range(1, 1, 'x'), remove(1, 1)]
    for (const draft of drafts) {
      const error = failure('', [draft], { exists: false, firstIndex: 2 })
      expect(error).toMatchObject({ code: 'FILE_NOT_FOUND', path: 'src/f.txt', patchLine: 3 })
      expect(error.message).toMatch(/^Edit 3: src\/f\.txt does not exist/)
    }
  })
})

describe('applyStringEdits sequencing', () => {
  it('applies edits in order, each to the previous result', () => {
    expect(applied('a\nb\n', [replace('a', 'x'), replace('x', 'y')])).toBe('y\nb\n')
  })

  it('reads range line numbers against the text as it is when the edit applies', () => {
    // After the insert, line 2 is the new 'x', not the original 'b'.
    expect(applied('a\nb\nc\n', [insert('a', 'after', 'x'), remove(2, 2)])).toBe('a\nb\nc\n')
  })

  it('names the failing edit by its request number and collects warnings from all edits', () => {
    const error = failure('a\nb\n', [replace('a', 'x'), replace('zzz', 'y')], { firstIndex: 4 })
    expect(error.message).toMatch(/^Edit 6: /)
    expect(error.patchLine).toBe(6)
    const result = run('a \nb \n', [replace('a\n', 'x\n'), replace('b\n', 'y\n')])
    expect(result.ok && result.value.warnings.map((w) => w.message)).toEqual([
      'edit 1 matched after ignoring trailing whitespace at line 1',
      'edit 2 matched after ignoring trailing whitespace at line 2',
    ])
  })

  it('handles a 20k-line file without quadratic blow-up', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}`)
    const text = `${lines.join('\r\n')}\r\n`
    const out = applied(text, [
      replace('line 19999\n', 'last\n'),
      insert('line 10000\n', 'after', 'inserted'),
      range(1, 2, 'first'),
    ])
    expect(out.startsWith('first\r\nline 2\r\n')).toBe(true)
    expect(out.endsWith('line 19998\r\nlast\r\n')).toBe(true)
    expect(out).toContain('line 10000\r\ninserted\r\nline 10001\r\n')
  })
})

describe('applyStringEdits line-ending properties', () => {
  const line = fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'x'), maxLength: 4 })
  const eol = fc.constantFrom('\n', '\r\n', '\r')
  const file = fc
    .tuple(fc.array(fc.tuple(line, eol), { minLength: 1, maxLength: 8 }), fc.boolean())
    .map(([lines, finalNewline]) => {
      const text = lines.map(([t, e]) => t + e).join('')
      return finalNewline ? text : text.replace(/(\r\n|\r|\n)$/, '')
    })
    .filter((text) => text !== '')

  it('refuses, as a no-op, a whole-line range replaced by its own lines, whatever their breaks', () => {
    fc.assert(
      fc.property(file, fc.nat(), fc.nat(), (text, a, b) => {
        const lines = splitLines(text)
        const start = (a % lines.length) + 1
        const end = start + (b % (lines.length - start + 1))
        // The range's own bytes; a trailing newline keeps a range of one empty line from reading
        // as a deletion. It is CRLF so that a last line ending in a lone CR keeps it.
        const raw = joinLines(lines.slice(start - 1, end))
        const same = raw.endsWith('\n') ? raw : `${raw}\r\n`
        expect(failure(text, [range(start, end, same)]).code).toBe('EDIT_NO_OP')
      }),
    )
  })

  it('refuses, as a no-op, a range whose new lines write the bytes already there', () => {
    // Line 2 is an empty CRLF line and line 3 an empty LF line; "\r\r\n\r\n" is a line holding
    // a lone CR and an empty line, written with the file's LF: the same five bytes.
    const text = 'a\n\r\n\nb\n'
    const refused = failure(text, [range(2, 3, '\r\r\n\r\n')])
    expect(refused.code).toBe('EDIT_NO_OP')
    expect(refused.message).toContain('new_string equals lines 2-3')
  })

  it('refuses, as a no-op, old_string replaced by itself with replace_all', () => {
    fc.assert(
      // A CR before a CRLF ("x\r\r\n") reads as "x\r\n" in the LF view, which an old_string
      // means as a CRLF break; that file's own spelling is "x\r\r\n", not a view substring.
      fc.property(
        file.filter((text) => !text.includes('\r\r\n')),
        fc.nat(),
        fc.nat(),
        (text, a, b) => {
          const view = text.replace(/\r\n/g, '\n')
          const start = a % view.length
          const old = view.slice(start, start + 1 + (b % (view.length - start)))
          expect(failure(text, [replace(old, old, { replaceAll: true })]).code).toBe('EDIT_NO_OP')
        },
      ),
    )
  })
})

describe('applyStringEdits insert at an anchor ending in blank lines', () => {
  const file = 'a()\n}\n\nb()\n}\nc()\n'

  it('takes the blank lines as part of the anchor: after goes below them, before above it', () => {
    expect(applied(file, [insert('}\n\n', 'after', 'x()\n')])).toBe('a()\n}\n\nx()\nb()\n}\nc()\n')
    expect(applied(file, [insert('}\n\n', 'before', 'x()\n')])).toBe('a()\nx()\n}\n\nb()\n}\nc()\n')
  })

  it('matches only where the blank line is there (the second `}` is followed by code)', () => {
    // `}` alone is in the file twice; with its blank line it is there once.
    expect(failure(file, [insert('}\n', 'after', 'x()\n')]).code).toBe('MATCH_AMBIGUOUS')
    // Two blank lines asked for, one there: not found, rather than placed after the one.
    expect(failure(file, [insert('}\n\n\n', 'after', 'x()\n')]).code).toBe('MATCH_NOT_FOUND')
  })
})

describe('applyStringEdits re-indentation after a lenient match', () => {
  const file = 'def f(x):\n    if x:\n        y = 1\n        return y\n'

  it('gives replaced lines the file’s indentation, keeping their relative depth', () => {
    const nested = 'class A:\n    def f(x):\n        if x:\n            y = 1\n    g = 2\n'
    const edit = replace('if x:\n    y = 1', 'if x:\n    y = 1\n    if y:\n        z = 2')
    expect(applied(nested, [edit])).toBe(
      'class A:\n    def f(x):\n        if x:\n            y = 1\n            if y:\n                z = 2\n    g = 2\n',
    )
  })

  // As for a hunk (DECISIONS.md D-142, D-148): old lines at offsets from the file's that
  // disagree (4 and 6: written with a 2-space unit where the file has 4) give no depth an added
  // line can be trusted with; two points always fit some scaling, so scaling would be a guess.
  it('refuses an insertion whose old lines sit at offsets from the file that disagree', () => {
    const edit = replace('if x:\n  y = 1', 'if x:\n  y = 1\n  if y:\n    z = 2')
    expect(failure(file, [edit]).code).toBe('MATCH_INDENT_AMBIGUOUS')
  })

  it('refuses old_string and new_string that pair two ways after a lenient match', () => {
    const f = 'function f() {\n  if (a) {\n    b()\n  }\n  return c\n}\n'
    const edit = replace('if (a) {\nb()\n}\nreturn c\n}', '  if (a) {\n    d()\n  }\n  return e\n}')
    const error = failure(f, [edit])
    expect(error.code, error.message).toBe('MATCH_PAIRING_AMBIGUOUS')
  })

  it('writes tabs for a tab-indented file', () => {
    const tabs = 'func f() {\n\tif x {\n\t\treturn\n\t}\n}\n'
    const edit = replace('    if x {\n        return', '    if x {\n        log()\n        return')
    expect(applied(tabs, [edit])).toBe('func f() {\n\tif x {\n\t\tlog()\n\t\treturn\n\t}\n}\n')
  })

  it('re-indents lines inserted at a leniently matched multi-line anchor', () => {
    expect(applied(file, [insert('if x:\n    y = 1', 'after', '    log(y)\n')])).toBe(
      'def f(x):\n    if x:\n        y = 1\n        log(y)\n        return y\n',
    )
  })

  // A flattened anchor (both lines at column 0 where the file nests them) says nothing about
  // the depth of a line inserted after it, as for a hunk's insertion (DECISIONS.md D-151).
  it('refuses lines inserted after a flattened multi-line anchor', () => {
    const edit = insert('if x:\ny = 1', 'after', 'log(y)\n')
    expect(failure(file, [edit]).code).toBe('MATCH_INDENT_AMBIGUOUS')
  })

  it('re-indents lines inserted at a lenient one-line anchor that starts its line', () => {
    expect(applied(file, [insert('\tif x:', 'after', '\t\tfirst()\n')])).toBe(
      'def f(x):\n    if x:\n        first()\n        y = 1\n        return y\n',
    )
  })

  it('leaves inserted lines alone when the anchor is exact or mid-line', () => {
    expect(applied(file, [insert('    if x:', 'after', '        a()\n')])).toBe(
      'def f(x):\n    if x:\n        a()\n        y = 1\n        return y\n',
    )
    expect(applied('  call(f(x))\n', [insert('\tf(x)', 'after', 'next()\n')])).toBe(
      '  call(f(x))\nnext()\n',
    )
  })
})
