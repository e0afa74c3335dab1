// Format detection and dispatch: the one entry point from raw patch text to an EditPlan.
// (The public parsePatch wraps it: src/engine/parse-patch.ts.)
// Each format's grammar lives in its own parser; this module only decides which one runs.
// Detection is ordered from the most to the least distinctive marker, so a SEARCH/REPLACE reply
// that quotes a diff, or a Codex patch that contains '--- ' lines, is still recognised.
import { errorData } from '../errors.js'
import { fail, type Result } from '../result.js'
import type { EditPlan, FormatOption, PatchFormat } from '../types.js'
import { parseCodexPatch } from './codex.js'
import { parseEditsJson } from './edits.js'
import { parseSearchReplace } from './search-replace.js'
import { parseUnifiedDiff, type UnifiedOptions } from './unified.js'

const SEARCH_MARKER_RE = /^\s*<{5,9}\s*SEARCH\s*$/m
const BEGIN_PATCH_RE = /^\s*\*\*\* Begin Patch\s*$/m

/**
 * Guesses the format of `text`, or null when it is none of the supported ones.
 * Order: JSON edits, Codex, SEARCH/REPLACE, unified diff.
 */
export function detectFormat(text: string): PatchFormat | null {
  const trimmed = text.trimStart()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return 'edits'
  // PERF: a plain substring search first; the line-anchored regexes cost ~50 ms on a 45 MiB
  // diff that has neither marker.
  if (text.includes('*** Begin Patch') && BEGIN_PATCH_RE.test(text)) return 'codex'
  if (text.includes('SEARCH') && SEARCH_MARKER_RE.test(text)) return 'search-replace'
  if (looksUnified(text)) return 'unified'
  return null
}

/**
 * A line starting "diff --git " or "GIT binary patch", or a "--- " line followed by a "+++ " one.
 * PERF: found by substring search from line start to line start, not by splitting the text.
 */
function looksUnified(text: string): boolean {
  if (startsSomeLine(text, 'diff --git ') || startsSomeLine(text, 'GIT binary patch')) return true
  for (let at = lineStartingWith(text, '--- ', 0); at !== -1;) {
    const next = text.indexOf('\n', at) + 1
    if (next === 0) return false
    if (text.startsWith('+++ ', next)) return true
    at = lineStartingWith(text, '--- ', next)
  }
  return false
}

function startsSomeLine(text: string, prefix: string): boolean {
  return lineStartingWith(text, prefix, 0) !== -1
}

/** Offset of the first line at or after `from` (a line start) that begins with `prefix`. */
function lineStartingWith(text: string, prefix: string, from: number): number {
  if (text.startsWith(prefix, from)) return from
  const at = text.indexOf('\n' + prefix, from)
  return at === -1 ? -1 : at + 1
}

// Why the public form returns a summary: DECISIONS.md D-105.
/**
 * Parses `text` as `format`, detecting the format first when it is 'auto'. The pure core's form,
 * for internal callers; the public parsePatch (src/engine/parse-patch.ts) throws instead and
 * returns a summary, not the plan.
 */
export function parsePlan(
  text: string,
  format: FormatOption = 'auto',
  options: UnifiedOptions = {},
): Result<EditPlan> {
  const chosen = format === 'auto' ? detectFormat(text) : format
  switch (chosen) {
    case null:
      return fail(
        errorData(
          'PARSE_UNKNOWN_FORMAT',
          'The input is not a Codex patch, unified diff, SEARCH/REPLACE block or JSON edit list.',
        ),
      )
    case 'codex':
      return parseCodexPatch(text)
    case 'unified':
      return parseUnifiedDiff(text, options)
    case 'search-replace':
      return parseSearchReplace(text)
    case 'edits':
      return parseEditsJson(text)
  }
}
