// Setup file of the `unit` vitest project: the fast loop runs from source with no worker threads,
// so constructing one fails the test that tried, naming where such a test belongs. Piscina
// and the sidecar pool of language servers both create their threads through worker_threads.Worker.
import { syncBuiltinESMExports } from 'node:module'
import workerThreads from 'node:worker_threads'

class NoWorkerInUnitProject {
  constructor() {
    throw new Error(
      'unit project: no worker threads here; a test that needs them belongs in the pool or e2e project (vitest.config.ts)',
    )
  }
}

workerThreads.Worker = NoWorkerInUnitProject as unknown as typeof workerThreads.Worker
// Named ESM imports (`import { Worker } from 'node:worker_threads'`) see the replacement too.
syncBuiltinESMExports()
