// Parser behaviour cases: CRLF and mixed line endings, a missing final newline, a byte order
// mark, and a patch that arrives with CRLF endings.
import { type BehaviourCase, text, crlf, codex, block, edits } from './case.js'

export const LINE_ENDINGS: readonly BehaviourCase[] = [
  {
    name: 'a file with CRLF endings keeps them, new lines too',
    before: { 'w.txt': 'one\r\ntwo\r\nthree\r\n' },
    expect: { files: { 'w.txt': 'one\r\n2\r\nextra\r\nthree\r\n' } },
    renditions: {
      codex: codex('*** Update File: w.txt', '@@', ' one', '-two', '+2', '+extra', ' three'),
      unified: text(
        '--- a/w.txt',
        '+++ b/w.txt',
        '@@ -1,3 +1,4 @@',
        ' one',
        '-two',
        '+2',
        '+extra',
        ' three',
      ),
      'search-replace': block('w.txt', ['two'], ['2', 'extra']),
      edits: edits({ path: 'w.txt', old_string: 'two\n', new_string: '2\nextra\n' }),
    },
  },
  {
    name: 'mixed line endings: untouched lines keep theirs, new lines take the dominant one',
    before: { 'm.txt': 'one\r\ntwo\nthree\r\nfour\r\n' },
    expect: { files: { 'm.txt': 'one\r\ntwo\nTHREE\r\nthree and a half\r\nfour\r\n' } },
    renditions: {
      codex: codex(
        '*** Update File: m.txt',
        '@@',
        ' two',
        '-three',
        '+THREE',
        '+three and a half',
        ' four',
      ),
      unified: text(
        '--- a/m.txt',
        '+++ b/m.txt',
        '@@ -2,3 +2,4 @@',
        ' two',
        '-three',
        '+THREE',
        '+three and a half',
        ' four',
      ),
      'search-replace': block('m.txt', ['three'], ['THREE', 'three and a half']),
      edits: edits({
        path: 'm.txt',
        old_string: 'three\n',
        new_string: 'THREE\nthree and a half\n',
      }),
    },
  },
  {
    name: 'a patch sent with CRLF line endings edits an LF file as if sent with LF',
    before: { 'a.txt': 'one\ntwo\nthree\n' },
    expect: { files: { 'a.txt': 'one\n2\nthree\n' } },
    renditions: {
      codex: crlf(codex('*** Update File: a.txt', '@@', ' one', '-two', '+2', ' three')),
      unified: crlf(
        text('--- a/a.txt', '+++ b/a.txt', '@@ -1,3 +1,3 @@', ' one', '-two', '+2', ' three'),
      ),
      'search-replace': crlf(block('a.txt', ['two'], ['2'])),
      edits: crlf(edits({ path: 'a.txt', old_string: 'two\n', new_string: '2\n' })),
    },
  },
  {
    name: 'a UTF-8 byte order mark is kept',
    before: { 'b.txt': '\ufeffone\ntwo\n' },
    expect: { files: { 'b.txt': '\ufeffone\n2\n' } },
    renditions: {
      codex: codex('*** Update File: b.txt', '@@', ' one', '-two', '+2'),
      unified: text('--- a/b.txt', '+++ b/b.txt', '@@ -1,2 +1,2 @@', ' one', '-two', '+2'),
      'search-replace': block('b.txt', ['two'], ['2']),
      edits: edits({ path: 'b.txt', old_string: 'two', new_string: '2' }),
    },
  },
  {
    name: 'a file without a final newline stays without one when its end is untouched',
    before: { 'n.txt': 'one\ntwo\nthree' },
    expect: { files: { 'n.txt': '1\ntwo\nthree' } },
    renditions: {
      codex: codex('*** Update File: n.txt', '@@', '-one', '+1', ' two'),
      unified: text(
        '--- a/n.txt',
        '+++ b/n.txt',
        '@@ -1,3 +1,3 @@',
        '-one',
        '+1',
        ' two',
        ' three',
        '\\ No newline at end of file',
      ),
      'search-replace': block('n.txt', ['one'], ['1']),
      edits: edits({ path: 'n.txt', old_string: 'one\n', new_string: '1\n' }),
    },
  },
  {
    name: 'a file without a final newline whose last line changes',
    before: { 'n.txt': 'one\ntwo\nthree' },
    expect: { files: { 'n.txt': 'one\ntwo\n3' } },
    renditions: {
      codex: codex('*** Update File: n.txt', '@@', ' two', '-three', '+3'),
      unified: text(
        '--- a/n.txt',
        '+++ b/n.txt',
        '@@ -1,3 +1,3 @@',
        ' one',
        ' two',
        '-three',
        '\\ No newline at end of file',
        '+3',
        '\\ No newline at end of file',
      ),
      'search-replace': block('n.txt', ['three'], ['3']),
      edits: edits({ path: 'n.txt', old_string: 'three', new_string: '3' }),
    },
    differs: {
      codex: {
        expect: { files: { 'n.txt': 'one\ntwo\n3\n' } },
        why: 'a Codex patch cannot state a missing final newline: a touched last line gets one',
      },
    },
  },
  {
    name: 'a CRLF file without a final newline whose last line changes',
    before: { 'w.txt': 'a\r\nb\r\nc' },
    expect: { files: { 'w.txt': 'a\r\nb\r\nC' } },
    renditions: {
      codex: codex('*** Update File: w.txt', '@@', ' b', '-c', '+C'),
      unified: text(
        '--- a/w.txt',
        '+++ b/w.txt',
        '@@ -1,3 +1,3 @@',
        ' a',
        ' b',
        '-c',
        '\\ No newline at end of file',
        '+C',
        '\\ No newline at end of file',
      ),
      'search-replace': block('w.txt', ['c'], ['C']),
      edits: edits({ path: 'w.txt', old_string: 'c', new_string: 'C' }),
    },
    differs: {
      codex: {
        expect: { files: { 'w.txt': 'a\r\nb\r\nC\r\n' } },
        why: "a Codex patch cannot state a missing final newline: a touched last line gets the file's ending",
      },
    },
  },
  {
    name: 'a file without a final newline: a change whose context reaches the last line',
    before: { 'n.txt': 'a\nb' },
    expect: { files: { 'n.txt': 'A\nb' } },
    renditions: {
      codex: codex('*** Update File: n.txt', '@@', '-a', '+A', ' b'),
      unified: text(
        '--- a/n.txt',
        '+++ b/n.txt',
        '@@ -1,2 +1,2 @@',
        '-a',
        '+A',
        ' b',
        '\\ No newline at end of file',
      ),
      'search-replace': block('n.txt', ['a', 'b'], ['A', 'b']),
      edits: edits({ path: 'n.txt', old_string: 'a\nb', new_string: 'A\nb' }),
    },
    differs: {
      codex: {
        expect: { files: { 'n.txt': 'A\nb\n' } },
        why: 'a Codex hunk that reaches the last line, as context too, ends it with a newline',
      },
    },
  },
  {
    name: 'lines appended to a file without a final newline: it still has none',
    before: { 'n.txt': 'a\nb' },
    expect: { files: { 'n.txt': 'a\nb\nx' } },
    renditions: {
      codex: codex('*** Update File: n.txt', '@@', ' b', '+x', '*** End of File'),
      unified: text(
        '--- a/n.txt',
        '+++ b/n.txt',
        '@@ -1,2 +1,3 @@',
        ' a',
        '-b',
        '\\ No newline at end of file',
        '+b',
        '+x',
        '\\ No newline at end of file',
      ),
      'search-replace': block('n.txt', [], ['x']),
      edits: edits({
        path: 'n.txt',
        mode: 'insert',
        anchor: 'b',
        position: 'after',
        new_string: 'x\n',
      }),
    },
    differs: {
      codex: {
        expect: { files: { 'n.txt': 'a\nb\nx\n' } },
        why: 'a Codex patch cannot state a missing final newline: a touched last line gets one',
      },
    },
  },
  {
    name: 'the last line of a file without a final newline deleted: it still has none',
    before: { 'n.txt': 'a\nb\nc' },
    expect: { files: { 'n.txt': 'a\nb' } },
    renditions: {
      codex: codex('*** Update File: n.txt', '@@', ' b', '-c'),
      unified: text(
        '--- a/n.txt',
        '+++ b/n.txt',
        '@@ -1,3 +1,2 @@',
        ' a',
        '-b',
        '-c',
        '\\ No newline at end of file',
        '+b',
        '\\ No newline at end of file',
      ),
      'search-replace': block('n.txt', ['c'], []),
      edits: edits({ path: 'n.txt', mode: 'delete_range', start_line: 3, end_line: 3 }),
    },
    differs: {
      codex: {
        expect: { files: { 'n.txt': 'a\nb\n' } },
        why: 'a Codex patch cannot state a missing final newline: a touched last line gets one',
      },
    },
  },
  {
    name: 'a CRLF file edited by a patch whose lines end in CRLF too',
    before: { 'w.txt': 'one\r\ntwo\r\nthree\r\n' },
    expect: { files: { 'w.txt': 'one\r\n2\r\nextra\r\nthree\r\n' } },
    renditions: {
      codex: crlf(codex('*** Update File: w.txt', '@@', ' one', '-two', '+2', '+extra', ' three')),
      // As `git diff` writes a CRLF file: LF headers, body lines that keep their CR.
      unified: text(
        '--- a/w.txt',
        '+++ b/w.txt',
        '@@ -1,3 +1,4 @@',
        ' one\r',
        '-two\r',
        '+2\r',
        '+extra\r',
        ' three\r',
      ),
      'search-replace': crlf(block('w.txt', ['two'], ['2', 'extra'])),
      edits: crlf(edits({ path: 'w.txt', old_string: 'two\r\n', new_string: '2\r\nextra\r\n' })),
    },
  },
  {
    name: 'a replaced line whose ending is not the dominant one',
    before: { 'm.txt': 'one\r\ntwo\nthree\r\nfour\r\n' },
    expect: { files: { 'm.txt': 'one\r\nTWO\r\nthree\r\nfour\r\n' } },
    renditions: {
      codex: codex('*** Update File: m.txt', '@@', ' one', '-two', '+TWO', ' three'),
      unified: text(
        '--- a/m.txt',
        '+++ b/m.txt',
        '@@ -1,3 +1,3 @@',
        ' one',
        '-two',
        '+TWO',
        ' three',
      ),
      'search-replace': block('m.txt', ['two'], ['TWO']),
      edits: edits({ path: 'm.txt', old_string: 'two\n', new_string: 'TWO\n' }),
    },
    differs: {
      // Not settled: DECISIONS.md D-011 says added lines take the dominant ending in every format
      // that cannot state endings, JSON edits included.
      edits: {
        expect: { files: { 'm.txt': 'one\r\nTWO\nthree\r\nfour\r\n' } },
        why: "a string edit's last new line keeps the ending of the last line it replaces",
      },
    },
  },
]
