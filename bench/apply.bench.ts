// Decides how patchloom's verification and apply cost compare with `git apply` and GNU `patch` on
// the same change. Whole-process rows (git, patch, the patchloom CLI) are spawned per iteration,
// so they compare like with like; in-process rows time a warm engine (inline and pool routes) on
// the same unified patch and on the Codex form of the same change. Every cell is a median and a
// ratio to `git apply` measured in the same run. Before timing, each route's result is compared
// with git's, so the rows are known to do the same work.
// Run: npm run build && node dist/bench/apply.bench.js   (tables paste into bench/RESULTS.md)
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Bench } from 'tinybench'
// The internal engine: its requests take `route` (inline vs worker threads), which this bench compares.
import { createEngineWithInternals, type InternalEngine } from '../src/engine/engine.js'
import { snapshotCli } from './cli-snapshot.js'
import {
  codexFromChanges,
  generateWorkspace,
  signatureChanges,
  unifiedFromChanges,
  writeWorkspace,
  type Workspace,
  type Size,
} from './generate.js'
import {
  kib,
  loadLine,
  machineLine,
  markdownTable,
  ms,
  p50,
  printFailures,
  ratio,
} from './report.js'

const SIZES: readonly Size[] = [
  { files: 1, lines: 200, hunks: 2 },
  { files: 10, lines: 2_000, hunks: 4 },
  { files: 50, lines: 2_000, hunks: 4 },
  { files: 200, lines: 500, hunks: 2 },
]

/** Spawned rows take hundreds of ms: at least 8 samples each (fast rows get 500 ms' worth) keeps
 * the whole bench near 3 minutes on 2 cores. */
const OPTIONS = { time: 500, iterations: 8, warmupTime: 100, warmupIterations: 1 }

// dist/bench/apply.bench.js -> repo root
const REPO = fileURLToPath(new URL('../../', import.meta.url))
const NODE = process.execPath
/** The CLI entry point in the private snapshot (see snapshotCli); set in main(). */
let CLI = path.join(REPO, 'bin', 'patchloom.js')

/**
 * Copies the built CLI (bin/, the dist/cli bundle, dist/src, dist/workers, package.json;
 * node_modules linked) into the scratch directory and returns its entry point. Others rebuild
 * the shared dist/ while this bench runs; a spawned CLI must not load a half-written module
 * mid-table. The bundle finds the worker and the language-server host under dist/ by URL
 * (src/compiled-file.ts), so those stay beside it.
 */
/** Runs a command to completion; a non-zero exit fails the task (a broken row must not look fast). */
function run(command: string, args: readonly string[], cwd: string): void {
  const child = spawnSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] })
  if (child.status !== 0) {
    // The error line, not the stack's first line (which only names the throwing file).
    const lines = (child.stderr?.toString() ?? '').split('\n').map((l) => l.trim())
    const reason = lines.find((l) => /error|fatal|failed|rejected/i.test(l)) ?? lines[0] ?? ''
    throw new Error(`${path.basename(command)} ${args.join(' ')} exited ${child.status}: ${reason}`)
  }
}

interface Setup {
  readonly size: Size
  readonly root: string
  readonly ws: Workspace
  readonly unifiedFile: string
  readonly codexFile: string
  readonly unified: string
  readonly codex: string
  readonly engine: InternalEngine
  /** The same workspace with durability 'fast' (no fsync). */
  readonly fastEngine: InternalEngine
  /** Writes every workspace file back to its generated content. */
  readonly reset: () => void
}

async function prepare(size: Size, scratch: string, index: number): Promise<Setup> {
  const root = path.join(scratch, `ws${index}`)
  const ws = generateWorkspace(size.files, size.lines, 7)
  await writeWorkspace(root, ws)
  run('git', ['init', '-q'], root)
  const changes = signatureChanges(ws, size.files, size.hunks)
  const unified = unifiedFromChanges(changes)
  const codex = codexFromChanges(changes)
  // Patch files live outside the workspace so no tool sees them as part of it.
  const unifiedFile = path.join(scratch, `ws${index}.diff`)
  const codexFile = path.join(scratch, `ws${index}.codex`)
  await writeFile(unifiedFile, unified)
  await writeFile(codexFile, codex)
  const contents = ws.files.map(
    (f) => [path.join(root, f.path), f.lines.join('\n') + '\n'] as const,
  )
  const reset = () => {
    for (const [file, text] of contents) writeFileSync(file, text)
  }
  const engine = createEngineWithInternals({ root, workers: { minThreads: 2, maxThreads: 2 } })
  const fastEngine = createEngineWithInternals({ root, workers: false, durability: 'fast' })
  // Start the threads before timing, as a long-running engine would have them.
  await engine.check(unified, { route: 'pool' })
  return { size, root, ws, unifiedFile, codexFile, unified, codex, engine, fastEngine, reset }
}

async function treeHash(s: Setup): Promise<string> {
  const hash = createHash('sha256')
  for (const file of s.ws.files) hash.update(await readFile(path.join(s.root, file.path)))
  return hash.digest('hex')
}

/** Applies the change once per route and compares the tree with git's; returns mismatching routes. */
async function sameResultAsGit(s: Setup, others: readonly FloorCli[] = []): Promise<string[]> {
  s.reset()
  run('git', ['apply', s.unifiedFile], s.root)
  const expected = await treeHash(s)
  const routes: [string, () => Promise<unknown>][] = [
    ['patch -p1', async () => run('patch', ['-p1', '-s', '-i', s.unifiedFile], s.root)],
    ['engine unified', () => s.engine.apply(s.unified, { format: 'unified' })],
    ['engine codex', () => s.engine.apply(s.codex, { format: 'codex' })],
    ['engine unified fast', () => s.fastEngine.apply(s.unified, { format: 'unified' })],
    [
      'CLI unified',
      async () =>
        run(NODE, [CLI, 'apply', s.unifiedFile, '--root', s.root, '--format', 'unified'], s.root),
    ],
    ...others.map((cli): [string, () => Promise<unknown>] => [
      `CLI unified (${cli.label})`,
      async () =>
        run(
          NODE,
          [cli.entry, 'apply', s.unifiedFile, '--root', s.root, '--format', 'unified'],
          s.root,
        ),
    ]),
  ]
  const wrong: string[] = []
  for (const [name, apply] of routes) {
    s.reset()
    try {
      await apply()
      if ((await treeHash(s)) !== expected) wrong.push(`${name} (different result)`)
    } catch (error) {
      wrong.push(
        `${name} (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
      )
    }
  }
  s.reset()
  return wrong
}

// Tasks say whether they are async: left to guess, tinybench calls the function once when it is
// added, which would start an untimed, unawaited apply racing the first timed one.
const SYNC = { async: false } as const
const ASYNC = { async: true } as const

/** The one-shot CLI's small edit: one hunk in one 2,000-line file. */
const FLOOR_SIZE: Size = { files: 1, lines: 2_000, hunks: 1 }

/**
 * Floor rounds: each round runs every floor row once, in turn, so load from other work on the
 * machine falls on all rows (and on both CLIs with --baseline) alike; the median of 25 rounds of
 * ~100 ms processes costs about 10 s per CLI. Not tinybench: it runs one task's samples before
 * the next task's, and a load spike between two tasks then reads as a difference between them.
 */
const FLOOR_ROUNDS = 25

const FLOOR_ROWS = [
  'node -e 0 (process floor)',
  'patchloom --version (CLI floor)',
  'CLI check, one file',
  'CLI apply --durability fast, one file',
] as const

/** A CLI whose floors are measured: this build's snapshot, or a --baseline checkout's. */
interface FloorCli {
  readonly label: string
  readonly entry: string
}

/**
 * What any spawned node process costs on this machine, what the CLI costs before it reads a
 * patch, and what a one-file check and apply cost whole process: the p50 of each row (named
 * `row` for node, `row label` per CLI), rows interleaved round by round. The workspace is reset
 * before every check and apply, untimed. A failing command throws: a broken row never reads fast.
 */
function measureFloors(s: Setup, clis: readonly FloorCli[]): Map<string, FloorResult> {
  const { root, unifiedFile } = s
  const args = ['--root', root, '--format', 'unified']
  const rows: [string, readonly string[]][] = [[FLOOR_ROWS[0], ['-e', '0']]]
  for (const cli of clis) {
    rows.push([`${FLOOR_ROWS[1]} ${cli.label}`, [cli.entry, '--version']])
    rows.push([`${FLOOR_ROWS[2]} ${cli.label}`, [cli.entry, 'check', unifiedFile, ...args]])
    rows.push([
      `${FLOOR_ROWS[3]} ${cli.label}`,
      [cli.entry, 'apply', unifiedFile, ...args, '--durability', 'fast'],
    ])
  }
  const times = new Map<string, number[]>(rows.map(([name]) => [name, []]))
  const cpu = new Map<string, number>(rows.map(([name]) => [name, 0]))
  // One untimed round first: the page cache and the journal's key file are then warm for all.
  for (let round = 0; round <= FLOOR_ROUNDS; round++) {
    for (const [name, argv] of rows) {
      s.reset()
      const cpuBefore = childrenCpuMs()
      const start = performance.now()
      run(NODE, argv, root)
      if (round === 0) continue
      times.get(name)?.push(performance.now() - start)
      cpu.set(name, (cpu.get(name) ?? 0) + childrenCpuMs() - cpuBefore)
    }
  }
  s.reset()
  return new Map(
    [...times].map(([name, t]) => [
      name,
      { p50: median(t), cpuMean: (cpu.get(name) ?? Number.NaN) / FLOOR_ROUNDS },
    ]),
  )
}

interface FloorResult {
  readonly p50: number
  /** Mean CPU time (user + system, all threads) per run; NaN where /proc is not readable. */
  readonly cpuMean: number
}

/**
 * CPU time of this process's exited children (cutime + cstime in /proc/self/stat, Linux, in
 * ticks of 10 ms: USER_HZ is 100 on Linux). Less moved by other work on the machine than wall
 * time, which waits for a core; summed over all rounds, its 10 ms grain averages out.
 */
function childrenCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    // Fields after the command name, which may contain spaces; cutime and cstime are fields
    // 16 and 17 of the whole line, so 13 and 14 of these (which start at field 3).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[13]) + Number(fields[14])) * 10
  } catch {
    return Number.NaN
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/**
 * Rows are floors; per CLI, the p50 wall time, its excess over `node -e 0`, and the mean CPU time
 * per run (a second view when the machine is loaded).
 */
function floorTable(results: ReadonlyMap<string, FloorResult>, clis: readonly FloorCli[]): string {
  const node = results.get(FLOOR_ROWS[0])
  const header = [
    'row',
    ...clis.flatMap((c) => [`p50 ms ${c.label}`, 'over node -e 0', `CPU ms ${c.label}`]),
  ]
  const body = FLOOR_ROWS.map((row, i) => [
    row,
    ...clis.flatMap((c) => {
      const result = i === 0 ? node : results.get(`${row} ${c.label}`)
      const p50 = result?.p50 ?? Number.NaN
      const over = i === 0 ? '-' : `+${ms(p50 - (node?.p50 ?? Number.NaN))}`
      return [ms(p50), over, ms(result?.cpuMean ?? Number.NaN)]
    }),
  ])
  return markdownTable(header, body)
}

const CHECK_ROWS = [
  'git apply --check',
  'patch -p1 --dry-run',
  'CLI check --format unified',
  'CLI check --format unified --no-workers',
  'CLI check --format codex',
  'engine.check unified, inline',
  'engine.check unified, pool',
  'engine.check codex, inline',
  'engine.check codex, pool',
] as const

function checkBench(s: Setup): Bench {
  const bench = new Bench(OPTIONS)
  const { root, unifiedFile, codexFile, engine } = s
  const cli =
    (...args: string[]) =>
    () =>
      run(NODE, [CLI, ...args, '--root', root], root)
  bench.add(CHECK_ROWS[0], () => run('git', ['apply', '--check', unifiedFile], root), SYNC)
  bench.add(
    CHECK_ROWS[1],
    () => run('patch', ['-p1', '-s', '--dry-run', '-i', unifiedFile], root),
    SYNC,
  )
  bench.add(CHECK_ROWS[2], cli('check', unifiedFile, '--format', 'unified'), SYNC)
  bench.add(CHECK_ROWS[3], cli('check', unifiedFile, '--format', 'unified', '--no-workers'), SYNC)
  bench.add(CHECK_ROWS[4], cli('check', codexFile, '--format', 'codex'), SYNC)
  const check =
    (input: string, format: 'unified' | 'codex', route: 'inline' | 'pool') => async () => {
      await engine.check(input, { format, route })
    }
  bench.add(CHECK_ROWS[5], check(s.unified, 'unified', 'inline'), ASYNC)
  bench.add(CHECK_ROWS[6], check(s.unified, 'unified', 'pool'), ASYNC)
  bench.add(CHECK_ROWS[7], check(s.codex, 'codex', 'inline'), ASYNC)
  bench.add(CHECK_ROWS[8], check(s.codex, 'codex', 'pool'), ASYNC)
  return bench
}

const APPLY_ROWS = [
  'git apply',
  'patch -p1',
  'CLI apply --format unified',
  'CLI apply --format unified --no-workers',
  'engine.apply unified, inline',
  'engine.apply unified, pool',
  'engine.apply codex, inline',
  'engine.apply unified, inline, durability fast',
  'CLI apply --format unified --durability fast',
] as const

/** Actual writes: every iteration starts from the generated files (reset outside the timing). */
function applyBench(s: Setup): Bench {
  const bench = new Bench(OPTIONS)
  const { root, unifiedFile, engine } = s
  const beforeEach = s.reset
  const cli =
    (...args: string[]) =>
    () =>
      run(NODE, [CLI, 'apply', unifiedFile, '--root', root, '--format', 'unified', ...args], root)
  const apply =
    (input: string, format: 'unified' | 'codex', route: 'inline' | 'pool') => async () => {
      await engine.apply(input, { format, route })
    }
  bench.add(APPLY_ROWS[0], () => run('git', ['apply', unifiedFile], root), { ...SYNC, beforeEach })
  bench.add(APPLY_ROWS[1], () => run('patch', ['-p1', '-s', '-i', unifiedFile], root), {
    ...SYNC,
    beforeEach,
  })
  bench.add(APPLY_ROWS[2], cli(), { ...SYNC, beforeEach })
  bench.add(APPLY_ROWS[3], cli('--no-workers'), { ...SYNC, beforeEach })
  bench.add(APPLY_ROWS[4], apply(s.unified, 'unified', 'inline'), { ...ASYNC, beforeEach })
  bench.add(APPLY_ROWS[5], apply(s.unified, 'unified', 'pool'), { ...ASYNC, beforeEach })
  bench.add(APPLY_ROWS[6], apply(s.codex, 'codex', 'inline'), { ...ASYNC, beforeEach })
  bench.add(
    APPLY_ROWS[7],
    async () => {
      await s.fastEngine.apply(s.unified, { format: 'unified', route: 'inline' })
    },
    { ...ASYNC, beforeEach },
  )
  bench.add(APPLY_ROWS[8], cli('--durability', 'fast'), { ...SYNC, beforeEach })
  return bench
}

function label(s: Setup): string {
  const { files, lines, hunks } = s.size
  const bytes = s.ws.files.reduce((sum, f) => sum + f.lines.join('\n').length + 1, 0)
  return `${files} x ${lines} lines, ${files * hunks} hunks (${kib(bytes)} KiB, diff ${kib(s.unified.length)} KiB)`
}

/** Rows are tools, columns are workspaces; each cell is "p50 ms (ratio to the baseline row)". */
function table(
  rows: readonly string[],
  setups: readonly Setup[],
  benches: readonly Bench[],
): string {
  const baseline = rows[0] as string
  const body = rows.map((row) => [
    row,
    ...benches.map((bench) => {
      const value = p50(bench, row)
      return `${ms(value)} (${ratio(value, p50(bench, baseline))})`
    }),
  ])
  return markdownTable(['p50 ms (x ' + baseline + ')', ...setups.map(label)], body)
}

/**
 * `--floors`: only the floors table. `--baseline DIR`: also measure the floors of the CLI built in
 * another checkout (DIR/bin/patchloom.js, e.g. main before a start-up change), in the same run.
 */
function floorArgs(argv: readonly string[]): { only: boolean; baseline: string | null } {
  const at = argv.indexOf('--baseline')
  const dir = at === -1 ? null : argv[at + 1]
  if (dir === undefined) throw new Error('--baseline needs a directory')
  return { only: argv.includes('--floors'), baseline: dir === null ? null : path.resolve(dir) }
}

export async function main(): Promise<void> {
  const flags = floorArgs(process.argv.slice(2))
  console.log(`## apply.bench\n\n${machineLine()}\n`)
  const scratch = await mkdtemp(path.join(tmpdir(), 'patchloom-apply-bench-'))
  const setups: Setup[] = []
  let floorSetup: Setup | undefined
  try {
    CLI = await snapshotCli(REPO, path.join(scratch, 'cli'))
    const clis: FloorCli[] = [{ label: 'this build', entry: CLI }]
    if (flags.baseline !== null)
      clis.push({ label: 'baseline', entry: path.join(flags.baseline, 'bin', 'patchloom.js') })
    floorSetup = await prepare(FLOOR_SIZE, scratch, SIZES.length)
    if (!flags.only)
      for (const [index, size] of SIZES.entries()) setups.push(await prepare(size, scratch, index))
    for (const s of [floorSetup, ...setups]) {
      const wrong = await sameResultAsGit(s, s === floorSetup ? clis.slice(1) : [])
      if (wrong.length > 0)
        console.log(`> ${label(s)}: result differs from git apply: ${wrong.join('; ')}`)
    }

    const floors = measureFloors(floorSetup, clis)
    console.log(`### process floors (${label(floorSetup)}, p50 of ${FLOOR_ROUNDS} rounds)\n`)
    if (flags.baseline !== null) console.log(`baseline: ${flags.baseline}\n`)
    console.log(floorTable(floors, clis))
    console.log(`\n${loadLine()}\n`)
    if (flags.only) return

    const checks: Bench[] = []
    for (const s of setups) {
      const bench = checkBench(s)
      await bench.run()
      checks.push(bench)
    }
    console.log('### verify only (nothing written)\n')
    console.log(table(CHECK_ROWS, setups, checks))
    for (const bench of checks) printFailures(bench)
    console.log(`\n${loadLine()}\n`)

    const applies: Bench[] = []
    for (const s of setups) {
      const bench = applyBench(s)
      await bench.run()
      applies.push(bench)
      s.reset()
    }
    console.log('### apply (files written; workspace reset before each iteration, untimed)\n')
    console.log(table(APPLY_ROWS, setups, applies))
    for (const bench of applies) printFailures(bench)
    console.log(`\n${loadLine()}`)
  } finally {
    for (const s of floorSetup === undefined ? setups : [floorSetup, ...setups])
      await Promise.all([s.engine.close(), s.fastEngine.close()])
    await rm(scratch, { recursive: true, force: true, maxRetries: 3 })
  }
}

await main()
