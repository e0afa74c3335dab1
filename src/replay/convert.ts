// Git's diff of one file turned into a context-only patch (D-078): a Codex patch (context
// lines, no line numbers, git's function context as the `@@` hint) or SEARCH/REPLACE blocks, as
// an agent would write them, so history replay can measure how those formats land on real code.
// Pure: the op comes from the unified parser, the bytes from the replay's tree. A change the
// format cannot state becomes a fallback with its reason (FallbackReason) and replays via
// unified; everything else is converted, whatever the matcher then makes of it.
import { changesWithin, hintScopeEnd } from '../match/scope.js'
import { nameFromLine } from '../parse/search-replace.js'
import { decodeText } from '../text/decode.js'
import { hasLoneCr } from '../text/codex-lines.js'
import { dominantEol, splitLines } from '../text/lines.js'
import { hasLoneSurrogate, hasRawBytes } from '../text/patch-bytes.js'
import type { FileOp, HunkLine, LineHunk } from '../types.js'

export type ContextFormat = 'codex' | 'search-replace'

// The fallbacks: a binary patch, a mode change or a new executable, a symlink, a copy, a
// deletion or rename in SEARCH/REPLACE (no syntax for them), a file that is not plain UTF-8
// (a BOM, invalid bytes), line endings the engine would not write (an added line whose ending is
// not the file's dominant one, a line ending in a lone CR, in Codex any file holding a lone CR),
// a final-newline change the format's rule does not give, a line the format's parser reads as its
// own syntax, and a path the format cannot spell.
/** Why a change went the unified way instead (the report counts each). */
export type FallbackReason =
  | 'binary'
  | 'mode'
  | 'symlink'
  | 'submodule'
  | 'copy'
  | 'delete'
  | 'rename'
  | 'encoding'
  | 'line-endings'
  | 'final-newline'
  | 'syntax'
  | 'path'

export type Conversion =
  | { readonly kind: 'fallback'; readonly reason: FallbackReason }
  | {
      readonly kind: 'converted'
      /** git's hunks of the op, in order (the ones `build` may keep). */
      readonly hunks: number
      /** The patch text for the hunks at `keep` (indexes into git's hunks, ascending). */
      readonly build: (keep: readonly number[]) => Built
    }

export interface Built {
  readonly text: string
  /** Per kept hunk: its 1-based line in `text` (what a MATCH_* error's patchLine names). */
  readonly patchLines: readonly number[]
  // Where each hunk must land is known from git's header: `expected` is the 0-based first line
  // (or insertion index) the matcher reports for it (ComputedFile.placements), in the file as it
  // was for Codex, and in the text the earlier blocks left for SEARCH/REPLACE.
  /** Per kept hunk: where the matcher must place it. */
  readonly expected: readonly number[]
}

const SYMLINK = '120000'
const EXECUTABLE = '100755'

/**
 * `op` (from git's diff, unified parser) as `format` would state it, given the bytes it applies
 * to (`source`, null for a new file) and their git mode.
 *
 * @example
 * const c = convertOp(op, bytes, '100644', 'codex')
 * if (c.kind === 'converted') parsePlan(c.build([0, 1]).text, 'codex')
 */
export function convertOp(
  op: FileOp,
  source: Uint8Array | null,
  sourceMode: string | undefined,
  format: ContextFormat,
): Conversion {
  switch (op.kind) {
    case 'edits':
      throw new Error('convertOp: git diffs have no JSON edits')
    case 'copy':
      return fallback('copy')
    case 'delete':
      if (format === 'search-replace') return fallback('delete')
      if (!pathFits(op.path, format)) return fallback('path')
      return converted(0, () => codexPatch([`*** Delete File: ${op.path}`]))
    case 'add': {
      if (op.binary !== undefined) return fallback('binary')
      if (op.modeAfter === SYMLINK) return fallback('symlink')
      if (op.modeAfter === EXECUTABLE) return fallback('mode')
      if (!pathFits(op.path, format)) return fallback('path')
      const content = op.content
      if (!isPlainText(content)) return fallback('encoding')
      if (content !== '' && !content.endsWith('\n')) return fallback('final-newline')
      const lines = content === '' ? [] : content.slice(0, -1).split('\n')
      // A CRLF ending (or a lone CR before the newline) is a '\r' the format would drop.
      if (lines.some((l) => l.endsWith('\r'))) return fallback('line-endings')
      if (format === 'codex') {
        return converted(0, () =>
          codexPatch([`*** Add File: ${op.path}`, ...lines.map((l) => `+${l}`)]),
        )
      }
      if (lines.some(isSearchReplaceMarker)) return fallback('syntax')
      // One block: an empty SEARCH, which creates the missing file.
      return converted(1, () => ({ ...searchReplaceText(op.path, [[[], lines]]), expected: [0] }))
    }
    case 'update':
      return convertUpdate(op, source, sourceMode, format)
  }
}

function convertUpdate(
  op: Extract<FileOp, { kind: 'update' }>,
  source: Uint8Array | null,
  sourceMode: string | undefined,
  format: ContextFormat,
): Conversion {
  if (op.binary !== undefined) return fallback('binary')
  if (sourceMode === SYMLINK || op.modeAfter === SYMLINK) return fallback('symlink')
  if (op.modeAfter !== undefined && op.modeAfter !== (op.modeBefore ?? sourceMode)) {
    return fallback('mode')
  }
  if (op.moveTo !== undefined && format === 'search-replace') return fallback('rename')
  if (!pathFits(op.path, format) || (op.moveTo !== undefined && !pathFits(op.moveTo, format))) {
    return fallback('path')
  }
  if (source === null) return fallback('encoding')
  const decoded = decodeText(source)
  if (decoded.mode !== 'utf8' || decoded.bom) return fallback('encoding')
  // A Codex patch on a file holding a lone CR applies in Codex's line model (D-144), where CRs end
  // lines and new lines take the first ending: git's result is not what it would state.
  if (format === 'codex' && hasLoneCr(decoded.text)) return fallback('line-endings')
  const fileLines = splitLines(decoded.text)
  const eol = dominantEol(fileLines)
  const hunks = op.hunks
  for (const hunk of hunks) {
    const why = inexpressible(hunk, eol, format)
    if (why !== null) return fallback(why)
  }
  const texts = fileLines.map((l) => l.text)
  if (format === 'codex') {
    const header = [`*** Update File: ${op.path}`]
    if (op.moveTo !== undefined) header.push(`*** Move to: ${op.moveTo}`)
    return converted(hunks.length, (keep) => codexUpdate(header, hunks, keep, texts))
  }
  return converted(hunks.length, (keep) => searchReplaceUpdate(op.path, hunks, keep))
}

/** Why `hunk` cannot be stated in `format` as git wrote it, or null when it can. */
function inexpressible(
  hunk: LineHunk,
  eol: '\n' | '\r\n',
  format: ContextFormat,
): FallbackReason | null {
  for (const line of hunk.lines) {
    if (!isPlainText(line.text)) return 'encoding'
    // The formats carry no line endings: an added line takes the file's dominant one.
    if (line.text.endsWith('\r')) return 'line-endings'
    if (line.op === '+' && (line.eol ?? '\n') !== eol) return 'line-endings'
    // SEARCH/REPLACE tells kept lines from changed ones by their text alone, so a removed line
    // ending otherwise than the file mostly does may be "kept" with its old ending (a commit
    // that turns a mixed file's CRLF lines into LF).
    if (format === 'search-replace' && line.op === '-' && (line.eol ?? '\n') !== eol) {
      return 'line-endings'
    }
  }
  // Codex ends a file it edits at the end with a newline; SEARCH/REPLACE keeps the file's state.
  const oldNo = hunk.oldNoNewlineAtEnd === true
  const newNo = hunk.newNoNewlineAtEnd === true
  if (format === 'codex' ? newNo : oldNo !== newNo) return 'final-newline'
  if (format === 'codex') {
    // The Codex parser reads a context line whose trimmed text is a marker as that marker.
    if (hunk.lines.some((l) => l.op === ' ' && l.text.trim().startsWith('***'))) return 'syntax'
    return null
  }
  const old = hunk.lines.filter((l) => l.op !== '+')
  // An all-blank SEARCH means "append at the end" in SEARCH/REPLACE (Aider's rule too).
  if (old.length > 0 && old.every((l) => l.text.trim() === '')) return 'syntax'
  if (hunk.lines.some((l) => isSearchReplaceMarker(l.text))) return 'syntax'
  return null
}

function codexUpdate(
  header: readonly string[],
  hunks: readonly LineHunk[],
  keep: readonly number[],
  fileLines: readonly string[],
): Built {
  const out = ['*** Begin Patch', ...header]
  const patchLines: number[] = []
  const expected: number[] = []
  // Codex looks for a hint after the previous chunk: a hint line above it (the function two
  // hunks share) cannot be found there, so an author, and this, writes a bare @@ instead.
  let cursor = 0
  for (const index of keep) {
    const hunk = hunks[index] as LineHunk
    const { start, oldCount } = gitSpan(hunk)
    const hint = hintFor(hunk, start, fileLines, cursor)
    patchLines.push(out.length + 1)
    out.push(hint === null ? '@@' : `@@ ${hint}`)
    for (const line of hunk.lines) out.push(line.op + line.text)
    if (oldCount > 0 && start + oldCount === fileLines.length) out.push('*** End of File')
    expected.push(start)
    cursor = start + oldCount
  }
  out.push('*** End Patch')
  return { text: out.join('\n') + '\n', patchLines, expected }
}

function searchReplaceUpdate(
  path: string,
  hunks: readonly LineHunk[],
  keep: readonly number[],
): Built {
  const blocks: Array<[readonly string[], readonly string[]]> = []
  const expected: number[] = []
  // Each block is searched in the text the earlier ones left: git's old start, moved by the
  // lines the kept hunks before it added or removed.
  let shift = 0
  for (const index of keep) {
    const hunk = hunks[index] as LineHunk
    const { start, oldCount, newCount } = gitSpan(hunk)
    blocks.push([sideOf(hunk.lines, '+'), sideOf(hunk.lines, '-')])
    expected.push(start + shift)
    shift += newCount - oldCount
  }
  const built = searchReplaceText(path, blocks)
  return { ...built, expected }
}

/** SEARCH/REPLACE text: the path above each block; `patchLines` are the SEARCH markers. */
function searchReplaceText(
  path: string,
  blocks: ReadonlyArray<readonly [readonly string[], readonly string[]]>,
): Built {
  const name = /\s/.test(path) ? `\`${path}\`` : path
  const out: string[] = []
  const patchLines: number[] = []
  for (const [search, replace] of blocks) {
    out.push(name)
    patchLines.push(out.length + 1)
    out.push('<<<<<<< SEARCH', ...search, '=======', ...replace, '>>>>>>> REPLACE', '')
  }
  return { text: out.join('\n'), patchLines, expected: [] }
}

/** One side of a hunk's lines: without the side's opposite (`drop`) lines. */
function sideOf(lines: readonly HunkLine[], drop: '+' | '-'): string[] {
  const out: string[] = []
  for (const line of lines) if (line.op !== drop) out.push(line.text)
  return out
}

/** Git's placement of a hunk: 0-based first old line (or insertion index), and its counts. */
function gitSpan(hunk: LineHunk): { start: number; oldCount: number; newCount: number } {
  let oldCount = 0
  let newCount = 0
  for (const line of hunk.lines) {
    if (line.op !== '+') oldCount++
    if (line.op !== '-') newCount++
  }
  const stated = hunk.oldStartLine ?? 0
  return { start: oldCount > 0 ? stated - 1 : stated, oldCount, newCount }
}

/**
 * The `@@` hint for a hunk: git's function context, which git takes from the nearest line above
 * the hunk that looks like a definition and cuts to 80 bytes with trailing blanks dropped. A
 * Codex author writes the whole line, so the hint is the nearest line above the hunk that starts
 * with git's text (or holds it, for a diff driver that reports part of a line). None when that
 * line is above `cursor`, the end of the previous chunk, or when its block does not hold the
 * hunk's changes.
 */
function hintFor(
  hunk: LineHunk,
  start: number,
  fileLines: readonly string[],
  cursor: number,
): string | null {
  const section = hunk.section
  if (section === undefined) return null
  const from = Math.min(start, fileLines.length) - 1
  let at = -1
  for (let i = from; i >= 0 && at < 0; i--) if ((fileLines[i] as string).startsWith(section)) at = i
  for (let i = from; i >= 0 && at < 0; i--) if ((fileLines[i] as string).includes(section)) at = i
  if (at < cursor) return null
  // A Codex hint names the block a change is in (D-025). Git's line is the nearest one above
  // that looks like a definition, which after a block's end is the block before the change: as
  // a hint it would point at another block of that name, so it is written only when it holds
  // the change (D-078).
  const end = hintScopeEnd(fileLines, at)
  if (start >= end || !changesWithin(hunk.lines, start, end)) return null
  return (fileLines[at] as string).trimEnd()
}

function codexPatch(body: readonly string[]): Built {
  return {
    text: ['*** Begin Patch', ...body, '*** End Patch'].join('\n') + '\n',
    patchLines: [],
    expected: [],
  }
}

/** A path the format's header line gives back unchanged. */
function pathFits(path: string, format: ContextFormat): boolean {
  if (path.includes('\n') || path.includes('\r') || path.trim() !== path) return false
  if (format === 'codex') return true
  const name = /\s/.test(path) ? `\`${path}\`` : path
  return nameFromLine(name) === path
}

const SR_MARKER = /^\s*(?:<{5,9}\s*SEARCH|={5,9}|>{5,9}\s*REPLACE)\s*$/

function isSearchReplaceMarker(line: string): boolean {
  return SR_MARKER.test(line)
}

/** Text with no raw byte and no lone surrogate: a patch in either format can carry it. */
function isPlainText(text: string): boolean {
  return !hasRawBytes(text) && !hasLoneSurrogate(text)
}

function fallback(reason: FallbackReason): Conversion {
  return { kind: 'fallback', reason }
}

function converted(hunks: number, build: (keep: readonly number[]) => Built): Conversion {
  return { kind: 'converted', hunks, build }
}
