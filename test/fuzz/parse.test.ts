// The parsers alone under arbitrary input: parsePlan, with 'auto' and each
// explicit format, never throws, always returns a Result, refuses only with PARSE_* codes and a
// message, and any plan it returns is plain data that survives structuredClone (it must cross
// into worker threads). Inputs: any code points (lone surrogates included), graphemes, lines
// mixing the formats' markers, prefixes of valid patches, and JSON shaped like edit lists.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parsePlan } from '../../src/parse/index.js'
import type { Result } from '../../src/result.js'
import type { EditPlan, FormatOption } from '../../src/types.js'
import { fuzzRuns } from '../helpers/test-mode.js'

const FORMAT_OPTIONS: readonly FormatOption[] = [
  'auto',
  'codex',
  'unified',
  'search-replace',
  'edits',
]
const RUNS = fuzzRuns(1000)
const TIMEOUT_MS = 60_000

const MARKERS = [
  '*** Begin Patch',
  '*** End Patch',
  '*** Update File: a.txt',
  '*** Add File: b.txt',
  '*** Delete File: c.txt',
  '*** Move to: d.txt',
  '*** End of File',
  '***',
  '@@',
  '@@ def f():',
  '@@ -1,2 +1,2 @@',
  '@@ -0,0 +1 @@',
  '@@ -1 +0,0 @@',
  '@@ -99999999999999999999,1 +1 @@',
  '--- a/x',
  '+++ b/x',
  '--- /dev/null',
  '+++ /dev/null',
  '--- "a/q\\"x\\303\\251"',
  'diff --git a/x b/x',
  'diff --git "a/x y" "b/x y"',
  'new file mode 100644',
  'deleted file mode 100755',
  'old mode 100644',
  'new mode 120000',
  'rename from x',
  'rename to y',
  'copy from x',
  'copy to z',
  'similarity index 90%',
  'index 0123abc..4567def 100644',
  'Binary files a/x and b/x differ',
  'GIT binary patch',
  'literal 5',
  'delta 3',
  'literal 0',
  'zcmV?d00001',
  'HcmV?d00001',
  '\\ No newline at end of file',
  '<<<<<<< SEARCH',
  '=======',
  '>>>>>>> REPLACE',
  '```',
  '```python',
  '~~~',
  'a.txt',
  '`src/x.ts`:',
  'apply_patch <<EOF',
  'EOF',
  ' context',
  '-removed',
  '+added',
  '',
  '\uFEFF*** Begin Patch',
  '{"edits":[',
  '[{"path":"a","old_string":"',
  '"}]',
]

const lineArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...MARKERS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(' ', '-', '+', '@@ ', '*** ', '\\'), fc.string({ maxLength: 6 }))
      .map(([p, s]) => p + s),
  },
)

const markerTextArb = fc
  .tuple(
    fc.array(lineArb, { maxLength: 24 }),
    fc.constantFrom('\n', '\r\n', '\r', '\n\n'),
    fc.boolean(),
  )
  .map(([lines, nl, trailing]) => lines.join(nl) + (trailing ? nl : ''))

const VALID = [
  '*** Begin Patch\n*** Update File: a.txt\n@@ def f():\n ctx\n-old\n+new\n*** End of File\n*** Add File: b.txt\n+x\n*** Delete File: c.txt\n*** End Patch\n',
  'diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\n--- a/x\n+++ b/y\n@@ -1,2 +1,2 @@\n ctx\n-old\n+new\n\\ No newline at end of file\n',
  'diff --git a/bin b/bin\nnew file mode 100644\nindex 0000000..1111111\nGIT binary patch\nliteral 5\nMcmZQzU|?iG00A8U0RR91\n\nliteral 0\nHcmV?d00001\n\n',
  'Here is the change:\n\nsrc/a.py\n```python\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\n',
  '{"edits":[{"path":"a","old_string":"x","new_string":"y","replace_all":true},{"path":"b","mode":"replace_range","start_line":1,"end_line":2,"new_string":""}]}',
]

/** A valid patch cut anywhere: what a streamed or interrupted reply looks like. */
const prefixArb = fc
  .tuple(fc.constantFrom(...VALID), fc.nat())
  .map(([text, at]) => text.slice(0, at % (text.length + 1)))

const FIELDS = [
  'path',
  'mode',
  'old_string',
  'new_string',
  'oldString',
  'replace_all',
  'expected_matches',
  'anchor',
  'position',
  'start_line',
  'end_line',
  'content',
  'expected_hash',
  '__proto__',
  'constructor',
  'toString',
]

const editLikeArb = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }),
  fc.record({
    path: fc.oneof(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 })),
    mode: fc.constantFrom('replace', 'insert', 'replace_range', 'delete_range', 'write', 'x', 1),
    start_line: fc.oneof(fc.integer(), fc.double(), fc.constant(null)),
    end_line: fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 3 })),
    position: fc.constantFrom('before', 'after', 'middle', null),
  }),
  fc.jsonValue({ maxDepth: 3 }),
)

const editsTextArb = fc.oneof(
  fc.array(editLikeArb, { maxLength: 4 }).map((edits) => JSON.stringify({ edits })),
  fc.array(editLikeArb, { maxLength: 4 }).map((edits) => JSON.stringify(edits)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null'),
  fc.array(editLikeArb, { maxLength: 3 }).map((e) => JSON.stringify({ edits: e }).slice(0, -1)),
)

function judge(text: string): void {
  for (const format of FORMAT_OPTIONS) {
    let result: Result<EditPlan>
    try {
      result = parsePlan(text, format)
    } catch (error) {
      throw new Error(`parsePlan(${format}) threw on ${JSON.stringify(text)}`, { cause: error })
    }
    expect(typeof result.ok).toBe('boolean')
    if (result.ok) {
      if (format !== 'auto') expect(result.value.format).toBe(format)
      expect(Array.isArray(result.value.ops)).toBe(true)
      expect(structuredClone(result.value)).toEqual(result.value)
    } else {
      expect(result.error.code, result.error.message).toMatch(/^PARSE_/)
      expect(result.error.message.length).toBeGreaterThan(0)
      const { patchLine } = result.error
      if (patchLine !== undefined) {
        expect(Number.isInteger(patchLine) && patchLine >= 1, `patchLine ${patchLine}`).toBe(true)
      }
    }
  }
}

describe('parsePlan on arbitrary input', () => {
  const cases: [string, fc.Arbitrary<string>, number][] = [
    ['any code points', fc.string({ unit: 'binary', maxLength: 200 }), 0x9a01],
    ['graphemes', fc.string({ unit: 'grapheme', maxLength: 120 }), 0x9a02],
    ['lines mixing every format marker', markerTextArb, 0x9a03],
    ['prefixes of valid patches', prefixArb, 0x9a04],
    ['JSON shaped like edit lists', editsTextArb, 0x9a05],
  ]
  for (const [name, arb, seed] of cases) {
    it(
      `returns a Result and refuses only with PARSE_* codes for ${name}`,
      () => {
        fc.assert(fc.property(arb, judge), { seed, numRuns: RUNS })
      },
      TIMEOUT_MS,
    )
  }

  it('parses every valid seed patch', () => {
    for (const text of VALID) {
      const result = parsePlan(text)
      expect(result.ok, result.ok ? '' : result.error.message).toBe(true)
    }
  })
})
