// The registry of language-server adapters. Only src/lsp/host.ts, the sidecar pool's thread,
// imports it; the rest of src/ receives adapters as plain data.
// Order matters: adapterFor returns the first adapter that serves an extension.
import { languageIdFor, type LspAdapter } from '../src/lsp/adapter.js'
import { clangdAdapter } from './clangd.js'
import { goplsAdapter } from './gopls.js'
import { pyrightAdapter } from './pyright.js'
import { rustAnalyzerAdapter } from './rust-analyzer.js'
import { typescriptAdapter } from './typescript.js'

export { clangdAdapter, goplsAdapter, pyrightAdapter, rustAnalyzerAdapter, typescriptAdapter }

export const ADAPTERS: readonly LspAdapter[] = [
  typescriptAdapter,
  pyrightAdapter,
  rustAnalyzerAdapter,
  goplsAdapter,
  clangdAdapter,
]

/**
 * The adapter that serves `path` (by extension, case-insensitive), limited to `ids` when given
 * (LanguageServerOptions.adapters), or undefined.
 * @example adapterFor('/repo/src/main.ts')?.id // 'typescript'
 */
export function adapterFor(path: string, ids?: readonly string[]): LspAdapter | undefined {
  const normalized = path.replace(/\\/g, '/')
  return ADAPTERS.find(
    (a) => (ids === undefined || ids.includes(a.id)) && languageIdFor(a, normalized) !== undefined,
  )
}

/** The adapter with this id, or undefined. */
export function adapterById(id: string): LspAdapter | undefined {
  return ADAPTERS.find((a) => a.id === id)
}
