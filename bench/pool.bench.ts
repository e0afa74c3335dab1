// Decides the inline-vs-pool thresholds in src/engine/route.ts: verifies (dry run) the same
// seeded patch with route 'inline' and route 'pool' across request sizes, and prints the median
// latency of each and their ratio. Where pool/inline drops below 1, the pool pays for itself.
// Run: npm run build && node dist/bench/pool.bench.js   (see bench/RESULTS.md)
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Bench } from 'tinybench'
// The internal engine: its requests take `route`, which this bench compares.
import { createEngineWithInternals } from '../src/engine/engine.js'
import { codexPatch, generateWorkspace, writeWorkspace, type Size } from './generate.js'
import { loadLine, machineLine } from './report.js'

const SIZES: readonly Size[] = [
  { files: 1, lines: 200, hunks: 2 },
  { files: 4, lines: 500, hunks: 4 },
  { files: 8, lines: 2_000, hunks: 4 },
  { files: 16, lines: 2_000, hunks: 8 },
  { files: 32, lines: 5_000, hunks: 8 },
  { files: 64, lines: 5_000, hunks: 8 },
]

export async function main(): Promise<void> {
  console.log(`## pool.bench\n\n${machineLine()}\n`)
  const rows: string[] = []
  for (const size of SIZES) {
    const root = await mkdtemp(path.join(tmpdir(), 'patchloom-bench-'))
    const ws = generateWorkspace(size.files, size.lines, 7)
    await writeWorkspace(root, ws)
    const patch = codexPatch(ws, size.files, size.hunks)
    const engine = createEngineWithInternals({ root, workers: { minThreads: 2, maxThreads: 2 } })
    // Start the threads before timing, as a long-running engine would have them.
    await engine.check(patch, { route: 'pool' })
    const bytes = size.files * ws.files[0]!.lines.join('\n').length + patch.length
    const bench = new Bench({ time: 1_500, warmupTime: 200 })
    bench.add('inline', async () => {
      await engine.check(patch, { route: 'inline' })
    })
    bench.add('pool', async () => {
      await engine.check(patch, { route: 'pool' })
    })
    await bench.run()
    const p50 = (name: string) => {
      const result = bench.tasks.find((t) => t.name === name)?.result
      return result?.state === 'completed' ? result.latency.p50 : Number.NaN
    }
    const inline = p50('inline')
    const pooled = p50('pool')
    rows.push(
      `| ${size.files} files x ${size.lines} lines, ${size.hunks} hunks each | ${(bytes / 1024).toFixed(0)} KiB | ${inline.toFixed(2)} | ${pooled.toFixed(2)} | ${(pooled / inline).toFixed(2)} |`,
    )
    await engine.close()
    await rm(root, { recursive: true, force: true })
  }
  console.log('| request | bytes | inline p50 ms | pool p50 ms | pool/inline |')
  console.log('|---|---|---|---|---|')
  for (const row of rows) console.log(row)
  console.log(`\n${loadLine()}`)
}

await main()
