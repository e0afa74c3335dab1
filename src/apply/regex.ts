// The seam between regex edits and the code that runs their patterns (D-091). Running a
// JavaScript RegExp cannot be interrupted in the thread that runs it, and the pure core may not
// use node:vm, so string-edits.ts never executes an edit's pattern itself: it hands the text to a
// RegexSearcher it is given (src/engine/regex-search.ts runs it in a vm context with a
// timeout) and gets back plain match spans and captures. This module holds that contract and the
// pure half of a replacement: expanding new_string's $-patterns for one match.

/** One match, in UTF-16 offsets of the searched text. Plain data (it may cross a realm). */
export interface RegexMatch {
  readonly start: number
  readonly end: number
  /** Captures 1..n; undefined for a group that did not take part. */
  readonly captures: readonly (string | undefined)[]
  /** Named captures, when the pattern has any. */
  readonly named?: Readonly<Record<string, string | undefined>>
}

export type RegexSearch =
  | { readonly ok: true; readonly matches: readonly RegexMatch[] }
  | { readonly ok: false; readonly timeoutMs: number }

/**
 * Every match of `source` (compiled with `flags` plus 'g') in `text`, leftmost first and never
 * overlapping, as String.prototype.matchAll finds them; or the time bound it ran out of.
 */
export type RegexSearcher = (text: string, source: string, flags: string) => RegexSearch

/**
 * new_string with its $-patterns filled in for one match, as String.prototype.replace does
 * (ECMA-262 GetSubstitution): $$, $&, $` and $', $n and $nn (the two-digit form when that group
 * exists), and $<name> when the pattern has named groups. Anything else stays literal.
 */
export function expandReplacement(template: string, match: RegexMatch, text: string): string {
  if (!template.includes('$')) return template
  const count = match.captures.length
  let out = ''
  let i = 0
  while (i < template.length) {
    const ch = template[i] as string
    const next = template[i + 1]
    if (ch !== '$' || next === undefined) {
      out += ch
      i++
      continue
    }
    if (next === '$') {
      out += '$'
      i += 2
    } else if (next === '&') {
      out += text.slice(match.start, match.end)
      i += 2
    } else if (next === '`') {
      out += text.slice(0, match.start)
      i += 2
    } else if (next === "'") {
      out += text.slice(match.end)
      i += 2
    } else if (next >= '0' && next <= '9') {
      const two = template[i + 2]
      const twoDigit = two !== undefined && two >= '0' && two <= '9' ? Number(next + two) : NaN
      if (twoDigit >= 1 && twoDigit <= count) {
        out += match.captures[twoDigit - 1] ?? ''
        i += 3
      } else if (Number(next) >= 1 && Number(next) <= count) {
        out += match.captures[Number(next) - 1] ?? ''
        i += 2
      } else {
        out += '$'
        i++
      }
    } else if (next === '<' && match.named !== undefined) {
      const close = template.indexOf('>', i + 2)
      if (close === -1) {
        out += '$<'
        i += 2
      } else {
        out += match.named[template.slice(i + 2, close)] ?? ''
        i = close + 1
      }
    } else {
      out += '$'
      i++
    }
  }
  return out
}
