// One verify job, end to end, on whichever thread runs it (#9): a Piscina worker
// (workers/engine.worker.ts wraps it in its reply envelope), or the calling thread when an engine
// with blockingReads verifies a large request inline in runs (verify-request.ts). Given ops, or a
// run of a git diff's text that it parses first; any doubt about a run (it does not parse, parses
// to another number of ops than it has sections, or holds raw bytes) answers `parsed: false`, and
// the coordinator parses the whole patch for the exact answer. Synchronous filesystem calls.
import { checkPlanEncoding } from '../parse/raw-bytes.js'
import { shiftPatchLines } from '../parse/segments.js'
import { parseUnifiedDiff } from '../parse/unified.js'
import type { FileOp } from '../types.js'
import type { VerifyJob, VerifyReply } from './jobs.js'
import { createSyncReadFs } from './read-fs.js'
import { packOutcomes, verifyOps, type OpOutcome, type VerifySettings } from './verify.js'

export async function runVerifyJob(
  job: VerifyJob<VerifySettings>,
): Promise<VerifyReply<OpOutcome>> {
  const { input } = job
  let ops: readonly FileOp[]
  if (input.kind === 'ops') ops = input.ops
  else {
    const plan = parseUnifiedDiff(input.text)
    if (
      !plan.ok ||
      plan.value.ops.length !== input.sections ||
      !checkPlanEncoding(plan.value, undefined).ok
    )
      return { parsed: false, outcomes: [] }
    ops = shiftPatchLines(plan.value.ops, input.firstLine)
  }
  const outcomes = await verifyOps(ops, job.settings, createSyncReadFs())
  // Packed: the new bytes of the batch in one buffer (one copy to clone out of a worker), and no
  // op keeps its parsed hunks once verified.
  return { parsed: true, outcomes: packOutcomes(outcomes).outcomes }
}
