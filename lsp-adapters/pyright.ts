// Python through pyright-langserver from patchloom's own `pyright` dependency (PATH as a
// fallback). Pyright pushes publishDiagnostics with the document version and reports analysis
// as $/progress. Since microsoft/pyright#10055 (2025) it can also answer textDocument/diagnostic, but only after a
// dynamic registration when the client declares textDocument.diagnostic.dynamicRegistration,
// and in that mode it stops pushing; it never declares diagnosticProvider statically. The
// `disablePullDiagnostics` initialization option pins it to push whatever the session declares,
// so pull: false stays true to what the server does.
import type { LspAdapter } from '../src/lsp/adapter.js'

export const pyrightAdapter: LspAdapter = {
  id: 'pyright',
  name: 'Pyright',
  languageIds: { '.py': 'python', '.pyi': 'python' },
  rootMarkers: [
    'pyrightconfig.json',
    'pyproject.toml',
    'setup.py',
    'setup.cfg',
    'requirements.txt',
  ],
  commands: [
    { kind: 'npm', packageName: 'pyright', bin: 'pyright-langserver', args: ['--stdio'] },
    { kind: 'path', command: 'pyright-langserver', args: ['--stdio'], projectBin: true },
  ],
  initializationOptions: { disablePullDiagnostics: true },
  // Diagnostics for the documents the pool opens, not a whole-workspace analysis per server.
  settings: { 'python.analysis': { diagnosticMode: 'openFilesOnly' } },
  settle: {
    pull: false,
    versionedPush: true,
    progress: true,
    quiescent: false,
    diagnosticsOnSave: false,
  },
}
