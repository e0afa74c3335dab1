// Unified diff -> EditPlan (format 'unified'): what `git diff [--binary]`, `git format-patch` and
// `diff -u` / `diff -ruN` write. Syntax only: locating hunks is src/match/, applying binary data is
// src/apply/git-binary.ts, and path safety (.., duplicates, deny globs) is the engine's job. This
// module reads file sections and builds their ops; hunks are unified-hunks.ts, names
// unified-names.ts, and `GIT binary patch` data git-binary-section.ts.
//
//   patch      = { junk } file { { junk } file } { junk }
//   file       = git-file | plain-file
//   git-file   = "diff --git " name " " name NL { ext-header NL }
//                [ "--- " name NL "+++ " name NL hunk { hunk } | binary ]
//   ext-header = ("old mode" | "new mode" | "deleted file mode" | "new file mode") " " mode
//              | ("rename from" | "rename to" | "copy from" | "copy to") " " name
//              | ("similarity index" | "dissimilarity index") " " N "%"
//              | "index " hex ".." hex [" " mode]
//   plain-file = "--- " name [sep stamp] NL "+++ " name [sep stamp] NL hunk { hunk }
//   sep        = TAB | " " { " " }      (a stamp is found from the line's end; see unified-names.ts)
//   hunk       = "@@ -" a ["," b] " +" c ["," d] " @@" [section] NL { body-line }
//   body-line  = (" " | "-" | "+") text NL | "\" text NL          (\ No newline at end of file)
//   binary     = "GIT binary patch" NL bin-hunk [ bin-hunk ]
//   bin-hunk   = ("literal" | "delta") " " size NL { base85-line NL } [ "" NL ]
//   name       = /dev/null | unquoted text
//              | C-quoted "..." (\t \n \" \\ \a \b \f \r \v, and \ooo octal bytes read as UTF-8)
//
// Leniencies (each pinned by a test in test/unit/parse/unified.test.ts; details beside the code):
// - junk lines (commit messages, email headers, `Index:`, `====`, `Only in ...`, `diff -ruN ...`,
//   a `-- ` signature, a `--- ` line not followed by `+++ ` or a hunk) before, between and after
//   files are ignored (parseUnifiedDiff);
// - CRLF patch text: when every line ends in CRLF the '\r's came from transit and are dropped;
//   otherwise a body line's trailing '\r' states its CRLF ending (HunkLine.eol), as `git diff`
//   writes a CRLF file (splitPatchLinesWithCr);
// - while a hunk's counts run, `--- `/`-- `-looking lines are body; file headers, `diff ` lines
//   and a `-- ` signature end a hunk only when it is recounted (unified-hunks.ts);
// - wrong hunk counts: when the body does not agree with them, the hunk is recounted from the body
//   (unified-hunks.ts recountedEnd); trailing empty lines are then not part of it;
// - an empty line inside a hunk is an empty context line (unified-hunks.ts); any other line that
//   starts with none of ' ', '-', '+', '\' is corrupt while the counts run (PARSE_BAD_LINE,
//   scenarios 975, 976) and junk once they are used up (977);
// - blank lines between the hunks of one file (unified-hunks.ts); hunks directly after
//   `diff --git` without ---/+++ (parseGitSection);
// - traditional headers as git reads them: a timestamp after spaces instead of a tab, zones
//   written +05:30, and a name holding tabs before its timestamp (unified-names.ts parseName;
//   scenarios 983-986);
// - strip level: a/ and b/ prefixes are dropped; traditional names that differ only in their
//   first component (orig/src/x.c vs new/src/x.c) lose it (unified-names.ts stripPlainNames);
// - `diff -N` creations and deletions: an epoch timestamp (1970-01-01) on a side whose range is
//   0,0 means that side's file does not exist (parsePlainSection).
import { errorData, type EditErrorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import { splitPatchLinesWithCr } from '../text/lines.js'
import type {
  AddOp,
  BinaryPatch,
  CopyOp,
  DeleteOp,
  EditPlan,
  FileMode,
  FileOp,
  LineHunk,
  UpdateOp,
} from '../types.js'
import {
  binaryWithoutData,
  isBinaryWithoutData,
  parseGitBinarySection,
} from './git-binary-section.js'
import { creationContent, deletionStray, parseHunks, UNIFIED_EMPTY_HINT } from './unified-hunks.js'
import {
  clip,
  DEV_NULL,
  isEpoch,
  parseHeaderPair,
  parseName,
  splitGitNames,
  stripPlainNames,
  stripPrefix,
} from './unified-names.js'

const MODE_RE = /^[0-7]{1,6}$/

/**
 * Parses a unified diff (git or traditional) into an EditPlan. Never throws for bad input.
 *
 * @example
 * const plan = parseUnifiedDiff(execFileSync('git', ['diff', '--binary'], { encoding: 'utf8' }))
 */
export function parseUnifiedDiff(text: string): Result<EditPlan> {
  const { lines, crEnded } = splitPatchLinesWithCr(text)
  const ops: FileOp[] = []
  let index = 0
  while (index < lines.length) {
    const line = lines[index] as string
    let section: Result<Section> | null = null
    if (line.startsWith('diff --git ')) {
      section = parseGitSection(lines, crEnded, index)
    } else if (line.startsWith('--- ')) {
      const following = lines[index + 1] ?? ''
      // A lone `--- ` line is prose (commit messages have them) unless a hunk follows it.
      if (!following.startsWith('+++ ')) {
        if (!following.startsWith('@@ -')) {
          index++
          continue
        }
        return fail(missingPlusLine(line, index))
      }
      section = parsePlainSection(lines, crEnded, index)
    } else if (isBinaryWithoutData(line)) {
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
    // Leniency: any other line is junk (commit message, email header, `Index:`, signature).
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

function missingPlusLine(line: string, index: number, path?: string): EditErrorData {
  return errorData(
    'PARSE_BAD_HEADER',
    `The file header "${clip(line)}" at patch line ${index + 1} is not followed by a "+++ " line.`,
    { ...(path === undefined ? {} : { path }), patchLine: index + 1 },
  )
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

// Extended header lines; key null = recognised and skipped. The `index` line is read apart
// (readIndexLine): a binary patch's preimage is checked against its blob id (#8, D-052).
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
  index?: { readonly oldId: string; readonly newId: string } | undefined
  /** The mode an `index` line states when the mode does not change (`index a..b 120000`). */
  indexMode?: FileMode
}

const INDEX_RE = /^index ([0-9a-fA-F]{4,64})\.\.([0-9a-fA-F]{4,64})(?: [0-7]{1,6})?$/

/**
 * The blob ids of an `index <old>..<new>[ <mode>]` line, lowercased, or null when it is not one.
 * Leniency: a malformed index line is skipped as before, since text hunks do not need it.
 */
function readIndexLine(line: string): { oldId: string; newId: string } | null {
  const match = INDEX_RE.exec(line)
  if (match === null) return null
  return { oldId: (match[1] as string).toLowerCase(), newId: (match[2] as string).toLowerCase() }
}

/**
 * The mode at the end of an `index <hex>..<hex> <mode>` line, if any. Only a symlink's matters
 * (issue #8): it says the hunks change a link's target string, not a file.
 */
function indexLineMode(line: string): FileMode | undefined {
  const mode = /^index [0-9a-fA-F]+\.\.[0-9a-fA-F]+ ([0-7]{6})$/.exec(line)?.[1]
  return mode === '120000' ? mode : undefined
}

function parseGitSection(
  lines: readonly string[],
  crEnded: readonly boolean[],
  start: number,
): Result<Section> {
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
    if (field.prefix === 'index ') header.index = readIndexLine(line) ?? undefined
    const indexMode = indexLineMode(line)
    if (indexMode !== undefined) header.indexMode = indexMode
    if (field.key === null) continue
    const raw = line.slice(field.prefix.length)
    const value = field.kind === 'mode' ? parseMode(raw) : (parseName(raw, 'none')?.name ?? null)
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
      return fail(missingPlusLine(line, index, label))
    }
    const sides = parseHeaderPair(lines, index, label)
    if (!sides.ok) return sides
    const { old: oldSide, new: newSide } = sides.value
    header.oldName = oldSide.name === DEV_NULL ? null : stripPrefix(oldSide.name, 'a/', prefixed)
    header.newName = newSide.name === DEV_NULL ? null : stripPrefix(newSide.name, 'b/', prefixed)
    const read = parseHunks(lines, index + 2, header.newName ?? header.oldName ?? label, crEnded)
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
    const read = parseGitBinarySection(lines, index, label)
    if (!read.ok) return read
    binary =
      header.index === undefined ? read.value.patch : { ...read.value.patch, ...header.index }
    index = read.value.next
  } else if (isBinaryWithoutData(line)) {
    return fail(binaryWithoutData(line, index, label))
  } else if (line.startsWith('@@')) {
    // Hand-written diffs sometimes skip ---/+++ after `diff --git`; the names are known already.
    const read = parseHunks(lines, index, label, crEnded)
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
    ...(header.oldMode === undefined
      ? header.indexMode === undefined
        ? {}
        : { modeBefore: header.indexMode }
      : { modeBefore: header.oldMode }),
    ...(header.newMode === undefined ? {} : { modeAfter: header.newMode }),
  }
  return ok({ op, next })
}

// ---------------------------------------------------------------------------------------------
// traditional (plain) sections

function parsePlainSection(
  lines: readonly string[],
  crEnded: readonly boolean[],
  start: number,
): Result<Section> {
  const patchLine = start + 1
  const sides = parseHeaderPair(lines, start, undefined, 'traditional')
  if (!sides.ok) return sides
  const { old: oldSide, new: newSide } = sides.value
  const names = stripPlainNames(oldSide.name, newSide.name)
  const label = names.new ?? names.old ?? ''
  const read = parseHunks(lines, start + 2, label, crEnded)
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
