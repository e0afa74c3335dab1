// The distributed replay's library parts against a real redis-server: a history split into
// ranges, replayed by two BullMQ workers, merges into exactly the local replay's report; the same
// run enqueued again adds no job and gives the same report, and attaching to it with another plan
// is refused; a repository given by URL is mirrored by each worker and merges the same; a run
// that times out stays queued and can be waited for again; a cancelled run's ranges are neither
// enqueued again nor replayed; a malformed payload fails once, is not retried, and the workers
// go on. (Worker processes and the CLI: test/e2e/cli-queue.test.ts.)
import { readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { Job, Queue, type Worker } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { markCancelled } from '../../src/queue/cancel.js'
import { runQueueCommand } from '../../src/cli/commands/queue.js'
import { runOnQueue } from '../../src/queue/run.js'
import { parseQueueUrl, type QueueConnection } from '../../src/queue/url.js'
import { REPLAY_QUEUE, startReplayWorker } from '../../src/queue/worker.js'
import { replay, type ReplayReport } from '../../src/replay/replay.js'
import { buildHistoryRepo, type HistoryRepo } from '../helpers/history-repo.js'
import {
  REDIS_AVAILABLE,
  REDIS_SKIP_REASON,
  startRedis,
  type RunningRedis,
} from '../helpers/redis.js'
import { makeTempDir } from '../helpers/tree.js'

const withoutWall = ({ wallMs: _w, ...rest }: ReplayReport) => rest

describe.skipIf(!REDIS_AVAILABLE)(`replay on the queue (skipped when ${REDIS_SKIP_REASON})`, () => {
  let redis: RunningRedis
  let connection: QueueConnection
  let scratch: string
  let repo: HistoryRepo
  const workers: Worker[] = []
  beforeAll(async () => {
    redis = await startRedis()
    connection = parseQueueUrl(redis.url)
    scratch = await makeTempDir('patchloom-queue-replay-')
    repo = buildHistoryRepo(path.join(scratch, 'repo'), path.join(scratch, 'home'))
    for (const name of ['w1', 'w2']) {
      const worker = startReplayWorker({ connection, name, cacheDir: path.join(scratch, name) })
      await worker.waitUntilReady()
      workers.push(worker)
    }
  })
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()))
    await redis?.stop()
    rmSync(scratch, { recursive: true, force: true })
  })

  /** Waits until the queue in `db` holds `n` waiting jobs. */
  async function waitingJobs(queue: Queue, n: number): Promise<void> {
    const deadline = Date.now() + 10_000
    while ((await queue.getJobCounts('waiting'))['waiting'] !== n && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20))
    expect((await queue.getJobCounts('waiting'))['waiting']).toBe(n)
  }

  async function local(via: 'unified' | 'codex', range = 'HEAD'): Promise<ReplayReport> {
    const run = replay({ repo: repo.dir, range, via })
    let step = await run.next()
    while (!step.done) step = await run.next()
    return step.value
  }

  it("merges two workers' ranges into the local replay's report, and a second enqueue adds nothing", async () => {
    const seen: number[] = []
    const first = await runOnQueue({
      connection,
      repos: [repo.dir],
      split: 3,
      via: 'codex',
      run: 'rtest-1',
      onProgress: (p) => seen.push(p.rangesDone),
    })
    expect(first.failedRanges).toBe(0)
    const [only] = first.repos
    expect(withoutWall(only!.report)).toEqual(withoutWall(await local('codex')))
    expect(only!.ranges.length).toBe(Math.ceil(repo.commits.length / 3))
    expect(only!.ranges.every((r) => r.worker === 'w1' || r.worker === 'w2')).toBe(true)
    expect(seen.at(-1)).toBe(only!.ranges.length)

    const queue = new Queue(REPLAY_QUEUE, { connection })
    try {
      const before = await queue.getJobCounts('completed')
      const again = await runOnQueue({
        connection,
        repos: [repo.dir],
        split: 3,
        via: 'codex',
        run: 'rtest-1',
      })
      expect(withoutWall(again.repos[0]!.report)).toEqual(withoutWall(only!.report))
      expect(await queue.getJobCounts('completed')).toEqual(before)
    } finally {
      await queue.close()
    }
  })

  it('reports a range that fails with its error, and still merges the others', async () => {
    // A database no worker watches yet: the run is planned and enqueued, then one repository
    // disappears before a worker takes its ranges.
    const other = { ...connection, db: 1 }
    const doomed = path.join(scratch, 'doomed')
    buildHistoryRepo(doomed, path.join(scratch, 'home-doomed'))
    let enqueued = false
    const running = runOnQueue({
      connection: other,
      repos: [repo.dir, doomed],
      split: 5,
      attempts: 2,
      backoffMs: 10,
      run: 'rtest-3',
      onProgress: () => undefined,
    })
    const queue = new Queue(REPLAY_QUEUE, { connection: other })
    try {
      const deadline = Date.now() + 10_000
      while (!enqueued && Date.now() < deadline) {
        enqueued = (await queue.getJobCounts('waiting'))['waiting']! > 0
        if (!enqueued) await new Promise((r) => setTimeout(r, 20))
      }
      expect(enqueued).toBe(true)
      rmSync(doomed, { recursive: true, force: true })
      const worker = startReplayWorker({ connection: other, name: 'late', cacheDir: scratch })
      try {
        const report = await running
        const [kept, lost] = report.repos
        expect(kept!.ranges.every((r) => r.error === null)).toBe(true)
        expect(withoutWall(kept!.report)).toEqual(withoutWall(await local('unified')))
        expect(lost!.ranges.length).toBeGreaterThan(0)
        expect(lost!.ranges.every((r) => r.error !== null && r.worker === null)).toBe(true)
        expect(report.failedRanges).toBe(lost!.ranges.length)
        expect(lost!.report.commits).toBe(0)
        expect(lost!.ranges[0]?.error).toMatch(/doomed is not a git repository/)
        // In total: the figures of what replayed, summed over the repositories.
        expect(report.total).toMatchObject({
          repo: '2 repositories',
          commits: kept!.report.commits,
          exactCommits: kept!.report.exactCommits,
          hunks: kept!.report.hunks,
        })
      } finally {
        await worker.close()
      }
    } finally {
      await queue.close()
    }
  })

  it('fails a malformed payload once, without retries, and goes on with the next run', async () => {
    const queue = new Queue(REPLAY_QUEUE, { connection })
    try {
      const bad = await queue.add(
        'range',
        { version: 1, run: 'x', repo: 'relative/path' },
        {
          jobId: 'malformed-1',
          attempts: 5,
          backoff: { type: 'fixed', delay: 10 },
        },
      )
      const deadline = Date.now() + 10_000
      while ((await bad.getState()) !== 'failed' && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50))
      const failed = await Job.fromId(queue, 'malformed-1')
      expect(await failed!.getState()).toBe('failed')
      expect(failed!.attemptsMade).toBe(1)
      expect(failed!.failedReason).toMatch(/not a patchloom replay range/)
      const next = await runOnQueue({ connection, repos: [repo.dir], split: 4, run: 'rtest-2' })
      expect(next.failedRanges).toBe(0)
      expect(withoutWall(next.repos[0]!.report)).toEqual(withoutWall(await local('unified')))
    } finally {
      await queue.close()
    }
  })

  it('refuses to attach to a run on the queue with another plan, enqueuing nothing', async () => {
    await runOnQueue({ connection, repos: [repo.dir], split: 5, run: 'rtest-attach' })
    const queue = new Queue(REPLAY_QUEUE, { connection })
    try {
      const before = await queue.getJobCounts('completed', 'waiting')
      await expect(
        runOnQueue({ connection, repos: [repo.dir], split: 4, run: 'rtest-attach' }),
      ).rejects.toMatchObject({
        code: 'QUEUE_RUN_CONFLICT',
        message: expect.stringMatching(
          /job rtest-attach-0-0 has range .* where this command plans/,
        ),
      })
      expect(await queue.getJobCounts('completed', 'waiting')).toEqual(before)
    } finally {
      await queue.close()
    }
  })

  it('replays a repository given by URL from each worker’s mirror, as the local replay', async () => {
    const url = `file://${repo.dir}`
    const report = await runOnQueue({
      connection,
      repos: [url],
      split: 4,
      via: 'codex',
      run: 'rtest-url',
      cacheDir: path.join(scratch, 'planner'),
    })
    expect(report.failedRanges).toBe(0)
    const merged = report.repos[0]!
    expect(merged.repo).toBe(url)
    expect(withoutWall(merged.report)).toEqual({ ...withoutWall(await local('codex')), repo: url })
    // Each worker that took a range cloned the URL into its own cache.
    const workersUsed = new Set(merged.ranges.map((r) => r.worker as string))
    for (const name of workersUsed) expect(readdirSync(path.join(scratch, name))).toHaveLength(1)
    expect(merged.ranges.every((r) => typeof r.wallMs === 'number' && r.wallMs >= 0)).toBe(true)

    // A range whose base is a name: planned as a commit id, the same history on every mirror.
    const part = await runOnQueue({
      connection,
      repos: [url],
      range: 'HEAD~7..HEAD',
      split: 3,
      run: 'rtest-url-range',
      cacheDir: path.join(scratch, 'planner'),
    })
    expect(part.failedRanges).toBe(0)
    expect(part.repos[0]!.ranges[0]!.range).toMatch(/^[0-9a-f]{40}\.\.[0-9a-f]{40}$/)
    expect(withoutWall(part.repos[0]!.report)).toEqual({
      ...withoutWall(await local('unified', 'HEAD~7..HEAD')),
      repo: url,
    })
  })

  it('reports a run that times out as unfinished, leaves it queued, and waits for it again by its id', async () => {
    const idle = { ...connection, db: 2 } // no worker watches it yet
    const wait = (timeoutMs: number) =>
      runOnQueue({ connection: idle, repos: [repo.dir], split: 4, run: 'rtest-timeout', timeoutMs })
    const first = await wait(300)
    const ranges = Math.ceil(repo.commits.length / 4)
    expect(first.timedOut).toBe(true)
    expect(first.unfinishedRanges).toBe(ranges)
    expect(first.failedRanges).toBe(0)
    expect(first.repos[0]!.ranges[0]!.error).toMatch(
      /not finished within 0.3 s \(waiting\); the job stays on the queue/,
    )
    const worker = startReplayWorker({ connection: idle, name: 'late', cacheDir: scratch })
    try {
      const again = await wait(60_000)
      expect(again.timedOut).toBe(false)
      expect(again.failedRanges + again.unfinishedRanges).toBe(0)
      expect(withoutWall(again.repos[0]!.report)).toEqual(withoutWall(await local('unified')))
    } finally {
      await worker.close()
    }
  })

  it('neither enqueues again nor replays the ranges of a cancelled run', async () => {
    const idle = { ...connection, db: 4 }
    const queue = new Queue(REPLAY_QUEUE, { connection: idle })
    try {
      const running = runOnQueue({
        connection: idle,
        repos: [repo.dir],
        split: 4,
        run: 'rtest-cancel',
      })
      const ranges = Math.ceil(repo.commits.length / 4)
      await waitingJobs(queue, ranges)
      // What `queue clean --run rtest-cancel --cancel` does, with one job left behind as if it
      // had been active then: the mark first, then the jobs.
      await markCancelled(await queue.getBackend().client, 'rtest-cancel')
      for (const job of (await queue.getJobs(['waiting'])).slice(1)) await job.remove()
      const worker = startReplayWorker({ connection: idle, name: 'late', cacheDir: scratch })
      try {
        const report = await running
        expect(report.failedRanges).toBe(ranges)
        const errors = report.repos[0]!.ranges.map((r) => r.error)
        expect(errors.filter((e) => e?.includes('cancelled by'))).toHaveLength(ranges - 1)
        expect(errors.filter((e) => e?.includes('was cancelled; range not replayed'))).toHaveLength(
          1,
        )
        expect(report.repos[0]!.report.commits).toBe(0)
      } finally {
        await worker.close()
      }
    } finally {
      await queue.close()
    }
  })

  it('draws one progress line for the whole run on a terminal, and clears it before the report', async () => {
    let stderr = ''
    let stdout = ''
    const code = await runQueueCommand(
      ['replay', '--queue', redis.url, repo.dir, '--split', 'commits=3'],
      {
        stdin: () => [],
        stdout: (text) => (stdout += text),
        stderr: (text) => (stderr += text),
        cwd: scratch,
        stderrIsTTY: true,
      },
    )
    expect(code, stderr).toBe(0)
    const ranges = Math.ceil(repo.commits.length / 3)
    const n = repo.commits.length
    const lines = stderr.split('\r').filter((l) => l !== '')
    expect(lines.at(-1)).toBe('\x1b[K')
    expect(lines.at(-2)).toMatch(
      new RegExp(
        `^replay --queue: ranges ${ranges}/${ranges}, commits ${n}/${n}, \\d+ commits/s, ETA 0 s$`,
      ),
    )
    // Redrawn in place as ranges finish: every line names the same totals.
    expect(lines.slice(0, -1).every((l) => l.includes(`/${ranges}, commits `))).toBe(true)
    expect(stdout).toMatch(/ranges \d+, by worker: /)
  })
})
