// TypeScript and JavaScript. Default: the TypeScript 7 native server (`tsc --lsp --stdio`) from
// patchloom's own `typescript@7` dependency, so nothing needs installing. It answers pull
// diagnostics (it declares diagnosticProvider with interFileDependencies) and, as 7.0.2 ships,
// pushes nothing for source files: only unversioned publishes for tsconfig.json. A project that
// brings TypeScript 5 gets typescript-language-server instead (the first command below).
import type { LspAdapter } from '../src/lsp/adapter.js'

export const typescriptAdapter: LspAdapter = {
  id: 'typescript',
  name: 'TypeScript',
  languageIds: {
    '.ts': 'typescript',
    '.tsx': 'typescriptreact',
    '.mts': 'typescript',
    '.cts': 'typescript',
    '.js': 'javascript',
    '.jsx': 'javascriptreact',
    '.mjs': 'javascript',
    '.cjs': 'javascript',
  },
  rootMarkers: ['tsconfig.json', 'jsconfig.json', 'package.json'],
  commands: [
    // When the project brings TypeScript 5 (its nearest node_modules/typescript/package.json has a
    // major below 7, checked by find-executable.ts from `when`), the project's own or PATH's
    // `typescript-language-server --stdio` runs first, so diagnostics come from the compiler the
    // project builds with (TS 7 rejects options TS 5 projects still use).
    {
      kind: 'path',
      command: 'typescript-language-server',
      args: ['--stdio'],
      projectBin: true,
      when: { kind: 'project-package', packageName: 'typescript', majorBelow: 7 },
    },
    { kind: 'npm', packageName: 'typescript', bin: 'tsc', args: ['--lsp', '--stdio'] },
  ],
  settle: {
    pull: true,
    // typescript-language-server pushes without versions (typescript-language-server#983) and has
    // no pull; the session still pulls from tsc, which declares the capability.
    versionedPush: false,
    progress: true,
    quiescent: false,
    diagnosticsOnSave: false,
  },
}
