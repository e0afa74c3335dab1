// ApplyOptions.finalNewline on the worker threads: the settings carry it to each verify job (a
// Codex patch as parsed ops, a unified diff as runs the workers parse), which must write what the
// inline route writes (test/unit/engine/final-newline.test.ts). Needs `npm run build`.
import { readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { createEngineWithInternals } from '../../src/engine/engine.js'
import { FINAL_NEWLINE_CASES } from '../helpers/final-newline-cases.js'
import { makeTempDir } from '../helpers/tree.js'

let root = ''
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

for (const c of FINAL_NEWLINE_CASES) {
  it(`keeps each file's final-newline state on the pool: ${c.name}`, async () => {
    const results: Record<string, string>[] = []
    const routes: unknown[] = []
    for (const finalNewline of ['format', 'keep'] as const) {
      await rm(root, { recursive: true, force: true })
      root = await makeTempDir('patchloom-final-newline-pool-')
      for (const [rel, text] of Object.entries(c.files)) await writeFile(path.join(root, rel), text)
      const engine = createEngineWithInternals({
        root,
        durability: 'fast',
        workers: { minThreads: 1, maxThreads: 2 },
        logger: { debug: (_, fields) => routes.push(fields?.['route']), warn: () => undefined },
      })
      try {
        await engine.apply(c.patch, { format: c.format, route: 'pool', finalNewline })
        const out: Record<string, string> = {}
        for (const rel of Object.keys(c.kept)) {
          out[rel] = await readFile(path.join(root, rel), 'utf8')
        }
        results.push(out)
      } finally {
        await engine.close()
      }
    }
    expect(results).toEqual([c.byFormat, c.kept])
    // A unified diff is split into runs that the workers parse themselves.
    const route = c.format === 'unified' ? 'pool-runs' : 'pool'
    expect(routes).toEqual([route, route])
  })
}
