// Unified diff -> EditPlan (format 'unified'): what `git diff [--binary]`, `git format-patch` and
// `diff -u` / `diff -ruN` write, read as `git apply` reads it. Syntax only: locating hunks is
// src/match/, applying binary data is src/apply/git-binary.ts, and path safety (.., duplicates,
// deny globs) is the engine's job. This module reads file sections and builds their ops; a git
// section's header is unified-git-header.ts, hunks unified-hunks.ts, names unified-names.ts, and
// `GIT binary patch` data git-binary-section.ts. The grammar and the leniencies are stated at
// parseUnifiedDiff.
import { errorData, type EditErrorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import { splitPatchLinesWithCr } from '../text/lines.js'
import type {
  AddOp,
  BinaryPatch,
  CopyOp,
  DeleteOp,
  EditPlan,
  FileOp,
  LineHunk,
  UpdateOp,
} from '../types.js'
import {
  binaryWithoutData,
  binaryWithoutDataPath,
  isBinaryWithoutData,
  parseGitBinarySection,
} from './git-binary-section.js'
import { creationContent, deletionStray, parseHunks, UNIFIED_EMPTY_HINT } from './unified-hunks.js'
import { readGitHeader, type GitHeader } from './unified-git-header.js'
import {
  clip,
  hasEpochTimestamp,
  parseHeaderPair,
  stripPlainNames,
  traditionalName,
} from './unified-names.js'

// The grammar, as this module reads it:
//
//   patch      = { junk } file { { junk } file } { junk }
//   file       = git-file | plain-file
//   git-file   = git-header [ hunk { hunk } | binary ]      (git-header: unified-git-header.ts)
//   plain-file = "--- " name [sep stamp] NL "+++ " name [sep stamp] NL hunk { hunk }
//   sep        = TAB | " " { " " }      (a stamp is found from the line's end: unified-names.ts)
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
// - blank lines between the hunks of one file, and before the first (unified-hunks.ts);
// - traditional headers as git reads them: a timestamp after spaces instead of a tab, zones
//   written +05:30, and a name holding tabs before its timestamp (unified-names.ts parseName;
//   scenarios 983-986);
// - strip level: a/ and b/ prefixes are dropped (in git sections also other prefix pairs such as
//   i/ and w/); traditional names that differ only in their first component (orig/src/x.c vs
//   new/src/x.c) lose it (unified-names.ts stripPlainNames); other names are kept as written,
//   where git would strip one component (-p1).
/** How parseUnifiedDiff treats what it would otherwise refuse. */
export interface UnifiedOptions {
  /**
   * Called for each `Binary files ... differ` entry that carries no data (junk an agent left, a
   * coverage database): given, the entry is skipped and the rest is read; absent, such an entry
   * is PARSE_BAD_BINARY.
   */
  readonly onBinaryWithoutData?: (entry: SkippedEntry) => void
}

/** A patch entry skipped on request: the path it names (when known) and its patch line. */
export interface SkippedEntry {
  readonly path?: string
  readonly patchLine: number
}

/**
 * Parses a unified diff (git or traditional) into an EditPlan. Never throws for bad input.
 *
 * @example
 * const plan = parseUnifiedDiff(execFileSync('git', ['diff', '--binary'], { encoding: 'utf8' }))
 */
export function parseUnifiedDiff(text: string, options: UnifiedOptions = {}): Result<EditPlan> {
  const { lines, crEnded } = splitPatchLinesWithCr(text)
  let skipped = 0
  const report = options.onBinaryWithoutData
  const counting: UnifiedOptions =
    report === undefined
      ? {}
      : {
          onBinaryWithoutData: (entry) => {
            skipped++
            report(entry)
          },
        }
  // The index of a last line that no newline ends, where a cut-off output stops (-1: none).
  const cut = text.endsWith('\n') ? -1 : lines.length - 1
  const ops: FileOp[] = []
  let index = 0
  while (index < lines.length) {
    const line = lines[index] as string
    let section: Result<Section> | null = null
    if (line.startsWith('diff --git ')) {
      section = parseGitSection(lines, crEnded, index, cut, counting)
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
      section = parsePlainSection(lines, crEnded, index, cut)
    } else if (isBinaryWithoutData(line)) {
      if (counting.onBinaryWithoutData === undefined) return fail(binaryWithoutData(line, index))
      const named = binaryWithoutDataPath(line)
      counting.onBinaryWithoutData({
        ...(named === null ? {} : { path: named }),
        patchLine: index + 1,
      })
      index++
      continue
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
    if (section.value.op !== null) ops.push(section.value.op)
    index = section.value.next
  }
  if (ops.length === 0 && skipped > 0) {
    return fail(
      errorData(
        'PATCH_NO_OP',
        `Every entry of the patch is a binary file without data, skipped as asked (${skipped}); nothing is left to apply.`,
        { patchLine: 1 },
      ),
    )
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
  /** null for an entry skipped on request (UnifiedOptions). */
  readonly op: FileOp | null
  /** 0-based index of the first line after the section. */
  readonly next: number
}

function missingPlusLine(line: string, index: number): EditErrorData {
  return errorData(
    'PARSE_BAD_HEADER',
    `The file header "${clip(line)}" at patch line ${index + 1} is not followed by a "+++ " line.`,
    { patchLine: index + 1 },
  )
}

// ---------------------------------------------------------------------------------------------
// git sections

function parseGitSection(
  lines: readonly string[],
  crEnded: readonly boolean[],
  start: number,
  cut: number,
  options: UnifiedOptions,
): Result<Section> {
  const patchLine = start + 1
  const read = readGitHeader(lines, start)
  if (!read.ok) return read
  const header = read.value
  const label = header.newName ?? header.oldName ?? header.label
  let index = header.next
  let hunks: LineHunk[] = []
  let binary: BinaryPatch | undefined
  let gitBlobId: string | undefined
  const line = lines[index] ?? ''
  if (line === 'GIT binary patch') {
    const binaryRead = parseGitBinarySection(lines, index, label)
    if (!binaryRead.ok) return binaryRead
    binary =
      header.index === undefined
        ? binaryRead.value.patch
        : { ...binaryRead.value.patch, ...header.index }
    index = binaryRead.value.next
  } else if (isBinaryWithoutData(line)) {
    // A deletion needs no data when the index line names the whole blob it removes: git deletes
    // the file if it is that blob. Anything else without data cannot be applied.
    const removes = header.kind === 'delete' ? fullOldId(header.index) : undefined
    if (removes === undefined) {
      if (options.onBinaryWithoutData === undefined)
        return fail(binaryWithoutData(line, index, label))
      options.onBinaryWithoutData({ path: label, patchLine: index + 1 })
      return ok({ op: null, next: index + 1 })
    }
    gitBlobId = removes
    index++
  } else {
    // Hand-written diffs sometimes skip ---/+++ after `diff --git`; the names are known already.
    const hunkRead = parseHunks(lines, index, label, crEnded, cut)
    if (!hunkRead.ok) return hunkRead
    hunks = hunkRead.value.hunks
    index = hunkRead.value.next
  }
  // A git section says what it does in its header: new file mode, deleted file mode, rename,
  // copy, mode lines (DECISIONS.md D-129). With no hunk and no binary data it must change one of
  // those (git's "patch with only garbage"): a creation (an empty file), a deletion, a rename, a
  // copy, a mode.
  if (hunks.length === 0 && binary === undefined && !header.changesMetadata) {
    const why = header.hasFileLines
      ? 'has file headers but no hunks'
      : header.hasModeLine
        ? 'changes nothing: a mode change needs both an "old mode" and a "new mode" line, with different modes'
        : 'changes nothing'
    return fail(
      errorData(
        'PARSE_EMPTY_HUNK',
        `The git diff for ${label} at patch line ${patchLine} ${why}.`,
        { hint: UNIFIED_EMPTY_HINT, path: label, patchLine },
      ),
    )
  }
  return buildGitOp(header, hunks, binary, patchLine, index, gitBlobId)
}

/** The index line's old id when it is a full SHA-1 or SHA-256 and the new one is all zeros. */
function fullOldId(
  index: { readonly oldId: string; readonly newId: string } | undefined,
): string | undefined {
  if (index === undefined || !/^0+$/.test(index.newId)) return undefined
  return index.oldId.length === 40 || index.oldId.length === 64 ? index.oldId : undefined
}

function buildGitOp(
  header: GitHeader,
  hunks: LineHunk[],
  binary: BinaryPatch | undefined,
  patchLine: number,
  next: number,
  gitBlobId?: string,
): Result<Section> {
  const withBinary = binary === undefined ? {} : { binary }
  const { oldName, newName, oldMode, newMode } = header
  if (header.kind === 'create') {
    const path = newName as string
    const content = creationContent(hunks, path)
    if (!content.ok) return content
    const op: AddOp = {
      kind: 'add',
      path,
      patchLine,
      content: content.value,
      ...withBinary,
      ...(newMode === undefined ? {} : { modeAfter: newMode }),
      overwrite: false,
    }
    return ok({ op, next })
  }
  if (header.kind === 'delete') {
    const path = oldName as string
    const stray = deletionStray(hunks, path)
    if (stray !== null) return fail(stray)
    const op: DeleteOp = {
      kind: 'delete',
      path,
      patchLine,
      hunks,
      ...withBinary,
      ...(gitBlobId === undefined ? {} : { gitBlobId }),
      ...(oldMode === undefined ? {} : { modeBefore: oldMode }),
    }
    return ok({ op, next })
  }
  const from = oldName as string
  const path = newName as string
  if (header.kind === 'copy') {
    const op: CopyOp = {
      kind: 'copy',
      from,
      path,
      patchLine,
      hunks,
      locate: 'near-line',
      ...withBinary,
      ...(newMode === undefined ? {} : { modeAfter: newMode }),
    }
    return ok({ op, next })
  }
  // A rename, or a modification whose ---/+++ lines name two files: git then writes the new
  // file and removes the old one, a rename in effect (D-129).
  const modeBefore = oldMode ?? header.indexMode
  const op: UpdateOp = {
    kind: 'update',
    path: from,
    patchLine,
    ...(from === path ? {} : { moveTo: path }),
    hunks,
    locate: 'near-line',
    ...withBinary,
    ...(modeBefore === undefined ? {} : { modeBefore }),
    ...(newMode === undefined ? {} : { modeAfter: newMode }),
  }
  return ok({ op, next })
}

// ---------------------------------------------------------------------------------------------
// traditional (plain) sections

function parsePlainSection(
  lines: readonly string[],
  crEnded: readonly boolean[],
  start: number,
  cut: number,
): Result<Section> {
  const patchLine = start + 1
  const sides = parseHeaderPair(lines, start, undefined, 'traditional')
  if (!sides.ok) return sides
  const names = stripPlainNames(sides.value.old.name, sides.value.new.name)
  if (names.old === null && names.new === null) {
    return fail(
      errorData(
        'PARSE_BAD_HEADER',
        `The file headers at patch line ${patchLine} name no existing or new file.`,
        { patchLine },
      ),
    )
  }
  // Whether the file is created and whether it is deleted, as git decides it for a traditional
  // diff (D-130): /dev/null, or `diff -N`'s epoch timestamp, says so; otherwise 'unknown' until
  // the hunks or, at last, the file's existence decide.
  let creates: boolean | 'unknown' = false
  let deletes: boolean | 'unknown' = false
  let path: string
  if (names.old === null) {
    creates = true
    path = names.new as string
  } else if (names.new === null) {
    deletes = true
    path = names.old
  } else {
    path = traditionalName(names.old, names.new)
    if (hasEpochTimestamp((lines[start] as string).slice(4))) creates = true
    else if (hasEpochTimestamp((lines[start + 1] as string).slice(4))) deletes = true
    else creates = deletes = 'unknown'
  }
  const read = parseHunks(lines, start + 2, path, crEnded, cut)
  if (!read.ok) return read
  const { hunks, next } = read.value
  if (hunks.length === 0) {
    return fail(
      errorData(
        'PARSE_EMPTY_HUNK',
        `The diff for ${path} at patch line ${patchLine} has file headers but no hunks.`,
        { hint: UNIFIED_EMPTY_HINT, path, patchLine },
      ),
    )
  }
  // Removed or context lines mean an old file, added or context lines a new one; a diff of a
  // creation or deletion has one hunk (a -U0 diff may look like one and be neither).
  const several = hunks.length > 1
  if (creates === 'unknown' && (several || hasSide(hunks, '-'))) creates = false
  if (deletes === 'unknown' && (several || hasSide(hunks, '+'))) deletes = false
  if (creates === true) {
    const content = creationContent(hunks, path)
    if (!content.ok) return content
    const op: AddOp = { kind: 'add', path, patchLine, content: content.value, overwrite: false }
    return ok({ op, next })
  }
  if (deletes === true) {
    const stray = deletionStray(hunks, path)
    if (stray !== null) return fail(stray)
    const op: DeleteOp = { kind: 'delete', path, patchLine, hunks }
    return ok({ op, next })
  }
  // A hunk that only adds, under headers that do not say: a creation when the file is missing,
  // else a change to it. One that only removes empties the file and leaves it, as git does.
  const op: UpdateOp = {
    kind: 'update',
    path,
    patchLine,
    hunks,
    locate: 'near-line',
    ...(creates === 'unknown' ? { createIfMissing: true } : {}),
  }
  return ok({ op, next })
}

/** Whether any hunk line is on the old side ('-': removed or context) or the new one ('+'). */
function hasSide(hunks: readonly LineHunk[], side: '-' | '+'): boolean {
  return hunks.some((hunk) => hunk.lines.some((line) => line.op === side || line.op === ' '))
}
