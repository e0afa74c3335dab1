// Piscina task module: the pure parse and compute functions behind two named tasks, and `verify`,
// which resolves, reads and verifies a batch of ops against the files themselves (#9: the worker
// reads its own files with synchronous calls instead of being sent copies). Jobs and replies are
// plain data (src/coordinator/jobs.ts); failures come back as values (workers/reply.ts) because
// an Error thrown here would reach the coordinator stripped of its fields and looking like a
// crashed thread.
import { computeFile } from '../src/apply/compute.js'
import type {
  ComputeJob,
  ParseJob,
  VerifyJob,
  VerifyReply,
  WorkerReply,
} from '../src/coordinator/jobs.js'
import { createSyncReadFs } from '../src/coordinator/read-fs.js'
import {
  packOutcomes,
  verifyOps,
  type OpOutcome,
  type VerifySettings,
} from '../src/coordinator/verify.js'
import { parsePatch } from '../src/parse/index.js'
import { checkPlanEncoding } from '../src/parse/raw-bytes.js'
import { shiftPatchLines } from '../src/parse/segments.js'
import { parseUnifiedDiff } from '../src/parse/unified.js'
import { ok } from '../src/result.js'
import type { ComputedFile, EditPlan, FileOp } from '../src/types.js'
import { replyTo, replyToAsync } from './reply.js'

export function parse(job: ParseJob): WorkerReply<EditPlan> {
  return replyTo(job.protocol, () => parsePatch(job.text, job.format))
}

export function compute(job: ComputeJob): WorkerReply<ComputedFile> {
  return replyTo(job.protocol, () => computeFile(job))
}

// The new bytes of the whole batch travel as one ArrayBuffer (packOutcomes): cloning one buffer is
// a single copy, where thousands of small arrays each cost a clone (#9). Transferring it instead
// would need piscina's private `move` marker; the copy measured cheaper than loading piscina here.
export async function verify(
  job: VerifyJob<VerifySettings>,
): Promise<WorkerReply<VerifyReply<OpOutcome>>> {
  return replyToAsync<VerifyReply<OpOutcome>>(job.protocol, async () => {
    const { input } = job
    let ops: readonly FileOp[]
    if (input.kind === 'ops') ops = input.ops
    else {
      const plan = parseUnifiedDiff(input.text)
      // Any doubt goes back to the coordinator, which parses the whole patch for the exact answer.
      if (
        !plan.ok ||
        plan.value.ops.length !== input.sections ||
        !checkPlanEncoding(plan.value, undefined).ok
      )
        return ok({ parsed: false, outcomes: [] })
      ops = shiftPatchLines(plan.value.ops, input.firstLine)
    }
    const outcomes = await verifyOps(ops, job.settings, createSyncReadFs())
    return ok({ parsed: true, outcomes: packOutcomes(outcomes).outcomes })
  })
}
