// The public parsePatch: what a patch would do, file by file, from the patch alone (the report of
// `patchloom check --parse-only`). It throws EditError as the engine does; the pure core's Result
// form is parsePlan (src/parse/index.ts), and the plan itself stays internal (DECISIONS.md D-105).
// It reads no workspace file and starts no thread.
import { DEFAULT_LIMITS } from '../defaults.js'
import { EditError } from '../errors.js'
import { checkFormat } from './config.js'
import { parsePlan } from '../parse/index.js'
import { checkPlanEncoding } from '../parse/raw-bytes.js'
import { summarizePlan, type PatchSummary } from '../parse/summary.js'
import { unwrap } from '../result.js'
import type { PatchText } from '../text/patch-bytes.js'
import type { SkippedEntry } from '../parse/unified.js'
import type { FormatOption } from '../types.js'
import { patchTextOf } from '../bytes/patch-input.js'
import { patchWarnings } from './results.js'

/** Options of parsePatch. */
export interface ParsePatchOptions {
  /**
   * 'skip': binary entries without data (`Binary files a/x and b/x differ`) are left out of the
   * summary, each reported as a `parse.binary-skipped` warning, as ApplyOptions.binaryWithoutData
   * does for apply; 'refuse' (the default) rejects the patch as the engine would.
   */
  readonly binaryWithoutData?: 'refuse' | 'skip'
}

/**
 * Parses `input` (any supported format; detected when `format` is 'auto') and reports each file
 * operation it states: path, kind, and the line counts the patch alone gives (null where they
 * depend on the file). Checks what the engine checks before reading any file (the patch's
 * encoding, the default patch size limit) and throws EditError (PARSE_*, PATCH_NO_OP,
 * LIMIT_PATCH_TOO_LARGE, CONFIG_INVALID) where the engine would reject.
 * @example
 * const { format, files } = parsePatch(patchText) // format: the one detected
 */
export function parsePatch(
  input: string | Uint8Array,
  format: FormatOption = 'auto',
  options: ParsePatchOptions = {},
): PatchSummary {
  const chosen = checkFormat(format)
  const binary = options.binaryWithoutData
  if (binary !== undefined && binary !== 'refuse' && binary !== 'skip') {
    throw new EditError(
      'CONFIG_INVALID',
      `Invalid option: binaryWithoutData must be refuse or skip; got ${JSON.stringify(binary)}.`,
    )
  }
  return summarizePatch(patchTextOf(input, DEFAULT_LIMITS.maxPatchBytes), chosen, options)
}

/** parsePatch on text already read and size-checked (the CLI applies its own --max-patch-bytes). */
export function summarizePatch(
  patch: PatchText,
  format: FormatOption,
  options: ParsePatchOptions = {},
): PatchSummary {
  const skipped: SkippedEntry[] = []
  const skip = options.binaryWithoutData === 'skip'
  const parseOptions = skip ? { onBinaryWithoutData: (e: SkippedEntry) => skipped.push(e) } : {}
  const plan = unwrap(parsePlan(patch.text, format, parseOptions))
  // A patch that is not UTF-8 keeps its raw bytes in line content only (D-040, D-041).
  unwrap(checkPlanEncoding(plan, patch.firstRawLine))
  const summary = { format: plan.format, files: summarizePlan(plan) }
  const warnings = patchWarnings(patch, skipped)
  return warnings.length === 0 ? summary : { ...summary, warnings }
}
