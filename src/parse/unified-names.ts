// File names in unified diff headers: `diff --git` name pairs, `---`/`+++` names with their
// timestamps (found at the end of a traditional header, as git finds them), C-style unquoting,
// the strip level, which file a traditional pair names, and `diff -N` epoch stamps as git reads
// them. Also `clip`, how a header or patch line is quoted back in an error message. Knows nothing
// of hunks or of which op a header becomes; that is src/parse/unified.ts.
//   name = /dev/null | unquoted text
//        | C-quoted "..." (\t \n \" \\ \a \b \f \r \v, and \ooo octal bytes read as UTF-8;
//          bytes that are not UTF-8 stay raw bytes, refused in a path by raw-bytes.ts)
import { errorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import { decodePatchBytes } from '../text/patch-bytes.js'

export const DEV_NULL = '/dev/null'
// The stamp git takes for `diff -N`'s epoch (hasEpochTimestamp): a day next to the epoch, a time
// on a whole minute, and a zone ending the line.
const EPOCH_STAMP_RE =
  /^(1969-12-31|1970-01-01) ([0-2]\d):([0-5]\d):00(?:\.0+)? ([-+])([0-2]\d):?([0-5]\d)$/
// A traditional header's trailing timestamp, found from the end of the line as git finds it: a
// date ([YY]YY-MM-DD), then optionally a time (HH:MM:SS[.fraction]) and a zone (+HHMM or
// +HH:MM), after a tab or after spaces (tools that write spaces, or whitespace damage).
const TRAILING_STAMP_RE =
  /(?:\t| +)((?:\d\d)?\d\d-\d\d-\d\d(?: \d\d:\d\d:\d\d(?:\.\d+)?)?(?: [+-](?:\d{4}|\d\d:\d\d))?)$/

const utf8Encoder = new TextEncoder()

export interface ParsedName {
  readonly name: string
  /** Whatever followed the name after a TAB (a timestamp in traditional diffs), else ''. */
  readonly stamp: string
}

/**
 * How a header name ends: 'none' at the end of the line (rename/copy lines); 'tab' at the first
 * TAB (git's own ---/+++ lines); 'traditional' before a trailing timestamp when the line has one,
 * else at the first TAB, as git reads `diff -u` headers: the name may then hold tabs and
 * spaces, and the timestamp may follow spaces instead of a tab.
 */
export type NameEnd = 'none' | 'tab' | 'traditional'

/** Parses a header name: C-quoted, or plain up to where `end` says it ends. */
export function parseName(rest: string, end: NameEnd): ParsedName | null {
  const withStamp = end !== 'none'
  if (rest.startsWith('"')) {
    const quoted = unquoteC(rest, 0)
    if (quoted === null || quoted.name === '') return null
    const tail = rest.slice(quoted.end)
    if (!withStamp && tail.trim() !== '') return null
    return { name: quoted.name, stamp: tail.replace(/^\s+/, '') }
  }
  if (end === 'traditional') {
    const stamp = TRAILING_STAMP_RE.exec(rest)
    const name = stamp === null ? '' : rest.slice(0, stamp.index).trimEnd()
    if (stamp !== null && name !== '') return { name, stamp: stamp[1] as string }
  }
  const tab = withStamp ? rest.indexOf('\t') : -1
  const name = (tab === -1 ? rest : rest.slice(0, tab)).trimEnd()
  if (name === '') return null
  return { name, stamp: tab === -1 ? '' : rest.slice(tab + 1) }
}

/**
 * Parses the names of the `--- ` line at `start` and the `+++ ` line after it (the caller has
 * checked both prefixes). `path`, when known, labels the error; `end` is 'traditional' outside
 * a `diff --git` section.
 */
export function parseHeaderPair(
  lines: readonly string[],
  start: number,
  path?: string,
  end: NameEnd = 'tab',
): Result<{ readonly old: ParsedName; readonly new: ParsedName }> {
  const oldSide = parseName((lines[start] as string).slice(4), end)
  const newSide = parseName((lines[start + 1] as string).slice(4), end)
  if (oldSide === null || newSide === null) {
    const at = oldSide === null ? start : start + 1
    return fail(
      errorData(
        'PARSE_BAD_HEADER',
        `The file name at patch line ${at + 1} is missing or badly quoted.`,
        { ...(path === undefined ? {} : { path }), patchLine: at + 1 },
      ),
    )
  }
  return ok({ old: oldSide, new: newSide })
}

/**
 * Splits the names after `diff --git `. Git quotes a name only when it must, so the names may be
 * unquoted with spaces inside; ---/+++ and rename/copy lines override what is found here.
 */
export function splitGitNames(rest: string): { old: string; new: string } | null {
  if (rest.startsWith('"')) {
    const first = unquoteC(rest, 0)
    if (first === null) return null
    const tail = rest.slice(first.end).replace(/^ +/, '')
    const second = tail.startsWith('"') ? (unquoteC(tail, 0)?.name ?? null) : tail
    return second === null || second === '' ? null : { old: first.name, new: second }
  }
  if (rest.endsWith('"')) {
    for (let at = rest.indexOf(' "'); at !== -1; at = rest.indexOf(' "', at + 1)) {
      const second = unquoteC(rest, at + 1)
      if (second !== null && second.end === rest.length && at > 0) {
        return { old: rest.slice(0, at), new: second.name }
      }
    }
    return null
  }
  // Unquoted: `a/X b/X` splits in the middle when both halves name the same file.
  if (rest.length % 2 === 1) {
    const middle = (rest.length - 1) / 2
    const left = rest.slice(0, middle)
    const right = rest.slice(middle + 1)
    if (rest[middle] === ' ' && dropFirstComponent(left) === dropFirstComponent(right)) {
      return { old: left, new: right }
    }
  }
  const at = rest.indexOf(' b/')
  const split = at > 0 ? at : rest.indexOf(' ')
  if (split <= 0 || split === rest.length - 1) return null
  return { old: rest.slice(0, split), new: rest.slice(split + 1) }
}

function dropFirstComponent(name: string): string {
  const slash = name.indexOf('/')
  return slash === -1 ? name : name.slice(slash + 1)
}

export function stripPrefix(name: string, prefix: string, prefixed: boolean): string {
  return prefixed && name.startsWith(prefix) ? name.slice(prefix.length) : name
}

/**
 * Strip level for traditional headers (leniency): a/ and b/ prefixes are dropped; names that
 * differ only in their first component (orig/src/x.c vs new/src/x.c) lose it; anything else is
 * kept as written. /dev/null becomes null.
 */
export function stripPlainNames(
  oldName: string,
  newName: string,
): { old: string | null; new: string | null } {
  const oldReal = oldName === DEV_NULL ? null : oldName
  const newReal = newName === DEV_NULL ? null : newName
  const hasPrefix = (name: string | null, prefix: string): boolean =>
    name === null || name.startsWith(prefix)
  if (hasPrefix(oldReal, 'a/') && hasPrefix(newReal, 'b/')) {
    return { old: oldReal?.slice(2) ?? null, new: newReal?.slice(2) ?? null }
  }
  if (oldReal !== null && newReal !== null) {
    const oldSlash = oldReal.indexOf('/')
    const newSlash = newReal.indexOf('/')
    if (
      oldSlash > 0 &&
      newSlash > 0 &&
      oldReal.slice(0, oldSlash) !== newReal.slice(0, newSlash) &&
      oldReal.slice(oldSlash + 1) === newReal.slice(newSlash + 1) &&
      oldReal.slice(oldSlash + 1) !== ''
    ) {
      return { old: oldReal.slice(oldSlash + 1), new: newReal.slice(newSlash + 1) }
    }
  }
  return { old: oldReal, new: newReal }
}

/**
 * The one file a traditional header pair names (both names real, strip level applied), as git
 * picks it: the +++ name, unless the --- name is shorter and the +++ name starts with it, as in
 * `diff -u f f.new` (f, not f.new). `--- f.orig` / `+++ f` names f either way.
 */
export function traditionalName(oldName: string, newName: string): string {
  return oldName.length < newName.length && newName.startsWith(oldName) ? oldName : newName
}

/**
 * Whether a traditional `--- `/`+++ ` line (`rest`, the text after that prefix) carries the epoch
 * timestamp `diff -N` writes for a file that does not exist, read exactly as git reads it: after
 * the line's last TAB, the date 1969-12-31 or 1970-01-01, then hh:mm:00 (a fraction only of
 * zeros), one space and a zone (+hhmm or +hh:mm) that ends the line, together naming the epoch
 * instant in that zone (`1970-01-01 09:00:00 +0900`, `1969-12-31 16:00:00 -08:00`). Anything
 * else (no zone, spaces instead of the TAB, a ctime date) is no epoch: such a side's file is
 * then judged by whether it exists (unified.ts parsePlainSection).
 */
export function hasEpochTimestamp(rest: string): boolean {
  const tab = rest.lastIndexOf('\t')
  if (tab === -1) return false
  const stamp = EPOCH_STAMP_RE.exec(rest.slice(tab + 1))
  if (stamp === null) return false
  const [, date, hour, minute, sign, zoneHours, zoneMinutes] = stamp
  const zone = (sign === '-' ? -1 : 1) * (Number(zoneHours) * 60 + Number(zoneMinutes))
  const epochMinutes = date === '1969-12-31' ? 24 * 60 : 0
  return Number(hour) * 60 + Number(minute) - zone === epochMinutes
}

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 34,
  '\\': 92,
}

/** Decodes a C-style quoted name starting at `start` (a '"'); escapes give bytes, read as UTF-8. */
function unquoteC(text: string, start: number): { name: string; end: number } | null {
  const bytes: number[] = []
  let index = start + 1
  while (index < text.length) {
    const c = text[index] as string
    // Octal escapes may spell bytes that are not UTF-8 (git quotes a Latin-1 name that way); they
    // stay raw bytes, which src/parse/raw-bytes.ts refuses in a path, never U+FFFD.
    if (c === '"') return { name: decodePatchBytes(Uint8Array.from(bytes)).text, end: index + 1 }
    if (c !== '\\') {
      const code = c.codePointAt(0) as number
      if (code < 0x80) bytes.push(code)
      else bytes.push(...utf8Encoder.encode(String.fromCodePoint(code)))
      index += code > 0xffff ? 2 : 1
      continue
    }
    const e = text[index + 1]
    if (e === undefined) return null
    const simple = SIMPLE_ESCAPES[e]
    if (simple !== undefined) {
      bytes.push(simple)
      index += 2
      continue
    }
    const octal = text.slice(index + 1, index + 4)
    if (!/^[0-3][0-7][0-7]$/.test(octal)) return null
    bytes.push(parseInt(octal, 8))
    index += 4
  }
  return null
}

/** A patch line as quoted in an error message: at most 60 characters. */
export function clip(line: string): string {
  return line.length > 60 ? `${line.slice(0, 60)}...` : line
}
