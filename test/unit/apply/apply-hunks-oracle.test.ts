// Property test: SEARCH/REPLACE ('sequential' applyHunks on one LineTable) against
// the version that re-indexed and re-spliced the whole file per block
// (test/helpers/apply-hunks-oracle.ts). Blocks are cut from the file's lines, often distorted so
// that lenient passes, re-indentation and misses all occur, and parsed by the real parser; the
// lines, warnings and errors must agree exactly.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyHunks } from '../../../src/apply/apply-hunks.js'
import { parseSearchReplace } from '../../../src/parse/search-replace.js'
import { splitLines } from '../../../src/text/lines.js'
import type { LineHunk, PatchFormat } from '../../../src/types.js'
import { applyHunksOracle } from '../../helpers/apply-hunks-oracle.js'
import { distort, distortion, fileText, newText } from '../../helpers/string-edit-arbitraries.js'
import { fuzzRuns } from '../../helpers/test-mode.js'

/** Thousands of random requests: more than vitest's default on a loaded 2-core machine. */
const PROPERTY_TIMEOUT_MS = 60_000

const block = fc.record({
  at: fc.nat(),
  count: fc.nat({ max: 4 }),
  how: distortion,
  replace: newText,
})

/** SEARCH/REPLACE blocks for f.txt: each SEARCH is whole lines of the file as it was read. */
type Block = typeof block extends fc.Arbitrary<infer B> ? B : never

function hunksFor(text: string, blocks: readonly Block[]): LineHunk[] | null {
  const lines = splitLines(text).map((l) => l.text)
  const out: string[] = []
  for (const b of blocks) {
    const start = lines.length === 0 ? 0 : b.at % lines.length
    const search = distort(lines.slice(start, start + b.count).join('\n'), b.how)
    out.push('f.txt', '<<<<<<< SEARCH', ...(search === '' ? [] : search.split(/\r?\n/)))
    out.push('=======', ...(b.replace === '' ? [] : b.replace.split(/\r?\n/)), '>>>>>>> REPLACE')
  }
  const plan = parseSearchReplace(out.join('\n') + '\n')
  if (!plan.ok) return null
  const op = plan.value.ops[0]
  return op !== undefined && op.kind === 'update' ? [...op.hunks] : null
}

describe("applyHunks 'sequential' against the per-hunk oracle", () => {
  it(
    'gives the same lines, warnings and errors for random SEARCH/REPLACE blocks',
    () => {
      fc.assert(
        fc.property(
          fileText,
          fc.array(block, { minLength: 1, maxLength: 8 }),
          fc.constantFrom<PatchFormat>('search-replace', 'search-replace', 'edits', 'codex'),
          fc.boolean(),
          fc.boolean(),
          (text, blocks, format, exact, keep) => {
            const hunks = hunksFor(text, blocks)
            fc.pre(hunks !== null)
            const input = {
              lines: splitLines(text),
              hunks: hunks ?? [],
              mode: 'sequential' as const,
              format,
              path: 'f.txt',
              exactOnly: exact && blocks.length % 2 === 0,
              ...(keep ? { keepFinalNewline: true } : {}),
            }
            const want = applyHunksOracle(input)
            const got = applyHunks(input)
            if (!want.ok || !got.ok) {
              expect(got).toEqual(want)
              return
            }
            expect(got.value.lines).toEqual(want.value.lines)
            expect(got.value.warnings).toEqual(want.value.warnings)
            // Regions, when given, cover every changed line (lines between them are the old ones).
            const before = input.lines
            const after = got.value.lines
            let o = 0
            let n = 0
            for (const r of got.value.regions ?? []) {
              expect(after.slice(n, r.newStart)).toEqual(before.slice(o, r.oldStart))
              o = r.oldEnd
              n = r.newEnd
            }
            if (got.value.regions !== undefined) expect(after.slice(n)).toEqual(before.slice(o))
          },
        ),
        { numRuns: fuzzRuns(3000, 300) },
      )
    },
    PROPERTY_TIMEOUT_MS,
  )
})
