// The inline-or-pool decision for a request, and how its ops are cut into worker batches. Inline,
// the ops are verified in the calling thread; on the worker pool they are split into batches that
// workers resolve, read and verify themselves (verify-job.ts), which costs a thread hop per batch
// and pays off only when there is enough work to share. plan.ts asks before any file is read, so
// the choice goes by what the request says: how many files it names and how large the patch is.
// The thresholds come from bench/large.bench.ts and bench/pool.bench.ts (bench/RESULTS.md); the
// byte default is DEFAULT_INLINE_MAX_BYTES (src/defaults.ts).
import { EditError } from '../errors.js'

export type Route = 'inline' | 'pool'

export type RequestedRoute = 'auto' | 'inline' | 'pool'

/** A request must name at least this many files to be verified in parallel. */
export const MIN_POOL_FILES = 32

export interface RouteInput {
  readonly requested: RequestedRoute
  /** The engine's pool settings; false for an engine created with `workers: false`. */
  readonly pool: false | { readonly inlineMaxBytes: number }
  readonly files: number
  /** The patch's size in UTF-16 units (its length as a string). */
  readonly patchLength: number
  /** Whether diffs are rendered (ApplyOptions.diffs); without them the pool pays off sooner. */
  readonly diffs: boolean
  /** Whether the pool's threads are already running; a cold pool first pays their start-up. */
  readonly poolStarted: boolean
  /** EngineOptions.blockingReads: inline verification reads synchronously, in runs. */
  readonly blockingReads: boolean
}

/**
 * A pool that has not started costs its threads' start-up first (tens of milliseconds each:
 * a thread, then the worker's modules), which a one-shot CLI pays on every run: the large
 * bench's 100-file CLI row took 196 ms inline (at d33a0d1) and 288 ms on a cold pool (at
 * 86f3eb7). Until the pool runs, a request must be this many times larger to be sent to it.
 */
export const COLD_POOL_FACTOR = 8

// The measurement: DECISIONS.md D-063 (bench/large.bench.ts).
/**
 * Without rendered diffs a worker's share of the work is mostly reading, splicing and hashing,
 * and the pool pays off from a smaller patch. Between 32 and 300 files the two routes were
 * within noise of each other on an idle 2-core machine.
 */
export const COUNT_ONLY_DIVISOR = 4

/**
 * Where a request is verified. `requested: 'pool'` on an engine without a pool is a
 * configuration error, not a silent fallback.
 */
export function chooseRoute(input: RouteInput): Route {
  if (input.requested === 'inline') return 'inline'
  if (input.pool === false) {
    if (input.requested === 'pool') {
      throw new EditError(
        'CONFIG_INVALID',
        'Invalid option: route "pool" on an engine created with workers: false.',
      )
    }
    return 'inline'
  }
  if (input.requested === 'pool') return 'pool'
  const warm = input.diffs
    ? input.pool.inlineMaxBytes
    : input.pool.inlineMaxBytes / COUNT_ONLY_DIVISOR
  // An engine that may block on its reads (a one-shot CLI run) verifies inline rather than start
  // the pool: measured whole process on 2 cores (D-074), `check` of 1,000 to 30,000 files took
  // 0.8-1x the time inline that it took on a pool started for it, with about two thirds of the
  // CPU. Both threads of a fresh pool run cold code while their compilations compete for the
  // same two cores; a warm pool (a long-lived engine) is still chosen by size below.
  if (!input.poolStarted && input.blockingReads) return 'inline'
  const threshold = input.poolStarted ? warm : warm * COLD_POOL_FACTOR
  return input.files >= MIN_POOL_FILES && input.patchLength >= threshold ? 'pool' : 'inline'
}

/** Batches per worker thread at least: a few each, so a thread that finishes early takes another. */
export const BATCHES_PER_THREAD = 4

// DECISIONS.md D-069: a 10,000-file check peaked at 340 MiB with 1,250-file batches, 255 MiB
// with 312, and took less CPU time.
/**
 * Ops per batch at most. A batch's lines, paths and file bytes are live together in its worker
 * until it answers, so smaller batches keep a worker's heap small; 256 files of 300 lines is
 * about 2 MB of patch and files.
 */
export const MAX_BATCH_OPS = 256

/** How many worker tasks a request of `ops` ops is cut into. */
export function batchCount(ops: number, threads: number): number {
  const wanted = Math.max(threads * BATCHES_PER_THREAD, Math.ceil(ops / MAX_BATCH_OPS))
  return Math.max(1, Math.min(ops, wanted))
}

/**
 * Ranges for verifying in this thread, one after another: cut only to bound what one batch
 * holds (MAX_BATCH_OPS), as nothing runs beside them. A small request is one batch.
 */
export function threadRanges(ops: number): Array<readonly [number, number]> {
  return batchRanges(ops, 0)
}

/** Contiguous [start, end) ranges of the plan's ops, one per worker task. */
export function batchRanges(ops: number, threads: number): Array<readonly [number, number]> {
  const size = Math.ceil(ops / batchCount(ops, threads))
  const out: Array<readonly [number, number]> = []
  for (let start = 0; start < ops; start += size) out.push([start, Math.min(ops, start + size)])
  return out
}
