// What a plan parsed from a patch that is not UTF-8 may do (D-040). Raw bytes (U+DC80..U+DCFF,
// src/text/patch-bytes.ts) are allowed in line content, where they are matched and written byte
// for byte (src/apply/compute.ts), but not in a JSON edit list (JSON is UTF-8) and not in a path
// (a file name must be text to be resolved, compared and reported). JSON edits can also spell an
// unpaired surrogate with a `\u` escape, which has no UTF-8 encoding; that is refused too (D-041).
// This module only judges the plan; it does not convert it.
import { errorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import { hasLoneSurrogate, hasRawBytes } from '../text/patch-bytes.js'
import type { EditPlan, FileOp, LineHunk } from '../types.js'

/**
 * Refuses a plan whose text cannot be written as it stands: from a patch that is not UTF-8 (its
 * first bad byte on `firstRawLine`), JSON edits; from any patch, raw-byte paths (git-quoted names
 * spell bytes with octal escapes); from any JSON edit list, an
 * unpaired surrogate. Every other plan passes untouched.
 */
export function checkPlanEncoding(plan: EditPlan, firstRawLine: number | undefined): Result<void> {
  if (plan.format === 'edits') return checkEdits(plan, firstRawLine)
  // Paths are checked even in a UTF-8 patch: a git-quoted name's octal escapes can spell bytes
  // that are not UTF-8 (`"b/caf\351.txt"`).
  for (const op of plan.ops) {
    for (const path of pathsOf(op)) {
      if (hasRawBytes(path)) return fail(pathNotUtf8(path, op.patchLine))
    }
  }
  return ok(undefined)
}

function checkEdits(plan: EditPlan, firstRawLine: number | undefined): Result<void> {
  if (firstRawLine !== undefined) {
    return fail(
      errorData(
        'PARSE_BAD_ENCODING',
        `The JSON edit list is not valid UTF-8 (patch line ${firstRawLine}); JSON text must be UTF-8.`,
        { patchLine: firstRawLine },
      ),
    )
  }
  for (const op of plan.ops) {
    if (op.kind !== 'edits') continue
    if (hasLoneSurrogate(op.path)) return fail(pathNotUtf8(op.path, op.patchLine))
    for (const edit of op.edits) {
      const texts = Object.values(edit).filter((v): v is string => typeof v === 'string')
      if (!texts.some(hasLoneSurrogate)) continue
      return fail(
        errorData(
          'PARSE_BAD_ENCODING',
          `Edit ${edit.index + 1} (for ${op.path}) holds an unpaired surrogate escape, which has no UTF-8 encoding.`,
          { path: op.path, patchLine: edit.index + 1 },
        ),
      )
    }
  }
  return ok(undefined)
}

function pathNotUtf8(path: string, patchLine: number) {
  return errorData(
    'PATH_INVALID',
    `The path '${printable(path)}' is not valid UTF-8; a file name must be text.`,
    {
      patchLine,
      hint: 'Name the file in UTF-8 (git diff quotes such names as "\\ooo" escapes).',
    },
  )
}

/** True when the op's own text (new content, hunk lines, hints) holds raw bytes. */
export function opHasRawBytes(op: FileOp): boolean {
  switch (op.kind) {
    case 'add':
      return hasRawBytes(op.content)
    case 'delete':
    case 'update':
    case 'copy':
      return op.hunks.some(hunkHasRawBytes)
    case 'edits':
      return false
  }
}

function hunkHasRawBytes(hunk: LineHunk): boolean {
  return hunk.hints.some(hasRawBytes) || hunk.lines.some((l) => hasRawBytes(l.text))
}

function pathsOf(op: FileOp): string[] {
  switch (op.kind) {
    case 'copy':
      return [op.from, op.path]
    case 'update':
      return op.moveTo === undefined ? [op.path] : [op.path, op.moveTo]
    case 'add':
    case 'delete':
    case 'edits':
      return [op.path]
  }
}

/** The path with each raw byte shown as \xNN and any other lone surrogate as \uNNNN. */
function printable(path: string): string {
  return path.replace(/\p{Surrogate}/gu, (c) => {
    const code = c.charCodeAt(0)
    return code >= 0xdc80 && code <= 0xdcff
      ? `\\x${(code - 0xdc00).toString(16)}`
      : `\\u${code.toString(16)}`
  })
}
