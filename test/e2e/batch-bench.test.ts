// bench/batch.bench.ts at CI size, so the bench keeps working between the runs that fill
// bench/RESULTS.md: the built bench (dist/bench/batch.bench.js --quick: 8 checkouts, 16 for the
// second table, 1 round) must exit 0 with every row's trees at the change's known result, print
// its tables with a number in every cell, and leave nothing in its scratch directory. Timings
// are printed, never asserted. Needs `npm run build` first; skipped, saying so, without.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const BENCH = fileURLToPath(new URL('../../dist/bench/batch.bench.js', import.meta.url))
const BUILT = existsSync(BENCH)

describe.skipIf(!BUILT)(
  `batch.bench --quick${BUILT ? '' : ' [skipped: dist/bench/batch.bench.js is missing; run npm run build]'}`,
  () => {
    let dir = ''
    afterAll(async () => {
      if (dir !== '') await rm(dir, { recursive: true, force: true })
    })

    it('runs every route to the change’s result and prints the table', async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'patchloom-batch-bench-test-'))
      const child = spawnSync(process.execPath, [BENCH, '--quick', '--scratch', dir], {
        encoding: 'utf8',
        timeout: 60_000,
      })
      const stdout = child.stdout ?? ''
      expect(child.status, `${stdout}\n${child.stderr}`).toBe(0)
      expect(stdout).not.toMatch(/^> /m)
      for (const row of [
        '| git apply, once per patch |',
        '| patchloom apply --durability fast, once per patch |',
        '| patchloom batch --durability fast |',
        '| patchloom batch --durability full |',
        '### 16 checkouts: git apply and batch',
        '### memory: batch --dry-run, jobs streamed on stdin',
        '| 1000 |',
      ])
        expect(stdout).toContain(row)
      expect(stdout).not.toMatch(/error|NaN/)
      expect(readdirSync(dir)).toEqual([])
    }, 70_000)
  },
)
