// Piscina task module: `verify` resolves, reads and verifies a batch of ops against the files
// themselves (#9: the worker reads its own files with synchronous calls instead of being sent
// copies), parsing them first when it is given a run of a git diff's text. Jobs and replies are
// plain data (src/coordinator/jobs.ts); failures come back as values (workers/reply.ts) because
// an Error thrown here would reach the coordinator stripped of its fields and looking like a
// crashed thread.
import type { VerifyJob, VerifyReply, WorkerReply } from '../src/coordinator/jobs.js'
import { createSyncReadFs } from '../src/coordinator/read-fs.js'
import {
  packOutcomes,
  verifyOps,
  type OpOutcome,
  type VerifySettings,
} from '../src/coordinator/verify.js'
import { checkPlanEncoding } from '../src/parse/raw-bytes.js'
import { shiftPatchLines } from '../src/parse/segments.js'
import { parseUnifiedDiff } from '../src/parse/unified.js'
import { ok } from '../src/result.js'
import type { FileOp } from '../src/types.js'
import { replyToAsync } from './reply.js'

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
