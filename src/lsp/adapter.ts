// Facts about one language server, as plain data: which files it serves, how its project root is
// found, how to start it, and which signals tell that its diagnostics are current. Adapters live in
// lsp-adapters/ and import only this module and find-executable.ts; the pool
// (src/lsp/sidecar-pool.ts) and session (src/lsp/session.ts) turn the facts into processes.

/**
 * A fact about the project that must hold before a command is tried, as data so that
 * find-executable.ts can check it without spawning anything.
 * 'project-package': the project's own `node_modules/<packageName>/package.json` (nearest
 * ancestor of the project root, as Node resolves it) exists and its major version is below
 * `majorBelow`. Used to pick typescript-language-server for projects that bring TypeScript 5.
 */
export interface CommandCondition {
  readonly kind: 'project-package'
  readonly packageName: string
  readonly majorBelow: number
}

/** How to find a server's executable, tried in order. */
export type CommandSource =
  /** A bin shipped in an npm dependency of patchloom itself (resolved from this package). */
  | {
      readonly kind: 'npm'
      readonly packageName: string
      readonly bin: string
      readonly args: readonly string[]
      /** Only try this command when the condition holds. */
      readonly when?: CommandCondition
    }
  /** A command on PATH (or the project's node_modules/.bin first, when `projectBin` is true). */
  | {
      readonly kind: 'path'
      readonly command: string
      readonly args: readonly string[]
      readonly projectBin?: boolean
      /** Only try this command when the condition holds. */
      readonly when?: CommandCondition
    }

export interface SettleFacts {
  /** Use textDocument/diagnostic when the server declares diagnosticProvider. */
  readonly pull: boolean
  /** publishDiagnostics carries the document version. */
  readonly versionedPush: boolean
  /** The server reports $/progress work that must finish first. */
  readonly progress: boolean
  /** rust-analyzer: wait for experimental/serverStatus quiescent after the workspace has loaded. */
  readonly quiescent: boolean
  /** Diagnostics that depend on didSave (rust-analyzer's cargo check). */
  readonly diagnosticsOnSave: boolean
}

export interface LspAdapter {
  /** Stable id: 'typescript', 'pyright', 'rust-analyzer', 'gopls', 'clangd'. */
  readonly id: string
  /** Human name for messages. */
  readonly name: string
  /** Lower-case extensions with the dot, mapped to LSP language ids. */
  readonly languageIds: Readonly<Record<string, string>>
  /** Files whose nearest directory marks the project root, most specific first. */
  readonly rootMarkers: readonly string[]
  /** Start commands, tried in order; the first that resolves is used. */
  readonly commands: readonly CommandSource[]
  readonly initializationOptions?: unknown
  /** Answers to workspace/configuration requests, by section ('' for the whole). */
  readonly settings?: Readonly<Record<string, unknown>>
  readonly settle: SettleFacts
}

/** The language id for `path` under `adapter`, or undefined when it does not serve the file. */
export function languageIdFor(adapter: LspAdapter, path: string): string | undefined {
  const dot = path.lastIndexOf('.')
  if (dot === -1 || dot < path.lastIndexOf('/')) return undefined
  return adapter.languageIds[path.slice(dot).toLowerCase()]
}
