// applyMany: many patches on many workspaces in one process, streamed. Jobs are read one at a
// time; at most `concurrency` are in hand at once (running, or done and waiting for the jobs
// before them), and results leave in input order. One engine per workspace root, shared by its
// jobs, which run one after another in input order; jobs on other roots run meanwhile. Engines of
// roots with no job in hand are kept warm up to `concurrency` of them, the least recently used
// closed first; every engine, and the one worker pool they share, is closed at the end.
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { EditError, isEditError, type EditErrorData } from '../errors.js'
import type { EngineOptions } from '../engine/api.js'
import {
  createEngineWithInternals,
  createJournalKeyRing,
  type EngineInternals,
  type InternalEngine,
} from '../engine/engine.js'
import type { RequestedRoute } from '../engine/route.js'
import { failedResult, internalErrorData, withUndoCommand } from '../render/result-line.js'
import { WorkerPool } from '../threads/worker-pool.js'
import {
  checkJob,
  DEFAULT_CONCURRENCY,
  MAX_CONCURRENCY,
  type BatchJob,
  type BatchResult,
  type CheckedJob,
} from './jobs.js'

/** applyMany's options: those of createEngine for every workspace (but root), and the window. */
export interface ApplyManyOptions extends Omit<EngineOptions, 'root'> {
  /**
   * Jobs in hand at most: running, or finished and waiting for an earlier job's result. Memory
   * is this many jobs and results, whatever the number of jobs.
   * @default 8
   */
  readonly concurrency?: number
}

/** Seams for the CLI and tests: the engine factory, the route, the directory roots resolve in. */
export interface ManyInternals {
  readonly createEngine?: (options: EngineOptions, internals: EngineInternals) => InternalEngine
  /** Forces every request inline or onto the pool (the CLI's --workers). */
  readonly route?: RequestedRoute
  /** Relative roots resolve against this. @default process.cwd() */
  readonly cwd?: string
}

/** A job (or its refusal) with the caller's own data, handed back beside its result. */
export interface ManyItem<M> {
  readonly checked: CheckedJob
  readonly meta: M
}

/** A result with the meta of the item it answers. */
export interface ManyOutcome<M> {
  readonly result: BatchResult
  readonly meta: M
}

/**
 * Applies (or, with `options.dryRun`, checks) each job on its own workspace and yields each
 * job's result in input order: the object `patchloom apply --json` prints, with the job's `id`.
 * A job that fails, or is not a job (BATCH_JOB_INVALID), gets `ok: false` and its error; the
 * others go on. Stopping early (`break`) lets the jobs in hand finish, then closes the engines.
 * Rejects only for invalid options (CONFIG_INVALID) or when `jobs` itself throws.
 *
 * @example
 * for await (const r of applyMany(jobs, { durability: 'fast' })) {
 *   console.log(r.id, r.ok ? r.files.length : r.error.code)
 * }
 */
export async function* applyMany(
  jobs: AsyncIterable<BatchJob> | Iterable<BatchJob>,
  options: ApplyManyOptions = {},
): AsyncGenerator<BatchResult, void, undefined> {
  for await (const outcome of runMany(checkedJobs(jobs), options)) yield outcome.result
}

async function* checkedJobs(
  jobs: AsyncIterable<BatchJob> | Iterable<BatchJob>,
): AsyncGenerator<ManyItem<undefined>> {
  for await (const job of jobs) yield { checked: checkJob(job, 'library'), meta: undefined }
}

interface RootEntry {
  readonly engine: InternalEngine
  /** The last job queued on this root: the next one starts when it settles. */
  tail: Promise<unknown>
  /** Jobs queued on this root and not yet finished. */
  jobs: number
}

/** applyMany with meta carried through and the internal seams: what `patchloom batch` runs. */
export async function* runMany<M>(
  items: AsyncIterable<ManyItem<M>> | Iterable<ManyItem<M>>,
  options: ApplyManyOptions = {},
  internals: ManyInternals = {},
): AsyncGenerator<ManyOutcome<M>, void, undefined> {
  const { concurrency = DEFAULT_CONCURRENCY, ...engineOptions } = options
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
    throw new EditError(
      'CONFIG_INVALID',
      `Invalid option: concurrency ${String(concurrency)}; give a whole number from 1 to ${MAX_CONCURRENCY}.`,
    )
  }
  const create = internals.createEngine ?? createEngineWithInternals
  const cwd = internals.cwd ?? process.cwd()
  const workers = engineOptions.workers
  const pool =
    workers === false
      ? undefined
      : new WorkerPool({
          ...(workers?.minThreads === undefined ? {} : { minThreads: workers.minThreads }),
          ...(workers?.maxThreads === undefined ? {} : { maxThreads: workers.maxThreads }),
        })
  // The journal key is read once for the run, not once per workspace root.
  const keys = createJournalKeyRing()
  const roots = new Map<string, RootEntry>()
  // Roots with no job in hand, least recently used first (a Set keeps insertion order).
  const idle = new Set<string>()
  const closing = new Set<Promise<void>>()

  const closeEngine = (engine: InternalEngine): void => {
    const done = engine.close().then(
      () => undefined,
      () => undefined,
    )
    closing.add(done)
    void done.then(() => closing.delete(done))
  }

  const entryFor = (absRoot: string): RootEntry => {
    const known = roots.get(absRoot)
    if (known !== undefined) {
      idle.delete(absRoot)
      return known
    }
    const engine = create(
      { ...engineOptions, root: absRoot },
      { journalKeyRing: keys, ...(pool === undefined ? {} : { sharedPool: pool }) },
    )
    const entry: RootEntry = { engine, tail: Promise.resolve(), jobs: 0 }
    roots.set(absRoot, entry)
    return entry
  }

  const settled = (absRoot: string, entry: RootEntry): void => {
    entry.jobs--
    if (entry.jobs > 0 || roots.get(absRoot) !== entry) return
    idle.add(absRoot)
    for (const oldest of idle) {
      if (idle.size <= concurrency) break
      idle.delete(oldest)
      const evicted = roots.get(oldest)
      roots.delete(oldest)
      if (evicted !== undefined) closeEngine(evicted.engine)
    }
  }

  const start = (checked: CheckedJob): Promise<BatchResult> => {
    if (!checked.ok) return Promise.resolve({ id: checked.id, ...failedResult(checked.error) })
    const job = checked.job
    let absRoot: string
    let entry: RootEntry
    try {
      absRoot = canonicalRoot(resolve(cwd, job.root))
      entry = entryFor(absRoot)
    } catch (error) {
      return Promise.resolve({ id: job.id, ...failedResult(errorDataOf(error)) })
    }
    entry.jobs++
    const result = entry.tail.then(() => runJob(entry.engine, job, internals.route))
    entry.tail = result
    void result.then(() => settled(absRoot, entry))
    return result
  }

  const window: { readonly result: Promise<BatchResult>; readonly meta: M }[] = []
  const source = iteratorOf(items)
  let next: Promise<IteratorResult<ManyItem<M>>> | undefined
  let ended = false
  try {
    for (;;) {
      if (!ended && window.length < concurrency) {
        if (next === undefined) {
          next = Promise.resolve(source.next())
          // Seen below, or dropped with the run: a read that fails after an early stop is moot.
          next.catch(() => undefined)
        }
        const head = window[0]
        // While the next job is not here yet, a finished head is passed on rather than held.
        if (head !== undefined) {
          const first = await Promise.race([next.then(() => false), head.result.then(() => true)])
          if (first) {
            window.shift()
            yield { result: await head.result, meta: head.meta }
            continue
          }
        }
        const step = await next
        next = undefined
        if (step.done === true) ended = true
        else window.push({ result: start(step.value.checked), meta: step.value.meta })
        continue
      }
      const head = window.shift()
      if (head === undefined) return
      yield { result: await head.result, meta: head.meta }
    }
  } finally {
    // The source is told to stop; a read still pending is not waited for (stdin may never end).
    if (!ended) {
      const stopped = Promise.resolve(source.return?.())
      if (next === undefined) await stopped
      else void stopped.catch(() => undefined)
    }
    await Promise.all(window.map((w) => w.result))
    for (const entry of roots.values()) closeEngine(entry.engine)
    roots.clear()
    idle.clear()
    await Promise.all(closing)
    await pool?.close()
  }
}

async function runJob(
  engine: InternalEngine,
  job: BatchJob,
  route: RequestedRoute | undefined,
): Promise<BatchResult> {
  try {
    const result = await engine.apply(job.patch, {
      ...job.options,
      ...(job.format === undefined ? {} : { format: job.format }),
      ...(route === undefined ? {} : { route }),
    })
    return { id: job.id, ...withUndoCommand(result, job.root) }
  } catch (error) {
    return { id: job.id, ...failedResult(errorDataOf(error)) }
  }
}

function errorDataOf(error: unknown): EditErrorData {
  return isEditError(error) ? error.toData() : internalErrorData(error)
}

/**
 * The root as the file system names it, so two spellings of one directory share one engine (and
 * their jobs' order); as given when it cannot be resolved (the engine then says why).
 */
function canonicalRoot(absRoot: string): string {
  try {
    return realpathSync(absRoot)
  } catch {
    return absRoot
  }
}

function iteratorOf<T>(items: AsyncIterable<T> | Iterable<T>): AsyncIterator<T> | Iterator<T> {
  return Symbol.asyncIterator in items
    ? items[Symbol.asyncIterator]()
    : (items as Iterable<T>)[Symbol.iterator]()
}
