// One verify job, end to end, on whichever thread runs it: a worker (workers/engine.worker.ts
// wraps it in its reply envelope), or the calling thread when an engine with blockingReads
// verifies a large request inline in runs (dispatch.ts). Given ops, or a run of a git diff's text
// that it reads first (plain sections packed when no diff is rendered, src/parse/plain-section.ts);
// any doubt about a run (it does not parse, parses to another number of ops than it has sections,
// or holds raw bytes) answers `parsed: false`, and the engine parses the whole patch for the exact
// answer. Synchronous filesystem calls.
import { readUnifiedRun } from '../parse/plain-section.js'
import type { FileOp } from '../types.js'
import type { VerifyJob, VerifyReply } from '../threads/jobs.js'
import { createSyncReadFs } from '../workspace/read-fs.js'
import { packOutcomes } from './pack-outcomes.js'
import { verifyOps, type OpOutcome, type VerifySettings } from './verify.js'

/** `inThisThread`: the outcomes stay in the calling thread, so their bytes are not packed. */
export async function runVerifyJob(
  job: VerifyJob<VerifySettings>,
  inThisThread = false,
): Promise<VerifyReply<OpOutcome>> {
  const { input } = job
  let ops: readonly FileOp[]
  if (input.kind === 'ops') ops = input.ops
  else {
    // Plain sections are packed only where the exact splice may take them: no diff is rendered.
    const read = readUnifiedRun(input, !job.settings.diffs)
    if (read === null) return { parsed: false, outcomes: [] }
    ops = read
  }
  const outcomes = await verifyOps(ops, job.settings, createSyncReadFs())
  // For a worker, the new bytes of the batch go in one buffer (one copy to clone out of it); in
  // this thread they stay where they are. Either way no op keeps its parsed hunks once verified.
  return { parsed: true, outcomes: packOutcomes(outcomes, !inThisThread).outcomes }
}
