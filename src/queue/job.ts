// What a replay job on the queue carries: where the repository is and which range of its
// history to replay, never file contents. Workers take jobs from a shared Redis, so a payload is
// checked field by field before anything runs: a malformed or foreign one is refused with
// QUEUE_JOB_INVALID and the worker goes on with the next.
import { EditError } from '../errors.js'
import { REPLAY_VIAS, type ReplayVia } from '../replay/replay.js'
import { jobSource, URL_SCHEMES } from './source.js'

export const JOB_VERSION = 1

export interface RangeJobData {
  readonly version: typeof JOB_VERSION
  /** The run this range belongs to (one `patchloom replay --queue`). */
  readonly run: string
  /** Position of the repository in the run's list, and of the range in its history. */
  readonly repoIndex: number
  readonly rangeIndex: number
  /** An absolute path every worker can read (a shared filesystem), or a URL each worker clones. */
  readonly repo: string
  /** `A..B`, or one revision: replayed from the tree of A (splitRange). */
  readonly range: string
  readonly commits: number
  readonly via: ReplayVia
}

/** The job's id: the same range of the same run is one job however often it is enqueued. */
export function jobIdOf(data: Pick<RangeJobData, 'run' | 'repoIndex' | 'rangeIndex'>): string {
  return `${data.run}-${data.repoIndex}-${data.rangeIndex}`
}

/**
 * Whether `jobId` is a range job of `run`. Not a prefix test: run ids may hold dashes, so run
 * `nightly` must not claim run `nightly-2`'s jobs; a range job's id is the run and two numbers.
 */
export function isJobOfRun(jobId: string | undefined, run: string): boolean {
  return (
    jobId !== undefined &&
    jobId.startsWith(`${run}-`) &&
    /^\d+-\d+$/.test(jobId.slice(run.length + 1))
  )
}

export const RUN_ID = /^[0-9a-z][0-9a-z-]{0,63}$/
// A revision or A..B of them: what git's rev-parse reads, minus options and whitespace.
const RANGE = /^[^\s\0-][^\s\0]*$/

/** The payload as a range job, or QUEUE_JOB_INVALID naming the first field that is wrong. */
export function parseJobData(value: unknown, jobId?: string): RangeJobData {
  const refuse = (why: string): EditError =>
    new EditError(
      'QUEUE_JOB_INVALID',
      `Job ${jobId === undefined ? '(no id)' : JSON.stringify(jobId)} is not a patchloom replay range: ${why}.`,
    )
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw refuse('its data is not an object')
  const data = value as Record<string, unknown>
  if (data['version'] !== JOB_VERSION)
    throw refuse(`version ${JSON.stringify(data['version'])} is not ${JOB_VERSION}`)
  const { run, repoIndex, rangeIndex, repo, range, commits, via } = data
  if (typeof run !== 'string' || !RUN_ID.test(run)) throw refuse('run is not a run id')
  for (const [name, n] of [
    ['repoIndex', repoIndex],
    ['rangeIndex', rangeIndex],
    ['commits', commits],
  ] as const) {
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
      throw refuse(`${name} is not a whole number`)
  }
  if (typeof repo !== 'string' || jobSource(repo) === null)
    throw refuse(`repo is not an absolute path or a ${URL_SCHEMES.join(', ')} URL`)
  if (typeof range !== 'string' || !RANGE.test(range) || range.includes('...'))
    throw refuse('range is not a revision or A..B')
  if (typeof via !== 'string' || !(REPLAY_VIAS as readonly string[]).includes(via))
    throw refuse(`via is not one of ${REPLAY_VIAS.join(', ')}`)
  return {
    version: JOB_VERSION,
    run,
    repoIndex: repoIndex as number,
    rangeIndex: rangeIndex as number,
    repo,
    range,
    commits: commits as number,
    via: via as ReplayVia,
  }
}
