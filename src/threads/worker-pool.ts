// The only Piscina import: runs the tasks of workers/engine.worker.ts in worker threads and turns
// every reply into a value or an error by value, never by message text. A Result failure is its
// EditError; an exception the pure code threw is rethrown as the same plain Error the calling
// thread would raise; a protocol mismatch (a stale build) is a plain Error; only a task that
// never answers is WORKER_CRASHED, or REQUEST_CANCELLED/REQUEST_TIMEOUT when its signal aborted.
// The pool knows tasks by name (threads/jobs.ts), not who sends them, and starts on first use.
import { compiledFile } from '../compiled-file.js'
import { availableParallelism } from 'node:os'
import type { Piscina } from 'piscina'
import { abortError } from '../abort.js'
import { EditError } from '../errors.js'
import { unwrap, type Result } from '../result.js'
import { TASKS, type StampedJob, type TaskName, type WorkerReply } from './jobs.js'

/** The pool's state now, for the server's metrics; all zero before the pool starts. */
export interface WorkerPoolStats {
  readonly threads: number
  readonly maxThreads: number
  /** Tasks sent and not yet answered (running or queued). */
  readonly tasksInFlight: number
  /** Tasks waiting for a free thread. */
  readonly queued: number
  /** Tasks the pool has finished since it started. */
  readonly completed: number
  /** Piscina's estimate: mean run time times tasks over the time since start times maxThreads. */
  readonly utilization: number
}

export interface WorkerPoolOptions {
  readonly minThreads?: number
  readonly maxThreads?: number
  /** Task module to load instead of the built engine worker (tests use a crashing one). */
  readonly filename?: string
}

/** Idle workers exit after this long; the next request restarts them (about 30 ms each). */
const IDLE_TIMEOUT_MS = 30_000

// The measurements: DECISIONS.md D-195 (8 MiB, then 32).
/**
 * Each worker's young generation, in MiB. V8's default (up to 48 MiB per isolate on 64-bit) let
 * the two workers of a 10,000-file check hold about 120 MiB of short-lived garbage at their peak;
 * 8 MiB kept that down, but a warm engine's workers then spent a fifth of their time collecting
 * it. 32 MiB took a warm 10,000-file check from 650-700 ms to 540-590 ms for about 35 MiB more
 * peak RSS (check) and 55 MiB (apply).
 */
const WORKER_YOUNG_GENERATION_MB = 32

/**
 * The compiled worker. From dist/src/threads/ it is ../../workers/; when this module runs from
 * TypeScript sources (tests), the compiled copy under dist/ is used, so `npm run build` must
 * have run.
 */
export function workerFilename(): string {
  return compiledFile(
    [
      new URL('../../workers/engine.worker.js', import.meta.url),
      new URL('../../dist/workers/engine.worker.js', import.meta.url),
    ],
    'workers/engine.worker.js',
  )
}

export function defaultMaxThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism()))
}

export class WorkerPool {
  readonly #options: WorkerPoolOptions
  #pool: Piscina | undefined
  #inFlight = 0

  constructor(options: WorkerPoolOptions = {}) {
    this.#options = options
  }

  get started(): boolean {
    return this.#pool !== undefined
  }

  /**
   * Runs `task` on `job` in a worker and returns the task's value; a failure Result is thrown as
   * its EditError. `Reply` is the task's reply type, which the sender knows (threads/jobs.ts).
   */
  async run<Reply>(task: TaskName, job: StampedJob, signal?: AbortSignal): Promise<Reply> {
    return unwrap(await this.#run<Reply>(task, job, signal))
  }

  /** Threads the pool runs at most (it starts lazily; this does not start it). */
  get maxThreads(): number {
    return this.#options.maxThreads ?? defaultMaxThreads()
  }

  get stats(): WorkerPoolStats {
    const pool = this.#pool
    return {
      threads: pool?.threads.length ?? 0,
      maxThreads: this.maxThreads,
      tasksInFlight: this.#inFlight,
      queued: pool?.queueSize ?? 0,
      completed: pool?.completed ?? 0,
      utilization: pool?.utilization ?? 0,
    }
  }

  async close(): Promise<void> {
    const pool = this.#pool
    this.#pool = undefined
    if (pool !== undefined) await pool.destroy()
  }

  async #run<T>(
    name: TaskName,
    job: StampedJob,
    signal: AbortSignal | undefined,
  ): Promise<Result<T>> {
    this.#inFlight++
    try {
      const pool = await this.#ensure()
      let reply: WorkerReply<T>
      try {
        reply = (await pool.run(job, {
          name,
          ...(signal === undefined ? {} : { signal }),
        })) as WorkerReply<T>
      } catch (error) {
        // The task never answered: the thread died, or the job was aborted.
        if (signal?.aborted === true) throw abortError(signal, error)
        throw new EditError(
          'WORKER_CRASHED',
          `A ${TASKS[name]} worker failed during ${name}: ${(error as Error).message}`,
          { cause: error },
        )
      }
      return resultOf(reply)
    } finally {
      this.#inFlight--
    }
  }

  // Piscina is imported on first use: a CLI run that stays inline never pays to load it (~35 ms).
  async #ensure(): Promise<Piscina> {
    if (this.#pool === undefined) {
      const { Piscina } = await import('piscina')
      if (this.#pool !== undefined) return this.#pool
      const maxThreads = this.#options.maxThreads ?? defaultMaxThreads()
      this.#pool = new Piscina({
        filename: this.#options.filename ?? workerFilename(),
        minThreads: Math.min(this.#options.minThreads ?? 1, maxThreads),
        maxThreads,
        idleTimeout: IDLE_TIMEOUT_MS,
        resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
      })
    }
    return this.#pool
  }
}

/** The Result inside a reply; anything else is a bug or a stale build, thrown as a plain Error. */
function resultOf<T>(reply: WorkerReply<T>): Result<T> {
  switch (reply.kind) {
    case 'result':
      return reply.result
    case 'protocol-mismatch':
      throw new Error(
        `worker-pool: job protocol ${reply.jobProtocol} does not match worker protocol ${reply.workerProtocol}; the built worker is stale, run npm run build`,
      )
    case 'threw': {
      // The same name and message as the inline route's exception, and the worker's stack.
      const error = new Error(reply.message)
      error.name = reply.name
      if (reply.stack !== undefined) error.stack = reply.stack
      throw error
    }
  }
  // Not a shape this build knows: a worker from another build answered.
  throw new Error(
    'worker-pool: unrecognised worker reply; the built worker is stale, run npm run build',
  )
}
