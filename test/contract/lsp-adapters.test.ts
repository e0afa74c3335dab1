// Runs the adapter contract for every adapter in lsp-adapters/, plus the registry's own lookups.
// TypeScript and Pyright ship with patchloom (npm dependencies); rust-analyzer, gopls and clangd
// come from PATH, so their resolution is checked against an empty PATH on every machine.
import { describe, expect, it } from 'vitest'
import { ADAPTERS, adapterById, adapterFor } from '../../lsp-adapters/index.js'
import { runLspAdapterContract } from './lsp-adapter.contract.js'

const BUNDLED = new Set(['typescript', 'pyright'])

for (const adapter of ADAPTERS) {
  runLspAdapterContract(adapter, {
    registry: ADAPTERS,
    adapterFor,
    bundled: BUNDLED.has(adapter.id),
  })
}

describe('adapter registry', () => {
  it('holds the five servers of the sidecar pool', () => {
    expect(ADAPTERS.map((a) => a.id)).toEqual([
      'typescript',
      'pyright',
      'rust-analyzer',
      'gopls',
      'clangd',
    ])
    for (const a of ADAPTERS) expect(adapterById(a.id)).toBe(a)
    expect(adapterById('nope')).toBeUndefined()
  })

  it('serves no extension from two adapters', () => {
    const all = ADAPTERS.flatMap((a) => Object.keys(a.languageIds))
    expect(new Set(all).size).toBe(all.length)
  })

  it('finds nothing for unknown extensions and extension-less names', () => {
    for (const path of ['/p/README.md', '/p/Makefile', '/p/dir.ts/file', 'C:\\p\\a.txt']) {
      expect(adapterFor(path)).toBeUndefined()
    }
  })

  it('handles Windows separators and limits the lookup to the given ids', () => {
    expect(adapterFor('C:\\repo\\src\\main.go')?.id).toBe('gopls')
    expect(adapterFor('/r/a.ts', ['pyright'])).toBeUndefined()
    expect(adapterFor('/r/a.py', ['pyright'])?.id).toBe('pyright')
  })
})
