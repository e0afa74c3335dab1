// SettleTracker fed with events and a hand-driven clock (plain numbers): versioned and
// versionless pushes, progress gating, rust-analyzer's untrustworthy early quiescence, the
// save-started check, and the learned quiet window with its bounds.
import { describe, expect, it } from 'vitest'
import {
  GAP_HISTORY_SIZE,
  percentile,
  QUIET_WINDOW_INITIAL_MS,
  QUIET_WINDOW_MAX_MS,
  QUIET_WINDOW_MIN_MS,
  quietWindowFor,
  SettleTracker,
  type SettleRules,
} from '../../../src/lsp/settle.js'

const PUSH: SettleRules = { progress: true, quiescent: false, diagnosticsOnSave: false }
const RUST: SettleRules = { progress: true, quiescent: true, diagnosticsOnSave: true }
const A = '/p/a.py'
const B = '/p/b.py'

describe('percentile', () => {
  it('uses the nearest rank', () => {
    expect(percentile([], 0.9)).toBeUndefined()
    expect(percentile([5], 0.9)).toBe(5)
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9)
    expect(percentile([10, 1, 3], 0.5)).toBe(3)
  })
})

describe('quietWindowFor', () => {
  it('starts at the initial window without history', () => {
    expect(quietWindowFor([])).toBe(QUIET_WINDOW_INITIAL_MS)
  })

  it('is the 90th percentile gap times 1.5', () => {
    expect(quietWindowFor([20, 20, 20, 20, 20, 20, 20, 20, 20, 100])).toBe(30)
    expect(quietWindowFor([100])).toBe(150)
  })

  it('clamps to the bounds', () => {
    expect(quietWindowFor([0, 1, 2])).toBe(QUIET_WINDOW_MIN_MS)
    expect(quietWindowFor([5000])).toBe(QUIET_WINDOW_MAX_MS)
  })
})

describe('SettleTracker', () => {
  it('keeps the quiet window open while the server re-publishes other documents (importers)', () => {
    const tracker = new SettleTracker(PUSH)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 100)
    // B imports A: the server re-publishes it 20 ms later, still answering this change.
    tracker.record({ kind: 'publish', path: B }, 120)
    expect(tracker.check([A], 100 + QUIET_WINDOW_INITIAL_MS)).toEqual({
      settled: false,
      pending: [A],
      wakeAtMs: 120 + QUIET_WINDOW_INITIAL_MS,
    })
    expect(tracker.check([A], 120 + QUIET_WINDOW_INITIAL_MS).settled).toBe(true)
  })

  it('settles a versioned push after the quiet window', () => {
    const tracker = new SettleTracker(PUSH)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    expect(tracker.check([A], 1)).toEqual({ settled: false, pending: [A] })
    tracker.record({ kind: 'publish', path: A, version: 1 }, 100)
    expect(tracker.check([A], 120)).toEqual({
      settled: false,
      pending: [A],
      wakeAtMs: 100 + QUIET_WINDOW_INITIAL_MS,
    })
    expect(tracker.check([A], 100 + QUIET_WINDOW_INITIAL_MS)).toEqual({
      settled: true,
      signal: 'versioned-push',
    })
  })

  it('ignores a publish for an older version', () => {
    const tracker = new SettleTracker(PUSH)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    tracker.record({ kind: 'sync', path: A, version: 2 }, 10)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 20)
    expect(tracker.check([A], 1000)).toEqual({ settled: false, pending: [A] })
    tracker.record({ kind: 'publish', path: A, version: 2 }, 30)
    expect(tracker.check([A], 1000)).toEqual({ settled: true, signal: 'versioned-push' })
  })

  it('settles a versionless server on the first publish after the last sync', () => {
    const tracker = new SettleTracker(PUSH)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    tracker.record({ kind: 'publish', path: A }, 5)
    tracker.record({ kind: 'sync', path: A, version: 2 }, 10)
    // The publish before the second sync answers the first version only.
    expect(tracker.check([A], 1000)).toEqual({ settled: false, pending: [A] })
    tracker.record({ kind: 'publish', path: A }, 20)
    expect(tracker.check([A], 20)).toMatchObject({ settled: false, wakeAtMs: 70 })
    expect(tracker.check([A], 70)).toEqual({ settled: true, signal: 'first-push' })
  })

  it('waits for every path and names the ones still pending', () => {
    const tracker = new SettleTracker(PUSH)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    tracker.record({ kind: 'sync', path: B, version: 1 }, 0)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 5)
    expect(tracker.check([A, B], 1000)).toEqual({ settled: false, pending: [B] })
  })

  it('needs nothing for a deleted file', () => {
    const tracker = new SettleTracker(PUSH)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    tracker.record({ kind: 'delete', path: A }, 5)
    expect(tracker.check([A], 5 + QUIET_WINDOW_INITIAL_MS)).toEqual({
      settled: true,
      signal: 'versioned-push',
    })
  })

  it('blocks settling while progress work is in flight', () => {
    const tracker = new SettleTracker(PUSH)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    tracker.record({ kind: 'progress-begin', token: 'analyze' }, 1)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 2)
    expect(tracker.check([A], 500)).toEqual({ settled: false, pending: [A] })
    expect(tracker.progressInFlight).toBe(1)
    tracker.record({ kind: 'progress-end', token: 'analyze' }, 600)
    // The quiet window runs from the end of the work, not from the publish.
    expect(tracker.check([A], 610)).toMatchObject({ settled: false, wakeAtMs: 650 })
    expect(tracker.check([A], 650)).toEqual({ settled: true, signal: 'versioned-push' })
  })

  it('ignores progress for servers whose adapter says it does not gate diagnostics', () => {
    const tracker = new SettleTracker({ ...PUSH, progress: false })
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    tracker.record({ kind: 'progress-begin', token: 'background' }, 1)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 2)
    expect(tracker.check([A], 500)).toEqual({ settled: true, signal: 'versioned-push' })
  })

  it('does not trust quiescent before the workspace has loaded', () => {
    const tracker = new SettleTracker(RUST)
    // rust-analyzer's real order: quiescent before anything is queued, then the load.
    tracker.record({ kind: 'server-status', quiescent: true, health: 'ok' }, 0)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 1)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 2)
    expect(tracker.check([A], 1000)).toEqual({ settled: false, pending: [A] })
    tracker.record({ kind: 'server-status', quiescent: false, health: 'ok' }, 1001)
    tracker.record({ kind: 'progress-begin', token: 'rustAnalyzer/Loading' }, 1002)
    tracker.record({ kind: 'progress-end', token: 'rustAnalyzer/Loading' }, 1100)
    expect(tracker.check([A], 2000)).toEqual({ settled: false, pending: [A] })
    tracker.record({ kind: 'publish', path: A, version: 1 }, 1101)
    tracker.record({ kind: 'server-status', quiescent: true, health: 'ok' }, 1200)
    expect(tracker.check([A], 1210)).toMatchObject({ settled: false, wakeAtMs: 1250 })
    expect(tracker.check([A], 1250)).toEqual({ settled: true, signal: 'quiescent' })
  })

  it('trusts quiescent after a progress cycle even without a quiescent:false status', () => {
    const tracker = new SettleTracker(RUST)
    tracker.record({ kind: 'server-status', quiescent: true }, 0)
    tracker.record({ kind: 'progress-begin', token: 'rustAnalyzer/Fetching' }, 1)
    tracker.record({ kind: 'progress-end', token: 'rustAnalyzer/Fetching' }, 2)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 3)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 4)
    // The only quiescent status predates the work: not yet.
    expect(tracker.check([A], 1000)).toEqual({ settled: false, pending: [A] })
    tracker.record({ kind: 'server-status', quiescent: true }, 1000)
    expect(tracker.check([A], 1050)).toEqual({ settled: true, signal: 'quiescent' })
  })

  it('keeps trusting quiescence through later progress and withdraws it on a reload', () => {
    const tracker = new SettleTracker(RUST)
    tracker.record({ kind: 'server-status', quiescent: false }, 0)
    tracker.record({ kind: 'server-status', quiescent: true }, 1)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 2)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 3)
    tracker.record({ kind: 'progress-begin', token: 'rustAnalyzer/Indexing' }, 4)
    expect(tracker.check([A], 100)).toEqual({ settled: false, pending: [A] })
    tracker.record({ kind: 'progress-end', token: 'rustAnalyzer/Indexing' }, 5)
    expect(tracker.check([A], 100)).toEqual({ settled: true, signal: 'quiescent' })
    tracker.record({ kind: 'server-status', quiescent: false }, 200)
    expect(tracker.check([A], 1000)).toEqual({ settled: false, pending: [A] })
    tracker.record({ kind: 'server-status', quiescent: true }, 1000)
    expect(tracker.check([A], 1100)).toEqual({ settled: true, signal: 'quiescent' })
  })

  it('waits after a save until the check it started has finished', () => {
    const tracker = new SettleTracker(RUST)
    tracker.record({ kind: 'server-status', quiescent: false }, 0)
    tracker.record({ kind: 'server-status', quiescent: true }, 1)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 2)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 3)
    tracker.record({ kind: 'save', path: A }, 4)
    // The native publish is fresh, but cargo check has not even started.
    expect(tracker.check([A], 500)).toEqual({ settled: false, pending: [A] })
    tracker.record({ kind: 'progress-begin', token: 'rustAnalyzer/cargo check' }, 600)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 700)
    expect(tracker.check([A], 800)).toEqual({ settled: false, pending: [A] })
    tracker.record({ kind: 'progress-end', token: 'rustAnalyzer/cargo check' }, 800)
    expect(tracker.check([A], 850)).toEqual({ settled: true, signal: 'quiescent' })
  })

  it('does not count a progress cycle that began before the save', () => {
    const tracker = new SettleTracker({ ...PUSH, diagnosticsOnSave: true })
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    tracker.record({ kind: 'progress-begin', token: 'old' }, 1)
    tracker.record({ kind: 'save', path: A }, 2)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 3)
    tracker.record({ kind: 'progress-end', token: 'old' }, 4)
    expect(tracker.check([A], 1000)).toEqual({ settled: false, pending: [A] })
  })

  it('learns the quiet window from follow-up publishes for the same change', () => {
    const tracker = new SettleTracker(PUSH)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 10)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 210)
    expect(tracker.gapsMs).toEqual([200])
    expect(tracker.quietWindowMs).toBe(300)
    // The follow-up restarts the window.
    expect(tracker.check([A], 400)).toMatchObject({ settled: false, wakeAtMs: 510 })
    expect(tracker.check([A], 510)).toEqual({ settled: true, signal: 'versioned-push' })
  })

  it('does not learn from re-publishes that another document change caused', () => {
    const tracker = new SettleTracker(PUSH)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 10)
    tracker.record({ kind: 'sync', path: B, version: 1 }, 500)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 600)
    expect(tracker.gapsMs).toEqual([])
    expect(tracker.quietWindowMs).toBe(QUIET_WINDOW_INITIAL_MS)
  })

  it('does not learn from re-publishes that announced work explains', () => {
    const tracker = new SettleTracker(RUST)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 5)
    // rust-analyzer loads, then publishes version 1 again with real diagnostics.
    tracker.record({ kind: 'server-status', quiescent: false }, 10)
    tracker.record({ kind: 'progress-begin', token: 'rustAnalyzer/Loading' }, 11)
    tracker.record({ kind: 'progress-end', token: 'rustAnalyzer/Loading' }, 800)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 801)
    // A save starts cargo check, whose publish is not a follow-up either.
    tracker.record({ kind: 'save', path: A }, 900)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 1500)
    expect(tracker.gapsMs).toEqual([])
    expect(tracker.quietWindowMs).toBe(QUIET_WINDOW_INITIAL_MS)
  })

  it('ignores gaps too long to be follow-ups and keeps a bounded history', () => {
    const tracker = new SettleTracker(PUSH)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 0)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 60_000)
    expect(tracker.gapsMs).toEqual([])
    let atMs = 60_000
    for (let index = 0; index < GAP_HISTORY_SIZE + 5; index++) {
      atMs += 2
      tracker.record({ kind: 'publish', path: A, version: 1 }, atMs)
    }
    expect(tracker.gapsMs).toHaveLength(GAP_HISTORY_SIZE)
    expect(tracker.quietWindowMs).toBe(QUIET_WINDOW_MIN_MS)
  })

  it('clamps a learned window to the maximum', () => {
    const tracker = new SettleTracker(PUSH)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 0)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 3000)
    expect(tracker.quietWindowMs).toBe(QUIET_WINDOW_MAX_MS)
  })

  it('reports every live path as pending when a server-wide condition holds it back', () => {
    const tracker = new SettleTracker(RUST)
    tracker.record({ kind: 'sync', path: A, version: 1 }, 0)
    tracker.record({ kind: 'sync', path: B, version: 1 }, 0)
    tracker.record({ kind: 'publish', path: A, version: 1 }, 1)
    tracker.record({ kind: 'publish', path: B, version: 1 }, 1)
    // Never loaded: at the deadline the caller reports both as pending, never as clean.
    const check = tracker.check([A, B], 30_000)
    expect(check).toEqual({ settled: false, pending: [A, B] })
  })
})
