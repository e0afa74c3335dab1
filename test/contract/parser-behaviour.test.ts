// The parser behaviour contract: every case in parser-behaviour/, in every format that states it,
// goes through one path, the public engine (format detected from the text, parsed, verified
// inline, committed to a temp workspace holding the case's starting files), and must leave
// exactly the case's files with the case's warning codes, or be refused with the case's error
// code and leave the workspace as it was. Each rendition's plan also meets the shape contract
// (parser.contract.ts). Formats that cannot state a case show as skipped tests with the reason.
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, isEditError, parsePatch, type Engine } from '../../src/index.js'
import { parsePlan } from '../../src/parse/index.js'
import type { PatchFormat } from '../../src/types.js'
import { readFileMap, writeFileMap, type FileMap } from '../helpers/file-map.js'
import { emptyDir, makeTempDir } from '../helpers/tree.js'
import { FORMATS, type BehaviourCase, type Expectation } from './parser-behaviour/case.js'
import { FILE_CHANGES } from './parser-behaviour/file-changes.js'
import { LINE_CHANGES } from './parser-behaviour/line-changes.js'
import { LINE_ENDINGS } from './parser-behaviour/line-endings.js'
import { MATCHING } from './parser-behaviour/matching.js'
import { REFUSALS } from './parser-behaviour/refusals.js'
import { expectWellFormedPlan } from './parser.contract.js'

const CASES: readonly BehaviourCase[] = [
  ...LINE_CHANGES,
  ...FILE_CHANGES,
  ...LINE_ENDINGS,
  ...MATCHING,
  ...REFUSALS,
]

let base = ''
let root = ''
let engine: Engine

beforeAll(async () => {
  base = await makeTempDir('patchloom-parser-behaviour-')
  root = join(base, 'root')
  await mkdir(root)
  engine = createEngine({ root, workers: false, durability: 'fast', journal: { keep: 0 } })
})

afterAll(async () => {
  await engine.close()
  await rm(base, { recursive: true, force: true })
})

function expectationFor(c: BehaviourCase, format: PatchFormat): Expectation {
  return c.differs?.[format]?.expect ?? c.expect
}

/** Applies `patch` to a workspace holding `before` and checks the outcome against `want`. */
async function applyRendition(
  before: FileMap,
  patch: string,
  format: PatchFormat,
  want: Expectation,
): Promise<void> {
  await emptyDir(root)
  await writeFileMap(root, before)
  const outcome = await engine.apply(patch).then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error }),
  )
  if ('files' in want) {
    if (!outcome.ok) {
      const { error } = outcome
      if (!isEditError(error)) throw error
      expect.fail(`refused with ${error.code}: ${error.message}`)
    }
    expect(outcome.result.format).toBe(format)
    expect(await readFileMap(root)).toEqual(want.files)
    const warned = [...new Set(outcome.result.warnings.map((warning) => warning.code))]
    expect(warned.sort(), 'warning codes').toEqual([...(want.warnings ?? [])].sort())
  } else {
    if (outcome.ok) expect.fail(`expected ${want.refused}, but the patch applied`)
    const { error } = outcome
    if (!isEditError(error)) throw error
    expect(error.code, error.message).toBe(want.refused)
    expect(await readFileMap(root), 'a refused patch changed the workspace').toEqual(before)
  }
}

describe('parser behaviour contract: the table', () => {
  it('has uniquely named cases', () => {
    const names = CASES.map((c) => c.name)
    expect(new Set(names).size).toBe(names.length)
  })

  it.each(CASES.map((c) => [c.name, c] as const))(
    '%s: every format states it or gives a reason; two or more state it',
    (_name, c) => {
      for (const format of FORMATS) {
        const stated = c.renditions[format] !== undefined
        const reason = c.cannot?.[format]
        expect(stated !== (reason !== undefined), `${format}: a rendition xor a reason`).toBe(true)
        if (reason !== undefined) expect(reason.length).toBeGreaterThan(0)
        const differs = c.differs?.[format]
        if (differs !== undefined) {
          expect(stated, `${format} differs but has no rendition`).toBe(true)
          expect(differs.why.length).toBeGreaterThan(0)
        }
      }
      expect(Object.keys(c.renditions).length).toBeGreaterThanOrEqual(2)
    },
  )
})

for (const c of CASES) {
  describe(`parser behaviour contract: ${c.name}`, () => {
    for (const format of FORMATS) {
      const patch = c.renditions[format]
      if (patch === undefined) {
        it.skip(`${format} cannot state it: ${c.cannot?.[format] ?? '(no reason given)'}`, () => {})
        continue
      }
      const differs = c.differs?.[format]
      const title = differs === undefined ? format : `${format} (differs by design: ${differs.why})`
      it(title, async () => {
        // The public parser detects the rendition's format, and the format's own parser gives
        // a well-formed plan (the shape contract); then the engine applies the text as given.
        expect(parsePatch(patch).format, 'detected format').toBe(format)
        expect(expectWellFormedPlan((text) => parsePlan(text, format), patch).format).toBe(format)
        const want = expectationFor(c, format)
        await applyRendition(c.before, patch, format, want)
      })
    }
  })
}
