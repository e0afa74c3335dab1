// The right place or a refusal (D-078/D-079): random files built from a few repeated lines
// (so contexts repeat, and hints name blocks that occur many times), random edits, the unified
// diff of each edit (jsdiff, 3 lines of context, git's default function context as the section),
// then that diff through replay's Codex and SEARCH/REPLACE conversions and the matcher. Every
// hunk must be placed where the diff has it or refused: none misplaced, and a file with no
// refusal comes out byte for byte as the edit made it. Seeds are fixed; the fast loop runs a tenth.
import { structuredPatch } from 'diff'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyPlan, type Tree } from '../../src/replay/tree.js'
import { ctx, file, plan } from '../helpers/replay-tree.js'
import { fuzzRuns } from '../helpers/test-mode.js'

const RUNS = fuzzRuns(3000)

// Lines that repeat: block openers (hint candidates, as git's default funcname takes any line
// starting with a letter), bodies, closers and blanks.
const LINE = fc.constantFrom('fn a {', 'fn b {', '  x = 1', '  x = 1', '  y = 2', '}', '', 'z')
// Blocks of repeated bodies make contexts that fit twice inside one hinted block.
const blockArb = fc.tuple(fc.constantFrom('fn a {', 'fn b {'), fc.array(LINE, { maxLength: 6 }))
const fileArb = fc
  .array(fc.oneof(blockArb, fc.tuple(LINE, fc.constant([] as string[]))), {
    minLength: 2,
    maxLength: 12,
  })
  .map((parts) =>
    parts.flatMap(([head, body]) => (body.length === 0 ? [head] : [head, ...body, ...body, '}'])),
  )

/** An edit: at a line, remove some lines and insert others. */
const editArb = fc.record({
  at: fc.nat(),
  remove: fc.nat({ max: 3 }),
  insert: fc.array(LINE, { maxLength: 3 }),
})

interface Edit {
  readonly at: number
  readonly remove: number
  readonly insert: readonly string[]
}

function applyEdits(lines: readonly string[], edits: readonly Edit[]): string[] {
  const out = lines.slice()
  for (const e of edits) out.splice(e.at % (out.length + 1), e.remove, ...e.insert)
  return out
}

/** git's default function context for a hunk starting at 0-based `start`: the nearest line above that starts with a letter, _ or $. */
function sectionFor(lines: readonly string[], start: number): string {
  for (let i = start - 1; i >= 0; i--) {
    const line = lines[i] as string
    if (/^[A-Za-z_$]/.test(line)) return ` ${line.slice(0, 80).trimEnd()}`
  }
  return ''
}

function unifiedDiff(before: readonly string[], after: readonly string[]): string | null {
  const oldText = before.join('\n') + '\n'
  const newText = after.join('\n') + '\n'
  const { hunks } = structuredPatch('f.txt', 'f.txt', oldText, newText, '', '', { context: 3 })
  if (hunks.length === 0) return null
  const out = ['diff --git a/f.txt b/f.txt', '--- a/f.txt', '+++ b/f.txt']
  for (const h of hunks) {
    const start = h.oldLines === 0 ? h.oldStart : h.oldStart - 1
    out.push(
      `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@${sectionFor(before, start)}`,
      ...h.lines,
    )
  }
  return out.join('\n') + '\n'
}

describe('context-only placement (replay conversions through the matcher)', () => {
  for (const via of ['codex', 'search-replace'] as const) {
    it(`places every hunk where the diff has it, or refuses it (${via})`, () => {
      fc.assert(
        fc.property(fileArb, fc.array(editArb, { minLength: 1, maxLength: 3 }), (lines, edits) => {
          const after = applyEdits(lines, edits)
          const diff = unifiedDiff(lines, after)
          if (diff === null) return
          const tree: Tree = new Map([['f.txt', file(lines.join('\n') + '\n')]])
          const applied = applyPlan(tree, plan(diff), { ...ctx, via })
          expect(applied.misplaced, diff).toEqual([])
          expect(applied.failures, diff).toEqual([])
          if (applied.fallbacks.length > 0) return
          if (applied.refused.size > 0) {
            expect(applied.refusals.length).toBeGreaterThan(0)
            for (const r of applied.refusals) expect(r.code).toMatch(/^MATCH_/)
            return
          }
          const result = applied.changes.get('f.txt')
          expect(
            result === null || result === undefined
              ? null
              : new TextDecoder().decode(result.bytes ?? new Uint8Array()),
            diff,
          ).toBe(after.join('\n') + '\n')
        }),
        { numRuns: RUNS, seed: via === 'codex' ? 1010 : 2020 },
      )
    })
  }
})
