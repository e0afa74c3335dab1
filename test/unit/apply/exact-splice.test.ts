// The byte splice for exactly placed unified hunks must be invisible: on random files and
// random hunks (exact, shifted, mismatched, at the end of the file, with CRLF, without a final
// newline, with non-ASCII text), computeFile gives the same bytes, counts and error whether the
// splice may run or not, and the same bytes and counts as with a rendered diff.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { spliceExact } from '../../../src/apply/exact-splice.js'
import { computeFile } from '../../../src/apply/compute.js'
import type { ComputeInput, HunkLine, LineHunk, UpdateOp } from '../../../src/types.js'
import { fuzzRuns } from '../../helpers/test-mode.js'

const encoder = new TextEncoder()

const WORDS = ['a', 'b', 'c', 'x = 1', '  indented', 'é', '', 'end']

const fileArb = fc.record({
  lines: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 60 }),
  eol: fc.constantFrom('\n', '\n', '\n', '\n', '\n', '\n', '\n', '\r\n'),
  finalNewline: fc.boolean(),
})

interface HunkSpec {
  readonly at: number
  readonly context: number
  readonly removed: number
  readonly added: readonly string[]
  readonly shift: number
  readonly corrupt: boolean
}

const hunkArb: fc.Arbitrary<HunkSpec> = fc.record({
  at: fc.nat(1000),
  context: fc.nat(3),
  removed: fc.nat(3),
  added: fc.array(fc.constantFrom(...WORDS, 'new line', 'ü'), { maxLength: 3 }),
  shift: fc.constantFrom(0, 0, 0, 0, 0, 0, 0, 0, 1, -1),
  corrupt: fc.constantFrom(false, false, false, false, false, false, false, false, false, true),
})

/** A git-style hunk over `lines`: context, removed lines, added lines, context. */
function hunkOf(lines: readonly string[], spec: HunkSpec, index: number): LineHunk | null {
  // Mostly clear of the last line (the general path's own territory), sometimes on it.
  const start = spec.at % 10 === 0 ? lines.length - 1 : spec.at % Math.max(1, lines.length - 4)
  const lead = lines.slice(Math.max(0, start - spec.context), start)
  const removed = lines.slice(start, start + spec.removed)
  const tail = lines.slice(start + removed.length, start + removed.length + spec.context)
  const body: HunkLine[] = [
    ...lead.map((text) => ({ op: ' ' as const, text })),
    ...removed.map((text) => ({ op: '-' as const, text })),
    ...spec.added.map((text) => ({ op: '+' as const, text })),
    ...tail.map((text) => ({ op: ' ' as const, text })),
  ]
  if (body.every((l) => l.op === ' ')) return null
  if (spec.corrupt && body.length > 0) {
    const i = body.findIndex((l) => l.op !== '+')
    if (i >= 0) body[i] = { ...(body[i] as HunkLine), text: 'not in the file' }
  }
  return {
    patchLine: 10 + index * 10,
    hints: [],
    oldStartLine: Math.max(0, start - lead.length + 1 + spec.shift),
    endOfFile: false,
    lines: body,
  }
}

function job(source: Uint8Array, hunks: LineHunk[], extra: Partial<ComputeInput>): ComputeInput {
  const op: UpdateOp = { kind: 'update', path: 'f.txt', patchLine: 1, hunks, locate: 'near-line' }
  return { format: 'unified', op, source, ...extra }
}

describe('spliceExact', () => {
  it('matches the general path on random files and hunks', () => {
    let spliced = 0
    fc.assert(
      fc.property(fileArb, fc.array(hunkArb, { minLength: 1, maxLength: 3 }), (file, specs) => {
        const text = file.lines.join(file.eol) + (file.finalNewline ? file.eol : '')
        const source = encoder.encode(text)
        // Hunks in file order, not overlapping: sort by position, drop overlaps.
        const hunks: LineHunk[] = []
        let next = 0
        const startOf = (spec: HunkSpec) =>
          spec.at % 10 === 0 ? file.lines.length : spec.at % Math.max(1, file.lines.length - 4)
        for (const spec of [...specs].sort((a, b) => startOf(a) - startOf(b))) {
          const hunk = hunkOf(file.lines, spec, hunks.length)
          if (hunk === null) continue
          const start = (hunk.oldStartLine as number) - 1 - spec.shift
          if (start < next) continue
          hunks.push(hunk)
          next = start + hunk.lines.filter((l) => l.op !== '+').length
        }
        if (hunks.length === 0) return
        const splice = spliceExact(source, hunks)
        if (splice !== null) spliced++
        // Asked for the bytes only, the splice makes the same bytes and counts nothing.
        const bytesOnly = spliceExact(source, hunks, false, false)
        expect(bytesOnly?.bytes).toEqual(splice?.bytes)
        if (bytesOnly !== null) expect([bytesOnly.additions, bytesOnly.deletions]).toEqual([0, 0])
        const plain = !text.includes('\r') ? { sourceHasNoCrOrNul: true as const } : {}
        const fast = computeFile(job(source, hunks, { countOnly: true, sourceIsUtf8: true }))
        const told = computeFile(
          job(source, hunks, { countOnly: true, sourceIsUtf8: true, ...plain }),
        )
        expect(told).toEqual(fast)
        const general = computeFile(job(source, hunks, { countOnly: true }))
        const rendered = computeFile(job(source, hunks, {}))
        expect(fast).toEqual(general)
        if (general.ok && rendered.ok) {
          expect(general.value.after).toEqual(rendered.value.after)
          expect(general.value.additions).toBe(rendered.value.additions)
          expect(general.value.deletions).toBe(rendered.value.deletions)
        } else expect(general.ok).toBe(rendered.ok)
      }),
      { numRuns: fuzzRuns(2000), seed: 9 },
    )
    // The property must have exercised the splice itself, not only its refusals.
    expect(spliced).toBeGreaterThan(fuzzRuns(2000) / 10)
  })

  it('counts a hunk of many runs run by run, as the general path and the rendered diff do', () => {
    // A lockfile-like rewrite: one hunk, runs of changes between single context lines. Counting
    // run by run keeps it linear (a real 20,000-line hunk took 31 s as one Myers diff).
    const lines = Array.from({ length: 401 }, (_, i) => `  "dep${i}": "1.${i % 7}.0",`)
    const source = encoder.encode(lines.join('\n') + '\n')
    const body: HunkLine[] = []
    lines.slice(0, 400).forEach((text, i) => {
      if (i % 4 === 3) body.push({ op: ' ', text })
      else body.push({ op: '-', text }, { op: '+', text: i % 8 === 0 ? text : `${text} // new` })
    })
    const hunks: LineHunk[] = [
      { patchLine: 1, hints: [], oldStartLine: 1, endOfFile: false, lines: body },
    ]
    const fast = computeFile(
      job(source, hunks, { countOnly: true, sourceIsUtf8: true, sourceHasNoCrOrNul: true }),
    )
    expect(spliceExact(source, hunks, true)).not.toBeNull()
    const general = computeFile(job(source, hunks, { countOnly: true }))
    const rendered = computeFile(job(source, hunks, {}))
    expect(fast).toEqual(general)
    if (!fast.ok || !rendered.ok) throw new Error('not applied')
    expect([fast.value.additions, fast.value.deletions]).toEqual([
      rendered.value.additions,
      rendered.value.deletions,
    ])
    // 300 lines replaced, 50 of them by themselves: those count on neither side.
    expect(fast.value.additions).toBe(250)
  })

  it('refuses what it cannot place exactly, leaving it to the general path', () => {
    const source = encoder.encode('a\nb\nc\nd\n')
    const hunk = (oldStartLine: number, lines: HunkLine[]): LineHunk => ({
      patchLine: 1,
      hints: [],
      oldStartLine,
      endOfFile: false,
      lines,
    })
    const change: HunkLine[] = [
      { op: ' ', text: 'a' },
      { op: '-', text: 'b' },
      { op: '+', text: 'B' },
      { op: ' ', text: 'c' },
    ]
    expect(spliceExact(source, [hunk(1, change)])?.bytes).toEqual(encoder.encode('a\nB\nc\nd\n'))
    // No trailing context: the hunk must end the file, which only the general path checks.
    expect(spliceExact(source, [hunk(1, change.slice(0, 3))])).toBeNull()
    expect(spliceExact(source, [hunk(2, change)])).toBeNull() // not where it says
    expect(
      spliceExact(source, [
        hunk(3, [
          { op: '-', text: 'c' },
          { op: '-', text: 'd' },
        ]),
      ]),
    ).toBeNull()
    expect(spliceExact(encoder.encode('a\r\nb\r\nc\r\nd\r\n'), [hunk(1, change)])).toBeNull()
    expect(spliceExact(source, [hunk(1, [{ op: '+', text: 'new' }])])).toBeNull()
  })
})
