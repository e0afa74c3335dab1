// The shapes that cross the coordinator <-> worker boundary. Plain data only: a job and its
// Result survive structuredClone unchanged, so the same pure functions run inline or in a
// Piscina worker. Bump JOB_PROTOCOL when a shape changes incompatibly; workers refuse jobs
// stamped with another version (a stale dist/ would otherwise misread them).
import type { Result } from '../result.js'
import type { ComputedFile, ComputeInput, EditPlan, FormatOption } from '../types.js'

// 2: ComputeInput.rawBytes (#8).
export const JOB_PROTOCOL = 2

export interface ParseJob {
  readonly protocol: number
  readonly text: string
  readonly format: FormatOption
}

export type ParseOutcome = Result<EditPlan>

/** One file's compute input (src/types.ts), stamped for the worker. */
export interface ComputeJob extends ComputeInput {
  readonly protocol: number
}

export type ComputeOutcome = Result<ComputedFile>
