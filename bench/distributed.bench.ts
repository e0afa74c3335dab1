// The distributed replay against the local one, on this machine: the same histories
// replayed by `patchloom replay` (one process per repository, one after another) and by
// `patchloom replay --queue` with 1, 2 and 4 `patchloom worker` processes on a real redis-server
// (started here on a free loopback port, no persistence). Whole-process wall times, medians of
// --runs; each queue run's merged report is checked against the local one (every figure but
// time), so a fast wrong answer cannot pass. The queue's overhead per job is the 1-worker run's
// wall time over the local one's, divided by the number of jobs.
// Run: npm run bench:distributed, or npm run build && node dist/bench/distributed.bench.js
//   [--repos DIR,DIR] (default: two generated 3,000-commit histories) [--commits 3000]
//   [--split 250] [--workers 1,2,4] [--runs 3] [--via unified] [--url-workers 2]
// With --url-workers N (default 2), the same replay with the repositories given as file:// URLs
// to N workers: once with empty clone caches (every worker and the enqueuer clone each
// repository through git's transport first), once more with those caches warm.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { linearHistory } from './generated-history.js'
import { REDIS_AVAILABLE, REDIS_SKIP_REASON, startRedis } from './redis-server.js'
import { loadLine, machineLine, markdownTable, median, ratio, replayFigures } from './report.js'

const CLI = fileURLToPath(new URL('../../bin/patchloom.js', import.meta.url))
const args = process.argv.slice(2)
const flag = (name: string, fallback: string): string => {
  const at = args.indexOf(name)
  return at === -1 ? fallback : (args[at + 1] ?? fallback)
}
const COMMITS = Number(flag('--commits', '3000'))
const SPLIT = Number(flag('--split', '250'))
const WORKERS = flag('--workers', '1,2,4').split(',').map(Number)
const RUNS = Number(flag('--runs', '3'))
const VIA = flag('--via', 'unified')
// Workers for the runs that name the repositories by file:// URL (each worker mirrors them into
// a clone cache of its own); 0 leaves those runs out.
const URL_WORKERS = Number(flag('--url-workers', '2'))

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

function cli(argv: readonly string[]): Promise<Run> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.once('error', reject)
    child.once('exit', (code) =>
      resolve({ code: code ?? -1, stdout, stderr, ms: performance.now() - started }),
    )
  })
}

/** The figures a queue run must reproduce, as text to compare. */
function figures(report: Record<string, unknown>): string {
  return JSON.stringify(replayFigures(report))
}

async function startWorkers(url: string, count: number, cache?: string) {
  const children = Array.from({ length: count }, (_, i) =>
    spawn(
      process.execPath,
      [
        CLI,
        'worker',
        '--queue',
        url,
        '--name',
        `bench-${i}`,
        ...(cache === undefined ? [] : ['--cache', path.join(cache, `worker-${i}`)]),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    ),
  )
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve, reject) => {
          let log = ''
          child.stderr.on('data', (c: Buffer) => {
            log += c.toString()
            if (log.includes('taking replay ranges')) resolve()
          })
          child.once('exit', (code) => reject(new Error(`worker exited ${String(code)}: ${log}`)))
        }),
    ),
  )
  return async () => {
    await Promise.all(
      children.map((child) => {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        return exited
      }),
    )
  }
}

async function main(): Promise<void> {
  if (!REDIS_AVAILABLE) {
    console.log(`distributed.bench: not run, ${REDIS_SKIP_REASON}`)
    return
  }
  const scratch = mkdtempSync(path.join(tmpdir(), 'patchloom-distributed-'))
  const redis = await startRedis()
  try {
    const given = flag('--repos', '')
    const repos =
      given === ''
        ? ['a', 'b'].map((name) => {
            const dir = path.join(scratch, name)
            linearHistory(dir, path.join(scratch, `home-${name}`), COMMITS)
            return dir
          })
        : given.split(',').map((r) => path.resolve(r))
    console.log(`## distributed.bench (issue #12)\n\n${machineLine()}\n`)
    // Local: each repository replayed by its own process, one after another.
    const localWalls: number[] = []
    const expected: string[] = []
    let commits = 0
    for (let r = 0; r < RUNS; r++) {
      let wall = 0
      commits = 0
      for (const [i, repo] of repos.entries()) {
        const run = await cli(['replay', repo, '--via', VIA, '--json'])
        if (run.code !== 0) throw new Error(`local replay of ${repo} failed: ${run.stderr}`)
        const report = JSON.parse(run.stdout) as Record<string, unknown>
        expected[i] = figures(report)
        commits += Number(report['commits'])
        wall += run.ms
      }
      localWalls.push(wall)
    }
    const local = median(localWalls)
    const jobs = repos.length === 0 ? 0 : Math.ceil(commits / SPLIT)
    const rows: string[][] = [
      [
        'local (`patchloom replay`, one process per repository)',
        '-',
        '-',
        (local / 1000).toFixed(2),
        (commits / (local / 1000)).toFixed(0),
        '1.00x',
      ],
    ]
    /** One `replay --queue` of `sources`, checked against the local reports; its wall and jobs. */
    const queueRun = async (sources: readonly string[], extra: readonly string[] = []) => {
      const run = await cli([
        'replay',
        '--queue',
        redis.url,
        ...sources,
        '--split',
        `commits=${SPLIT}`,
        '--via',
        VIA,
        ...extra,
        '--json',
      ])
      if (run.code !== 0) throw new Error(`queue replay failed: ${run.stderr}`)
      const merged = JSON.parse(run.stdout) as { repos: Record<string, unknown>[] }
      merged.repos.forEach((report, i) => {
        if (figures(report) !== expected[i])
          throw new Error(`queue replay of ${sources[i]} differs from the local report`)
      })
      await cli(['queue', 'clean', '--queue', redis.url])
      return {
        ms: run.ms,
        ranges: merged.repos.reduce((n, rep) => n + (rep['ranges'] as unknown[]).length, 0),
      }
    }
    const row = (label: string, count: number, ranges: number, wall: number): string[] => [
      label,
      String(count),
      String(ranges),
      (wall / 1000).toFixed(2),
      (commits / (wall / 1000)).toFixed(0),
      ratio(local, wall),
    ]
    let overheadPerJob = Number.NaN
    for (const count of WORKERS) {
      const stop = await startWorkers(redis.url, count)
      const walls: number[] = []
      let ranges = 0
      try {
        for (let r = 0; r < RUNS; r++) {
          const run = await queueRun(repos)
          ranges = run.ranges
          walls.push(run.ms)
        }
      } finally {
        await stop()
      }
      const wall = median(walls)
      if (count === 1) overheadPerJob = (wall - local) / ranges
      rows.push(
        row(`queue, ${count} worker process${count === 1 ? '' : 'es'}`, count, ranges, wall),
      )
    }
    if (URL_WORKERS > 0) {
      // The reports name the repository by its URL; figures() leaves the name out.
      const urls = repos.map((repo) => `file://${repo}`)
      const cold: number[] = []
      const warm: number[] = []
      let ranges = 0
      for (let r = 0; r < RUNS; r++) {
        const cache = mkdtempSync(path.join(scratch, 'caches-'))
        const stop = await startWorkers(redis.url, URL_WORKERS, cache)
        try {
          const plan = ['--cache', path.join(cache, 'enqueuer')]
          const first = await queueRun(urls, plan)
          cold.push(first.ms)
          ranges = first.ranges
          warm.push((await queueRun(urls, plan)).ms)
        } finally {
          await stop()
          rmSync(cache, { recursive: true, force: true })
        }
      }
      const label = `queue by file:// URL, ${URL_WORKERS} workers`
      rows.push(row(`${label}, empty clone caches`, URL_WORKERS, ranges, median(cold)))
      rows.push(row(`${label}, warm clone caches`, URL_WORKERS, ranges, median(warm)))
    }
    console.log(
      `${repos.length} histories, ${commits} commits in all, via ${VIA}; ranges of ${SPLIT} commits (about ${jobs} jobs); median of ${RUNS} runs; whole-process wall times, the queue's including planning and merging; every queue run's report checked equal to the local one.\n`,
    )
    console.log(
      markdownTable(['run', 'workers', 'jobs', 'wall s', 'commits/s', 'speed vs local'], rows),
    )
    console.log(
      `\nQueue overhead per job (1 worker against local, over its jobs): ${overheadPerJob.toFixed(1)} ms.\n\n${loadLine()}`,
    )
  } finally {
    await redis.stop()
    rmSync(scratch, { recursive: true, force: true })
  }
}

await main()
