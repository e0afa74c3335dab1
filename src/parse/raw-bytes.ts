// What a plan parsed from a patch that is not UTF-8 may do (#8, D-040). Raw bytes (U+DC80..U+DCFF,
// src/text/patch-bytes.ts) are allowed in line content, where they are matched and written byte
// for byte (src/apply/compute.ts), but not in a JSON edit list (JSON is UTF-8) and not in a path
// (a file name must be text to be resolved, compared and reported). This module only judges the
// plan; it does not convert it.
import { errorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import { hasRawBytes } from '../text/patch-bytes.js'
import type { EditPlan, FileOp, LineHunk } from '../types.js'

/** Refuses a plan from a non-UTF-8 patch (first bad byte on `firstRawLine`) that cannot keep its bytes. */
export function checkRawBytes(plan: EditPlan, firstRawLine: number): Result<void> {
  if (plan.format === 'edits') {
    return fail(
      errorData(
        'PARSE_BAD_ENCODING',
        `The JSON edit list is not valid UTF-8 (patch line ${firstRawLine}); JSON text must be UTF-8.`,
        { patchLine: firstRawLine },
      ),
    )
  }
  for (const op of plan.ops) {
    for (const path of pathsOf(op)) {
      if (!hasRawBytes(path)) continue
      return fail(
        errorData(
          'PATH_INVALID',
          `The path '${printable(path)}' is not valid UTF-8; a file name must be text.`,
          {
            patchLine: op.patchLine,
            hint: 'Name the file in UTF-8 (git diff quotes such names as "\\ooo" escapes).',
          },
        ),
      )
    }
  }
  return ok(undefined)
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

/** The path with each raw byte shown as \xNN, so the message itself is valid text. */
function printable(path: string): string {
  return path.replace(/[\udc80-\udcff]/gu, (c) => `\\x${(c.charCodeAt(0) - 0xdc00).toString(16)}`)
}
