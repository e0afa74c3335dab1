// The engine's view of the sidecar pool of language servers, which runs in its own worker thread
// (src/lsp/host.ts) behind a comlink proxy (src/lsp/client.ts). Every argument and result is
// plain data. Paths are absolute on the way in; reports carry workspace-relative paths.
import type {
  DiagnosticsOptions,
  DiagnosticsReport,
  FileChange,
  FileDiagnostic,
  ServerReport,
} from './reports.js'

/**
 * The language-server sidecars behind diagnostics (the public EngineDiagnosticsOptions.servers):
 * which servers, how many stay warm, when they stop.
 */
export interface LanguageServerOptions {
  /** Adapter ids to use. @default every adapter in lsp-adapters/ */
  readonly adapters?: readonly string[]
  /** Cap on live servers; least-recently-used idle servers stop first. @default from CPUs and memory */
  readonly maxServers?: number
  /** A server idle this long is stopped. @default 10 minutes */
  readonly idleTimeoutMs?: number
  /** Documents untouched this long are closed (didClose). @default 2 minutes */
  readonly documentIdleMs?: number
  /** A server whose RSS exceeds this is restarted. @default 2 GiB */
  readonly memoryLimitBytes?: number
  /** Override start commands per adapter id (a server installed elsewhere; tests use a fake one). */
  readonly commandOverrides?: Readonly<
    Record<string, { readonly command: string; readonly args: readonly string[] }>
  >
}

/** What the SidecarPool (src/lsp/sidecar-pool.ts) starts from: the public options and the workspace. */
export interface SidecarPoolOptions extends LanguageServerOptions {
  /** The engine's workspace root (reports are relative to it). */
  readonly workspaceRoot: string
}

/** Diagnostics of files as they were before a change, to compare the after-state with. */
export interface Baseline {
  /** Workspace-relative path -> diagnostics before the change (all severities). */
  readonly byPath: Readonly<Record<string, readonly FileDiagnostic[]>>
  readonly servers: readonly ServerReport[]
}

export interface PoolServerStatus {
  readonly adapter: string
  readonly root: string
  readonly state: 'starting' | 'ready' | 'broken'
  readonly pid?: number
  readonly rssBytes?: number
  readonly openDocuments: number
  readonly lastUsedMsAgo: number
  /** For broken servers: why, and when the next start will be tried. */
  readonly message?: string
  readonly retryInMs?: number
}

export interface PoolStatus {
  readonly servers: readonly PoolServerStatus[]
  /**
   * Servers the pool stopped since it started because they crashed (or failed mid-request) or
   * went over the memory limit; the next request for their files starts a fresh one.
   */
  readonly restarts?: { readonly crash: number; readonly memory: number }
  /** Set when the pool itself is gone (its thread died): why. Diagnostics are unavailable. */
  readonly unavailable?: string
}

export interface LspClient {
  /** Opens (or re-syncs) files with their before-change text and waits for their diagnostics. */
  baseline(
    files: readonly { readonly path: string; readonly text: string | null }[],
    options?: DiagnosticsOptions,
  ): Promise<Baseline>
  /** After a commit: syncs the new text, saves, waits adaptively, and compares with the baseline. */
  afterChange(
    changes: readonly FileChange[],
    baseline: Baseline,
    options?: DiagnosticsOptions,
  ): Promise<DiagnosticsReport>
  /** Standalone check of files as they are on disk: everything is `remaining`. */
  diagnostics(paths: readonly string[], options?: DiagnosticsOptions): Promise<DiagnosticsReport>
  status(): Promise<PoolStatus>
  /** Stops every server (shutdown, exit, kill after a grace period) and the pool's thread. */
  close(): Promise<void>
}
