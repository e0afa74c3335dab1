// The distributed replay's library parts against a real redis-server (#12): a history split into
// ranges, replayed by two BullMQ workers, merges into exactly the local replay's report; the same
// run enqueued again adds no job and gives the same report; a malformed payload fails once, is not
// retried, and the workers go on. (Worker processes and the CLI come with `patchloom worker`.)
import { rmSync } from 'node:fs'
import path from 'node:path'
import { Job, Queue, type Worker } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
      const worker = startReplayWorker({ connection, name })
      await worker.waitUntilReady()
      workers.push(worker)
    }
  })
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()))
    await redis?.stop()
    rmSync(scratch, { recursive: true, force: true })
  })

  async function local(via: 'unified' | 'codex'): Promise<ReplayReport> {
    const run = replay({ repo: repo.dir, range: 'HEAD', via })
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
      const worker = startReplayWorker({ connection: other, name: 'late' })
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
})
