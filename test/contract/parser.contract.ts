// The shapes every patch parser must produce, whatever its format (house style §1.4). Each
// parser's unit test calls runParserContract with its own samples; format-specific expectations
// (exact plans, exact error codes) stay in that parser's own tests. What the plans do once
// applied, the same cases through every format, is parser-behaviour.test.ts.
// This file registers tests but is not itself a test file: vitest only collects `*.test.ts`.
import { describe, expect, it } from 'vitest'
import { ERROR_CODES, type EditErrorData } from '../../src/errors.js'
import type { Result } from '../../src/result.js'
import { splitLines, splitPatchLines } from '../../src/text/lines.js'
import type { EditPlan, FileOp } from '../../src/types.js'

export interface ParserSamples {
  /** Inputs the parser must accept. */
  readonly valid: string[]
  /** Inputs the parser must refuse with a PARSE_* error. */
  readonly invalid: string[]
}

/** Inputs no parser may throw on, whatever it makes of them. */
const GARBAGE: readonly string[] = [
  '',
  '\r',
  '\n',
  '\r\n\r\n',
  '   \t  ',
  '\u0000\u0001\u0002\u0003\u00ff\ufffd\ufeff\u0000PNG\r\n\u001a\n\u0000\u0000',
  '\ud800 lone surrogate \udfff',
  'x'.repeat(100_000),
  `+${'y'.repeat(100_000)}\n-z\n`,
  '*** Begin Patch',
  '*** \n@@\n@@ \n---\n+++\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE',
  '{',
  '[{"path":',
  'diff --git a/\n--- \n+++ \n@@ -x +y @@\n',
  'just some prose an agent wrote instead of a patch.\n',
]

/** A generous line count: the larger of the patch-line and file-line readings, at least 1. */
function lineCount(text: string): number {
  return Math.max(1, splitPatchLines(text).length, splitLines(text).length)
}

function label(text: string, index: number): string {
  const head = text.length > 40 ? `${text.slice(0, 40)}…` : text
  return `#${index + 1} ${JSON.stringify(head)}`
}

function expectWellFormedError(error: EditErrorData, text: string): void {
  expect(Object.keys(ERROR_CODES)).toContain(error.code)
  expect(error.code.startsWith('PARSE_')).toBe(true)
  expect(typeof error.message).toBe('string')
  expect(error.message.length).toBeGreaterThan(0)
  expect(error.hint.length).toBeGreaterThan(0)
  expect(error.retryable).toBe(ERROR_CODES[error.code].retryable)
  if (error.patchLine !== undefined) {
    expect(Number.isInteger(error.patchLine)).toBe(true)
    expect(error.patchLine).toBeGreaterThanOrEqual(1)
    expect(error.patchLine).toBeLessThanOrEqual(lineCount(text))
  }
  expect(structuredClone(error)).toStrictEqual(error)
}

function expectWellFormedOp(op: FileOp, text: string): void {
  expect(Number.isInteger(op.patchLine)).toBe(true)
  expect(op.patchLine).toBeGreaterThanOrEqual(1)
  expect(typeof op.path).toBe('string')
  expect(op.path.length).toBeGreaterThan(0)
  if (op.kind === 'copy') expect(op.from.length).toBeGreaterThan(0)
  if (op.kind === 'update' && op.moveTo !== undefined) expect(op.moveTo.length).toBeGreaterThan(0)
  if (op.kind === 'update' || op.kind === 'delete' || op.kind === 'copy') {
    for (const hunk of op.hunks) {
      expect(hunk.patchLine).toBeGreaterThanOrEqual(1)
      expect(hunk.patchLine).toBeLessThanOrEqual(lineCount(text))
    }
  }
}

function parseSafely(parse: (text: string) => Result<EditPlan>, text: string): Result<EditPlan> {
  const result = parse(text)
  expect(typeof result.ok).toBe('boolean')
  if (!result.ok) expectWellFormedError(result.error, text)
  return result
}

/**
 * Checks one input the parser must accept, outside runParserContract (the behaviour cases in
 * parser-behaviour/ use it on every rendition): a plan of well-formed ops that clones unchanged
 * and comes out equal on a second parse. Returns the plan.
 */
export function expectWellFormedPlan(
  parse: (text: string) => Result<EditPlan>,
  text: string,
): EditPlan {
  const result = parseSafely(parse, text)
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`)
  expect(result.value.ops.length).toBeGreaterThan(0)
  for (const op of result.value.ops) expectWellFormedOp(op, text)
  expect(structuredClone(result)).toStrictEqual(result)
  expect(parse(text)).toEqual(result)
  return result.value
}

/**
 * Registers `describe('<name> parser contract')`: valid samples give clone-safe plans with one
 * stable format and well-formed ops; invalid samples give PARSE_* errors whose patchLine lies in
 * the input; garbage never throws; parsing is deterministic.
 */
export function runParserContract(
  name: string,
  parse: (text: string) => Result<EditPlan>,
  samples: { valid: string[]; invalid: string[] },
): void {
  describe(`${name} parser contract`, () => {
    it('has at least one valid and one invalid sample', () => {
      expect(samples.valid.length).toBeGreaterThan(0)
      expect(samples.invalid.length).toBeGreaterThan(0)
    })

    samples.valid.forEach((text, index) => {
      it(`accepts valid sample ${label(text, index)} with well-formed ops`, () => {
        const result = parseSafely(parse, text)
        if (!result.ok) {
          throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`)
        }
        expect(result.value.ops.length).toBeGreaterThan(0)
        for (const op of result.value.ops) expectWellFormedOp(op, text)
      })

      it(`returns a clone-safe plan for valid sample ${label(text, index)}`, () => {
        const result = parse(text)
        // toStrictEqual, not toEqual: a class instance would clone into a plain object and pass.
        expect(structuredClone(result)).toStrictEqual(result)
      })
    })

    it('gives every valid sample the same format', () => {
      const formats = new Set<string>()
      for (const text of samples.valid) {
        const result = parse(text)
        if (result.ok) formats.add(result.value.format)
      }
      expect(formats.size).toBe(1)
    })

    samples.invalid.forEach((text, index) => {
      it(`refuses invalid sample ${label(text, index)} with a PARSE_ error in range`, () => {
        const result = parseSafely(parse, text)
        expect(result.ok).toBe(false)
      })
    })

    GARBAGE.forEach((text, index) => {
      it(`returns a Result without throwing for garbage ${label(text, index)}`, () => {
        const run = (): Result<EditPlan> => parse(text)
        expect(run).not.toThrow()
        parseSafely(parse, text)
      })
    })

    it('is deterministic: the same input twice gives equal output', () => {
      for (const text of [...samples.valid, ...samples.invalid, ...GARBAGE]) {
        expect(parse(text)).toEqual(parse(text))
      }
    })
  })
}
