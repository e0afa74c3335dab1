// The edit modes applied by src/apply/string-edits.ts: occurrence, regex (through the
// real bounded searcher), strict, tolerant_whitespace, the rewrite guard and the no-op rule.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { REWRITE_MIN_FILE_LINES } from '../../../src/apply/edit-guards.js'
import type { RegexSearcher } from '../../../src/apply/regex.js'
import { applyStringEdits } from '../../../src/apply/string-edits.js'
import { boundedSearcher, searchRegex as engineSearch } from '../../../src/engine/regex-search.js'
import type { EditErrorData } from '../../../src/errors.js'
import type { Result } from '../../../src/result.js'
import type { StringEdit, Warning } from '../../../src/types.js'
import { fileText, newText } from '../../helpers/string-edit-arbitraries.js'
import { fuzzRuns } from '../../helpers/test-mode.js'

type Replace = Omit<Extract<StringEdit, { mode: 'replace' }>, 'mode' | 'index' | 'replaceAll'> & {
  replaceAll?: boolean
}
type Insert = Omit<Extract<StringEdit, { mode: 'insert' }>, 'mode' | 'index'>

const replace = (fields: Replace): StringEdit => ({
  mode: 'replace',
  index: 0,
  replaceAll: false,
  ...fields,
})
const insert = (fields: Insert): StringEdit => ({ mode: 'insert', index: 0, ...fields })

// These tests are about what a regex edit does, not how fast: the engine's 100 ms budget
// (REGEX_TIMEOUT_MS) is a wall-clock limit that a loaded machine can hit while creating the
// vm context, which made a property test here fail now and then with a timeout. Only the test
// of that budget uses the engine's searcher.
const searchRegex: RegexSearcher = boundedSearcher(60_000)

function run(
  text: string,
  edits: StringEdit[],
  search: RegexSearcher | null = searchRegex,
): Result<{ text: string; warnings: Warning[] }> {
  return applyStringEdits({
    text,
    exists: true,
    edits: edits.map((e, index) => ({ ...e, index })),
    path: 'f.txt',
    exactOnly: false,
    ...(search === null ? {} : { searchRegex: search }),
  })
}

function applied(text: string, edits: StringEdit[]): string {
  const result = run(text, edits)
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
  return result.value.text
}

function failure(
  text: string,
  edits: StringEdit[],
  search: RegexSearcher = searchRegex,
): EditErrorData {
  const result = run(text, edits, search)
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value.text)}`)
  return result.error
}

const THREE = 'x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n'

describe('occurrence', () => {
  it('picks the first, second, last and second-to-last exact match', () => {
    const edit = (occurrence: number) => replace({ oldString: 'x = 1', newString: 'X', occurrence })
    expect(applied(THREE, [edit(1)])).toBe('X\ny = 2\nx = 1\nz = 3\nx = 1\n')
    expect(applied(THREE, [edit(2)])).toBe('x = 1\ny = 2\nX\nz = 3\nx = 1\n')
    expect(applied(THREE, [edit(-1)])).toBe('x = 1\ny = 2\nx = 1\nz = 3\nX\n')
    expect(applied(THREE, [edit(-2)])).toBe('x = 1\ny = 2\nX\nz = 3\nx = 1\n')
  })

  it('counts matches within one line leftmost first', () => {
    expect(applied('a a a\n', [replace({ oldString: 'a', newString: 'b', occurrence: 2 })])).toBe(
      'a b a\n',
    )
  })

  it('refuses an occurrence past the matches with MATCH_COUNT_MISMATCH naming them', () => {
    for (const occurrence of [4, -4]) {
      expect(failure(THREE, [replace({ oldString: 'x = 1', newString: 'X', occurrence })])).toEqual(
        {
          code: 'MATCH_COUNT_MISMATCH',
          message: `Edit 1: occurrence ${occurrence} of old_string was asked for in f.txt but it matches 3 places (lines 1, 3, 5).`,
          hint: expect.any(String),
          retryable: false,
          path: 'f.txt',
          patchLine: 1,
          candidates: [
            { fileLine: 1, score: 1, preview: expect.any(String) },
            { fileLine: 3, score: 1, preview: expect.any(String) },
            { fileLine: 5, score: 1, preview: expect.any(String) },
          ],
        },
      )
    }
  })

  it('picks among lenient whole-line matches too, with the lenient warning', () => {
    const result = run('“q”\nb\n“q”\n', [
      replace({ oldString: '"q"\n', newString: 'c\n', occurrence: 2 }),
    ])
    expect(result).toMatchObject({
      ok: true,
      value: { text: '“q”\nb\nc\n', warnings: [{ code: 'match.lenient' }] },
    })
  })

  it('picks an insert anchor, and refuses one out of range', () => {
    const edit = (occurrence: number) =>
      insert({ anchor: 'x = 1', position: 'after', newString: 'new', occurrence })
    expect(applied(THREE, [edit(-1)])).toBe('x = 1\ny = 2\nx = 1\nz = 3\nx = 1\nnew\n')
    expect(applied(THREE, [edit(2)])).toBe('x = 1\ny = 2\nx = 1\nnew\nz = 3\nx = 1\n')
    expect(failure(THREE, [edit(5)])).toMatchObject({
      code: 'MATCH_COUNT_MISMATCH',
      message:
        'Edit 1: occurrence 5 of anchor was asked for in f.txt but it matches 3 places (lines 1, 3, 5).',
    })
  })

  it('with occurrence 1 and a single match behaves as without it', () => {
    expect(applied('a\nb\n', [replace({ oldString: 'b', newString: 'c', occurrence: 1 })])).toBe(
      'a\nc\n',
    )
  })
})

describe('regex', () => {
  const re = (oldString: string, newString: string, extra: Partial<Replace> = {}) =>
    replace({ oldString, newString, regex: true, ...extra })

  it('replaces with numbered and named groups, $& and $$', () => {
    expect(applied('let a = 1\n', [re('let (\\w+) = (\\d)', 'const $1 = $2$2')])).toBe(
      'const a = 11\n',
    )
    expect(applied('v1.2\n', [re('v(?<major>\\d)\\.(?<minor>\\d)', '$<minor>.$<major>')])).toBe(
      '2.1\n',
    )
    expect(applied('price 5\n', [re('\\d+', '$$$&')])).toBe('price $5\n')
  })

  it('anchors ^ and $ at the file without the m flag, at lines with it', () => {
    expect(failure('a\nb\n', [re('^b$', 'c')]).code).toBe('MATCH_NOT_FOUND')
    expect(applied('a\nb\n', [re('^b$', 'c', { flags: 'm' })])).toBe('a\nc\n')
    expect(applied('a\nb\n', [re('^a', 'c')])).toBe('c\nb\n')
  })

  it('matches across lines with \\n in a CRLF file, and new breaks take CRLF', () => {
    expect(applied('a\r\nb\r\nc\r\n', [re('a\\nb', 'x\ny\nz')])).toBe('x\r\ny\r\nz\r\nc\r\n')
    // . does not match a line break (no s flag) in the LF view, CRLF or not.
    expect(failure('a\r\nb\r\n', [re('a.b', 'x')]).code).toBe('MATCH_NOT_FOUND')
    expect(applied('a\r\nb\r\n', [re('a.b', 'x', { flags: 's' })])).toBe('x\r\n')
  })

  it('needs one match unless replace_all, expected_matches or occurrence says otherwise', () => {
    expect(failure(THREE, [re('x = \\d', 'X')])).toMatchObject({
      code: 'MATCH_AMBIGUOUS',
      message: 'Edit 1: the regex old_string matches 3 places in f.txt (lines 1, 3, 5).',
    })
    expect(applied(THREE, [re('x = (\\d)', 'X$1', { replaceAll: true })])).toBe(
      'X1\ny = 2\nX1\nz = 3\nX1\n',
    )
    expect(applied(THREE, [re('x = (\\d)', 'X', { occurrence: -1 })])).toBe(
      'x = 1\ny = 2\nx = 1\nz = 3\nX\n',
    )
    expect(failure(THREE, [re('x = (\\d)', 'X', { expectedMatches: 2 })])).toMatchObject({
      code: 'MATCH_COUNT_MISMATCH',
      message:
        'Edit 1: expected 2 matches of the regex old_string in f.txt but found 3 (lines 1, 3, 5).',
    })
  })

  it('never uses the lenient ladder', () => {
    expect(failure('    foo()\n', [re('^foo\\(\\)', 'bar()', { flags: 'm' })]).code).toBe(
      'MATCH_NOT_FOUND',
    )
  })

  it('refuses a pattern that matches the empty string', () => {
    expect(failure('abc\n', [re('x*', 'y')])).toMatchObject({
      code: 'PARSE_BAD_EDIT',
      message:
        'Edit 1: the regex old_string matches the empty string (at line 1 of f.txt); a regex edit must match at least one character everywhere it matches.',
    })
  })

  it('refuses a replacement that changes nothing as EDIT_NO_OP', () => {
    expect(failure('abc\n', [re('b', '$&')])).toMatchObject({
      code: 'EDIT_NO_OP',
      message:
        'Edit 1: the replacement equals the text the regex matched, so the edit would leave f.txt unchanged.',
    })
  })

  it('runs on the text as earlier edits left it', () => {
    expect(
      applied('a\n', [replace({ oldString: 'a', newString: 'b1' }), re('b(\\d)', 'c$1')]),
    ).toBe('c1\n')
  })

  it('stops a catastrophic pattern with MATCH_REGEX_TIMEOUT within its bound', () => {
    const text = `${'a'.repeat(30)}b\n`
    const started = performance.now()
    expect(failure(text, [re('(a+)+$', 'x')], boundedSearcher(50))).toMatchObject({
      code: 'MATCH_REGEX_TIMEOUT',
      message: 'Edit 1: the regex old_string did not finish searching f.txt within 50 ms.',
      path: 'f.txt',
      retryable: false,
    })
    // Generous: the bound plus a vm context and scheduling; unbounded, this runs for minutes.
    expect(performance.now() - started).toBeLessThan(2000)
  })

  it('the default searcher gives up after REGEX_TIMEOUT_MS', () => {
    const text = `${'a'.repeat(30)}b\n`
    expect(failure(text, [re('(a+)+$', 'x')], engineSearch).message).toContain('within 100 ms')
  })

  it('throws a programmer error when no searcher was injected', () => {
    expect(() => run('a\n', [re('a', 'b')], null)).toThrow(/without a searcher/)
  })
})

describe('strict', () => {
  it('takes an exact match as usual', () => {
    expect(applied('  a\n', [replace({ oldString: '  a', newString: '  b', strict: true })])).toBe(
      '  b\n',
    )
  })

  it('refuses a match the ladder would find only leniently, with candidates', () => {
    const text = 'def f():\n    return 1\n'
    const edit = { oldString: 'return 1  \n', newString: 'return 2\n' }
    expect(applied(text, [replace(edit)])).toBe('def f():\n    return 2\n')
    expect(failure(text, [replace({ ...edit, strict: true })])).toMatchObject({
      code: 'MATCH_NOT_FOUND',
      message:
        'Edit 1: old_string was not found exactly in f.txt (strict: lenient matches are off).',
      candidates: [{ fileLine: 2 }],
    })
  })

  it('refuses a lenient insert anchor', () => {
    const text = 'a “q”\n'
    const edit = { anchor: 'a "q"', position: 'after' as const, newString: 'b' }
    expect(applied(text, [insert(edit)])).toBe('a “q”\nb\n')
    expect(failure(text, [insert({ ...edit, strict: true })])).toMatchObject({
      code: 'MATCH_NOT_FOUND',
      message: 'Edit 1: anchor was not found exactly in f.txt (strict: lenient matches are off).',
    })
  })

  it('keeps the exact line-by-line match of a block at an unterminated last line', () => {
    expect(applied('a\nb', [replace({ oldString: 'b\n', newString: 'c\n', strict: true })])).toBe(
      'a\nc',
    )
  })
})

describe('tolerant_whitespace', () => {
  const file = 'if x:\n\tif y:\n\t\tz = 1  # tab\there\n\treturn\n'

  it('matches four spaces against a leading tab and writes new lines in the file’s tabs', () => {
    const edit = replace({
      oldString: '    if y:\n        z = 1  # tab\there\n',
      newString: '    if y:\n        z = 2\n        w = 3\n',
      tolerantWhitespace: true,
    })
    const result = run(file, [edit])
    expect(result).toMatchObject({
      ok: true,
      value: {
        text: 'if x:\n\tif y:\n\t\tz = 2\n\t\tw = 3\n\treturn\n',
        warnings: [
          {
            code: 'match.lenient',
            message:
              'edit 1 matched after counting each tab of the leading indentation as four spaces at line 2',
          },
        ],
      },
    })
  })

  it('keeps the file’s own text on unchanged lines and every byte outside the match', () => {
    const text = 'top  \r\n\tkeep\r\n\tchange\r\nend\t\r\n'
    const edit = replace({
      oldString: '    keep\n    change',
      newString: '    keep\n    changed',
      tolerantWhitespace: true,
    })
    expect(applied(text, [edit])).toBe('top  \r\n\tkeep\r\n\tchanged\r\nend\t\r\n')
  })

  it('does not fold a tab inside a line', () => {
    const edit = replace({
      oldString: '\t\tz = 1  # tab    here',
      newString: 'q',
      tolerantWhitespace: true,
      strict: true,
    })
    expect(failure(file, [edit]).code).toBe('MATCH_NOT_FOUND')
  })

  it('counts each tab as four spaces, not as a tab stop', () => {
    // " \t" is 1 + 4 = 5 columns here, where tab stops would make it 4.
    const text = ' \tx\n'
    const hit = replace({ oldString: '     x', newString: 'y', tolerantWhitespace: true })
    expect(applied(text, [hit])).toBe('y\n')
    const miss = replace({
      oldString: '    x',
      newString: 'y',
      tolerantWhitespace: true,
      strict: true,
    })
    expect(failure(text, [miss]).code).toBe('MATCH_NOT_FOUND')
  })

  it('is needed under strict: without it four spaces never match a tab', () => {
    const edit = { oldString: '    return\n', newString: '    return 1\n', strict: true }
    expect(failure(file, [replace(edit)]).code).toBe('MATCH_NOT_FOUND')
    expect(applied(file, [replace({ ...edit, tolerantWhitespace: true })])).toBe(
      'if x:\n\tif y:\n\t\tz = 1  # tab\there\n\treturn 1\n',
    )
  })

  it('finds an insert anchor, re-indenting the inserted lines', () => {
    const edit = insert({
      anchor: '    return',
      position: 'before',
      newString: '    log()\n',
      tolerantWhitespace: true,
      strict: true,
    })
    expect(applied(file, [edit])).toBe(
      'if x:\n\tif y:\n\t\tz = 1  # tab\there\n\tlog()\n\treturn\n',
    )
  })

  it('refuses a tolerant match in a file that is not text', () => {
    const result = applyStringEdits({
      text: '\tx\n',
      exists: true,
      edits: [{ ...replace({ oldString: '    x\n', newString: 'y\n', tolerantWhitespace: true }) }],
      path: 'f.bin',
      exactOnly: true,
    })
    expect(result).toMatchObject({ ok: false, error: { code: 'FILE_NOT_TEXT' } })
  })
})

describe('rewrite guard', () => {
  const lines = (n: number, prefix = 'line') =>
    Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`)
  const file = (n: number) => lines(n).join('')
  // The whole file again, with its first line changed: "old_string: first line, new: whole file".
  const rewrite = (n: number) => ['header\n', ...lines(n).slice(1)].join('')

  it('refuses a one-line old_string replaced by the whole file', () => {
    const n = REWRITE_MIN_FILE_LINES
    expect(failure(file(n), [replace({ oldString: 'line 1\n', newString: rewrite(n) })])).toEqual({
      code: 'EDIT_REWRITE_BLOCKED',
      message:
        'Edit 1: old_string matches 1 of the 20 lines of f.txt, but new_string restates most of the rest of the file, so the result would hold it twice; use mode "write" to replace the whole file, or set allow_rewrite: true if this is meant.',
      hint: expect.any(String),
      retryable: false,
      path: 'f.txt',
      patchLine: 1,
    })
  })

  it('lets it through with allow_rewrite', () => {
    const n = REWRITE_MIN_FILE_LINES
    const edit = replace({ oldString: 'line 1\n', newString: rewrite(n), allowRewrite: true })
    expect(applied(file(n), [edit])).toBe(rewrite(n) + lines(n).slice(1).join(''))
  })

  it('ignores files under REWRITE_MIN_FILE_LINES lines', () => {
    const n = REWRITE_MIN_FILE_LINES - 1
    expect(applied(file(n), [replace({ oldString: 'line 1\n', newString: rewrite(n) })])).toBe(
      rewrite(n) + lines(n).slice(1).join(''),
    )
  })

  it('ignores matches covering 10% of the file or more', () => {
    // 2 of 20 lines is 10%: not under it.
    const n = 20
    const edit = replace({ oldString: 'line 1\nline 2\n', newString: rewrite(n) })
    expect(run(file(n), [edit]).ok).toBe(true)
    const one = replace({ oldString: 'line 1\n', newString: rewrite(n) })
    expect(run(file(n), [one]).ok).toBe(false)
  })

  it('trips at half of the other lines restated, not one line under it', () => {
    // 20 lines, 1 matched: 19 others; restating 10 trips (10/19 >= 50%), 9 does not.
    const n = 20
    const newText = (k: number) => [...lines(n).slice(1, 1 + k), ...lines(30, 'fresh')].join('')
    expect(
      failure(file(n), [replace({ oldString: 'line 1\n', newString: newText(10) })]).code,
    ).toBe('EDIT_REWRITE_BLOCKED')
    expect(run(file(n), [replace({ oldString: 'line 1\n', newString: newText(9) })]).ok).toBe(true)
  })

  it('never trips on adding a large new block that restates little', () => {
    const n = 40
    const block = lines(60, 'added').join('')
    expect(
      run(file(n), [replace({ oldString: 'line 5\n', newString: `line 5\n${block}` })]).ok,
    ).toBe(true)
  })

  it('guards a regex replace too, and never a write', () => {
    const n = 20
    const edit = replace({ oldString: '^line 1\\n', newString: rewrite(n), regex: true })
    expect(failure(file(n), [edit]).code).toBe('EDIT_REWRITE_BLOCKED')
    expect(applied(file(n), [{ mode: 'write', index: 0, content: rewrite(n) }])).toBe(rewrite(n))
  })
})

describe('no-op refusals', () => {
  it('refuses old_string equal to new_string, line endings aside', () => {
    expect(
      failure('a\r\nb\r\n', [replace({ oldString: 'a\r\n', newString: 'a\n' })]),
    ).toMatchObject({
      code: 'EDIT_NO_OP',
      message: 'Edit 1: new_string equals old_string, so the edit would leave f.txt unchanged.',
    })
  })

  it('refuses a lenient replace whose fitted new lines equal the file’s', () => {
    expect(
      failure('x = 1  \n', [replace({ oldString: 'x = 1\n', newString: 'x = 1  \n' })]),
    ).toMatchObject({
      code: 'EDIT_NO_OP',
      message:
        'Edit 1: new_string, fitted to the file, equals the lines it matched, so the edit would leave f.txt unchanged.',
    })
  })

  it('refuses a replace_range with the same lines', () => {
    expect(
      failure('a\nb\n', [
        { mode: 'replace_range', index: 0, startLine: 2, endLine: 2, newString: 'b' },
      ]),
    ).toMatchObject({
      code: 'EDIT_NO_OP',
      message: 'Edit 1: new_string equals lines 2-2, so the edit would leave f.txt unchanged.',
    })
  })

  it('lets a write of the same content through (a write states the content; not a no-op)', () => {
    expect(applied('a\n', [{ mode: 'write', index: 0, content: 'a\n' }])).toBe('a\n')
  })
})

describe('regex against plain old_string', () => {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

  it('refuses a plain old_string cut mid-line where new_string restates the line, not a regex', () => {
    // The property below found it: the rest of the line before "”" is restated by new_string.
    const text = '\u201cq\u201d\n\n'
    const plain = run(text, [replace({ oldString: '\u201d\n\n', newString: '\u201cq\u201d' })])
    expect(plain.ok ? 'applied' : plain.error.code).toBe('PARSE_BAD_EDIT')
    const regex = run(text, [
      replace({ oldString: '\u201d\n\n', newString: '\u201cq\u201d', regex: true }),
    ])
    expect(regex.ok ? regex.value.text : regex.error.code).toBe('\u201cq\u201cq\u201d')
  })

  it('an escaped literal pattern edits exactly as the plain old_string does when that matches exactly', () => {
    fc.assert(
      fc.property(
        fileText,
        fc.nat(),
        fc.integer({ min: 1, max: 12 }),
        newText,
        fc.constantFrom<Partial<Replace>>(
          {},
          { replaceAll: true },
          { occurrence: 2 },
          { occurrence: -1 },
        ),
        (text, at, length, newString, extra) => {
          if (text === '') return
          const start = at % text.length
          const oldString = text.slice(start, start + length)
          // What the plain search looks for: old_string with CRLF as LF (a lone CR stays).
          const lf = oldString.replace(/\r\n/g, '\n')
          // Only where the plain search takes its exact path (the regex has no lenient ladder),
          // and not a plain no-op, which is refused before any search.
          if (lf === '' || !text.replace(/\r\n/g, '\n').includes(lf)) return
          if (lf === newString.replace(/\r\n/g, '\n')) return
          const plain = run(text, [replace({ oldString, newString, ...extra })])
          const regex = run(text, [
            replace({
              oldString: escape(lf),
              newString: newString.replace(/\$/g, '$$$$'),
              regex: true,
              ...extra,
            }),
          ])
          if (plain.ok) {
            expect(regex).toEqual(plain)
          } else if (regex.ok) {
            // The one intended difference (DECISIONS.md D-153): a plain old_string that starts or
            // ends mid-line where new_string restates the rest of the line reads as a cut-off
            // old_string; a regex states where it matches on purpose.
            expect(plain.error.code).toBe('PARSE_BAD_EDIT')
            expect(plain.error.message).toContain('old_string looks cut mid-line')
          } else {
            expect(regex.error.code).toBe(plain.error.code)
          }
        },
      ),
      { numRuns: fuzzRuns(500) },
    )
  })
})
