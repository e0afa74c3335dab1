// bench/distributed.bench.ts runs end to end at a small size: real redis-server, worker
// processes, and its own check that every queue run's report equals the local replay's (it exits
// non-zero otherwise). Timings are not asserted: they are the bench's to report.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { REDIS_AVAILABLE, REDIS_SKIP_REASON } from '../helpers/redis.js'

const BENCH = fileURLToPath(new URL('../../dist/bench/distributed.bench.js', import.meta.url))

describe.skipIf(!existsSync(BENCH) || !REDIS_AVAILABLE)(
  `distributed.bench (needs npm run build; skipped when ${REDIS_SKIP_REASON})`,
  () => {
    it('replays locally and through the queue with 1 and 2 workers, and by URL, reports agreeing', () => {
      const run = spawnSync(
        process.execPath,
        [BENCH, '--commits', '120', '--split', '40', '--workers', '1,2', '--runs', '1'],
        { encoding: 'utf8', timeout: 120_000 },
      )
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0)
      expect(run.stdout).toContain("every queue run's report checked equal to the local one")
      expect(run.stdout).toMatch(/\| queue, 1 worker process \| 1 \| 6 \|/)
      expect(run.stdout).toMatch(/\| queue, 2 worker processes \| 2 \| 6 \|/)
      expect(run.stdout).toMatch(
        /\| queue by file:\/\/ URL, 2 workers, empty clone caches \| 2 \| 6 \|/,
      )
      expect(run.stdout).toMatch(
        /\| queue by file:\/\/ URL, 2 workers, warm clone caches \| 2 \| 6 \|/,
      )
      expect(run.stdout).toMatch(/Queue overhead per job .*: -?\d+\.\d ms/)
    })
  },
)
