// Bounded fuzz never misplaces a hunk: random files of repeated blocks (so a hunk's lines can fit
// elsewhere), a real change and its diff (jsdiff, 3 lines of context), then context damage as
// models write it: at the hunks' edges a context line changed, dropped, duplicated or two
// swapped; next to the change a context line changed or lines missing (which fuzz may not drop).
// Each patch goes through the unified and the Codex locators: the file as the change made it,
// or a refusal, never another text. A damaged hunk that still matches as written somewhere is
// the matcher's to place, not fuzz's, and is left out. Seeds are fixed; the fast loop runs less.
import { structuredPatch } from 'diff'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyHunks } from '../../src/apply/apply-hunks.js'
import { findLineMatches } from '../../src/match/ladder.js'
import { oldSide } from '../../src/match/location.js'
import { joinLines, splitLines } from '../../src/text/lines.js'
import type { HunkLine, LineHunk, LocateMode } from '../../src/types.js'
import { fuzzRuns } from '../helpers/test-mode.js'

const RUNS = fuzzRuns(4000, 400)

const LINE = fc.constantFrom('fn a {', 'fn b {', '  x = 1', '  y = 2', '  z = 3', '}', '', 'w')
const blockArb = fc.tuple(
  fc.constantFrom('fn a {', 'fn b {', 'fn c {'),
  fc.array(LINE, { minLength: 1, maxLength: 5 }),
)
// Blocks repeat whole, so a hunk's lines fit in several places unless its context tells them apart.
const fileArb = fc
  .array(fc.oneof(blockArb, fc.tuple(LINE, fc.constant([] as string[]))), {
    minLength: 2,
    maxLength: 8,
  })
  .chain((parts) =>
    fc
      .array(fc.nat({ max: parts.length - 1 }), { maxLength: 4 })
      .map((repeats) => [...parts, ...repeats.map((i) => parts[i] as (typeof parts)[0])]),
  )
  .chain((parts) => fc.shuffledSubarray(parts, { minLength: parts.length }))
  .map((parts) =>
    parts.flatMap(([head, body]) => (body.length === 0 ? [head] : [head, ...body, '}'])),
  )

const editArb = fc.record({
  at: fc.nat(),
  remove: fc.nat({ max: 2 }),
  insert: fc.array(LINE, { maxLength: 2 }),
})

type DamageKind =
  'changed' | 'foreign' | 'dropped' | 'duplicated' | 'swapped' | 'inner' | 'inner-dropped'
const damageArb = fc.record({
  kind: fc.constantFrom<DamageKind>(
    'changed',
    'foreign',
    'dropped',
    'duplicated',
    'swapped',
    'inner',
    'inner-dropped',
  ),
  side: fc.constantFrom<'lead' | 'trail'>('lead', 'trail'),
  at: fc.nat({ max: 1 }),
  text: LINE,
})
type Damage = typeof damageArb extends fc.Arbitrary<infer T> ? T : never

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

function hunksOf(before: readonly string[], after: readonly string[]): LineHunk[] {
  const { hunks } = structuredPatch('f', 'f', text(before), text(after), '', '', { context: 3 })
  return hunks.map((h, i) => ({
    patchLine: 10 * (i + 1),
    hints: [],
    endOfFile: false,
    oldStartLine: h.oldStart,
    lines: h.lines
      .filter((l) => !l.startsWith('\\'))
      .map((l) => ({ op: l[0] as HunkLine['op'], text: l.slice(1) })),
  }))
}

function text(lines: readonly string[]): string {
  return lines.length === 0 ? '' : lines.join('\n') + '\n'
}

/** The hunk's lines with one damage planted in its leading or trailing context. */
function damaged(lines: readonly HunkLine[], d: Damage): HunkLine[] {
  // Work on the leading side; the trailing side is the same on the reversed lines.
  const flip = d.side === 'trail'
  const out = flip ? lines.slice().reverse() : lines.slice()
  let context = 0
  while (context < out.length && (out[context] as HunkLine).op === ' ') context++
  // The outer lines fuzz may drop: two at most, and one stays.
  const droppable = Math.min(2, context - 1)
  const line = (t: string): HunkLine => ({ op: ' ', text: t })
  if (d.kind === 'inner') {
    if (context > 0) out[context - 1] = line(`~drifted ${(out[context - 1] as HunkLine).text}`)
  } else if (d.kind === 'inner-dropped') {
    // The file has a line next to the change that the hunk lacks, as when the file drifted.
    if (context > 1)
      out.splice(context - 1 - Math.min(d.at, context - 2), 1 + Math.min(d.at, context - 2))
  } else if (droppable > 0) {
    // The outer `droppable` lines are indexes 0..droppable-1 (0 is the outermost).
    const i = Math.min(d.at, droppable - 1)
    const at = (out[i] as HunkLine).text
    if (d.kind === 'changed') out[i] = line(d.text)
    else if (d.kind === 'foreign') out[i] = line(`${at} // drifted`)
    else if (d.kind === 'dropped') out.splice(i, 1)
    else if (d.kind === 'duplicated') out.splice(i, 0, line(at))
    else if (droppable >= 2) {
      const [first, second] = [out[0] as HunkLine, out[1] as HunkLine]
      out[0] = second
      out[1] = first
    }
  }
  return flip ? out.reverse() : out
}

/**
 * Whether the hunk's old side matches the file anywhere, also as the Codex locator retries it:
 * without its last old and last new line while both are empty (withoutTrailingEmpty).
 */
function matchesSomewhere(file: readonly string[], lines: readonly HunkLine[]): boolean {
  let body = lines
  for (;;) {
    const old = oldSide(body)
    if (old.length === 0) return false
    if (findLineMatches(file, old, 0, file.length) !== null) return true
    let lastOld = -1
    let lastNew = -1
    body.forEach((l, i) => {
      if (l.op !== '+') lastOld = i
      if (l.op !== '-') lastNew = i
    })
    if (lastOld < 0 || lastNew < 0) return false
    if (body[lastOld]?.text !== '' || body[lastNew]?.text !== '') return false
    body = body.filter((_, i) => i !== lastOld && i !== lastNew)
  }
}

type Verdict = 'fuzz' | 'exact' | 'refused' | 'as written'

function run(
  before: readonly string[],
  after: readonly string[],
  hunks: readonly LineHunk[],
  mode: LocateMode,
): Verdict {
  const result = applyHunks({
    lines: splitLines(text(before)),
    hunks: mode === 'cursor' ? hunks.map(({ oldStartLine: _, ...h }) => h) : hunks,
    mode,
    format: mode === 'cursor' ? 'codex' : 'unified',
    path: 'f',
    exactOnly: false,
  })
  if (!result.ok) {
    expect(result.error.code).toMatch(/^MATCH_/)
    return 'refused'
  }
  const shown = hunks.map((h) => h.lines.map((l) => l.op + l.text).join('\n')).join('\n@@\n')
  expect(
    joinLines(result.value.lines),
    `${mode}:\n${shown}\n${JSON.stringify(result.value.warnings)}`,
  ).toBe(text(after))
  return result.value.warnings.some((w) => w.code === 'match.fuzz') ? 'fuzz' : 'exact'
}

describe('bounded fuzz on damaged context', () => {
  it('applies the change where it was made, or refuses it: never elsewhere', () => {
    const counts: Record<Verdict, number> = { fuzz: 0, exact: 0, refused: 0, 'as written': 0 }
    fc.assert(
      fc.property(
        fileArb,
        fc.array(editArb, { minLength: 1, maxLength: 2 }),
        fc.array(fc.option(damageArb, { freq: 2 }), { minLength: 3, maxLength: 3 }),
        (lines, edits, damages) => {
          const after = applyEdits(lines, edits)
          const clean = hunksOf(lines, after)
          if (clean.length === 0) return
          const hunks = clean.map((h, i) => {
            const d = damages[i % damages.length]
            return d === null || d === undefined ? h : { ...h, lines: damaged(h.lines, d) }
          })
          // A damaged hunk that matches as written somewhere is the matcher's to place, not fuzz's.
          const asWritten = hunks.some(
            (h, i) => h.lines !== (clean[i] as LineHunk).lines && matchesSomewhere(lines, h.lines),
          )
          if (asWritten) {
            counts['as written']++
            return
          }
          for (const mode of ['near-line', 'cursor'] as const) {
            counts[run(lines, after, hunks, mode)]++
          }
        },
      ),
      { numRuns: RUNS, seed: 2424 },
    )
    // The generator must keep producing both outcomes, or this test would prove nothing.
    expect(counts.fuzz).toBeGreaterThan(RUNS / 20)
    expect(counts.refused).toBeGreaterThan(RUNS / 20)
  })
})
