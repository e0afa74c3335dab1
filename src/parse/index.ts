// Format detection and dispatch: the one entry point from raw patch text to an EditPlan.
// Each format's grammar lives in its own parser; this module only decides which one runs.
// Detection is ordered from the most to the least distinctive marker, so a SEARCH/REPLACE reply
// that quotes a diff, or a Codex patch that contains '--- ' lines, is still recognised.
import { errorData } from '../errors.js'
import { fail, type Result } from '../result.js'
import type { EditPlan, FormatOption, PatchFormat } from '../types.js'
import { parseCodexPatch } from './codex.js'
import { parseEditsJson } from './edits.js'
import { parseSearchReplace } from './search-replace.js'
import { parseUnifiedDiff } from './unified.js'

const SEARCH_MARKER_RE = /^\s*<{5,9}\s*SEARCH\s*$/m
const BEGIN_PATCH_RE = /^\s*\*\*\* Begin Patch\s*$/m

/**
 * Guesses the format of `text`, or null when it is none of the supported ones.
 * Order: JSON edits, Codex, SEARCH/REPLACE, unified diff.
 */
export function detectFormat(text: string): PatchFormat | null {
  const trimmed = text.trimStart()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return 'edits'
  if (BEGIN_PATCH_RE.test(text)) return 'codex'
  if (SEARCH_MARKER_RE.test(text)) return 'search-replace'
  if (looksUnified(text)) return 'unified'
  return null
}

function looksUnified(text: string): boolean {
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    if (line.startsWith('diff --git ') || line.startsWith('GIT binary patch')) return true
    if (line.startsWith('--- ') && (lines[i + 1] ?? '').startsWith('+++ ')) return true
  }
  return false
}

/**
 * Parses `text` as `format`, detecting the format first when it is 'auto'.
 *
 * @example
 * const plan = parsePatch(patchText) // plan.value.format says which format was detected
 */
export function parsePatch(text: string, format: FormatOption = 'auto'): Result<EditPlan> {
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
      return parseUnifiedDiff(text)
    case 'search-replace':
      return parseSearchReplace(text)
    case 'edits':
      return parseEditsJson(text)
  }
}
