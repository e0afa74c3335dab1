// The distributed replay's commands: `replay --queue`, `worker`, `queue status` and `queue clean`,
// their flags read against QUEUE_FLAGS (flag-table.ts); QUEUE_USAGE below is the accepted syntax.
// Loaded by the CLI only when one is asked for, so other commands never load BullMQ. The URL is
// checked whole and the server pinged before anything is enqueued or taken.
import path from 'node:path'
import { Queue } from 'bullmq'
import { EditError } from '../../errors.js'
import { markCancelled } from '../../queue/cancel.js'
import { isJobOfRun } from '../../queue/job.js'
import { checkReachable } from '../../queue/reach.js'
import { runOnQueue, type QueueRunProgress, type QueueRunReport } from '../../queue/run.js'
import { parseRepoSource, sourceText } from '../../queue/source.js'
import { parseQueueUrl, redact, type QueueConnection } from '../../queue/url.js'
import { REPLAY_QUEUE, startReplayWorker } from '../../queue/worker.js'
import { EXIT } from '../render.js'
import type { CliIo } from '../io.js'
import { KNOWN_FLAGS, QUEUE_FLAGS } from '../flag-table.js'
import { readFlags, unexpectedArgument, type ReadFlags, type Reading } from '../flags.js'
import { humanReport, jsonReport } from './replay.js'

export const QUEUE_USAGE = `  patchloom replay --queue URL REPO... [--split commits=N] [--range R] [--via V] [--attempts N]
                   [--cache DIR] [--run ID] [--timeout SECONDS] [--json]
  patchloom worker --queue URL [--concurrency K] [--name NAME] [--lock-ms MS] [--cache DIR]
  patchloom queue status --queue URL [--json]
  patchloom queue clean --queue URL [--run ID [--cancel]]
  URL: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], or rediss:// for TLS
  REPO: a path every worker can read, or a file, git, http(s) or ssh URL (or user@host:path)
        that each worker mirrors into its clone cache (--cache, default ~/.cache/patchloom/repos)`

const DEFAULT_SPLIT = 200
const OPEN_STATES = ['waiting', 'delayed', 'active', 'prioritized', 'waiting-children'] as const

export type QueueIo = CliIo

function usage(message: string): EditError {
  return new EditError('USAGE_INVALID', `${message}\n${QUEUE_USAGE}`)
}

/** Reads `argv` against the queue command's table; a bad command line throws (exit 64). */
function flagsOf<C extends keyof typeof QUEUE_FLAGS>(
  command: C,
  argv: readonly string[],
  positional?: Reading['positional'],
): ReadFlags<(typeof QUEUE_FLAGS)[C]> {
  const read = readFlags(argv, QUEUE_FLAGS[command], {
    command,
    known: KNOWN_FLAGS,
    repeats: 'refuse',
    ...(positional === undefined ? {} : { positional }),
    usage: QUEUE_USAGE,
  })
  if (!read.ok) throw EditError.fromData(read.error)
  return read.value
}

/** `parse()`, with its refusal of a bad URL or location as a bad command line (exit 64). */
function asUsage<T>(parse: () => T): T {
  try {
    return parse()
  } catch (error) {
    if (error instanceof EditError) throw usage(error.message.replace(/^Invalid option: /, ''))
    throw error
  }
}

async function connect(
  url: string | undefined,
): Promise<{ connection: QueueConnection; url: string }> {
  if (url === undefined) throw usage('This command needs --queue URL.')
  const connection = asUsage(() => parseQueueUrl(url))
  await checkReachable(connection, url)
  return { connection, url }
}

/** Runs one queue command; resolves to the exit status (EditErrors are the caller's to render). */
export async function runQueueCommand(argv: readonly string[], io: QueueIo): Promise<number> {
  const [word, ...rest] = argv
  if (word === 'replay') return replayOnQueue(rest, io)
  if (word === 'worker') return runWorker(rest, io)
  if (word === 'queue') {
    const [sub, ...more] = rest
    if (sub === 'status') return status(more, io)
    if (sub === 'clean') return clean(more, io)
    throw usage(`Unknown queue command '${sub ?? ''}'; use status or clean.`)
  }
  throw usage(`Unknown command '${word ?? ''}'.`)
}

async function replayOnQueue(argv: readonly string[], io: QueueIo): Promise<number> {
  const { values: flags, positionals } = flagsOf('replay --queue', argv)
  if (positionals.length === 0) throw usage('replay --queue needs at least one REPO.')
  const repos = positionals.map((r) => asUsage(() => sourceText(parseRepoSource(r, io.cwd))))
  const run = flags['--run']
  const timeoutS = flags['--timeout'] ?? 0
  const { connection } = await connect(flags['--queue'])
  const progress = io.stderrIsTTY === true && !flags['--json']
  const started = performance.now()
  const cache = flags['--cache']
  const range = flags['--range']
  const report = await runOnQueue({
    connection,
    repos,
    split: flags['--split'] ?? DEFAULT_SPLIT,
    ...(cache === undefined ? {} : { cacheDir: path.resolve(io.cwd, cache) }),
    ...(run === undefined ? {} : { run }),
    ...(timeoutS === 0 ? {} : { timeoutMs: timeoutS * 1000 }),
    via: flags['--via'] ?? 'unified',
    attempts: flags['--attempts'] ?? 3,
    onRequeue: (id) =>
      io.stderr(
        `${progress ? '\r\x1b[K' : ''}replay --queue: job ${id} was lost by the queue (did Redis restart without persistence?); enqueued it again\n`,
      ),
    ...(range === undefined ? {} : { range }),
    ...(progress
      ? {
          onProgress: (p) =>
            io.stderr(`\r${progressLine(p, (performance.now() - started) / 1000)}`),
        }
      : {}),
  })
  if (progress) io.stderr('\r\x1b[K')
  io.stdout(flags['--json'] ? `${JSON.stringify(runJson(report))}\n` : runHuman(report))
  if (report.timedOut) {
    io.stderr(
      `replay --queue: run ${report.run} did not finish within ${timeoutS} s; its ${report.unfinishedRanges} unfinished ranges stay on the queue. The same command with --run ${report.run} waits for them again; \`patchloom queue clean --queue URL --run ${report.run} --cancel\` stops the run.\n`,
    )
    return EXIT.RETRYABLE
  }
  return runOk(report) ? EXIT.OK : EXIT.REJECTED
}

/**
 * The run's progress line: ranges done, commits replayed across all workers, their rate since
 * the run started, and the time left at that rate ('?' until a commit is done).
 */
export function progressLine(p: QueueRunProgress, elapsedSeconds: number): string {
  const rate = p.commitsDone / Math.max(elapsedSeconds, 1e-3)
  const eta = rate > 0 ? `${((p.commits - p.commitsDone) / rate).toFixed(0)} s` : '?'
  return `replay --queue: ranges ${p.rangesDone}/${p.ranges}, commits ${p.commitsDone}/${p.commits}, ${rate.toFixed(0)} commits/s, ETA ${eta}`
}

function runOk(report: QueueRunReport): boolean {
  return (
    !report.timedOut &&
    report.failedRanges === 0 &&
    report.repos.every((r) => r.report.mismatches.length === 0 && r.report.misplacedHunks === 0)
  )
}

function runJson(report: QueueRunReport): Record<string, unknown> {
  return {
    ok: runOk(report),
    run: report.run,
    failedRanges: report.failedRanges,
    unfinishedRanges: report.unfinishedRanges,
    timedOut: report.timedOut,
    wallMs: Math.round(report.wallMs),
    repos: report.repos.map((r) => ({ ...jsonReport(r.report), ranges: r.ranges })),
    total: jsonReport(report.total),
  }
}

function runHuman(report: QueueRunReport): string {
  const lines: string[] = []
  for (const repo of report.repos) {
    lines.push(humanReport(repo.report, null).trimEnd())
    const byWorker: Record<string, number> = {}
    for (const r of repo.ranges)
      if (r.worker !== null) byWorker[r.worker] = (byWorker[r.worker] ?? 0) + 1
    lines.push(
      `  ranges ${repo.ranges.length}, by worker: ${
        Object.entries(byWorker)
          .map(([w, n]) => `${w} ${n}`)
          .join(', ') || 'none'
      }`,
    )
    for (const r of repo.ranges)
      if (r.error !== null) lines.push(`  range ${r.index} (${r.range}): ${r.error}`)
  }
  if (report.repos.length > 1) lines.push(humanReport(report.total, null).trimEnd())
  lines.push(
    `run ${report.run}: ${report.failedRanges} failed ranges${
      report.timedOut ? `, ${report.unfinishedRanges} unfinished` : ''
    }`,
  )
  return `${lines.join('\n')}\n`
}

async function runWorker(argv: readonly string[], io: QueueIo): Promise<number> {
  const { values: flags } = flagsOf('worker', argv, (arg) =>
    unexpectedArgument(arg, 'worker takes no arguments'),
  )
  const concurrency = flags['--concurrency'] ?? 1
  const { connection, url } = await connect(flags['--queue'])
  const name = flags['--name']
  const cache = flags['--cache']
  const worker = startReplayWorker({
    connection,
    concurrency,
    lockDurationMs: flags['--lock-ms'] ?? 30_000,
    ...(cache === undefined ? {} : { cacheDir: path.resolve(io.cwd, cache) }),
    ...(name === undefined ? {} : { name }),
    onEvent: (text) => io.stderr(`patchloom worker: ${text}\n`),
  })
  worker.on('completed', (job) => io.stderr(`patchloom worker: job ${job.id ?? '?'} done\n`))
  await worker.waitUntilReady()
  io.stderr(
    `patchloom worker: taking replay ranges from ${redact(url)} (concurrency ${concurrency})\n`,
  )
  await (io.stopped ?? new Promise<void>(() => undefined))
  io.stderr('patchloom worker: stopping after the jobs in hand\n')
  await worker.close()
  return EXIT.OK
}

async function status(argv: readonly string[], io: QueueIo): Promise<number> {
  const { values: flags } = flagsOf('queue status', argv)
  const { connection } = await connect(flags['--queue'])
  const queue = new Queue(REPLAY_QUEUE, { connection })
  try {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed')
    io.stdout(
      flags['--json']
        ? `${JSON.stringify({ ok: true, queue: REPLAY_QUEUE, ...counts })}\n`
        : `${REPLAY_QUEUE}: ${Object.entries(counts)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}\n`,
    )
    return EXIT.OK
  } finally {
    await queue.close()
  }
}

async function clean(argv: readonly string[], io: QueueIo): Promise<number> {
  const { values: flags } = flagsOf('queue clean', argv)
  const run = flags['--run']
  const cancel = flags['--cancel']
  if (cancel && run === undefined) throw usage('Flag --cancel needs --run ID.')
  const { connection } = await connect(flags['--queue'])
  const queue = new Queue(REPLAY_QUEUE, { connection })
  try {
    let removed = 0
    if (run === undefined) {
      // Finished jobs only: waiting and active ones belong to a run still going.
      for (const state of ['completed', 'failed'] as const)
        removed += (await queue.clean(0, 100_000, state)).length
      io.stdout(`removed ${removed} finished jobs\n`)
      return EXIT.OK
    }
    const mine = (job: { id?: string | undefined }): boolean => isJobOfRun(job.id, run)
    const open = (await queue.getJobs([...OPEN_STATES])).filter(mine)
    if (open.length > 0 && !cancel) {
      throw new EditError(
        'QUEUE_RUN_OPEN',
        `Run ${run} is not finished: ${open.length} of its jobs are waiting, delayed or active. Nothing was removed.`,
      )
    }
    // Marked first, so that neither its enqueuer nor a worker takes the run up again meanwhile.
    if (cancel) await markCancelled(await queue.getBackend().client, run)
    let active = 0
    for (const job of (await queue.getJobs([...OPEN_STATES, 'completed', 'failed'])).filter(mine)) {
      if ((await job.getState()) === 'active') {
        active++
        continue
      }
      await job.remove()
      removed++
    }
    io.stdout(
      `removed ${removed} jobs of run ${run}${
        active > 0
          ? `; ${active} active ones finish on their workers (clean the run again afterwards)`
          : ''
      }\n`,
    )
    return EXIT.OK
  } finally {
    await queue.close()
  }
}
