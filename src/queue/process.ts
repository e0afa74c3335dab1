// What a worker does with one range job (#12): replays the range through the same code as
// `patchloom replay` and returns its report. The job names the range by commit ids, so its replay
// is the same on every worker and on every retry (BullMQ delivers at least once: a retried job
// gives the same report). A range whose commit count differs from the plan's was read from a
// different repository than the one the plan was made from, and is refused.
import { EditError } from '../errors.js'
import { replay, type ReplayReport } from '../replay/replay.js'
import type { RangeJobData } from './job.js'

export interface RangeProgress {
  readonly commits: number
  readonly of: number
}

export async function replayRange(
  job: RangeJobData,
  onProgress?: (progress: RangeProgress) => void,
  signal?: AbortSignal,
): Promise<ReplayReport> {
  const run = replay({
    repo: job.repo,
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
      `Range ${job.range} of ${job.repo} has ${report.commits} first-parent commits here, and the job says ${job.commits}: this worker reads a different repository at that path than the one the run was planned from.`,
    )
  }
  return report
}
