// bench/warm.bench.ts at CI size, so the bench keeps working between the runs that fill
// bench/RESULTS.md: the built bench (dist/bench/warm.bench.js --quick: 40 files x 40 lines, 2
// samples) must exit 0, print no `> mismatch` line (every check row left HEAD's tree, every apply
// row git apply's, the serve rows included), print every row with a median, and write its JSON
// report; the scratch repository is removed. Timings are printed, never asserted. Needs
// `npm run build` first; skipped, saying so, without.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const BENCH = fileURLToPath(new URL('../../dist/bench/warm.bench.js', import.meta.url))
const BUILT = existsSync(BENCH)

const ROWS = [
  'git apply --check',
  'engine.check, pool',
  'engine.check, pool, diffs: true',
  'engine.check, workers: false',
  'serve apply_patch, dry_run',
  'git apply',
  'engine.apply (fast), pool',
  'engine.apply (fast), workers: false',
  'serve apply_patch',
]

interface Report {
  readonly sizes: readonly {
    readonly files: number
    readonly rows: readonly {
      readonly name: string
      readonly medianMs: number
      readonly samplesMs: readonly number[]
      readonly error: string | null
    }[]
    readonly peakRssBytes: number
  }[]
}

describe.skipIf(!BUILT)(
  `warm.bench --quick${BUILT ? '' : ' [skipped: dist/bench/warm.bench.js is missing; run npm run build]'}`,
  () => {
    let dir = ''
    afterAll(async () => {
      if (dir !== '') await rm(dir, { recursive: true, force: true })
    })

    it('runs every row to the expected tree and reports each one', async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'patchloom-warm-bench-test-'))
      const json = path.join(dir, 'warm.json')
      const child = spawnSync(
        process.execPath,
        [BENCH, '--quick', '--scratch', dir, '--json', json],
        { encoding: 'utf8', timeout: 50_000 },
      )
      const stdout = child.stdout ?? ''
      expect(child.status, `${stdout}\n${child.stderr}`).toBe(0)
      expect(stdout.split('\n').filter((l) => l.startsWith('> mismatch'))).toEqual([])
      expect(stdout).not.toMatch(/failed while timed/)
      expect(stdout).toContain('## warm.bench')
      expect(stdout).toContain('| row | median ms | x git (same kind) | workers: false x pool |')
      for (const row of ROWS) expect(stdout).toContain(`| ${row} | `)
      expect(stdout).toMatch(/Peak RSS \(VmHWM\) of this process after 40 files: [\d.]+ MiB/)
      expect(stdout).not.toMatch(/NaN|mismatch/)

      const report = JSON.parse(readFileSync(json, 'utf8')) as Report
      expect(report.sizes.map((s) => s.files)).toEqual([40])
      const size = report.sizes[0]
      expect(size?.rows.map((r) => r.name)).toEqual(ROWS)
      for (const row of size?.rows ?? []) {
        expect(row.error, row.name).toBeNull()
        expect(row.samplesMs, row.name).toHaveLength(2)
        expect(Number.isFinite(row.medianMs), row.name).toBe(true)
      }
      expect(size?.peakRssBytes).toBeGreaterThan(0)
      // The scratch repository is removed; only the report remains.
      expect(readdirSync(dir)).toEqual(['warm.json'])
    })
  },
)
