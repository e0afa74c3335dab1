// The sidecar pool's own thread (started by src/lsp/client.ts from the build): creates the
// SidecarPool from the SidecarPoolOptions in workerData and exposes it through comlink, so server
// traffic, settle waits and large diagnostic payloads never run on the engine's event loop. A
// composition root like the CLI: the one place in src/lsp that imports lsp-adapters/.
import { parentPort, workerData } from 'node:worker_threads'
import { expose } from 'comlink'
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs'
import { ADAPTERS } from '../../lsp-adapters/index.js'
import type { LspClient, SidecarPoolOptions } from './client-types.js'
import { SidecarPool } from './sidecar-pool.js'

if (parentPort === null) throw new Error('lsp host: cannot run outside a worker thread')

const pool = new SidecarPool(workerData as SidecarPoolOptions, { adapters: ADAPTERS })

// Plain functions rather than the pool itself: comlink would otherwise expose every property,
// and a class instance's #private state cannot be reached through its proxy anyway.
const api: LspClient = {
  baseline: (files, options) => pool.baseline(files, options),
  afterChange: (changes, baseline, options) => pool.afterChange(changes, baseline, options),
  diagnostics: (paths, options) => pool.diagnostics(paths, options),
  status: () => pool.status(),
  close: () => pool.close(),
}

expose(api, nodeEndpoint(parentPort))
