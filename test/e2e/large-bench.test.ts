// bench/large.bench.ts at CI size, so the bench keeps working between the runs that fill
// bench/RESULTS.md: the built bench (dist/bench/large.bench.js --quick: 10 and 20 files x 40
// lines, 1 sample) must exit 0, print no `> mismatch` line (every route ended at git apply's
// tree, or at the starting tree for check rows), print its tables, and write both charts as
// well-formed SVG with the expected series into the directory given by --out (never bench/).
// Timings are printed, never asserted. Needs `npm run build` first; skipped, saying so, without.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { findAll, parseXml } from '../helpers/xml.js'

const BENCH = fileURLToPath(new URL('../../dist/bench/large.bench.js', import.meta.url))
const BUILT = existsSync(BENCH)

function seriesNames(file: string): string[] {
  const svg = parseXml(readFileSync(file, 'utf8'))
  expect(svg.name).toBe('svg')
  return findAll(svg, 'g')
    .filter((g) => g.attrs['class'] === 'series')
    .map((g) => {
      // Both sizes drew a point in every series (a failed row would leave its point out).
      expect(findAll(g, 'circle')).toHaveLength(2)
      return g.attrs['data-series'] ?? ''
    })
}

describe.skipIf(!BUILT)(
  `large.bench --quick${BUILT ? '' : ' [skipped: dist/bench/large.bench.js is missing; run npm run build]'}`,
  () => {
    let dir = ''
    afterAll(async () => {
      if (dir !== '') await rm(dir, { recursive: true, force: true })
    })

    it('runs every route to the same tree and writes well-formed charts', async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'patchloom-large-bench-test-'))
      const out = path.join(dir, 'charts')
      const child = spawnSync(
        process.execPath,
        [BENCH, '--quick', '--out', out, '--scratch', dir],
        { encoding: 'utf8', timeout: 50_000 },
      )
      const stdout = child.stdout ?? ''
      expect(child.status, `${stdout}\n${child.stderr}`).toBe(0)
      expect(stdout.split('\n').filter((l) => l.startsWith('> mismatch'))).toEqual([])
      expect(stdout).not.toMatch(/failed while timed/)
      for (const heading of [
        '### whole process: apply',
        '### whole process: check',
        '### time per file',
        '### peak RSS of the patchloom CLI',
        '### warm engine, in process',
        '### worker scaling',
        '| verify phase, 1 worker |',
      ])
        expect(stdout).toContain(heading)
      // Every median is a number: the verify phase comes from the engine's own debug event.
      expect(stdout).not.toMatch(/NaN/)
      expect(seriesNames(path.join(out, 'large-per-file.svg'))).toEqual([
        'git apply',
        'git apply --check',
        'patchloom apply --durability fast',
        'patchloom check',
      ])
      expect(seriesNames(path.join(out, 'large-workers.svg'))).toEqual(['1 worker', '2 workers'])
      // The scratch repositories are removed; only the charts remain.
      expect(existsSync(out)).toBe(true)
      expect(readdirSync(dir)).toEqual(['charts'])
    })
  },
)
