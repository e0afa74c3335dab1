// Parser behaviour cases: where a change goes. Context that fits one place only, an exact match
// over a lenient one, and lenient matches (whitespace, indentation, quotes, dashes) whose new
// lines take the file's style.
import { type BehaviourCase, text, codex, block, edits, LENIENT, OFFSET_WHY } from './case.js'

const REPEATED_AFTER = {
  'f.js': 'function a() {\n  return 1\n}\n\nfunction b() {\n  return 2\n}\n',
}
const EXACT_AFTER = { 'w.txt': '    item\nend\nx\nITEM\nend\n' }

export const MATCHING: readonly BehaviourCase[] = [
  {
    name: 'repeated lines: the context fits one place only, whatever the stated line',
    before: { 'f.js': 'function a() {\n  return 1\n}\n\nfunction b() {\n  return 1\n}\n' },
    expect: { files: REPEATED_AFTER },
    renditions: {
      codex: codex(
        '*** Update File: f.js',
        '@@',
        ' function b() {',
        '-  return 1',
        '+  return 2',
        ' }',
      ),
      // The header states line 1, where function a's lines are: only line 5 fits the context.
      unified: text(
        '--- a/f.js',
        '+++ b/f.js',
        '@@ -1,3 +1,3 @@',
        ' function b() {',
        '-  return 1',
        '+  return 2',
        ' }',
      ),
      'search-replace': block(
        'f.js',
        ['function b() {', '  return 1'],
        ['function b() {', '  return 2'],
      ),
      edits: edits({
        path: 'f.js',
        old_string: 'function b() {\n  return 1\n',
        new_string: 'function b() {\n  return 2\n',
      }),
    },
    differs: {
      unified: { expect: { files: REPEATED_AFTER, warnings: ['match.offset'] }, why: OFFSET_WHY },
    },
  },
  {
    name: 'an exact match wins over a nearer lenient one',
    before: { 'w.txt': '    item\nend\nx\nitem\nend\n' },
    expect: { files: EXACT_AFTER },
    renditions: {
      codex: codex('*** Update File: w.txt', '@@', '-item', '+ITEM', ' end'),
      // Stated at line 2: the lenient match at line 1 is nearer than the exact one at line 4.
      unified: text('--- a/w.txt', '+++ b/w.txt', '@@ -2,2 +2,2 @@', '-item', '+ITEM', ' end'),
      'search-replace': block('w.txt', ['item', 'end'], ['ITEM', 'end']),
      edits: edits({ path: 'w.txt', old_string: 'item\nend\n', new_string: 'ITEM\nend\n' }),
    },
    differs: {
      unified: { expect: { files: EXACT_AFTER, warnings: ['match.offset'] }, why: OFFSET_WHY },
      edits: {
        expect: { refused: 'MATCH_AMBIGUOUS' },
        why: 'old_string is matched as text, not as whole lines, and "item\\nend\\n" is also the end of "    item\\nend\\n": two exact matches',
      },
    },
  },
  {
    name: 'trailing whitespace in the file: the context matches leniently and the file keeps it',
    before: { 'c.toml': 'name = "demo"   \nversion = 1\n' },
    expect: { files: { 'c.toml': 'name = "demo"   \nversion = 2\n' }, warnings: LENIENT },
    renditions: {
      codex: codex(
        '*** Update File: c.toml',
        '@@',
        ' name = "demo"',
        '-version = 1',
        '+version = 2',
      ),
      unified: text(
        '--- a/c.toml',
        '+++ b/c.toml',
        '@@ -1,2 +1,2 @@',
        ' name = "demo"',
        '-version = 1',
        '+version = 2',
      ),
      'search-replace': block(
        'c.toml',
        ['name = "demo"', 'version = 1'],
        ['name = "demo"', 'version = 2'],
      ),
      edits: edits({
        path: 'c.toml',
        old_string: 'name = "demo"\nversion = 1\n',
        new_string: 'name = "demo"\nversion = 2\n',
      }),
    },
  },
  {
    name: 'indentation that differs from the file: new lines take the file indent',
    before: { 'p.py': 'def f():\n    x = 1\n    return x\n' },
    expect: { files: { 'p.py': 'def f():\n    x = 1\n    return x * 2\n' }, warnings: LENIENT },
    renditions: {
      codex: codex('*** Update File: p.py', '@@', '  x = 1', '-  return x', '+  return x * 2'),
      unified: text(
        '--- a/p.py',
        '+++ b/p.py',
        '@@ -2,2 +2,2 @@',
        '  x = 1',
        '-  return x',
        '+  return x * 2',
      ),
      'search-replace': block('p.py', ['  x = 1', '  return x'], ['  x = 1', '  return x * 2']),
      edits: edits({
        path: 'p.py',
        old_string: '  x = 1\n  return x\n',
        new_string: '  x = 1\n  return x * 2\n',
      }),
    },
  },
  {
    name: 'a tab-indented file edited with space indents: new lines take the tabs',
    before: { 'm.go': 'func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n' },
    expect: {
      files: { 'm.go': 'func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n' },
      warnings: LENIENT,
    },
    renditions: {
      codex: codex(
        '*** Update File: m.go',
        '@@',
        '     if x {',
        '-        return 1',
        '+        return 2',
      ),
      unified: text(
        '--- a/m.go',
        '+++ b/m.go',
        '@@ -2,3 +2,3 @@',
        '     if x {',
        '-        return 1',
        '+        return 2',
        '     }',
      ),
      'search-replace': block(
        'm.go',
        ['    if x {', '        return 1'],
        ['    if x {', '        return 2'],
      ),
      edits: edits({
        path: 'm.go',
        old_string: '    if x {\n        return 1\n',
        new_string: '    if x {\n        return 2\n',
      }),
    },
  },
  {
    name: 'curly quotes in the patch, straight ones in the file: new lines take the straight ones',
    before: { 's.py': 'msg = "hello"\nx = 1\n' },
    expect: { files: { 's.py': 'msg = "hello, world"\nx = 1\n' }, warnings: LENIENT },
    renditions: {
      codex: codex(
        '*** Update File: s.py',
        '@@',
        '-msg = “hello”',
        '+msg = “hello, world”',
        ' x = 1',
      ),
      unified: text(
        '--- a/s.py',
        '+++ b/s.py',
        '@@ -1,2 +1,2 @@',
        '-msg = “hello”',
        '+msg = “hello, world”',
        ' x = 1',
      ),
      'search-replace': block('s.py', ['msg = “hello”'], ['msg = “hello, world”']),
      edits: edits({
        path: 's.py',
        old_string: 'msg = “hello”',
        new_string: 'msg = “hello, world”',
      }),
    },
  },
  {
    name: 'ASCII dashes and spaces in the patch match Unicode ones in the file, which keeps them',
    before: { 'n.md': '# Notes \u2014 draft\nrange: 1\u20135\ntotal = 10\n' },
    expect: {
      files: { 'n.md': '# Notes \u2014 draft\nrange: 1\u20135\ntotal = 11\n' },
      warnings: LENIENT,
    },
    renditions: {
      codex: codex(
        '*** Update File: n.md',
        '@@',
        ' # Notes - draft',
        ' range: 1-5',
        '-total = 10',
        '+total = 11',
      ),
      unified: text(
        '--- a/n.md',
        '+++ b/n.md',
        '@@ -1,3 +1,3 @@',
        ' # Notes - draft',
        ' range: 1-5',
        '-total = 10',
        '+total = 11',
      ),
      'search-replace': block('n.md', ['range: 1-5', 'total = 10'], ['range: 1-5', 'total = 11']),
      edits: edits({
        path: 'n.md',
        old_string: 'range: 1-5\ntotal = 10\n',
        new_string: 'range: 1-5\ntotal = 11\n',
      }),
    },
  },
  {
    name: 'blank lines as context',
    before: { 'a.txt': 'a\n\nb\n\nc\n' },
    expect: { files: { 'a.txt': 'a\n\nB\n\nc\n' } },
    renditions: {
      codex: codex('*** Update File: a.txt', '@@', '', '-b', '+B', ''),
      unified: text('--- a/a.txt', '+++ b/a.txt', '@@ -2,3 +2,3 @@', ' ', '-b', '+B', ' '),
      'search-replace': block('a.txt', ['', 'b', ''], ['', 'B', '']),
      edits: edits({ path: 'a.txt', old_string: '\nb\n\n', new_string: '\nB\n\n' }),
    },
  },
  {
    name: 'lines that look like patch syntax are plain text',
    before: { 'd.txt': '--- old\n+++ new\n@@ hunk\n*** note\n' },
    expect: { files: { 'd.txt': '--- old\n+++ newer\n@@ hunk\n*** note\n' } },
    renditions: {
      codex: codex(
        '*** Update File: d.txt',
        '@@',
        ' --- old',
        '-+++ new',
        '++++ newer',
        ' @@ hunk',
      ),
      unified: text(
        '--- a/d.txt',
        '+++ b/d.txt',
        '@@ -1,3 +1,3 @@',
        ' --- old',
        '-+++ new',
        '++++ newer',
        ' @@ hunk',
      ),
      'search-replace': block('d.txt', ['+++ new'], ['+++ newer']),
      edits: edits({ path: 'd.txt', old_string: '+++ new\n', new_string: '+++ newer\n' }),
    },
  },
]
