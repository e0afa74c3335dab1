// What a worker does with one range job: replays the range through the same code as
// `patchloom replay` and returns its report. The job names the range by commit ids, so its replay
// is the same on every worker and on every retry (BullMQ delivers at least once: a retried job
// gives the same report). A range whose commit count differs from the plan's was read from a
// different repository than the one the plan was made from, and is refused. A repository named by
// URL is replayed from this worker's mirror of it (clone-cache.ts).
import { EditError } from '../errors.js'
import { replay, type ReplayReport } from '../replay/replay.js'
import type { CloneCache } from './clone-cache.js'
import type { RangeJobData } from './job.js'
import { jobSource, redactUrl } from './source.js'

export interface RangeProgress {
  readonly commits: number
  readonly of: number
}

export interface ReplayRangeOptions {
  readonly onProgress?: (progress: RangeProgress) => void
  readonly signal?: AbortSignal
  /** Where a job naming a repository by URL finds (or makes) its mirror. */
  readonly cache?: CloneCache
}

export async function replayRange(
  job: RangeJobData,
  options: ReplayRangeOptions = {},
): Promise<ReplayReport> {
  const { onProgress, signal } = options
  const run = replay({
    repo: await localRepo(job, options.cache),
    range: job.range,
    via: job.via,
    ...(signal === undefined ? {} : { signal }),
  })
  let done = 0
  let step = await run.next()
  for (; !step.done; step = await run.next()) {
    done++
    onProgress?.({ commits: done, of: job.commits })
  }
  const report = step.value
  if (report.commits !== job.commits) {
    throw new EditError(
      'QUEUE_JOB_INVALID',
      `Range ${job.range} of ${redactUrl(job.repo)} has ${report.commits} first-parent commits here, and the job says ${job.commits}: this worker reads a different repository at that path than the one the run was planned from.`,
    )
  }
  return report
}

/** The job's repository on this machine: its path, or this worker's mirror of its URL. */
async function localRepo(job: RangeJobData, cache: CloneCache | undefined): Promise<string> {
  const source = jobSource(job.repo)
  if (source === null || source.kind === 'path') return job.repo
  if (cache === undefined) {
    throw new EditError(
      'CONFIG_INVALID',
      `Range ${job.range} names the repository ${redactUrl(source.url)} by URL, and this worker has no clone cache to mirror it into.`,
    )
  }
  // Both ends of A..B: the replay starts from the tree of A.
  return cache.mirror(source.url, { commits: job.range.split('..').filter((c) => c !== '') })
}
