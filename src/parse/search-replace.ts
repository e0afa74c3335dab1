// SEARCH/REPLACE blocks (Aider style) found inside free text, e.g. an LLM reply -> EditPlan.
// Only syntax: locating each block in the file (locate 'sequential') and creating or appending
// for an empty SEARCH are left to src/match and the engine. The grammar, how a block is read and
// the leniencies are stated at parseSearchReplace.
import { errorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import { lineChanges, type LineChange } from '../text/line-diff.js'
import { splitPatchLines } from '../text/lines.js'
import type { EditPlan, HunkLine, LineHunk, UpdateOp } from '../types.js'

const SEARCH_RE = /^\s*<{5,9}\s*SEARCH\s*$/
const DIVIDER_RE = /^\s*={5,9}\s*$/
const REPLACE_RE = /^\s*>{5,9}\s*REPLACE\s*$/
// Backtick info strings cannot contain backticks (CommonMark); tilde fences take anything.
const FENCE_RE = /^\s*(?:`{3,}[^`]*|~{3,}.*)$/
// Aider fences blocks for some models with these tags, opened with an optional language
// (`<source>python`) and closed by the matching tag.
const FENCE_TAG_RE =
  /^\s*(?:<(?:source|code|pre|codeblock|sourcecode)>[\w.+#-]*|<\/(?:source|code|pre|codeblock|sourcecode)>)\s*$/i
// An elision line models write between blocks; never a file name.
const ELISION_RE = /^\s*(?:\.\.\.|\u2026)\s*$/

const DIVIDER_HINT =
  'Give each block exactly one ======= line. When the text itself holds a ======= line (a ' +
  'Markdown or reStructuredText heading underline, a conflict marker), choose a SEARCH that ' +
  'starts below it or ends above it, or send a unified diff or a Codex patch instead.'

interface Block {
  /** 0-based index of the SEARCH marker line. */
  readonly start: number
  readonly path: string
  readonly search: readonly string[]
  readonly replace: readonly string[]
}

// The grammar:
//   block     := name-line? fence-open? SEARCH-marker old-line* DIVIDER new-line* REPLACE-marker
//   SEARCH    := ws? '<'{5,9} ws? 'SEARCH' ws?
//   DIVIDER   := ws? '='{5,9} ws?
//   REPLACE   := ws? '>'{5,9} ws? 'REPLACE' ws?
//   old-line, new-line := any line that is none of the three markers
//   fence     := ``` or ~~~ with an optional info string, or an Aider fence tag: <source>, <code>,
//                <pre>, <codeblock>, <sourcecode> (opening, optionally with a language such as
//                <source>python) and </source> ... (closing)
//   name-line := nearest line above the SEARCH marker, or above its opening fence, that is not
//                blank and not a lone `...` elision; backticks, leading '#', '*'/'**' emphasis, a
//                trailing ':' and spaces are stripped; a sentence (spaces, not wholly quoted) is
//                no name: its one backticked path, if any, is used, else the block reuses the
//                previous block's file (nameFromLine); a fence or `...` line is never a name
// A block is read by structure: it ends at the first REPLACE marker and holds exactly one
// DIVIDER. A second DIVIDER line (a Markdown/RST heading underline, a conflict marker, a doubled
// divider) makes the block ambiguous, and the parser, which has no file to try readings against,
// refuses it with PARSE_BAD_LINE at that line (D-030); a SEARCH marker inside a block is
// PARSE_UNTERMINATED.
// Leniencies, each with the scenario that pins it:
//   - marker lengths 5..9 (208, 209); padded markers (208);
//   - CRLF text reads like LF (unit test "reads CRLF text like LF text");
//   - the name above a code fence or on the first line inside it (202);
//   - Markdown decoration around the name (203); a sentence is no name (219);
//   - a block with no name line reuses the previous block's file (204);
//   - Aider fence tags are passed over looking for the name (932-936);
//   - `...` elision lines are passed over looking for the name (937);
//   - a SEARCH of only blank lines counts as empty (205, 206; Aider does the same).
/**
 * Parses every SEARCH/REPLACE block in `text` into one UpdateOp per file (order of first
 * appearance), each block a LineHunk located sequentially.
 *
 * @example
 * parseSearchReplace('a.ts\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n')
 */
export function parseSearchReplace(text: string): Result<EditPlan> {
  const lines = splitPatchLines(text)
  const blocks: Block[] = []
  // Lines at or before this index belong to the previous block (its REPLACE marker).
  let floor = -1
  let i = 0
  while (i < lines.length) {
    const line = lines[i] as string
    if (REPLACE_RE.test(line)) {
      return fail(
        errorData(
          'PARSE_BAD_LINE',
          `Line ${i + 1} is a REPLACE marker without a SEARCH marker before it.`,
          { patchLine: i + 1 },
        ),
      )
    }
    if (!SEARCH_RE.test(line)) {
      i++
      continue
    }
    const start = i
    const named = findName(lines, start, floor)
    const previous = blocks[blocks.length - 1]
    const path = named ?? previous?.path
    if (path === undefined) {
      return fail(
        errorData(
          'PARSE_BAD_HEADER',
          `The SEARCH block at line ${start + 1} has no file name on the line above it ` +
            '(or above its code fence).',
          { patchLine: start + 1 },
        ),
      )
    }
    const body = readBlock(lines, start)
    if (!body.ok) {
      const patchLine = body.error.patchLine ?? start + 1
      return fail({ ...body.error, path, patchLine })
    }
    const { search, replace, end } = body.value
    blocks.push({ start, path, search, replace })
    floor = end
    i = end + 1
  }
  if (blocks.length === 0) {
    const message = 'The input has no <<<<<<< SEARCH / ======= / >>>>>>> REPLACE block.'
    return fail(errorData('PARSE_EMPTY_HUNK', message))
  }
  return ok({ format: 'search-replace', ops: toOps(blocks) })
}

// Two dividers make a block ambiguous, and the parser has no file to try readings against:
// DECISIONS.md D-030.
/**
 * Reads one block starting at its SEARCH marker; `end` is the REPLACE marker's index. The block
 * runs to the first REPLACE marker and must hold exactly one divider: with two or more, no
 * reading is certain, so the block is refused at its second divider.
 */
function readBlock(
  lines: readonly string[],
  start: number,
): Result<{ search: string[]; replace: string[]; end: number }> {
  const dividers: number[] = []
  let end: number | undefined
  for (let j = start + 1; j < lines.length; j++) {
    const line = lines[j] as string
    if (SEARCH_RE.test(line)) {
      // Marker text inside a section, or a block that never ended: either way, unreadable.
      const message =
        `The SEARCH block at line ${start + 1} has no >>>>>>> REPLACE marker before the next ` +
        `<<<<<<< SEARCH marker at line ${j + 1}.`
      return fail(errorData('PARSE_UNTERMINATED', message))
    }
    if (REPLACE_RE.test(line)) {
      end = j
      break
    }
    if (DIVIDER_RE.test(line)) dividers.push(j)
  }
  const divider = dividers[0]
  if (end === undefined || divider === undefined) {
    const missing = divider === undefined ? '=======' : '>>>>>>> REPLACE'
    const message = `The SEARCH block at line ${start + 1} has no ${missing} marker.`
    return fail(errorData('PARSE_UNTERMINATED', message))
  }
  const second = dividers[1]
  if (second !== undefined) {
    const at = dividers.map((d) => d + 1).join(', ')
    const message =
      `The SEARCH block at line ${start + 1} has ${dividers.length} ======= lines (lines ${at}), ` +
      `so which one divides SEARCH from REPLACE is ambiguous; a block holds exactly one.`
    return fail(errorData('PARSE_BAD_LINE', message, { hint: DIVIDER_HINT, patchLine: second + 1 }))
  }
  return ok({
    search: lines.slice(start + 1, divider) as string[],
    replace: lines.slice(divider + 1, end) as string[],
    end,
  })
}

/**
 * The file name for the block whose SEARCH marker is at `start`, or undefined when the block has
 * none. Only lines after `floor` (the previous block's REPLACE marker) are considered. Blank and
 * `...` lines are passed over, and so is one opening fence (Markdown or an Aider fence tag).
 */
function findName(lines: readonly string[], start: number, floor: number): string | undefined {
  let j = previousNamable(lines, start - 1, floor)
  if (j === undefined) return undefined
  if (isFence(lines[j] as string)) {
    j = previousNamable(lines, j - 1, floor)
    // Above the opening fence: nothing, or the previous block's closing fence.
    if (j === undefined || isFence(lines[j] as string)) return undefined
  }
  return nameFromLine(lines[j] as string)
}

function isFence(line: string): boolean {
  return FENCE_RE.test(line) || FENCE_TAG_RE.test(line)
}

/**
 * The file name a name line gives, or undefined when the line is prose. A line whose cleaned
 * text has spaces names a file only when it is wholly wrapped in backticks or quotes
 * (`dir with space/a.ts`); otherwise it is a sentence such as "Now also change this:", and the
 * one backticked path in it, if there is exactly one, is the name. Taking a sentence as a name
 * would, with an empty SEARCH, create a file called "And add a footer".
 */
export function nameFromLine(line: string): string | undefined {
  if (isFence(line) || ELISION_RE.test(line)) return undefined
  const cleaned = cleanName(line)
  if (cleaned === '') return undefined
  if (!/\s/.test(cleaned)) return unquote(cleaned)
  const core = line.replace(/^[\s#*]+/, '').replace(/[\s*:]+$/, '')
  if (/^(?:`[^`]+`|"[^"]+"|'[^']+')$/.test(core)) return unquote(cleaned).trim() || undefined
  const spans = [...line.matchAll(/`([^`\s]+)`/g)].map((m) => m[1] as string)
  const paths = spans.filter((span) => /[./]/.test(span))
  return spans.length === 1 && paths.length === 1 ? paths[0] : undefined
}

function unquote(name: string): string {
  const quoted = /^(["'])(.+)\1$/.exec(name)
  return quoted === null ? name : (quoted[2] as string)
}

/** The nearest line at or above `from` (and above `floor`) that is neither blank nor `...`. */
function previousNamable(
  lines: readonly string[],
  from: number,
  floor: number,
): number | undefined {
  for (let j = from; j > floor; j--) {
    const line = lines[j] as string
    if (line.trim() !== '' && !ELISION_RE.test(line)) return j
  }
  return undefined
}

/** Strips Markdown decoration models put around file names: `#`, `**`, backticks, a colon. */
export function cleanName(line: string): string {
  let name = line
  for (;;) {
    const next = name.replace(/^[\s#*`]+/, '').replace(/[\s*`:]+$/, '')
    if (next === name) return name
    name = next
  }
}

function toOps(blocks: readonly Block[]): UpdateOp[] {
  const byPath = new Map<string, Block[]>()
  for (const block of blocks) {
    const list = byPath.get(block.path)
    if (list === undefined) byPath.set(block.path, [block])
    else list.push(block)
  }
  const ops: UpdateOp[] = []
  for (const [path, list] of byPath) {
    const first = list[0] as Block
    ops.push({
      kind: 'update',
      path,
      patchLine: first.start + 1,
      hunks: list.map(toHunk),
      locate: 'sequential',
      createIfMissing: isEmptySearch(first.search),
    })
  }
  return ops
}

/** Common head and tail as context, everything between removed then added. */
function wholesale(block: Block): HunkLine[] {
  const { search, replace } = block
  let head = 0
  while (head < search.length && head < replace.length && search[head] === replace[head]) head++
  let tail = 0
  while (
    tail < search.length - head &&
    tail < replace.length - head &&
    search[search.length - 1 - tail] === replace[replace.length - 1 - tail]
  ) {
    tail++
  }
  const context = (text: string): HunkLine => ({ op: ' ', text })
  return [
    ...search.slice(0, head).map(context),
    ...search.slice(head, search.length - tail).map((text): HunkLine => ({ op: '-', text })),
    ...replace.slice(head, replace.length - tail).map((text): HunkLine => ({ op: '+', text })),
    ...search.slice(search.length - tail).map(context),
  ]
}

function isEmptySearch(search: readonly string[]): boolean {
  return search.every((line) => line.trim() === '')
}

function toHunk(block: Block): LineHunk {
  const lines = hunkLines(block)
  const alt = otherPairing(block, lines)
  return {
    patchLine: block.start + 1,
    hints: [],
    endOfFile: false,
    lines,
    ...(alt === null ? {} : { altLines: alt }),
  }
}

/**
 * Bounds the line diff between a block's SEARCH and REPLACE sides. Past it (large blocks that
 * change most of their lines), the diff's cost grows with size times edits, so only the common
 * head and tail become context and the middle is replaced wholesale: the same result, with the
 * file's own bytes kept for fewer unchanged lines. PERF: bench/parse.bench.ts (10k-line block).
 */
const MAX_BLOCK_EDIT_LENGTH = 200

/** Common lines become context; within each change, removals come before additions. */
function hunkLines(block: Block): HunkLine[] {
  if (isEmptySearch(block.search)) return block.replace.map((text) => ({ op: '+', text }))
  const changes = lineChanges(block.search, block.replace, 'first', MAX_BLOCK_EDIT_LENGTH)
  if (changes === undefined) return wholesale(block)
  return linesOf(changes)
}

/**
 * The same diff with its ties broken the other way (a line repeated on both sides pairs with its
 * last copy, not its first), when that pairs other lines as context; null otherwise. The
 * engine refuses a block whose two pairings write different bytes after a lenient match, where
 * context lines take the file's text.
 */
// DECISIONS.md D-150.
function otherPairing(block: Block, lines: readonly HunkLine[]): HunkLine[] | null {
  if (!lines.some((l) => l.op === ' ') || lines.every((l) => l.op === ' ')) return null
  const changes = lineChanges(block.search, block.replace, 'last', MAX_BLOCK_EDIT_LENGTH)
  if (changes === undefined) return null
  const alt = linesOf(changes)
  const same =
    alt.length === lines.length &&
    alt.every(
      (l, i) => l.op === (lines[i] as HunkLine).op && l.text === (lines[i] as HunkLine).text,
    )
  return same ? null : alt
}

function linesOf(changes: readonly LineChange[]): HunkLine[] {
  const out: HunkLine[] = []
  let removed: HunkLine[] = []
  let added: HunkLine[] = []
  const flush = (): void => {
    out.push(...removed, ...added)
    removed = []
    added = []
  }
  for (const change of changes) {
    if (change.removed === true) for (const text of change.value) removed.push({ op: '-', text })
    else if (change.added === true) for (const text of change.value) added.push({ op: '+', text })
    else {
      flush()
      for (const text of change.value) out.push({ op: ' ', text })
    }
  }
  flush()
  return out
}
