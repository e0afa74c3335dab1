// The distributed replay through the built CLI (#12), against a real redis-server: `patchloom
// worker` processes take the ranges `patchloom replay --queue` enqueues, and the merged report is
// the local replay's; workers stop cleanly on SIGTERM; `queue status` and `queue clean` see and
// remove the run; an unreachable or malformed --queue is refused before anything runs.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { linearHistory } from '../../bench/generated-history.js'
import { buildHistoryRepo, type HistoryRepo } from '../helpers/history-repo.js'
import {
  REDIS_AVAILABLE,
  REDIS_SKIP_REASON,
  startRedis,
  type RunningRedis,
} from '../helpers/redis.js'
import { CLI_BIN, jsonLine, runCli, type CliRun } from '../helpers/run-cli.js'
import { Queue } from 'bullmq'
import { parseQueueUrl } from '../../src/queue/url.js'
import { REPLAY_QUEUE } from '../../src/queue/worker.js'
import { makeTempDir } from '../helpers/tree.js'

const BUILT = existsSync(fileURLToPath(new URL('../../dist/cli/main.cjs', import.meta.url)))

/** The figures two replays must share: everything but time and the queue's own fields. */
function figures(report: Record<string, unknown>): Record<string, unknown> {
  const {
    wallMs: _w,
    commitsPerSecond: _c,
    hunksPerSecond: _h,
    ranges: _r,
    repo: _p,
    ...rest
  } = report
  return rest
}

/**
 * A finished `replay --queue --json` run with no failed range whose one repository's report has
 * the local replay's figures; returns that repository's ranges.
 */
function expectExactRun(run: CliRun, local: CliRun): { worker: string }[] {
  expect(run.code, run.stderr).toBe(0)
  const merged = jsonLine(run) as { failedRanges: number; repos: Record<string, unknown>[] }
  expect(merged.failedRanges).toBe(0)
  expect(figures(merged.repos[0] as Record<string, unknown>)).toEqual(figures(jsonLine(local)))
  return (merged.repos[0] as { ranges: { worker: string }[] }).ranges
}

/** Polls the queue at `url` until its count of `state` jobs passes `done`; returns the last count. */
async function countWhen(
  url: string,
  state: 'active' | 'waiting',
  done: (count: number) => boolean,
  timeoutMs: number,
): Promise<number> {
  const queue = new Queue(REPLAY_QUEUE, { connection: parseQueueUrl(url) })
  try {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const count = (await queue.getJobCounts(state))[state] ?? 0
      if (done(count) || Date.now() > deadline) return count
      await new Promise((r) => setTimeout(r, 10))
    }
  } finally {
    await queue.close()
  }
}

/** Every worker process a test started: any still running at the end is killed (afterAll). */
const started: ChildProcess[] = []

interface WorkerProcess {
  readonly child: ChildProcess
  readonly log: () => string
  stop(): Promise<number | null>
}

async function startWorker(
  url: string,
  name: string,
  extra: readonly string[] = [],
): Promise<WorkerProcess> {
  const child = spawn(
    process.execPath,
    [CLI_BIN, 'worker', '--queue', url, '--name', name, ...extra],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  )
  started.push(child)
  let log = ''
  child.stderr?.on('data', (c: Buffer) => (log += c.toString()))
  const deadline = Date.now() + 15_000
  while (!log.includes('taking replay ranges')) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`worker ${name} did not start:\n${log}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    child,
    log: () => log,
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode
      const exited = new Promise<number | null>((resolve) =>
        child.once('exit', (code) => resolve(code)),
      )
      child.kill('SIGTERM')
      return exited
    },
  }
}

describe.skipIf(!BUILT || !REDIS_AVAILABLE)(
  `patchloom replay --queue and worker (needs npm run build; skipped when ${REDIS_SKIP_REASON})`,
  () => {
    let redis: RunningRedis
    let scratch: string
    let repo: HistoryRepo
    beforeAll(async () => {
      redis = await startRedis()
      scratch = await makeTempDir('patchloom-cli-queue-')
      repo = buildHistoryRepo(path.join(scratch, 'repo'), path.join(scratch, 'home'))
    })
    afterAll(async () => {
      // A test that failed half-way may leave a worker behind; it must not outlive the suite.
      for (const child of started) if (child.exitCode === null) child.kill('SIGKILL')
      await redis?.stop()
      rmSync(scratch, { recursive: true, force: true })
    })

    for (const count of [2, 3]) {
      it(`merges the ranges ${count} worker processes replayed into the local replay's report`, async () => {
        const local = await runCli(['replay', repo.dir, '--via', 'codex', '--json'])
        expect(local.code).toBe(0)
        const workers = await Promise.all(
          Array.from({ length: count }, (_, i) => startWorker(redis.url, `w${count}-${i}`)),
        )
        try {
          const run = await runCli([
            'replay',
            '--queue',
            redis.url,
            repo.dir,
            '--split',
            'commits=2',
            '--via',
            'codex',
            '--json',
          ])
          expect((jsonLine(run) as { ok: boolean }).ok).toBe(true)
          const ranges = expectExactRun(run, local)
          expect(ranges).toHaveLength(Math.ceil(repo.commits.length / 2))
          expect(ranges.every((r) => r.worker.startsWith(`w${count}-`))).toBe(true)
        } finally {
          for (const worker of workers) expect(await worker.stop(), worker.log()).toBe(0)
        }
        expect(workers.every((w) => w.log().includes('stopping after the jobs in hand'))).toBe(true)
      })
    }

    it('completes the run exactly when a worker is killed (SIGKILL) in the middle of a range', async () => {
      const long = path.join(scratch, 'long')
      linearHistory(long, path.join(scratch, 'home-long'), 1500)
      const local = await runCli(['replay', long, '--json'])
      expect(local.code).toBe(0)
      // A database of its own: the earlier tests' workers left BullMQ's stalled-check key there
      // with their 30 s interval, which would hold this one's 1 s check back until it expires.
      const url = redis.url.replace(/\/0$/, '/3')
      // Short locks, so the survivor takes the dead worker's range back within seconds.
      const victim = await startWorker(url, 'victim', ['--lock-ms', '1000'])
      const run = runCli(['replay', '--queue', url, long, '--split', 'commits=1500', '--json'])
      // No "done" line yet: the range is in its hands. Wait for the job to be active, then kill.
      expect(await countWhen(url, 'active', (n) => n > 0, 20_000)).toBe(1)
      victim.child.kill('SIGKILL')
      await new Promise((resolve) => victim.child.once('exit', resolve))
      expect(victim.log()).not.toContain('done')
      const survivor = await startWorker(url, 'survivor', ['--lock-ms', '1000'])
      try {
        expect(expectExactRun(await run, local)).toEqual([
          expect.objectContaining({ worker: 'survivor' }),
        ])
      } finally {
        await survivor.stop()
      }
    }, 120_000)

    it('survives a Redis restart (no persistence) in the middle of a run: lost ranges are enqueued again', async () => {
      const long = path.join(scratch, 'long-restart')
      linearHistory(long, path.join(scratch, 'home-restart'), 600)
      const local = await runCli(['replay', long, '--json'])
      expect(local.code).toBe(0)
      // Enqueued while no worker runs, then the server restarts empty: every range is lost.
      const run = runCli(['replay', '--queue', redis.url, long, '--split', 'commits=100', '--json'])
      expect(await countWhen(redis.url, 'waiting', (n) => n === 6, 30_000)).toBe(6)
      await redis.restart()
      const workers = await Promise.all([
        startWorker(redis.url, 'r1'),
        startWorker(redis.url, 'r2'),
      ])
      try {
        const finished = await run
        expectExactRun(finished, local)
        expect(finished.stderr.match(/was lost by the queue .*enqueued it again/g)).toHaveLength(6)
      } finally {
        for (const worker of workers) await worker.stop()
      }
    }, 90_000)

    it('shows the queue and removes a run from it', async () => {
      const worker = await startWorker(redis.url, 'w-status')
      let runId = ''
      try {
        const run = await runCli(['replay', '--queue', redis.url, repo.dir, '--json'])
        expect(run.code, run.stderr).toBe(0)
        runId = String(jsonLine(run)['run'])
      } finally {
        await worker.stop()
      }
      const status = await runCli(['queue', 'status', '--queue', redis.url, '--json'])
      expect(status.code).toBe(0)
      const before = jsonLine(status) as Record<string, number>
      expect(before['completed']).toBeGreaterThan(0)
      const clean = await runCli(['queue', 'clean', '--queue', redis.url, '--run', runId])
      expect(clean.code).toBe(0)
      expect(clean.stdout).toMatch(new RegExp(`removed 1 jobs of run ${runId}`))
      const after = jsonLine(await runCli(['queue', 'status', '--queue', redis.url, '--json']))
      expect(after['completed']).toBe(before['completed']! - 1)
    })

    it('refuses an unreachable queue (75) and a malformed URL (64) before doing anything', async () => {
      const down = await runCli(['replay', '--queue', 'redis://127.0.0.1:1/0', repo.dir, '--json'])
      expect(down.code).toBe(75)
      expect(jsonLine(down)).toMatchObject({ ok: false, error: { code: 'QUEUE_UNREACHABLE' } })
      const bad = await runCli(['worker', '--queue', 'redis://:secret@host/x'])
      expect(bad.code).toBe(64)
      expect(bad.stderr).toContain('USAGE_INVALID')
      expect(bad.stderr).not.toContain('secret')
    })
  },
)
