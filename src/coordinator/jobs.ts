// The shapes that cross the coordinator <-> worker boundary. Plain data only: a job and its
// Result survive structuredClone unchanged, so the same pure functions run inline or in a
// Piscina worker. Bump JOB_PROTOCOL when a shape changes incompatibly; workers refuse jobs
// stamped with another version (a stale dist/ would otherwise misread them).
import type { Result } from '../result.js'
import type { EditPlan, FileMode, FileOp, FormatOption, PatchFormat, Warning } from '../types.js'

// 2: ComputeJob.rawBytes (#8).
export const JOB_PROTOCOL = 2

export interface ParseJob {
  readonly protocol: number
  readonly text: string
  readonly format: FormatOption
}

export type ParseOutcome = Result<EditPlan>

/**
 * Compute one file's new content. `source` is the current content of the file the op reads:
 * op.path for update/delete/edits and for add (to report an overwrite), op.from for copy;
 * null when it does not exist.
 */
export interface ComputeJob {
  readonly protocol: number
  readonly format: PatchFormat
  readonly op: FileOp
  readonly source: Uint8Array | null
  readonly sourceMode?: FileMode
  /** The op's forward GIT binary hunk, inflated by the coordinator (zlib is not in the pure core). */
  readonly inflated?: Uint8Array
  /**
   * The op's text holds raw bytes (a patch that is not UTF-8, src/text/patch-bytes.ts): match it
   * byte-exactly against the file's bytes and write its bytes as they are (D-040).
   */
  readonly rawBytes?: true
}

export interface ComputedFile {
  /** New content; null when the op deletes the file. */
  readonly after: Uint8Array | null
  readonly additions: number
  readonly deletions: number
  /** Unified diff with a/ and b/ headers ('' when the content is unchanged). */
  readonly diff: string
  readonly warnings: readonly Warning[]
}

export type ComputeOutcome = Result<ComputedFile>
