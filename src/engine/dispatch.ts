// Runs verification for a whole request on the route chosen for it (route.ts). Inline, verify.ts
// runs over the ops in this thread; past MAX_BATCH_OPS files it reads as a worker does, a batch
// at a time with synchronous calls, and gives the event loop a turn between batches. On the
// worker pool, contiguous batches that workers verify against the files themselves
// (verify-job.ts), given as parsed ops or, for a large `git diff`, as runs of its text that each
// worker parses (src/parse/segments.ts). Either way the outcomes go through one mergeOutcomes
// (merge.ts), so every route fails with the same error for the same request.
import type { PatchSegment } from '../parse/segments.js'
import type { EditPlan, FileOp } from '../types.js'
import { throwIfAborted } from '../abort.js'
import type { WorkerPool } from '../threads/worker-pool.js'
import { JOB_PROTOCOL, type VerifyJob, type VerifyReply } from '../threads/jobs.js'
import { asyncReadFs, createSyncReadFs, type ReadFs } from '../workspace/read-fs.js'
import { batchRanges, MAX_BATCH_OPS, threadRanges, type Route } from './route.js'
import { mergeOutcomes } from './merge.js'
import { runVerifyJob } from './verify-job.js'
import { verifyOps, type OpOutcome, type VerifiedOp, type VerifySettings } from './verify.js'

/**
 * Verifies a parsed plan inline or on the pool. `blockingReads` (EngineOptions): inline, read
 * with synchronous calls, a batch at a time, as a worker would.
 */
export async function verifyPlan(
  plan: EditPlan,
  settings: VerifySettings,
  route: Route,
  pool: WorkerPool | undefined,
  blockingReads: boolean,
  signal?: AbortSignal,
): Promise<VerifiedOp[]> {
  const inline = reverifyFrom(() => plan.ops, settings)
  const here = route === 'inline' || pool === undefined
  if (here && (blockingReads || plan.ops.length > MAX_BATCH_OPS)) {
    // One thread's batches: only one batch's files are held at a time (MAX_BATCH_OPS), read as
    // a worker reads them; without blockingReads the event loop gets a turn between batches.
    const ranges = threadRanges(plan.ops.length)
    const outcomes: OpOutcome[] = []
    for (const [start, end] of ranges) {
      throwIfAborted(signal)
      if (!blockingReads && start > 0) await eventLoopTurn()
      const batch = await verifyOps(plan.ops.slice(start, end), settings, createSyncReadFs())
      for (const outcome of batch) outcomes.push(outcome)
    }
    throwIfAborted(signal)
    return mergeBatches(outcomes, ranges, settings, inline)
  }
  if (here) {
    const outcomes = await verifyOps(plan.ops, settings, inlineFs(plan.ops.length))
    throwIfAborted(signal)
    return mergeOutcomes(outcomes, settings.caseInsensitive, inline, () => 0, sequencesIn(settings))
  }
  const ranges = batchRanges(plan.ops.length, pool.maxThreads)
  const replies = await runJobs(
    poolRunner(pool),
    ranges.map(([start, end]) => ({ kind: 'ops', ops: plan.ops.slice(start, end) })),
    settings,
    signal,
  )
  return mergeBatches(
    replies.flatMap((r) => r.outcomes),
    ranges,
    settings,
    inline,
  )
}

/** mergeOutcomes for outcomes verified in the equal-sized batches batchRanges cut. */
function mergeBatches(
  outcomes: readonly OpOutcome[],
  ranges: ReadonlyArray<readonly [number, number]>,
  settings: VerifySettings,
  inline: (indices: readonly number[]) => Promise<OpOutcome[]>,
): Promise<VerifiedOp[]> {
  const size = (ranges[0] as readonly [number, number])[1]
  return mergeOutcomes(
    outcomes,
    settings.caseInsensitive,
    inline,
    (i) => Math.floor(i / size),
    sequencesIn(settings),
  )
}

/**
 * Verifies a split `git diff` on the pool, each worker parsing its own run. Returns null when a
 * run did not parse to its sections: the caller then parses the whole patch, which gives the
 * exact error (or, should a split ever disagree with the whole, verifies the whole plan).
 * `wholePlan` parses the patch in this thread, for the rare type change split across runs.
 */
export async function verifySegments(
  segments: readonly PatchSegment[],
  settings: VerifySettings,
  runner: JobRunner,
  wholePlan: () => EditPlan,
  signal?: AbortSignal,
): Promise<VerifiedOp[] | null> {
  const replies = await runJobs(
    runner,
    segments.map((s) => ({
      kind: 'unified-run',
      text: s.text,
      firstLine: s.firstLine,
      sections: s.sections,
      ...(s.plain === true ? { plain: true } : {}),
    })),
    settings,
    signal,
  )
  if (replies.some((r) => !r.parsed)) return null
  const batchOf: number[] = []
  segments.forEach((s, k) => {
    for (let i = 0; i < s.sections; i++) batchOf.push(k)
  })
  const outcomes = replies.flatMap((r) => r.outcomes)
  const inline = reverifyFrom(() => wholePlan().ops, settings)
  return mergeOutcomes(
    outcomes,
    settings.caseInsensitive,
    inline,
    (i) => batchOf[i] as number,
    sequencesIn(settings),
  )
}

// Why a sync read pays for small requests: DECISIONS.md D-067.
/**
 * Ops verified inline with synchronous filesystem calls at most. A handful of files is
 * read in microseconds where each awaited call costs a thread-pool round trip (tens of them per
 * small request); the event loop then blocks for at most this many reads of maxFileBytes.
 */
export const INLINE_SYNC_MAX_FILES = 4

/** Whether the plan's sections may name one path again (sequence.ts): unified diffs only. */
function sequencesIn(settings: VerifySettings): boolean {
  return settings.format === 'unified'
}

function inlineFs(files: number): ReadFs {
  return files <= INLINE_SYNC_MAX_FILES ? createSyncReadFs() : asyncReadFs
}

function reverifyFrom(
  ops: () => readonly FileOp[],
  settings: VerifySettings,
): (indices: readonly number[]) => Promise<OpOutcome[]> {
  return (indices) => {
    const all = ops()
    return verifyOps(
      indices.map((i) => all[i] as FileOp),
      settings,
      asyncReadFs,
    )
  }
}

/**
 * Where verify jobs run: on the pool's threads, or one after another in this thread, where
 * `blocking: false` gives the event loop a turn between jobs (each blocks it for one run).
 */
export type JobRunner =
  | { readonly kind: 'pool'; readonly pool: WorkerPool }
  | { readonly kind: 'this-thread'; readonly blocking: boolean }

export function poolRunner(pool: WorkerPool): JobRunner {
  return { kind: 'pool', pool }
}

export function thisThread(blocking: boolean): JobRunner {
  return { kind: 'this-thread', blocking }
}

/** Resolves after the event loop has run its pending I/O callbacks and timers once. */
function eventLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

async function runJobs(
  runner: JobRunner,
  inputs: ReadonlyArray<VerifyJob['input']>,
  settings: VerifySettings,
  signal: AbortSignal | undefined,
): Promise<Array<VerifyReply<OpOutcome>>> {
  if (runner.kind === 'this-thread') {
    // In turn, never interleaved: one run's lines and files are dropped before the next is read.
    const replies: Array<VerifyReply<OpOutcome>> = []
    for (const input of inputs) {
      throwIfAborted(signal)
      if (!runner.blocking && replies.length > 0) await eventLoopTurn()
      replies.push(await runVerifyJob({ protocol: JOB_PROTOCOL, input, settings }, true))
    }
    throwIfAborted(signal)
    return replies
  }
  const { pool } = runner
  const settled = await Promise.allSettled(
    inputs.map((input) => {
      const job: VerifyJob<VerifySettings> = { protocol: JOB_PROTOCOL, input, settings }
      return pool.run<VerifyReply<OpOutcome>>('verify', job, signal)
    }),
  )
  // A crashed worker or a cancellation: the first in plan order, whatever the thread timing.
  for (const s of settled) if (s.status === 'rejected') throw s.reason
  throwIfAborted(signal)
  return settled.map((s) => (s as PromiseFulfilledResult<VerifyReply<OpOutcome>>).value)
}
