// Piscina task module, one export per task of src/threads/jobs.ts TASKS. `verify` resolves, reads
// and verifies a batch of ops against the files themselves (the worker reads its own files with
// synchronous calls instead of being sent copies), parsing them first when it is given a run of a
// git diff's text (src/engine/verify-job.ts, which the calling thread also runs for
// blockingReads); `replay` computes one commit of a history replay. Jobs and replies are plain
// data (src/threads/jobs.ts); failures come back as values (workers/reply.ts) because an Error
// thrown here would reach the main thread stripped of its fields and looking like a crashed thread.
import type { VerifyJob, VerifyReply, WorkerReply } from '../src/threads/jobs.js'
import { runVerifyJob } from '../src/engine/verify-job.js'
import type { OpOutcome, VerifySettings } from '../src/engine/verify.js'
import { ok } from '../src/result.js'
import { computeCommit, type CommitJob } from '../src/replay/commit.js'
import type { AppliedPlan } from '../src/replay/tree.js'
import { replyTo, replyToAsync } from './reply.js'

// The new bytes of the whole batch travel as one ArrayBuffer (packOutcomes): cloning one buffer is
// a single copy, where thousands of small arrays each cost a clone. Transferring it instead
// would need piscina's private `move` marker; the copy measured cheaper than loading piscina here.
export async function verify(
  job: VerifyJob<VerifySettings>,
): Promise<WorkerReply<VerifyReply<OpOutcome>>> {
  return replyToAsync<VerifyReply<OpOutcome>>(job.protocol, async () => ok(await runVerifyJob(job)))
}

/** History replay: one commit's diff applied to the entries it reads (src/replay/commit.ts). */
export function replay(job: CommitJob): WorkerReply<AppliedPlan> {
  return replyTo<AppliedPlan>(job.protocol, () => ok(computeCommit(job.sources, job.work)))
}
