// A write's tool result carries diffs up to MAX_RESULT_DIFF_BYTES, in file order: a diff that
// does not fit is left out with every one after it, each file keeps its counts and hashes, and
// `diffs_omitted` and a line of the text say how many. A patch the engine was asked to render no
// diffs for (diffsRendered false) omits them all.
import { describe, expect, it } from 'vitest'
import { MAX_RESULT_DIFF_BYTES, writeOutcome } from '../../../src/server/format.js'
import type { ApplyResult, FileResult } from '../../../src/types.js'

const file = (path: string, diff: string): FileResult => ({
  path,
  op: 'update',
  additions: 1,
  deletions: 1,
  beforeHash: `before-${path}`,
  afterHash: `after-${path}`,
  diff,
})
const diffOf = (path: string, size: number) => {
  const head = `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-x\n+`
  return head + 'y'.repeat(size - head.length - 1) + '\n'
}
const result = (files: FileResult[]): ApplyResult => ({
  format: 'unified',
  dryRun: true,
  files,
  warnings: [],
})
type Structured = { diffs_omitted?: number; files: Array<{ diff: string; content_hash: string }> }

describe('writeOutcome diff budget', () => {
  it('keeps every diff that fits, with no omission noted', () => {
    const files = [file('a', diffOf('a', 1000)), file('b', diffOf('b', 2000))]
    const out = writeOutcome(result(files), new Map())
    const s = out.structured as Structured
    expect(s.diffs_omitted).toBeUndefined()
    expect(s.files.map((f) => f.diff)).toEqual(files.map((f) => f.diff))
    expect(out.text).toContain(files[1]!.diff.trimEnd())
    expect(out.text).not.toContain('diffs omitted')
  })

  it('leaves out the first diff past the budget and every later one, in order', () => {
    const first = file('a', diffOf('a', MAX_RESULT_DIFF_BYTES - 100))
    const big = file('b', diffOf('b', 200)) // fits alone, not after the first
    const small = file('c', diffOf('c', 60)) // would fit in what is left: still left out
    const out = writeOutcome(result([first, big, small]), new Map())
    const s = out.structured as Structured
    expect(s.diffs_omitted).toBe(2)
    expect(s.files.map((f) => f.diff)).toEqual([first.diff, '', ''])
    expect(s.files.map((f) => f.content_hash)).toEqual(['after-a', 'after-b', 'after-c'])
    expect(out.text).toContain('diffs omitted for 2 files (the diffs past the first 256 KiB)')
    expect(out.text).toContain(first.diff.trimEnd())
    expect(out.text).not.toContain(small.diff.trimEnd())
    // The summary still lists every file.
    expect(out.text).toMatch(/M c \(\+1 -1\)/)
  })

  it('measures UTF-8 bytes, not string length', () => {
    const wide = diffOf('a', 1000).replace(/y+/, 'é'.repeat(MAX_RESULT_DIFF_BYTES / 2 + 10))
    expect(wide.length).toBeLessThan(MAX_RESULT_DIFF_BYTES)
    const s = writeOutcome(result([file('a', wide)]), new Map()).structured as Structured
    expect(s.diffs_omitted).toBe(1)
  })

  it('omits every diff when none was rendered', () => {
    const out = writeOutcome(result([file('a', ''), file('b', '')]), new Map(), false)
    expect((out.structured as Structured).diffs_omitted).toBe(2)
    expect(out.text).toContain('diffs omitted for 2 files (the patch is over 256 KiB)')
  })
})
