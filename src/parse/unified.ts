// Unified diff -> EditPlan (format 'unified'): what `git diff [--binary]`, `git format-patch` and
// `diff -u` / `diff -ruN` write. Syntax only: locating hunks is src/match/, applying binary data is
// src/apply/git-binary.ts, and path safety (.., duplicates, deny globs) is the engine's job.
//
//   patch      = { junk } file { { junk } file } { junk }
//   file       = git-file | plain-file
//   git-file   = "diff --git " name " " name NL { ext-header NL }
//                [ "--- " name NL "+++ " name NL hunk { hunk } | binary ]
//   ext-header = ("old mode" | "new mode" | "deleted file mode" | "new file mode") " " mode
//              | ("rename from" | "rename to" | "copy from" | "copy to") " " name
//              | ("similarity index" | "dissimilarity index") " " N "%"
//              | "index " hex ".." hex [" " mode]
//   plain-file = "--- " name [TAB stamp] NL "+++ " name [TAB stamp] NL hunk { hunk }
//   hunk       = "@@ -" a ["," b] " +" c ["," d] " @@" [section] NL { body-line }
//   body-line  = (" " | "-" | "+") text NL | "\" text NL          (\ No newline at end of file)
//   binary     = "GIT binary patch" NL bin-hunk [ bin-hunk ]
//   bin-hunk   = ("literal" | "delta") " " size NL { base85-line NL } [ "" NL ]
//   name       = /dev/null | unquoted text
//              | C-quoted "..." (\t \n \" \\ \a \b \f \r \v, and \ooo octal bytes read as UTF-8)
//
// Leniencies (each pinned by a test in test/unit/parse/unified.test.ts):
// - junk lines (commit messages, email headers, `Index:`, `====`, `Only in ...`, `diff -ruN ...`,
//   a `-- ` signature, a `--- ` line not followed by `+++ ` or a hunk) before, between and after
//   files are ignored;
// - CRLF patch text (splitPatchLines drops one '\r' per line);
// - wrong hunk counts: when the body does not agree with them, the hunk is recounted from the body
//   and ends at the first line that cannot be a hunk line, a `diff ` line, an `@@ ` line, a
//   `--- `/`+++ ` pair, or a `-- ` signature; trailing empty lines are then not part of it;
// - an empty line inside a hunk is an empty context line (whitespace-stripped patches);
// - blank lines between the hunks of one file; hunks directly after `diff --git` without ---/+++;
// - strip level: a/ and b/ prefixes are dropped; traditional names that differ only in their
//   first component (orig/src/x.c vs new/src/x.c) lose it; anything else is kept as written;
// - `diff -N` creations and deletions: an epoch timestamp (1970-01-01) on a side whose range is
//   0,0 means that side's file does not exist.
import { errorData, type EditErrorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import { splitPatchLines } from '../text/lines.js'
import type {
  AddOp,
  BinaryHunk,
  BinaryPatch,
  CopyOp,
  DeleteOp,
  EditPlan,
  FileMode,
  FileOp,
  HunkLine,
  LineHunk,
  UpdateOp,
} from '../types.js'
import { decodeBase85Line } from './base85.js'

const DEV_NULL = '/dev/null'
const HUNK_HEADER_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(?: .*)?$/
const BINARY_DIFFER_RE = /^Binary files (.+) and (.+) differ$/
const BINARY_HUNK_RE = /^(literal|delta) (\d+)$/
const MODE_RE = /^[0-7]{1,6}$/
// The epoch in ISO form (diff -u) or ctime form (diff -c era), in any time zone.
const EPOCH_RE =
  /^(?:1970-01-01|1969-12-31)[ T]\d\d:\d\d:\d\d|(?:Jan\s+1|Dec\s+31) \d\d:\d\d:\d\d (?:1970|1969)/

const UNIFIED_EMPTY_HINT =
  'Give each file "--- a/path" and "+++ b/path" headers, then @@ hunks with at least one line.'

const utf8 = new TextDecoder('utf-8')
const utf8Encoder = new TextEncoder()

/**
 * Parses a unified diff (git or traditional) into an EditPlan. Never throws for bad input.
 *
 * @example
 * const plan = parseUnifiedDiff(execFileSync('git', ['diff', '--binary'], { encoding: 'utf8' }))
 */
export function parseUnifiedDiff(text: string): Result<EditPlan> {
  const lines = splitPatchLines(text)
  const ops: FileOp[] = []
  let index = 0
  while (index < lines.length) {
    const line = lines[index] as string
    let section: Result<Section> | null = null
    if (line.startsWith('diff --git ')) {
      section = parseGitSection(lines, index)
    } else if (line.startsWith('--- ')) {
      const following = lines[index + 1] ?? ''
      // A lone `--- ` line is prose (commit messages have them) unless a hunk follows it.
      if (!following.startsWith('+++ ')) {
        if (!following.startsWith('@@ -')) {
          index++
          continue
        }
        return fail(
          errorData(
            'PARSE_BAD_HEADER',
            `The file header "${clip(line)}" at patch line ${index + 1} is not followed by a "+++ " line.`,
            { patchLine: index + 1 },
          ),
        )
      }
      section = parsePlainSection(lines, index)
    } else if (BINARY_DIFFER_RE.test(line)) {
      return fail(binaryWithoutData(line, index))
    } else if (line === 'GIT binary patch' || line.startsWith('@@ -')) {
      return fail(
        errorData(
          'PARSE_BAD_HEADER',
          `"${clip(line)}" at patch line ${index + 1} has no file header ("diff --git" or "---"/"+++") before it.`,
          { patchLine: index + 1 },
        ),
      )
    }
    if (section === null) {
      index++
      continue
    }
    if (!section.ok) return section
    ops.push(section.value.op)
    index = section.value.next
  }
  if (ops.length === 0) {
    return fail(
      errorData(
        'PARSE_EMPTY_HUNK',
        'No file changes found: the text has no "diff --git" line and no "---"/"+++" header pair.',
        { hint: UNIFIED_EMPTY_HINT, ...(lines.length === 0 ? {} : { patchLine: 1 }) },
      ),
    )
  }
  return ok({ format: 'unified', ops })
}

interface Section {
  readonly op: FileOp
  /** 0-based index of the first line after the section. */
  readonly next: number
}

interface Hunks {
  readonly hunks: LineHunk[]
  readonly next: number
}

// ---------------------------------------------------------------------------------------------
// git sections

type GitHeaderKey =
  | 'oldMode'
  | 'newMode'
  | 'newFileMode'
  | 'deletedFileMode'
  | 'renameFrom'
  | 'renameTo'
  | 'copyFrom'
  | 'copyTo'

// Extended header lines; key null = recognised and skipped. Git also checks a binary patch's
// preimage against the `index` blob id; that needs SHA-1, so here only a delta's stated source
// size guards the preimage (src/apply/git-binary.ts).
const EXTENDED_HEADERS: readonly {
  readonly prefix: string
  readonly key: GitHeaderKey | null
  readonly kind: 'mode' | 'name'
}[] = [
  { prefix: 'old mode ', key: 'oldMode', kind: 'mode' },
  { prefix: 'new mode ', key: 'newMode', kind: 'mode' },
  { prefix: 'new file mode ', key: 'newFileMode', kind: 'mode' },
  { prefix: 'deleted file mode ', key: 'deletedFileMode', kind: 'mode' },
  { prefix: 'rename from ', key: 'renameFrom', kind: 'name' },
  { prefix: 'rename to ', key: 'renameTo', kind: 'name' },
  // Older spellings that git apply still accepts.
  { prefix: 'rename old ', key: 'renameFrom', kind: 'name' },
  { prefix: 'rename new ', key: 'renameTo', kind: 'name' },
  { prefix: 'copy from ', key: 'copyFrom', kind: 'name' },
  { prefix: 'copy to ', key: 'copyTo', kind: 'name' },
  { prefix: 'similarity index ', key: null, kind: 'name' },
  { prefix: 'dissimilarity index ', key: null, kind: 'name' },
  { prefix: 'index ', key: null, kind: 'name' },
]

function parseMode(raw: string): FileMode | null {
  const value = raw.trim()
  return MODE_RE.test(value) ? value : null
}

interface GitHeader {
  oldName: string | null
  newName: string | null
  oldMode?: FileMode
  newMode?: FileMode
  newFileMode?: FileMode
  deletedFileMode?: FileMode
  renameFrom?: string
  renameTo?: string
  copyFrom?: string
  copyTo?: string
}

function parseGitSection(lines: readonly string[], start: number): Result<Section> {
  const patchLine = start + 1
  const first = lines[start] as string
  const names = splitGitNames(first.slice('diff --git '.length))
  if (names === null) {
    return fail(
      errorData(
        'PARSE_BAD_HEADER',
        `The header "${clip(first)}" at patch line ${patchLine} has no two file names.`,
        { patchLine },
      ),
    )
  }
  const prefixed = names.old.startsWith('a/') && names.new.startsWith('b/')
  const header: GitHeader = {
    oldName: prefixed ? names.old.slice(2) : names.old,
    newName: prefixed ? names.new.slice(2) : names.new,
  }
  const label = header.newName ?? header.oldName ?? ''
  let index = start + 1
  for (; index < lines.length; index++) {
    const line = lines[index] as string
    const field = EXTENDED_HEADERS.find((entry) => line.startsWith(entry.prefix))
    if (field === undefined) break
    if (field.key === null) continue
    const raw = line.slice(field.prefix.length)
    const value = field.kind === 'mode' ? parseMode(raw) : (parseName(raw, false)?.name ?? null)
    if (value === null) {
      return fail(
        errorData(
          'PARSE_BAD_HEADER',
          `The header line "${clip(line)}" for ${label} at patch line ${index + 1} is malformed.`,
          { path: label, patchLine: index + 1 },
        ),
      )
    }
    header[field.key] = value
  }

  let hunks: LineHunk[] = []
  let binary: BinaryPatch | undefined
  const line = lines[index] ?? ''
  if (line.startsWith('--- ')) {
    const plus = lines[index + 1] ?? ''
    if (!plus.startsWith('+++ ')) {
      return fail(
        errorData(
          'PARSE_BAD_HEADER',
          `The file header "${clip(line)}" at patch line ${index + 1} is not followed by a "+++ " line.`,
          { path: label, patchLine: index + 1 },
        ),
      )
    }
    const oldSide = parseName(line.slice(4), true)
    const newSide = parseName(plus.slice(4), true)
    if (oldSide === null || newSide === null) {
      const at = oldSide === null ? index : index + 1
      return fail(
        errorData(
          'PARSE_BAD_HEADER',
          `The file name at patch line ${at + 1} is missing or badly quoted.`,
          { path: label, patchLine: at + 1 },
        ),
      )
    }
    header.oldName = oldSide.name === DEV_NULL ? null : stripPrefix(oldSide.name, 'a/', prefixed)
    header.newName = newSide.name === DEV_NULL ? null : stripPrefix(newSide.name, 'b/', prefixed)
    const read = parseHunks(lines, index + 2, header.newName ?? header.oldName ?? label)
    if (!read.ok) return read
    if (read.value.hunks.length === 0) {
      return fail(
        errorData(
          'PARSE_EMPTY_HUNK',
          `The diff for ${label} at patch line ${patchLine} has file headers but no hunks.`,
          { path: label, patchLine },
        ),
      )
    }
    hunks = read.value.hunks
    index = read.value.next
  } else if (line === 'GIT binary patch') {
    const read = parseBinary(lines, index, label)
    if (!read.ok) return read
    binary = read.value.patch
    index = read.value.next
  } else if (BINARY_DIFFER_RE.test(line)) {
    return fail(binaryWithoutData(line, index, label))
  } else if (line.startsWith('@@')) {
    // Hand-written diffs sometimes skip ---/+++ after `diff --git`; the names are known already.
    const read = parseHunks(lines, index, label)
    if (!read.ok) return read
    hunks = read.value.hunks
    index = read.value.next
  }
  return buildGitOp(header, hunks, binary, patchLine, index)
}

function buildGitOp(
  header: GitHeader,
  hunks: LineHunk[],
  binary: BinaryPatch | undefined,
  patchLine: number,
  next: number,
): Result<Section> {
  const oldName = header.renameFrom ?? header.copyFrom ?? header.oldName
  const newName = header.renameTo ?? header.copyTo ?? header.newName
  const isCreation = header.newFileMode !== undefined || (oldName === null && newName !== null)
  const isDeletion = header.deletedFileMode !== undefined || (newName === null && oldName !== null)
  const label = newName ?? oldName ?? ''
  if ((isCreation && isDeletion) || label === '') {
    return fail(
      errorData(
        'PARSE_BAD_HEADER',
        label === ''
          ? `The git header at patch line ${patchLine} names no file: both sides are /dev/null.`
          : `The git header at patch line ${patchLine} both creates and deletes ${label}.`,
        { patchLine, ...(label === '' ? {} : { path: label }) },
      ),
    )
  }
  const withBinary = binary === undefined ? {} : { binary }
  if (isCreation) {
    const path = newName ?? label
    const content = creationContent(hunks, path)
    if (!content.ok) return content
    const modeAfter = header.newFileMode ?? header.newMode
    const op: AddOp = {
      kind: 'add',
      path,
      patchLine,
      content: content.value,
      ...withBinary,
      ...(modeAfter === undefined ? {} : { modeAfter }),
      overwrite: false,
    }
    return ok({ op, next })
  }
  if (isDeletion) {
    const path = oldName ?? label
    const stray = deletionStray(hunks, path)
    if (stray !== null) return fail(stray)
    const modeBefore = header.deletedFileMode ?? header.oldMode
    const op: DeleteOp = {
      kind: 'delete',
      path,
      patchLine,
      hunks,
      ...withBinary,
      ...(modeBefore === undefined ? {} : { modeBefore }),
    }
    return ok({ op, next })
  }
  const from = oldName ?? label
  const path = newName ?? label
  if (header.copyFrom !== undefined || header.copyTo !== undefined) {
    const op: CopyOp = {
      kind: 'copy',
      from,
      path,
      patchLine,
      hunks,
      locate: 'near-line',
      ...withBinary,
      ...(header.newMode === undefined ? {} : { modeAfter: header.newMode }),
    }
    return ok({ op, next })
  }
  const isRename = header.renameFrom !== undefined || header.renameTo !== undefined
  const changesMode = header.oldMode !== undefined || header.newMode !== undefined
  if (hunks.length === 0 && binary === undefined && !isRename && !changesMode) {
    return fail(
      errorData(
        'PARSE_EMPTY_HUNK',
        `The git diff for ${path} at patch line ${patchLine} changes nothing.`,
        { hint: UNIFIED_EMPTY_HINT, path, patchLine },
      ),
    )
  }
  const op: UpdateOp = {
    kind: 'update',
    path: isRename ? from : path,
    patchLine,
    ...(isRename ? { moveTo: path } : {}),
    hunks,
    locate: 'near-line',
    ...withBinary,
    ...(header.oldMode === undefined ? {} : { modeBefore: header.oldMode }),
    ...(header.newMode === undefined ? {} : { modeAfter: header.newMode }),
  }
  return ok({ op, next })
}

/**
 * Splits the names after `diff --git `. Git quotes a name only when it must, so the names may be
 * unquoted with spaces inside; ---/+++ and rename/copy lines override what is found here.
 */
function splitGitNames(rest: string): { old: string; new: string } | null {
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

function stripPrefix(name: string, prefix: string, prefixed: boolean): string {
  return prefixed && name.startsWith(prefix) ? name.slice(prefix.length) : name
}

// ---------------------------------------------------------------------------------------------
// traditional (plain) sections

function parsePlainSection(lines: readonly string[], start: number): Result<Section> {
  const patchLine = start + 1
  const oldSide = parseName((lines[start] as string).slice(4), true)
  const newSide = parseName((lines[start + 1] as string).slice(4), true)
  if (oldSide === null || newSide === null) {
    const at = oldSide === null ? start : start + 1
    return fail(
      errorData(
        'PARSE_BAD_HEADER',
        `The file name at patch line ${at + 1} is missing or badly quoted.`,
        { patchLine: at + 1 },
      ),
    )
  }
  const names = stripPlainNames(oldSide.name, newSide.name)
  const label = names.new ?? names.old ?? ''
  const read = parseHunks(lines, start + 2, label)
  if (!read.ok) return read
  const { hunks, next } = read.value
  const firstHunk = hunks[0]
  if (firstHunk === undefined) {
    return fail(
      errorData(
        'PARSE_EMPTY_HUNK',
        `The diff for ${label} at patch line ${patchLine} has file headers but no hunks.`,
        { hint: UNIFIED_EMPTY_HINT, path: label, patchLine },
      ),
    )
  }
  // `diff -N` writes a missing file as an empty one with an epoch timestamp.
  const onlyHunk = hunks.length === 1 ? firstHunk : undefined
  const oldMissing =
    names.old === null ||
    (onlyHunk !== undefined && isEpoch(oldSide.stamp) && !hasSide(onlyHunk, '-'))
  const newMissing =
    names.new === null ||
    (onlyHunk !== undefined && isEpoch(newSide.stamp) && !hasSide(onlyHunk, '+'))
  if (oldMissing && newMissing) {
    return fail(
      errorData(
        'PARSE_BAD_HEADER',
        `The file headers at patch line ${patchLine} name no existing or new file.`,
        { patchLine },
      ),
    )
  }
  if (oldMissing) {
    const path = names.new ?? label
    const content = creationContent(hunks, path)
    if (!content.ok) return content
    const op: AddOp = { kind: 'add', path, patchLine, content: content.value, overwrite: false }
    return ok({ op, next })
  }
  if (newMissing) {
    const stray = deletionStray(hunks, names.old ?? label)
    if (stray !== null) return fail(stray)
    const op: DeleteOp = { kind: 'delete', path: names.old ?? label, patchLine, hunks }
    return ok({ op, next })
  }
  const op: UpdateOp = { kind: 'update', path: label, patchLine, hunks, locate: 'near-line' }
  return ok({ op, next })
}

function hasSide(hunk: LineHunk, op: '-' | '+'): boolean {
  return hunk.lines.some((line) => line.op === op || line.op === ' ')
}

function isEpoch(stamp: string): boolean {
  return EPOCH_RE.test(stamp)
}

function stripPlainNames(
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

// ---------------------------------------------------------------------------------------------
// hunks

function parseHunks(lines: readonly string[], start: number, path: string): Result<Hunks> {
  const hunks: LineHunk[] = []
  let index = start
  for (;;) {
    // Blank lines between hunks are tolerated when another hunk follows.
    let probe = index
    while (lines[probe] === '') probe++
    if (!(lines[probe] ?? '').startsWith('@@')) break
    const read = parseHunk(lines, probe, path)
    if (!read.ok) return read
    hunks.push(read.value.hunk)
    index = read.value.next
  }
  return ok({ hunks, next: index })
}

function parseHunk(
  lines: readonly string[],
  start: number,
  path: string,
): Result<{ hunk: LineHunk; next: number }> {
  const patchLine = start + 1
  const header = lines[start] as string
  const match = HUNK_HEADER_RE.exec(header)
  if (match === null) {
    return fail(
      errorData(
        'PARSE_BAD_HEADER',
        `The hunk header "${clip(header)}" for ${path} at patch line ${patchLine} is not "@@ -a,b +c,d @@".`,
        { path, patchLine },
      ),
    )
  }
  const oldStartLine = Number(match[1])
  const oldCount = match[2] === undefined ? 1 : Number(match[2])
  const newCount = match[4] === undefined ? 1 : Number(match[4])
  const end = countedEnd(lines, start + 1, oldCount, newCount) ?? recountedEnd(lines, start + 1)

  const body: HunkLine[] = []
  let oldNoNewlineAtEnd = false
  let newNoNewlineAtEnd = false
  for (let index = start + 1; index < end; index++) {
    const line = lines[index] as string
    const badLine = (why: string): Result<{ hunk: LineHunk; next: number }> =>
      fail(
        errorData('PARSE_BAD_LINE', `Patch line ${index + 1} in the hunk for ${path} ${why}.`, {
          path,
          patchLine: index + 1,
        }),
      )
    if (line.startsWith('\\')) {
      const previous = body[body.length - 1]
      if (previous === undefined) {
        return badLine('is a "\\ No newline" marker with no line before it')
      }
      if (previous.op !== '+') oldNoNewlineAtEnd = true
      if (previous.op !== '-') newNoNewlineAtEnd = true
      continue
    }
    const op = line === '' ? ' ' : (line[0] as HunkLine['op'])
    if ((op !== '+' && oldNoNewlineAtEnd) || (op !== '-' && newNoNewlineAtEnd)) {
      return badLine('follows a "\\ No newline at end of file" marker on the same side')
    }
    body.push({ op, text: line.slice(1) })
  }
  if (body.length === 0) {
    return fail(
      errorData(
        'PARSE_EMPTY_HUNK',
        `The hunk for ${path} at patch line ${patchLine} has no lines.`,
        { hint: UNIFIED_EMPTY_HINT, path, patchLine },
      ),
    )
  }
  const hunk: LineHunk = {
    patchLine,
    hints: [],
    oldStartLine,
    endOfFile: false,
    lines: body,
    ...(oldNoNewlineAtEnd ? { oldNoNewlineAtEnd } : {}),
    ...(newNoNewlineAtEnd ? { newNoNewlineAtEnd } : {}),
  }
  return ok({ hunk, next: end })
}

function isFileHeaderPair(lines: readonly string[], index: number): boolean {
  return (lines[index] ?? '').startsWith('--- ') && (lines[index + 1] ?? '').startsWith('+++ ')
}

function isBodyLine(line: string | undefined): boolean {
  if (line === undefined) return false
  if (line === '') return true
  const c = line[0]
  return c === ' ' || c === '-' || c === '+' || c === '\\'
}

// `-- ` is the signature separator `git format-patch` writes after the last file.
function isSignature(lines: readonly string[], index: number): boolean {
  return lines[index] === '-- ' && !isBodyLine(lines[index + 1])
}

/**
 * Where the hunk ends when its body agrees with the stated counts, or null when it does not:
 * the body runs out or hits a non-hunk line first, overshoots a count, or clearly continues
 * past the counted end.
 */
function countedEnd(
  lines: readonly string[],
  start: number,
  oldCount: number,
  newCount: number,
): number | null {
  let oldSeen = 0
  let newSeen = 0
  let index = start
  while (oldSeen < oldCount || newSeen < newCount) {
    const line = lines[index]
    if (line === undefined || !isBodyLine(line) || isFileHeaderPair(lines, index)) return null
    const c = line === '' ? ' ' : line[0]
    if (c === ' ') {
      oldSeen++
      newSeen++
    } else if (c === '-') oldSeen++
    else if (c === '+') newSeen++
    if (oldSeen > oldCount || newSeen > newCount) return null
    index++
  }
  if ((lines[index] ?? '').startsWith('\\')) index++
  const after = lines[index]
  const continues =
    after !== undefined &&
    after !== '' &&
    isBodyLine(after) &&
    !isFileHeaderPair(lines, index) &&
    !isSignature(lines, index)
  if (continues) {
    return null
  }
  return index
}

function recountedEnd(lines: readonly string[], start: number): number {
  let index = start
  while (index < lines.length) {
    const line = lines[index] as string
    if (!isBodyLine(line) || isFileHeaderPair(lines, index) || isSignature(lines, index)) break
    index++
  }
  // Trailing empty lines belong to whatever follows (usually nothing), not to the hunk.
  while (index > start && lines[index - 1] === '') index--
  return index
}

function creationContent(hunks: readonly LineHunk[], path: string): Result<string> {
  const added: string[] = []
  let noNewline = false
  for (const hunk of hunks) {
    const stray = hunk.lines.find((line) => line.op !== '+')
    if (stray !== undefined) {
      return fail(
        errorData(
          'PARSE_BAD_LINE',
          `The hunk at patch line ${hunk.patchLine} creates ${path} but has context or removed lines.`,
          { path, patchLine: hunk.patchLine },
        ),
      )
    }
    for (const line of hunk.lines) added.push(line.text)
    noNewline = hunk.newNoNewlineAtEnd === true
  }
  if (added.length === 0) return ok('')
  return ok(added.join('\n') + (noNewline ? '' : '\n'))
}

function deletionStray(hunks: readonly LineHunk[], path: string): EditErrorData | null {
  const hunk = hunks.find((h) => h.lines.some((line) => line.op !== '-'))
  if (hunk === undefined) return null
  return errorData(
    'PARSE_BAD_LINE',
    `The hunk at patch line ${hunk.patchLine} deletes ${path} but has context or added lines.`,
    { path, patchLine: hunk.patchLine },
  )
}

// ---------------------------------------------------------------------------------------------
// GIT binary patch

function parseBinary(
  lines: readonly string[],
  start: number,
  path: string,
): Result<{ patch: BinaryPatch; next: number }> {
  const forward = parseBinaryHunk(lines, start + 1, path)
  if (!forward.ok) return forward
  let next = forward.value.next
  if (!BINARY_HUNK_RE.test(lines[next] ?? '')) {
    return ok({ patch: { forward: forward.value.hunk }, next })
  }
  const reverse = parseBinaryHunk(lines, next, path)
  if (!reverse.ok) return reverse
  next = reverse.value.next
  return ok({ patch: { forward: forward.value.hunk, reverse: reverse.value.hunk }, next })
}

function parseBinaryHunk(
  lines: readonly string[],
  start: number,
  path: string,
): Result<{ hunk: BinaryHunk; next: number }> {
  const header = lines[start] ?? ''
  const match = BINARY_HUNK_RE.exec(header)
  if (match === null) {
    return fail(
      errorData(
        'PARSE_BAD_BINARY',
        `The binary hunk header "${clip(header)}" for ${path} at patch line ${start + 1} is not "literal N" or "delta N".`,
        { path, patchLine: start + 1 },
      ),
    )
  }
  const parts: Uint8Array[] = []
  let total = 0
  let index = start + 1
  // Data runs to a blank line; a following `diff ` line also ends it, in case the blank was lost.
  for (; index < lines.length; index++) {
    const line = lines[index] as string
    if (line === '' || line.startsWith('diff ')) break
    const decoded = decodeBase85Line(line)
    if (!decoded.ok) {
      const message = `${decoded.error.message.replace(/\.$/, '')} (${path}, patch line ${index + 1}).`
      return fail({ ...decoded.error, message, path, patchLine: index + 1 })
    }
    parts.push(decoded.value)
    total += decoded.value.length
  }
  if (parts.length === 0) {
    return fail(
      errorData(
        'PARSE_BAD_BINARY',
        `The binary hunk for ${path} at patch line ${start + 1} has no data lines.`,
        { path, patchLine: start + 1 },
      ),
    )
  }
  if (lines[index] === '') index++
  const deflated = new Uint8Array(total)
  let offset = 0
  for (const part of parts) {
    deflated.set(part, offset)
    offset += part.length
  }
  const method = match[1] === 'delta' ? 'delta' : 'literal'
  return ok({ hunk: { method, inflatedSize: Number(match[2]), deflated }, next: index })
}

function binaryWithoutData(line: string, index: number, path?: string) {
  return errorData(
    'PARSE_BAD_BINARY',
    `Patch line ${index + 1} says "${clip(line)}" but carries no binary data.`,
    {
      hint: 'Regenerate the diff with `git diff --binary` so it carries the binary data.',
      patchLine: index + 1,
      ...(path === undefined ? {} : { path }),
    },
  )
}

// ---------------------------------------------------------------------------------------------
// names

interface ParsedName {
  readonly name: string
  /** Whatever followed the name after a TAB (a timestamp in traditional diffs), else ''. */
  readonly stamp: string
}

/** Parses a header name: C-quoted, or plain up to a TAB (`withStamp`) or the end. */
function parseName(rest: string, withStamp: boolean): ParsedName | null {
  if (rest.startsWith('"')) {
    const quoted = unquoteC(rest, 0)
    if (quoted === null || quoted.name === '') return null
    const tail = rest.slice(quoted.end)
    if (!withStamp && tail.trim() !== '') return null
    return { name: quoted.name, stamp: tail.replace(/^\s+/, '') }
  }
  const tab = withStamp ? rest.indexOf('\t') : -1
  const name = (tab === -1 ? rest : rest.slice(0, tab)).trimEnd()
  if (name === '') return null
  return { name, stamp: tab === -1 ? '' : rest.slice(tab + 1) }
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
    if (c === '"') return { name: utf8.decode(Uint8Array.from(bytes)), end: index + 1 }
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

function clip(line: string): string {
  return line.length > 60 ? `${line.slice(0, 60)}...` : line
}
