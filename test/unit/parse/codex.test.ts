// Unit tests for src/parse/codex.ts: every grammar rule, leniency and error code with exact
// plans, plus the shared parser contract.
import { describe, expect, it } from 'vitest'
import type { EditErrorData } from '../../../src/errors.js'
import { parseCodexPatch } from '../../../src/parse/codex.js'
import type { EditPlan, FileOp, LineHunk } from '../../../src/types.js'
import { runParserContract } from '../../contract/parser.contract.js'

/** Joins lines with '\n' and a final newline. */
function patch(...lines: string[]): string {
  return `${lines.join('\n')}\n`
}

/** A patch whose first line is *** Begin Patch and whose last is *** End Patch. */
function wrapped(...body: string[]): string {
  return patch('*** Begin Patch', ...body, '*** End Patch')
}

function parsed(text: string): EditPlan {
  const result = parseCodexPatch(text)
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`)
  return result.value
}

function opsOf(text: string): readonly FileOp[] {
  return parsed(text).ops
}

function refused(text: string): EditErrorData {
  const result = parseCodexPatch(text)
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`)
  return result.error
}

/** An expected chunk; its body starts below its `@@` lines (one per hint, or one bare `@@`). */
function hunk(
  patchLine: number,
  lines: LineHunk['lines'],
  hints: string[] = [],
  endOfFile = false,
  bodyOffset = Math.max(hints.length, 1),
): LineHunk {
  return { patchLine, hints, bodyOffset, endOfFile, lines }
}

const ctx = (text: string) => ({ op: ' ', text }) as const
const del = (text: string) => ({ op: '-', text }) as const
const add = (text: string) => ({ op: '+', text }) as const

const UPDATE_SAMPLE = wrapped(
  '*** Update File: src/app.ts',
  '@@ class App',
  ' const a = 1',
  '-const b = 2',
  '+const b = 3',
)

runParserContract('codex', parseCodexPatch, {
  valid: [
    UPDATE_SAMPLE,
    wrapped('*** Add File: a.txt', '+hello', '*** Delete File: b.txt'),
    wrapped('*** Update File: a.txt', '*** Move to: b.txt'),
    patch("apply_patch <<'EOF'", '*** Begin Patch', '*** Delete File: x', '*** End Patch', 'EOF'),
    UPDATE_SAMPLE.replaceAll('\n', '\r\n'),
  ],
  invalid: [
    '',
    'hello\n',
    patch('*** Begin Patch', '*** Add File: a.txt', '+x'),
    wrapped(),
    wrapped('*** Update File: a', '@@', 'oops'),
    wrapped('*** Frobnicate: a'),
    patch('*** Begin Patch', '*** Delete File: a', '*** End Patch', 'thanks!'),
    wrapped('*** Update File: a'),
  ],
})

describe('parseCodexPatch', () => {
  describe('file sections', () => {
    it('parses Add File lines into content with a newline after each line', () => {
      expect(parsed(wrapped('*** Add File: docs/new.md', '+# Title', '+', '+body'))).toEqual({
        format: 'codex',
        ops: [
          {
            kind: 'add',
            path: 'docs/new.md',
            patchLine: 2,
            content: '# Title\n\nbody\n',
            overwrite: true,
          },
        ],
      })
    })

    it('parses an Add File with no lines as an empty file', () => {
      expect(opsOf(wrapped('*** Add File: empty.txt'))).toEqual([
        { kind: 'add', path: 'empty.txt', patchLine: 2, content: '', overwrite: true },
      ])
    })

    it('keeps added text verbatim, including leading spaces and marker-like text', () => {
      const ops = opsOf(wrapped('*** Add File: a', '+  indented  ', '+*** End Patch', '+@@ x'))
      expect(ops).toEqual([
        {
          kind: 'add',
          path: 'a',
          patchLine: 2,
          content: '  indented  \n*** End Patch\n@@ x\n',
          overwrite: true,
        },
      ])
    })

    it('parses Delete File with no hunks', () => {
      expect(opsOf(wrapped('*** Delete File: old/gone.ts'))).toEqual([
        { kind: 'delete', path: 'old/gone.ts', patchLine: 2, hunks: [] },
      ])
    })

    it('parses an Update File chunk with context, removed and added lines', () => {
      expect(parsed(UPDATE_SAMPLE)).toEqual({
        format: 'codex',
        ops: [
          {
            kind: 'update',
            path: 'src/app.ts',
            patchLine: 2,
            locate: 'cursor',
            hunks: [
              hunk(3, [ctx('const a = 1'), del('const b = 2'), add('const b = 3')], ['class App']),
            ],
          },
        ],
      })
    })

    it('parses several sections in order with their own patch lines', () => {
      const ops = opsOf(
        wrapped(
          '*** Add File: a',
          '+1',
          '*** Update File: b',
          '@@',
          '-x',
          '+y',
          '*** Delete File: c',
        ),
      )
      expect(ops).toEqual([
        { kind: 'add', path: 'a', patchLine: 2, content: '1\n', overwrite: true },
        {
          kind: 'update',
          path: 'b',
          patchLine: 4,
          locate: 'cursor',
          hunks: [hunk(5, [del('x'), add('y')])],
        },
        { kind: 'delete', path: 'c', patchLine: 8, hunks: [] },
      ])
    })

    it('passes paths through as written apart from trimming', () => {
      expect(opsOf(wrapped('*** Delete File:   ../odd dir/ä b.txt  '))).toEqual([
        { kind: 'delete', path: '../odd dir/ä b.txt', patchLine: 2, hunks: [] },
      ])
    })

    it('leaves two ops on one path to the engine', () => {
      const ops = opsOf(wrapped('*** Delete File: a', '*** Add File: a', '+x'))
      expect(ops.map((op) => op.kind)).toEqual(['delete', 'add'])
    })
  })

  describe('chunks', () => {
    it('parses several chunks in order, each with its @@ line as patchLine', () => {
      const ops = opsOf(wrapped('*** Update File: f', '@@ one', '-a', '+b', '@@ two', ' c', '-d'))
      expect(ops).toEqual([
        {
          kind: 'update',
          path: 'f',
          patchLine: 2,
          locate: 'cursor',
          hunks: [hunk(3, [del('a'), add('b')], ['one']), hunk(6, [ctx('c'), del('d')], ['two'])],
        },
      ])
    })

    it('collects consecutive @@ lines as nested hints for one chunk, outermost first', () => {
      const ops = opsOf(
        wrapped(
          '*** Update File: f.py',
          '@@ class A',
          '@@',
          '@@     def run(self):',
          '-    pass',
          '+    return 1',
        ),
      )
      expect(ops).toEqual([
        {
          kind: 'update',
          path: 'f.py',
          patchLine: 2,
          locate: 'cursor',
          hunks: [
            hunk(
              3,
              [del('    pass'), add('    return 1')],
              ['class A', '    def run(self):'],
              false,
              3,
            ),
          ],
        },
      ])
    })

    it('keeps hint text after the single separating space and trims its end', () => {
      const ops = opsOf(wrapped('*** Update File: f', '@@   spaced hint  \t', '-x'))
      expect(ops[0]).toMatchObject({ hunks: [{ hints: ['  spaced hint'] }] })
    })

    it('treats "@@" padded with whitespace, and "@@ " with a blank hint, as bare', () => {
      const ops = opsOf(wrapped('*** Update File: f', '@@  ', '@@ \t', '-x'))
      expect(ops[0]).toMatchObject({ hunks: [{ patchLine: 3, hints: [] }] })
    })

    it('accepts a first chunk without @@, whose patchLine is its first body line', () => {
      const ops = opsOf(wrapped('*** Update File: f', ' keep', '-old', '+new', '@@ later', '-z'))
      expect(ops).toEqual([
        {
          kind: 'update',
          path: 'f',
          patchLine: 2,
          locate: 'cursor',
          hunks: [
            hunk(3, [ctx('keep'), del('old'), add('new')], [], false, 0),
            hunk(6, [del('z')], ['later']),
          ],
        },
      ])
    })

    it('reads a bare empty line inside a chunk as an empty context line', () => {
      const ops = opsOf(wrapped('*** Update File: f', '@@', ' a', '', '-b', '+c'))
      expect(ops[0]).toMatchObject({
        hunks: [{ lines: [ctx('a'), ctx(''), del('b'), add('c')] }],
      })
    })

    it('keeps a whitespace-only line as context text minus its prefix space', () => {
      const ops = opsOf(wrapped('*** Update File: f', '@@', '   ', '-b'))
      expect(ops[0]).toMatchObject({ hunks: [{ lines: [ctx('  '), del('b')] }] })
    })

    it('marks a chunk closed by *** End of File as endOfFile', () => {
      const ops = opsOf(
        wrapped('*** Update File: f', '@@ top', '-a', '@@', ' y', '+z', '*** End of File'),
      )
      expect(ops).toEqual([
        {
          kind: 'update',
          path: 'f',
          patchLine: 2,
          locate: 'cursor',
          hunks: [hunk(3, [del('a')], ['top']), hunk(5, [ctx('y'), add('z')], [], true)],
        },
      ])
    })

    it('allows an @@ chunk after an End of File chunk', () => {
      const ops = opsOf(wrapped('*** Update File: f', '+tail', '*** End of File', '', '@@ x', '-y'))
      expect(ops[0]).toMatchObject({
        hunks: [hunk(3, [add('tail')], [], true, 0), hunk(6, [del('y')], ['x'])],
      })
    })

    it('keeps an indented unknown *** line as context', () => {
      const ops = opsOf(wrapped('*** Update File: f.c', '@@', ' *** note', '-x'))
      expect(ops[0]).toMatchObject({ hunks: [{ lines: [ctx('*** note'), del('x')] }] })
    })

    it('keeps a trailing empty line of a chunk before the next header as context', () => {
      const ops = opsOf(wrapped('*** Update File: f', '@@', '-x', '', '*** Delete File: g'))
      expect(ops).toEqual([
        {
          kind: 'update',
          path: 'f',
          patchLine: 2,
          locate: 'cursor',
          hunks: [hunk(3, [del('x'), ctx('')])],
        },
        { kind: 'delete', path: 'g', patchLine: 6, hunks: [] },
      ])
    })
  })

  describe('Move to', () => {
    it('sets moveTo when it directly follows the Update header', () => {
      const ops = opsOf(wrapped('*** Update File: a.ts', '*** Move to: lib/b.ts', '@@', '-x', '+y'))
      expect(ops).toEqual([
        {
          kind: 'update',
          path: 'a.ts',
          patchLine: 2,
          moveTo: 'lib/b.ts',
          locate: 'cursor',
          hunks: [hunk(4, [del('x'), add('y')])],
        },
      ])
    })

    it('accepts Move to without chunks as a pure rename', () => {
      const ops = opsOf(wrapped('*** Update File: a', '*** Move to: b', '*** Delete File: c'))
      expect(ops).toEqual([
        { kind: 'update', path: 'a', patchLine: 2, moveTo: 'b', locate: 'cursor', hunks: [] },
        { kind: 'delete', path: 'c', patchLine: 4, hunks: [] },
      ])
    })

    it('accepts a first chunk without @@ after Move to', () => {
      const ops = opsOf(wrapped('*** Update File: a', '*** Move to: b', '-x'))
      expect(ops[0]).toMatchObject({ moveTo: 'b', hunks: [hunk(4, [del('x')], [], false, 0)] })
    })
  })

  describe('leniencies', () => {
    it('accepts marker and header lines padded with whitespace and trims header paths', () => {
      const ops = opsOf(
        patch(
          '  *** Begin Patch  ',
          '\t*** Update File:   a.ts   ',
          ' *** Move to:  b.ts ',
          '@@',
          '-x',
          '  *** End of File  ',
          '*** Add File:c.ts ',
          '+c',
          '  *** End Patch  ',
        ),
      )
      expect(ops).toEqual([
        {
          kind: 'update',
          path: 'a.ts',
          patchLine: 2,
          moveTo: 'b.ts',
          locate: 'cursor',
          hunks: [hunk(4, [del('x')], [], true)],
        },
        { kind: 'add', path: 'c.ts', patchLine: 7, content: 'c\n', overwrite: true },
      ])
    })

    it('reads CRLF patch text like LF text', () => {
      const lf = wrapped('*** Update File: f', '@@ h', ' a', '', '-b', '+c', '*** Add File: n')
      expect(parsed(lf.replaceAll('\n', '\r\n'))).toEqual(parsed(lf))
    })

    it('accepts a patch without a final newline', () => {
      expect(opsOf('*** Begin Patch\n*** Delete File: a\n*** End Patch')).toHaveLength(1)
    })

    it('ignores a leading BOM', () => {
      expect(opsOf('\ufeff*** Begin Patch\n*** Delete File: a\n*** End Patch\n')).toHaveLength(1)
    })

    it('skips blank lines before Begin Patch, between sections and after End Patch', () => {
      const ops = opsOf(
        patch(
          '',
          '  ',
          '*** Begin Patch',
          '',
          '*** Add File: a',
          '+1',
          '',
          '*** Delete File: b',
          '',
          '*** End Patch',
          '',
          '\t',
        ),
      )
      expect(ops).toEqual([
        { kind: 'add', path: 'a', patchLine: 5, content: '1\n', overwrite: true },
        { kind: 'delete', path: 'b', patchLine: 8, hunks: [] },
      ])
    })

    it('skips blank lines between the Update header and its first @@ line', () => {
      const ops = opsOf(wrapped('*** Update File: f', '', '@@', '-x'))
      expect(ops[0]).toMatchObject({ hunks: [hunk(4, [del('x')])] })
    })

    it('reads blank lines before an @@-less first chunk as its empty context lines', () => {
      const ops = opsOf(wrapped('*** Update File: f', '', '-x'))
      expect(ops[0]).toMatchObject({ hunks: [hunk(3, [ctx(''), del('x')], [], false, 0)] })
    })

    const inner = ['*** Begin Patch', '*** Delete File: a', '*** End Patch']
    const expected: EditPlan = {
      format: 'codex',
      ops: [{ kind: 'delete', path: 'a', patchLine: 3, hunks: [] }],
    }

    it.each([
      ["apply_patch <<'EOF'", 'EOF'],
      ['apply_patch <<EOF', 'EOF'],
      ['apply_patch <<"EOF"', 'EOF'],
      ["applypatch <<'PATCH'", 'PATCH'],
      ['apply_patch << END_OF_PATCH', 'END_OF_PATCH'],
      ["<<'EOF'", 'EOF'],
      ['apply_patch <<-EOF', 'EOF'],
    ])('strips the heredoc wrapper %s ... %s', (opener, closer) => {
      const result = parseCodexPatch(patch(opener, ...inner, closer))
      expect(result).toEqual({ ok: true, value: expected })
    })

    it('keeps patch line numbers of the original text inside a heredoc', () => {
      const text = patch('', "apply_patch <<'EOF'", ...wrapped('*** Add File: a', '+x').split('\n'))
      expect(opsOf(`${text}EOF\n`)).toEqual([
        { kind: 'add', path: 'a', patchLine: 4, content: 'x\n', overwrite: true },
      ])
    })

    it('accepts a heredoc whose closing delimiter is missing', () => {
      const result = parseCodexPatch(patch("apply_patch <<'EOF'", ...inner))
      expect(result).toEqual({ ok: true, value: expected })
    })

    it('strips a heredoc wrapper around CRLF text', () => {
      const text = patch("apply_patch <<'EOF'", ...inner, 'EOF').replaceAll('\n', '\r\n')
      expect(parseCodexPatch(text)).toEqual({ ok: true, value: expected })
    })

    it('refuses a closing delimiter that does not match the opener as trailing text', () => {
      const error = refused(patch("apply_patch <<'EOF'", ...inner, 'END'))
      expect(error).toMatchObject({ code: 'PARSE_TRAILING_TEXT', patchLine: 5 })
    })
  })

  describe('errors', () => {
    it('refuses empty input with PARSE_BAD_HEADER and no patch line', () => {
      const error = refused('')
      expect(error.code).toBe('PARSE_BAD_HEADER')
      expect(error.patchLine).toBeUndefined()
      expect(refused('\n  \n').code).toBe('PARSE_BAD_HEADER')
    })

    it('refuses text that does not start with *** Begin Patch at its first non-blank line', () => {
      const text = patch('', 'Here is the patch:', ...wrapped('*** Delete File: a').split('\n'))
      expect(refused(text)).toEqual({
        code: 'PARSE_BAD_HEADER',
        message: 'The patch must start with *** Begin Patch, but line 2 is "Here is the patch:".',
        hint: 'Fix the header named by patchLine and resend the whole patch.',
        retryable: false,
        patchLine: 2,
      })
    })

    it('refuses a patch without *** End Patch with PARSE_UNTERMINATED at its last line', () => {
      expect(refused(patch('*** Begin Patch', '*** Update File: f', '@@', '-x', '', ''))).toEqual({
        code: 'PARSE_UNTERMINATED',
        message: 'The patch has no *** End Patch line; it stops at line 4.',
        hint: 'Send the complete patch, including its closing marker.',
        retryable: false,
        patchLine: 4,
      })
      expect(refused('*** Begin Patch')).toMatchObject({ code: 'PARSE_UNTERMINATED', patchLine: 1 })
    })

    it('refuses non-blank text after *** End Patch with PARSE_TRAILING_TEXT', () => {
      const text = patch(...wrapped('*** Delete File: a').split('\n'), 'Let me know if this helps!')
      expect(refused(text)).toMatchObject({
        code: 'PARSE_TRAILING_TEXT',
        patchLine: 5,
        message:
          'Line 5 ("Let me know if this helps!") follows *** End Patch, ' +
          'where only blank lines may come.',
      })
    })

    it('refuses a second patch after the first with PARSE_TRAILING_TEXT', () => {
      const one = wrapped('*** Delete File: a')
      expect(refused(one + one)).toMatchObject({ code: 'PARSE_TRAILING_TEXT', patchLine: 4 })
    })

    it('refuses a patch with no file sections with PARSE_EMPTY_HUNK at Begin Patch', () => {
      expect(refused(patch('', '*** Begin Patch', '', '*** End Patch'))).toMatchObject({
        code: 'PARSE_EMPTY_HUNK',
        patchLine: 2,
      })
    })

    it('refuses an unknown *** directive with PARSE_BAD_HEADER', () => {
      expect(refused(wrapped('*** Rename File: a'))).toMatchObject({
        code: 'PARSE_BAD_HEADER',
        patchLine: 2,
      })
      expect(refused(wrapped('*** Update File: a', '@@', '-x', '*** Frob'))).toMatchObject({
        code: 'PARSE_BAD_HEADER',
        patchLine: 5,
      })
      expect(refused(wrapped('*** add file: a')).code).toBe('PARSE_BAD_HEADER')
    })

    it('refuses a header with an empty path with PARSE_BAD_HEADER', () => {
      for (const header of ['*** Add File:', '*** Delete File:   ', '*** Update File: ']) {
        expect(refused(wrapped(header))).toMatchObject({
          code: 'PARSE_BAD_HEADER',
          patchLine: 2,
          message: 'The file header on line 2 names no path.',
        })
      }
      expect(refused(wrapped('*** Update File: a', '*** Move to:'))).toMatchObject({
        code: 'PARSE_BAD_HEADER',
        path: 'a',
        patchLine: 3,
      })
    })

    it('refuses *** Move to that does not directly follow an Update header', () => {
      const cases: [string[], number][] = [
        [['*** Update File: a', '', '*** Move to: b'], 4],
        [['*** Update File: a', '@@', '-x', '*** Move to: b'], 5],
        [['*** Update File: a', '*** Move to: b', '*** Move to: c'], 4],
        [['*** Delete File: a', '*** Move to: b'], 3],
        [['*** Move to: b'], 2],
      ]
      for (const [body, patchLine] of cases) {
        expect(refused(wrapped(...body))).toMatchObject({ code: 'PARSE_BAD_HEADER', patchLine })
      }
    })

    it('refuses *** End of File that closes no chunk', () => {
      expect(refused(wrapped('*** Update File: a', '*** End of File'))).toMatchObject({
        code: 'PARSE_BAD_HEADER',
        patchLine: 3,
      })
      expect(refused(wrapped('*** End of File'))).toMatchObject({
        code: 'PARSE_BAD_HEADER',
        patchLine: 2,
      })
    })

    it('refuses a second *** Begin Patch inside the patch', () => {
      expect(refused(wrapped('*** Begin Patch', '*** Delete File: a'))).toMatchObject({
        code: 'PARSE_BAD_HEADER',
        patchLine: 2,
      })
    })

    it('refuses a malformed @@ line with PARSE_BAD_HEADER', () => {
      expect(refused(wrapped('*** Update File: a', '@@-1,2 +1,2', '-x'))).toMatchObject({
        code: 'PARSE_BAD_HEADER',
        path: 'a',
        patchLine: 3,
      })
    })

    it('refuses a body line after End of File that has no @@', () => {
      const text = wrapped('*** Update File: a', '-x', '*** End of File', ' y')
      expect(refused(text)).toMatchObject({ code: 'PARSE_BAD_HEADER', path: 'a', patchLine: 5 })
    })

    it('refuses a text line before any section with PARSE_BAD_HEADER', () => {
      expect(refused(wrapped('+orphan'))).toMatchObject({ code: 'PARSE_BAD_HEADER', patchLine: 2 })
    })

    it('refuses a chunk body line without a valid prefix with PARSE_BAD_LINE', () => {
      expect(refused(wrapped('*** Update File: src/a.ts', '@@', ' ok', 'oops'))).toEqual({
        code: 'PARSE_BAD_LINE',
        message:
          'Line 5 ("oops") in the update of src/a.ts must start with ' +
          "' ' (context), '-' (remove) or '+' (add).",
        hint: 'Prefix every hunk line with " " (context), "-" (remove) or "+" (add).',
        retryable: false,
        path: 'src/a.ts',
        patchLine: 5,
      })
      expect(refused(wrapped('*** Update File: a', '@@', '\tx'))).toMatchObject({
        code: 'PARSE_BAD_LINE',
        patchLine: 4,
      })
    })

    it('refuses a non-"+" line in Add File content with PARSE_BAD_LINE', () => {
      expect(refused(wrapped('*** Add File: a', '+x', 'y'))).toMatchObject({
        code: 'PARSE_BAD_LINE',
        path: 'a',
        patchLine: 4,
      })
    })

    it('refuses a blank line inside Add File content rather than guess it is empty', () => {
      expect(refused(wrapped('*** Add File: a', '+x', '', '+y'))).toMatchObject({
        code: 'PARSE_BAD_LINE',
        path: 'a',
        patchLine: 4,
      })
    })

    it('refuses body lines after Delete File with PARSE_BAD_LINE', () => {
      expect(refused(wrapped('*** Delete File: a', '-x'))).toMatchObject({
        code: 'PARSE_BAD_LINE',
        path: 'a',
        patchLine: 3,
      })
    })

    it('refuses an Update with neither chunks nor Move to with PARSE_EMPTY_HUNK', () => {
      expect(refused(wrapped('*** Delete File: z', '*** Update File: a', ''))).toEqual({
        code: 'PARSE_EMPTY_HUNK',
        message: '*** Update File: a on line 3 has no chunks and no *** Move to.',
        hint: 'Give each Update File at least one chunk, and each chunk at least one line.',
        retryable: false,
        path: 'a',
        patchLine: 3,
      })
    })

    it('refuses a chunk with hints and no body with PARSE_EMPTY_HUNK at its first @@ line', () => {
      expect(refused(wrapped('*** Update File: a', '@@ one', '@@ two'))).toMatchObject({
        code: 'PARSE_EMPTY_HUNK',
        path: 'a',
        patchLine: 3,
      })
      expect(refused(wrapped('*** Update File: a', '@@ one', '-x', '@@ two'))).toMatchObject({
        code: 'PARSE_EMPTY_HUNK',
        patchLine: 5,
      })
      expect(refused(wrapped('*** Update File: a', '@@', '*** End of File'))).toMatchObject({
        code: 'PARSE_EMPTY_HUNK',
        patchLine: 3,
      })
    })

    it('shortens long offending lines in messages', () => {
      const error = refused(wrapped('*** Update File: a', '@@', 'x'.repeat(500)))
      expect(error.message.length).toBeLessThan(200)
      expect(error.message).toContain('…')
    })

    it('counts patch lines in CRLF text the same way', () => {
      const text = wrapped('*** Update File: a', '@@', 'oops').replaceAll('\n', '\r\n')
      expect(refused(text)).toMatchObject({ code: 'PARSE_BAD_LINE', patchLine: 4 })
    })

    it('reports the first problem in reading order', () => {
      const text = wrapped('*** Update File: a', '@@', 'oops', '*** Frob')
      expect(refused(`${text}trailing\n`)).toMatchObject({ code: 'PARSE_BAD_LINE', patchLine: 4 })
    })
  })
})
