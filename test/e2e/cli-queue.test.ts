// The distributed replay through the built CLI, against a real redis-server: `patchloom
// worker` processes take the ranges `patchloom replay --queue` enqueues, and the merged report is
// the local replay's; workers stop cleanly on SIGTERM; a worker killed mid-range and a Redis
// restart (with ranges waiting, and with one in a worker's hands) leave the run exact; a
// repository served by `git daemon` is replayed by URL from the workers' clone caches; --timeout
// stops waiting and leaves the run queued; `queue status` and `queue clean` see, refuse to
// remove an open run, cancel and remove it; an unreachable or malformed --queue is refused
// before anything runs.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { connect, createServer, type AddressInfo } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { linearHistory } from '../../bench/generated-history.js'
import { replayFigures } from '../../bench/report.js'
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

/** git's daemon (git:// over TCP), part of Debian's git package. */
const GIT_DAEMON = (() => {
  try {
    const exec = execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim()
    return existsSync(path.join(exec, 'git-daemon'))
  } catch {
    return false
  }
})()

/** `git daemon` serving every repository under `base` on a free loopback port. */
async function startGitDaemon(base: string): Promise<{ port: number; stop: () => void }> {
  const port = await new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as AddressInfo
      probe.close(() => resolve(free))
    })
  })
  const child = spawn(
    'git',
    [
      'daemon',
      '--reuseaddr',
      '--export-all',
      '--listen=127.0.0.1',
      `--port=${port}`,
      `--base-path=${base}`,
      base,
    ],
    { stdio: 'ignore' },
  )
  const deadline = Date.now() + 10_000
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => (socket.destroy(), resolve(true)))
      socket.once('error', () => resolve(false))
    })
    if (up) break
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error('git daemon did not start')
    await new Promise((r) => setTimeout(r, 50))
  }
  return { port, stop: () => child.kill('SIGTERM') }
}

const BUILT = existsSync(fileURLToPath(new URL('../../dist/cli/main.cjs', import.meta.url)))

/** The figures two replays must share: everything but time and the queue's own fields. */
const figures = replayFigures

/**
 * A finished `replay --queue --json` run with no failed range whose one repository's report has
 * the local replay's figures; returns that repository's ranges.
 */
function expectExactRun(run: CliRun, local: CliRun): { worker: string }[] {
  expect(run.code, run.stderr).toBe(0)
  const merged = jsonLine(run) as {
    failedRanges: number
    repos: Record<string, unknown>[]
    total: Record<string, unknown>
  }
  expect(merged.failedRanges).toBe(0)
  expect(figures(merged.repos[0] as Record<string, unknown>)).toEqual(figures(jsonLine(local)))
  // One repository: the run's total is its report.
  expect(figures(merged.total)).toEqual(figures(jsonLine(local)))
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
    /** A generated linear history of `commits` commits, and its local replay's `--json` run. */
    async function generated(name: string, commits: number) {
      const dir = path.join(scratch, name)
      linearHistory(dir, path.join(scratch, `home-${name}`), commits)
      const local = await runCli(['replay', dir, '--json'])
      expect(local.code).toBe(0)
      return { dir, local }
    }

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
      const { dir: long, local } = await generated('long', 1500)
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
      const { dir: long, local } = await generated('long-restart', 600)
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

    it('survives a Redis restart while a worker holds a range: the range is enqueued again and replayed once more', async () => {
      const { dir: long, local } = await generated('long-held', 1500)
      const url = redis.url.replace(/\/0$/, '/6')
      const worker = await startWorker(url, 'holder')
      try {
        const run = runCli(['replay', '--queue', url, long, '--split', 'commits=1500', '--json'])
        expect(await countWhen(url, 'active', (n) => n > 0, 20_000)).toBe(1)
        await redis.restart()
        const finished = await run
        expectExactRun(finished, local)
        expect(finished.stderr).toMatch(/was lost by the queue .*enqueued it again/)
        expect(worker.log()).toMatch(/was lost by the queue while this worker held it/)
      } finally {
        // The worker outlived the restart: it finished the lost job, and took its copy again.
        expect(await worker.stop(), worker.log()).toBe(0)
      }
    }, 120_000)

    it.skipIf(!GIT_DAEMON)(
      `replays a repository served by git daemon, by URL, from each worker's clone cache (skipped without git-daemon)`,
      async () => {
        const daemon = await startGitDaemon(scratch)
        const workers = await Promise.all(
          ['u1', 'u2'].map((n) =>
            startWorker(redis.url, n, ['--cache', path.join(scratch, `cache-${n}`)]),
          ),
        )
        try {
          const url = `git://127.0.0.1:${daemon.port}/repo`
          const local = await runCli(['replay', repo.dir, '--json'])
          const run = await runCli([
            'replay',
            '--queue',
            redis.url,
            url,
            '--split',
            'commits=3',
            '--cache',
            path.join(scratch, 'cache-plan'),
            '--json',
          ])
          const ranges = expectExactRun(run, local)
          expect((jsonLine(run) as { repos: { repo: string }[] }).repos[0]?.repo).toBe(url)
          // Each worker that took a range mirrored the URL into its cache, once.
          for (const name of new Set(ranges.map((r) => r.worker)))
            expect(readdirSync(path.join(scratch, `cache-${name}`))).toHaveLength(1)
          const cloned = workers.filter((w) => w.log().includes(`cloning ${url} into `))
          expect(cloned.length).toBe(new Set(ranges.map((r) => r.worker)).size)
          expect(cloned.every((w) => w.log().split('cloning ').length === 2)).toBe(true)
        } finally {
          for (const worker of workers) await worker.stop()
          daemon.stop()
        }
      },
      60_000,
    )

    it('stops waiting at --timeout (75) and keeps the run queued; clean refuses it open and cancels it', async () => {
      const url = redis.url.replace(/\/0$/, '/5') // no worker watches it
      const args = ['replay', '--queue', url, repo.dir, '--split', 'commits=4', '--run', 'rtimeout']
      const waited = await runCli([...args, '--timeout', '1', '--json'])
      expect(waited.code, waited.stderr).toBe(75)
      const ranges = Math.ceil(repo.commits.length / 4)
      expect(jsonLine(waited)).toMatchObject({
        ok: false,
        run: 'rtimeout',
        timedOut: true,
        unfinishedRanges: ranges,
        failedRanges: 0,
      })
      expect(waited.stderr).toContain('stay on the queue. The same command with --run rtimeout')
      const open = await runCli(['queue', 'clean', '--queue', url, '--run', 'rtimeout'])
      expect(open.code).toBe(1)
      expect(open.stderr).toContain('QUEUE_RUN_OPEN')
      expect(await countWhen(url, 'waiting', () => true, 0)).toBe(ranges)
      const cancel = await runCli([
        'queue',
        'clean',
        '--queue',
        url,
        '--run',
        'rtimeout',
        '--cancel',
      ])
      expect(cancel.code, cancel.stderr).toBe(0)
      expect(cancel.stdout).toContain(`removed ${ranges} jobs of run rtimeout`)
      expect(await countWhen(url, 'waiting', () => true, 0)).toBe(0)
      // A cancelled run's id is not taken up again.
      const again = await runCli([...args, '--json'])
      expect(again.code).toBe(1)
      expect(jsonLine(again)).toMatchObject({ error: { code: 'QUEUE_RUN_CONFLICT' } })
      expect(await countWhen(url, 'waiting', () => true, 0)).toBe(0)
    }, 60_000)

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

    it('refuses an unreachable queue (75), a malformed URL (64) and a repository it cannot clone (75) before enqueuing anything', async () => {
      const down = await runCli(['replay', '--queue', 'redis://127.0.0.1:1/0', repo.dir, '--json'])
      expect(down.code).toBe(75)
      expect(jsonLine(down)).toMatchObject({ ok: false, error: { code: 'QUEUE_UNREACHABLE' } })
      const bad = await runCli(['worker', '--queue', 'redis://:secret@host/x'])
      expect(bad.code).toBe(64)
      expect(bad.stderr).toContain('USAGE_INVALID')
      expect(bad.stderr).not.toContain('secret')
      const scheme = await runCli(['replay', '--queue', redis.url, 'ftp://me:pw@host/r.git'])
      expect(scheme.code).toBe(64)
      expect(scheme.stderr).toContain('scheme ftp is not one of file, git, http, https, ssh')
      expect(scheme.stderr).not.toContain(':pw@')
      // A URL the enqueuer cannot clone to plan from: retryable, nothing enqueued.
      const gone = await runCli([
        'replay',
        '--queue',
        redis.url,
        'http://me:pw@127.0.0.1:1/r.git',
        '--cache',
        path.join(scratch, 'cache-gone'),
        '--json',
      ])
      expect(gone.code).toBe(75)
      expect(jsonLine(gone)).toMatchObject({ ok: false, error: { code: 'QUEUE_CLONE_FAILED' } })
      expect(gone.stdout).toContain('http://me:***@127.0.0.1:1/r.git')
      expect(gone.stdout + gone.stderr).not.toContain(':pw@')
      expect(await countWhen(redis.url, 'waiting', () => true, 0)).toBe(0)
    })
  },
)
