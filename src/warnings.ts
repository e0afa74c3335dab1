// Warning codes: the stable, dotted `Warning.code` of something a result, an undo or a recovery
// report tells its caller without stopping the change. Public API like ERROR_CODES (DECISIONS.md
// D-107): add freely, never rename or reuse. ERRORS.md lists them (rendered by
// test/unit/errors-doc.test.ts), and test/unit/warnings.test.ts checks that every code src/ emits
// is one of them. This module is a leaf: it only names codes, it emits none.
import type { ErrorCode } from './errors.js'

/** Every fixed warning code and what it means. */
export const WARNING_CODES = {
  'parse.stop-token':
    'The patch ended in model stop tokens (`<|endoftext|>`, `<|im_end|>`, `<|eot_id|>` and others of a fixed list), glued to its last line or after it; they were cut before parsing, and the message names them and the line, so the last line can be checked.',
  'parse.binary-skipped':
    "A unified diff's `Binary files A and B differ` entry carried no binary data and was skipped, as the request's binaryWithoutData 'skip' asks; the rest of the patch was applied. `path` names the file left as it was.",
  'match.lenient':
    'A hunk or edit matched only after ignoring trailing whitespace, indentation or Unicode punctuation (dashes, quotes, odd spaces); the message names the pass and the line, so the placement can be checked.',
  'match.offset':
    'A unified-diff hunk applied at a line other than the one its header states; the message gives the line and the offset.',
  'match.fuzz':
    "A unified or Codex hunk whose lines matched nowhere together was placed after dropping up to two of its outer context lines on each side (never a removed or added line), because what remained matched in exactly one place of the whole file (inside the hint's scope, where there is one); the message names the dropped lines by patch line and text, and the file line where the hunk landed. The dropped lines were not written: the file keeps its own lines there.",
  'match.reordered':
    "A unified diff's numbered hunks for one file were not in the order of their stated lines; they were placed in that order, each near its own line, as `git apply` places them (every other rule holds: each matches once near its line, none overlaps another). The message lists the hunks by patch line and stated line.",
  'file.rebased':
    "A file changed between this request's verification and its commit (another change to lines far from this one's); the request was verified again on the new content and landed as the merge of both changes. `path` names the file.",
  'journal.pending':
    'A dry run found an unfinished transaction (interrupted, or being committed by another process right now) and saw the files as they are; the next apply, or `patchloom recover`, rolls it back first if it was interrupted.',
  'journal.recovered':
    'An interrupted transaction was rolled back before this request; `path` names its directory.',
  'journal.not-durable':
    "A commit, undo, rollback or recovery finished, but a directory sync after it failed under durability 'full': the result is in place but not guaranteed to survive a power cut.",
  'journal.conflict':
    'An interrupted transaction could only partly be rolled back: a file it would restore has changed; `patchloom recover` lists the files and their kept copies.',
  'lsp.failed':
    'Language-server diagnostics failed before or after the change (the message says which and why); the change itself is applied.',
  'lsp.baseline-unsettled':
    'Diagnostics from before the change did not settle in time, so `introduced` may include errors that were already there; the report says `settled: false`.',
} as const satisfies Readonly<Record<string, string>>

/** `JOURNAL_UNSAFE_PATH` -> `unsafe-path`, `FILE_CHANGED` -> `file-changed`. */
type NoticeName<C extends string> = Lowercase<Kebab<C extends `JOURNAL_${infer Rest}` ? Rest : C>>
type Kebab<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}-${Kebab<Tail>}`
  : S

/**
 * A journal transaction that a request, a recovery or an undo did not act on (untrusted, corrupt,
 * unsafe path), or whose rollback failed: `journal.` and the EditError code that refused it,
 * without its `JOURNAL_` prefix, in lower case with '-' for '_' (`journal.untrusted`,
 * `journal.unsafe-path`, `journal.no-space`). The message says what to do.
 */
export type JournalNoticeCode = `journal.${NoticeName<ErrorCode>}`

/** The code of a Warning: a fixed one from WARNING_CODES, or a journal refusal's. */
export type WarningCode = keyof typeof WARNING_CODES | JournalNoticeCode

/** The warning code for a journal transaction refused, or left in conflict, with `code`. */
export function journalNoticeCode(code: ErrorCode): JournalNoticeCode {
  const name = code
    .replace(/^JOURNAL_/, '')
    .toLowerCase()
    .replace(/_/g, '-')
  return `journal.${name}` as JournalNoticeCode
}
