// The header of one `diff --git` section, read as git apply reads it (D-129): which files the
// section names, whether it creates, deletes, renames or copies, and its modes. Its lines come in
// any order until a hunk or a line that is no header line. Refused here: two of new file /
// deleted file / rename / copy; a ---/+++ name that disagrees with the name a new file, deleted
// file, rename or copy line fixed; a /dev/null side without the new or deleted file mode that
// makes it one; a side no line names; a mode that is not a file's, or a mode line that changes
// the type. Hunks, binary data and the op are src/parse/unified.ts; readGitHeader states the
// grammar.
import { errorData, type EditErrorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import type { FileMode } from '../types.js'
import { clip, DEV_NULL, parseName, splitGitNames } from './unified-names.js'

/** A git section's header, checked: the names are those of the op it becomes. */
export interface GitHeader {
  readonly kind: 'create' | 'delete' | 'rename' | 'copy' | 'modify'
  /** The file read: null for a creation. */
  readonly oldName: string | null
  /** The file written: null for a deletion. Differs from oldName for a rename or copy, and for
   * a modification whose ---/+++ lines name two files (git moves the file then). */
  readonly newName: string | null
  /** What labels errors about the section before its names are known. */
  readonly label: string
  /** Canonical modes (canonicalMode) from old mode / deleted file mode and new mode / new file mode. */
  readonly oldMode?: FileMode
  readonly newMode?: FileMode
  /** An `index` line's mode when it is a symlink's: the hunks then change a link's target. */
  readonly indexMode?: FileMode
  /** The `index` line's blob ids, lowercased (a binary patch's preimage is checked with them). */
  readonly index?: { readonly oldId: string; readonly newId: string }
  /** Whether the header alone changes something (git's metadata_changes), so needs no hunk. */
  readonly changesMetadata: boolean
  /** Whether a mode line is present (to say what a mode-only section lacks). */
  readonly hasModeLine: boolean
  /** Whether ---/+++ lines are present (to say what a section with no hunk lacks). */
  readonly hasFileLines: boolean
  /** 0-based index of the first line after the header. */
  readonly next: number
}

/** A patch line as written, and its 1-based number. */
interface PatchLineRef {
  readonly text: string
  readonly patchLine: number
}

/** A side's file name, and the line that fixed it (named in errors). */
interface NamedBy extends PatchLineRef {
  readonly name: string
}

interface ModeLine extends PatchLineRef {
  readonly mode: FileMode
  /** The mode as written, read as a number: git compares these to see a mode change. */
  readonly value: number
}

type Side = 'old' | 'new'

/** The header as it is read, line by line. */
interface Reading {
  /** The name "diff --git" gives when both its halves name one file (git's default name). */
  readonly defName: string | null
  /** The two halves' first components when they are prefixes (a/ and b/, or i/ and w/). */
  readonly prefixes: readonly [string, string] | null
  readonly label: string
  old?: NamedBy
  new?: NamedBy
  oldNull?: PatchLineRef
  newNull?: PatchLineRef
  created?: PatchLineRef
  deleted?: PatchLineRef
  renamed?: PatchLineRef
  copied?: PatchLineRef
  /** The first new file / deleted file / rename / copy line: a second kind contradicts it. */
  kindLine?: PatchLineRef
  oldMode?: ModeLine
  newMode?: ModeLine
  /** The mode on an `index` line, which git takes as the old mode. */
  indexMode?: ModeLine
  index?: { readonly oldId: string; readonly newId: string }
  hasFileLines: boolean
}

type HeaderField =
  | 'oldName'
  | 'newName'
  | 'oldMode'
  | 'newMode'
  | 'deletedFileMode'
  | 'newFileMode'
  | 'renameFrom'
  | 'renameTo'
  | 'copyFrom'
  | 'copyTo'
  | 'score'
  | 'index'

const HEADER_LINES: readonly { readonly prefix: string; readonly field: HeaderField }[] = [
  { prefix: '--- ', field: 'oldName' },
  { prefix: '+++ ', field: 'newName' },
  { prefix: 'old mode ', field: 'oldMode' },
  { prefix: 'new mode ', field: 'newMode' },
  { prefix: 'deleted file mode ', field: 'deletedFileMode' },
  { prefix: 'new file mode ', field: 'newFileMode' },
  { prefix: 'copy from ', field: 'copyFrom' },
  { prefix: 'copy to ', field: 'copyTo' },
  { prefix: 'rename from ', field: 'renameFrom' },
  { prefix: 'rename to ', field: 'renameTo' },
  { prefix: 'rename old ', field: 'renameFrom' },
  { prefix: 'rename new ', field: 'renameTo' },
  { prefix: 'similarity index ', field: 'score' },
  { prefix: 'dissimilarity index ', field: 'score' },
  { prefix: 'index ', field: 'index' },
]

const INCONSISTENT_HINT =
  'Make the header lines of this file section agree (the diff --git names, ---/+++, new/deleted file mode, rename/copy lines), or regenerate the patch with git diff.'

const MODE_RE = /^\s*([0-7]{1,12})(?:\s|$)/
const S_IFMT = 0o170000
const S_IFREG = 0o100000
const S_IFLNK = 0o120000
const S_IFGITLINK = 0o160000
const INDEX_RE = /^index ([0-9a-fA-F]{4,64})\.\.([0-9a-fA-F]{4,64})(?: ([0-7]{1,12}))?$/

/**
 * A mode as git writes it for the file a mode line states, or null when it names no file git
 * applies a patch to: a regular file's mode becomes 100755 when the owner may execute it, else
 * 100644 (`new mode 100770` is 100755, `100670` is 100644, as git canonicalises it); a symlink
 * is 120000 and a submodule 160000. A directory, mode 0 or any other type is refused.
 */
export function canonicalMode(value: number): FileMode | null {
  switch (value & S_IFMT) {
    case S_IFREG:
      return (value & 0o100) !== 0 ? '100755' : '100644'
    case S_IFLNK:
      return '120000'
    case S_IFGITLINK:
      return '160000'
    default:
      return null
  }
}

// The header, as readGitHeader reads it:
//   git-header  = "diff --git " name " " name NL { header-line NL }
//   header-line = ("--- " | "+++ ") name
//               | ("old mode" | "new mode" | "deleted file mode" | "new file mode") " " mode
//               | ("rename from" | "rename to" | "copy from" | "copy to") " " name
//               | ("rename old" | "rename new") " " name            (early git's spelling)
//               | ("similarity index" | "dissimilarity index") " " N "%"
//               | "index " hex ".." hex [" " mode]
//   mode        = octal digits, then the line's end or a space (as git's strtoul reads it)
/**
 * Reads the header of the section whose `diff --git` line is at `start`. On success, `next` is
 * the first line that is no header line (a hunk, `GIT binary patch`, the next section, junk).
 */
export function readGitHeader(lines: readonly string[], start: number): Result<GitHeader> {
  const first = lines[start] as string
  const sectionLine = start + 1
  const halves = splitGitNames(first.slice('diff --git '.length))
  if (halves === null) {
    return fail(
      errorData(
        'PARSE_BAD_HEADER',
        `The header "${clip(first)}" at patch line ${sectionLine} has no two file names.`,
        { patchLine: sectionLine },
      ),
    )
  }
  const prefixes = namePrefixes(halves.old, halves.new)
  const oldHalf = prefixes === null ? halves.old : halves.old.slice(prefixes[0].length)
  const newHalf = prefixes === null ? halves.new : halves.new.slice(prefixes[1].length)
  const reading: Reading = {
    defName: oldHalf === newHalf ? oldHalf : null,
    prefixes,
    label: newHalf,
    hasFileLines: false,
  }
  let index = start + 1
  for (; index < lines.length; index++) {
    const text = lines[index] as string
    const entry = HEADER_LINES.find((candidate) => text.startsWith(candidate.prefix))
    if (entry === undefined) break
    const line = { text, patchLine: index + 1 }
    const error = readHeaderLine(reading, entry.field, line, text.slice(entry.prefix.length))
    if (error !== null) return fail(error)
    const contradicted = checkOneKind(reading, line)
    if (contradicted !== null) return fail(contradicted)
  }
  return finishHeader(reading, sectionLine, index)
}

/**
 * The prefixes "diff --git" puts before its two names: a/ and b/ (also beside /dev/null), or any
 * two different first components before one name (i/f w/f, as diff.mnemonicPrefix writes).
 * `--no-prefix` names keep their first component (leniency: git would strip it).
 */
function namePrefixes(oldHalf: string, newHalf: string): readonly [string, string] | null {
  if (oldHalf.startsWith('a/') && newHalf.startsWith('b/')) return ['a/', 'b/']
  // Hand-written creations and deletions may put /dev/null on the diff --git line (git's own
  // t4115 does); the other half's a/ or b/ is still a prefix, as git strips it.
  if (oldHalf === '/dev/null' && newHalf.startsWith('b/')) return ['a/', 'b/']
  if (newHalf === '/dev/null' && oldHalf.startsWith('a/')) return ['a/', 'b/']
  const oldSlash = oldHalf.indexOf('/')
  const newSlash = newHalf.indexOf('/')
  if (oldSlash <= 0 || newSlash <= 0) return null
  const oldPrefix = oldHalf.slice(0, oldSlash + 1)
  const newPrefix = newHalf.slice(0, newSlash + 1)
  if (oldPrefix === newPrefix) return null
  const rest = oldHalf.slice(oldSlash + 1)
  return rest !== '' && rest === newHalf.slice(newSlash + 1) ? [oldPrefix, newPrefix] : null
}

function readHeaderLine(
  reading: Reading,
  field: HeaderField,
  line: PatchLineRef,
  rest: string,
): EditErrorData | null {
  switch (field) {
    case 'oldName':
      return readFileLine(reading, 'old', line, rest)
    case 'newName':
      return readFileLine(reading, 'new', line, rest)
    case 'oldMode':
    case 'newMode':
    case 'deletedFileMode':
    case 'newFileMode': {
      const mode = readMode(reading, line, rest)
      if (!mode.ok) return mode.error
      if (field === 'oldMode' || field === 'deletedFileMode') reading.oldMode = mode.value
      else reading.newMode = mode.value
      if (field === 'deletedFileMode') {
        // The old file is the one "diff --git" names, whatever a --- line said before (git).
        reading.deleted = line
        setFixed(reading, 'old', reading.defName, line)
      } else if (field === 'newFileMode') {
        reading.created = line
        setFixed(reading, 'new', reading.defName, line)
      }
      return null
    }
    case 'renameFrom':
    case 'renameTo':
    case 'copyFrom':
    case 'copyTo': {
      const name = parseName(rest, 'none')?.name
      if (name === undefined) return malformed(reading, line)
      if (field === 'renameFrom' || field === 'renameTo') reading.renamed ??= line
      else reading.copied ??= line
      setFixed(reading, field === 'renameFrom' || field === 'copyFrom' ? 'old' : 'new', name, line)
      return null
    }
    case 'score':
      return null
    case 'index': {
      // Leniency: a malformed index line is skipped, since text hunks do not need it.
      const match = INDEX_RE.exec(line.text)
      if (match === null) return null
      reading.index = {
        oldId: (match[1] as string).toLowerCase(),
        newId: (match[2] as string).toLowerCase(),
      }
      const mode = match[3] === undefined ? undefined : readMode(reading, line, match[3])
      if (mode?.ok === true) reading.indexMode = mode.value
      return null
    }
  }
}

function setFixed(reading: Reading, side: Side, name: string | null, line: PatchLineRef): void {
  if (name === null) delete reading[side]
  else reading[side] = { name, ...line }
}

/** The mode a mode line (or an index line) states, as git's strtoul reads it, canonicalised. */
function readMode(reading: Reading, line: PatchLineRef, rest: string): Result<ModeLine> {
  const digits = MODE_RE.exec(rest)?.[1]
  const value = digits === undefined ? NaN : parseInt(digits, 8)
  const mode = Number.isNaN(value) ? null : canonicalMode(value)
  if (mode === null) {
    return fail(
      errorData(
        'PARSE_BAD_HEADER',
        `The header line "${clip(line.text)}" for ${reading.label} at patch line ${line.patchLine} states no file mode git applies (100644, 100755, 120000 or 160000).`,
        { path: reading.label, patchLine: line.patchLine },
      ),
    )
  }
  return ok({ ...line, mode, value })
}

function malformed(reading: Reading, line: PatchLineRef): EditErrorData {
  return errorData(
    'PARSE_BAD_HEADER',
    `The header line "${clip(line.text)}" for ${reading.label} at patch line ${line.patchLine} is malformed.`,
    { path: reading.label, patchLine: line.patchLine },
  )
}

/**
 * A ---/+++ line: it names its side when nothing did yet, and must otherwise agree with the name
 * a new file, deleted file, rename or copy line fixed (git's "inconsistent old/new filename"):
 * /dev/null for the side a creation or deletion lacks, else the same file, with or without the
 * first component that is its prefix.
 */
function readFileLine(
  reading: Reading,
  side: Side,
  line: PatchLineRef,
  rest: string,
): EditErrorData | null {
  reading.hasFileLines = true
  const parsed = parseName(rest, 'tab')
  if (parsed === null) {
    return errorData(
      'PARSE_BAD_HEADER',
      `The file name at patch line ${line.patchLine} is missing or badly quoted.`,
      { path: reading.label, patchLine: line.patchLine },
    )
  }
  const isNull = parsed.name === DEV_NULL
  const absentBy = side === 'old' ? reading.created : reading.deleted
  const fixed = reading[side]
  if (fixed === undefined && absentBy === undefined) {
    if (isNull) reading[side === 'old' ? 'oldNull' : 'newNull'] = line
    else reading[side] = { name: stripPrefix(reading, parsed.name), ...line }
    return null
  }
  if (absentBy !== undefined) {
    if (isNull) return null
    const which = side === 'old' ? 'an old file' : 'a new file'
    const kind = side === 'old' ? 'creates' : 'deletes'
    return inconsistent(
      line,
      `"${clip(line.text)}" at patch line ${line.patchLine} names ${which}, but "${clip(absentBy.text)}" at patch line ${absentBy.patchLine} ${kind} ${reading.label}, so that side is /dev/null`,
      reading.label,
    )
  }
  const name = (fixed as NamedBy).name
  if (!isNull && (parsed.name === name || dropFirstComponent(parsed.name) === name)) return null
  return inconsistent(
    line,
    `"${clip(line.text)}" at patch line ${line.patchLine} names ${isNull ? 'no file' : stripPrefix(reading, parsed.name)}, but "${clip((fixed as NamedBy).text)}" at patch line ${(fixed as NamedBy).patchLine} names ${name}`,
    name,
  )
}

function stripPrefix(reading: Reading, name: string): string {
  const prefix = reading.prefixes?.find((p) => name.startsWith(p))
  return prefix === undefined ? name : name.slice(prefix.length)
}

function dropFirstComponent(name: string): string {
  const slash = name.indexOf('/')
  return slash === -1 ? name : name.slice(slash + 1)
}

function inconsistent(line: PatchLineRef, why: string, path: string): EditErrorData {
  return errorData('PARSE_INCONSISTENT_HEADER', `The git header disagrees with itself: ${why}.`, {
    hint: INCONSISTENT_HINT,
    path,
    patchLine: line.patchLine,
  })
}

/** At most one of new file, deleted file, rename and copy (git's check_header_line). */
function checkOneKind(reading: Reading, line: PatchLineRef): EditErrorData | null {
  const kinds = [reading.created, reading.deleted, reading.renamed, reading.copied].filter(
    (seen) => seen !== undefined,
  ).length
  if (kinds === 0) return null
  if (reading.kindLine === undefined) {
    reading.kindLine = line
    return null
  }
  if (kinds === 1) return null
  const earlier = reading.kindLine
  return inconsistent(
    line,
    `"${clip(line.text)}" at patch line ${line.patchLine} contradicts "${clip(earlier.text)}" at patch line ${earlier.patchLine}: a section creates, deletes, renames or copies, only one of them`,
    reading.label,
  )
}

function finishHeader(reading: Reading, sectionLine: number, next: number): Result<GitHeader> {
  const { label } = reading
  if (reading.oldNull !== undefined && reading.newNull !== undefined) {
    return fail(
      errorData(
        'PARSE_BAD_HEADER',
        `The git header at patch line ${sectionLine} names no file: both sides are /dev/null.`,
        { patchLine: sectionLine },
      ),
    )
  }
  // git reads /dev/null in a git section as a file named dev/null unless a file mode line before
  // it made that side absent: patchloom refuses rather than touch dev/null.
  const strayNull =
    reading.oldNull !== undefined && reading.created === undefined
      ? { line: reading.oldNull, creating: true }
      : reading.newNull !== undefined && reading.deleted === undefined
        ? { line: reading.newNull, creating: false }
        : null
  if (strayNull !== null) {
    const { line, creating } = strayNull
    return fail(
      errorData(
        'PARSE_INCONSISTENT_HEADER',
        `The git header disagrees with itself: "${clip(line.text)}" at patch line ${line.patchLine} says ${label} is ${creating ? 'created' : 'deleted'}, but the section has no "${creating ? 'new' : 'deleted'} file mode" line.`,
        {
          hint: `Add a "${creating ? 'new' : 'deleted'} file mode 100644" line after the diff --git line, or name the file on the ${creating ? '---' : '+++'} line.`,
          path: label,
          patchLine: line.patchLine,
        },
      ),
    )
  }
  // A --- line before `new file mode` named an old file the creation does not have (git aborts).
  if (reading.created !== undefined && reading.old !== undefined) {
    const named = reading.old
    const created = reading.created
    return fail(
      inconsistent(
        named,
        `"${clip(named.text)}" at patch line ${named.patchLine} names an old file, but "${clip(created.text)}" at patch line ${created.patchLine} creates ${label}, so that side is /dev/null`,
        label,
      ),
    )
  }
  let oldName = reading.old?.name
  let newName = reading.new?.name
  if (oldName === undefined && newName === undefined) {
    if (reading.defName === null) {
      return fail(
        errorData(
          'PARSE_BAD_HEADER',
          `The git header at patch line ${sectionLine} lacks filename information: its two "diff --git" names differ and no ---/+++, rename or copy line names the files.`,
          { path: label, patchLine: sectionLine },
        ),
      )
    }
    if (reading.created === undefined) oldName = reading.defName
    if (reading.deleted === undefined) newName = reading.defName
  }
  const missing =
    newName === undefined && reading.deleted === undefined
      ? 'new'
      : oldName === undefined && reading.created === undefined
        ? 'old'
        : null
  if (missing !== null) {
    const named = (missing === 'new' ? reading.old : reading.new) as NamedBy
    return fail(
      errorData(
        'PARSE_BAD_HEADER',
        `The git header at patch line ${sectionLine} lacks filename information: "${clip(named.text)}" at patch line ${named.patchLine} names the ${missing === 'new' ? 'old' : 'new'} file, but no line names the ${missing} one (${missing === 'new' ? '"+++ ", "rename to" or "copy to"' : '"--- ", "rename from" or "copy from"'}).`,
        { path: label, patchLine: named.patchLine },
      ),
    )
  }
  const typeChange = modeTypeChange(reading)
  if (typeChange !== null) return fail(typeChange)
  const kind =
    reading.created !== undefined
      ? 'create'
      : reading.deleted !== undefined
        ? 'delete'
        : reading.renamed !== undefined
          ? 'rename'
          : reading.copied !== undefined
            ? 'copy'
            : 'modify'
  const oldValue = reading.oldMode?.value ?? reading.indexMode?.value
  const changesMode =
    oldValue !== undefined && reading.newMode !== undefined && oldValue !== reading.newMode.value
  const indexMode = reading.indexMode?.mode === '120000' ? reading.indexMode.mode : undefined
  return ok({
    kind,
    oldName: kind === 'create' ? null : (oldName as string),
    newName: kind === 'delete' ? null : (newName as string),
    label,
    ...(reading.oldMode === undefined ? {} : { oldMode: reading.oldMode.mode }),
    ...(reading.newMode === undefined ? {} : { newMode: reading.newMode.mode }),
    ...(indexMode === undefined ? {} : { indexMode }),
    ...(reading.index === undefined ? {} : { index: reading.index }),
    changesMetadata: kind !== 'modify' || changesMode,
    hasModeLine: reading.oldMode !== undefined || reading.newMode !== undefined,
    hasFileLines: reading.hasFileLines,
    next,
  })
}

/**
 * A mode line may change a file's mode, never its type (git: "new mode ... does not match old
 * mode"): a file becoming a symlink or a submodule is a deletion and a creation.
 */
function modeTypeChange(reading: Reading): EditErrorData | null {
  const before = reading.oldMode ?? reading.indexMode
  const after = reading.newMode
  if (before === undefined || after === undefined) return null
  if (reading.created !== undefined || reading.deleted !== undefined) return null
  if ((before.value & S_IFMT) === (after.value & S_IFMT)) return null
  return inconsistent(
    after,
    `"${clip(after.text)}" at patch line ${after.patchLine} gives ${reading.label} another type than "${clip(before.text)}" at patch line ${before.patchLine}; a type change is a deletion and a creation`,
    reading.label,
  )
}
