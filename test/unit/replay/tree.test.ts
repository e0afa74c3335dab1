// applyPlan: a commit's ops read the tree as it was before the commit, deletions come
// before additions, and a failure names the file without touching the tree.
import { describe, expect, it } from 'vitest'
import { applyPlan, type Tree, type TreeFile } from '../../../src/replay/tree.js'
import { gitBlobId } from '../../../src/text/blob-id.js'
import { ctx, file, plan, text } from '../../helpers/replay-tree.js'

/** `tree` with `changes` laid over it, as replay.ts lays them over its own tree. */
function withChanges(tree: Tree, changes: ReadonlyMap<string, TreeFile | null>): Tree {
  const next = new Map(tree)
  for (const [path, file] of changes) {
    if (file === null) next.delete(path)
    else next.set(path, file)
  }
  return next
}

function contents(tree: Tree): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [path, f] of tree)
    out[path] = `${f.mode} ${f.bytes === null ? '(gitlink)' : new TextDecoder().decode(f.bytes)}`
  return out
}

describe('applyPlan', () => {
  const tree: Tree = new Map([
    ['a.txt', file('one\ntwo\nthree\n')],
    ['b.txt', file('bee\n')],
    ['link', file('a.txt', '120000')],
  ])

  it('applies updates, renames with edits, copies and mode changes against the old tree', () => {
    const applied = applyPlan(
      tree,
      plan(
        [
          'diff --git a/a.txt b/c.txt',
          'similarity index 80%',
          'rename from a.txt',
          'rename to c.txt',
          '--- a/a.txt',
          '+++ b/c.txt',
          '@@ -1,3 +1,3 @@',
          ' one',
          '-two',
          '+TWO',
          ' three',
          'diff --git a/a.txt b/d.txt',
          'similarity index 100%',
          'copy from a.txt',
          'copy to d.txt',
          'diff --git a/b.txt b/b.txt',
          'old mode 100644',
          'new mode 100755',
          '',
        ].join('\n'),
      ),
      ctx,
    )
    expect(applied.failures).toEqual([])
    expect(applied.hunks).toBe(1)
    expect(contents(withChanges(tree, applied.changes))).toEqual({
      'b.txt': '100755 bee\n',
      'c.txt': '100644 one\nTWO\nthree\n',
      'd.txt': '100644 one\ntwo\nthree\n', // copied from the tree before the rename's edit
      link: '120000 a.txt',
    })
    expect(applied.changes.get('c.txt')?.id).toBe(gitBlobId(text('one\nTWO\nthree\n')))
  })

  it('swaps two names, and ends a type change with the new entry', () => {
    const swap = plan(
      [
        'diff --git a/a.txt b/b.txt',
        'similarity index 100%',
        'rename from a.txt',
        'rename to b.txt',
        'diff --git a/b.txt b/a.txt',
        'similarity index 100%',
        'rename from b.txt',
        'rename to a.txt',
        'diff --git a/link b/link',
        'deleted file mode 120000',
        '--- a/link',
        '+++ /dev/null',
        '@@ -1 +0,0 @@',
        '-a.txt',
        '\\ No newline at end of file',
        'diff --git a/link b/link',
        'new file mode 100644',
        '--- /dev/null',
        '+++ b/link',
        '@@ -0,0 +1 @@',
        '+now a file',
        '',
      ].join('\n'),
    )
    const applied = applyPlan(tree, swap, ctx)
    expect(applied.failures).toEqual([])
    expect(contents(withChanges(tree, applied.changes))).toEqual({
      'a.txt': '100644 bee\n',
      'b.txt': '100644 one\ntwo\nthree\n',
      link: '100644 now a file\n',
    })
  })

  it('reports an op it cannot apply and leaves its file alone', () => {
    const applied = applyPlan(
      tree,
      plan('--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-not\n+there\n two\n'),
      ctx,
    )
    expect(applied.failures.map((f) => [f.path, f.error.code])).toEqual([
      ['a.txt', 'MATCH_NOT_FOUND'],
    ])
    expect(applied.changes.size).toBe(0)
  })

  it('refuses to create a file that exists, and skips what the caller takes from git', () => {
    const add = plan('--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new\n')
    expect(applyPlan(tree, add, ctx).failures.map((f) => f.error.code)).toEqual(['FILE_EXISTS'])
    const skipped = applyPlan(tree, add, { ...ctx, skip: new Set(['b.txt']) })
    expect(skipped).toEqual({
      changes: new Map(),
      failures: [],
      hunks: 1,
      refused: new Set(),
      fallbacks: [],
      formatHunks: 0,
      refusals: [],
      misplaced: [],
    })
  })

  it('edits no submodule pointer as a file', () => {
    const withGitlink: Tree = new Map([
      ['sub', { mode: '160000', id: '1'.repeat(40), bytes: null }],
    ])
    const applied = applyPlan(
      withGitlink,
      plan('--- a/sub\n+++ b/sub\n@@ -1 +1 @@\n-Subproject commit 1\n+Subproject commit 2\n'),
      ctx,
    )
    expect(applied.failures.map((f) => f.error.code)).toEqual(['FILE_WRONG_TYPE'])
  })
})
