// Decides whether the journal's all-or-nothing promise holds against kill -9 (the target:
// 0 torn transactions in 1,000 trials). Runs the SIGKILL harness of ./crash-harness.ts: point
// kills at every instrumented journal point (and inside recovery), then random-delay kills for
// the rest of --trials; prints markdown for bench/RESULTS.md and exits 1 if anything is torn or
// the harness itself failed (a point never reached, a child error).
// Run: npm run build && node dist/bench/crash.js [--trials 1000] [--seed 1] [--durability full]
//      [--jobs 2] [--coverage all|edges] [--only '<plan>'] [--keep-torn]
import { execFileSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Durability } from '../src/journal/records.js'
import {
  calibrate,
  callPlans,
  COMMIT_POINTS,
  crashFixture,
  delayPlans,
  describeKill,
  describePlan,
  median,
  parsePlan,
  pointPlans,
  prepareSetup,
  runTrials,
  spread,
  tally,
  type Kill,
  type KillPlan,
  type TrialResult,
} from './crash-harness.js'
import { markdownTable } from './report.js'

interface Args {
  trials: number
  seed: number
  durability: Durability
  jobs: number
  coverage: 'all' | 'edges'
  only: string | undefined
  keepTorn: boolean
  calibrationRuns: number
}

const USAGE =
  'usage: node dist/bench/crash.js [--trials N] [--seed S] [--durability full|fast] [--jobs J] ' +
  "[--coverage all|edges] [--calibration-runs N] [--only '<plan>'] [--keep-torn]"

function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    trials: 1000,
    seed: 1,
    durability: 'full',
    jobs: Math.min(2, availableParallelism()),
    coverage: 'all',
    only: undefined,
    keepTorn: false,
    calibrationRuns: 5,
  }
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]
    const value = (): string => {
      const v = argv[++i]
      if (v === undefined) throw new Error(`${flag} needs a value\n${USAGE}`)
      return v
    }
    const int = (min: number): number => {
      const n = Number(value())
      if (!Number.isInteger(n) || n < min) throw new Error(`${flag} must be an integer >= ${min}`)
      return n
    }
    if (flag === '--trials') args.trials = int(0)
    else if (flag === '--seed') args.seed = int(0)
    else if (flag === '--jobs') args.jobs = int(1)
    else if (flag === '--calibration-runs') args.calibrationRuns = int(1)
    else if (flag === '--keep-torn') args.keepTorn = true
    else if (flag === '--only') args.only = value()
    else if (flag === '--durability') {
      const v = value()
      if (v !== 'full' && v !== 'fast') throw new Error(`--durability must be full or fast`)
      args.durability = v
    } else if (flag === '--coverage') {
      const v = value()
      if (v !== 'all' && v !== 'edges') throw new Error(`--coverage must be all or edges`)
      args.coverage = v
    } else throw new Error(`unknown flag ${String(flag)}\n${USAGE}`)
  }
  return args
}

/** The filesystem type under `dir` (GNU df names ext4 where stat -f says ext2/ext3). */
function fsType(dir: string): string {
  try {
    const out = execFileSync('df', ['--output=fstype', dir], { encoding: 'utf8' })
    return out.trim().split('\n').pop()?.trim() ?? '?'
  } catch {
    return 'unknown filesystem'
  }
}

const f1 = (ms: number): string =>
  Number.isNaN(ms) ? '-' : ms < 10 ? ms.toFixed(2) : ms.toFixed(1)

/** Which phase of the commit the last point the child passed puts a random kill in. */
function phaseOf(landed: string): string {
  switch (landed) {
    case 'launch':
    case 'start':
      return 'verifying (no journal point yet)'
    case 'locked':
    case 'staged':
    case 'backed-up':
      return 'preparing (locked .. backed-up)'
    case 'prepared':
    case 'replaced':
      return 'replacing (prepared .. replaced)'
    case 'synced':
      return 'marking (synced, before the rename)'
    case 'marked':
      return 'committed, pruning (marked)'
    case 'cleaned':
      return 'committed, returning (cleaned)'
    default:
      return 'finished before the kill'
  }
}

const PHASES = [
  'verifying (no journal point yet)',
  'preparing (locked .. backed-up)',
  'replacing (prepared .. replaced)',
  'marking (synced, before the rename)',
  'committed, pruning (marked)',
  'committed, returning (cleaned)',
  'finished before the kill',
]

function row(label: string, results: readonly TrialResult[], extra: string[] = []): string[] {
  const t = tally(results)
  return [label, String(t.trials), String(t.before), String(t.after), String(t.torn), ...extra]
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2))
  const only = args.only === undefined ? undefined : parsePlan(args.only)
  if (args.only !== undefined && only === undefined)
    throw new Error(`--only: cannot read the plan ${args.only}`)
  const childScript = fileURLToPath(new URL('./crash-child.js', import.meta.url))
  const workDir = await mkdtemp(path.join(tmpdir(), 'patchloom-crash-'))
  const wallStart = performance.now()
  let keepWorkDir = false
  try {
    const fixture = crashFixture(args.seed)
    const setup = await prepareSetup({
      childScript,
      durability: args.durability,
      fixture,
      workDir,
      keepTorn: args.keepTorn,
    })
    const [one, five] = loadavg()
    console.log(`## crash harness (durability ${args.durability})\n`)
    console.log(
      `date ${new Date().toISOString()}, cpus ${availableParallelism()}, node ${process.version}, ` +
        `${fsType(workDir)} under ${tmpdir()}, loadavg 1m ${one?.toFixed(2)} 5m ${five?.toFixed(2)}`,
    )
    const cmd = process.argv.slice(2).join(' ')
    console.log(`command: node dist/bench/crash.js${cmd === '' ? '' : ' ' + cmd}\n`)

    const cal = await calibrate(setup, args.calibrationRuns, args.jobs)
    const steps = cal.indices.get('replaced')?.length ?? 0
    const c = fixture.counts
    console.log(
      `fixture (seed ${args.seed}): ${fixture.before.length} files, one Codex patch of ` +
        `${c.updates} updates (one CRLF), ${c.moves} moves with an edit (one executable), ` +
        `${c.deletes} deletes, ${c.adds} adds into new directories: ${steps} journal steps, ` +
        `${fixture.paths.length} paths checked, patch ${(fixture.patch.length / 1024).toFixed(0)} KiB.`,
    )
    const commits = cal.runs.map((r) => r.markedMs - r.lockedMs)
    console.log(
      `timing (${cal.runs.length} unkilled child runs, ${args.jobs} at a time, ms from the child's start line): ` +
        `locked ${f1(cal.lockedMs)}, prepared ${f1(cal.preparedMs)}, synced ${f1(cal.syncedMs)}, ` +
        `marked ${f1(cal.markedMs)}, cleaned ${f1(cal.cleanedMs)} (p50 each); commit (locked -> marked) p50 ${f1(cal.commitMs)} ` +
        `(min ${f1(Math.min(...commits))}, max ${f1(Math.max(...commits))}); ` +
        `full rollback by a recovery child p50 ${f1(cal.recoveryMs)}. A commit makes ` +
        `${cal.applyCalls.length} journal filesystem calls, a full rollback ` +
        `${cal.recoveryCalls.length}.\n`,
    )

    let plans: KillPlan[]
    const allCalls = callPlans(cal, () => true)
    if (only !== undefined) {
      plans = [only]
    } else {
      // Points first, then filesystem calls (evenly spread, up to half of what is left), then
      // random delays for the rest.
      let points = pointPlans(cal, args.coverage)
      if (points.length > args.trials / 2) points = pointPlans(cal, 'edges')
      const callBudget = args.coverage === 'all' ? Math.floor((args.trials - points.length) / 2) : 0
      const calls = spread(allCalls, Math.max(0, callBudget))
      const random = delayPlans(
        cal,
        Math.max(0, args.trials - points.length - calls.length),
        args.seed,
      )
      plans = [...points, ...calls, ...random]
    }
    const results = await runTrials(setup, plans, args.jobs, (_r, done) => {
      if (done % 50 === 0 || done === plans.length)
        process.stderr.write(`crash: ${done}/${plans.length} trials\n`)
    })

    const applyKill = (r: TrialResult): Kill | undefined =>
      r.plan.kind === 'at' ? r.plan.apply : undefined
    const recoveryKills = (r: TrialResult): readonly Kill[] =>
      r.plan.kind === 'at' ? (r.plan.recovery ?? []) : []
    const random = results.filter((r) => r.plan.kind === 'delay')
    const atPoint = results.filter((r) => {
      const kill = applyKill(r)
      return kill !== undefined && 'point' in kill && recoveryKills(r).length === 0
    })
    const inRecoveryAtPoint = results.filter((r) => recoveryKills(r).some((k) => 'point' in k))
    const afterApplyCall = results.filter((r) => {
      const kill = applyKill(r)
      return kill !== undefined && 'call' in kill
    })
    const afterRecoveryCall = results.filter((r) => recoveryKills(r).some((k) => 'call' in k))
    const problems = results.filter((r) => r.problems.length > 0)
    console.log('### outcomes\n')
    console.log(
      markdownTable(
        ['kill', 'trials', 'before', 'after', 'torn'],
        [
          row(
            'random delay',
            random.filter((r) => r.recoveryKilled === 0),
          ),
          row(
            'random delay, then recovery killed at a random delay',
            random.filter((r) => r.recoveryKilled > 0),
          ),
          row('at a commit point', atPoint),
          row('at a commit point, then recovery killed at its points', inRecoveryAtPoint),
          row('after a journal fs call of the commit', afterApplyCall),
          row('at synced, then recovery killed after one of its fs calls', afterRecoveryCall),
          row('**all**', results),
        ],
      ),
    )
    const recoveryKilled = results.reduce((n, r) => n + r.recoveryKilled, 0)
    const finishedFirst = random.filter((r) => !r.killed).length
    console.log(
      `\nrecovery children killed: ${recoveryKilled}; random-delay children that finished before ` +
        `their kill: ${finishedFirst}; harness problems (not tears): ${tally(results).problems}.\n`,
    )

    console.log('### kill-point coverage\n')
    const coverage: string[][] = []
    for (const point of COMMIT_POINTS) {
      const hit = atPoint.filter((r) => {
        const kill = applyKill(r)
        return kill !== undefined && 'point' in kill && kill.point === point
      })
      const indices = new Set(hit.map((r) => describePlan(r.plan)))
      const fired = cal.indices.get(point)?.length ?? 0
      coverage.push(row(point, hit, [`${indices.size}/${fired}`]))
    }
    const restored = new Set(
      inRecoveryAtPoint.flatMap((r) => recoveryKills(r).map((k) => describeKill(k))),
    )
    coverage.push(
      row('recovery-restored', inRecoveryAtPoint, [`${restored.size}/${cal.restoredOrder.length}`]),
    )
    coverage.push(
      row('journal fs calls of the commit', afterApplyCall, [
        `${afterApplyCall.length}/${cal.applyCalls.length}`,
      ]),
    )
    coverage.push(
      row('journal fs calls of a full rollback', afterRecoveryCall, [
        `${afterRecoveryCall.length}/${cal.recoveryCalls.length}`,
      ]),
    )
    console.log(
      markdownTable(['point', 'trials', 'before', 'after', 'torn', 'killed at'], coverage),
    )
    console.log(
      '\n"killed at" counts the distinct indices (calls) killed at, out of those an unkilled run ' +
        'passed (staged fires only for writes; recovery-restored counts the steps a full rollback ' +
        'restores).\n',
    )

    if (random.length > 0) {
      console.log('### where the random kills landed (the last point the child passed)\n')
      console.log(
        markdownTable(
          ['phase', 'trials', 'before', 'after', 'torn'],
          PHASES.map((phase) =>
            row(
              phase,
              random.filter((r) => phaseOf(r.landed) === phase),
            ),
          ),
        ),
      )
      console.log('')
    }

    const wallS = (performance.now() - wallStart) / 1000
    const [endLoad] = loadavg()
    console.log(
      `trial p50 ${f1(median(results.map((r) => r.ms)))} ms (jobs ${args.jobs}); ` +
        `wall time ${wallS.toFixed(0)} s; loadavg 1m at end: ${endLoad?.toFixed(2)}`,
    )
    const t = tally(results)
    console.log(`\n**${t.torn} torn of ${t.trials} trials** (before ${t.before}, after ${t.after})`)
    for (const r of problems.slice(0, 20)) {
      console.log(`\n> ${r.outcome === 'torn' ? 'TORN' : 'problem'}: ${describePlan(r.plan)}`)
      for (const p of r.problems) console.log(`>   ${p}`)
      console.log(
        `>   reproduce: node dist/bench/crash.js --durability ${args.durability} --seed ${args.seed} --only '${describePlan(r.plan)}' --keep-torn`,
      )
    }
    keepWorkDir = args.keepTorn && t.torn > 0
    return t.torn > 0 || problems.length > 0 ? 1 : 0
  } finally {
    if (!keepWorkDir) await rm(workDir, { recursive: true, force: true }).catch(() => undefined)
  }
}

process.exitCode = await main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  return 2
})
