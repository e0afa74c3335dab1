// The enqueuing side of `patchloom replay --queue` as a library: each repository's
// first-parent history is cut into ranges (ranges.ts), each range becomes one job on the replay
// queue with a deterministic id (enqueuing a run twice adds nothing), and the run waits until
// every job has completed or failed for good, then merges each repository's range reports into
// the report a local replay gives. A range that fails every attempt is reported with its error;
// the rest of the run goes on. Completion is learnt from the queue's events and, in case one is
// missed (a reconnect), from a sweep of the jobs still open every few seconds.
import { randomBytes } from 'node:crypto'
import { Job, Queue, QueueEvents } from 'bullmq'
import { firstParentCommits, resolveCommit } from '../replay/git-history.js'
import type { ReplayReport, ReplayVia } from '../replay/replay.js'
import { EditError } from '../errors.js'
import { isCancelled } from './cancel.js'
import { createCloneCache, defaultCacheDir } from './clone-cache.js'
import { jobIdOf, JOB_VERSION, type RangeJobData } from './job.js'
import { mergeReports, rangeBase, splitRange } from './ranges.js'
import { parseRepoSource, redactUrl, sourceText } from './source.js'
import type { QueueConnection } from './url.js'
import { REPLAY_QUEUE, type RangeOutcome } from './worker.js'

export interface QueueRunOptions {
  readonly connection: QueueConnection
  /** Paths every worker can read, or URLs each worker clones (source.ts). */
  readonly repos: readonly string[]
  /** Where the enqueuer mirrors repositories given by URL, to plan. @default defaultCacheDir() */
  readonly cacheDir?: string
  /** `A..B` or one revision, for every repository. @default 'HEAD' */
  readonly range?: string
  /** Commits per range. */
  readonly split: number
  readonly via?: ReplayVia
  /** Attempts per range before it is reported failed. @default 3 */
  readonly attempts?: number
  /** First retry delay; doubles each attempt. @default 1000 */
  readonly backoffMs?: number
  /**
   * The run's id (job ids derive from it). Naming a run already on the queue attaches to it:
   * its finished ranges are taken as they are, provided they are this plan's. @default a fresh one
   */
  readonly run?: string
  readonly onProgress?: (progress: QueueRunProgress) => void
  /** Told of a range the queue lost (and that was enqueued again). */
  readonly onRequeue?: (jobId: string) => void
  /** Stop waiting after this long: what has not finished is reported unfinished, and stays queued. */
  readonly timeoutMs?: number
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
  /** The range's replay on its worker, in ms; null when it did not complete. */
  readonly wallMs: number | null
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
  /** Every repository's report summed: the run in total (its `repo` says how many). */
  readonly total: ReplayReport
  /** Ranges that failed every attempt (or were cancelled). */
  readonly failedRanges: number
  /** Ranges still waiting or running when the timeout came; their jobs stay on the queue. */
  readonly unfinishedRanges: number
  readonly timedOut: boolean
  readonly wallMs: number
}

type Outcome = RangeOutcome | { readonly error: string; readonly unfinished?: true }

const CANCELLED = 'cancelled by `patchloom queue clean --cancel`'

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
  const cache = createCloneCache(options.cacheDir ?? defaultCacheDir())
  const plans = []
  for (const [repoIndex, given] of options.repos.entries()) {
    const source = parseRepoSource(given, process.cwd())
    // Planned from the remote's current history: a mirror of a URL is fetched first.
    const local =
      source.kind === 'path' ? source.path : await cache.mirror(source.url, { refresh: true })
    // The base as a commit id, so that every worker's mirror reads the same range whatever its
    // branches say by the time it runs.
    const baseId = base === null ? null : await resolveCommit(local, base)
    const specs = splitRange(await firstParentCommits(local, range), baseId, options.split)
    const jobs: RangeJobData[] = specs.map((spec) => ({
      version: JOB_VERSION,
      run,
      repoIndex,
      rangeIndex: spec.index,
      repo: sourceText(source),
      range: spec.range,
      commits: spec.commits,
      via,
    }))
    plans.push({ repo: redactUrl(sourceText(source)), jobs })
  }
  const all = plans.flatMap((p) => p.jobs)
  const queue = new Queue(REPLAY_QUEUE, { connection: options.connection })
  const events = new QueueEvents(REPLAY_QUEUE, { connection: options.connection })
  const outcomes = new Map<string, Outcome>()
  const progress = new Map<string, number>()
  const commits = all.reduce((n, j) => n + j.commits, 0)
  let timedOut = false
  const report = (): void =>
    options.onProgress?.({
      ranges: all.length,
      rangesDone: outcomes.size,
      commits,
      commitsDone: [...progress.values()].reduce((a, b) => a + b, 0),
    })
  try {
    await events.waitUntilReady()
    const client = await queue.getBackend().client
    let finish!: () => void
    const finished = new Promise<void>((resolve) => (finish = resolve))
    const ours = new Map(all.map((j) => [jobIdOf(j), j]))
    const jobOptions = (data: RangeJobData) => ({
      jobId: jobIdOf(data),
      attempts: options.attempts ?? 3,
      backoff: { type: 'exponential' as const, delay: options.backoffMs ?? 1000 },
    })
    // A run named by the caller may be on the queue already (attaching to it again, after a
    // timeout): its jobs must be this plan's, or their reports would be merged as this one's.
    if (options.run !== undefined) {
      if (await isCancelled(client, run)) {
        throw new EditError(
          'QUEUE_RUN_CONFLICT',
          `Run ${run} was cancelled with \`patchloom queue clean --cancel\`; its id is not taken up again. Nothing was enqueued.`,
        )
      }
      await checkSameRun(queue, ours)
    }
    let added = false
    const record = (id: string, outcome: Outcome): void => {
      outcomes.set(id, outcome)
      if (!('error' in outcome)) progress.set(id, ours.get(id)?.commits ?? 0)
      report()
      if (outcomes.size === ours.size) finish()
    }
    const check = async (id: string): Promise<void> => {
      const data = ours.get(id)
      if (outcomes.has(id) || data === undefined) return
      const job = await Job.fromId(queue, id)
      if (job === undefined) {
        if (!added) return
        // Enqueued, and gone: removed by `queue clean --run --cancel`, or lost by the queue (a
        // Redis restarted without persistence). A range replays the same every time: enqueue
        // a lost one again.
        if (await isCancelled(client, run)) {
          if (!outcomes.has(id)) record(id, { error: CANCELLED })
          return
        }
        await queue.add('range', data, jobOptions(data))
        options.onRequeue?.(id)
        return
      }
      const state = await job.getState()
      if (outcomes.has(id) || (state !== 'completed' && state !== 'failed')) return
      // A job read while it ran has no result yet: read it again, now that it has finished (the
      // queue stores the result with the state, in one step).
      const unread = state === 'completed' ? job.returnvalue == null : !job.failedReason
      const done = unread ? ((await Job.fromId(queue, id)) ?? job) : job
      if (outcomes.has(id)) return
      if (state === 'failed') record(id, { error: done.failedReason || 'failed' })
      else {
        const outcome = done.returnvalue as RangeOutcome | null | undefined
        record(id, outcome ?? { error: 'the job completed without a report' })
      }
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
    if (all.length === 0) finish()
    const sweep = setInterval(() => {
      for (const id of ours.keys()) void check(id).catch(() => undefined)
    }, SWEEP_MS)
    const limit =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true
            finish()
          }, options.timeoutMs)
    try {
      // Jobs finished before the events were heard (a second enqueue of a finished run).
      await Promise.all([...ours.keys()].map((id) => check(id)))
      await finished
    } finally {
      clearInterval(sweep)
      clearTimeout(limit)
    }
    if (timedOut) {
      for (const [id] of ours) {
        if (outcomes.has(id)) continue
        const state = (await Job.fromId(queue, id).then((j) => j?.getState())) ?? 'missing'
        outcomes.set(id, {
          error: `not finished within ${(options.timeoutMs ?? 0) / 1000} s (${state}); the job stays on the queue`,
          unfinished: true,
        })
      }
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
        wallMs: failed ? null : Math.round(outcome.wallMs),
        error: failed ? (outcome?.error ?? 'no outcome') : null,
      }
    })
    const parts = jobs.flatMap((j) => {
      const outcome = outcomes.get(jobIdOf(j))
      return outcome !== undefined && !('error' in outcome) ? [outcome.report] : []
    })
    return { repo, report: mergeReports({ repo, range, via }, parts, wallMs), ranges }
  })
  const errors = [...outcomes.values()].filter((o) => 'error' in o)
  const unfinished = errors.filter((o) => 'unfinished' in o).length
  const total = mergeReports(
    { repo: `${repos.length} repositories`, range, via },
    repos.map((r) => r.report),
    wallMs,
  )
  return {
    run,
    repos,
    total,
    failedRanges: errors.length - unfinished,
    unfinishedRanges: unfinished,
    timedOut,
    wallMs,
  }
}

/** QUEUE_RUN_CONFLICT when a job of this run's ids is on the queue with other data. */
async function checkSameRun(queue: Queue, ours: ReadonlyMap<string, RangeJobData>): Promise<void> {
  for (const [id, data] of ours) {
    const job = await Job.fromId(queue, id)
    if (job === undefined) continue
    const theirs = job.data as Partial<RangeJobData>
    const differs = (Object.keys(data) as (keyof RangeJobData)[]).find(
      (key) => theirs[key] !== data[key],
    )
    if (differs !== undefined) {
      throw new EditError(
        'QUEUE_RUN_CONFLICT',
        `Run ${data.run} is already on the queue with other work: its job ${id} has ${differs} ${JSON.stringify(redactUrl(String(theirs[differs])))} where this command plans ${JSON.stringify(redactUrl(String(data[differs])))}. Nothing was enqueued.`,
      )
    }
  }
}
