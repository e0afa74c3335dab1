// The engine's use of the sidecar pool of language servers, with a scripted LspClient (the real
// pool and servers are exercised in test/integration/lsp-*.test.ts).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEngineWithInternals } from '../../../src/engine/engine.js'
import type { Baseline, LspClient } from '../../../src/lsp/client-types.js'
import type { DiagnosticsReport, FileChange } from '../../../src/lsp/reports.js'
import { introducedReport, typeError } from '../../helpers/scripted-diagnostics.js'

let root: string
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'patchloom-engine-diag-'))
  await writeFile(path.join(root, 'a.ts'), 'const x: number = 1\n')
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const PATCH =
  '*** Begin Patch\n*** Update File: a.ts\n@@\n-const x: number = 1\n+const x: number = "s"\n*** End Patch\n'

const REPORT: DiagnosticsReport = {
  ...introducedReport([typeError('a.ts')], 42),
  servers: [
    {
      adapter: 'typescript',
      root: '.',
      state: 'ready',
      settled: true,
      waitedMs: 42,
      signal: 'pull',
    },
  ],
}

interface Calls {
  baseline: { path: string; text: string | null; diskAtCall: string }[]
  after: FileChange[]
  closed: number
}

function scripted(calls: Calls, fail = false): LspClient {
  return {
    baseline: async (files) => {
      if (fail) throw new Error('server exploded')
      for (const f of files)
        calls.baseline.push({ ...f, diskAtCall: await readFile(f.path, 'utf8') })
      return { byPath: {}, servers: [] } satisfies Baseline
    },
    afterChange: async (changes) => {
      calls.after.push(...changes)
      return REPORT
    },
    diagnostics: async () => REPORT,
    status: async () => ({ servers: [] }),
    close: async () => {
      calls.closed++
    },
  }
}

describe('engine diagnostics', () => {
  it('takes the baseline before the commit and attaches the after-change report', async () => {
    const calls: Calls = { baseline: [], after: [], closed: 0 }
    const engine = createEngineWithInternals(
      { root, workers: false, diagnostics: true },
      { lspClientFactory: () => scripted(calls) },
    )
    const result = await engine.apply(PATCH)
    await engine.close()
    const abs = path.join(await import('node:fs/promises').then((fs) => fs.realpath(root)), 'a.ts')
    expect(calls.baseline).toEqual([
      { path: abs, text: 'const x: number = 1\n', diskAtCall: 'const x: number = 1\n' },
    ])
    expect(calls.after).toEqual([
      { path: abs, before: 'const x: number = 1\n', after: 'const x: number = "s"\n' },
    ])
    expect(result.diagnostics).toEqual(REPORT)
    expect(calls.closed).toBe(1)
  })

  it('does not start language servers unless asked, and never on a dry run', async () => {
    let started = 0
    const factory = () => {
      started++
      return scripted({ baseline: [], after: [], closed: 0 })
    }
    const off = createEngineWithInternals({ root, workers: false }, { lspClientFactory: factory })
    await off.check(PATCH)
    const on = createEngineWithInternals(
      { root, workers: false, diagnostics: true },
      { lspClientFactory: factory },
    )
    await on.check(PATCH)
    expect(started).toBe(0)
    const result = await off.apply(PATCH, { diagnostics: true })
    expect(started).toBe(1)
    expect(result.diagnostics?.settled).toBe(true)
    await Promise.all([off.close(), on.close()])
  })

  it('applies the edit and warns when the language servers fail', async () => {
    const engine = createEngineWithInternals(
      { root, workers: false, diagnostics: true },
      { lspClientFactory: () => scripted({ baseline: [], after: [], closed: 0 }, true) },
    )
    const result = await engine.apply(PATCH)
    await engine.close()
    expect(await readFile(path.join(root, 'a.ts'), 'utf8')).toBe('const x: number = "s"\n')
    expect(result.diagnostics).toBeUndefined()
    expect(result.warnings).toEqual([
      {
        code: 'lsp.failed',
        message: 'Language-server diagnostics failed baseline: server exploded',
      },
    ])
  })

  it('marks the report unsettled when the before-state did not settle', async () => {
    const calls: Calls = { baseline: [], after: [], closed: 0 }
    const client = scripted(calls)
    const unsettledBaseline: LspClient = {
      ...client,
      baseline: async () => ({
        byPath: {},
        servers: [
          {
            adapter: 'typescript',
            root: '.',
            state: 'ready',
            code: 'LSP_TIMEOUT',
            settled: false,
            waitedMs: 10,
            signal: 'deadline',
          },
        ],
      }),
    }
    const engine = createEngineWithInternals(
      { root, workers: false, diagnostics: true },
      { lspClientFactory: () => unsettledBaseline },
    )
    const result = await engine.apply(PATCH)
    await engine.close()
    expect(result.diagnostics?.settled).toBe(false)
    expect(result.warnings.map((w) => w.code)).toEqual(['lsp.baseline-unsettled'])
  })

  it('rejects invalid diagnostics options', () => {
    expect(() => createEngineWithInternals({ root, diagnostics: { deadlineMs: -1 } }, {})).toThrow(
      /deadlineMs/,
    )
    expect(() =>
      createEngineWithInternals({ root, diagnostics: { minSeverity: 'fatal' as never } }, {}),
    ).toThrow(/minSeverity/)
  })
})
