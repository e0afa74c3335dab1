// The only Piscina import. Runs parse and compute jobs in worker threads and turns every reply
// into a value or an error, by value, never by message text (#8): a Result failure is its
// EditError; an exception the pure code threw is rethrown as the same plain Error the inline
// route would raise (a bug: CLI exit 70, MCP INTERNAL); a protocol mismatch is a stale build,
// also a plain Error; only a worker that dies (the task rejects) is WORKER_CRASHED, and an aborted
// job is REQUEST_CANCELLED. The pool starts lazily on first use, so inline-only engines never
// spawn threads.
import { compiledFile } from '../compiled-file.js'
import { availableParallelism } from 'node:os'
import type { Piscina } from 'piscina'
import { EditError } from '../errors.js'
import { unwrap, type Result } from '../result.js'
import { abortError } from '../abort.js'
import type { VerifyJob, VerifyReply, WorkerReply } from './jobs.js'
import type { OpOutcome, VerifySettings } from '../engine/verify.js'
import type { ReplayJob } from '../replay/commit.js'
import type { AppliedPlan } from '../replay/tree.js'

export interface JobPoolOptions {
  readonly minThreads?: number
  readonly maxThreads?: number
  /** Task module to load instead of the built engine worker (tests use a crashing one). */
  readonly filename?: string
}

/** Idle workers exit after this long; the next request restarts them (about 30 ms each). */
const IDLE_TIMEOUT_MS = 30_000

/**
 * Each worker's young generation, in MiB. V8's default (up to 48 MiB per isolate on 64-bit) let
 * the two workers of a 10,000-file check hold about 120 MiB of short-lived garbage at their peak;
 * a worker's garbage is a batch's lines and path strings, which die young whatever the size (#9,
 * D-068: peak RSS 450 -> 330 MiB, CPU time unchanged within noise).
 */
const WORKER_YOUNG_GENERATION_MB = 8

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

export class JobPool {
  readonly #options: JobPoolOptions
  #pool: Piscina | undefined

  constructor(options: JobPoolOptions = {}) {
    this.#options = options
  }

  get started(): boolean {
    return this.#pool !== undefined
  }

  /** Verifies a batch of ops in a worker, which reads their files itself (verify.ts). */
  async verify(
    job: VerifyJob<VerifySettings>,
    signal?: AbortSignal,
  ): Promise<VerifyReply<OpOutcome>> {
    return unwrap(await this.#run<VerifyReply<OpOutcome>>('verify', job, signal))
  }

  /** One commit of a history replay in a worker (src/replay/commit.ts). */
  async replay(job: ReplayJob, signal?: AbortSignal): Promise<AppliedPlan> {
    return unwrap(await this.#run<AppliedPlan>('replay', job, signal))
  }

  /** Threads the pool runs at most (it starts lazily; this does not start it). */
  get maxThreads(): number {
    return this.#options.maxThreads ?? defaultMaxThreads()
  }

  async close(): Promise<void> {
    const pool = this.#pool
    this.#pool = undefined
    if (pool !== undefined) await pool.destroy()
  }

  async #run<T>(
    name: 'verify' | 'replay',
    job: VerifyJob<VerifySettings> | ReplayJob,
    signal: AbortSignal | undefined,
  ): Promise<Result<T>> {
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
        `A ${name === 'replay' ? 'replay' : 'verification'} worker failed during ${name}: ${(error as Error).message}`,
        { cause: error },
      )
    }
    return resultOf(reply)
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
        `job-pool: job protocol ${reply.jobProtocol} does not match worker protocol ${reply.workerProtocol}; the built worker is stale, run npm run build`,
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
    'job-pool: unrecognised worker reply; the built worker is stale, run npm run build',
  )
}
