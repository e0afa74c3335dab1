// The only Piscina import. Runs parse and compute jobs in worker threads and turns every outcome
// into a value or an EditError: a worker that dies is WORKER_CRASHED, an aborted job is
// REQUEST_CANCELLED. The pool starts lazily on first use, so inline-only engines never spawn
// threads.
import { compiledFile } from '../compiled-file.js'
import { availableParallelism } from 'node:os'
import type { Piscina } from 'piscina'
import { EditError } from '../errors.js'
import { unwrap } from '../result.js'
import { abortError } from './abort.js'
import type { ComputedFile, EditPlan } from '../types.js'
import type { ComputeJob, ComputeOutcome, ParseJob, ParseOutcome } from './jobs.js'

export interface JobPoolOptions {
  readonly minThreads?: number
  readonly maxThreads?: number
  /** Task module to load instead of the built engine worker (tests use a crashing one). */
  readonly filename?: string
}

/** Idle workers exit after this long; the next request restarts them (about 30 ms each). */
const IDLE_TIMEOUT_MS = 30_000

/**
 * The compiled worker. From dist/src/coordinator/ it is ../../workers/; when this module runs from
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

  async parse(job: ParseJob, signal?: AbortSignal): Promise<EditPlan> {
    return unwrap(await this.#run<ParseOutcome>('parse', job, signal))
  }

  async compute(job: ComputeJob, signal?: AbortSignal): Promise<ComputedFile> {
    return unwrap(await this.#run<ComputeOutcome>('compute', job, signal))
  }

  async close(): Promise<void> {
    const pool = this.#pool
    this.#pool = undefined
    if (pool !== undefined) await pool.destroy()
  }

  async #run<R>(
    name: 'parse' | 'compute',
    job: ParseJob | ComputeJob,
    signal: AbortSignal | undefined,
  ): Promise<R> {
    const pool = await this.#ensure()
    try {
      return (await pool.run(job, { name, ...(signal === undefined ? {} : { signal }) })) as R
    } catch (error) {
      if (/job protocol/.test((error as Error).message)) throw error // a stale build: a bug, not a retry
      if (signal?.aborted === true) throw abortError(signal, error)
      throw new EditError(
        'WORKER_CRASHED',
        `A verification worker failed during ${name}: ${(error as Error).message}`,
        {
          cause: error,
        },
      )
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
      })
    }
    return this.#pool
  }
}
