// A range job's payload: what a worker accepts, what it refuses (and says why), and that
// replaying the job's range gives the range's own report, refusing a repository that differs
// from the plan's.
import { rmSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EditError } from '../../../src/errors.js'
import { isJobOfRun, jobIdOf, parseJobData, type RangeJobData } from '../../../src/queue/job.js'
import { replayRange, type RangeProgress } from '../../../src/queue/replay-range.js'
import { buildHistoryRepo, type HistoryRepo } from '../../helpers/history-repo.js'
import { makeTempDir } from '../../helpers/tree.js'

const VALID: RangeJobData = {
  version: 1,
  run: 'r20261202-abc',
  repoIndex: 0,
  rangeIndex: 3,
  repo: '/srv/repos/lodash',
  range: 'abc123..def456',
  commits: 50,
  via: 'codex',
}

function refusal(value: unknown): EditError {
  try {
    parseJobData(value, 'job-7')
  } catch (error) {
    if (error instanceof EditError) return error
    throw error
  }
  throw new Error(`accepted ${JSON.stringify(value)}`)
}

describe('parseJobData', () => {
  it('accepts a range job and gives it back as it is', () => {
    expect(parseJobData(JSON.parse(JSON.stringify(VALID)))).toEqual(VALID)
    expect(jobIdOf(VALID)).toBe('r20261202-abc-0-3')
  })

  it.each(['https://example.com/org/repo.git', 'file:///srv/git/repo.git', 'git@host:org/repo'])(
    'accepts a repository by URL: %s',
    (repo) => {
      expect(parseJobData({ ...VALID, repo }).repo).toBe(repo)
    },
  )

  it.each([
    ['null', null, 'not an object'],
    ['an array', [VALID], 'not an object'],
    ['another version', { ...VALID, version: 2 }, 'version 2 is not 1'],
    ['a bad run id', { ...VALID, run: '../x' }, 'run is not a run id'],
    ['a fractional index', { ...VALID, rangeIndex: 1.5 }, 'rangeIndex is not a whole number'],
    ['a negative count', { ...VALID, commits: -1 }, 'commits is not a whole number'],
    ['a relative repo', { ...VALID, repo: 'repos/lodash' }, 'repo is not an absolute path'],
    ['a remote helper', { ...VALID, repo: 'ext::sh -c id' }, 'repo is not an absolute path or'],
    ['an unknown scheme', { ...VALID, repo: 'ftp://host/x.git' }, 'repo is not an absolute path'],
    ['an option as repo', { ...VALID, repo: '--upload-pack=id' }, 'repo is not an absolute path'],
    ['an option as range', { ...VALID, range: '--output=/tmp/x' }, 'range is not'],
    ['a range with spaces', { ...VALID, range: 'a b' }, 'range is not'],
    ['a symmetric range', { ...VALID, range: 'a...b' }, 'range is not'],
    ['an unknown format', { ...VALID, via: 'json' }, 'via is not one of'],
  ])('refuses %s', (_, value, why) => {
    const error = refusal(value)
    expect(error.code).toBe('QUEUE_JOB_INVALID')
    expect(error.retryable).toBe(false)
    expect(error.message).toContain('"job-7"')
    expect(error.message).toContain(why)
  })
})

describe('isJobOfRun', () => {
  it('claims the run’s own range jobs and no job of a run whose id it begins', () => {
    expect(isJobOfRun('nightly-0-3', 'nightly')).toBe(true)
    expect(isJobOfRun('nightly-12-140', 'nightly')).toBe(true)
    expect(isJobOfRun('nightly-2-0-3', 'nightly')).toBe(false)
    expect(isJobOfRun('nightly-2-0-3', 'nightly-2')).toBe(true)
    expect(isJobOfRun('nightly-0', 'nightly')).toBe(false)
    expect(isJobOfRun('nightlyx-0-3', 'nightly')).toBe(false)
    expect(isJobOfRun(undefined, 'nightly')).toBe(false)
  })
})

describe('replayRange', () => {
  let scratch: string
  let repo: HistoryRepo
  beforeAll(async () => {
    scratch = await makeTempDir('patchloom-job-')
    repo = buildHistoryRepo(path.join(scratch, 'repo'), path.join(scratch, 'home'))
  })
  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true })
  })

  const jobFor = (from: number, to: number, commits = to - from): RangeJobData => ({
    ...VALID,
    repo: repo.dir,
    range: `${repo.commits[from - 1]}..${repo.commits[to - 1]}`,
    commits,
    via: 'unified',
  })

  it('replays the range, reports progress per commit, and is the same on a second run', async () => {
    const progress: RangeProgress[] = []
    const job = jobFor(2, 5)
    const first = await replayRange(job, { onProgress: (p) => progress.push(p) })
    expect(first.commits).toBe(3)
    expect(first.exactCommits).toBe(3)
    expect(progress).toEqual([
      { commits: 1, of: 3 },
      { commits: 2, of: 3 },
      { commits: 3, of: 3 },
    ])
    const { wallMs: _a, ...again } = await replayRange(job)
    const { wallMs: _b, ...once } = first
    expect(again).toEqual(once)
  })

  it('refuses a range whose commit count is not the plan’s (another repository at the path)', async () => {
    await expect(replayRange(jobFor(2, 5, 4))).rejects.toMatchObject({
      code: 'QUEUE_JOB_INVALID',
      message: expect.stringContaining('has 3 first-parent commits here, and the job says 4'),
    })
  })
})
