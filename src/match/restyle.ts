// Restyling of added lines after a lenient match: when the ladder needed 'trim' or 'fold', the
// patch author saw the file slightly wrong (indentation, curly quotes, Unicode dashes), and the
// lines they add should follow the file's style rather than the patch's. deriveRestyle() learns
// plain-data adjustments from the matched (file, patch) line pairs; restyleLine() applies them.
// Indentation is src/match/reindent.ts's. Quotes go both ways: ASCII becomes curly where the file
// has curly ones, and curly quotes, odd spaces and Unicode dashes become ASCII where the file has
// ASCII (a model rendering rich text). Context and removed lines never pass through here: they
// keep the file's own text (src/apply/).
import type { MatchPass } from '../text/normalize.js'
import type { RestyleExtra } from './reindent.js'
import { deriveReindent, reindentLine, type Reindent } from './reindent.js'

/** How added lines are adjusted. Plain data, so it can cross threads with a located hunk. */
export interface Restyle {
  /** How added lines are re-indented; null leaves their indentation alone. */
  readonly indent: Reindent | null
  /** Convert ASCII ' to curly single quotes (the file uses them where the patch had '). */
  readonly curlySingle: boolean
  /** Convert ASCII " to curly double quotes. */
  readonly curlyDouble: boolean
  /** Convert curly single quotes to ASCII ' (the file uses ' where the patch had curly ones). */
  readonly asciiSingle: boolean
  /** Convert curly double quotes to ASCII ". */
  readonly asciiDouble: boolean
  /** Convert odd spaces (U+00A0, U+2002..200A, ...) to ' ' (the file has ' ' where the patch had them). */
  readonly asciiSpaces: boolean
  /** Whole whitespace-delimited tokens to replace: [patch spelling, file spelling]. */
  readonly dashTokens: readonly (readonly [string, string])[]
}

export const IDENTITY_RESTYLE: Restyle = {
  indent: null,
  curlySingle: false,
  curlyDouble: false,
  asciiSingle: false,
  asciiDouble: false,
  asciiSpaces: false,
  dashTokens: [],
}

const OPEN_SINGLE = '\u2018'
const CLOSE_SINGLE = '\u2019'
const OPEN_DOUBLE = '\u201c'
const CLOSE_DOUBLE = '\u201d'

function isCurlySingle(code: number): boolean {
  return code >= 0x2018 && code <= 0x201b
}

function isCurlyDouble(code: number): boolean {
  return code >= 0x201c && code <= 0x201f
}

function isUnicodeDash(code: number): boolean {
  return (code >= 0x2010 && code <= 0x2015) || code === 0x2212
}

function isOddSpace(code: number): boolean {
  return (
    code === 0xa0 ||
    (code >= 0x2002 && code <= 0x200a) ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  )
}

function isAnyDash(code: number): boolean {
  return code === 45 || isUnicodeDash(code)
}

/** Whether `restyle` changes nothing. */
export function isIdentityRestyle(restyle: Restyle): boolean {
  return (
    restyle.indent === null &&
    !restyle.curlySingle &&
    !restyle.curlyDouble &&
    !restyle.asciiSingle &&
    !restyle.asciiDouble &&
    !restyle.asciiSpaces &&
    restyle.dashTokens.length === 0
  )
}

/**
 * Learns a Restyle from matched line pairs: fileLines[i] is the file line that patchLines[i]
 * matched under `pass` (pairs beyond the shorter array are ignored). 'exact' and 'trim-end'
 * give the identity; 'trim' adds the indentation mapping; 'fold' adds quotes and dashes too.
 */
export function deriveRestyle(
  fileLines: readonly string[],
  patchLines: readonly string[],
  pass: MatchPass,
  extra: RestyleExtra = {},
): Restyle {
  if (pass === 'exact' || pass === 'trim-end') return IDENTITY_RESTYLE
  const pairs = Math.min(fileLines.length, patchLines.length)
  const indent = deriveReindent(fileLines.slice(0, pairs), patchLines.slice(0, pairs), extra)
  if (pass === 'trim') return { ...IDENTITY_RESTYLE, indent }

  let singleFor = 0
  let singleAgainst = 0
  let doubleFor = 0
  let doubleAgainst = 0
  // The other direction: the patch (often a model rendering rich text) wrote curly quotes where
  // the file has ASCII ones; new lines with curly quotes would break code.
  let asciiSingleFor = 0
  let asciiSingleAgainst = 0
  let asciiDoubleFor = 0
  let asciiDoubleAgainst = 0
  let asciiSpaces = false
  const tokens = new Map<string, string | null>()
  for (let i = 0; i < pairs; i++) {
    const file = (fileLines[i] as string).trim()
    const patch = (patchLines[i] as string).trim()
    // Folding maps one UTF-16 unit to one, so matched lines align char by char once trimmed.
    if (file.length !== patch.length) continue
    for (let c = 0; c < patch.length; c++) {
      const p = patch.charCodeAt(c)
      const f = file.charCodeAt(c)
      if (p === 39) {
        if (isCurlySingle(f)) singleFor++
        else if (f === 39) singleAgainst++
      } else if (p === 34) {
        if (isCurlyDouble(f)) doubleFor++
        else if (f === 34) doubleAgainst++
      } else if (isCurlySingle(p)) {
        if (f === 39) asciiSingleFor++
        else if (isCurlySingle(f)) asciiSingleAgainst++
      } else if (isCurlyDouble(p)) {
        if (f === 34) asciiDoubleFor++
        else if (isCurlyDouble(f)) asciiDoubleAgainst++
      } else if (f === 32 && isOddSpace(p)) {
        asciiSpaces = true
      }
    }
    collectDashTokens(file, patch, tokens)
  }
  const dashTokens: (readonly [string, string])[] = []
  for (const [from, to] of tokens) if (to !== null && to !== from) dashTokens.push([from, to])
  return {
    indent,
    curlySingle: singleFor > singleAgainst,
    curlyDouble: doubleFor > doubleAgainst,
    asciiSingle: asciiSingleFor > asciiSingleAgainst,
    asciiDouble: asciiDoubleFor > asciiDoubleAgainst,
    asciiSpaces,
    dashTokens,
  }
}

// Conservative on purpose: odd spaces are never introduced (asciiSpaces only removes them), and a
// dash is only converted inside the very token the file spelled with it.
/**
 * Records, for each patch token containing a dash ('-' or a Unicode dash), the file's spelling
 * of it. A token the file spells two different ways maps to null (ambiguous, left alone).
 */
function collectDashTokens(file: string, patch: string, tokens: Map<string, string | null>): void {
  const re = /\S+/g
  for (let m = re.exec(patch); m !== null; m = re.exec(patch)) {
    const token = m[0]
    if (!/[-\u2010-\u2015\u2212]/.test(token)) continue
    let spelled = ''
    for (let c = 0; c < token.length; c++) {
      const p = token.charCodeAt(c)
      const f = file.charCodeAt(m.index + c)
      spelled += isAnyDash(p) && isAnyDash(f) ? String.fromCharCode(f) : token[c]
    }
    const known = tokens.get(token)
    if (known === undefined) tokens.set(token, spelled)
    else if (known !== spelled) tokens.set(token, null)
  }
}

function isOpeningContext(prev: string | undefined): boolean {
  return prev === undefined || /[\s([{]/.test(prev)
}

/** Applies a Restyle to one added line (text without its terminator). */
export function restyleLine(text: string, restyle: Restyle): string {
  let out = restyle.indent === null ? text : reindentLine(text, restyle.indent)
  if (restyle.dashTokens.length > 0) {
    const map = new Map(restyle.dashTokens)
    out = out.replace(/\S+/g, (token) => map.get(token) ?? token)
  }
  if (restyle.asciiSpaces) out = out.replace(/[\u00a0\u2002-\u200a\u202f\u205f\u3000]/g, ' ')
  if (restyle.curlySingle || restyle.curlyDouble || restyle.asciiSingle || restyle.asciiDouble) {
    let quoted = ''
    for (let i = 0; i < out.length; i++) {
      const ch = out[i] as string
      const code = ch.charCodeAt(0)
      const open = isOpeningContext(quoted[quoted.length - 1])
      if (ch === "'" && restyle.curlySingle) quoted += open ? OPEN_SINGLE : CLOSE_SINGLE
      else if (ch === '"' && restyle.curlyDouble) quoted += open ? OPEN_DOUBLE : CLOSE_DOUBLE
      else if (restyle.asciiSingle && isCurlySingle(code)) quoted += "'"
      else if (restyle.asciiDouble && isCurlyDouble(code)) quoted += '"'
      else quoted += ch
    }
    out = quoted
  }
  return out
}
