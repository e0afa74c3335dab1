// Rust through rust-analyzer from PATH. It pushes versioned publishDiagnostics and, when the
// client declares experimental.serverStatusNotification, reports experimental/serverStatus with
// `quiescent`. Two traps the session must handle: `quiescent` is already true before the
// workspace has loaded (wait for the load's $/progress to end first), and `cargo check`
// diagnostics (most type errors) arrive only after didSave, as a second round of publishes.
// A rustup proxy on PATH without the component resolves here but fails to start.
import type { LspAdapter } from '../src/lsp/adapter.js'

export const rustAnalyzerAdapter: LspAdapter = {
  id: 'rust-analyzer',
  name: 'rust-analyzer',
  languageIds: { '.rs': 'rust' },
  rootMarkers: ['Cargo.toml'],
  commands: [{ kind: 'path', command: 'rust-analyzer', args: [] }],
  settle: {
    pull: false,
    versionedPush: true,
    progress: true,
    quiescent: true,
    diagnosticsOnSave: true,
  },
}
