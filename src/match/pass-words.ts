// How error messages and warnings name a matching pass: each pass of the ladder
// (src/text/normalize.ts) and the tolerant_whitespace rung of string edits. Hunk location and
// string edits both word a pass with passWords(), each in a sentence of its own.
import type { MatchPass } from '../text/normalize.js'

/** What a string edit can match under: a ladder pass, or the tolerant_whitespace rung ('tabs'). */
export type EditPass = MatchPass | 'tabs'

/** What each pass other than 'exact' lets differ between two lines, as normalizeLine does it. */
const LENIENT_WORDS: Readonly<Record<Exclude<EditPass, 'exact'>, string>> = {
  'trim-end': 'ignoring trailing whitespace',
  trim: 'ignoring leading and trailing whitespace',
  fold: 'ignoring leading and trailing whitespace and folding Unicode punctuation and spaces to ASCII',
  tabs: 'counting each tab of the leading indentation as four spaces',
}

/**
 * How a match under `pass` was made, to follow a verb: "exactly", or "after " and what the pass
 * ignores.
 *
 * @example
 * `matched ${passWords('trim-end')}` // 'matched after ignoring trailing whitespace'
 */
export function passWords(pass: EditPass): string {
  return pass === 'exact' ? 'exactly' : `after ${LENIENT_WORDS[pass]}`
}
