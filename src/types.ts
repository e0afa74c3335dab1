// Plain-data shapes shared by every phase. Everything here is clone-safe (no classes, no
// functions) so a plan can cross into a worker thread and back unchanged.
//
// Positions: `...Line` is 1-based for humans (patchLine, fileLine, startLine); `start`/`index`
// are 0-based array positions.
import type { DiagnosticsReport } from './lsp/reports.js'
import type { WarningCode } from './warnings.js'

export type PatchFormat = 'codex' | 'unified' | 'search-replace' | 'edits'
export type FormatOption = PatchFormat | 'auto'

/** One line of a hunk body: ' ' context, '-' removed, '+' added. `text` has no terminator. */
export interface HunkLine {
  readonly op: ' ' | '-' | '+'
  readonly text: string
  /**
   * The line's ending as the patch states it: '\r\n' when a unified diff body line ends in "\r\n"
   * (`git diff` of a CRLF file). Absent means '\n' or unknown. Only the unified parser sets it, and
   * only when the patch is not CRLF throughout (then the '\r's came from transit). When any line
   * of an op's hunks carries it, added lines take exactly the ending the patch states.
   */
  readonly eol?: '\r\n'
}

/**
 * A block of line changes. How it is located depends on the op's LocateMode:
 * - 'cursor' (Codex): in order, each searched after the previous one, narrowed by `hints`;
 * - 'near-line' (unified): searched outward from `oldStartLine`, nearest match wins;
 * - 'sequential' (SEARCH/REPLACE): applied one after another, each searched in the whole
 *   current text; an empty old side appends at the end.
 */
export interface LineHunk {
  /** 1-based line in the patch where this hunk (its @@ line, or first body line) starts. */
  readonly patchLine: number
  /** Codex `@@ <hint>` lines, outermost first; empty when none. */
  readonly hints: readonly string[]
  /**
   * Codex: how many patch lines the first body line lies below `patchLine` (the chunk's `@@`
   * lines; 0 without one), so a message can name a body line by its patch line. Absent when
   * unknown; a unified hunk's body starts one line below its header.
   */
  readonly bodyOffset?: number
  /** Unified: the stated 1-based start of the old side (0 when the old side is empty at top). */
  readonly oldStartLine?: number
  /** Codex `*** End of File`: the hunk belongs at the end of the file. */
  readonly endOfFile: boolean
  readonly lines: readonly HunkLine[]
  /**
   * SEARCH/REPLACE: the block's lines paired the other way, where a line repeated on both sides
   * makes the diff between SEARCH and REPLACE tie (same old and new sides, other context lines).
   * After a lenient match the two can write different bytes; the engine then refuses.
   */
  readonly altLines?: readonly HunkLine[]
  /** Unified `\ No newline at end of file` after the last old-side line. */
  readonly oldNoNewlineAtEnd?: boolean
  /** Unified `\ No newline at end of file` after the last new-side line. */
  readonly newNoNewlineAtEnd?: boolean
  /**
   * Unified: the header's text after the second `@@` (git's function context, the nearest line
   * above the hunk that looks like a function or section start, cut to 80 bytes). Nothing
   * applies it; history replay turns it into a Codex `@@` hint.
   */
  readonly section?: string
}

export type LocateMode = 'cursor' | 'near-line' | 'sequential'

/** One `GIT binary patch` hunk, base85-decoded but still deflated. */
export interface BinaryHunk {
  readonly method: 'literal' | 'delta'
  /** Size in bytes after inflating. */
  readonly inflatedSize: number
  readonly deflated: Uint8Array
}

export interface BinaryPatch {
  readonly forward: BinaryHunk
  readonly reverse?: BinaryHunk
  /**
   * The git `index` line's blob ids of the file before and after (lowercase hex, full or
   * abbreviated; all zeros for no file), when the diff has one. The preimage is checked against
   * `oldId` and the result against `newId` (src/apply/git-binary.ts).
   */
  readonly oldId?: string
  readonly newId?: string
}

/** Git file modes as octal strings, e.g. '100644', '100755', '120000'. */
export type FileMode = string

export interface AddOp {
  readonly kind: 'add'
  readonly path: string
  readonly patchLine: number
  /**
   * Full text of the new file: lines joined with '\n' (each with its stated ending when a unified
   * diff gives one, see HunkLine.eol). Ignored when `binary` is set.
   */
  readonly content: string
  readonly binary?: BinaryPatch
  readonly modeAfter?: FileMode
  /** true for Codex Add File (overwrites an existing file); false for diffs (FILE_EXISTS). */
  readonly overwrite: boolean
}

export interface DeleteOp {
  readonly kind: 'delete'
  readonly path: string
  readonly patchLine: number
  /** Unified diffs state the removed content; it is verified. Empty for Codex. */
  readonly hunks: readonly LineHunk[]
  readonly binary?: BinaryPatch
  /**
   * A git deletion that carries no data but a full `index` line (`Binary files a/x and /dev/null
   * differ` under `index <full id>..000…`): the file must be exactly this blob, as git checks it.
   */
  readonly gitBlobId?: string
  readonly modeBefore?: FileMode
}

export interface UpdateOp {
  readonly kind: 'update'
  readonly path: string
  readonly patchLine: number
  readonly moveTo?: string
  readonly hunks: readonly LineHunk[]
  readonly locate: LocateMode
  readonly binary?: BinaryPatch
  readonly modeBefore?: FileMode
  readonly modeAfter?: FileMode
  /** SEARCH/REPLACE: an empty SEARCH on a missing file creates it. */
  readonly createIfMissing?: boolean
  /**
   * A plain `git diff` section read without line objects (src/parse/plain-section.ts):
   * `hunks` is then empty and the hunks are this text. Compute splices it exactly or parses it
   * (unpackHunks); nothing past verification sees it (src/engine/verify.ts withoutBody drops it).
   */
  readonly packed?: PackedBody
}

/** The text of a plain section and where its hunks are in it (plain-section.ts). */
export interface PackedBody {
  /** A string holding the section: [from, to) is the whole section, its first line included. */
  readonly text: string
  readonly from: number
  readonly to: number
  readonly hunks: readonly PackedHunk[]
}

/** One hunk of a packed body: stated old start and counts, and its body lines' offsets. */
export interface PackedHunk {
  readonly oldStart: number
  readonly oldCount: number
  readonly newCount: number
  /** [bodyFrom, bodyTo): the body lines, each " ", "-" or "+", text and '\n'. */
  readonly bodyFrom: number
  readonly bodyTo: number
}

export interface CopyOp {
  readonly kind: 'copy'
  readonly from: string
  readonly path: string
  readonly patchLine: number
  readonly hunks: readonly LineHunk[]
  readonly locate: LocateMode
  readonly binary?: BinaryPatch
  readonly modeAfter?: FileMode
}

export type StringEdit =
  | {
      readonly mode: 'replace'
      readonly index: number
      readonly oldString: string
      readonly newString: string
      readonly replaceAll: boolean
      readonly expectedMatches?: number
      /** Which match to replace: 1 = first, 2 = second, -1 = last; never 0. */
      readonly occurrence?: number
      /** old_string is a JavaScript regular expression; new_string may use $1, $<name>, $&, $$. */
      readonly regex?: boolean
      /** RegExp flags for a regex edit, from "imsuv" ('g' is implied). */
      readonly flags?: string
      /** Only an exact match counts: no lenient ladder. */
      readonly strict?: boolean
      /** A tab in leading indentation counts as four spaces when matching whole lines. */
      readonly tolerantWhitespace?: boolean
      /** Lets a small old_string be replaced by a new_string that restates most of the file. */
      readonly allowRewrite?: boolean
      readonly expectedHash?: string
    }
  | {
      readonly mode: 'insert'
      readonly index: number
      /**
       * The text to insert next to. One final line break ends its last line; further ones are
       * blank lines of the anchor (`"}\n\n"`: the `}` line and the blank line after it).
       */
      readonly anchor: string
      readonly position: 'before' | 'after'
      readonly newString: string
      /** Which match of the anchor to insert at: 1 = first, -1 = last; never 0. */
      readonly occurrence?: number
      readonly strict?: boolean
      readonly tolerantWhitespace?: boolean
      readonly expectedHash?: string
    }
  | {
      /** JSON `{ "mode": "insert", "after_line": N }`: new lines after line N, 0 = before line 1. */
      readonly mode: 'insert_line'
      readonly index: number
      readonly afterLine: number
      readonly newString: string
      readonly expectedHash?: string
    }
  | {
      readonly mode: 'replace_range'
      readonly index: number
      readonly startLine: number
      readonly endLine: number
      readonly newString: string
      readonly expectedHash?: string
    }
  | {
      readonly mode: 'delete_range'
      readonly index: number
      readonly startLine: number
      readonly endLine: number
      readonly expectedHash?: string
    }
  | {
      readonly mode: 'write'
      readonly index: number
      readonly content: string
      readonly expectedHash?: string
    }

/** JSON edits to one file, applied in order. `index` on each edit is its 0-based position in the request. */
export interface EditsOp {
  readonly kind: 'edits'
  readonly path: string
  /** 1-based position of the first edit for this path in the request's edit list. */
  readonly patchLine: number
  readonly edits: readonly StringEdit[]
}

export type FileOp = AddOp | DeleteOp | UpdateOp | CopyOp | EditsOp

/** The parsed form of any input: what every later phase works from. */
export interface EditPlan {
  readonly format: PatchFormat
  readonly ops: readonly FileOp[]
}

export type ResultOp = 'add' | 'update' | 'delete' | 'move' | 'copy'

/** Something worth telling the caller that did not stop the change. */
export interface Warning {
  /** Stable dotted code (WARNING_CODES, ERRORS.md), e.g. 'match.lenient', 'journal.recovered'. */
  readonly code: WarningCode
  readonly message: string
  readonly path?: string
  readonly patchLine?: number
}

/**
 * What computing one file's new content needs. `source` is the current content of the file the op
 * reads: op.path for update/delete/edits and for add (to report an overwrite), op.from for copy;
 * null when it does not exist. A verification worker builds it from the files it reads (src/engine/verify.ts).
 */
export interface ComputeInput {
  readonly format: PatchFormat
  readonly op: FileOp
  readonly source: Uint8Array | null
  readonly sourceMode?: FileMode
  /** The op's forward GIT binary hunk, inflated by the engine (zlib is not in the pure core). */
  readonly inflated?: Uint8Array
  /**
   * The op's text holds raw bytes (a patch that is not UTF-8, src/text/patch-bytes.ts): match it
   * byte-exactly against the file's bytes and write its bytes as they are.
   */
  readonly rawBytes?: true
  /** Count added and removed lines but leave ComputedFile.diff empty (the caller shows no diff). */
  readonly countOnly?: true
  /**
   * Only the new bytes are wanted (history replay): no diff and no counts; ComputedFile's
   * additions and deletions are then 0. A minimal diff of a 20,000-line lockfile's rewrite took
   * 18 s just to count its lines.
   */
  readonly bytesOnly?: true
  /**
   * The caller checked that `source` is valid UTF-8, which lets an exactly placed unified diff be
   * spliced into the bytes without decoding them (src/apply/exact-splice.ts).
   */
  readonly sourceIsUtf8?: true
  /** The caller checked that `source` holds no CR and no NUL byte (it has a native search). */
  readonly sourceHasNoCrOrNul?: true
  /** Report where each line hunk was placed (ComputedFile.placements; history replay). */
  readonly placements?: true
  /** A MATCH_NOT_FOUND needs no near-miss candidates (history replay only counts refusals). */
  readonly noCandidates?: true
  /**
   * Line hunks keep the file's final-newline state whatever the format's rule (CheckOptions
   * finalNewline 'keep'; src/apply/apply-hunks.ts finishLastLine).
   */
  readonly keepFinalNewline?: true
}

/** One file's computed change, before anything is written. */
export interface ComputedFile {
  /** New content; null when the op deletes the file. */
  readonly after: Uint8Array | null
  readonly additions: number
  readonly deletions: number
  /** Unified diff with a/ and b/ headers ('' when the content is unchanged, or with countOnly). */
  readonly diff: string
  readonly warnings: readonly Warning[]
  /**
   * With ComputeInput.placements, for line hunks placed by the matcher: each hunk's 0-based first
   * line (its insertion index when it removes nothing), in patch order, in the text it was
   * searched in: the file as it was ('cursor', 'near-line'), or the text the earlier hunks left
   * ('sequential'). Absent for ops without line hunks and for exact splices.
   */
  readonly placements?: readonly number[]
}

/** One file in a result. Hashes are `sha256:<hex>` of the raw bytes; null where the file does not exist. */
export interface FileResult {
  readonly path: string
  readonly op: ResultOp
  readonly from?: string
  readonly additions: number
  readonly deletions: number
  readonly beforeHash: string | null
  readonly afterHash: string | null
  readonly modeBefore?: FileMode
  readonly modeAfter?: FileMode
  readonly overwrote?: boolean
  /**
   * Unified diff of this file's change, with a/ and b/ headers; '' when the content is unchanged,
   * or when the request asked for no diffs (ApplyOptions.diffs: false).
   */
  readonly diff: string
}

/** What apply and check resolve with; a failure rejects with EditError instead. */
export interface ApplyResult {
  readonly format: PatchFormat
  readonly dryRun: boolean
  readonly files: readonly FileResult[]
  readonly warnings: readonly Warning[]
  /**
   * The journal transaction that committed the change (pass it to undo). Absent on dry runs and
   * when the change left every file as it was.
   */
  readonly transaction?: string
  /**
   * Language-server diagnostics for the committed change, when diagnostics are on.
   * Absent on dry runs and when no touched file is served by a language server.
   */
  readonly diagnostics?: DiagnosticsReport
}
