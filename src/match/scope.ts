// The scope of a Codex `@@` hint: the lines a hunk under that hint may use (DECISIONS.md D-025).
// A hint names a place; the hunk must land inside what starts there, not anywhere below it.
// Scopes are read from indentation alone (so Python and brace languages get one rule) plus a
// few closing tokens; nothing here parses a language. hintScopeEnd states the rule;
// changesWithin tells whether a hunk placed in a scope changes only lines inside it.
// PERF: per file, the next-shallower/next-not-deeper tables are built once (O(n), stack based)
// and cached against the lines array, so a hint that matches thousands of lines stays linear.
import type { HunkLine } from '../types.js'

/** Columns of a line's leading whitespace; -1 for a blank line. */
function indentOf(text: string): number {
  let cols = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 32) cols++
    else if (c === 9) cols = cols - (cols % 8) + 8
    else return cols
  }
  return -1
}

/** indentOf, but -1 for a `#` line too: such lines never end a scope (see hintScopeEnd). */
function structuralIndentOf(text: string): number {
  const cols = indentOf(text)
  return cols >= 0 && text.trimStart().startsWith('#') ? -1 : cols
}

const CLOSER_RE = /^(?:[})\]]|<\/|(?:end|fi|done|esac)\b)/

function isCloser(text: string): boolean {
  return CLOSER_RE.test(text.trimStart())
}

interface ScopeTables {
  readonly indent: Int32Array
  /** First non-blank line after i with indent < indent[i] (lines.length when none). */
  readonly nextShallower: Int32Array
  /** First non-blank line after i with indent <= indent[i]. */
  readonly nextNotDeeper: Int32Array
  /** First non-blank line after i (lines.length when none). */
  readonly nextNonBlank: Int32Array
  /** For a line at level L: where a run of closers at L starting there ends (see closerRunEnd). */
  readonly closerEnd: Int32Array
}

const tablesCache = new WeakMap<readonly string[], ScopeTables>()

function tablesFor(lines: readonly string[]): ScopeTables {
  const cached = tablesCache.get(lines)
  if (cached !== undefined) return cached
  const n = lines.length
  const indent = new Int32Array(n)
  for (let i = 0; i < n; i++) indent[i] = structuralIndentOf(lines[i] as string)
  const nextShallower = new Int32Array(n).fill(n)
  const nextNotDeeper = new Int32Array(n).fill(n)
  const nextNonBlank = new Int32Array(n).fill(n)
  // Two monotonic stacks of non-blank line numbers ("next smaller element").
  const lt: number[] = []
  const le: number[] = []
  let lastNonBlank = n
  for (let j = n - 1; j >= 0; j--) {
    nextNonBlank[j] = lastNonBlank
    if ((indent[j] as number) >= 0) lastNonBlank = j
  }
  for (let j = 0; j < n; j++) {
    const w = indent[j] as number
    if (w < 0) continue
    while (lt.length > 0 && (indent[lt[lt.length - 1] as number] as number) > w) {
      nextShallower[lt.pop() as number] = j
    }
    while (le.length > 0 && (indent[le[le.length - 1] as number] as number) >= w) {
      nextNotDeeper[le.pop() as number] = j
    }
    lt.push(j)
    le.push(j)
  }
  // closerEnd[j] for a non-blank line j: j itself unless j is a closer; then the end of the run
  // of closers at j's level that follow (each with its deeper lines), computed back to front.
  const closerEnd = new Int32Array(n).fill(n)
  for (let j = n - 1; j >= 0; j--) {
    const w = indent[j] as number
    if (w < 0 || !isCloser(lines[j] as string)) {
      closerEnd[j] = j
      continue
    }
    const k = nextNotDeeper[j] as number
    closerEnd[j] = k >= n ? n : (indent[k] as number) === w ? (closerEnd[k] as number) : k
  }
  const tables = { indent, nextShallower, nextNotDeeper, nextNonBlank, closerEnd }
  tablesCache.set(lines, tables)
  return tables
}

/**
 * The exclusive end of the scope of the hint on line `p` (0-based) of `lines`. The scope always
 * contains line p itself. With I the indentation of line p:
 *   - block hint (the next non-blank line is deeper than I, or is a lone `{` at I, as in Allman
 *     style): p, every later line that is blank or deeper than I, and every line at I that starts
 *     with a closer (`}` `)` `]`, `end`, `fi`, `done`, `esac`, `</`), which closes or continues
 *     the construct (`}`, `} else {`, the `):` of a multi-line signature); it ends before the
 *     first other non-blank line at or below I.
 *   - other hints (a statement, a comment, an INI `[section]`): p to the end of the enclosing
 *     block, i.e. before the first non-blank line shallower than I, plus that line when it is a
 *     closer. At indentation 0 that is the end of the file, which is Codex's own behaviour.
 * Blank lines, and lines starting with `#` other than the hint itself (C preprocessor lines and
 * comments, which sit at column 0 inside functions), never end a scope: Python's tokenizer
 * ignores comment lines' indentation too. Other text at column 0 inside a block (a docstring's
 * or heredoc's lines, a C goto label) does end it, so a hunk past it is refused
 * (MATCH_NOT_FOUND). Columns count a tab as reaching the next multiple of 8.
 *
 * @example
 * hintScopeEnd(['def g():', '    a', '', 'def h():', '    a'], 0) // 3
 */
export function hintScopeEnd(lines: readonly string[], p: number): number {
  const n = lines.length
  if (p < 0 || p >= n) return Math.max(0, Math.min(p + 1, n))
  const t = tablesFor(lines)
  const level = indentOf(lines[p] as string)
  if (level < 0) return p + 1
  if ((t.indent[p] as number) < 0) return transparentHintEnd(lines, t, p, level)
  const q = t.nextNonBlank[p] as number
  const qLevel = q < n ? (t.indent[q] as number) : -1
  let opener = -1
  if (q < n && qLevel > level) opener = p
  else if (q < n && qLevel === level && (lines[q] as string).trim() === '{') opener = q
  if (opener >= 0) {
    const k = t.nextNotDeeper[opener] as number
    if (k >= n) return n
    return (t.indent[k] as number) === level ? (t.closerEnd[k] as number) : k
  }
  const e = t.nextShallower[p] as number
  return e < n && isCloser(lines[e] as string) ? e + 1 : e
}

/**
 * hintScopeEnd for a `#` hint line, which the tables skip: the same rule by a forward scan.
 * PERF: such hints (Markdown headings, comments) are rare and their blocks short; an
 * unindented one that opens no block ends at the end of the file without a scan.
 */
function transparentHintEnd(
  lines: readonly string[],
  t: ScopeTables,
  p: number,
  level: number,
): number {
  const n = lines.length
  const q = t.nextNonBlank[p] as number
  const opens = q < n && (t.indent[q] as number) > level
  if (!opens && level === 0) return n
  for (let j = q; j < n; j = t.nextNonBlank[j] as number) {
    const w = t.indent[j] as number
    if (opens ? w > level : w >= level) continue
    if (w === level && isCloser(lines[j] as string)) return t.closerEnd[j] as number
    return !opens && isCloser(lines[j] as string) ? j + 1 : j
  }
  return n
}

/**
 * Whether a hunk placed at `start` changes only lines inside [.., end): its removed lines lie
 * before `end` and its added lines go in at `end` at the latest. Context may run past the
 * scope's end (models often quote the next function's first line as trailing context).
 */
export function changesWithin(lines: readonly HunkLine[], start: number, end: number): boolean {
  let fileIndex = start
  for (const line of lines) {
    if (line.op === '+') {
      if (fileIndex > end) return false
    } else {
      if (line.op === '-' && fileIndex >= end) return false
      fileIndex++
    }
  }
  return true
}
