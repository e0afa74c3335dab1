import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { applyPatch } from 'diff'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderDiff, type LineRegion } from '../../../src/apply/render-diff.js'
import { joinLines, splitLines, type Line } from '../../../src/text/lines.js'

const update = { oldPath: 'f.txt', newPath: 'f.txt' } as const

/** Applies `diff` to `before` with real `git apply` and returns the result. */
function gitApply(before: string, diff: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchloom-render-'))
  try {
    writeFileSync(path.join(dir, 'f.txt'), before)
    writeFileSync(path.join(dir, 'change.diff'), diff)
    execFileSync('git', ['apply', '--unidiff-zero', 'change.diff'], { cwd: dir, stdio: 'pipe' })
    return readFileSync(path.join(dir, 'f.txt'), 'utf8')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('renderDiff', () => {
  it('writes a git-style diff with 3 lines of context and counts lines', () => {
    const before = splitLines('1\n2\n3\n4\n5\n6\n7\n8\n9\n')
    const after = splitLines('1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n')
    const rendered = renderDiff(update, before, after)
    expect(rendered).toEqual({
      additions: 1,
      deletions: 1,
      diff: 'diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n',
    })
  })

  it('splits distant changes into separate hunks and merges near ones', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `l${i}`)
    const before = splitLines(lines.join('\n') + '\n')
    const changed = lines.map((l, i) => (i === 2 || i === 8 || i === 25 ? l.toUpperCase() : l))
    const diff = renderDiff(update, before, splitLines(changed.join('\n') + '\n')).diff
    expect(diff.match(/^@@ .* @@$/gm)).toEqual(['@@ -1,12 +1,12 @@', '@@ -23,7 +23,7 @@'])
  })

  it('marks a missing final newline on either side', () => {
    const diff = renderDiff(update, splitLines('a\nb'), splitLines('a\nb\n')).diff
    expect(diff).toContain('-b\n\\ No newline at end of file\n+b\n')
    expect(gitApply('a\nb', diff)).toBe('a\nb\n')
  })

  it('writes creation, deletion, rename, copy and mode headers as git does', () => {
    const lines = splitLines('x\n')
    expect(renderDiff({ oldPath: null, newPath: 'n.txt' }, [], lines).diff).toBe(
      'diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+x\n',
    )
    expect(renderDiff({ oldPath: 'o.txt', newPath: null, oldMode: '100755' }, lines, []).diff).toBe(
      'diff --git a/o.txt b/o.txt\ndeleted file mode 100755\n--- a/o.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n',
    )
    expect(renderDiff({ oldPath: 'a', newPath: 'b', rename: true }, lines, lines).diff).toBe(
      'diff --git a/a b/b\nrename from a\nrename to b\n',
    )
    expect(renderDiff({ oldPath: 'a', newPath: 'b', copy: true }, lines, lines).diff).toBe(
      'diff --git a/a b/b\ncopy from a\ncopy to b\n',
    )
    expect(
      renderDiff({ oldPath: 's', newPath: 's', oldMode: '100644', newMode: '100755' }, lines, lines)
        .diff,
    ).toBe('diff --git a/s b/s\nold mode 100644\nnew mode 100755\n')
  })

  it('returns an empty diff when nothing changed', () => {
    const lines = splitLines('same\n')
    expect(renderDiff(update, lines, lines)).toEqual({ additions: 0, deletions: 0, diff: '' })
  })

  it('says only that binary files differ', () => {
    const rendered = renderDiff({ ...update, binary: true }, splitLines('a\0'), splitLines('b\0'))
    expect(rendered.diff).toBe(
      'diff --git a/f.txt b/f.txt\nBinary files a/f.txt and b/f.txt differ\n',
    )
  })

  it('quotes names with control characters and backslashes like git', () => {
    const diff = renderDiff(
      { oldPath: 'tab\there', newPath: 'tab\there' },
      splitLines('a\n'),
      splitLines('b\n'),
    ).diff
    expect(diff.split('\n').slice(0, 3)).toEqual([
      'diff --git "a/tab\\there" "b/tab\\there"',
      '--- "a/tab\\there"',
      '+++ "b/tab\\there"',
    ])
  })

  it('keeps CRLF line content so git apply reproduces a CRLF file', () => {
    const before = 'one\r\ntwo\r\nthree\r\n'
    const after = 'one\r\nTWO\r\nthree\r\n'
    const diff = renderDiff(update, splitLines(before), splitLines(after)).diff
    expect(gitApply(before, diff)).toBe(after)
  })

  it('renders the same change from regions as from the whole file', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c', '', 'x y'), { maxLength: 25 }),
        fc.array(fc.constantFrom('a', 'b', 'N', ''), { maxLength: 5 }),
        fc.nat(),
        fc.nat(),
        (lines, inserted, s, len) => {
          const start = lines.length === 0 ? 0 : s % (lines.length + 1)
          const end = start + (lines.length - start === 0 ? 0 : len % (lines.length - start + 1))
          const next = [...lines.slice(0, start), ...inserted, ...lines.slice(end)]
          const before: Line[] = lines.map((text) => ({ text, eol: '\n' }))
          const after: Line[] = next.map((text) => ({ text, eol: '\n' }))
          const region: LineRegion = {
            oldStart: start,
            oldEnd: end,
            newStart: start,
            newEnd: start + inserted.length,
          }
          const fromRegions = renderDiff(update, before, after, [region])
          const whole = renderDiff(update, before, after)
          expect(fromRegions.additions - fromRegions.deletions).toBe(
            whole.additions - whole.deletions,
          )
          for (const rendered of [fromRegions, whole]) {
            if (rendered.diff === '') expect(joinLines(after)).toBe(joinLines(before))
            else expect(applyPatch(joinLines(before), rendered.diff)).toBe(joinLines(after))
          }
        },
      ),
      { numRuns: 300, seed: 11 },
    )
  })

  it('falls back to a whole-file diff when lines outside the regions changed', () => {
    const before = splitLines('a\nb\nc\nd')
    const after = splitLines('a\nB\nc\nd\n')
    // The region claims only line 2; the last line's terminator changed too.
    const rendered = renderDiff(update, before, after, [
      { oldStart: 1, oldEnd: 2, newStart: 1, newEnd: 2 },
    ])
    expect(rendered.additions).toBe(2)
    expect(gitApply('a\nb\nc\nd', rendered.diff)).toBe('a\nB\nc\nd\n')
  })

  it('produces diffs git apply accepts for random edits of files with and without final newlines', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c', ''), { minLength: 1, maxLength: 10 }),
        fc.array(fc.constantFrom('a', 'b', 'z', ''), { minLength: 1, maxLength: 10 }),
        fc.boolean(),
        fc.boolean(),
        (a, b, aFinal, bFinal) => {
          const before = a.join('\n') + (aFinal ? '\n' : '')
          const after = b.join('\n') + (bFinal ? '\n' : '')
          const diff = renderDiff(update, splitLines(before), splitLines(after)).diff
          if (diff === '') expect(after).toBe(before)
          else expect(gitApply(before, diff)).toBe(after)
        },
      ),
      { numRuns: 40, seed: 5 },
    )
  })
})
