// Go through gopls from PATH (`gopls serve`; bare `gopls` defaults to serve too). gopls pushes
// publishDiagnostics with the document version, and reports its workspace load ("Loading
// packages") as $/progress. Its textDocument/diagnostic support (golang/go#53275) sits behind an
// internal `pullDiagnostics` setting and covers only parse and type errors, so the server does
// not declare diagnosticProvider by default: pull: false. Diagnostics follow edits, not saves
// (the default diagnosticsTrigger is "Edit"); go.work is listed first because it spans modules.
import type { LspAdapter } from '../src/lsp/adapter.js'

export const goplsAdapter: LspAdapter = {
  id: 'gopls',
  name: 'gopls',
  languageIds: { '.go': 'go' },
  rootMarkers: ['go.work', 'go.mod'],
  commands: [{ kind: 'path', command: 'gopls', args: ['serve'] }],
  settle: {
    pull: false,
    versionedPush: true,
    progress: true,
    quiescent: false,
    diagnosticsOnSave: false,
  },
}
