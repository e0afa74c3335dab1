// The contract between the sidecar pool (src/lsp/sidecar-pool.ts) and one server session
// (src/lsp/session.ts), so both can be built and tested apart. Paths are absolute here; the pool
// makes them workspace-relative for reports.
import type { LspAdapter } from './adapter.js'
import type { SettleSignal } from './reports.js'

/** A resolved start command. */
export interface ServerCommand {
  readonly command: string
  readonly args: readonly string[]
}

/** A diagnostic as the session reads it from the server (LSP 0-based positions kept). */
export interface RawDiagnostic {
  readonly range: {
    readonly start: { readonly line: number; readonly character: number }
    readonly end: { readonly line: number; readonly character: number }
  }
  /** LSP severity 1 error .. 4 hint; absent means error per the spec's advice to clients. */
  readonly severity?: 1 | 2 | 3 | 4
  readonly code?: string | number
  readonly source?: string
  readonly message: string
}

export interface SettledDiagnostics {
  /** Absolute path -> the diagnostics that reflect the document's current version. */
  readonly byPath: ReadonlyMap<string, readonly RawDiagnostic[]>
  readonly settled: boolean
  readonly waitedMs: number
  readonly signal: SettleSignal
  /** Absolute paths still pending when the deadline passed. */
  readonly pending: readonly string[]
}

export interface SessionExit {
  readonly code: number | null
  readonly signal: string | null
  /** The last lines of the server's stderr, for the broken/crashed message. */
  readonly stderrTail: string
}

export interface SessionOptions {
  readonly adapter: LspAdapter
  /** Absolute project root (rootUri / workspace folder). */
  readonly root: string
  readonly command: ServerCommand
  /** initialize must answer within this. @default 30_000 */
  readonly initializeTimeoutMs?: number
  readonly onExit?: (exit: SessionExit) => void
}

/** One running language server. */
export interface Session {
  readonly adapter: LspAdapter
  readonly root: string
  readonly pid: number | undefined
  /** Spawn, initialize, initialized. Rejects with EditError LSP_START_FAILED. */
  start(): Promise<void>
  /**
   * Brings the server's view of these documents up to date: didOpen with full text on first
   * touch, versioned didChange (incremental when the server supports it) after, didClose for
   * null (deleted). Also sends didChangeWatchedFiles for created/deleted files.
   */
  sync(
    docs: readonly {
      readonly path: string
      readonly text: string | null
      /** The file did not exist before this change: also sent as a watched-file Created event. */
      readonly created?: boolean
    }[],
  ): void
  /** didSave for these open documents (after a commit). */
  save(paths: readonly string[]): void
  /** Waits, adaptively, until the server's diagnostics reflect the current versions of `paths`. */
  diagnostics(paths: readonly string[], deadlineMs: number): Promise<SettledDiagnostics>
  /** didClose documents untouched for longer than this. */
  closeIdle(idleMs: number): void
  /** Resident set size from the OS (/proc), or undefined when unknown. */
  rssBytes(): Promise<number | undefined>
  /** shutdown + exit, then kill after graceMs. Never rejects. */
  stop(graceMs?: number): Promise<void>
}
