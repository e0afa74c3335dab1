import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyHunks } from '../../../src/apply/apply-hunks.js'
import { parseSearchReplace } from '../../../src/parse/search-replace.js'
import { parseUnifiedDiff } from '../../../src/parse/unified.js'
import { joinLines, splitLines } from '../../../src/text/lines.js'
import type { EditErrorData } from '../../../src/errors.js'
import type { HunkLine, LineHunk, LocateMode, PatchFormat, Warning } from '../../../src/types.js'

/** A hunk from prefixed lines: ' ctx', '-old', '+new'. */
function hunk(body: readonly string[], extra: Partial<LineHunk> = {}): LineHunk {
  const lines: HunkLine[] = body.map((l) => ({ op: l[0] as HunkLine['op'], text: l.slice(1) }))
  return { patchLine: 1, hints: [], endOfFile: false, lines, ...extra }
}

interface RunOptions {
  mode?: LocateMode
  format?: PatchFormat
  exactOnly?: boolean
  keepFinalNewline?: boolean
}

function run(
  text: string,
  hunks: readonly LineHunk[],
  options: RunOptions = {},
): { text: string; warnings: Warning[] } {
  const result = applyHunks({
    lines: splitLines(text),
    hunks,
    mode: options.mode ?? 'cursor',
    format: options.format ?? 'codex',
    path: 'src/f.ts',
    exactOnly: options.exactOnly ?? false,
    ...(options.keepFinalNewline === undefined
      ? {}
      : { keepFinalNewline: options.keepFinalNewline }),
  })
  if (!result.ok)
    throw new Error(`unexpected failure: ${result.error.code}: ${result.error.message}`)
  return { text: joinLines(result.value.lines), warnings: result.value.warnings }
}

function failure(
  text: string,
  hunks: readonly LineHunk[],
  options: RunOptions = {},
): EditErrorData {
  const result = applyHunks({
    lines: splitLines(text),
    hunks,
    mode: options.mode ?? 'cursor',
    format: options.format ?? 'codex',
    path: 'src/f.ts',
    exactOnly: options.exactOnly ?? false,
  })
  if (result.ok)
    throw new Error(`unexpected success: ${JSON.stringify(joinLines(result.value.lines))}`)
  return result.error
}

describe('applyHunks (cursor mode)', () => {
  it('replaces a uniquely matching chunk without warnings', () => {
    const out = run('a\nb\nc\n', [hunk([' a', '-b', '+B', ' c'])])
    expect(out).toEqual({ text: 'a\nB\nc\n', warnings: [] })
  })

  it('applies chunks in order, each searched after the previous one', () => {
    const text = 'x\nfoo\nx\nbar\nx\n'
    const out = run(text, [hunk([' foo', '-x', '+y']), hunk([' bar', '-x', '+z'])])
    expect(out.text).toBe('x\nfoo\ny\nbar\nz\n')
  })

  it('refuses a chunk that matches twice in its region, listing both places', () => {
    const error = failure('f()\nx\nf()\nx\n', [hunk([' f()', '-x', '+y'], { patchLine: 7 })])
    expect(error.code).toBe('MATCH_AMBIGUOUS')
    expect(error.patchLine).toBe(7)
    expect(error.path).toBe('src/f.ts')
    expect(error.message).toContain('patch line 7')
    expect(error.candidates).toEqual([
      { fileLine: 1, score: 1, preview: 'f()' },
      { fileLine: 3, score: 1, preview: 'f()' },
    ])
  })

  it('narrows the search to after an @@ hint', () => {
    const text = 'def a():\n    return 1\ndef b():\n    return 1\n'
    const out = run(text, [hunk(['-    return 1', '+    return 2'], { hints: ['def b():'] })])
    expect(out.text).toBe('def a():\n    return 1\ndef b():\n    return 2\n')
  })

  it('accepts a chunk that repeats its hint as the first context line', () => {
    const text = 'def a():\n  x = 1\ndef b():\n  x = 1\n'
    const out = run(text, [hunk([' def b():', '-  x = 1', '+  x = 2'], { hints: ['def b():'] })])
    expect(out.text).toBe('def a():\n  x = 1\ndef b():\n  x = 2\n')
  })

  it('follows nested hints outermost first', () => {
    const text = [
      'class A:',
      '  def f(self):',
      '    pass',
      'class B:',
      '  def f(self):',
      '    pass',
      '',
    ].join('\n')
    const out = run(text, [
      hunk(['-    pass', '+    return 1'], { hints: ['class B:', '  def f(self):'] }),
    ])
    expect(out.text).toBe(text.replace(/pass\n$/, 'return 1\n'))
  })

  it('refuses hints that lead to two different places', () => {
    const text = 'def f():\n  x = 1\ndef f():\n  x = 1\n'
    const error = failure(text, [hunk(['-  x = 1', '+  x = 2'], { hints: ['def f():'] })])
    expect(error.code).toBe('MATCH_AMBIGUOUS')
    expect(error.candidates?.map((c) => c.fileLine)).toEqual([2, 4])
  })

  it('accepts a repeated hint when every reading leads to the same chunk', () => {
    const text = 'section\nsection\nbody\n'
    const out = run(text, [hunk(['-body', '+BODY'], { hints: ['section'] })])
    expect(out.text).toBe('section\nsection\nBODY\n')
  })

  it('reports a missing hint by name', () => {
    const error = failure('a\nb\n', [
      hunk(['-b', '+c'], { hints: ['def nowhere():'], patchLine: 3 }),
    ])
    expect(error.code).toBe('MATCH_NOT_FOUND')
    expect(error.message).toContain('def nowhere():')
    expect(error.message).toContain('patch line 3')
  })

  it('reports a missing nested hint after its outer hint', () => {
    const error = failure('inner\nouter\nx\n', [hunk(['-x', '+y'], { hints: ['outer', 'inner'] })])
    expect(error.code).toBe('MATCH_NOT_FOUND')
    expect(error.message).toContain('"inner"')
  })

  it('inserts a pure insertion right after its innermost hint', () => {
    const text = 'class A:\n  a = 1\nclass B:\n  b = 1\n'
    const out = run(text, [hunk(['+  c = 3'], { hints: ['class B:'] })])
    expect(out.text).toBe('class A:\n  a = 1\nclass B:\n  c = 3\n  b = 1\n')
  })

  it('refuses a pure insertion whose hint matches twice', () => {
    const error = failure('h\nh\n', [hunk(['+x'], { hints: ['h'] })])
    expect(error.code).toBe('MATCH_AMBIGUOUS')
    expect(error.candidates?.map((c) => c.fileLine)).toEqual([1, 2])
  })

  it('appends a pure insertion without hints at the end of the file', () => {
    expect(run('a\nb\n', [hunk(['+c', '+d'])]).text).toBe('a\nb\nc\nd\n')
  })

  it('anchors an End of File chunk at the end even when it also matches earlier', () => {
    const text = 'x\nend\nx\nend\n'
    const out = run(text, [hunk([' x', '-end', '+END'], { endOfFile: true })])
    expect(out.text).toBe('x\nend\nx\nEND\n')
  })

  it('searches normally when an End of File chunk is not at the end', () => {
    const text = 'a\nb\nc\n'
    expect(run(text, [hunk(['-a', '+A'], { endOfFile: true })]).text).toBe('A\nb\nc\n')
  })

  it('retries without a spurious trailing empty line on both sides', () => {
    const out = run('a\nb\n', [hunk([' a', '-b', '+c', ' '])])
    expect(out.text).toBe('a\nc\n')
  })

  it('retries without trailing empty lines removed and added separately', () => {
    const out = run('a\nb\n', [hunk([' a', '-b', '-', '+c', '+'])])
    expect(out.text).toBe('a\nc\n')
  })

  it('keeps the trailing empty line when it really is in the file', () => {
    const out = run('a\n\nb\n', [hunk([' a', ' ', '+x'])])
    expect(out.text).toBe('a\n\nx\nb\n')
  })

  it('does not drop a trailing empty line that only the old side has', () => {
    const error = failure('a\nb\n', [hunk([' a', '-b', '-', '+c'])])
    expect(error.code).toBe('MATCH_NOT_FOUND')
  })

  it('reports MATCH_NOT_FOUND with candidates and the first old line', () => {
    const text = 'function f() {\n  return 1\n}\n'
    const error = failure(text, [
      hunk([' function f() {', '-  return 2', '+  return 3'], { patchLine: 12 }),
    ])
    expect(error.code).toBe('MATCH_NOT_FOUND')
    expect(error.patchLine).toBe(12)
    expect(error.message).toContain('patch line 12')
    expect(error.message).toContain('"function f() {"')
    expect(error.candidates?.[0]).toMatchObject({ fileLine: 1, preview: 'function f() {' })
  })

  it('searches candidates only in the region after the previous chunk', () => {
    const text = 'alpha one\nbeta\nalpha two\n'
    const error = failure(text, [hunk(['-beta', '+BETA']), hunk(['-alpha one!', '+x'])])
    expect(error.code).toBe('MATCH_NOT_FOUND')
    expect(error.candidates?.every((c) => c.fileLine >= 3)).toBe(true)
  })

  it('reports MATCH_OVERLAP when a chunk matches only on lines an earlier chunk claimed', () => {
    const text = 'a\nb\nc\nd\n'
    const error = failure(text, [
      hunk([' a', '-b', '+B']),
      hunk([' c', '-d', '+D']),
      hunk([' b', '+x']),
    ])
    expect(error.code).toBe('MATCH_OVERLAP')
    expect(error.message).toContain('lines 2-2')
  })
})

describe('applyHunks (ladder passes and restyling)', () => {
  it('matches past trailing whitespace, keeps the file context and warns', () => {
    const out = run('a  \nb\n', [hunk([' a', '-b', '+c'], { patchLine: 4 })])
    expect(out.text).toBe('a  \nc\n')
    expect(out.warnings).toEqual([
      {
        code: 'match.lenient',
        message: expect.stringContaining("pass 'trim-end'"),
        path: 'src/f.ts',
        patchLine: 4,
      },
    ])
    expect(out.warnings[0]?.message).toContain('line 1')
  })

  it('re-indents added lines when the match needed trim', () => {
    const text = 'class A {\n    method() {\n        old()\n    }\n}\n'
    const out = run(text, [
      hunk(
        ['method() {', '-    old()', '+    fresh()', '+    more()'].map((l, i) =>
          i === 0 ? ` ${l}` : l,
        ),
      ),
    ])
    expect(out.text).toBe('class A {\n    method() {\n        fresh()\n        more()\n    }\n}\n')
    expect(out.warnings[0]?.message).toContain("pass 'trim'")
  })

  it('strips extra patch indentation from added lines', () => {
    const text = 'if x:\n  y = 1\n'
    const out = run(text, [hunk(['     if x:', '-      y = 1', '+      y = 2'])])
    expect(out.text).toBe('if x:\n  y = 2\n')
  })

  it('gives added lines curly quotes when the file uses them and the match needed fold', () => {
    const text = 'title = \u201cHello\u201d\nnote = \u2018x\u2019\n'
    const out = run(text, [hunk([' title = "Hello"', "-note = 'x'", "+note = 'y' isn't \"z\""])])
    expect(out.text).toBe(
      'title = \u201cHello\u201d\nnote = \u2018y\u2019 isn\u2019t \u201cz\u201d\n',
    )
    expect(out.warnings[0]?.message).toContain("pass 'fold'")
  })

  it('keeps the file text of leniently matched context and removed lines', () => {
    const text = 'a \u2013 b\u00a0c\nkeep\n'
    const out = run(text, [hunk([' a - b c', '+added'])])
    expect(out.text).toBe('a \u2013 b\u00a0c\nadded\nkeep\n')
  })

  it('lets an exact match win over a lenient one elsewhere', () => {
    const out = run('  x\nx\n', [hunk(['-x', '+y'])])
    expect(out).toEqual({ text: '  x\ny\n', warnings: [] })
  })
})

describe('applyHunks (exactOnly)', () => {
  it('applies byte-exact hunks', () => {
    const text = 'a\u00ff\u0000\nb\n'
    expect(run(text, [hunk(['-b', '+c'])], { exactOnly: true }).text).toBe('a\u00ff\u0000\nc\n')
  })

  it('refuses with FILE_NOT_TEXT when only a lenient pass would match', () => {
    const error = failure('\u0000\nb  \n', [hunk(['-b', '+c'], { patchLine: 9 })], {
      exactOnly: true,
    })
    expect(error.code).toBe('FILE_NOT_TEXT')
    expect(error.patchLine).toBe(9)
    expect(error.message).toContain('src/f.ts')
  })

  it('refuses with FILE_NOT_TEXT when only a lenient hint would match', () => {
    const error = failure('\u0000\n  h\nb\n', [hunk(['-b', '+c'], { hints: ['h'] })], {
      exactOnly: true,
    })
    expect(error.code).toBe('FILE_NOT_TEXT')
  })

  it('refuses with MATCH_NOT_FOUND when nothing would match', () => {
    const error = failure('\u0000\nb\n', [hunk(['-zzz', '+c'])], { exactOnly: true })
    expect(error.code).toBe('MATCH_NOT_FOUND')
  })
})

describe('applyHunks (near-line mode)', () => {
  const file = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
  const nl = { mode: 'near-line', format: 'unified' } as const

  it('applies at the stated line without warnings', () => {
    const out = run(
      file,
      [hunk([' line 5', '-line 6', '+six', ' line 7'], { oldStartLine: 5 })],
      nl,
    )
    expect(out.warnings).toEqual([])
    expect(out.text).toContain('line 5\nsix\nline 7\n')
  })

  it('searches outward from a stale line number and warns about the offset', () => {
    const out = run(
      file,
      [hunk([' line 5', '-line 6', '+six', ' line 7'], { oldStartLine: 2, patchLine: 3 })],
      nl,
    )
    expect(out.text).toContain('line 5\nsix\nline 7\n')
    expect(out.warnings).toEqual([
      {
        code: 'match.offset',
        message: expect.stringContaining('offset +3'),
        path: 'src/f.ts',
        patchLine: 3,
      },
    ])
  })

  it('prefers the nearest of several matches', () => {
    const text = 'x\na\nx\nb\nc\nd\nx\n'
    const out = run(text, [hunk(['-x', '+y'], { oldStartLine: 6 })], nl)
    expect(out.text).toBe('x\na\nx\nb\nc\nd\ny\n')
  })

  it('refuses two matches at the same distance', () => {
    const text = 'p\nx\nq\nb\np\nx\nq\n'
    const error = failure(
      text,
      [hunk([' p', '-x', '+y', ' q'], { oldStartLine: 3, patchLine: 5 })],
      nl,
    )
    expect(error.code).toBe('MATCH_AMBIGUOUS')
    expect(error.patchLine).toBe(5)
    expect(error.candidates?.map((c) => c.fileLine)).toEqual([1, 5])
  })

  it('carries the previous hunk offset to the next hunk', () => {
    // The second hunk alone would tie (k, q at lines 5 and 7, both one away from its stated line
    // 6); shifted by the first hunk's +1 offset it lands on line 7 exactly.
    const text = 'w\nz\na\nr\nk\nq\nk\nq\nend\n'
    const second = hunk(['-k', '+K', ' q'], { oldStartLine: 6 })
    const out = run(text, [hunk([' z', '-a', '+A', ' r'], { oldStartLine: 1 }), second], nl)
    expect(out.text).toBe('w\nz\nA\nr\nk\nq\nK\nq\nend\n')
    expect(out.warnings.map((w) => w.code)).toEqual(['match.offset'])
    const alone = failure(text, [second], nl)
    expect(alone.code).toBe('MATCH_AMBIGUOUS')
  })

  it('adds lines without context only to an empty file', () => {
    expect(run('', [hunk(['+x', '+y'], { oldStartLine: 0 })], nl).text).toBe('x\ny\n')
    // git reads such a hunk as matching at both ends of the file; anywhere else is a guess.
    for (const oldStartLine of [0, 1, 2, 3]) {
      const error = failure('a\nb\nc\n', [hunk(['+x'], { oldStartLine, patchLine: 4 })], nl)
      expect(error).toMatchObject({ code: 'MATCH_NOT_ANCHORED', path: 'src/f.ts', patchLine: 4 })
      expect(error.message).toContain('can only add to an empty file')
    }
  })

  it('requires an old side marked no-newline to end at the last line', () => {
    const text = 'a\nb\nd\nq\na\nb\nd'
    const out = run(
      text,
      [
        hunk([' a', '-b', '+c', ' d'], {
          oldStartLine: 1,
          oldNoNewlineAtEnd: true,
          newNoNewlineAtEnd: true,
        }),
      ],
      nl,
    )
    expect(out.text).toBe('a\nb\nd\nq\na\nc\nd')
  })

  it('gives the last line a newline when the new side has no marker', () => {
    const out = run(
      'a\nb',
      [hunk([' a', '-b', '+c'], { oldStartLine: 1, oldNoNewlineAtEnd: true })],
      nl,
    )
    expect(out.text).toBe('a\nc\n')
  })

  it('removes the final newline when the new side says so', () => {
    const out = run(
      'a\nb\n',
      [hunk([' a', '-b', '+c'], { oldStartLine: 1, newNoNewlineAtEnd: true })],
      nl,
    )
    expect(out.text).toBe('a\nc')
  })

  it('leaves a missing final newline missing when the hunk does not reach the end', () => {
    const out = run('a\nb\nc', [hunk(['-a', '+A', ' b'], { oldStartLine: 1 })], nl)
    expect(out.text).toBe('A\nb\nc')
  })

  it('reports MATCH_NOT_FOUND with candidates from after the previous hunk', () => {
    const error = failure(
      file,
      [
        hunk(['-line 3', '+x', ' line 4'], { oldStartLine: 3 }),
        hunk(['-line 9x', '+y', ' line 10'], { oldStartLine: 9 }),
      ],
      nl,
    )
    expect(error.code).toBe('MATCH_NOT_FOUND')
    expect(error.candidates?.[0]?.fileLine).toBe(9)
  })

  it('reports MATCH_OVERLAP for a hunk that matches only lines an earlier hunk claimed', () => {
    const error = failure(
      file,
      [
        hunk([' line 3', '-line 4', '+x', ' line 5'], { oldStartLine: 3 }),
        hunk(['-line 4', '+y', ' line 5'], { oldStartLine: 4 }),
      ],
      nl,
    )
    expect(error.code).toBe('MATCH_OVERLAP')
  })
})

describe('applyHunks (sequential mode)', () => {
  const sr = { mode: 'sequential', format: 'search-replace' } as const

  it('applies blocks one after another on the current text', () => {
    const out = run('a\nb\n', [hunk(['-a', '+x']), hunk(['-x', '+y'])], sr)
    expect(out.text).toBe('y\nb\n')
  })

  it('refuses a block that matches more than once', () => {
    const error = failure('a\nb\na\n', [hunk(['-a', '+x'], { patchLine: 2 })], sr)
    expect(error.code).toBe('MATCH_AMBIGUOUS')
    expect(error.candidates?.map((c) => c.fileLine)).toEqual([1, 3])
  })

  it('appends an empty SEARCH block at the end and creates an empty file', () => {
    expect(run('a\n', [hunk(['+b'])], sr).text).toBe('a\nb\n')
    expect(run('', [hunk(['+b', '+c'])], sr).text).toBe('b\nc\n')
  })

  it('keeps a missing final newline missing, even when the block touches the last line', () => {
    expect(run('a\nb', [hunk(['-b', '+c'])], sr).text).toBe('a\nc')
    expect(run('a\nb', [hunk(['+c'])], sr).text).toBe('a\nb\nc')
  })

  it('reports MATCH_NOT_FOUND with candidates', () => {
    const error = failure('alpha\nbeta\n', [hunk(['-betta', '+x'])], sr)
    expect(error.code).toBe('MATCH_NOT_FOUND')
    expect(error.candidates?.[0]?.fileLine).toBe(2)
  })
})

describe('applyHunks (line endings and final newline)', () => {
  it('keeps CRLF on every line and gives inserted lines CRLF', () => {
    const out = run('a\r\nb\r\nc\r\n', [hunk([' a', '-b', '+x', '+y'])])
    expect(out.text).toBe('a\r\nx\r\ny\r\nc\r\n')
  })

  it('reads a lone CR as content, not a line ending', () => {
    expect(run('a\rb\nc\n', [hunk([' a\rb', '+x\ry'])]).text).toBe('a\rb\nx\ry\nc\n')
    // A CR-only file is one line, as git sees it; per-line context does not match in it.
    expect(failure('a\rb\rc\r', [hunk([' b', '+x'])]).code).toBe('MATCH_NOT_FOUND')
  })

  it('keeps each line ending in a mixed file and uses the dominant one for new lines', () => {
    const text = 'a\r\nb\nc\r\nd\r\n'
    const out = run(text, [hunk([' b', '-c', '+C'])])
    expect(out.text).toBe('a\r\nb\nC\r\nd\r\n')
    const lf = run('a\nb\r\nc\n', [hunk([' b', '+x'])])
    expect(lf.text).toBe('a\nb\r\nx\nc\n')
  })

  it('ends a Codex result with a newline when the change touches the last line', () => {
    expect(run('a\nb', [hunk([' a', '-b', '+c'])]).text).toBe('a\nc\n')
    expect(run('a\r\nb', [hunk([' b', '+c'])]).text).toBe('a\r\nb\r\nc\r\n')
    expect(run('a\nb', [hunk(['+c'])]).text).toBe('a\nb\nc\n')
  })

  it('leaves a missing final newline alone when a Codex change does not touch the last line', () => {
    expect(run('a\nb\nc', [hunk(['-a', '+A'])]).text).toBe('A\nb\nc')
  })

  it("keeps the file's final-newline state in every format when asked to", () => {
    const keep = { keepFinalNewline: true }
    // Codex: a hunk reaching the last line (as context, as a removal, or adding after it).
    expect(run('a\nb', [hunk([' a', '-b', '+c'])], keep).text).toBe('a\nc')
    expect(run('a\r\nb', [hunk([' b', '+c'])], keep).text).toBe('a\r\nb\r\nc')
    expect(run('a\nb', [hunk(['+c'])], keep).text).toBe('a\nb\nc')
    expect(run('a\nb', [hunk(['-a', '+A', ' b'], { endOfFile: true })], keep).text).toBe('A\nb')
    // Removing the unterminated last line leaves the line before it unterminated.
    expect(run('a\nb\nc', [hunk([' b', '-c'])], keep).text).toBe('a\nb')
    // A file that ends in a newline keeps it.
    expect(run('a\nb\n', [hunk([' a', '-b', '+c'])], keep).text).toBe('a\nc\n')
    // Unified: the file's state wins over the diff's markers, both ways.
    const nl = { mode: 'near-line', format: 'unified', keepFinalNewline: true } as const
    const marked = { oldStartLine: 1, oldNoNewlineAtEnd: true }
    expect(run('a\nb', [hunk([' a', '-b', '+c'], marked)], nl).text).toBe('a\nc')
    const dropped = { oldStartLine: 1, newNoNewlineAtEnd: true }
    expect(run('a\nb\n', [hunk([' a', '-b', '+c'], dropped)], nl).text).toBe('a\nc\n')
    // Sequential mode in a format with its own rule.
    const seq = { mode: 'sequential', format: 'codex', keepFinalNewline: true } as const
    expect(run('a\nb', [hunk(['-b', '+c'])], seq).text).toBe('a\nc')
    // false is the format's rule.
    expect(run('a\nb', [hunk([' a', '-b', '+c'])], { keepFinalNewline: false }).text).toBe('a\nc\n')
  })

  it('gives the old last line a terminator when lines are added after it', () => {
    expect(run('a\nb', [hunk([' b', '+c'])], { mode: 'sequential', format: 'edits' }).text).toBe(
      'a\nb\nc',
    )
  })

  it('removes the last lines and lets the new last line follow the format rule', () => {
    expect(run('a\nb\nc', [hunk([' b', '-c'])]).text).toBe('a\nb\n')
    expect(
      run('a\nb\nc', [hunk([' b', '-c'])], { mode: 'sequential', format: 'search-replace' }).text,
    ).toBe('a\nb')
  })
})

describe('applyHunks (empty files)', () => {
  it('inserts into an empty file', () => {
    expect(run('', [hunk(['+x'])]).text).toBe('x\n')
  })

  it('fails a hunk with old lines on an empty file', () => {
    const error = failure('', [hunk(['-x', '+y'])])
    expect(error.code).toBe('MATCH_NOT_FOUND')
    expect(error.candidates).toEqual([])
  })
})

describe('applyHunks (large files)', () => {
  it('applies many hunks to a 20k-line file without quadratic work', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `    value_${i} = compute(${i})`)
    const text = lines.join('\n') + '\n'
    const hunks: LineHunk[] = []
    for (let i = 100; i < 20_000; i += 200) {
      hunks.push(
        hunk([
          ` ${lines[i - 1]}`,
          `-${lines[i]}`,
          `+    value_${i} = changed(${i})`,
          ` ${lines[i + 1]}`,
        ]),
      )
    }
    const t0 = performance.now()
    const cursor = run(text, hunks)
    const near = run(
      text,
      hunks.map((h, k) => ({ ...h, oldStartLine: 100 + k * 200 - 3 })),
      { mode: 'near-line', format: 'unified' },
    )
    expect(performance.now() - t0).toBeLessThan(5_000)
    expect(cursor.text).toBe(near.text)
    expect(cursor.text.split('\n')[300]).toBe('    value_300 = changed(300)')
    expect(near.warnings.every((w) => w.code === 'match.offset')).toBe(true)
  })

  it('resolves a hint that matches thousands of lines without quadratic work', () => {
    const lines: string[] = []
    for (let i = 0; i < 10_000; i++) lines.push(`  step(${i})`, '}')
    lines.push('target()')
    const t0 = performance.now()
    const out = run(lines.join('\n') + '\n', [hunk(['-target()', '+done()'], { hints: ['}'] })])
    expect(performance.now() - t0).toBeLessThan(3_000)
    expect(out.text.endsWith('}\ndone()\n')).toBe(true)
  })

  it('reports not-found with candidates quickly on a 20k-line file', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `row ${i}: ${'x'.repeat(i % 40)}`)
    const t0 = performance.now()
    const error = failure(lines.join('\n'), [hunk(['-row 12345: nope', '+y'])])
    expect(performance.now() - t0).toBeLessThan(3_000)
    expect(error.code).toBe('MATCH_NOT_FOUND')
    expect(error.candidates?.length).toBeGreaterThan(0)
  })
})

describe('applyHunks (property)', () => {
  it('turns A into B for any single-range replacement, or refuses it as ambiguous', () => {
    const line = fc.constantFrom('a', 'b', 'c', '', '  a')
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 12 }),
        fc.array(line, { maxLength: 4 }),
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        (a, replacement, x, y, finalNewline) => {
          const i = a.length === 0 ? 0 : x % (a.length + 1)
          const j = i + (a.length - i === 0 ? 0 : y % (a.length - i + 1))
          const b = [...a.slice(0, i), ...replacement, ...a.slice(j)]
          const ctxStart = Math.max(0, i - 1)
          const ctxEnd = Math.min(a.length, j + 1)
          const body = [
            ...a.slice(ctxStart, i).map((t) => ` ${t}`),
            ...a.slice(i, j).map((t) => `-${t}`),
            ...replacement.map((t) => `+${t}`),
            ...a.slice(j, ctxEnd).map((t) => ` ${t}`),
          ]
          if (body.length === 0) return
          // Without a final newline a trailing empty line has no text form; skip that case.
          if (!finalNewline && (a.at(-1) === '' || b.at(-1) === '')) return
          const hasOld = ctxEnd > ctxStart
          const h = hunk(body, { oldStartLine: hasOld ? ctxStart + 1 : ctxStart })
          const nl = finalNewline ? '\n' : ''
          const toText = (ls: readonly string[]): string =>
            ls.length === 0 ? '' : ls.join('\n') + nl
          const out = run(toText(a), [h], { mode: 'near-line', format: 'search-replace' })
          // An empty file has no missing final newline to keep: new content gets one.
          const expected = a.length === 0 ? toText(b).replace(/([^\n])$/, '$1\n') : toText(b)
          expect(out.text).toBe(expected)
          // Without a line number to prefer, the other modes give B or refuse; never a wrong place.
          for (const mode of ['cursor', 'sequential'] as const) {
            const result = applyHunks({
              lines: splitLines(toText(a)),
              hunks: [h],
              mode,
              format: 'search-replace',
              path: 'f',
              exactOnly: false,
            })
            if (result.ok) expect(joinLines(result.value.lines)).toBe(expected)
            else expect(result.error.code).toBe('MATCH_AMBIGUOUS')
          }
        },
      ),
    )
  })
})

/** A hunk whose lines state their endings: a body line ending in '\r' carries eol '\r\n'. */
function statedHunk(body: readonly string[], extra: Partial<LineHunk> = {}): LineHunk {
  const lines: HunkLine[] = body.map((l) => {
    const op = l[0] as HunkLine['op']
    return l.endsWith('\r') ? { op, text: l.slice(1, -1), eol: '\r\n' } : { op, text: l.slice(1) }
  })
  return { patchLine: 1, hints: [], endOfFile: false, lines, ...extra }
}

describe('applyHunks (line endings stated by the patch)', () => {
  const nl = { mode: 'near-line', format: 'unified' } as const

  it('changes a line whose removed and added forms differ only in their ending', () => {
    const out = run('a\nb\n', [statedHunk(['-a', '+a\r', ' b'], { oldStartLine: 1 })], nl)
    expect(out.text).toBe('a\r\nb\n')
    const back = run('a\r\nb\r\n', [statedHunk(['-a\r', '+a', ' b\r'], { oldStartLine: 1 })], nl)
    expect(back.text).toBe('a\nb\r\n')
  })

  it('gives added lines exactly the stated endings instead of the dominant one', () => {
    const text = 'a\r\nb\r\nc\r\n'
    const out = run(text, [statedHunk([' a\r', '+x', '+y\r', ' b\r'], { oldStartLine: 1 })], nl)
    expect(out.text).toBe('a\r\nx\ny\r\nb\r\nc\r\n')
  })

  it('decides per op: one line with a stated ending makes every added line follow the patch', () => {
    const text = 'a\r\nb\r\nc\r\n'
    const hunks = [
      statedHunk(['-a\r', '+A\r', ' b\r'], { oldStartLine: 1 }),
      statedHunk([' c', '+d'], { oldStartLine: 3 }),
    ]
    expect(run(text, hunks, nl).text).toBe('A\r\nb\r\nc\r\nd\n')
  })

  it('still gives added lines the dominant ending when no line states one', () => {
    const out = run('a\r\nb\r\n', [hunk([' a', '-b', '+x'], { oldStartLine: 1 })], nl)
    expect(out.text).toBe('a\r\nx\r\n')
  })

  it('matches context and removed lines whatever their stated ending, without warnings', () => {
    const out = run(
      'a\nb\nc\n',
      [statedHunk([' a\r', '-b\r', '+B\r', ' c'], { oldStartLine: 1 })],
      nl,
    )
    expect(out).toEqual({ text: 'a\nB\r\nc\n', warnings: [] })
  })

  it('keeps the no-newline markers working with stated endings', () => {
    const drop = statedHunk([' a\r', '-b\r', '+c'], { oldStartLine: 1, newNoNewlineAtEnd: true })
    expect(run('a\r\nb\r\n', [drop], nl).text).toBe('a\r\nc')
    const add = statedHunk([' a\r', '-b', '+b\r'], { oldStartLine: 1, oldNoNewlineAtEnd: true })
    expect(run('a\r\nb', [add], nl).text).toBe('a\r\nb\r\n')
    const lf = statedHunk([' a\r', '-b', '+b'], { oldStartLine: 1, oldNoNewlineAtEnd: true })
    expect(run('a\r\nb', [lf], nl).text).toBe('a\r\nb\n')
  })

  it('creates content with stated endings in an empty file', () => {
    const out = run('', [statedHunk(['+x\r', '+y'], { oldStartLine: 0 })], nl)
    expect(out.text).toBe('x\r\ny\n')
  })

  it('round-trips a parsed git-style diff of a CRLF file exactly', () => {
    const before = 'one\r\ntwo\r\nthree\r\nfour\r\n'
    const after = 'one\r\nTWO\r\nthree\r\nfour\r\nfive\r\n'
    const patch =
      'diff --git a/w.txt b/w.txt\n--- a/w.txt\n+++ b/w.txt\n@@ -1,4 +1,5 @@\n' +
      ' one\r\n-two\r\n+TWO\r\n three\r\n four\r\n+five\r\n'
    const plan = parseUnifiedDiff(patch)
    if (!plan.ok) throw new Error(plan.error.message)
    const op = plan.value.ops[0]
    if (op?.kind !== 'update') throw new Error('expected an update')
    expect(run(before, op.hunks, nl)).toEqual({ text: after, warnings: [] })
  })
})

describe('applyHunks @@ hint scopes', () => {
  // Python-like files of several functions whose bodies share lines, so a hunk's lines often
  // exist in more than one function.
  const body = fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 4 })
  const files = fc.array(body, { minLength: 2, maxLength: 5 })

  it('changes lines only inside the hinted function, where they are once, or refuses', () => {
    fc.assert(
      fc.property(files, fc.nat(), fc.nat(), fc.nat(), (bodies, pickHint, pickFrom, pickLine) => {
        const lines: string[] = []
        const ranges: [number, number][] = []
        bodies.forEach((values, f) => {
          lines.push(`def f${f}():`)
          const start = lines.length
          for (const v of values) lines.push(`    x = ${v}`)
          ranges.push([start, lines.length])
          lines.push('')
        })
        const hinted = pickHint % bodies.length
        const from = bodies[pickFrom % bodies.length] as number[]
        const value = from[pickLine % from.length] as number
        const chunk = hunk([`-    x = ${value}`, `+    x = changed`], {
          hints: [`def f${hinted}():`],
        })
        const result = applyHunks({
          lines: splitLines(lines.join('\n') + '\n'),
          hunks: [chunk],
          mode: 'cursor',
          format: 'codex',
          path: 'f.py',
          exactOnly: false,
        })
        const [lo, hi] = ranges[hinted] as [number, number]
        const inHinted = (bodies[hinted] as number[]).filter((v) => v === value).length
        // Once in the hinted function: there. Twice: the hint does not say which (D-079).
        expect(result.ok).toBe(inHinted === 1)
        if (result.ok) {
          const out = result.value.lines.map((l) => l.text)
          const changed = out.findIndex((t) => t === '    x = changed')
          expect(changed).toBe(lo + (bodies[hinted] as number[]).indexOf(value))
          expect(changed).toBeLessThan(hi)
        } else {
          expect(result.error.code).toBe(inHinted === 0 ? 'MATCH_NOT_FOUND' : 'MATCH_AMBIGUOUS')
        }
      }),
      { numRuns: 300 },
    )
  })
})

describe('applyHunks with numbered hunks out of order', () => {
  const text = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
  const at = (n: number, patchLine: number) =>
    hunk([` line ${n - 1}`, `-line ${n}`, `+LINE ${n}`, ` line ${n + 1}`], {
      oldStartLine: n - 1,
      patchLine,
    })

  it('places a later hunk written first by the stated lines, reporting patch order', () => {
    const result = applyHunks({
      lines: splitLines(text),
      hunks: [at(20, 3), at(5, 9)],
      mode: 'near-line',
      format: 'unified',
      path: 'f',
      exactOnly: false,
    })
    if (!result.ok) throw new Error(result.error.message)
    expect(joinLines(result.value.lines)).toBe(
      text.replace('line 20\n', 'LINE 20\n').replace('line 5\n', 'LINE 5\n'),
    )
    expect(result.value.placements).toEqual([18, 3])
    expect(result.value.warnings.map((w) => w.code)).toEqual(['match.reordered'])
  })

  it('keeps the patch order when it places every hunk (wrong numbers, not order)', () => {
    // The second hunk's number is wrong (0): in patch order both still land near their lines.
    const wrong = { ...at(20, 9), oldStartLine: 0 }
    const out = run(text, [at(5, 3), wrong], { mode: 'near-line', format: 'unified' })
    expect(out.text).toBe(text.replace('line 20\n', 'LINE 20\n').replace('line 5\n', 'LINE 5\n'))
    expect(out.warnings.map((w) => w.code)).not.toContain('match.reordered')
  })
})

describe('applyHunks with a SEARCH/REPLACE block whose lines pair two ways', () => {
  const block = (search: readonly string[], replace: readonly string[]): LineHunk => {
    const text = ['f.ts', '<<<<<<< SEARCH', ...search, '=======', ...replace, '>>>>>>> REPLACE']
    const parsed = parseSearchReplace(text.join('\n') + '\n')
    if (!parsed.ok) throw new Error(parsed.error.message)
    const op = parsed.value.ops[0]
    if (op?.kind !== 'update') throw new Error('expected an update')
    return op.hunks[0] as LineHunk
  }
  const sr = { mode: 'sequential', format: 'search-replace' } as const
  const file = ['function f() {', '  if (a) {', '    b()', '  }', '  return c', '}', ''].join('\n')

  it('names the other pairing when a repeated line ties the diff', () => {
    const h = block(['if (a) {', 'b()', '}', 'return c', '}'], ['  if (a) {', '}'])
    expect(h.altLines).toBeDefined()
    expect(block(['a', 'b'], ['a', 'c']).altLines).toBeUndefined()
  })

  it('applies after an exact match, where either pairing writes the same bytes', () => {
    const h = block(['x', '', 'b', ''], ['x', ''])
    expect(h.altLines).toBeDefined()
    expect(run('x\n\nb\n\nc\n', [h], sr).text).toBe('x\n\nc\n')
  })

  it('refuses after a lenient match, where the pairings keep different file lines', () => {
    const h = block(
      ['if (a) {', 'b()', '}', 'return c', '}'],
      ['  if (a) {', '    d()', '  }', '  return e', '}'],
    )
    const error = failure(file, [h], sr)
    expect(error.code).toBe('MATCH_PAIRING_AMBIGUOUS')
    expect(error.message).toContain('pair two ways')
  })
})
