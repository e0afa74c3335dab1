import { availableParallelism, tmpdir } from 'node:os'
import path from 'node:path'
import { defineConfig } from 'vitest/config'

// Three projects (house style §6, #8):
// - `unit`: from source, no build, no worker threads: unit, contract, property tests, and the
//   scenario suite on the inline route. This is the fast loop (`npm run test:unit`).
// - `pool`: the scenario suite and the engine fuzzer again, verified in real Piscina threads
//   loaded from dist/ (`npm run build` first; skipped with a reason otherwise).
// - `e2e`: integration (real threads, the fake language server) and the built CLI.
// `--mode quick` (what test:unit passes) runs property tests at a tenth of their iterations;
// every other run, `npm test` included, uses the full counts. test/helpers/test-mode.ts reads
// the variables set here. Quick mode also runs one test file per core (vitest's default of
// cores - 1 is a single worker on a 2-core machine) and does not isolate unit test files from
// each other (each fork imports the sources once, not once per file: about half the CPU time).
// The full run keeps both defaults, so it still catches a test that depends on a fresh module
// and the timing-sensitive e2e tests are not starved (DECISIONS D-058).
export default defineConfig(({ mode }) => {
  const quick = mode === 'quick' ? '1' : '0'
  // The journal's signing key lives in the user's state directory (src/journal/trust.ts); tests
  // keep theirs in the temp directory instead of the home of whoever runs them.
  const PATCHLOOM_STATE_DIR = path.join(tmpdir(), 'patchloom-test-state')
  return {
    test: {
      ...(mode === 'quick' ? { maxWorkers: availableParallelism() } : {}),
      projects: [
        {
          test: {
            name: 'unit',
            isolate: mode !== 'quick',
            // Property tests that shell out to git (render-diff, unified) need more than vitest's
            // 5 s when two test files share a loaded 2-core machine.
            testTimeout: 15_000,
            include: [
              'test/unit/**/*.test.ts',
              'test/contract/**/*.test.ts',
              'test/fuzz/**/*.test.ts',
              'test/*.test.ts',
            ],
            env: {
              PATCHLOOM_TEST_ROUTES: 'inline',
              PATCHLOOM_TEST_QUICK: quick,
              PATCHLOOM_STATE_DIR,
            },
            // Fails any test that starts a worker thread.
            setupFiles: ['test/helpers/no-threads.ts'],
          },
        },
        {
          test: {
            name: 'threads',
            include: ['test/scenarios.test.ts', 'test/fuzz/engine.test.ts'],
            env: {
              PATCHLOOM_TEST_ROUTES: 'pool',
              PATCHLOOM_TEST_QUICK: quick,
              PATCHLOOM_STATE_DIR,
            },
            testTimeout: 60_000,
          },
        },
        {
          test: {
            name: 'e2e',
            include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
            env: { PATCHLOOM_STATE_DIR },
            testTimeout: 60_000,
          },
        },
      ],
    },
  }
})
