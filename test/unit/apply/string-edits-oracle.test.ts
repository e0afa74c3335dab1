// Property test: the line-table string edits (src/apply/string-edits.ts) against the
// per-edit algorithm they replaced (test/helpers/string-edits-oracle.ts), on random files and
// random edit sequences (test/helpers/string-edit-arbitraries.ts): results must agree exactly,
// failures included (code, message, path, patch line, candidates), and so must warnings.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyHunks } from '../../../src/apply/apply-hunks.js'
import { computeFile } from '../../../src/apply/compute.js'
import { renderDiff } from '../../../src/apply/render-diff.js'
import { applyStringEdits, applyStringEditsWithLines } from '../../../src/apply/string-edits.js'
import { parseUnifiedDiff } from '../../../src/parse/unified.js'
import { joinLines, splitLines } from '../../../src/text/lines.js'
import type { StringEdit } from '../../../src/types.js'
import {
  editSpec,
  fileText,
  realise,
  type EditSpec,
} from '../../helpers/string-edit-arbitraries.js'
import {
  applyStringEditsOracle,
  eolsIn,
  lineAt,
  occurrences,
  toDoc,
  toTextOffset,
} from '../../helpers/string-edits-oracle.js'
import { fuzzRuns } from '../../helpers/test-mode.js'

/** Thousands of random requests: more than vitest's default on a loaded 2-core machine. */
const PROPERTY_TIMEOUT_MS = 60_000

/**
 * Edits drawn one by one against the text as the edits before them left it (by the oracle),
 * keeping those that apply, and the last one that did not at the end: a long request that
 * gets far, where random edits against the original text mostly fail within a few edits.
 */
function succeeding(text: string, specs: readonly EditSpec[]): StringEdit[] {
  const kept: StringEdit[] = []
  let current = text
  let dropped: StringEdit | undefined
  for (const spec of specs) {
    const [drawn] = realise(current, [spec]) as [StringEdit]
    const edit = { ...drawn, index: kept.length }
    const step = applyStringEditsOracle({
      text: current,
      exists: true,
      edits: [edit],
      path: 'f',
      exactOnly: false,
    })
    if (!step.ok) {
      dropped = edit
      continue
    }
    kept.push(edit)
    current = step.value.text
  }
  return dropped === undefined ? kept : [...kept, { ...dropped, index: kept.length }]
}

describe('applyStringEdits against the per-edit oracle', () => {
  it(
    'gives the same text, warnings and errors on random files and edit sequences',
    () => {
      fc.assert(
        fc.property(
          fileText,
          fc.array(editSpec, { minLength: 1, maxLength: 8 }),
          fc.boolean(),
          fc.boolean(),
          (text, specs, missing, exactOnly) => {
            const input = {
              text,
              exists: !missing || specs.length % 3 !== 0,
              edits: succeeding(text, specs),
              path: 'src/f.txt',
              exactOnly: exactOnly && specs.length % 2 === 0,
            }
            expect(applyStringEdits(input)).toEqual(applyStringEditsOracle(input))
          },
        ),
        { numRuns: fuzzRuns(3000, 300) },
      )
    },
    PROPERTY_TIMEOUT_MS,
  )

  it(
    'agrees on long edit sequences, where the table answers lookups from its positions map',
    () => {
      // More than SCANS_BEFORE_MAP (16) lookups per pass: later edits use the map, not a scan.
      const longFile = fc.array(fileText, { minLength: 2, maxLength: 4 }).map((t) => t.join('\n'))
      fc.assert(
        fc.property(
          longFile,
          fc.array(editSpec, { minLength: 20, maxLength: 40 }),
          (text, specs) => {
            const input = {
              text,
              exists: true,
              edits: realise(text, specs),
              path: 'f',
              exactOnly: false,
            }
            expect(applyStringEdits(input)).toEqual(applyStringEditsOracle(input))
          },
        ),
        { numRuns: fuzzRuns(400, 40) },
      )
    },
    PROPERTY_TIMEOUT_MS,
  )

  it(
    'reports lines and regions that rebuild the new text from the old one',
    () => {
      fc.assert(
        fc.property(fileText, fc.array(editSpec, { minLength: 1, maxLength: 6 }), (text, specs) => {
          const input = {
            text,
            exists: true,
            edits: realise(text, specs),
            path: 'f',
            exactOnly: false,
          }
          const result = applyStringEditsWithLines(input)
          if (!result.ok) return
          const { before, after, regions } = result.value.lines
          expect(joinLines(before)).toBe(text)
          expect(joinLines(after)).toBe(result.value.text)
          if (regions === undefined) return
          // Outside the regions every line is the old one; inside, the new lines are the new text.
          let o = 0
          let n = 0
          for (const r of regions) {
            expect(r.oldStart - o).toBe(r.newStart - n)
            expect(after.slice(n, r.newStart)).toEqual(before.slice(o, r.oldStart))
            o = r.oldEnd
            n = r.newEnd
          }
          expect(after.slice(n)).toEqual(before.slice(o))
        }),
        { numRuns: fuzzRuns(1500, 150) },
      )
    },
    PROPERTY_TIMEOUT_MS,
  )

  it(
    'renders the whole-file diff for one changed region, and a diff that replays otherwise',
    () => {
      const utf8 = (text: string) => new TextEncoder().encode(text)
      fc.assert(
        fc.property(fileText, fc.array(editSpec, { minLength: 1, maxLength: 8 }), (text, specs) => {
          const edits = succeeding(text, specs)
          const op = { kind: 'edits' as const, path: 'f', patchLine: 1, edits }
          const got = computeFile({ format: 'edits', op, source: utf8(text) })
          const want = applyStringEditsOracle({
            text,
            exists: true,
            edits,
            path: 'f',
            exactOnly: false,
          })
          expect(got.ok).toBe(want.ok)
          if (!got.ok || !want.ok) return
          expect(got.value.after).toEqual(utf8(want.value.text))
          const before = splitLines(text)
          const after = splitLines(want.value.text)
          const whole = renderDiff({ oldPath: 'f', newPath: 'f' }, before, after)
          const regions = applyStringEditsWithLines({
            text,
            exists: true,
            edits,
            path: 'f',
            exactOnly: false,
          })
          const several = regions.ok && (regions.value.lines.regions?.length ?? 0) > 1
          if (!several) {
            expect(got.value.diff).toBe(whole.diff)
            return
          }
          // Several regions: hunks may align differently from one whole-file diff; they must
          // still replay onto the old text and give the new one.
          const plan = parseUnifiedDiff(got.value.diff)
          if (!plan.ok) throw new Error(plan.error.message)
          const update = plan.value.ops[0]
          if (update?.kind !== 'update') throw new Error('expected one update')
          const replayed = applyHunks({
            lines: before,
            hunks: update.hunks,
            mode: 'near-line',
            format: 'unified',
            path: 'f',
            exactOnly: false,
          })
          if (!replayed.ok) throw new Error(replayed.error.message)
          expect(joinLines(replayed.value.lines)).toBe(want.value.text)
        }),
        { numRuns: fuzzRuns(1500, 150) },
      )
    },
    PROPERTY_TIMEOUT_MS,
  )
})

// The oracle's LF view of a file, which its substring search maps back to the text.
describe('toDoc', () => {
  it('writes every terminator as LF in the view and keeps a missing final newline missing', () => {
    const doc = toDoc('a\r\nb\nc\r\nd')
    expect(doc.view).toBe('a\nb\nc\nd')
    expect(doc.viewStarts).toEqual([0, 2, 4, 6, 7])
    expect(doc.textStarts).toEqual([0, 3, 5, 8, 9])
    expect(doc.texts).toEqual(['a', 'b', 'c', 'd'])
  })

  it('keeps a lone CR as content in the view and the texts', () => {
    const doc = toDoc('a\rb\nc\r\r\nd\r')
    expect(doc.view).toBe('a\rb\nc\r\nd\r')
    expect(doc.texts).toEqual(['a\rb', 'c\r', 'd\r'])
    expect(doc.textStarts).toEqual([0, 4, 8, 10])
    expect(doc.dominant).toBe('\n')
  })
})

describe('lineAt and toTextOffset', () => {
  it('map view offsets back to 0-based lines and text offsets before each terminator', () => {
    const doc = toDoc('ab\r\ncd\r\n')
    expect(lineAt(doc, 0)).toBe(0)
    expect(lineAt(doc, 2)).toBe(0)
    expect(lineAt(doc, 3)).toBe(1)
    expect(lineAt(doc, doc.view.length)).toBe(2)
    expect(toTextOffset(doc, 2)).toBe(2)
    expect(toTextOffset(doc, 3)).toBe(4)
    expect(toTextOffset(doc, doc.view.length)).toBe(doc.text.length)
  })
})

describe('eolsIn', () => {
  it('lists the file terminators of the LFs inside a view range, in order', () => {
    const doc = toDoc('a\r\nb\rc\nd')
    expect(eolsIn(doc, 0, doc.view.length)).toEqual(['\r\n', '\n'])
    expect(eolsIn(doc, 2, 6)).toEqual(['\n'])
  })
})

describe('occurrences', () => {
  it('returns non-overlapping start offsets', () => {
    expect(occurrences('aaaa', 'aa')).toEqual([0, 2])
    expect(occurrences('abc', 'x')).toEqual([])
  })
})
