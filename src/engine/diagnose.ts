// The engine's side of language-server diagnostics: turns a verified change into the
// before/after file texts the sidecar pool compares, starts the pool on first use, and makes
// sure an LSP problem never fails an edit (it becomes a warning and an unsettled report).
import type { EngineDiagnosticsOptions } from './api.js'
import { writesLink, type PreparedPath } from './prepare.js'
import type { VerifiedOp } from './verify.js'
import type { Baseline, LspClient, SidecarPoolOptions } from '../lsp/client-types.js'
import type { DiagnosticsOptions, DiagnosticsReport, FileChange } from '../lsp/reports.js'
import type { Warning } from '../types.js'

export type LspClientFactory = (options: SidecarPoolOptions) => LspClient | Promise<LspClient>

const utf8 = new TextDecoder('utf-8')

function textOf(bytes: Uint8Array | null): string | null {
  if (bytes === null) return null
  // Files with NUL bytes are not source any server reads; send nothing rather than garbage.
  if (bytes.includes(0)) return null
  return utf8.decode(bytes)
}

/** The before/after texts of every file a change touches (moves touch two). */
export function fileChanges(verified: readonly VerifiedOp[]): FileChange[] {
  const changes: FileChange[] = []
  // A symlink is no document to a language server: its "bytes" are a target string.
  const add = (p: PreparedPath, after: Uint8Array | null) => {
    const before = p.snap.kind === 'symlink' ? null : textOf(p.snap.bytes)
    if (before !== null || after !== null)
      changes.push({ path: p.resolved.abs, before, after: textOf(after) })
  }
  verified.forEach(({ prepared: p, computed }) => {
    const computedAfter = computed.after
    const after = writesLink(p) ? null : computedAfter
    if (p.moveTo !== undefined) {
      add(p.target, null)
      add(p.moveTo, after)
    } else {
      add(p.target, after)
    }
  })
  return changes
}

export class EngineDiagnostics {
  readonly #options: EngineDiagnosticsOptions
  readonly #factory: LspClientFactory
  #client: Promise<LspClient> | undefined

  constructor(options: EngineDiagnosticsOptions, factory: LspClientFactory) {
    this.#options = options
    this.#factory = factory
  }

  /** Diagnostics before the change; null (with a warning) when the pool could not answer. */
  async baseline(
    rootReal: string,
    changes: readonly FileChange[],
    warnings: Warning[],
  ): Promise<Baseline | null> {
    try {
      const files = changes.map((c) => ({ path: c.path, text: c.before }))
      return await (await this.#ensure(rootReal)).baseline(files, this.#reportOptions())
    } catch (error) {
      warnings.push(lspWarning('baseline', error))
      return null
    }
  }

  /** Diagnostics after the commit, compared with the baseline; undefined when unavailable. */
  async after(
    rootReal: string,
    changes: readonly FileChange[],
    baseline: Baseline | null,
    warnings: Warning[],
  ): Promise<DiagnosticsReport | undefined> {
    if (baseline === null) return undefined
    try {
      const report = await (
        await this.#ensure(rootReal)
      ).afterChange(changes, baseline, this.#reportOptions())
      const unsettled = baseline.servers.filter((s) => !s.settled)
      if (unsettled.length === 0 || !report.settled) return report
      // Without a settled before-state, old errors could be counted as introduced: say so.
      const names = unsettled.map((s) => `${s.adapter} (${s.root})`).join(', ')
      warnings.push({
        code: 'lsp.baseline-unsettled',
        message: `Diagnostics before the change did not settle for ${names}; "introduced" may include older errors.`,
      })
      return { ...report, settled: false }
    } catch (error) {
      warnings.push(lspWarning('after the change', error))
      return undefined
    }
  }

  async standalone(
    rootReal: string,
    paths: readonly string[],
    options: DiagnosticsOptions = {},
  ): Promise<DiagnosticsReport> {
    const client = await this.#ensure(rootReal)
    return client.diagnostics(paths, { ...this.#reportOptions(), ...options })
  }

  async close(): Promise<void> {
    const client = this.#client
    this.#client = undefined
    // A client that never started (its loading failed) has nothing to close.
    await (await client?.catch(() => undefined))?.close()
  }

  #reportOptions(): DiagnosticsOptions {
    const { minSeverity, deadlineMs, maxPerFile } = this.#options
    return {
      ...(minSeverity === undefined ? {} : { minSeverity }),
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
      ...(maxPerFile === undefined ? {} : { maxPerFile }),
    }
  }

  #ensure(rootReal: string): Promise<LspClient> {
    this.#client ??= Promise.resolve(
      this.#factory({ ...this.#options.servers, workspaceRoot: rootReal }),
    )
    return this.#client
  }
}

function lspWarning(phase: string, error: unknown): Warning {
  const message = error instanceof Error ? error.message : String(error)
  return { code: 'lsp.failed', message: `Language-server diagnostics failed ${phase}: ${message}` }
}
