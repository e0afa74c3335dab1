// Round-trip properties: for random texts A and B, the change A -> B written as a
// unified diff by jsdiff, as a Codex patch and as SEARCH/REPLACE blocks (both built from jsdiff's
// hunks) turns a workspace file holding A into B. Lines come from a small alphabet so context
// repeats: Codex and SEARCH/REPLACE may then refuse with MATCH_AMBIGUOUS, but must never write
// anything other than the expected text. Codex and SEARCH/REPLACE cannot state a missing final
// newline, so their expected text follows the spec's final-newline rules (see expectedCodex and
// expectedSearchReplace). Seeded, so a failure reproduces.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createTwoFilesPatch, formatPatch, structuredPatch, type StructuredPatchHunk } from 'diff'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngineWithInternals, type InternalEngine } from '../src/engine/engine.js'
import { isEditError, type ErrorCode } from '../src/errors.js'
import { makeTempDir } from './helpers/tree.js'
import { fuzzRuns } from './helpers/test-mode.js'

const NUM_RUNS = fuzzRuns(100)
const SEED = 20261130
/** Generous: a timed-out property keeps running and would disturb the next one's workspace. */
const TIMEOUT_MS = 60_000

// Repetition on purpose: '' and 'a' recur, '  d' and 'x ' differ from others only in whitespace.
const LINE = fc.constantFrom('a', 'b', 'c', '', '  d', 'foo()', '}', 'é', 'x ')
const TEXT = fc
  .record({ lines: fc.array(LINE, { maxLength: 12 }), finalNewline: fc.boolean() })
  .map(({ lines, finalNewline }) =>
    lines.length === 0 ? '' : lines.join('\n') + (finalNewline ? '\n' : ''),
  )
const CHANGE = fc.tuple(TEXT, TEXT).filter(([a, b]) => a !== b)

let base = ''
let root = ''
let engine: InternalEngine

beforeAll(async () => {
  base = await makeTempDir('patchloom-roundtrip-')
  root = join(base, 'root')
  await mkdir(root)
  engine = createEngineWithInternals({ root, workers: false })
})

afterAll(async () => {
  await engine.close()
  await rm(base, { recursive: true, force: true })
})

function lineCount(text: string): number {
  if (text === '') return 0
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
}

function hunksOf(a: string, b: string): StructuredPatchHunk[] {
  return structuredPatch('f', 'f', a, b, '', '', { context: 3 }).hunks
}

/** A hunk's body without the `\ No newline at end of file` markers, which only diffs can state. */
function bodyLines(hunk: StructuredPatchHunk): string[] {
  return hunk.lines.filter((line) => !line.startsWith('\\'))
}

function codexPatch(a: string, b: string): string {
  const chunks = hunksOf(a, b).flatMap((hunk) => ['@@', ...bodyLines(hunk)])
  return ['*** Begin Patch', '*** Update File: f', ...chunks, '*** End Patch', ''].join('\n')
}

function searchReplaceBlocks(a: string, b: string): { text: string; blankOnlySearch: boolean } {
  let blankOnlySearch = false
  const blocks = hunksOf(a, b).map((hunk) => {
    const body = bodyLines(hunk)
    const search = body.filter((line) => !line.startsWith('+')).map((line) => line.slice(1))
    const replace = body.filter((line) => !line.startsWith('-')).map((line) => line.slice(1))
    if (search.length > 0 && search.every((line) => line.trim() === '')) blankOnlySearch = true
    return ['f', '<<<<<<< SEARCH', ...search, '=======', ...replace, '>>>>>>> REPLACE', ''].join(
      '\n',
    )
  })
  return { text: blocks.join('\n'), blankOnlySearch }
}

/**
 * Codex: a missing final newline stays missing unless the change touches the last line; then
 * the result ends with a newline. A hunk touches it when its old range
 * reaches A's last line, or when A is empty.
 */
function expectedCodex(a: string, b: string): string {
  if (b === '' || b.endsWith('\n')) return b
  const lastLine = lineCount(a)
  const touched =
    lastLine === 0 || hunksOf(a, b).some((h) => h.oldStart + h.oldLines - 1 >= lastLine)
  return touched ? `${b}\n` : b
}

/** SEARCH/REPLACE keeps the file's own final-newline state (an empty file counts as having one). */
function expectedSearchReplace(a: string, b: string): string {
  if (b === '') return ''
  const body = b.endsWith('\n') ? b.slice(0, -1) : b
  return a === '' || a.endsWith('\n') ? `${body}\n` : body
}

type Applied =
  { ok: true; text: string } | { ok: false; code: ErrorCode | 'not-an-EditError'; text: string }

async function applyTo(a: string, patch: string): Promise<Applied> {
  await writeFile(join(root, 'f'), a)
  try {
    await engine.apply(patch, { route: 'inline' })
    return { ok: true, text: await readFile(join(root, 'f'), 'utf8') }
  } catch (error) {
    const code = isEditError(error) ? error.code : 'not-an-EditError'
    return { ok: false, code, text: await readFile(join(root, 'f'), 'utf8') }
  }
}

async function expectOnlyFile(...names: string[]): Promise<void> {
  // .patchloom/ is the engine's journal, not a workspace file.
  expect((await readdir(root)).filter((n) => n !== '.patchloom').sort()).toEqual(names)
}

describe('round trip through the engine', { timeout: TIMEOUT_MS }, () => {
  it('applies a jsdiff unified diff of A -> B to A and gives B', async () => {
    await fc.assert(
      fc.asyncProperty(CHANGE, async ([a, b]) => {
        const outcome = await applyTo(a, createTwoFilesPatch('a/f', 'b/f', a, b))
        expect(outcome).toEqual({ ok: true, text: b })
        await expectOnlyFile('f')
      }),
      { numRuns: NUM_RUNS, seed: SEED },
    )
  })

  it('applies the same change as a Codex patch, or refuses it as ambiguous without writing', async () => {
    let applied = 0
    await fc.assert(
      fc.asyncProperty(CHANGE, async ([a, b]) => {
        const outcome = await applyTo(a, codexPatch(a, b))
        if (outcome.ok) {
          applied++
          expect(outcome.text).toBe(expectedCodex(a, b))
        } else {
          expect(outcome).toEqual({ ok: false, code: 'MATCH_AMBIGUOUS', text: a })
        }
        await expectOnlyFile('f')
      }),
      { numRuns: NUM_RUNS, seed: SEED },
    )
    // Most random changes have unique context; a suite that only ever refuses proves nothing.
    expect(applied).toBeGreaterThan(NUM_RUNS / 4)
  })

  it('applies the same change as SEARCH/REPLACE blocks, or refuses it as ambiguous without writing', async () => {
    let applied = 0
    await fc.assert(
      fc.asyncProperty(CHANGE, async ([a, b]) => {
        const { text, blankOnlySearch } = searchReplaceBlocks(a, b)
        // A SEARCH of blank lines only is read as an empty SEARCH (append), as Aider does, so
        // such a block cannot express "replace these blank lines".
        fc.pre(!blankOnlySearch)
        const outcome = await applyTo(a, text)
        if (outcome.ok) {
          applied++
          expect(outcome.text).toBe(expectedSearchReplace(a, b))
        } else {
          expect(outcome).toEqual({ ok: false, code: 'MATCH_AMBIGUOUS', text: a })
        }
        await expectOnlyFile('f')
      }),
      { numRuns: NUM_RUNS, seed: SEED },
    )
    expect(applied).toBeGreaterThan(NUM_RUNS / 4)
  })

  it('leaves every file untouched when one hunk of a multi-file diff does not apply', async () => {
    await fc.assert(
      fc.asyncProperty(CHANGE, CHANGE, async ([a, b], [g, h]) => {
        fc.pre(a !== '')
        // Corrupt the first old-side line of f's last hunk so that it matches nowhere.
        const fPatch = structuredPatch('a/f', 'b/f', a, b)
        const last = fPatch.hunks[fPatch.hunks.length - 1]
        if (last === undefined) throw new Error('roundtrip: a change without hunks')
        const index = last.lines.findIndex((line) => line.startsWith('-') || line.startsWith(' '))
        const line = last.lines[index]
        if (line === undefined) throw new Error('roundtrip: a hunk without old lines')
        last.lines[index] = `${line[0] ?? ' '}zzz not in the file`
        // g comes first, so a non-atomic engine would already have written it.
        const patch = createTwoFilesPatch('a/g', 'b/g', g, h) + formatPatch(fPatch)
        await writeFile(join(root, 'g'), g)
        const outcome = await applyTo(a, patch)
        expect(outcome).toEqual({ ok: false, code: 'MATCH_NOT_FOUND', text: a })
        expect(await readFile(join(root, 'g'), 'utf8')).toBe(g)
        await expectOnlyFile('f', 'g')
        await rm(join(root, 'g'))
      }),
      { numRuns: NUM_RUNS, seed: SEED },
    )
  })
})
