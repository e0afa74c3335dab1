// Context-only vias of history replay (DECISIONS.md D-078): git's diff of a file as a Codex
// patch or SEARCH/REPLACE blocks (convert.ts), what each format cannot state (fallbacks, with
// reasons), and applyPlan's judging of every hunk through the format's own parser and the
// matcher: placed where git has it, refused (counted, the file left for git's bytes), or
// misplaced (reported).
import { describe, expect, it } from 'vitest'
import { parsePlan } from '../../../src/parse/index.js'
import { convertOp, type ContextFormat } from '../../../src/replay/convert.js'
import { applyPlan, type Tree, type TreeFile } from '../../../src/replay/tree.js'
import type { FileOp } from '../../../src/types.js'
import { ctx, file, plan, text } from '../../helpers/replay-tree.js'

const decode = (f: TreeFile | null | undefined) =>
  f === null || f === undefined || f.bytes === null ? f : new TextDecoder().decode(f.bytes)

function onlyOp(diff: string): FileOp {
  return plan(diff).ops[0] as FileOp
}

function converted(op: FileOp, source: string | null, format: ContextFormat, mode = '100644') {
  const c = convertOp(op, source === null ? null : text(source), mode, format)
  if (c.kind !== 'converted') throw new Error(`fell back: ${c.reason}`)
  return c.build(Array.from({ length: c.hunks }, (_, i) => i))
}

// A file of two functions whose bodies share a line, and an update of the second one.
const SOURCE = [
  'function first(a) {',
  '  const x = load(a)',
  '  return x',
  '}',
  '',
  'function second(b) {',
  '  const y = 1',
  '  const z = 2',
  '  return y + z',
  '}',
  '',
].join('\n')
const UPDATE = [
  'diff --git a/f.js b/f.js',
  '--- a/f.js',
  '+++ b/f.js',
  '@@ -7,3 +7,3 @@ function second(b) {',
  '   const y = 1',
  '-  const z = 2',
  '+  const z = 3',
  '   return y + z',
  '',
].join('\n')

describe('convertOp', () => {
  it("writes a Codex update with git's function context as the @@ hint", () => {
    const built = converted(onlyOp(UPDATE), SOURCE, 'codex')
    expect(built.text).toBe(
      [
        '*** Begin Patch',
        '*** Update File: f.js',
        '@@ function second(b) {',
        '   const y = 1',
        '-  const z = 2',
        '+  const z = 3',
        '   return y + z',
        '*** End Patch',
        '',
      ].join('\n'),
    )
    expect(built.patchLines).toEqual([3])
    expect(built.expected).toEqual([6])
  })

  it("restores a hint git cut to 80 bytes, drops one above the previous chunk, marks the file's end", () => {
    const long = `function ${'x'.repeat(90)}() {`
    const lines = [long, '  a', '  b', '  c', '  d', '  e', '  f', '  g', '  h', '  i', '}']
    const source = lines.join('\n') + '\n'
    const diff = [
      '--- a/g.js',
      '+++ b/g.js',
      `@@ -2,3 +2,3 @@ ${long.slice(0, 80)}`,
      '   a',
      '-  b',
      '+  B',
      '   c',
      `@@ -9,3 +9,3 @@ ${long.slice(0, 80)}`,
      '   h',
      '-  i',
      '+  I',
      ' }',
      '',
    ].join('\n')
    const built = converted(onlyOp(diff), source, 'codex')
    const body = built.text.split('\n')
    expect(body[2]).toBe(`@@ ${long}`)
    // The second hunk's hint line is above the first hunk's end: a bare @@, then End of File.
    expect(body.slice(7)).toEqual([
      '@@',
      '   h',
      '-  i',
      '+  I',
      ' }',
      '*** End of File',
      '*** End Patch',
      '',
    ])
    expect(built.expected).toEqual([1, 8])
  })

  it("writes no hint when git's line is the block before the change, not the one holding it", () => {
    // git takes the nearest line above that looks like a definition: here `function a() {`,
    // whose block ends before the change. As a hint it would name the wrong block (D-078).
    const source = ['function a() {', '  return 1', '}', '', 'a()', 'a()', 'a()', ''].join('\n')
    const diff = [
      '--- a/s.js',
      '+++ b/s.js',
      '@@ -4,3 +4,3 @@ function a() {',
      ' ',
      ' a()',
      '-a()',
      '+b()',
      '',
    ].join('\n')
    expect(converted(onlyOp(diff), source, 'codex').text.split('\n')[2]).toBe('@@')
  })

  it('writes SEARCH/REPLACE blocks, each expected where the blocks before it left it', () => {
    const diff = [
      '--- a/t.txt',
      '+++ b/t.txt',
      '@@ -1,2 +1,3 @@',
      ' one',
      '+one and a half',
      ' two',
      '@@ -8,2 +9,2 @@',
      '-eight',
      '+EIGHT',
      ' nine',
      '',
    ].join('\n')
    const source = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n'
    const built = converted(onlyOp(diff), source, 'search-replace')
    expect(built.text).toBe(
      [
        't.txt',
        '<<<<<<< SEARCH',
        'one',
        'two',
        '=======',
        'one',
        'one and a half',
        'two',
        '>>>>>>> REPLACE',
        '',
        't.txt',
        '<<<<<<< SEARCH',
        'eight',
        'nine',
        '=======',
        'EIGHT',
        'nine',
        '>>>>>>> REPLACE',
        '',
      ].join('\n'),
    )
    expect(built.patchLines).toEqual([2, 12])
    expect(built.expected).toEqual([0, 8])
  })

  it('quotes a path with a space in backticks for SEARCH/REPLACE', () => {
    const diff = UPDATE.replaceAll('f.js', 'my file.js')
    const built = converted(onlyOp(diff), SOURCE, 'search-replace')
    expect(built.text.split('\n')[0]).toBe('`my file.js`')
    const parsed = parsePlan(built.text, 'search-replace')
    expect(parsed.ok && parsed.value.ops.map((o) => o.path)).toEqual(['my file.js'])
  })

  const cases: Array<[string, string, string | null, ContextFormat | 'both', string, string?]> = [
    [
      'a binary patch',
      'diff --git a/b.bin b/b.bin\nnew file mode 100644\nindex 0000000..e69de29\nGIT binary patch\nliteral 0\nHcmV?d00001\n\nliteral 0\nHcmV?d00001\n\n',
      null,
      'both',
      'binary',
    ],
    [
      'a mode change',
      'diff --git a/f.js b/f.js\nold mode 100644\nnew mode 100755\n',
      SOURCE,
      'both',
      'mode',
    ],
    [
      'a new executable',
      'diff --git a/x.sh b/x.sh\nnew file mode 100755\n--- /dev/null\n+++ b/x.sh\n@@ -0,0 +1 @@\n+echo\n',
      null,
      'both',
      'mode',
    ],
    [
      'a symlink',
      'diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+f.js\n\\ No newline at end of file\n',
      null,
      'both',
      'symlink',
    ],
    [
      'a copy',
      'diff --git a/f.js b/g.js\nsimilarity index 100%\ncopy from f.js\ncopy to g.js\n',
      SOURCE,
      'both',
      'copy',
    ],
    [
      'a deletion',
      'diff --git a/f.js b/f.js\ndeleted file mode 100644\n--- a/f.js\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n',
      'x\n',
      'search-replace',
      'delete',
    ],
    [
      'a rename',
      'diff --git a/f.js b/g.js\nsimilarity index 100%\nrename from f.js\nrename to g.js\n',
      SOURCE,
      'search-replace',
      'rename',
    ],
    [
      'a new file without a final newline',
      '--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n',
      null,
      'both',
      'final-newline',
    ],
    [
      'an edit that leaves the last line unterminated',
      '--- a/t.txt\n+++ b/t.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n\\ No newline at end of file\n',
      'one\ntwo\n',
      'both',
      'final-newline',
    ],
    [
      'an added LF line in a CRLF file',
      '--- a/t.txt\n+++ b/t.txt\n@@ -1,2 +1,3 @@\r\n one\r\n+new\n two\r\n',
      'one\r\ntwo\r\n',
      'both',
      'line-endings',
    ],
    [
      'a CRLF line made LF in a mostly LF file (SEARCH/REPLACE would keep the CR)',
      '--- a/t.txt\n+++ b/t.txt\n@@ -1,3 +1,3 @@\n one\n-two\r\n+two\n three\n',
      'one\ntwo\r\nthree\nfour\n',
      'search-replace',
      'line-endings',
    ],
    [
      // Codex's line model (D-144) would end lines at the CR and give new lines its ending.
      'an edit far from a lone CR in a Codex patch',
      '--- a/t.txt\n+++ b/t.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n',
      'one\ntwo\nthree\nx\ry\n',
      'codex',
      'line-endings',
    ],
    [
      'a file with a BOM',
      '--- a/t.txt\n+++ b/t.txt\n@@ -1,2 +1,2 @@\n \ufeffone\n-two\n+TWO\n',
      '\ufeffone\ntwo\n',
      'both',
      'encoding',
    ],
    [
      'a context line the Codex parser reads as a marker',
      '--- a/t.txt\n+++ b/t.txt\n@@ -1,2 +1,2 @@\n *** End Patch\n-two\n+TWO\n',
      '*** End Patch\ntwo\n',
      'codex',
      'syntax',
    ],
    [
      'a SEARCH/REPLACE divider inside the text',
      '--- a/t.txt\n+++ b/t.txt\n@@ -1,2 +1,2 @@\n title\n-=======\n+-------\n',
      'title\n=======\n',
      'search-replace',
      'syntax',
    ],
    [
      'a SEARCH of blank lines only, which the format reads as an append',
      '--- a/t.txt\n+++ b/t.txt\n@@ -2,2 +2,3 @@\n \n+x\n \n',
      'a\n\n\nb\n',
      'search-replace',
      'syntax',
    ],
    [
      'a path with a leading space',
      '--- a/ t.txt\n+++ b/ t.txt\n@@ -1 +1 @@\n-a\n+b\n',
      'a\n',
      'both',
      'path',
    ],
  ]
  it.each(cases)('falls back for %s', (_, diff, source, formats, reason) => {
    const op = onlyOp(diff)
    for (const format of formats === 'both' ? (['codex', 'search-replace'] as const) : [formats]) {
      const sourceMode = (op.kind === 'update' ? op.modeBefore : undefined) ?? '100644'
      const c = convertOp(op, source === null ? null : text(source), sourceMode, format)
      expect(c, format).toEqual({ kind: 'fallback', reason })
    }
  })

  it('converts what each format can state: Codex deletions and renames, new files in both', () => {
    const del = onlyOp('--- a/f.js\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n')
    expect(converted(del, 'x\n', 'codex').text).toBe(
      '*** Begin Patch\n*** Delete File: f.js\n*** End Patch\n',
    )
    const add = onlyOp('--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n')
    expect(converted(add, null, 'codex').text).toBe(
      '*** Begin Patch\n*** Add File: n.txt\n+a\n+b\n*** End Patch\n',
    )
    expect(converted(add, null, 'search-replace').text).toBe(
      'n.txt\n<<<<<<< SEARCH\n=======\na\nb\n>>>>>>> REPLACE\n',
    )
    const moved = onlyOp(
      UPDATE.replace('+++ b/f.js', '+++ b/g.js').replace(
        'diff --git a/f.js b/f.js',
        'diff --git a/f.js b/g.js\nsimilarity index 90%\nrename from f.js\nrename to g.js',
      ),
    )
    expect(converted(moved, SOURCE, 'codex').text.split('\n').slice(1, 3)).toEqual([
      '*** Update File: f.js',
      '*** Move to: g.js',
    ])
  })
})

describe('applyPlan through a context-only format', () => {
  it('places each hunk where git has it and gives the same bytes as the unified route', () => {
    const tree: Tree = new Map([['f.js', file(SOURCE)]])
    const want = applyPlan(tree, plan(UPDATE), ctx).changes.get('f.js')
    for (const via of ['codex', 'search-replace'] as const) {
      const applied = applyPlan(tree, plan(UPDATE), { ...ctx, via })
      expect(applied, via).toMatchObject({
        failures: [],
        refusals: [],
        misplaced: [],
        formatHunks: 1,
        fallbacks: [],
      })
      expect(decode(applied.changes.get('f.js')), via).toBe(decode(want))
    }
  })

  it('refuses a hunk whose lines fit twice, judges the rest, and leaves the file to git', () => {
    // Two identical blocks: git's hunk for the second has no context that tells them apart.
    const block = ['  if (ready) {', '    go()', '  }']
    const source = ['function a() {', ...block, '}', 'function b() {', ...block, '}', ''].join('\n')
    const diff = [
      '--- a/d.js',
      '+++ b/d.js',
      '@@ -1,3 +1,3 @@',
      '-function a() {',
      '+function a(x) {',
      '   if (ready) {',
      '     go()',
      '@@ -7,3 +7,3 @@ function b() {',
      '   if (ready) {',
      '-    go()',
      '+    go(1)',
      '   }',
      '',
    ].join('\n')
    const tree: Tree = new Map([['d.js', file(source)]])
    const applied = applyPlan(tree, plan(diff), { ...ctx, via: 'search-replace' })
    expect(applied.refusals.map((r) => [r.path, r.hunk, r.code])).toEqual([
      ['d.js', 2, 'MATCH_AMBIGUOUS'],
    ])
    expect(applied.misplaced).toEqual([])
    expect(applied.refused).toEqual(new Set(['d.js']))
    expect(applied.changes.size).toBe(0)
    expect(applied.failures).toEqual([])
    // Codex's hint names b's scope, where the lines are once: placed.
    const codex = applyPlan(tree, plan(diff), { ...ctx, via: 'codex' })
    expect(codex).toMatchObject({ refusals: [], misplaced: [], failures: [] })
  })

  it('reports a hunk the matcher places elsewhere than git says as misplaced', () => {
    // A diff whose header says line 9 for lines that are only at line 2 of this tree: the
    // matcher finds them (unique), and the check against git's placement flags it.
    const diff = '--- a/t.txt\n+++ b/t.txt\n@@ -9,2 +9,2 @@\n two\n-three\n+THREE\n'
    const tree: Tree = new Map([['t.txt', file('one\ntwo\nthree\nfour\n')]])
    for (const via of ['codex', 'search-replace'] as const) {
      const applied = applyPlan(tree, plan(diff), { ...ctx, via })
      expect(applied.misplaced, via).toEqual([
        { path: 't.txt', hunk: 1, expectedLine: 9, actualLine: 2 },
      ])
    }
  })

  it('sends what the format cannot state through git diff, counting the fallback', () => {
    const tree: Tree = new Map([['f.js', file(SOURCE)]])
    const diff = 'diff --git a/f.js b/f.js\nold mode 100644\nnew mode 100755\n'
    const applied = applyPlan(tree, plan(diff), { ...ctx, via: 'codex' })
    expect(applied.fallbacks).toEqual(['mode'])
    expect(applied.changes.get('f.js')?.mode).toBe('100755')
  })
})
