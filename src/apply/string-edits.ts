// Applies JSON string edits (replace, insert, replace_range, delete_range, write) to one file's
// decoded text, in order, each to the result of the one before: a range edit's line numbers
// refer to the text as that edit finds it. Pure: reading, expected_hash checks, BOM and byte
// conversion are the caller's (in bytes mode every edit string has passed through toModeText).
// One EditDoc (src/match/text-search.ts) carries all of a file's edits; each edit rewrites only
// the lines it touches. The modes: edit-replace.ts (its regex form edit-regex.ts), edit-insert.ts,
// edit-ranges.ts; edit-messages.ts words their failures and warnings.
import { EditDoc } from '../match/text-search.js'
import { ok, type Result } from '../result.js'
import type { TableRegion } from '../text/line-table.js'
import type { Line } from '../text/lines.js'
import type { StringEdit, Warning } from '../types.js'
import type { RegexSearcher } from './regex.js'
import { failAt, type EditContext, type EditStep } from './edit-messages.js'
import { applyReplace } from './edit-replace.js'
import { applyInsert, applyInsertAtLine } from './edit-insert.js'
import { applyRange } from './edit-ranges.js'

export interface StringEditsInput {
  /** Decoded content without BOM; ignored when `exists` is false. */
  readonly text: string
  readonly exists: boolean
  readonly edits: readonly StringEdit[]
  readonly path: string
  /** Bytes-mode file: only byte-exact matches are allowed (FILE_NOT_TEXT otherwise). */
  readonly exactOnly: boolean
  /**
   * Runs a regex edit's pattern; src/engine/regex-search.ts bounds it in time. A regex edit
   * without one is a programmer error.
   */
  readonly searchRegex?: RegexSearcher
}

export interface StringEditsOutput {
  readonly text: string
  readonly warnings: Warning[]
}

/** The file's lines before and after the edits, and what changed, for rendering the diff. */
export interface StringEditsLines {
  readonly before: readonly Line[]
  readonly after: readonly Line[]
  /**
   * The changed spans (old lines of `before`, new lines of `after`), in order; absent when a
   * write edit replaced the whole text, so only a whole-file diff can tell what changed.
   */
  readonly regions?: readonly TableRegion[]
}

export interface StringEditsDetail extends StringEditsOutput {
  readonly lines: StringEditsLines
}

/**
 * Applies `edits` in order to `text`. A missing file can only be created: by a write edit, or by
 * a replace with an empty old_string as the first edit.
 *
 * @example
 * applyStringEdits({
 *   text: 'a\r\nb\r\n', exists: true, path: 'f.txt', exactOnly: false,
 *   edits: [
 *     { mode: 'replace', index: 0, oldString: 'b\n', newString: 'c\nd\n', replaceAll: false },
 *   ],
 * })
 * // ok({ text: 'a\r\nc\r\nd\r\n', warnings: [] })
 */
export function applyStringEdits(input: StringEditsInput): Result<StringEditsOutput> {
  const applied = applyStringEditsWithLines(input)
  if (!applied.ok) return applied
  return ok({ text: applied.value.text, warnings: applied.value.warnings })
}

/** applyStringEdits, also returning the lines before and after and the changed regions. */
// One table for all edits costs the file's size once plus the edits (DECISIONS.md D-070); the
// diff is rendered from the regions the table records (DECISIONS.md D-071). The result equals
// re-splitting the whole text before every edit, intermediate states included
// (test/helpers/string-edits-oracle.ts and its property test).
export function applyStringEditsWithLines(input: StringEditsInput): Result<StringEditsDetail> {
  let doc = new EditDoc(input.exists ? input.text : '')
  const before = doc.table.base
  let exists = input.exists
  let rebased = false
  const warnings: Warning[] = []
  for (const edit of input.edits) {
    const ctx: EditContext = {
      path: input.path,
      editNumber: edit.index + 1,
      exactOnly: input.exactOnly,
      searchRegex: input.searchRegex,
    }
    if (edit.mode === 'write') {
      doc = new EditDoc(edit.content)
      rebased = true
      exists = true
      continue
    }
    if (!exists) {
      // Every non-write edit on a missing file fails, so an empty old_string reaching here is
      // necessarily the file's first edit: the "create the file" form.
      if (edit.mode === 'replace' && edit.oldString === '') {
        doc = new EditDoc(edit.newString)
        rebased = true
        exists = true
        continue
      }
      const detail =
        `${ctx.path} does not exist; ` + 'only a write edit or an empty old_string can create it'
      return failAt(ctx, 'FILE_NOT_FOUND', detail)
    }
    const step = applyOne(doc, edit, ctx)
    if (!step.ok) return step
    warnings.push(...step.value.warnings)
  }
  const after = doc.table.toLines()
  const lines: StringEditsLines = rebased
    ? { before, after }
    : { before, after, regions: doc.table.regions() }
  return ok({ text: doc.toText(), warnings, lines })
}

function applyOne(
  doc: EditDoc,
  edit: Exclude<StringEdit, { mode: 'write' }>,
  ctx: EditContext,
): Result<EditStep> {
  switch (edit.mode) {
    case 'replace':
      return applyReplace(doc, edit, ctx)
    case 'insert':
      return applyInsert(doc, edit, ctx)
    case 'insert_line':
      return applyInsertAtLine(doc, edit, ctx)
    case 'replace_range':
      return applyRange(doc, edit.startLine, edit.endLine, edit.newString, ctx)
    case 'delete_range':
      return applyRange(doc, edit.startLine, edit.endLine, '', ctx)
  }
}
