// When a push server's diagnostics reflect the documents as they are now. Pure decision logic:
// session.ts feeds it what happened (syncs, publishes, $/progress, serverStatus, saves) with a
// timestamp and asks whether a set of paths has settled; timers, the connection and the
// diagnostics themselves stay in session.ts. Pull servers never get here: their answer to
// textDocument/diagnostic is current by construction.
// Rules, in order: every path has a fresh publish; no progress work in flight; (rust-analyzer) a
// trusted quiescent status; (diagnostics on save) the check a save started has finished; then a
// quiet window, learned from this server's follow-up publishes, has passed with nothing new.

import type { SettleFacts } from './adapter.js'

/** The quiet window's bounds and its value before any follow-up publish has been seen. */
export const QUIET_WINDOW_MIN_MS = 10
export const QUIET_WINDOW_MAX_MS = 1000
export const QUIET_WINDOW_INITIAL_MS = 50
/** How many publish gaps the quiet window is learned from (the most recent ones). */
export const GAP_HISTORY_SIZE = 20
/**
 * A gap longer than this is a new burst of work (a re-check triggered by something else), not a
 * follow-up to the same change, so it does not feed the quiet window.
 */
export const GAP_IGNORE_ABOVE_MS = 4 * QUIET_WINDOW_MAX_MS

/** Something the session saw, in the order it saw it. Paths are absolute. */
export type SettleEvent =
  /** didOpen or didChange sent: the document now has this version. */
  | { readonly kind: 'sync'; readonly path: string; readonly version: number }
  /** The file was deleted (didClose sent): nothing is awaited for it. */
  | { readonly kind: 'delete'; readonly path: string }
  /** didSave sent. */
  | { readonly kind: 'save'; readonly path: string }
  /** textDocument/publishDiagnostics arrived; version absent when the server omits it. */
  | { readonly kind: 'publish'; readonly path: string; readonly version?: number }
  | { readonly kind: 'progress-begin'; readonly token: string }
  | { readonly kind: 'progress-end'; readonly token: string }
  /** rust-analyzer's experimental/serverStatus. */
  | { readonly kind: 'server-status'; readonly quiescent: boolean; readonly health?: string }

export type SettleCheck =
  | { readonly settled: true; readonly signal: 'versioned-push' | 'first-push' | 'quiescent' }
  | {
      readonly settled: false
      /** Paths still waiting (all of them when a server-wide condition holds the answer back). */
      readonly pending: readonly string[]
      /** When only the quiet window is left: the time it ends, to check again then. */
      readonly wakeAtMs?: number
    }

/** The facts settling depends on (SettleFacts without `pull`, which session.ts decides). */
export type SettleRules = Pick<SettleFacts, 'progress' | 'quiescent' | 'diagnosticsOnSave'>

interface DocState {
  version: number
  syncSeq: number
  deleted: boolean
}

interface PublishState {
  readonly version: number | undefined
  readonly seq: number
  readonly atMs: number
  /** The change this publish answers: its version, or the sync it followed when versionless. */
  readonly changeKey: string
}

/** Nearest-rank percentile of `values` (p in (0, 1]); undefined for no values. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)))
  return sorted[rank - 1]
}

/** The quiet window for these observed gaps: p90 x 1.5, clamped to [10 ms, 1000 ms]. */
export function quietWindowFor(gapsMs: readonly number[]): number {
  const p90 = percentile(gapsMs, 0.9)
  if (p90 === undefined) return QUIET_WINDOW_INITIAL_MS
  return Math.min(QUIET_WINDOW_MAX_MS, Math.max(QUIET_WINDOW_MIN_MS, Math.round(p90 * 1.5)))
}

/**
 * The settle state of one server session. Feed every event with `record`, ask with `check`.
 *
 * rust-analyzer's `quiescent` is true before its workspace has even started loading (nothing is
 * queued yet). So the workspace counts as loaded only once a `quiescent: true` status arrives
 * after evidence of loading work (a `$/progress` begin or end, or a `quiescent: false` status);
 * from then on the latest status decides, with no progress in flight. A later `quiescent: false`
 * (a reload) withholds trust until the next `true`. Before the first load the answer is
 * "pending", and the hard deadline in session.ts reports that honestly.
 *
 * For servers whose diagnostics come from a check run on save (cargo check), the last didSave
 * holds settling back until a progress cycle that began after it has drained.
 */
export class SettleTracker {
  readonly #rules: SettleRules
  #seq = 0
  readonly #docs = new Map<string, DocState>()
  readonly #publishes = new Map<string, PublishState>()
  readonly #inFlight = new Set<string>()
  readonly #gapsMs: number[] = []
  /** Latest event that explains a new publish: a sync, delete, save, or announced work. */
  #lastTriggerSeq = 0
  /** The latest publish for any document: importers re-published after a change keep the window open. */
  #lastPublish: { readonly seq: number; readonly atMs: number } | undefined
  /** Loading work has been seen: a progress begin (or end) or a quiescent:false status. */
  #busySeen = false
  /** A quiescent:true status arrived after loading work: from now on quiescence means loaded. */
  #loaded = false
  /** The latest serverStatus said quiescent. */
  #quiescent = false
  #saveSeq: number | undefined
  #saveCheckBegan = false
  #saveCheckDone = false
  /** When a server-wide gate last opened (progress drained, trusted quiescence): starts the window. */
  #gateOpenedAtMs = Number.NEGATIVE_INFINITY

  constructor(rules: SettleRules) {
    this.#rules = rules
  }

  /** The quiet window this server has earned so far. */
  get quietWindowMs(): number {
    return quietWindowFor(this.#gapsMs)
  }

  /** Gaps seen between consecutive publishes for the same change, oldest first. */
  get gapsMs(): readonly number[] {
    return this.#gapsMs
  }

  get progressInFlight(): number {
    return this.#inFlight.size
  }

  record(event: SettleEvent, atMs: number): void {
    const seq = ++this.#seq
    switch (event.kind) {
      case 'sync': {
        this.#docs.set(event.path, { version: event.version, syncSeq: seq, deleted: false })
        this.#lastTriggerSeq = seq
        return
      }
      case 'delete': {
        const doc = this.#docs.get(event.path)
        this.#docs.set(event.path, { version: doc?.version ?? 0, syncSeq: seq, deleted: true })
        this.#publishes.delete(event.path)
        this.#lastTriggerSeq = seq
        return
      }
      case 'save': {
        this.#lastTriggerSeq = seq
        this.#saveSeq = seq
        this.#saveCheckBegan = false
        this.#saveCheckDone = false
        return
      }
      case 'publish': {
        this.#recordPublish(event.path, event.version, seq, atMs)
        return
      }
      case 'progress-begin': {
        this.#inFlight.add(event.token)
        this.#busySeen = true
        this.#lastTriggerSeq = seq
        if (this.#saveSeq !== undefined && !this.#saveCheckDone) this.#saveCheckBegan = true
        return
      }
      case 'progress-end': {
        // An end without a begin (we joined late) still counts as loading work having happened.
        this.#inFlight.delete(event.token)
        this.#busySeen = true
        if (this.#inFlight.size === 0) {
          this.#gateOpenedAtMs = atMs
          if (this.#saveCheckBegan) this.#saveCheckDone = true
        }
        return
      }
      case 'server-status': {
        this.#quiescent = event.quiescent
        if (!event.quiescent) {
          this.#busySeen = true
          this.#lastTriggerSeq = seq
          return
        }
        if (this.#busySeen) this.#loaded = true
        if (this.#quiescentTrusted()) this.#gateOpenedAtMs = atMs
        return
      }
    }
  }

  /** Whether the diagnostics of `paths` reflect their current versions, as of `nowMs`. */
  check(paths: readonly string[], nowMs: number): SettleCheck {
    const waiting = paths.filter((path) => !this.#isFresh(path))
    if (waiting.length > 0) return { settled: false, pending: waiting }
    const live = paths.filter((path) => this.#docs.get(path)?.deleted !== true)
    if (this.#rules.progress && this.#inFlight.size > 0) return { settled: false, pending: live }
    if (this.#rules.quiescent && !this.#quiescentTrusted()) return { settled: false, pending: live }
    if (this.#rules.diagnosticsOnSave && this.#saveSeq !== undefined && !this.#saveCheckDone) {
      return { settled: false, pending: live }
    }
    let lastActivityMs = this.#gateOpenedAtMs
    let allVersioned = true
    for (const path of live) {
      const publish = this.#publishes.get(path)
      if (publish === undefined) continue
      lastActivityMs = Math.max(lastActivityMs, publish.atMs)
      if (publish.version === undefined) allVersioned = false
    }
    // The window runs from the server's last publish for ANY document since the change: a server
    // re-publishing the files that import the edited one is still answering this change.
    const last = this.#lastPublish
    if (last !== undefined && last.seq > this.#lastTriggerSeq)
      lastActivityMs = Math.max(lastActivityMs, last.atMs)
    const wakeAtMs = lastActivityMs + this.quietWindowMs
    if (nowMs < wakeAtMs) return { settled: false, pending: live, wakeAtMs }
    if (this.#rules.quiescent) return { settled: true, signal: 'quiescent' }
    return { settled: true, signal: allVersioned ? 'versioned-push' : 'first-push' }
  }

  #recordPublish(path: string, version: number | undefined, seq: number, atMs: number): void {
    const doc = this.#docs.get(path)
    const changeKey = version === undefined ? `sync:${doc?.syncSeq ?? 0}` : `version:${version}`
    const previous = this.#publishes.get(path)
    // A second publish for the same change is a follow-up, unless something that explains it came
    // in between: a sync or save of any document (servers re-publish open files when another file
    // changes; a save starts cargo check) or announced work (progress, quiescent:false, as when
    // rust-analyzer re-publishes after loading). Those are gated on directly; the window is for
    // the unannounced follow-ups, and learning from the others would slow every later edit.
    if (
      previous !== undefined &&
      previous.changeKey === changeKey &&
      previous.seq > this.#lastTriggerSeq
    ) {
      const gapMs = atMs - previous.atMs
      if (gapMs >= 0 && gapMs <= GAP_IGNORE_ABOVE_MS) {
        this.#gapsMs.push(gapMs)
        if (this.#gapsMs.length > GAP_HISTORY_SIZE) this.#gapsMs.shift()
      }
    }
    this.#publishes.set(path, { version, seq, atMs, changeKey })
    this.#lastPublish = { seq, atMs }
  }

  #isFresh(path: string): boolean {
    const doc = this.#docs.get(path)
    if (doc?.deleted === true) return true
    const publish = this.#publishes.get(path)
    if (publish === undefined) return false
    // Never synced by us: whatever the server last said about it is all there is to wait for.
    if (doc === undefined) return true
    if (publish.version !== undefined) return publish.version >= doc.version
    return publish.seq > doc.syncSeq
  }

  #quiescentTrusted(): boolean {
    return this.#loaded && this.#quiescent && this.#inFlight.size === 0
  }
}
