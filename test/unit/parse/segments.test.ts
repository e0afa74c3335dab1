// Splitting a git diff into runs the workers parse on their own must never change a result:
// for every unified scenario patch, and for all of them joined into one many-file patch, the runs'
// ops, renumbered, equal the whole patch's ops; where a run does not parse, neither does the whole
// patch (the engine then parses the whole for the exact error).
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { splitUnifiedSections, shiftPatchLines } from '../../../src/parse/segments.js'
import { parseUnifiedDiff } from '../../../src/parse/unified.js'
import type { FileOp } from '../../../src/types.js'
import { loadScenarios } from '../../helpers/scenarios.js'

const utf8 = new TextDecoder('utf-8', { fatal: true })

function unifiedPatches(): Array<[string, string]> {
  const out: Array<[string, string]> = []
  for (const s of loadScenarios()) {
    if (s.patchFormat !== 'unified') continue
    try {
      out.push([s.name, utf8.decode(readFileSync(s.patchFile))])
    } catch {
      // Latin-1 fixtures: the engine never splits a patch with raw bytes.
    }
  }
  return out
}

/** The runs' ops renumbered, or null when some run does not parse to its sections. */
function runOps(text: string, maxSegments: number): FileOp[] | null | 'not split' {
  const segments = splitUnifiedSections(text, () => maxSegments)
  if (segments === null) return 'not split'
  expect(segments.map((s) => s.text).join('')).toBe(text)
  const ops: FileOp[] = []
  for (const s of segments) {
    const parsed = parseUnifiedDiff(s.text)
    if (!parsed.ok || parsed.value.ops.length !== s.sections) return null
    ops.push(...shiftPatchLines(parsed.value.ops, s.firstLine))
  }
  return ops
}

function expectSameAsWhole(text: string, maxSegments: number): void {
  const whole = parseUnifiedDiff(text)
  const runs = runOps(text, maxSegments)
  if (runs === 'not split') return
  if (runs === null) expect(whole.ok).toBe(false)
  else {
    expect(whole.ok).toBe(true)
    if (whole.ok) expect(runs).toEqual(whole.value.ops)
  }
}

/** Parses, and every op has its own "diff --git" line (no traditional ---/+++ sections). */
function gitSectionsOnly(text: string): boolean {
  const parsed = parseUnifiedDiff(text)
  const sections = text.split('\n').filter((line) => line.startsWith('diff --git ')).length
  return parsed.ok && parsed.value.ops.length === sections
}

describe('splitUnifiedSections', () => {
  const patches = unifiedPatches()

  it('has unified scenario patches to check', () => {
    expect(patches.length).toBeGreaterThan(40)
  })

  it.each(patches)('%s parses the same split as whole', (_name, text) => {
    for (const max of [2, 3, 8]) expectSameAsWhole(text, max)
  })

  it('parses the same split as whole for every scenario patch joined into one', () => {
    // Each scenario's text on its own lines, in one patch: dozens of sections of every kind
    // (renames, modes, binary, deletions, prose between them), numbered across the whole. A
    // traditional ---/+++ section inside a run makes it parse to more ops than its sections,
    // which sends the engine back to the whole patch: those are left out here.
    const joined = patches
      .map(([, text]) => (text.endsWith('\n') ? text : text + '\n'))
      .filter((text) => !text.includes('\r') && gitSectionsOnly(text))
      .join('')
    const whole = parseUnifiedDiff(joined)
    expect(whole.ok && whole.value.ops.length).toBeGreaterThan(40)
    expect(splitUnifiedSections(joined, () => 16)?.length).toBeGreaterThan(8)
    for (const max of [2, 5, 16, 64]) {
      const runs = runOps(joined, max)
      expect(runs).toEqual(whole.ok ? whole.value.ops : 'whole fails')
    }
  })

  it('numbers a later run from the whole patch', () => {
    const section = (name: string) =>
      `diff --git a/${name} b/${name}\n--- a/${name}\n+++ b/${name}\n@@ -1 +1 @@\n-a\n+b\n`
    const text = 'A commit message\n\n' + section('x') + section('y') + section('z')
    const segments = splitUnifiedSections(text, () => 3)
    expect(segments?.map((s) => [s.firstLine, s.sections])).toEqual([
      [1, 1],
      [9, 1],
      [15, 1],
    ])
    const ops = runOps(text, 3) as FileOp[]
    expect(ops.map((op) => op.patchLine)).toEqual([3, 9, 15])
  })

  it('does not split a patch with a CR, or with fewer than two sections', () => {
    const one = 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n'
    expect(splitUnifiedSections(one, () => 4)).toBeNull()
    expect(splitUnifiedSections(one + one.replace('-a\n', '-a\r\n'), () => 4)).toBeNull()
    expect(splitUnifiedSections(one + one, () => 1)).toBeNull()
    expect(splitUnifiedSections(one + one, () => 2)?.length).toBe(2)
  })
})
