import { describe, expect, it } from 'vitest'
import type { EditErrorData } from '../../../src/errors.js'
import { cleanName, nameFromLine, parseSearchReplace } from '../../../src/parse/search-replace.js'
import type { EditPlan, UpdateOp } from '../../../src/types.js'
import { runParserContract } from '../../contract/parser.contract.js'

function plan(text: string): EditPlan {
  const result = parseSearchReplace(text)
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`)
  return result.value
}

function ops(text: string): UpdateOp[] {
  return plan(text).ops as UpdateOp[]
}

function failure(text: string): EditErrorData {
  const result = parseSearchReplace(text)
  if (result.ok) throw new Error('expected a failure')
  return result.error
}

const F = '```'

const block = (name: string, search: string[], replace: string[]): string =>
  [name, '<<<<<<< SEARCH', ...search, '=======', ...replace, '>>>>>>> REPLACE'].join('\n') + '\n'

runParserContract('search-replace', parseSearchReplace, {
  valid: [
    block('a.txt', ['old'], ['new']),
    'Here is the change:\n\nsrc/app.ts\n```ts\n<<<<<<< SEARCH\nconst a = 1\n=======\nconst a = 2\n>>>>>>> REPLACE\n```\n',
    block('new.txt', [], ['hello']),
    block('crlf.txt', ['x'], ['y']).replaceAll('\n', '\r\n'),
    'app.py\n<source>python\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n</source>\n',
  ],
  invalid: [
    '<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n',
    'a.txt\n<<<<<<< SEARCH\nold\n=======\nnew\n',
    'a.txt\n<<<<<<< SEARCH\nold\n',
    'a.txt\n<<<<<<< SEARCH\nold\n>>>>>>> REPLACE\n',
    'just prose, no blocks\n',
    block('doubled.txt', ['old'], ['new', '=======']),
    block('README.md', ['Install', '=======', 'old'], ['Install', '=======', 'new']),
  ],
})

describe('parseSearchReplace', () => {
  it('turns one block into an update op with a sequential hunk', () => {
    expect(plan(block('a.txt', ['keep', 'old'], ['keep', 'new']))).toEqual({
      format: 'search-replace',
      ops: [
        {
          kind: 'update',
          path: 'a.txt',
          patchLine: 2,
          locate: 'sequential',
          createIfMissing: false,
          hunks: [
            {
              patchLine: 2,
              hints: [],
              endOfFile: false,
              lines: [
                { op: ' ', text: 'keep' },
                { op: '-', text: 'old' },
                { op: '+', text: 'new' },
              ],
            },
          ],
        },
      ],
    })
  })

  it('puts removals before additions within each change and keeps common lines as context', () => {
    const [op] = ops(block('f', ['a', 'b', 'c', 'd'], ['a', 'B', 'c', 'D', 'E']))
    expect(op?.hunks[0]?.lines).toEqual([
      { op: ' ', text: 'a' },
      { op: '-', text: 'b' },
      { op: '+', text: 'B' },
      { op: ' ', text: 'c' },
      { op: '-', text: 'd' },
      { op: '+', text: 'D' },
      { op: '+', text: 'E' },
    ])
  })

  it('gives an empty SEARCH only added lines and marks the op createIfMissing', () => {
    const [op] = ops(block('new.txt', [], ['line 1', 'line 2']))
    expect(op?.createIfMissing).toBe(true)
    expect(op?.hunks[0]?.lines).toEqual([
      { op: '+', text: 'line 1' },
      { op: '+', text: 'line 2' },
    ])
  })

  it('treats a SEARCH of only blank lines as empty', () => {
    const [op] = ops(block('new.txt', ['', '  '], ['x']))
    expect(op?.createIfMissing).toBe(true)
    expect(op?.hunks[0]?.lines).toEqual([{ op: '+', text: 'x' }])
  })

  it('gives an empty REPLACE only removed lines', () => {
    const [op] = ops(block('f', ['a', 'b'], []))
    expect(op?.hunks[0]?.lines).toEqual([
      { op: '-', text: 'a' },
      { op: '-', text: 'b' },
    ])
  })

  it('accepts 5 to 9 marker characters with padding', () => {
    const text = 'f\n  <<<<< SEARCH  \nold\n=========\nnew\n>>>>>>>>>   REPLACE\t\n'
    expect(ops(text)[0]?.hunks[0]?.lines).toEqual([
      { op: '-', text: 'old' },
      { op: '+', text: 'new' },
    ])
  })

  it('does not take 4 or 10 marker characters as markers', () => {
    expect(failure('f\n<<<< SEARCH\nx\n').code).toBe('PARSE_EMPTY_HUNK')
    expect(failure('f\n<<<<<<<<<< SEARCH\nx\n').code).toBe('PARSE_EMPTY_HUNK')
  })

  it('reads CRLF text like LF text', () => {
    const lf = block('f', ['a', 'b'], ['c'])
    expect(plan(lf.replaceAll('\n', '\r\n'))).toEqual(plan(lf))
  })

  it('finds the name above a fenced block, skipping blank lines', () => {
    const text =
      'Change this:\n\nsrc/x.ts\n\n```typescript\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n'
    expect(ops(text)[0]?.path).toBe('src/x.ts')
  })

  it('finds the name on the first line inside the fence', () => {
    const text = '```\nsrc/x.ts\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n'
    expect(ops(text)[0]?.path).toBe('src/x.ts')
  })

  it('accepts tilde fences', () => {
    const text = 'lib/y.py\n~~~python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n~~~\n'
    expect(ops(text)[0]?.path).toBe('lib/y.py')
  })

  it('strips Markdown decoration from the name line', () => {
    expect(cleanName('### `src/a.ts`')).toBe('src/a.ts')
    expect(cleanName('**src/a.ts**:')).toBe('src/a.ts')
    expect(cleanName('**src/a.ts:**')).toBe('src/a.ts')
    expect(cleanName('*`src/a.ts`*')).toBe('src/a.ts')
    expect(cleanName('  src/a.ts  ')).toBe('src/a.ts')
    expect(cleanName('# **`dir with space/a.ts`:**')).toBe('dir with space/a.ts')
    const text = '## **`src/b.ts`**:\n```ts\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n'
    expect(ops(text)[0]?.path).toBe('src/b.ts')
  })

  it('reuses the previous file for a block right after the previous one', () => {
    const text =
      'a.txt\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n3\n=======\n4\n>>>>>>> REPLACE\n'
    const result = ops(text)
    expect(result).toHaveLength(1)
    expect(result[0]?.hunks.map((h) => h.patchLine)).toEqual([2, 7])
  })

  it('reuses the previous file for a fenced block whose fence follows the previous fence', () => {
    const text = [
      'a.txt',
      '```',
      '<<<<<<< SEARCH',
      '1',
      '=======',
      '2',
      '>>>>>>> REPLACE',
      '```',
      '',
      '```',
      '<<<<<<< SEARCH',
      '3',
      '=======',
      '4',
      '>>>>>>> REPLACE',
      '```',
    ].join('\n')
    const result = ops(text)
    expect(result.map((op) => op.path)).toEqual(['a.txt'])
    expect(result[0]?.hunks).toHaveLength(2)
  })

  it('groups blocks by file in order of first appearance, keeping each file’s block order', () => {
    const text =
      block('a.txt', ['a1'], ['A1']) +
      block('b.txt', ['b1'], ['B1']) +
      block('a.txt', ['a2'], ['A2'])
    const result = ops(text)
    expect(result.map((op) => op.path)).toEqual(['a.txt', 'b.txt'])
    expect(result[0]?.hunks.map((h) => h.lines[0]?.text)).toEqual(['a1', 'a2'])
    expect(result[0]?.patchLine).toBe(2)
    expect(result[1]?.patchLine).toBe(8)
  })

  it('sets createIfMissing from the first block of a file only', () => {
    const text = block('a.txt', ['x'], ['y']) + block('a.txt', [], ['appended'])
    expect(ops(text)[0]?.createIfMissing).toBe(false)
    const created = block('b.txt', [], ['first']) + block('b.txt', ['first'], ['second'])
    expect(ops(created)[0]?.createIfMissing).toBe(true)
  })

  it('ignores prose between and after blocks', () => {
    const text = `${block('a.txt', ['1'], ['2'])}\nThat fixes it. Now:\n\n${block('b.txt', ['3'], ['4'])}Done.\n`
    expect(ops(text).map((op) => op.path)).toEqual(['a.txt', 'b.txt'])
  })

  it('refuses a first block without a name with PARSE_BAD_HEADER at the SEARCH line', () => {
    expect(failure('\n\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n')).toMatchObject({
      code: 'PARSE_BAD_HEADER',
      patchLine: 3,
    })
    expect(failure('```\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n')).toMatchObject({
      code: 'PARSE_BAD_HEADER',
      patchLine: 2,
    })
  })

  it('refuses a block without its REPLACE marker with PARSE_UNTERMINATED at the SEARCH line', () => {
    const error = failure('intro\n\na.txt\n<<<<<<< SEARCH\nold\n=======\nnew\n')
    expect(error).toMatchObject({ code: 'PARSE_UNTERMINATED', patchLine: 4, path: 'a.txt' })
    expect(error.message).toContain('>>>>>>> REPLACE')
  })

  it('refuses a block without its divider with PARSE_UNTERMINATED', () => {
    const error = failure('a.txt\n<<<<<<< SEARCH\nold\n>>>>>>> REPLACE\n')
    expect(error).toMatchObject({ code: 'PARSE_UNTERMINATED', patchLine: 2 })
    expect(error.message).toContain('=======')
  })

  it('refuses a block interrupted by the next SEARCH marker', () => {
    const text =
      'a.txt\n<<<<<<< SEARCH\nold\n=======\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n'
    expect(failure(text)).toMatchObject({ code: 'PARSE_UNTERMINATED', patchLine: 2 })
  })

  it('refuses a REPLACE marker with no SEARCH marker before it', () => {
    expect(failure('a.txt\nold\n=======\nnew\n>>>>>>> REPLACE\n')).toMatchObject({
      code: 'PARSE_BAD_LINE',
      patchLine: 5,
    })
  })

  it('refuses text with no blocks with PARSE_EMPTY_HUNK', () => {
    expect(failure('no blocks here\n').code).toBe('PARSE_EMPTY_HUNK')
    expect(failure('').code).toBe('PARSE_EMPTY_HUNK')
  })
})

describe('parseSearchReplace name lines that are prose', () => {
  it('reuses the previous file when a sentence stands above a block', () => {
    const text = `${block('a.py', ['x'], ['y'])}\nAnd add a footer:\n${F}python\n<<<<<<< SEARCH\n=======\n# footer\n>>>>>>> REPLACE\n${F}\n`
    expect(ops(text).map((op) => op.path)).toEqual(['a.py'])
    expect(ops(text)[0]?.hunks).toHaveLength(2)
  })

  it('takes the one backticked path out of a sentence', () => {
    const text = `Here is the change to \`src/a.py\`:\n\n${F}python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n${F}\n`
    expect(ops(text).map((op) => op.path)).toEqual(['src/a.py'])
  })

  it('refuses a first block whose only name line is a sentence', () => {
    const text =
      'Replace `foo` with `bar` in it:\n<<<<<<< SEARCH\nfoo\n=======\nbar\n>>>>>>> REPLACE\n'
    expect(failure(text)).toMatchObject({ code: 'PARSE_BAD_HEADER', patchLine: 2 })
  })

  it('keeps a name with spaces when the whole line is quoted', () => {
    expect(nameFromLine('`dir with space/a.ts`:')).toBe('dir with space/a.ts')
    expect(nameFromLine('"dir with space/a.ts"')).toBe('dir with space/a.ts')
    expect(nameFromLine('"a.py"')).toBe('a.py')
    expect(nameFromLine('### **src/a.ts**')).toBe('src/a.ts')
    expect(nameFromLine('Now also change this:')).toBeUndefined()
  })
})

describe('parseSearchReplace on large blocks', () => {
  it('keeps both sides exact when a large block changes most of its lines (bounded diff)', () => {
    const search = Array.from({ length: 1000 }, (_, i) => (i % 2 === 1 ? 'same' : `old ${i}`))
    const replace = search.map((line, i) => (i % 2 === 1 ? line : `new ${i}`))
    const text = [
      'f.txt',
      '<<<<<<< SEARCH',
      ...search,
      '=======',
      ...replace,
      '>>>>>>> REPLACE',
    ].join('\n')
    const parsed = parseSearchReplace(text)
    expect(parsed.ok).toBe(true)
    if (!parsed.ok) return
    const op = parsed.value.ops[0]
    expect(op?.kind).toBe('update')
    if (op?.kind !== 'update') return
    const lines = op.hunks[0]?.lines ?? []
    expect(lines.filter((l) => l.op !== '+').map((l) => l.text)).toEqual(search)
    expect(lines.filter((l) => l.op !== '-').map((l) => l.text)).toEqual(replace)
    // Past the edit bound only the common head and tail stay context: here, the last line.
    expect(lines.filter((l) => l.op === ' ').map((l) => l.text)).toEqual(['same'])
  })
})

describe('parseSearchReplace with ======= lines inside a section', () => {
  const dividerError = (text: string): EditErrorData => {
    const error = failure(text)
    expect(error.code).toBe('PARSE_BAD_LINE')
    expect(error.hint).toContain('exactly one =======')
    return error
  }

  it('refuses a Markdown heading underline on both sides at the second divider line', () => {
    const text = block('README.md', ['Install', '=======', 'old'], ['Install', '=======', 'new'])
    const error = dividerError(text)
    expect(error).toMatchObject({ path: 'README.md', patchLine: 6 })
    expect(error.message).toContain('3 ======= lines (lines 4, 6, 8)')
  })

  it('refuses a doubled divider before the REPLACE marker rather than write it', () => {
    // Two readings fit: SEARCH "a" -> REPLACE "b" plus a stray divider, or SEARCH "a\n=======\nb"
    // deleted. Neither is certain, so the block is refused.
    expect(dividerError(block('f', ['a'], ['b', '=======']))).toMatchObject({ patchLine: 6 })
    expect(dividerError(block('f', ['a'], ['=======', 'b']))).toMatchObject({ patchLine: 5 })
  })

  it('refuses a divider in a fenced code block inside a section', () => {
    const text = block('doc.md', ['```', 'a', '```'], ['```', '=======', '```'])
    expect(dividerError(text)).toMatchObject({ patchLine: 8 })
  })

  it('refuses a git conflict inside a section', () => {
    const text = block('c.txt', ['<<<<<<< HEAD', 'x', '=======', 'y', '>>>>>>> main'], ['x'])
    expect(dividerError(text)).toMatchObject({ patchLine: 8 })
  })

  it('keeps underlines of 10 or more characters and underlines of other characters as text', () => {
    const [op] = ops(block('r.rst', ['Title', '==========', 'old'], ['Title', '-----', 'new']))
    expect(op?.hunks[0]?.lines.map((l) => l.op + l.text)).toEqual([
      ' Title',
      '-==========',
      '-old',
      '+-----',
      '+new',
    ])
  })

  it('refuses a SEARCH marker line inside a section, naming both lines', () => {
    const text = block('sr.md', ['<<<<<<< SEARCH', 'x'], ['y'])
    const error = failure(text)
    expect(error).toMatchObject({ code: 'PARSE_UNTERMINATED', path: 'sr.md', patchLine: 2 })
    expect(error.message).toContain('next <<<<<<< SEARCH marker at line 3')
  })

  it('refuses a REPLACE marker line inside a section, on either side', () => {
    const inSearch = block('sr.md', ['>>>>>>> REPLACE', 'x'], ['y'])
    expect(failure(inSearch)).toMatchObject({ code: 'PARSE_UNTERMINATED', patchLine: 2 })
    // The block ends at the first REPLACE marker; the real one is then a stray marker.
    const inReplace = block('sr.md', ['x'], ['y', '>>>>>>> REPLACE', 'z'])
    expect(failure(inReplace)).toMatchObject({ code: 'PARSE_BAD_LINE', patchLine: 8 })
  })

  it('reads blocks inside prose with one divider each', () => {
    const text = `Intro.\n\n${block('a.md', ['x'], ['y'])}\nThen =======\n${block('b.md', ['p'], ['q'])}Bye.\n`
    expect(ops(text).map((op) => op.path)).toEqual(['a.md', 'b.md'])
  })
})

describe('parseSearchReplace name lines around Aider fence tags and elisions', () => {
  const body = ['<<<<<<< SEARCH', 'old', '=======', 'new', '>>>>>>> REPLACE']
  for (const tag of ['source', 'code', 'pre', 'codeblock', 'sourcecode']) {
    it(`skips a <${tag}> fence line above the SEARCH marker`, () => {
      for (const open of [`<${tag}>`, `<${tag}>python`, `<${tag}>c++`]) {
        const text = ['mathweb/flask/app.py', open, ...body, `</${tag}>`, ''].join('\n')
        expect(ops(text).map((op) => op.path)).toEqual(['mathweb/flask/app.py'])
      }
    })
  }

  it('creates the named file, not one called <source>python, for an empty SEARCH', () => {
    const text =
      'new.py\n<source>python\n<<<<<<< SEARCH\n=======\nx = 1\n>>>>>>> REPLACE\n</source>\n'
    expect(ops(text)).toMatchObject([{ path: 'new.py', createIfMissing: true }])
  })

  it('finds the name on the first line inside a fence tag', () => {
    const text =
      '<source>python\nsrc/a.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n</source>\n'
    expect(ops(text).map((op) => op.path)).toEqual(['src/a.py'])
  })

  it('reuses the previous file for a fence-tagged block after a closing tag', () => {
    const first = ['a.py', '<code>', ...body, '</code>', '']
    const text = [...first, '<code>', ...body, '</code>', ''].join('\n')
    const result = ops(text)
    expect(result.map((op) => op.path)).toEqual(['a.py'])
    expect(result[0]?.hunks).toHaveLength(2)
  })

  it('refuses a first block whose only line above is a fence tag', () => {
    const text = ['<source>python', ...body, '</source>', ''].join('\n')
    expect(failure(text)).toMatchObject({ code: 'PARSE_BAD_HEADER', patchLine: 2 })
  })

  it('passes over ... lines: between blocks, above a fence and inside one', () => {
    const between = `${block('a.py', ['x'], ['y'])}\n...\n\n${F}python\n${body.join('\n')}\n${F}\n`
    expect(ops(between).map((op) => op.path)).toEqual(['a.py'])
    expect(ops(between)[0]?.hunks).toHaveLength(2)
    const above = `b.py\n...\n${F}python\n...\n${body.join('\n')}\n${F}\n`
    expect(ops(above).map((op) => op.path)).toEqual(['b.py'])
    const alone = `...\n${body.join('\n')}\n`
    expect(failure(alone)).toMatchObject({ code: 'PARSE_BAD_HEADER', patchLine: 2 })
  })

  it('never takes a fence, a fence tag or an elision as a name', () => {
    for (const line of ['<source>python', '</code>', '<PRE>', '...', ' … ', '```python', '~~~']) {
      expect(nameFromLine(line), line).toBeUndefined()
    }
  })
})
