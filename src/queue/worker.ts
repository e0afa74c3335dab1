// `patchloom worker` as a library: a BullMQ worker on the replay queue that takes range
// jobs, replays each through replayRange, reports progress through the job, and returns the
// range's report with the worker's name. A payload that is not a range job fails at once and is
// not retried (BullMQ's UnrecoverableError): it would fail the same way on every attempt.
import { hostname } from 'node:os'
import { UnrecoverableError, Worker, type Job } from 'bullmq'
import { isEditError } from '../errors.js'
import type { ReplayReport } from '../replay/replay.js'
import { isCancelled } from './cancel.js'
import { createCloneCache, defaultCacheDir } from './clone-cache.js'
import { parseJobData } from './job.js'
import { redactUrl } from './source.js'
import { replayRange } from './replay-range.js'
import type { QueueConnection } from './url.js'

/** The BullMQ queue every replay run uses; runs are told apart by their job ids. */
export const REPLAY_QUEUE = 'patchloom-replay'

export interface RangeOutcome {
  readonly report: ReplayReport
  /** The worker that replayed the range (`--name`, or host:pid). */
  readonly worker: string
  readonly wallMs: number
}

export interface WorkerOptions {
  readonly connection: QueueConnection
  /** Jobs replayed at once by this worker. @default 1 */
  readonly concurrency?: number
  readonly name?: string
  /** How long a job's lock lasts without renewal: a dead worker's job returns after this. */
  readonly lockDurationMs?: number
  /** Where repositories named by URL are mirrored. @default defaultCacheDir() */
  readonly cacheDir?: string
  readonly onEvent?: (text: string) => void
}

/** Progress updates per job are at most this frequent (each is a Redis round trip). */
const PROGRESS_EVERY_MS = 250

export function startReplayWorker(options: WorkerOptions): Worker {
  const name = options.name ?? `${hostname()}:${process.pid}`
  const cache = createCloneCache(options.cacheDir ?? defaultCacheDir(), {
    onGit: (what, url, mirror) =>
      options.onEvent?.(
        what === 'clone'
          ? `cloning ${redactUrl(url)} into ${mirror}`
          : `fetching ${redactUrl(url)}`,
      ),
  })
  const worker = new Worker(
    REPLAY_QUEUE,
    async (job: Job): Promise<RangeOutcome> => {
      let data
      try {
        data = parseJobData(job.data, job.id)
      } catch (error) {
        throw new UnrecoverableError(error instanceof Error ? error.message : String(error))
      }
      // A run stopped by `queue clean --run --cancel`: its ranges are not started any more.
      if (await isCancelled(await worker.getBackend().client, data.run))
        throw new UnrecoverableError(`run ${data.run} was cancelled; range not replayed`)
      const started = performance.now()
      let sent = 0
      try {
        const report = await replayRange(data, {
          cache,
          onProgress: (p) => {
            const now = performance.now()
            if (p.commits < p.of && now - sent < PROGRESS_EVERY_MS) return
            sent = now
            void job.updateProgress({ commits: p.commits, of: p.of }).catch(() => undefined)
          },
        })
        return { report, worker: name, wallMs: performance.now() - started }
      } catch (error) {
        // The engine's refusals (a repository that is not the plan's, no git) repeat on retry.
        if (isEditError(error) && !error.retryable) throw new UnrecoverableError(error.message)
        throw error
      }
    },
    {
      connection: { ...options.connection, maxRetriesPerRequest: null },
      concurrency: options.concurrency ?? 1,
      // A dead worker's job is found by the others' stalled-job check: as often as locks expire.
      ...(options.lockDurationMs === undefined
        ? {}
        : { lockDuration: options.lockDurationMs, stalledInterval: options.lockDurationMs }),
    },
  )
  worker.on('failed', (job, error) =>
    options.onEvent?.(`job ${job?.id ?? '?'} failed: ${error.message}`),
  )
  worker.on('error', (error) => {
    // BullMQ's words for a job whose keys vanished while this worker held it (a Redis restarted
    // without persistence, or the job removed): its result has nowhere to go.
    const lost = /^Missing key for job (\S+?)\.? (\w+)$/.exec(error.message)
    options.onEvent?.(
      lost === null
        ? `worker error: ${error.message}`
        : `job ${lost[1]} was lost by the queue while this worker held it (${lost[2]}); its result is dropped, and the enqueuer enqueues the range again`,
    )
  })
  return worker
}
