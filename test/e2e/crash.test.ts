// The SIGKILL crash harness at CI size: a real child process running the built engine
// (dist/bench/crash-child.js) applies one 50-file Codex patch and is killed at every instrumented
// journal point (first, middle and last index), inside recovery, and after 50 random delays.
// Recovery then runs here and every trial must end wholly before or wholly after. The harness
// is bench/crash-harness.ts, shared with `node dist/bench/crash.js` (1,000 trials). Needs
// `npm run build` first; skipped, saying so, without it.
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  calibrate,
  callPlans,
  COMMIT_POINTS,
  crashFixture,
  delayPlans,
  describePlan,
  pointPlans,
  prepareSetup,
  runTrials,
  tally,
  type Calibration,
  type HarnessSetup,
  type TrialResult,
} from '../../bench/crash-harness.js'

const CHILD = fileURLToPath(new URL('../../dist/bench/crash-child.js', import.meta.url))
const BUILT = existsSync(CHILD)
const JOBS = 2
const SEED = 7
const RANDOM_TRIALS = 50

function failures(results: readonly TrialResult[]): string[] {
  return results
    .filter((r) => r.problems.length > 0)
    .map((r) => `${describePlan(r.plan)}: ${r.problems.join('; ')}`)
}

describe.skipIf(!BUILT)(
  `crash harness (SIGKILL)${BUILT ? '' : ' [skipped: dist/bench/crash-child.js is missing; run npm run build]'}`,
  () => {
    let workDir = ''
    let setup: HarnessSetup
    let cal: Calibration
    beforeAll(async () => {
      workDir = await mkdtemp(path.join(tmpdir(), 'patchloom-crash-test-'))
      setup = await prepareSetup({
        childScript: CHILD,
        durability: 'full',
        fixture: crashFixture(SEED),
        workDir,
      })
      cal = await calibrate(setup, 2, JOBS)
    }, 60_000)
    afterAll(async () => {
      if (workDir !== '') await rm(workDir, { recursive: true, force: true })
    })

    it('ends wholly before or after when killed at every instrumented point, recovery included', async () => {
      const plans = pointPlans(cal, 'edges')
      const results = await runTrials(setup, plans, JOBS)
      expect(failures(results)).toEqual([])
      expect(tally(results)).toMatchObject({ trials: plans.length, torn: 0 })
      const killedAt = new Set(
        results.map((r) =>
          r.plan.kind === 'at' && 'point' in r.plan.apply ? r.plan.apply.point : '',
        ),
      )
      expect([...killedAt].sort()).toEqual([...COMMIT_POINTS].sort())
      // Every planned recovery kill happened (a recovery that finished would be a problem above).
      const planned = plans.reduce(
        (n, p) => n + (p.kind === 'at' ? (p.recovery?.length ?? 0) : 0),
        0,
      )
      expect(planned).toBeGreaterThanOrEqual(4)
      expect(results.reduce((n, r) => n + r.recoveryKilled, 0)).toBe(planned)
    }, 120_000)

    it('ends wholly before when recovery is killed right after it removes a new file', async () => {
      // Recovery removes a file the change added, then the directories made for it: killed in
      // between, a recovery run again must still remove them. (The bench kills after every
      // journal filesystem call; here only after each unlink, to stay CI-sized.)
      const plans = callPlans(
        cal,
        (call, phase) => phase === 'recovery' && call.method === 'unlink',
      )
      expect(plans.length).toBe(7) // 4 adds and 3 move destinations
      const results = await runTrials(setup, plans, JOBS)
      expect(failures(results)).toEqual([])
      expect(tally(results)).toMatchObject({ trials: plans.length, before: plans.length })
    }, 120_000)

    it(`never tears the change under ${RANDOM_TRIALS} random-delay kills, which end both ways`, async () => {
      const results = await runTrials(setup, delayPlans(cal, RANDOM_TRIALS, SEED), JOBS)
      expect(failures(results)).toEqual([])
      const t = tally(results)
      expect(t.torn).toBe(0)
      // Kills neither all too early nor all too late: both outcomes occur, and some kills land
      // inside the commit itself (after the lock, before the mark).
      expect(t.before).toBeGreaterThan(0)
      expect(t.after).toBeGreaterThan(0)
      const inside = results.filter((r) =>
        ['locked', 'staged', 'backed-up', 'prepared', 'replaced', 'synced'].includes(r.landed),
      )
      expect(inside.length).toBeGreaterThan(0)
    }, 120_000)
  },
)
