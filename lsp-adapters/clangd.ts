// C, C++ and Objective-C through clangd from PATH. clangd pushes publishDiagnostics with the
// document version once a file's AST is built and has no textDocument/diagnostic (clangd#2108).
// Its $/progress is background indexing, which diagnostics do not wait for, so progress: false;
// `--background-index=false` also keeps clangd from writing an index into the project
// (.cache/clangd) and from spending idle cores on one, which a sidecar does not need. The
// language ids matter little: clangd takes the language from compile flags and the extension.
import type { LspAdapter } from '../src/lsp/adapter.js'

export const clangdAdapter: LspAdapter = {
  id: 'clangd',
  name: 'clangd',
  languageIds: {
    '.c': 'c',
    '.h': 'c',
    '.cc': 'cpp',
    '.cpp': 'cpp',
    '.cxx': 'cpp',
    '.hpp': 'cpp',
    '.hh': 'cpp',
    '.m': 'objective-c',
    '.mm': 'objective-cpp',
  },
  rootMarkers: ['compile_commands.json', 'compile_flags.txt', '.clangd'],
  commands: [{ kind: 'path', command: 'clangd', args: ['--background-index=false'] }],
  settle: {
    pull: false,
    versionedPush: true,
    progress: false,
    quiescent: false,
    diagnosticsOnSave: false,
  },
}
