// Runs verification for a whole request on the route chosen for it (route.ts): inline, one pass
// of verify.ts over every op with asynchronous filesystem calls; on the pool, contiguous batches
// that workers verify against the files themselves. Either way the outcomes go through one
// settle() (settle.ts), so both routes fail with the same error for the same request.
import type { EditPlan } from '../types.js'
import { throwIfAborted } from './abort.js'
import type { JobPool } from './job-pool.js'
import { JOB_PROTOCOL } from './jobs.js'
import { asyncReadFs } from './read-fs.js'
import { batchRanges, type Route } from './route.js'
import { settle } from './settle.js'
import { verifyOps, type OpOutcome, type VerifiedOp, type VerifySettings } from './verify.js'

export async function verifyRequest(
  plan: EditPlan,
  settings: VerifySettings,
  route: Route,
  pool: JobPool | undefined,
  signal?: AbortSignal,
): Promise<VerifiedOp[]> {
  const inline = (indices: readonly number[]) =>
    verifyOps(
      indices.map((i) => plan.ops[i] as EditPlan['ops'][number]),
      settings,
      asyncReadFs,
    )
  if (route === 'inline' || pool === undefined) {
    const outcomes = await verifyOps(plan.ops, settings, asyncReadFs)
    throwIfAborted(signal)
    return settle(outcomes, settings.caseInsensitive, inline, () => 0)
  }
  const ranges = batchRanges(plan.ops.length, pool.maxThreads)
  const settled = await Promise.allSettled(
    ranges.map(([start, end]) =>
      pool.verify({ protocol: JOB_PROTOCOL, ops: plan.ops.slice(start, end), settings }, signal),
    ),
  )
  // A crashed worker or a cancellation: the first in plan order, whatever the thread timing.
  for (const s of settled) if (s.status === 'rejected') throw s.reason
  throwIfAborted(signal)
  const outcomes: OpOutcome[] = settled.flatMap(
    (s) => (s as PromiseFulfilledResult<OpOutcome[]>).value,
  )
  const size = (ranges[0] as readonly [number, number])[1]
  return settle(outcomes, settings.caseInsensitive, inline, (i) => Math.floor(i / size))
}
