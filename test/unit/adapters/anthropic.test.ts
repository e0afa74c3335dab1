// patchloom/anthropic through the Anthropic SDK itself: a scripted model (an injected fetch,
// anthropic-script.ts) sends tool_use blocks of the text editor tool, the SDK's tool runner (or a
// hand-written loop over messages.create) answers them with patchloom, and each test asserts
// the files on disk and the exact tool_result blocks the SDK sent back to the model.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import type {
  MessageParam,
  ToolResultBlockParam,
  ToolUseBlock,
} from '@anthropic-ai/sdk/resources/messages/messages'
import { describe, expect, it } from 'vitest'
import {
  engineWithReport,
  introducedReport,
  typeError,
} from '../../helpers/scripted-diagnostics.js'
import {
  handleTextEditor,
  textEditorRunnable,
  textEditorTool,
  TEXT_EDITOR_VERSIONS,
} from '../../../src/adapters/anthropic.js'
import { callTool, openSession } from '../../../src/adapters/session.js'
import { hashBytes } from '../../../src/hash.js'
import { ok, refused, runTextEditor, scriptedModel, workspace } from './anthropic-script.js'

const read = (root: string, path: string): Promise<string> => readFile(join(root, path), 'utf8')
const hashOf = async (root: string, path: string): Promise<string> =>
  hashBytes(await readFile(join(root, path)))
const catN = (path: string, rows: string, range = ''): string =>
  `Here's the result of running \`cat -n\` on ${path}${range}:\n${rows}`
const snippet = (path: string): string =>
  `Here's the result of running \`cat -n\` on a snippet of ${path}:`

const THREE = 'const a = 1\nconst b = 2\nconst c = 3\n'
const THREE_VIEW = '     1\tconst a = 1\n     2\tconst b = 2\n     3\tconst c = 3'

describe('view', () => {
  it('shows a file as cat -n does, by a relative or an absolute path, and counts as a read', async () => {
    const { root, engine } = await workspace({ 'src/a.ts': THREE })
    const { results } = await runTextEditor(engine, [
      [
        {
          command: 'str_replace',
          path: 'src/a.ts',
          old_str: 'const b = 2',
          new_str: 'const b = 4',
        },
      ],
      [
        { command: 'view', path: 'src/a.ts' },
        { command: 'view', path: join(root, 'src/a.ts') },
      ],
      [
        {
          command: 'str_replace',
          path: 'src/a.ts',
          old_str: 'const b = 2',
          new_str: 'const b = 4',
        },
      ],
    ])
    expect(results[0]).toEqual([
      refused(
        1,
        'No replacement was made: the file src/a.ts has not been viewed yet. View it first, then run str_replace again with old_str copied from it.',
      ),
    ])
    expect(results[1]).toEqual([
      ok(2, catN('src/a.ts', THREE_VIEW)),
      ok(3, catN(join(root, 'src/a.ts'), THREE_VIEW)),
    ])
    const hash = await hashOf(root, 'src/a.ts')
    expect(results[2]).toEqual([
      ok(
        4,
        `The file src/a.ts has been edited.\n${snippet('src/a.ts')}\n     1\tconst a = 1\n     2\tconst b = 4\n     3\tconst c = 3\ncontent_hash: ${hash}`,
      ),
    ])
    expect(await read(root, 'src/a.ts')).toBe('const a = 1\nconst b = 4\nconst c = 3\n')
  })

  it('lists a directory two levels deep without hidden entries and node_modules, and says so', async () => {
    const { root, engine } = await workspace({
      'README.md': '# r\n',
      'src/a.ts': 'a\n',
      'src/lib/b.ts': 'b\n',
      'src/lib/deep/c.ts': 'c\n',
      'src/.cache/x': 'x\n',
      '.env': 'SECRET=1\n',
      'node_modules/pkg/index.js': '\n',
      'empty/.keep': '',
    })
    const { results } = await runTextEditor(engine, [
      [
        { command: 'view', path: '.' },
        { command: 'view', path: `${root}/src/` },
        { command: 'view', path: 'empty' },
        { command: 'view', path: 'src', view_range: [1, 2] },
      ],
    ])
    const header = (path: string): string =>
      `Here are the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:`
    expect(results[0]).toEqual([
      ok(
        1,
        [
          header('.'),
          './README.md',
          './empty/',
          './src/',
          './src/a.ts',
          './src/lib/',
          'Skipped: 3 hidden entries, 1 node_modules directory.',
        ].join('\n'),
      ),
      ok(
        2,
        [
          header(`${root}/src/`),
          `${root}/src/a.ts`,
          `${root}/src/lib/`,
          `${root}/src/lib/b.ts`,
          `${root}/src/lib/deep/`,
          'Skipped: 1 hidden entry.',
        ].join('\n'),
      ),
      ok(
        3,
        [header('empty'), '(no files or directories to show)', 'Skipped: 1 hidden entry.'].join(
          '\n',
        ),
      ),
      refused(
        4,
        'src is a directory, and view_range applies to files only; view the directory without it.',
      ),
    ])
  })

  it('shows a view_range, with -1 reading to the end; a range out of the file is refused and is no read', async () => {
    const { engine } = await workspace({ 'a.ts': THREE, 'empty.txt': '' })
    const { results } = await runTextEditor(engine, [
      [
        { command: 'view', path: 'a.ts', view_range: [2, 3] },
        { command: 'view', path: 'a.ts', view_range: [3, -1] },
        { command: 'view', path: 'a.ts', view_range: [0, 2] },
        { command: 'view', path: 'a.ts', view_range: [4, -1] },
        { command: 'view', path: 'a.ts', view_range: [3, 2] },
        { command: 'view', path: 'a.ts', view_range: [2, 9] },
        { command: 'view', path: 'a.ts', view_range: [2] },
        { command: 'view', path: 'empty.txt' },
        { command: 'view', path: 'empty.txt', view_range: [1, -1] },
      ],
    ])
    expect(results[0]).toEqual([
      ok(1, catN('a.ts', '     2\tconst b = 2\n     3\tconst c = 3', ' (lines 2-3 of 3)')),
      ok(2, catN('a.ts', '     3\tconst c = 3', ' (lines 3-3 of 3)')),
      refused(
        3,
        'Invalid view_range [0, 2]: its first element 0 should be within the lines of a.ts, [1, 3].',
      ),
      refused(
        4,
        'Invalid view_range [4, -1]: its first element 4 should be within the lines of a.ts, [1, 3].',
      ),
      refused(
        5,
        'Invalid view_range [3, 2]: its second element 2 should be at least its first element 3, or -1 to read to the end.',
      ),
      refused(
        6,
        'Invalid view_range [2, 9]: its second element 9 is past the last line of a.ts, 3; give 3 or -1.',
      ),
      refused(
        7,
        'Invalid view_range [2]: give two integers, [first_line, last_line], 1-based; last_line -1 reads to the end of the file.',
      ),
      ok(8, 'The file empty.txt is empty.'),
      refused(
        9,
        'Invalid view_range [1, -1]: empty.txt is empty, so it has no lines; view it without view_range.',
      ),
    ])
  })

  it('refuses a range of a file it never viewed whole as a read', async () => {
    const { root, engine } = await workspace({ 'a.ts': THREE })
    const { results } = await runTextEditor(engine, [
      [{ command: 'view', path: 'a.ts', view_range: [5, 6] }],
      [{ command: 'insert', path: 'a.ts', insert_line: 0, new_str: 'top' }],
    ])
    expect(results[1]).toEqual([
      refused(
        1 + 1,
        'Nothing was inserted: the file a.ts has not been viewed yet. View it first, then insert again.',
      ),
    ])
    expect(await read(root, 'a.ts')).toBe(THREE)
  })

  it('cuts a view at max_characters, says where, and puts max_characters in the definition', async () => {
    const { engine } = await workspace({
      'a.txt': 'line 1\nline 2\nline 3\nline 4\nline 5\n',
      'long.txt': `${'x'.repeat(50)}\nshort\n`,
    })
    const { results, model } = await runTextEditor(
      engine,
      [
        [
          { command: 'view', path: 'a.txt' },
          { command: 'view', path: 'a.txt', view_range: [2, 4] },
          { command: 'view', path: 'long.txt' },
          { command: 'view', path: 'a.txt', view_range: [5, 5] },
        ],
      ],
      { maxCharacters: 30 },
    )
    expect(model.requests[0]?.['tools']).toEqual([
      { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 30 },
    ])
    expect(results[0]).toEqual([
      ok(
        1,
        catN('a.txt', '     1\tline 1\n     2\tline 2') +
          '\n[The view was cut at max_characters (30 characters): lines 1-2 of 5 are shown. View the rest with view_range [3, -1].]',
      ),
      ok(
        2,
        catN('a.txt', '     2\tline 2\n     3\tline 3', ' (lines 2-4 of 5)') +
          '\n[The view was cut at max_characters (30 characters): lines 2-3 of 5 are shown. View the rest with view_range [4, 4].]',
      ),
      ok(
        3,
        catN('long.txt', `     1\t${'x'.repeat(23)}`) +
          '\n[The view was cut at max_characters (30 characters): line 1 is longer than that, and only its start is shown. View the lines after it with view_range [2, -1].]',
      ),
      ok(4, catN('a.txt', '     5\tline 5', ' (lines 5-5 of 5)')),
    ])
  })
})

describe('create', () => {
  it('creates a file byte for byte; overwrites one only after viewing it as it is now', async () => {
    const { root, engine } = await workspace({ 'old.txt': 'old\n' })
    const { results } = await runTextEditor(engine, [
      [
        { command: 'create', path: 'src/new.ts', file_text: 'export {}\r\nno newline' },
        { command: 'create', path: 'old.txt', file_text: 'replaced\n' },
      ],
      [
        { command: 'view', path: 'old.txt' },
        { command: 'create', path: 'old.txt', file_text: 'replaced\n' },
      ],
    ])
    expect(await read(root, 'src/new.ts')).toBe('export {}\r\nno newline')
    expect(await read(root, 'old.txt')).toBe('replaced\n')
    expect(results[0]).toEqual([
      ok(
        1,
        `File created at src/new.ts (2 lines).\ncontent_hash: ${await hashOf(root, 'src/new.ts')}`,
      ),
      refused(
        2,
        'The file old.txt already exists and has not been viewed as it is now, so create would overwrite what you have not seen. View it first (then create may replace it), or change part of it with str_replace.',
      ),
    ])
    expect(results[1]).toEqual([
      ok(3, catN('old.txt', '     1\told')),
      ok(
        4,
        `File old.txt overwritten with the new content (1 line).\ncontent_hash: ${await hashOf(root, 'old.txt')}`,
      ),
    ])
  })

  it('writes over any file when readBeforeWrite is off', async () => {
    const { root, engine } = await workspace({ 'old.txt': 'old\n' })
    const { results } = await runTextEditor(
      engine,
      [
        [
          { command: 'create', path: 'old.txt', file_text: 'old\n' },
          { command: 'create', path: 'old.txt', file_text: 'new\n' },
        ],
      ],
      { readBeforeWrite: false },
    )
    expect(results[0]).toEqual([
      ok(
        1,
        `The file old.txt already has exactly this content; nothing was written.\ncontent_hash: ${hashBytes(new TextEncoder().encode('old\n'))}`,
      ),
      ok(
        2,
        `File old.txt overwritten with the new content (1 line).\ncontent_hash: ${await hashOf(root, 'old.txt')}`,
      ),
    ])
  })
})

describe('str_replace', () => {
  it('refuses zero matches with the nearest lines, and two matches with their lines; the file is untouched', async () => {
    const source = 'function f() {\n  return 1\n}\nfunction g() {\n  return 1\n}\n'
    const { root, engine } = await workspace({ 'f.ts': source })
    const { results } = await runTextEditor(engine, [
      [{ command: 'view', path: 'f.ts' }],
      [
        { command: 'str_replace', path: 'f.ts', old_str: 'return 2', new_str: 'return 3' },
        { command: 'str_replace', path: 'f.ts', old_str: '  return 1\n', new_str: '  return 3\n' },
      ],
    ])
    expect(results[1]).toEqual([
      refused(
        2,
        [
          'No replacement was made: old_str did not appear verbatim in f.ts, nor with only whitespace or punctuation differences.',
          'The lines most like it:',
          '  line 2 (86% alike): return 1',
          '  line 5 (86% alike): return 1',
          'View the file and copy old_str from it exactly, whitespace and indentation included.',
        ].join('\n'),
      ),
      refused(
        3,
        [
          'No replacement was made: old_str appears 2 times in f.ts, at lines 2, 5:',
          '  line 2: return 1',
          '  line 5: return 1',
          'Include more of the lines around it in old_str, so that it matches exactly once.',
        ].join('\n'),
      ),
    ])
    expect(await read(root, 'f.ts')).toBe(source)
  })

  it("keeps the file's quotes and indentation on a lenient match and says how it matched", async () => {
    const { root, engine } = await workspace({
      'q.ts': "function f() {\n  return 'hello'\n}\n",
      'i.py': 'def f():\n    x = 1\n    return x\n',
    })
    const { results } = await runTextEditor(engine, [
      [
        { command: 'view', path: 'q.ts' },
        { command: 'view', path: 'i.py' },
      ],
      [
        {
          command: 'str_replace',
          path: 'q.ts',
          old_str: 'return ‘hello’',
          new_str: 'return ‘bye’',
        },
        {
          command: 'str_replace',
          path: 'i.py',
          old_str: 'x = 1\nreturn x',
          new_str: 'x = 2\nreturn x',
        },
      ],
    ])
    expect(await read(root, 'q.ts')).toBe("function f() {\n  return 'bye'\n}\n")
    expect(await read(root, 'i.py')).toBe('def f():\n    x = 2\n    return x\n')
    expect(results[1]).toEqual([
      ok(
        3,
        `The file q.ts has been edited.\n${snippet('q.ts')}\n     1\tfunction f() {\n     2\t  return 'bye'\n     3\t}\nNote: old_str matched after ignoring leading and trailing whitespace and folding Unicode punctuation and spaces to ASCII at line 2.\ncontent_hash: ${await hashOf(root, 'q.ts')}`,
      ),
      ok(
        4,
        `The file i.py has been edited.\n${snippet('i.py')}\n     1\tdef f():\n     2\t    x = 2\n     3\t    return x\nNote: old_str matched after ignoring leading and trailing whitespace at line 2.\ncontent_hash: ${await hashOf(root, 'i.py')}`,
      ),
    ])
  })

  it('deletes old_str when new_str is left out; refuses an edit that changes nothing', async () => {
    const { root, engine } = await workspace({ 'a.ts': THREE })
    const { results } = await runTextEditor(engine, [
      [{ command: 'view', path: 'a.ts' }],
      [
        { command: 'str_replace', path: 'a.ts', old_str: 'const b = 2\n' },
        { command: 'str_replace', path: 'a.ts', old_str: 'const a = 1', new_str: 'const a = 1' },
      ],
    ])
    expect(await read(root, 'a.ts')).toBe('const a = 1\nconst c = 3\n')
    expect(results[1]).toEqual([
      ok(
        2,
        `The file a.ts has been edited.\n${snippet('a.ts')}\n     1\tconst a = 1\n     2\tconst c = 3\ncontent_hash: ${await hashOf(root, 'a.ts')}`,
      ),
      refused(
        3,
        'No replacement was made: new_str equals old_str, so the edit would leave a.ts unchanged. Check that the edit says what you meant to change; drop it if nothing needs changing.',
      ),
    ])
  })

  it('runs the calls of one response in order: a view then a str_replace of the same file', async () => {
    const { root, engine } = await workspace({ 'a.ts': THREE })
    const { results } = await runTextEditor(engine, [
      [
        { command: 'view', path: 'a.ts' },
        { command: 'str_replace', path: 'a.ts', old_str: 'const c = 3', new_str: 'const c = 9' },
        { command: 'str_replace', path: 'a.ts', old_str: 'const a = 1', new_str: 'const a = 0' },
      ],
    ])
    expect(results[0]?.map((r) => (r as { is_error?: true }).is_error)).toEqual([
      undefined,
      undefined,
      undefined,
    ])
    expect(await read(root, 'a.ts')).toBe('const a = 0\nconst b = 2\nconst c = 9\n')
  })
})

describe('insert', () => {
  it('inserts at the top (0) and after the last line, and refuses a line outside [0, n]', async () => {
    const { root, engine } = await workspace({ 'a.ts': THREE })
    const { results } = await runTextEditor(engine, [
      [{ command: 'view', path: 'a.ts' }],
      [
        { command: 'insert', path: 'a.ts', insert_line: 0, new_str: '// top\n' },
        { command: 'insert', path: 'a.ts', insert_line: 4, new_str: 'const d = 4\nconst e = 5' },
        { command: 'insert', path: 'a.ts', insert_line: 7, new_str: 'x' },
        { command: 'insert', path: 'a.ts', insert_line: -1, new_str: 'x' },
        { command: 'insert', path: 'a.ts', insert_line: '2', new_str: 'x' },
      ],
    ])
    const after = '// top\nconst a = 1\nconst b = 2\nconst c = 3\nconst d = 4\nconst e = 5\n'
    expect(await read(root, 'a.ts')).toBe(after)
    const first = '// top\nconst a = 1\nconst b = 2\nconst c = 3\n'
    expect(results[1]).toEqual([
      ok(
        2,
        `Inserted 1 line at the top of a.ts.\n${snippet('a.ts')}\n     1\t// top\n     2\tconst a = 1\n     3\tconst b = 2\n     4\tconst c = 3\ncontent_hash: ${hashBytes(new TextEncoder().encode(first))}`,
      ),
      ok(
        3,
        `Inserted 2 lines after line 4 of a.ts.\n${snippet('a.ts')}\n     2\tconst a = 1\n     3\tconst b = 2\n     4\tconst c = 3\n     5\tconst d = 4\n     6\tconst e = 5\ncontent_hash: ${await hashOf(root, 'a.ts')}`,
      ),
      refused(
        4,
        'Invalid insert_line 7: it should be within the range of lines of a.ts, [0, 6] (0 inserts at the top, 6 after the last line).',
      ),
      refused(
        5,
        'Invalid insert_line -1: it should be within the range of lines of a.ts, [0, 6] (0 inserts at the top, 6 after the last line).',
      ),
      refused(
        6,
        'insert needs insert_line (an integer): the line to insert after, 0 for the top of the file (got "2").',
      ),
    ])
  })
})

describe('diagnostics', () => {
  it('appends the errors a change introduced when asked, with a scripted language server', async () => {
    const { root } = await workspace({ 'a.ts': 'const x: number = 1\n' })
    const engine = engineWithReport(root, introducedReport([typeError('a.ts')]))
    const { results } = await runTextEditor(
      engine,
      [
        [
          { command: 'view', path: 'a.ts' },
          { command: 'str_replace', path: 'a.ts', old_str: '= 1', new_str: "= 'one'" },
        ],
      ],
      { diagnostics: true },
    )
    await engine.close()
    expect(results[0]?.[1]).toEqual(
      ok(
        2,
        `The file a.ts has been edited.\n${snippet('a.ts')}\n     1\tconst x: number = 'one'\ncontent_hash: ${await hashOf(root, 'a.ts')}\nintroduced a.ts:1:7 error: Type 'string' is not assignable to type 'number'.`,
      ),
    )
  })
})

describe('line endings', () => {
  it('keeps CRLF and a missing final newline through str_replace and insert', async () => {
    const { root, engine } = await workspace({ 'w.txt': 'one\r\ntwo\r\nthree' })
    const { results } = await runTextEditor(engine, [
      [{ command: 'view', path: 'w.txt' }],
      [
        { command: 'str_replace', path: 'w.txt', old_str: 'two', new_str: 'TWO\nand more' },
        { command: 'insert', path: 'w.txt', insert_line: 4, new_str: 'four\n' },
        { command: 'insert', path: 'w.txt', insert_line: 0, new_str: 'zero' },
      ],
    ])
    expect(results[0]).toEqual([ok(1, catN('w.txt', '     1\tone\n     2\ttwo\n     3\tthree'))])
    expect(results[1]?.map((r) => (r as { is_error?: true }).is_error)).toEqual([
      undefined,
      undefined,
      undefined,
    ])
    expect(await read(root, 'w.txt')).toBe('zero\r\none\r\nTWO\r\nand more\r\nthree\r\nfour')
  })
})

describe('a file changed by someone else since the model viewed it', () => {
  const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'

  it('rebases a str_replace whose old_str still matches once in lines the other change left alone, and says so', async () => {
    const { root, engine } = await workspace({ 'r.txt': TEN })
    const { results } = await runTextEditor(
      engine,
      [
        [{ command: 'view', path: 'r.txt' }],
        [{ command: 'str_replace', path: 'r.txt', old_str: 'line 8', new_str: 'line eight' }],
      ],
      {},
      async (turn) => {
        if (turn === 1) await writeFile(join(root, 'r.txt'), TEN.replace('line 2\n', 'line two\n'))
      },
    )
    const after = TEN.replace('line 2\n', 'line two\n').replace('line 8\n', 'line eight\n')
    expect(await read(root, 'r.txt')).toBe(after)
    expect(results[1]).toEqual([
      ok(
        2,
        `The file r.txt has been edited.\n${snippet('r.txt')}\n     5\tline 5\n     6\tline 6\n     7\tline 7\n     8\tline eight\n     9\tline 9\n    10\tline 10\nNote: r.txt had changed since you viewed it (someone else edited it); old_str still matched exactly once, in lines the other change did not touch, so the edit was made on the current content. View the file to see the other change.\ncontent_hash: ${await hashOf(root, 'r.txt')}`,
      ),
    ])
  })

  it('refuses an edit of the lines the other change touched, shows the file as it is now, and takes the retry', async () => {
    const { root, engine } = await workspace({ 'r.txt': TEN })
    const theirs = TEN.replace('line 8\n', 'line 8 (theirs)\n')
    const { results } = await runTextEditor(
      engine,
      [
        [{ command: 'view', path: 'r.txt' }],
        [
          { command: 'str_replace', path: 'r.txt', old_str: 'line 8\n', new_str: 'line eight\n' },
          { command: 'insert', path: 'r.txt', insert_line: 1, new_str: 'x' },
        ],
        [
          {
            command: 'str_replace',
            path: 'r.txt',
            old_str: 'line 8 (theirs)',
            new_str: 'line eight',
          },
        ],
      ],
      { maxCharacters: 50 },
      async (turn) => {
        if (turn === 1) await writeFile(join(root, 'r.txt'), theirs)
      },
    )
    const now = catN('r.txt', '     1\tline 1\n     2\tline 2\n     3\tline 3')
    const cut =
      '[The view was cut at max_characters (50 characters): lines 1-3 of 10 are shown. View the rest with view_range [4, -1].]'
    expect(results[1]).toEqual([
      refused(
        2,
        `No replacement was made: r.txt changed since you last viewed it (someone else edited it), and old_str does not appear in its current content. Its current content follows, and counts as viewed: make the edit against it.\n${now}\n${cut}`,
      ),
      ok(
        3,
        `Inserted 1 line after line 1 of r.txt.\n${snippet('r.txt')}\n     1\tline 1\n     2\tx\n     3\tline 2\n     4\tline 3\n     5\tline 4\ncontent_hash: ${hashBytes(new TextEncoder().encode(theirs.replace('line 1\n', 'line 1\nx\n')))}`,
      ),
    ])
    expect(results[2]?.map((r) => (r as { is_error?: true }).is_error)).toEqual([undefined])
    expect(await read(root, 'r.txt')).toBe(
      theirs.replace('line 1\n', 'line 1\nx\n').replace('line 8 (theirs)', 'line eight'),
    )
  })

  it('refuses an insert or a create on a file changed since it was viewed', async () => {
    const { root, engine } = await workspace({ 'r.txt': 'a\nb\n' })
    const { results } = await runTextEditor(
      engine,
      [
        [{ command: 'view', path: 'r.txt' }],
        [{ command: 'insert', path: 'r.txt', insert_line: 1, new_str: 'x' }],
        [{ command: 'create', path: 'r.txt', file_text: 'mine\n' }],
      ],
      {},
      async (turn) => {
        if (turn === 1) await writeFile(join(root, 'r.txt'), 'a\nB\n')
        if (turn === 2) await writeFile(join(root, 'r.txt'), 'a\nB again\n')
      },
    )
    expect(results[1]).toEqual([
      refused(
        2,
        `Nothing was inserted: r.txt changed since you last viewed it (someone else edited it), and an insert at a line number is not carried over onto changed lines. Its current content follows, and counts as viewed: make the edit against it.\n${catN('r.txt', '     1\ta\n     2\tB')}`,
      ),
    ])
    expect(results[2]).toEqual([
      refused(
        3,
        `The file was not written: r.txt changed since you last viewed it (someone else edited it), and create would overwrite that change. Its current content follows, and counts as viewed: make the edit against it.\n${catN('r.txt', '     1\ta\n     2\tB again')}`,
      ),
    ])
    expect(await read(root, 'r.txt')).toBe('a\nB again\n')
  })
})

describe('undo_edit', () => {
  it("reverts the file's last edit, then the one before, then its creation (text_editor_20250124)", async () => {
    const { root, engine } = await workspace()
    const { results } = await runTextEditor(
      engine,
      [
        [{ command: 'create', path: 'u.txt', file_text: 'a\n' }],
        [{ command: 'str_replace', path: 'u.txt', old_str: 'a', new_str: 'b' }],
        [{ command: 'str_replace', path: 'u.txt', old_str: 'b', new_str: 'c' }],
        [{ command: 'undo_edit', path: 'u.txt' }],
        [{ command: 'undo_edit', path: 'u.txt' }],
        [{ command: 'str_replace', path: 'u.txt', old_str: 'a', new_str: 'd' }],
        [{ command: 'undo_edit', path: 'u.txt' }],
        [{ command: 'undo_edit', path: 'u.txt' }],
        [{ command: 'undo_edit', path: 'u.txt' }],
      ],
      { version: 'text_editor_20250124' },
    )
    const hashOfText = (text: string): string => hashBytes(new TextEncoder().encode(text))
    const undone = (id: number, text: string): unknown =>
      ok(
        id,
        `Last edit to u.txt undone.\ncontent_hash: ${hashOfText(text)}\n${catN('u.txt', `     1\t${text.trim()}`)}`,
      )
    expect(results.slice(3).map((r) => r[0])).toEqual([
      undone(4, 'b\n'),
      undone(5, 'a\n'),
      expect.objectContaining({
        tool_use_id: 'toolu_6',
        content: expect.stringContaining('edited'),
      }),
      undone(7, 'a\n'),
      ok(8, 'Last edit to u.txt undone: that edit had created the file, so it is removed.'),
      refused(
        9,
        'No edit of u.txt to undo: this tool has made no edit of it that is not undone yet.',
      ),
    ])
    await expect(read(root, 'u.txt')).rejects.toThrow(/ENOENT/)
  })

  it('refuses when the file changed since its last edit, and when that edit changed other files too', async () => {
    const { root, engine } = await workspace({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' })
    const session = await openSession(engine, { readBeforeWrite: false }, true)
    const multi = await callTool(session, 'multi_edit', {
      edits: [
        { path: 'a.txt', old_string: 'a', new_string: 'A' },
        { path: 'b.txt', old_string: 'b', new_string: 'B' },
      ],
    })
    expect(multi.ok).toBe(true)
    const { results } = await runTextEditor(
      engine,
      [
        [
          { command: 'view', path: 'c.txt' },
          { command: 'str_replace', path: 'c.txt', old_str: 'c', new_str: 'C' },
        ],
        [
          { command: 'undo_edit', path: 'c.txt' },
          { command: 'undo_edit', path: 'a.txt' },
          { command: 'undo_edit', path: '../outside.txt' },
        ],
      ],
      { version: 'text_editor_20241022' },
      async (turn) => {
        if (turn === 1) await writeFile(join(root, 'c.txt'), 'C by someone else\n')
      },
    )
    expect(results[1]).toEqual([
      refused(
        3,
        'Nothing was undone: c.txt changed since its last edit (someone else edited it), and undoing that edit would overwrite their change. View the file and edit it instead.',
      ),
      refused(
        4,
        'Nothing was undone: the last edit of a.txt also changed b.txt, and undo_edit reverts the edits of one file only. Edit the file to take the change back instead.',
      ),
      refused(
        5,
        `The path ../outside.txt is outside the workspace, ${root}: give a path inside it, absolute or relative to it.`,
      ),
    ])
    expect(await read(root, 'a.txt')).toBe('A\n')
    expect(await read(root, 'c.txt')).toBe('C by someone else\n')
  })
})

describe('paths and input', () => {
  it('refuses paths outside the workspace for every command', async () => {
    const { root, engine } = await workspace({ 'a.txt': 'a\n' })
    const outside = `The path %s is outside the workspace, ${root}: give a path inside it, absolute or relative to it.`
    const { results } = await runTextEditor(engine, [
      [
        { command: 'view', path: '../x.txt' },
        { command: 'view', path: '/etc/passwd' },
        { command: 'create', path: '../x.txt', file_text: 'x' },
        { command: 'str_replace', path: '/etc/hosts', old_str: 'a', new_str: 'b' },
        { command: 'insert', path: '../../x', insert_line: 0, new_str: 'x' },
        { command: 'view', path: 'missing.txt' },
        { command: 'str_replace', path: 'missing.txt', old_str: 'a', new_str: 'b' },
        { command: 'view', path: '.git/config' },
      ],
    ])
    expect(results[0]).toEqual([
      refused(1, outside.replace('%s', '../x.txt')),
      refused(2, outside.replace('%s', '/etc/passwd')),
      refused(3, outside.replace('%s', '../x.txt')),
      refused(4, outside.replace('%s', '/etc/hosts')),
      refused(5, outside.replace('%s', '../../x')),
      refused(6, 'The path missing.txt does not exist.'),
      refused(7, 'The path missing.txt does not exist. To make a new file, use create.'),
      expect.objectContaining({
        tool_use_id: 'toolu_8',
        is_error: true,
        content: expect.stringMatching(/^The path \.git\/config is not open to this tool: /),
      }),
    ])
  })

  it('answers ill-formed input with what is wrong, in the tool’s words', async () => {
    const { engine } = await workspace({ 'a.txt': 'a\n' })
    const { results } = await runTextEditor(engine, [
      [
        { command: 'edit', path: 'a.txt' },
        { path: 'a.txt' },
        { command: 'view' },
        { command: 'view', path: '' },
        { command: 'create', path: 'b.txt' },
        { command: 'str_replace', path: 'a.txt', new_str: 'x' },
        { command: 'str_replace', path: 'a.txt', old_str: '', new_str: 'x' },
        { command: 'str_replace', path: 'a.txt', old_str: 'a', new_str: 7 },
        { command: 'insert', path: 'a.txt', insert_line: 1 },
        { command: 'undo_edit', path: 'a.txt' },
      ],
    ])
    const takes =
      'str_replace_based_edit_tool (text_editor_20250728) takes view, create, str_replace and insert'
    expect(results[0]).toEqual([
      refused(1, `Unknown command "edit": ${takes}.`),
      refused(2, `The input has no command (a string); ${takes}.`),
      refused(
        3,
        "view needs path (a non-empty string): the file's path, absolute inside the workspace or relative to its root.",
      ),
      refused(
        4,
        "view needs path (a non-empty string): the file's path, absolute inside the workspace or relative to its root.",
      ),
      refused(5, 'create needs file_text (a string): the whole content of the file.'),
      refused(
        6,
        'str_replace needs old_str (a non-empty string): the text to replace, copied exactly from the file.',
      ),
      refused(
        7,
        'str_replace needs old_str (a non-empty string): the text to replace, copied exactly from the file; to write a whole file, use create.',
      ),
      refused(8, 'new_str must be a string: the text that replaces old_str.'),
      refused(9, 'insert needs new_str (a string): the text to insert.'),
      refused(
        10,
        'undo_edit is not a command of text_editor_20250728, which takes view, create, str_replace and insert; to take an edit back, str_replace the new text with the old.',
      ),
    ])
  })
})

describe('versions', () => {
  it.each(TEXT_EDITOR_VERSIONS)(
    '%s: its definition, tool name and command set',
    async (version) => {
      const { root, engine } = await workspace({ 'a.txt': 'a\n' })
      const { results, model } = await runTextEditor(
        engine,
        [
          [
            { command: 'view', path: 'a.txt' },
            { command: 'str_replace', path: 'a.txt', old_str: 'a', new_str: 'b' },
            { command: 'undo_edit', path: 'a.txt' },
          ],
        ],
        { version },
      )
      const name =
        version < 'text_editor_20250429' ? 'str_replace_editor' : 'str_replace_based_edit_tool'
      expect(model.requests[0]?.['tools']).toEqual([{ type: version, name }])
      expect(textEditorTool(version)).toEqual({ type: version, name })
      const undo = results[0]?.[2] as { content: string; is_error?: true }
      if (version < 'text_editor_20250429') {
        expect(undo.is_error).toBeUndefined()
        expect(await read(root, 'a.txt')).toBe('a\n')
      } else {
        expect(undo.content).toMatch(/^undo_edit is not a command of /)
        expect(await read(root, 'a.txt')).toBe('b\n')
      }
    },
  )

  it('gives max_characters to text_editor_20250728 only, and rejects programming errors', async () => {
    expect(textEditorTool()).toEqual({
      type: 'text_editor_20250728',
      name: 'str_replace_based_edit_tool',
    })
    expect(textEditorTool('text_editor_20250728', { maxCharacters: 10_000 })).toEqual({
      type: 'text_editor_20250728',
      name: 'str_replace_based_edit_tool',
      max_characters: 10_000,
    })
    expect(() => textEditorTool('text_editor_20250124', { maxCharacters: 5 })).toThrow(TypeError)
    expect(() => textEditorTool('text_editor_20990101' as 'text_editor_20250728')).toThrow(
      TypeError,
    )
    const { engine } = await workspace()
    const use = { type: 'tool_use', id: 'toolu_x', name: 'str_replace_based_edit_tool', input: {} }
    expect(() => handleTextEditor({} as typeof engine, use)).toThrow(TypeError)
    expect(() => handleTextEditor(engine, null as unknown as typeof use)).toThrow(TypeError)
    expect(() => handleTextEditor(engine, use, { maxCharacters: 0 })).toThrow(TypeError)
    await expect(handleTextEditor(engine, { ...use, name: 'str_replace_editor' })).resolves.toEqual(
      {
        type: 'tool_result',
        tool_use_id: 'toolu_x',
        content:
          'This handler serves str_replace_based_edit_tool (text_editor_20250728); the tool_use calls str_replace_editor.',
        is_error: true,
      },
    )
    await expect(handleTextEditor(engine, { ...use, input: 'view a.txt' })).resolves.toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_x',
      content:
        'The input must be an object with a command and a path; str_replace_based_edit_tool (text_editor_20250728) takes view, create, str_replace and insert.',
      is_error: true,
    })
  })
})

describe('a hand-written loop over messages.create', () => {
  it("sends handleTextEditor's results back as the SDK's tool_result blocks", async () => {
    const { root, engine } = await workspace({ 'a.ts': THREE })
    const model = scriptedModel(
      [
        [{ command: 'view', path: 'a.ts' }],
        [{ command: 'str_replace', path: 'a.ts', old_str: 'const b = 2', new_str: 'const b = 20' }],
      ],
      'str_replace_based_edit_tool',
    )
    const client = new Anthropic({ apiKey: 'test', fetch: model.fetch, maxRetries: 0 })
    const messages: MessageParam[] = [{ role: 'user', content: 'Set b to 20.' }]
    for (;;) {
      const response = await client.messages.create({
        model: 'claude-test',
        max_tokens: 1024,
        tools: [textEditorTool()],
        messages,
      })
      const uses = response.content.filter((b): b is ToolUseBlock => b.type === 'tool_use')
      if (uses.length === 0) break
      messages.push({ role: 'assistant', content: response.content })
      const results: ToolResultBlockParam[] = await Promise.all(
        uses.map((use) => handleTextEditor(engine, use)),
      )
      messages.push({ role: 'user', content: results })
    }
    expect(model.resultsOf(0)).toEqual([ok(1, catN('a.ts', THREE_VIEW))])
    expect(model.resultsOf(1)).toEqual([
      ok(
        2,
        `The file a.ts has been edited.\n${snippet('a.ts')}\n     1\tconst a = 1\n     2\tconst b = 20\n     3\tconst c = 3\ncontent_hash: ${await hashOf(root, 'a.ts')}`,
      ),
    ])
  })
})

describe('patchloom/anthropic', () => {
  it('exports these names at run time', async () => {
    const module = await import('../../../src/adapters/anthropic.js')
    expect(Object.keys(module).sort()).toEqual([
      'DEFAULT_TEXT_EDITOR_VERSION',
      'TEXT_EDITOR_VERSIONS',
      'handleTextEditor',
      'textEditorRunnable',
      'textEditorTool',
    ])
  })
})

describe('textEditorRunnable', () => {
  it('throws a refusal as a plain Error without the SDK’s ToolError, for the runner to send', async () => {
    const { engine } = await workspace({ 'a.ts': THREE })
    const tool = textEditorRunnable(engine)
    await expect(tool.run({ command: 'view', path: 'nope.ts' })).rejects.toThrow(
      'The path nope.ts does not exist.',
    )
    await expect(tool.run({ command: 'view', path: 'a.ts' })).resolves.toBe(
      catN('a.ts', THREE_VIEW),
    )
  })
})
