// The enqueuing side of `patchloom replay --queue` as a library (#12): each repository's
// first-parent history is cut into ranges (plan.ts), each range becomes one job on the replay
// queue with a deterministic id (enqueuing a run twice adds nothing), and the run waits until
// every job has completed or failed for good, then merges each repository's range reports into
// the report a local replay gives. A range that fails every attempt is reported with its error;
// the rest of the run goes on. Completion is learnt from the queue's events and, in case one is
// missed (a reconnect), from a sweep of the jobs still open every few seconds.
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { Job, Queue, QueueEvents } from 'bullmq'
import { firstParentCommits } from '../replay/git-history.js'
import type { ReplayReport, ReplayVia } from '../replay/replay.js'
import { jobIdOf, JOB_VERSION, type RangeJobData } from './job.js'
import { mergeReports, rangeBase, splitRange } from './plan.js'
import type { QueueConnection } from './url.js'
import { REPLAY_QUEUE, type RangeOutcome } from './worker.js'

export interface QueueRunOptions {
  readonly connection: QueueConnection
  readonly repos: readonly string[]
  /** `A..B` or one revision, for every repository. @default 'HEAD' */
  readonly range?: string
  /** Commits per range. */
  readonly split: number
  readonly via?: ReplayVia
  /** Attempts per range before it is reported failed. @default 3 */
  readonly attempts?: number
  /** First retry delay; doubles each attempt. @default 1000 */
  readonly backoffMs?: number
  /** The run's id (job ids derive from it). @default a fresh one */
  readonly run?: string
  readonly onProgress?: (progress: QueueRunProgress) => void
  /** Told of a range the queue lost (and that was enqueued again). */
  readonly onRequeue?: (jobId: string) => void
}

export interface QueueRunProgress {
  readonly ranges: number
  readonly rangesDone: number
  readonly commits: number
  readonly commitsDone: number
}

export interface RangeSummary {
  readonly index: number
  readonly range: string
  readonly commits: number
  readonly worker: string | null
  /** Why the range failed every attempt; null when it completed. */
  readonly error: string | null
}

export interface RepoRunReport {
  readonly repo: string
  /** The merged report; its figures leave out failed ranges (listed in `ranges`). */
  readonly report: ReplayReport
  readonly ranges: readonly RangeSummary[]
}

export interface QueueRunReport {
  readonly run: string
  readonly repos: readonly RepoRunReport[]
  readonly failedRanges: number
  readonly wallMs: number
}

const SWEEP_MS = 2000

export function newRunId(): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:.TZ]/g, '')
    .slice(0, 14)
  return `r${stamp}-${randomBytes(4).toString('hex')}`
}

export async function runOnQueue(options: QueueRunOptions): Promise<QueueRunReport> {
  const started = performance.now()
  const run = options.run ?? newRunId()
  const range = options.range ?? 'HEAD'
  const via = options.via ?? 'unified'
  const base = rangeBase(range)
  const plans = []
  for (const [repoIndex, given] of options.repos.entries()) {
    const repo = path.resolve(given)
    const specs = splitRange(await firstParentCommits(repo, range), base, options.split)
    const jobs: RangeJobData[] = specs.map((spec) => ({
      version: JOB_VERSION,
      run,
      repoIndex,
      rangeIndex: spec.index,
      repo,
      range: spec.range,
      commits: spec.commits,
      via,
    }))
    plans.push({ repo, jobs })
  }
  const all = plans.flatMap((p) => p.jobs)
  const queue = new Queue(REPLAY_QUEUE, { connection: options.connection })
  const events = new QueueEvents(REPLAY_QUEUE, { connection: options.connection })
  const outcomes = new Map<string, RangeOutcome | { error: string }>()
  const progress = new Map<string, number>()
  const commits = all.reduce((n, j) => n + j.commits, 0)
  const report = (): void =>
    options.onProgress?.({
      ranges: all.length,
      rangesDone: outcomes.size,
      commits,
      commitsDone: [...progress.values()].reduce((a, b) => a + b, 0),
    })
  try {
    await events.waitUntilReady()
    let settle!: () => void
    const finished = new Promise<void>((resolve) => (settle = resolve))
    const ours = new Map(all.map((j) => [jobIdOf(j), j]))
    const jobOptions = (data: RangeJobData) => ({
      jobId: jobIdOf(data),
      attempts: options.attempts ?? 3,
      backoff: { type: 'exponential' as const, delay: options.backoffMs ?? 1000 },
    })
    let added = false
    const check = async (id: string): Promise<void> => {
      const data = ours.get(id)
      if (outcomes.has(id) || data === undefined) return
      const job = await Job.fromId(queue, id)
      if (job === undefined) {
        // Enqueued, and gone: the queue lost it (a Redis restarted without persistence, or a
        // `queue clean --run` meanwhile). A range replays the same every time: enqueue it again.
        if (added) {
          await queue.add('range', data, jobOptions(data))
          options.onRequeue?.(id)
        }
        return
      }
      const state = await job.getState()
      if (state === 'completed') {
        outcomes.set(id, job.returnvalue as RangeOutcome)
        progress.set(id, ours.get(id)?.commits ?? 0)
      } else if (state === 'failed') {
        outcomes.set(id, { error: job.failedReason || 'failed' })
      } else return
      report()
      if (outcomes.size === ours.size) settle()
    }
    events.on('completed', ({ jobId }) => void check(jobId).catch(() => undefined))
    events.on('failed', ({ jobId }) => void check(jobId).catch(() => undefined))
    events.on('progress', ({ jobId, data }) => {
      const done = (data as { commits?: unknown } | undefined)?.commits
      if (ours.has(jobId) && typeof done === 'number' && !outcomes.has(jobId)) {
        progress.set(jobId, done)
        report()
      }
    })
    await queue.addBulk(all.map((data) => ({ name: 'range', data, opts: jobOptions(data) })))
    added = true
    if (all.length === 0) settle()
    const sweep = setInterval(() => {
      for (const id of ours.keys()) void check(id).catch(() => undefined)
    }, SWEEP_MS)
    try {
      // Jobs finished before the events were heard (a second enqueue of a finished run).
      await Promise.all([...ours.keys()].map((id) => check(id)))
      await finished
    } finally {
      clearInterval(sweep)
    }
  } finally {
    await events.close()
    await queue.close()
  }
  const wallMs = performance.now() - started
  const repos = plans.map(({ repo, jobs }) => {
    const ranges: RangeSummary[] = jobs.map((j) => {
      const outcome = outcomes.get(jobIdOf(j))
      const failed = outcome === undefined || 'error' in outcome
      return {
        index: j.rangeIndex,
        range: j.range,
        commits: j.commits,
        worker: failed ? null : outcome.worker,
        error: failed ? (outcome?.error ?? 'no outcome') : null,
      }
    })
    const parts = jobs.flatMap((j) => {
      const outcome = outcomes.get(jobIdOf(j))
      return outcome !== undefined && !('error' in outcome) ? [outcome.report] : []
    })
    return { repo, report: mergeReports({ repo, range, via }, parts, wallMs), ranges }
  })
  return {
    run,
    repos,
    failedRanges: repos.reduce((n, r) => n + r.ranges.filter((x) => x.error !== null).length, 0),
    wallMs,
  }
}
