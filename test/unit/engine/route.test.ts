// The one inline-or-pool decision: what each request shape gets, the configuration error
// for a pool route on an engine without a pool, and how a plan is cut into worker batches.
import { describe, expect, it } from 'vitest'
import { DEFAULT_INLINE_MAX_BYTES } from '../../../src/defaults.js'
import {
  batchCount,
  batchRanges,
  BATCHES_PER_THREAD,
  MAX_BATCH_OPS,
  chooseRoute,
  COLD_POOL_FACTOR,
  COUNT_ONLY_DIVISOR,
  MIN_POOL_FILES,
  threadRanges,
  type RouteInput,
} from '../../../src/engine/route.js'
import { EditError } from '../../../src/errors.js'

const pool = { inlineMaxBytes: DEFAULT_INLINE_MAX_BYTES }
const big = DEFAULT_INLINE_MAX_BYTES

function route(input: Partial<RouteInput>): string {
  return chooseRoute({
    requested: 'auto',
    pool,
    files: 1,
    patchLength: 0,
    diffs: true,
    poolStarted: true,
    blockingReads: false,
    ...input,
  })
}

describe('chooseRoute', () => {
  it('keeps small requests inline and sends large many-file ones to the pool', () => {
    expect(route({ files: 1, patchLength: 10 })).toBe('inline')
    expect(route({ files: MIN_POOL_FILES, patchLength: big - 1 })).toBe('inline')
    expect(route({ files: MIN_POOL_FILES - 1, patchLength: 10 * big })).toBe('inline')
    expect(route({ files: MIN_POOL_FILES, patchLength: big })).toBe('pool')
    expect(route({ files: 10_000, patchLength: 40 * big })).toBe('pool')
  })

  it('goes to the pool sooner when no diffs are rendered', () => {
    const quarter = big / COUNT_ONLY_DIVISOR
    expect(route({ files: MIN_POOL_FILES, patchLength: quarter, diffs: true })).toBe('inline')
    expect(route({ files: MIN_POOL_FILES, patchLength: quarter, diffs: false })).toBe('pool')
    expect(route({ files: MIN_POOL_FILES, patchLength: quarter - 1, diffs: false })).toBe('inline')
  })

  it('asks more of a request before starting the pool', () => {
    expect(route({ files: MIN_POOL_FILES, patchLength: big, poolStarted: false })).toBe('inline')
    const cold = big * COLD_POOL_FACTOR
    expect(route({ files: MIN_POOL_FILES, patchLength: cold, poolStarted: false })).toBe('pool')
    expect(route({ requested: 'pool', patchLength: 1, poolStarted: false })).toBe('pool')
  })

  it('keeps a blocking engine off a cold pool, whatever the size, but not off a warm one', () => {
    const huge = { files: 30_000, patchLength: 1000 * big }
    expect(route({ ...huge, poolStarted: false, blockingReads: true })).toBe('inline')
    expect(route({ ...huge, poolStarted: true, blockingReads: true })).toBe('pool')
    expect(route({ ...huge, poolStarted: false, blockingReads: false })).toBe('pool')
    expect(route({ requested: 'pool', poolStarted: false, blockingReads: true })).toBe('pool')
  })

  it('follows an explicit route, and a custom threshold', () => {
    expect(route({ requested: 'pool', files: 1, patchLength: 1 })).toBe('pool')
    expect(route({ requested: 'inline', files: 10_000, patchLength: 40 * big })).toBe('inline')
    const low = { inlineMaxBytes: 100 }
    expect(route({ pool: low, files: MIN_POOL_FILES, patchLength: 100 })).toBe('pool')
  })

  it('keeps an engine without a pool inline, and refuses a forced pool route on it', () => {
    expect(route({ pool: false, files: 10_000, patchLength: 40 * big })).toBe('inline')
    expect(route({ pool: false, requested: 'inline' })).toBe('inline')
    let thrown: unknown
    try {
      route({ pool: false, requested: 'pool' })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(EditError)
    expect((thrown as EditError).code).toBe('CONFIG_INVALID')
  })
})

describe('batchRanges', () => {
  it.each([
    [1, 2],
    [7, 2],
    [8, 2],
    [9, 2],
    [100, 1],
    [100, 2],
    [10_000, 4],
  ])('cuts %i ops for %i threads into contiguous, non-empty, covering ranges', (ops, threads) => {
    const ranges = batchRanges(ops, threads)
    expect(ranges.length).toBeLessThanOrEqual(batchCount(ops, threads))
    expect(ranges.length).toBeLessThanOrEqual(ops)
    let next = 0
    for (const [start, end] of ranges) {
      expect(start).toBe(next)
      expect(end).toBeGreaterThan(start)
      next = end
    }
    expect(next).toBe(ops)
  })
})

describe('threadRanges', () => {
  it('keeps a small request in one batch and cuts a large one only at MAX_BATCH_OPS', () => {
    expect(threadRanges(0)).toEqual([])
    expect(threadRanges(3)).toEqual([[0, 3]])
    expect(threadRanges(MAX_BATCH_OPS)).toEqual([[0, MAX_BATCH_OPS]])
    const ranges = threadRanges(2 * MAX_BATCH_OPS + 1)
    expect(ranges).toHaveLength(3)
    // Equal sizes but the last: the outcomes of a batch are found as index / size.
    expect(ranges.map(([a, b]) => b - a)).toEqual([171, 171, 171])
    expect(ranges.at(-1)?.[1]).toBe(2 * MAX_BATCH_OPS + 1)
  })
})

describe('batchCount', () => {
  it('gives each thread a few batches, and no batch more than MAX_BATCH_OPS ops', () => {
    expect(batchCount(1, 2)).toBe(1)
    expect(batchCount(7, 2)).toBe(7)
    expect(batchCount(100, 2)).toBe(2 * BATCHES_PER_THREAD)
    expect(batchCount(10_000, 2)).toBe(Math.ceil(10_000 / MAX_BATCH_OPS))
    for (const [ops, threads] of [
      [10_000, 2],
      [3_000, 1],
      [257, 1],
    ] as const) {
      const largest = Math.max(...batchRanges(ops, threads).map(([a, b]) => b - a))
      expect(largest).toBeLessThanOrEqual(MAX_BATCH_OPS)
    }
  })
})
