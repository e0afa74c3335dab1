// A scripted language server for tests of diagnostics (engine and adapters): a TS2322 error at
// 1:7-1:8 of a file, a report of the errors a change introduced, and an engine over a root
// whose LspClient answers every question with that report (no sidecar pool, no servers).
import { createEngineWithInternals, type InternalEngine } from '../../src/engine/engine.js'
import type { LspClient } from '../../src/lsp/client-types.js'
import type { DiagnosticsReport, FileDiagnostic } from '../../src/lsp/reports.js'

/** The error a string assigned to `const x: number` gets, at line 1, column 7 of `path`. */
export function typeError(path: string): FileDiagnostic {
  return {
    path,
    line: 1,
    column: 7,
    endLine: 1,
    endColumn: 8,
    severity: 'error',
    code: '2322',
    source: 'ts',
    message: "Type 'string' is not assignable to type 'number'.",
  }
}

/** A settled report in which a change introduced `introduced` and nothing else. */
export function introducedReport(
  introduced: readonly FileDiagnostic[],
  waitedMs = 1,
): DiagnosticsReport {
  return { introduced, resolved: [], remaining: [], settled: true, waitedMs, servers: [] }
}

/** A language-server client that answers every question with `report`. */
export function scriptedLsp(report: DiagnosticsReport): LspClient {
  return {
    baseline: async () => ({ byPath: {}, servers: [] }),
    afterChange: async () => report,
    diagnostics: async () => report,
    status: async () => ({ servers: [] }),
    close: async () => undefined,
  }
}

/** A unit-test engine over `root` (no workers) whose language server is `scriptedLsp(report)`. */
export function engineWithReport(root: string, report: DiagnosticsReport): InternalEngine {
  return createEngineWithInternals(
    { root, workers: false, durability: 'fast' },
    { lspClientFactory: () => scriptedLsp(report) },
  )
}
