// Parser behaviour cases that must be refused, leaving every file as it was: ambiguous or
// missing context, missing files, a deletion that does not match, one bad file among good ones,
// and paths the engine does not write (outside the root, denied, a directory).
import {
  type BehaviourCase,
  text,
  codex,
  block,
  edits,
  NO_DELETE_SR,
  NO_DELETE_EDITS,
} from './case.js'

export const REFUSALS: readonly BehaviourCase[] = [
  {
    name: 'an edit that fits two places is refused',
    before: { 't.txt': 'a\nx\ntarget\ny\nc\nx\ntarget\ny\ne\n' },
    expect: { refused: 'MATCH_AMBIGUOUS' },
    renditions: {
      codex: codex('*** Update File: t.txt', '@@', ' x', '-target', '+TARGET', ' y'),
      // Stated at line 4, two lines from each place: neither is nearer.
      unified: text(
        '--- a/t.txt',
        '+++ b/t.txt',
        '@@ -4,3 +4,3 @@',
        ' x',
        '-target',
        '+TARGET',
        ' y',
      ),
      'search-replace': block('t.txt', ['x', 'target', 'y'], ['x', 'TARGET', 'y']),
      edits: edits({ path: 't.txt', old_string: 'x\ntarget\ny\n', new_string: 'x\nTARGET\ny\n' }),
    },
  },
  {
    name: 'an edit that fits two places only leniently is refused',
    before: { 'a.txt': 'x  \nend\nx \nend\n' },
    expect: { refused: 'MATCH_AMBIGUOUS' },
    renditions: {
      codex: codex('*** Update File: a.txt', '@@', '-x', '+X', ' end'),
      unified: text('--- a/a.txt', '+++ b/a.txt', '@@ -2,2 +2,2 @@', '-x', '+X', ' end'),
      'search-replace': block('a.txt', ['x', 'end'], ['X', 'end']),
      edits: edits({ path: 'a.txt', old_string: 'x\nend\n', new_string: 'X\nend\n' }),
    },
  },
  {
    name: 'an edit whose old lines are not in the file is refused',
    before: { 'a.txt': 'one\ntwo\nthree\n' },
    expect: { refused: 'MATCH_NOT_FOUND' },
    renditions: {
      codex: codex('*** Update File: a.txt', '@@', ' one', '-deux', '+2', ' three'),
      unified: text(
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1,3 +1,3 @@',
        ' one',
        '-deux',
        '+2',
        ' three',
      ),
      'search-replace': block('a.txt', ['one', 'deux'], ['one', '2']),
      edits: edits({ path: 'a.txt', old_string: 'one\ndeux\n', new_string: 'one\n2\n' }),
    },
  },
  {
    name: 'one failing file refuses the whole patch: nothing is written',
    before: { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' },
    expect: { refused: 'MATCH_NOT_FOUND' },
    renditions: {
      codex: codex(
        '*** Update File: a.txt',
        '@@',
        '-alpha',
        '+ALPHA',
        '*** Update File: b.txt',
        '@@',
        '-gamma',
        '+GAMMA',
        '*** Add File: c.txt',
        '+new',
      ),
      unified: text(
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1 +1 @@',
        '-alpha',
        '+ALPHA',
        '--- a/b.txt',
        '+++ b/b.txt',
        '@@ -1 +1 @@',
        '-gamma',
        '+GAMMA',
        'diff --git a/c.txt b/c.txt',
        'new file mode 100644',
        '--- /dev/null',
        '+++ b/c.txt',
        '@@ -0,0 +1 @@',
        '+new',
      ),
      'search-replace':
        block('a.txt', ['alpha'], ['ALPHA']) +
        block('b.txt', ['gamma'], ['GAMMA']) +
        block('c.txt', [], ['new']),
      edits: edits(
        { path: 'a.txt', old_string: 'alpha', new_string: 'ALPHA' },
        { path: 'b.txt', old_string: 'gamma', new_string: 'GAMMA' },
        { path: 'c.txt', mode: 'write', content: 'new\n' },
      ),
    },
  },
  {
    name: 'an edit of a missing file is refused',
    before: { 'keep.txt': 'k\n' },
    expect: { refused: 'FILE_NOT_FOUND' },
    renditions: {
      codex: codex('*** Update File: missing.txt', '@@', '-x', '+y'),
      unified: text('--- a/missing.txt', '+++ b/missing.txt', '@@ -1,2 +1,2 @@', '-x', '+y', ' z'),
      'search-replace': block('missing.txt', ['x'], ['y']),
      edits: edits({ path: 'missing.txt', old_string: 'x', new_string: 'y' }),
    },
  },
  {
    name: 'deleting a missing file is refused',
    before: { 'keep.txt': 'k\n' },
    expect: { refused: 'FILE_NOT_FOUND' },
    renditions: {
      codex: codex('*** Delete File: missing.txt'),
      unified: text(
        'diff --git a/missing.txt b/missing.txt',
        'deleted file mode 100644',
        '--- a/missing.txt',
        '+++ /dev/null',
        '@@ -1 +0,0 @@',
        '-x',
      ),
    },
    cannot: { 'search-replace': NO_DELETE_SR, edits: NO_DELETE_EDITS },
  },
  {
    name: 'deleting a file whose content differs from the patch is refused',
    before: { 'gone.txt': 'bye\nlater\n', 'keep.txt': 'k\n' },
    expect: { refused: 'MATCH_NOT_FOUND' },
    renditions: {
      codex: codex('*** Delete File: gone.txt'),
      unified: text(
        'diff --git a/gone.txt b/gone.txt',
        'deleted file mode 100644',
        '--- a/gone.txt',
        '+++ /dev/null',
        '@@ -1,2 +0,0 @@',
        '-bye',
        '-now',
      ),
    },
    cannot: { 'search-replace': NO_DELETE_SR, edits: NO_DELETE_EDITS },
    differs: {
      codex: {
        expect: { files: { 'keep.txt': 'k\n' } },
        why: 'a Codex Delete File states no content, so there is nothing to check the file against',
      },
    },
  },
  {
    name: 'Unicode normalisation is no leniency: a composed é does not match a decomposed one',
    before: { 'n.txt': 'cafe\u0301\nb\n' },
    expect: { refused: 'MATCH_NOT_FOUND' },
    renditions: {
      codex: codex('*** Update File: n.txt', '@@', ' caf\u00e9', '-b', '+B'),
      unified: text('--- a/n.txt', '+++ b/n.txt', '@@ -1,2 +1,2 @@', ' caf\u00e9', '-b', '+B'),
      'search-replace': block('n.txt', ['caf\u00e9', 'b'], ['caf\u00e9', 'B']),
      edits: edits({ path: 'n.txt', old_string: 'caf\u00e9\nb\n', new_string: 'caf\u00e9\nB\n' }),
    },
  },
  {
    name: 'a path outside the workspace root is refused',
    before: { 'a.txt': 'x\n' },
    expect: { refused: 'PATH_OUTSIDE_ROOT' },
    renditions: {
      codex: codex('*** Update File: ../a.txt', '@@', '-x', '+y'),
      unified: text('--- a/../a.txt', '+++ b/../a.txt', '@@ -1 +1 @@', '-x', '+y'),
      'search-replace': block('../a.txt', ['x'], ['y']),
      edits: edits({ path: '../a.txt', old_string: 'x', new_string: 'y' }),
    },
  },
  {
    name: 'a path under .git is refused by the default deny rules',
    before: { '.git/config': 'x\n' },
    expect: { refused: 'PATH_DENIED' },
    renditions: {
      codex: codex('*** Update File: .git/config', '@@', '-x', '+y'),
      unified: text('--- a/.git/config', '+++ b/.git/config', '@@ -1 +1 @@', '-x', '+y'),
      'search-replace': block('.git/config', ['x'], ['y']),
      edits: edits({ path: '.git/config', old_string: 'x', new_string: 'y' }),
    },
  },
  {
    name: 'a directory edited as a file is refused',
    before: { 'd/x.txt': 'x\n' },
    expect: { refused: 'FILE_IS_DIRECTORY' },
    renditions: {
      codex: codex('*** Update File: d', '@@', '-x', '+y'),
      unified: text('--- a/d', '+++ b/d', '@@ -1 +1 @@', '-x', '+y'),
      'search-replace': block('d', ['x'], ['y']),
      edits: edits({ path: 'd', old_string: 'x', new_string: 'y' }),
    },
  },
]
