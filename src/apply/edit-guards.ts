// Refusals of JSON edits that found their place but would do the wrong thing: the rewrite guard
// (DECISIONS.md D-093) and the no-op rule (DECISIONS.md D-094) share their wording here, so the
// string edits (src/apply/edit-*.ts) and their oracle (test/helpers/string-edits-oracle.ts)
// agree. Pure; the callers decide which spans an edit matched.
import { STOP_TOKENS } from '../text/stop-tokens.js'

/** The rewrite guard looks only at files of at least this many lines. */
export const REWRITE_MIN_FILE_LINES = 20
/** ... and only at edits whose matched lines are under this share of the file (percent). */
export const REWRITE_MAX_MATCHED_PERCENT = 10
/** ... and trips when new_string restates at least this share of the other lines (percent). */
export const REWRITE_RESTATED_PERCENT = 50

/**
 * Whether a replace looks like "old_string: one line, new_string: the whole new file":
 * the file has at least REWRITE_MIN_FILE_LINES lines, the matched lines (`matchedLines`, summed
 * over the matches replaced) are under REWRITE_MAX_MATCHED_PERCENT of them, and at least
 * REWRITE_RESTATED_PERCENT of the file's other lines reappear in new_string (compared trimmed,
 * each new line standing for one file line), so the result would hold most of the file twice.
 * `isMatched(i)` tells whether 0-based line i is one of the matched lines.
 */
export function isRewrite(
  fileLines: number,
  matchedLines: number,
  newLines: readonly string[],
  textAt: (i: number) => string,
  isMatched: (i: number) => boolean,
): boolean {
  if (fileLines < REWRITE_MIN_FILE_LINES) return false
  if (matchedLines * 100 >= fileLines * REWRITE_MAX_MATCHED_PERCENT) return false
  const others = fileLines - matchedLines
  // PERF: ordinary edits stop here; new_string cannot restate more lines than it has.
  if (newLines.length * 100 < others * REWRITE_RESTATED_PERCENT) return false
  const offered = new Map<string, number>()
  for (const line of newLines) {
    const key = line.trim()
    offered.set(key, (offered.get(key) ?? 0) + 1)
  }
  let restated = 0
  for (let i = 0; i < fileLines; i++) {
    if (isMatched(i)) continue
    const key = textAt(i).trim()
    const left = offered.get(key) ?? 0
    if (left === 0) continue
    offered.set(key, left - 1)
    restated++
  }
  return restated * 100 >= others * REWRITE_RESTATED_PERCENT
}

/** The EDIT_REWRITE_BLOCKED message's detail (after "Edit N: "). */
export function rewriteDetail(path: string, fileLines: number, matchedLines: number): string {
  return (
    `old_string matches ${matchedLines} of the ${fileLines} lines of ${path}, but new_string ` +
    'restates most of the rest of the file, so the result would hold it twice; use mode ' +
    '"write" to replace the whole file, or set allow_rewrite: true if this is meant'
  )
}

/** The EDIT_NO_OP message's detail: `what` says which text equals which. */
export function noOpDetail(path: string, what: string): string {
  return `${what}, so the edit would leave ${path} unchanged`
}

/**
 * The refusal detail for a new_string that ends in a model stop token (`<|im_end|>` and the
 * others of src/text/stop-tokens.ts, whitespace after it allowed) that `kept` does not end in as
 * well (old_string; an insert keeps nothing), or null. Mode write is not checked.
 */
export function stopTokenDetail(path: string, newString: string, kept: string): string | null {
  const end = newString.trimEnd()
  const token = STOP_TOKENS.find((t) => end.endsWith(t))
  if (token === undefined || kept.trimEnd().endsWith(token)) return null
  return (
    `new_string ends with ${token}, a model's stop token: most likely where the model's output ` +
    `ended, not text for ${path}; send the edit without it, or use mode "write" if the file ` +
    'is meant to end so'
  )
}

/**
 * The refusal detail for an exact match whose replacement would repeat the text around it on
 * its line, or null. `before` and `after` are the rest of the match's first and last line. When
 * old_string starts after the line's start and new_string's first line begins with that text
 * (the indentation, or for an old_string of several lines any text with a letter or digit),
 * old_string was cut and new_string restates the line; likewise at the end of an old_string of
 * several lines whose last line new_string ends with the rest of the file's line.
 */
export function restatedLineDetail(
  path: string,
  oldLf: string,
  newLf: string,
  before: string,
  after: string,
): string | null {
  const lines = newLf.split('\n')
  const first = lines[0] as string
  const last = lines[lines.length - 1] as string
  const several = oldLf.replace(/\n$/, '').includes('\n')
  const word = (text: string): boolean => /[\p{L}\p{N}_]/u.test(text)
  const atStart =
    before !== '' &&
    !oldLf.startsWith('\n') &&
    (before.trim() === '' || (several && word(before))) &&
    first.startsWith(before)
  const atEnd = several && !oldLf.endsWith('\n') && word(after) && last.endsWith(after)
  if (!atStart && !atEnd) return null
  const where = atStart
    ? `old_string starts after ${JSON.stringify(before)} on its line in ${path}, and new_string starts with it too`
    : `old_string ends before ${JSON.stringify(after)} on its line in ${path}, and new_string ends with it too`
  return (
    `${where}, so the edit would write it twice: old_string looks cut mid-line; ` +
    'send old_string with the whole line'
  )
}
