// The facts every language-server adapter must satisfy (house style section 1.4), whatever the
// server. test/contract/lsp-adapters.test.ts calls runLspAdapterContract for each adapter in the
// registry; server-specific behaviour (settle paths, real messages) is tested with the session.
// This file registers tests but is not itself a test file: vitest only collects `*.test.ts`.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { languageIdFor, type LspAdapter } from '../../src/lsp/adapter.js'
import { resolveCommand } from '../../src/lsp/find-executable.js'

export interface AdapterContractOptions {
  /** Every adapter in the registry, to check ids are unique and lookups pick this adapter. */
  readonly registry: readonly LspAdapter[]
  readonly adapterFor: (path: string) => LspAdapter | undefined
  /**
   * True when the server ships with patchloom (an npm dependency), so it must resolve even with
   * an empty PATH; false when it comes from PATH only, so an empty PATH must fail and say which
   * commands it looked for. An empty PATH keeps the answer the same on every machine.
   */
  readonly bundled: boolean
}

/** Registers `describe('<id> adapter contract')`. */
export function runLspAdapterContract(adapter: LspAdapter, options: AdapterContractOptions): void {
  describe(`${adapter.id} adapter contract`, () => {
    let emptyDir: string
    beforeAll(() => {
      emptyDir = mkdtempSync(join(tmpdir(), 'patchloom-adapter-contract-'))
    })
    afterAll(() => {
      rmSync(emptyDir, { recursive: true, force: true })
    })

    it('has an id unique in the registry and a name', () => {
      expect(adapter.id).toMatch(/^[a-z][a-z0-9-]*$/)
      expect(options.registry.filter((a) => a.id === adapter.id)).toHaveLength(1)
      expect(adapter.name.length).toBeGreaterThan(0)
    })

    it('maps lower-case dotted extensions to non-empty language ids', () => {
      const entries = Object.entries(adapter.languageIds)
      expect(entries.length).toBeGreaterThan(0)
      for (const [ext, languageId] of entries) {
        expect(ext).toMatch(/^\.[a-z0-9+]+$/)
        expect(languageId).toMatch(/^\S+$/)
      }
    })

    it('is the adapter picked for each of its extensions, in any case', () => {
      for (const [ext, languageId] of Object.entries(adapter.languageIds)) {
        const file = `/work/project/src/file${ext}`
        expect(options.adapterFor(file)?.id).toBe(adapter.id)
        expect(options.adapterFor(`/WORK/FILE${ext.toUpperCase()}`)?.id).toBe(adapter.id)
        expect(languageIdFor(adapter, file)).toBe(languageId)
      }
    })

    it('has root markers that are plain file or folder names', () => {
      expect(adapter.rootMarkers.length).toBeGreaterThan(0)
      for (const marker of adapter.rootMarkers) expect(marker).toMatch(/^[^/\\]+$/)
      expect(new Set(adapter.rootMarkers).size).toBe(adapter.rootMarkers.length)
    })

    it('has at least one well-formed start command', () => {
      expect(adapter.commands.length).toBeGreaterThan(0)
      for (const source of adapter.commands) {
        const name = source.kind === 'npm' ? source.bin : source.command
        expect(name).toMatch(/^[^/\\\s]+$/)
        if (source.kind === 'npm') expect(source.packageName.length).toBeGreaterThan(0)
        for (const arg of source.args) expect(typeof arg).toBe('string')
      }
    })

    it('states every settle fact as a boolean', () => {
      const facts = ['pull', 'versionedPush', 'progress', 'quiescent', 'diagnosticsOnSave'] as const
      for (const fact of facts) expect(typeof adapter.settle[fact]).toBe('boolean')
      expect(Object.keys(adapter.settle).sort()).toEqual([...facts].sort())
    })

    it('is plain data that survives structuredClone', () => {
      expect(structuredClone(adapter)).toStrictEqual(adapter)
      expect(JSON.parse(JSON.stringify(adapter))).toStrictEqual(adapter)
    })

    if (options.bundled) {
      it('resolves its server from patchloom’s own dependencies, even with an empty PATH', () => {
        const found = resolveCommand(adapter, { projectRoot: emptyDir, env: { PATH: emptyDir } })
        expect(found.ok).toBe(true)
        if (!found.ok) return
        const file =
          found.command.command === process.execPath ? found.command.args[0] : found.command.command
        expect(existsSync(file ?? '')).toBe(true)
      })
    } else {
      it('fails with an empty PATH and names every command it looked for', () => {
        const found = resolveCommand(adapter, { projectRoot: emptyDir, env: { PATH: emptyDir } })
        expect(found.ok).toBe(false)
        if (found.ok) return
        expect(found.lookedFor.length).toBeGreaterThan(0)
        for (const source of adapter.commands) {
          expect(found.message).toContain(source.kind === 'npm' ? source.bin : source.command)
        }
        expect(found.message).toContain(adapter.name)
      })
    }
  })
}
