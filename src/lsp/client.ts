// The engine's handle on the sidecar pool of language servers: starts the pool's worker thread
// (src/lsp/host.ts, loaded from the build, so `npm run build` must have run) and talks to it
// through a comlink proxy. Servers, settle waits and diagnostic comparison all live in that
// thread; this side only forwards plain data, and makes a dead thread visible: pending calls
// reject and later calls get reports with state 'crashed' instead of hanging.
import { compiledFile } from '../compiled-file.js'
import { Worker } from 'node:worker_threads'
import { wrap, type Remote } from 'comlink'
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs'
import type { Baseline, LspClient, SidecarPoolOptions, PoolStatus } from './client-types.js'
import type { DiagnosticsReport, ServerReport } from './reports.js'

/**
 * The compiled worker entry. From dist/src/lsp/ it is the sibling host.js; when this module runs
 * from TypeScript sources (tests), the compiled copy under dist/ is used.
 */
export function hostFilename(): string {
  return compiledFile(
    [new URL('./host.js', import.meta.url), new URL('../../dist/src/lsp/host.js', import.meta.url)],
    'src/lsp/host.js',
  )
}

/**
 * Starts the sidecar pool in its own worker thread. Servers start on first use; call close()
 * to stop them. The thread keeps the process alive only while a call is pending. `host` replaces
 * the worker entry (tests use one that dies).
 * @example
 * const lsp = startLspClient({ workspaceRoot: '/repo' })
 * const report = await lsp.diagnostics(['/repo/src/a.ts'])
 * await lsp.close()
 */
export function startLspClient(
  options: SidecarPoolOptions,
  host: string | URL = hostFilename(),
): LspClient {
  const worker = new Worker(host, { workerData: options })
  const remote: Remote<LspClient> = wrap<LspClient>(nodeEndpoint(worker))
  let deathMessage: string | undefined
  let closing = false
  let pendingCalls = 0
  let markDead: (message: string) => void = () => undefined
  const dead = new Promise<never>((_, reject) => {
    markDead = (message) => {
      deathMessage ??= message
      reject(new Error(deathMessage))
    }
  })
  dead.catch(() => undefined) // observed through each call's race, not on its own
  worker.on('error', (error) => markDead(`The sidecar pool thread failed: ${error.message}`))
  worker.on('exit', (code) => {
    markDead(
      closing ? 'The sidecar pool is closed.' : `The sidecar pool thread exited (code ${code}).`,
    )
  })
  worker.unref()

  // Each call races the thread's death, so a crash rejects it instead of leaving it pending;
  // the worker is referenced only while calls are in flight.
  const call = async <T>(invoke: () => Promise<T>): Promise<T> => {
    if (pendingCalls++ === 0) worker.ref()
    try {
      return await Promise.race([invoke(), dead])
    } finally {
      if (--pendingCalls === 0) worker.unref()
    }
  }
  const crashedReport = (): DiagnosticsReport => {
    const server: ServerReport = {
      adapter: 'pool',
      root: '.',
      state: 'crashed',
      settled: false,
      waitedMs: 0,
      signal: 'unavailable',
      message: `${deathMessage ?? 'The sidecar pool thread is gone.'} Diagnostics are unavailable until the engine is restarted.`,
    }
    return {
      introduced: [],
      resolved: [],
      remaining: [],
      settled: false,
      waitedMs: 0,
      servers: [server],
    }
  }

  return {
    async baseline(files, reportOptions): Promise<Baseline> {
      if (deathMessage !== undefined) return { byPath: {}, servers: crashedReport().servers }
      return call(() => remote.baseline(files, reportOptions))
    },
    async afterChange(changes, baseline, reportOptions): Promise<DiagnosticsReport> {
      if (deathMessage !== undefined) return crashedReport()
      return call(() => remote.afterChange(changes, baseline, reportOptions))
    },
    async diagnostics(paths, reportOptions): Promise<DiagnosticsReport> {
      if (deathMessage !== undefined) return crashedReport()
      return call(() => remote.diagnostics(paths, reportOptions))
    },
    async status(): Promise<PoolStatus> {
      if (deathMessage !== undefined) return { servers: [], unavailable: deathMessage }
      return call(() => remote.status())
    },
    async close(): Promise<void> {
      if (closing) return
      closing = true
      try {
        if (deathMessage === undefined) await call(() => remote.close())
      } finally {
        await worker.terminate()
      }
    },
  }
}
