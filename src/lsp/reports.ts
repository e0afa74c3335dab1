// Plain-data shapes shared by the language-server side of patchloom: adapters, the sidecar pool in
// its worker thread, and the engine. Everything here survives structuredClone, because it crosses
// the comlink boundary between the engine's thread and the pool's. Positions: `line`/`column` are
// 1-based (for agents); LSP's own 0-based positions never leave src/lsp/session.ts.

export type DiagnosticSeverity = 'error' | 'warning' | 'information' | 'hint'

/** One diagnostic as agents receive it. */
export interface FileDiagnostic {
  /** Workspace-relative, '/'-separated. */
  readonly path: string
  /** 1-based. */
  readonly line: number
  /** 1-based, in UTF-16 code units as LSP counts them. */
  readonly column: number
  readonly endLine: number
  readonly endColumn: number
  readonly severity: DiagnosticSeverity
  readonly code?: string
  readonly source?: string
  readonly message: string
}

/** What ended the wait for a server's diagnostics. */
export type SettleSignal =
  | 'pull' // textDocument/diagnostic answered for the version
  | 'versioned-push' // publishDiagnostics carried the edited version, then the quiet window passed
  | 'first-push' // server omits versions: the first publish after the change, then the quiet window
  | 'quiescent' // rust-analyzer: serverStatus quiescent after the workspace loaded
  | 'deadline' // the hard deadline passed: settled is false
  | 'unavailable' // no server could be used (not installed, broken, crashed): settled is false

export type ServerState = 'ready' | 'not-installed' | 'start-failed' | 'broken' | 'crashed'

/** One server's part in a diagnostics result. */
export interface ServerReport {
  /**
   * Set when the server could not give a settled answer: LSP_NOT_INSTALLED, LSP_START_FAILED
   * (start-failed, broken), LSP_CRASHED, or LSP_TIMEOUT (the deadline passed). See ERRORS.md.
   */
  readonly code?: 'LSP_NOT_INSTALLED' | 'LSP_START_FAILED' | 'LSP_CRASHED' | 'LSP_TIMEOUT'
  /** Adapter id, e.g. 'typescript', 'pyright'. */
  readonly adapter: string
  /** Project root the server runs for, workspace-relative ('.' for the root itself). */
  readonly root: string
  readonly state: ServerState
  readonly settled: boolean
  readonly waitedMs: number
  readonly signal: SettleSignal
  /** Workspace-relative paths whose diagnostics were still pending at the deadline. */
  readonly pending?: readonly string[]
  /** Why the server is unavailable, with the command that was looked for. */
  readonly message?: string
}

export interface DiagnosticsReport {
  /** Present after the change and not before it. */
  readonly introduced: readonly FileDiagnostic[]
  /** Present before the change and gone after it. */
  readonly resolved: readonly FileDiagnostic[]
  /** Present both before and after (the project's old noise), after the per-file cap. */
  readonly remaining: readonly FileDiagnostic[]
  /** Every server settled; false means the lists may be incomplete, never "clean". */
  readonly settled: boolean
  /** Longest wait across servers. */
  readonly waitedMs: number
  readonly servers: readonly ServerReport[]
  /** Per workspace-relative path, how many diagnostics the per-file cap left out ("... and N more"). */
  readonly omitted?: Readonly<Record<string, number>>
}

export interface DiagnosticsOptions {
  /** Lowest severity reported. @default 'error' */
  readonly minSeverity?: DiagnosticSeverity
  /** Per-server hard deadline. @default 10_000 */
  readonly deadlineMs?: number
  /** Cap per file and list. @default 20 */
  readonly maxPerFile?: number
}

/** A file's content before and after a committed change (null: the file does not exist). */
export interface FileChange {
  /** Absolute path. */
  readonly path: string
  readonly before: string | null
  readonly after: string | null
}
