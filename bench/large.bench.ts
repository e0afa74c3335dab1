// Decides whether patchloom applies large changes at the speed of git: a seeded
// repository of N files x 300 lines (N = 100, 1,000, 10,000, nested directories) committed with
// real git on tmpfs, 10 hunks changed in every file, the patch taken from real `git diff` and the
// same change written as a Codex patch. Whole-process rows spawn each tool as a user runs it, from
// the same starting tree (`git reset --hard`, untimed, before every run); in-process rows time a
// warm engine per route; the verify phase is timed on 1 and 2 pool threads. Before anything is
// timed, every route's tree is compared with `git apply`'s (`git add -A && git write-tree` on a
// scratch index): a mismatch prints a `> mismatch` line, fails its row and makes the exit status 1.
// Also printed: peak RSS of each patchloom CLI row against the bytes it had to hold, time per file
// from 100 to 10,000 files, and two SVG charts (bench/svg.ts) written to --out.
// Does not: time GNU patch's dry run, string edits or small edits (other benches), or judge any
// number (people read the tables; timings are never asserted).
// Run: npm run bench:large   or   npm run build && node dist/bench/large.bench.js [flags]
//   --files 100,1000,10000  sizes (files per repository)   --lines 300   --hunks 10
//   --samples K  (default 9 / 5 / 3 for up to 100 / 1,000 / more files)
//   --quick      10 and 20 files x 40 lines, 3 hunks, 1 sample (CI: test/e2e/large-bench.test.ts)
//   --out DIR    where the SVGs go (default bench/ in the repository)
//   --scratch DIR  parent of the scratch repositories (default /dev/shm, else the temp dir)
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { DEFAULT_LIMITS } from '../src/defaults.js'
// The internal engine: its requests take `route`, whose choices this bench times.
import {
  createEngineWithInternals,
  type InternalApplyOptions,
  type InternalEngine,
} from '../src/engine/engine.js'
import type { ApplyResult, LimitOptions, Logger } from '../src/index.js'
import { codexFromChanges, workspaceBytes, type Size, type Workspace } from './generate.js'
import { failureReason, generatedChange, git, GIT_ENV, worktreeTree } from './generated-repo.js'
import { loadLine, machineLine, markdownTable, median, mib, ms, ratio } from './report.js'
import { snapshotCli } from './cli-snapshot.js'
import { lineChartSvg, type Series } from './svg.js'

// dist/bench/large.bench.js -> repo root
const REPO = fileURLToPath(new URL('../../', import.meta.url))
const NODE = process.execPath
const READ_FLOOR = fileURLToPath(new URL('./read-floor.js', import.meta.url))
const EXACT_FLOOR = fileURLToPath(new URL('./exact-floor.js', import.meta.url))
const SEED = 9

// ---- flags ----------------------------------------------------------------------------------

interface Flags {
  readonly files: readonly number[]
  readonly lines: number
  readonly hunks: number
  /** null: by size (samplesFor). */
  readonly samples: number | null
  readonly out: string
  readonly scratch: string
}

function usage(message: string): never {
  console.error(`large.bench: ${message}`)
  process.exit(64)
}

function positive(flag: string, value: string | undefined): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0) usage(`${flag} needs a positive integer, got ${value}`)
  return n
}

function parseFlags(argv: readonly string[]): Flags {
  let files = [100, 1_000, 10_000]
  let lines = 300
  let hunks = 10
  let samples: number | null = null
  let out = path.join(REPO, 'bench')
  let scratch = existsSync('/dev/shm') ? '/dev/shm' : tmpdir()
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string
    const value = () => {
      const v = argv[++i]
      if (v === undefined) usage(`${flag} needs a value`)
      return v
    }
    if (flag === '--quick') {
      files = [10, 20]
      lines = 40
      hunks = 3
      samples = 1
    } else if (flag === '--files')
      files = value()
        .split(',')
        .map((v) => positive(flag, v))
    else if (flag === '--lines') lines = positive(flag, value())
    else if (flag === '--hunks') hunks = positive(flag, value())
    else if (flag === '--samples') samples = positive(flag, value())
    else if (flag === '--out') out = path.resolve(value())
    else if (flag === '--scratch') scratch = path.resolve(value())
    else usage(`unknown flag ${flag}`)
  }
  return { files: [...files].sort((a, b) => a - b), lines, hunks, samples, out, scratch }
}

/** More samples where a run is short: medians of 9 / 5 / 3. */
function samplesFor(flags: Flags, files: number): number {
  return flags.samples ?? (files <= 100 ? 9 : files <= 1_000 ? 5 : 3)
}

// ---- processes ------------------------------------------------------------------------------

/** Runs a command to completion and returns its wall time (ms); a non-zero exit throws. */
function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = GIT_ENV,
): number {
  const started = performance.now()
  const child = spawnSync(command, args, {
    cwd,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  })
  const elapsed = performance.now() - started
  if (child.status !== 0) {
    const why = child.error?.message ?? failureReason(child.stderr?.toString() ?? '')
    throw new Error(`${path.basename(command)} exited ${child.status}: ${why}`)
  }
  return elapsed
}

/** The CLI snapshot (cli-snapshot.ts) plus the RSS preload; returns both entry points. */
async function snapshotCliWithPreload(scratch: string): Promise<{ cli: string; preload: string }> {
  const dest = path.join(scratch, 'cli')
  const cli = await snapshotCli(REPO, dest, ['dist/bench/peak-rss.js'])
  return { cli, preload: pathToFileURL(path.join(dest, 'dist', 'bench', 'peak-rss.js')).href }
}

// ---- the repository and its patches -----------------------------------------------------------

interface Setup {
  readonly size: Size
  readonly scratch: string
  readonly root: string
  readonly ws: Workspace
  readonly unifiedFile: string
  readonly codexFile: string
  readonly unified: string
  readonly codex: string
  /** Bytes of the files the change touches, before it (every file here). */
  readonly touchedBytes: number
  /** HEAD's tree: where every check route must leave the workspace. */
  readonly headTree: string
  /** The generator's own after-tree (git apply's must equal it). */
  readonly changedTree: string
  /** CLI flags past the default limits this patch needs (empty once the defaults admit it). */
  readonly limitArgs: readonly string[]
  readonly limits: LimitOptions
  readonly generateMs: number
}

/** Back to HEAD, outside the timing: changed files rewritten, the CLI's journal removed. */
function reset(s: Setup, journal: boolean): void {
  git(['reset', '--hard', '-q'], s.root)
  if (journal) rmSync(path.join(s.root, '.patchloom'), { recursive: true, force: true })
}

async function prepare(size: Size, scratchRoot: string): Promise<Setup> {
  const started = performance.now()
  const made = await generatedChange(scratchRoot, size.files, size.lines, size.hunks, SEED)
  const { scratch, root, ws, changes, headTree, changedTree, unified } = made
  const unifiedFile = made.diffFile
  const codexFile = path.join(scratch, 'change.codex')
  const codex = codexFromChanges(changes)
  await writeFile(codexFile, codex)

  // Raise a limit only where the default refuses this patch (and say so in the output).
  const patchBytes = Math.max(Buffer.byteLength(unified), Buffer.byteLength(codex))
  const limitArgs: string[] = []
  const limits: { maxPatchBytes?: number; maxFiles?: number } = {}
  if (patchBytes > DEFAULT_LIMITS.maxPatchBytes) {
    limits.maxPatchBytes = Math.ceil(patchBytes / (1 << 20)) << 20
    limitArgs.push('--max-patch-bytes', String(limits.maxPatchBytes))
  }
  if (size.files > DEFAULT_LIMITS.maxFiles) {
    limits.maxFiles = size.files
    limitArgs.push('--max-files', String(size.files))
  }
  return {
    size,
    scratch,
    root,
    ws,
    unifiedFile,
    codexFile,
    unified,
    codex,
    touchedBytes: workspaceBytes(ws),
    headTree,
    changedTree,
    limitArgs,
    limits,
    generateMs: performance.now() - started,
  }
}

// ---- whole-process routes ---------------------------------------------------------------------

interface ProcessRoute {
  readonly name: string
  /** apply routes must end at git apply's tree, check routes at HEAD's. */
  readonly kind: 'apply' | 'check'
  readonly patch: 'unified' | 'codex'
  /** A patchloom CLI run: its peak RSS is reported, its journal removed on reset. */
  readonly patchloom: boolean
  /** Command and arguments (the CLI's path stands in for `patchloom`). */
  readonly argv: (s: Setup, cli: string) => readonly string[]
}

const pl = (
  name: string,
  kind: 'apply' | 'check',
  patch: 'unified' | 'codex',
  ...extra: string[]
): ProcessRoute => ({
  name,
  kind,
  patch,
  patchloom: true,
  argv: (s, cli) => [
    NODE,
    cli,
    kind,
    patch === 'unified' ? s.unifiedFile : s.codexFile,
    '--root',
    s.root,
    '--format',
    patch,
    ...extra,
    ...s.limitArgs,
  ],
})

const APPLY_ROUTES: readonly ProcessRoute[] = [
  {
    name: 'git apply',
    kind: 'apply',
    patch: 'unified',
    patchloom: false,
    argv: (s) => ['git', 'apply', s.unifiedFile],
  },
  {
    name: 'patch -p1',
    kind: 'apply',
    patch: 'unified',
    patchloom: false,
    argv: (s) => ['patch', '-p1', '-s', '-i', s.unifiedFile],
  },
  pl('patchloom apply', 'apply', 'unified'),
  pl('patchloom apply --durability fast', 'apply', 'unified', '--durability', 'fast'),
  pl('patchloom apply --durability fast (Codex patch)', 'apply', 'codex', '--durability', 'fast'),
]

const CHECK_ROUTES: readonly ProcessRoute[] = [
  {
    name: 'git apply --check',
    kind: 'check',
    patch: 'unified',
    patchloom: false,
    argv: (s) => ['git', 'apply', '--check', s.unifiedFile],
  },
  {
    // Not a patch tool: node reading and hashing the touched files on two threads, nothing else.
    name: 'floor: node reads + hashes the files',
    kind: 'check',
    patch: 'unified',
    patchloom: false,
    argv: (s) => [NODE, READ_FLOOR, s.unifiedFile],
  },
  {
    // Not patchloom either: one pass per section with no line objects, for exact hunks only.
    name: 'floor: one pass per exact section',
    kind: 'check',
    patch: 'unified',
    patchloom: false,
    argv: (s) => [NODE, EXACT_FLOOR, s.unifiedFile],
  },
  pl('patchloom check', 'check', 'unified'),
  // A one-shot run verifies in its own thread (D-074); this row starts the pool for it anyway.
  pl('patchloom check --workers', 'check', 'unified', '--workers'),
  pl('patchloom check (Codex patch)', 'check', 'codex'),
]

const PROCESS_ROUTES = [...APPLY_ROUTES, ...CHECK_ROUTES]

/** Per route: median ms, or null (with the reason) when the route failed or mismatched. */
interface Measured {
  readonly ms: number
  readonly samples: number
  readonly error: string | null
}

const failed = (error: string): Measured => ({ ms: Number.NaN, samples: 0, error })

interface SizeResult {
  readonly setup: Setup
  readonly process: Map<string, Measured>
  /** Peak RSS (bytes) of each patchloom CLI route's verification run. */
  readonly rss: Map<string, number>
  readonly engine: Map<string, Measured>
  /** What route 'auto' took per engine row, when the engine says (null: not exposed). */
  readonly autoRoute: Map<string, string | null>
  readonly workers: WorkerScaling
}

/** engine.check on 1 and 2 threads: the whole call, and its verify phase as the engine logs it. */
interface WorkerScaling {
  readonly one: Measured
  readonly two: Measured
  readonly oneVerify: Measured
  readonly twoVerify: Measured
}

const problems: string[] = []
/** Peak RSS of `node -e 0` with the same preload: the runtime's own share of every RSS cell. */
let nodeFloorRss = Number.NaN

function mismatch(s: Setup, row: string, detail: string): string {
  const line = `> mismatch: ${s.size.files} files, ${row}: ${detail}`
  console.log(line)
  problems.push(line)
  return detail
}

function message(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)
}

/** Runs every route once (patchloom ones with the RSS preload) and compares the trees. */
function verifyProcessRoutes(
  s: Setup,
  cli: string,
  preload: string,
  rss: Map<string, number>,
): Map<string, string> {
  const wrong = new Map<string, string>()
  reset(s, true)
  run('git', ['apply', s.unifiedFile], s.root)
  const expected = worktreeTree(s.root, s.scratch)
  if (expected !== s.changedTree)
    wrong.set('git apply', mismatch(s, 'git apply', "tree differs from the generator's"))
  for (const route of PROCESS_ROUTES) {
    reset(s, true)
    const [command, ...args] = route.argv(s, cli) as [string, ...string[]]
    const rssFile = path.join(s.scratch, 'rss')
    rmSync(rssFile, { force: true })
    try {
      if (route.patchloom) {
        run(command, ['--import', preload, ...args], s.root, {
          ...GIT_ENV,
          PATCHLOOM_BENCH_RSS_FILE: rssFile,
        })
        rss.set(route.name, existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8')) : NaN)
      } else run(command, args, s.root)
      const want = route.kind === 'apply' ? expected : s.headTree
      const got = worktreeTree(s.root, s.scratch)
      if (got !== want)
        wrong.set(
          route.name,
          mismatch(
            s,
            route.name,
            `tree ${got.slice(0, 12)} is not ${route.kind === 'apply' ? "git apply's" : 'the starting tree'} ${want.slice(0, 12)}`,
          ),
        )
    } catch (error) {
      wrong.set(route.name, mismatch(s, route.name, message(error)))
    }
  }
  reset(s, true)
  return wrong
}

/** Interleaved rounds (every route once per round), so drift in the machine's load is shared. */
function timeProcessRoutes(
  s: Setup,
  cli: string,
  samples: number,
  skip: Map<string, string>,
): Map<string, Measured> {
  const times = new Map<string, number[]>(PROCESS_ROUTES.map((r) => [r.name, []]))
  const errors = new Map(skip)
  for (let round = 0; round < samples; round++) {
    for (const route of PROCESS_ROUTES) {
      if (errors.has(route.name)) continue
      reset(s, true)
      const [command, ...args] = route.argv(s, cli) as [string, ...string[]]
      try {
        times.get(route.name)?.push(run(command, args, s.root))
      } catch (error) {
        errors.set(route.name, message(error))
        console.log(`> ${s.size.files} files, ${route.name} failed while timed: ${message(error)}`)
        problems.push(route.name)
      }
    }
  }
  reset(s, true)
  return new Map(
    PROCESS_ROUTES.map((r) => {
      const error = errors.get(r.name)
      const list = times.get(r.name) ?? []
      return [
        r.name,
        error === undefined
          ? { ms: median(list), samples: list.length, error: null }
          : failed(error),
      ]
    }),
  )
}

// ---- warm engine, in process ------------------------------------------------------------------

const ENGINE_ROUTES = ['inline', 'pool', 'auto'] as const
type EngineRoute = (typeof ENGINE_ROUTES)[number]
const engineRow = (op: 'check' | 'apply', route: EngineRoute) =>
  op === 'check' ? `engine.check, route ${route}` : `engine.apply (fast), route ${route}`
const ENGINE_ROWS = (['check', 'apply'] as const).flatMap((op) =>
  ENGINE_ROUTES.map((route) => ({ op, route, name: engineRow(op, route) })),
)

/**
 * The route a request took, if the engine reports it: a `route` field on the result or on any
 * logged event. Neither exists today; the bench then prints that it is not exposed.
 */
function routeTaken(result: ApplyResult, logged: readonly (string | null)[]): string | null {
  const own = (result as unknown as { readonly route?: unknown }).route
  if (typeof own === 'string') return own
  return logged.find((r) => r !== null) ?? null
}

function routeLogger(into: (string | null)[]): Logger {
  const note = (_: string, fields?: Readonly<Record<string, unknown>>) => {
    const r = fields?.['route']
    into.push(typeof r === 'string' ? r : null)
  }
  return { debug: note, warn: note }
}

async function engineRows(
  s: Setup,
  samples: number,
): Promise<{ results: Map<string, Measured>; auto: Map<string, string | null> }> {
  const logged: (string | null)[] = []
  const engine = createEngineWithInternals({
    root: s.root,
    workers: { minThreads: 2, maxThreads: 2 },
    durability: 'fast',
    journal: { keep: 1 },
    limits: s.limits,
    logger: routeLogger(logged),
  })
  const errors = new Map<string, string>()
  const auto = new Map<string, string | null>()
  const call = (op: 'check' | 'apply', route: EngineRoute): Promise<ApplyResult> => {
    const options: InternalApplyOptions = { format: 'unified', route }
    return op === 'check' ? engine.check(s.unified, options) : engine.apply(s.unified, options)
  }
  try {
    // Verification (and warm-up: the pool's threads start and load their modules here).
    for (const row of ENGINE_ROWS) {
      reset(s, false)
      logged.length = 0
      try {
        const result = await call(row.op, row.route)
        if (row.route === 'auto') auto.set(row.name, routeTaken(result, logged))
        if (result.files.length !== s.size.files)
          errors.set(row.name, mismatch(s, row.name, `${result.files.length} files in the result`))
        const want = row.op === 'apply' ? s.changedTree : s.headTree
        if (worktreeTree(s.root, s.scratch) !== want)
          errors.set(row.name, mismatch(s, row.name, 'tree differs from the expected one'))
      } catch (error) {
        errors.set(row.name, mismatch(s, row.name, message(error)))
      }
    }
    const times = new Map<string, number[]>(ENGINE_ROWS.map((r) => [r.name, []]))
    let dirty = true
    for (let round = 0; round < samples; round++) {
      for (const row of ENGINE_ROWS) {
        if (errors.has(row.name)) continue
        if (dirty) reset(s, false)
        dirty = row.op === 'apply'
        const started = performance.now()
        try {
          await call(row.op, row.route)
          times.get(row.name)?.push(performance.now() - started)
        } catch (error) {
          errors.set(row.name, message(error))
          console.log(`> ${s.size.files} files, ${row.name} failed while timed: ${message(error)}`)
          problems.push(row.name)
        }
      }
    }
    const results = new Map<string, Measured>(
      ENGINE_ROWS.map((r) => {
        const error = errors.get(r.name)
        const list = times.get(r.name) ?? []
        const m: Measured =
          error === undefined
            ? { ms: median(list), samples: list.length, error: null }
            : failed(error)
        return [r.name, m]
      }),
    )
    return { results, auto }
  } finally {
    reset(s, false)
    await engine.close()
    rmSync(path.join(s.root, '.patchloom'), { recursive: true, force: true })
  }
}

/** engine.check on the pool with 1 and with 2 threads, both warmed up, in alternating rounds. */
async function workerScaling(s: Setup, samples: number): Promise<WorkerScaling> {
  // The engine's debug event carries the verify phase's wall time (verifyMs): every op resolved,
  // read and computed on the pool, without parsing the request or assembling its result.
  const verifyTimes: [number[], number[]] = [[], []]
  const engines: [InternalEngine, InternalEngine] = [1, 2].map((threads, i) =>
    createEngineWithInternals({
      root: s.root,
      workers: { minThreads: threads, maxThreads: threads },
      limits: s.limits,
      logger: {
        debug: (_event, fields) => {
          const v = fields?.['verifyMs']
          if (typeof v === 'number') verifyTimes[i]?.push(v)
        },
        warn: () => undefined,
      },
    }),
  ) as [InternalEngine, InternalEngine]
  const times: [number[], number[]] = [[], []]
  const errors: [string | null, string | null] = [null, null]
  const check = (e: InternalEngine) => e.check(s.unified, { format: 'unified', route: 'pool' })
  try {
    for (const [i, engine] of engines.entries()) {
      try {
        const result = await check(engine)
        verifyTimes[i]?.splice(0) // the warm-up run
        if (result.files.length !== s.size.files)
          errors[i] = mismatch(s, `${i + 1} worker(s)`, `${result.files.length} files`)
      } catch (error) {
        errors[i] = mismatch(s, `engine.check on ${i + 1} worker(s)`, message(error))
      }
    }
    for (let round = 0; round < samples; round++) {
      for (const [i, engine] of engines.entries()) {
        if (errors[i] !== null) continue
        const started = performance.now()
        try {
          await check(engine)
          times[i]?.push(performance.now() - started)
        } catch (error) {
          errors[i] = message(error)
          console.log(
            `> ${s.size.files} files, ${i + 1} worker(s) failed while timed: ${errors[i]}`,
          )
          problems.push(`${i + 1} worker(s)`)
        }
      }
    }
  } finally {
    await Promise.all(engines.map((e) => e.close()))
  }
  const measured = (i: 0 | 1, list: readonly number[]): Measured =>
    errors[i] === null
      ? { ms: median(list), samples: list.length, error: null }
      : failed(errors[i] as string)
  return {
    one: measured(0, times[0]),
    two: measured(1, times[1]),
    oneVerify: measured(0, verifyTimes[0]),
    twoVerify: measured(1, verifyTimes[1]),
  }
}

// ---- output -----------------------------------------------------------------------------------

const count = (n: number) => n.toLocaleString('en-US')
const cell = (m: Measured | undefined, baseline: Measured | undefined) =>
  m === undefined || m.error !== null
    ? 'mismatch'
    : `${ms(m.ms)} (${ratio(m.ms, baseline?.ms ?? Number.NaN)})`

const plain = (m: Measured) => (m.error !== null ? 'mismatch' : ms(m.ms))

function sizeHeader(results: readonly SizeResult[]): string[] {
  return results.map((r) => `${count(r.setup.size.files)} files`)
}

function printTables(results: readonly SizeResult[], flags: Flags): void {
  const header = sizeHeader(results)
  console.log('### inputs\n')
  console.log(
    markdownTable(
      [
        'files x lines, hunks per file',
        'files touched MiB',
        'unified diff (git diff) MiB',
        'Codex patch MiB',
        'generate + commit s',
        'samples',
        'CLI limit flags passed',
      ],
      results.map(({ setup: s }) => [
        `${count(s.size.files)} x ${s.size.lines}, ${s.size.hunks}`,
        mib(s.touchedBytes),
        mib(Buffer.byteLength(s.unified)),
        mib(Buffer.byteLength(s.codex)),
        (s.generateMs / 1000).toFixed(1),
        String(samplesFor(flags, s.size.files)),
        s.limitArgs.length === 0 ? 'none (defaults admit it)' : `\`${s.limitArgs.join(' ')}\``,
      ]),
    ),
  )
  for (const { setup: s } of results)
    if (s.limitArgs.length > 0)
      console.log(
        `\n> ${count(s.size.files)} files: the CLI's default limits refuse this patch; its rows ` +
          `pass \`${s.limitArgs.join(' ')}\` (and the engine rows the same limits).`,
      )

  console.log('\n### commands (`patchloom` is `node bin/patchloom.js`; run in the repository)\n')
  const shown = { unifiedFile: 'change.diff', codexFile: 'change.codex', root: '.', limitArgs: [] }
  for (const route of PROCESS_ROUTES) {
    const argv = route
      .argv(shown as unknown as Setup, 'patchloom')
      .filter((a) => a !== NODE)
      .map((a) => (a === READ_FLOOR ? 'node dist/bench/read-floor.js' : a))
      .map((a) => (a === EXACT_FLOOR ? 'node dist/bench/exact-floor.js' : a))
    console.log(`- ${route.name}: \`${argv.join(' ')}\``)
  }
  console.log(
    '- reset before every run (untimed): `git reset --hard -q` and the `.patchloom/` journal ' +
      "removed; each row once before timing, its tree compared with `git apply`'s (apply rows) " +
      'or the starting tree (check rows) by `git add -A && git write-tree` on a copy of the index',
  )

  const processTable = (routes: readonly ProcessRoute[], title: string) => {
    const base = routes[0]?.name as string
    console.log(`\n### ${title} (median ms, x ${base} in the same run)\n`)
    console.log(
      markdownTable(
        ['row', ...header],
        routes.map((route) => [
          route.name,
          ...results.map((r) => cell(r.process.get(route.name), r.process.get(base))),
        ]),
      ),
    )
  }
  processTable(APPLY_ROUTES, 'whole process: apply')
  const fsync = results.map(({ setup: s, process: p }) => {
    const full = p.get('patchloom apply')?.ms ?? Number.NaN
    const fast = p.get('patchloom apply --durability fast')?.ms ?? Number.NaN
    return `${count(s.size.files)} files ${ms(full - fast)} ms (${ratio(full, fast)})`
  })
  console.log(
    `\nfsync cost, \`patchloom apply\` (durability full) minus \`--durability fast\`: ` +
      `${fsync.join(', ')} (on tmpfs, where an fsync costs little; on a disk it costs more).`,
  )
  processTable(CHECK_ROUTES, 'whole process: check (nothing written)')
  console.log(`\n${loadLine()}`)

  console.log('\n### time per file (whole process, ms per file)\n')
  console.log(
    markdownTable(
      ['row', ...header],
      PER_FILE_ROWS.map((name) => [
        name,
        ...results.map((r) => {
          const m = r.process.get(name)
          return m === undefined || m.error !== null ? 'mismatch' : ms(m.ms / r.setup.size.files)
        }),
      ]),
    ),
  )

  console.log(
    '\n### peak RSS of the patchloom CLI (MiB, x (files touched + patch bytes); target < 3x)\n',
  )
  console.log(
    markdownTable(
      ['row', ...header],
      PROCESS_ROUTES.filter((r) => r.patchloom).map((route) => [
        route.name,
        ...results.map(({ setup: s, rss }) => {
          const bytes = rss.get(route.name) ?? Number.NaN
          const held =
            s.touchedBytes + Buffer.byteLength(route.patch === 'unified' ? s.unified : s.codex)
          return Number.isNaN(bytes) ? '-' : `${mib(bytes)} (${ratio(bytes, held)})`
        }),
      ]),
    ),
  )
  const held = results.map(
    ({ setup: s }) =>
      `${count(s.size.files)} files ${mib(s.touchedBytes + Buffer.byteLength(s.unified))} MiB ` +
      `(unified) / ${mib(s.touchedBytes + Buffer.byteLength(s.codex))} MiB (Codex)`,
  )
  console.log(`\nBytes held (files touched + patch): ${held.join(', ')}.`)
  console.log(
    `\nPeak RSS includes Node itself (\`node -e 0\` peaks at ${mib(nodeFloorRss)} MiB here), so ` +
      "at small sizes the ratio measures the runtime, not the change. Measured in each row's " +
      'untimed verification run through a `node --import` preload (bench/peak-rss.ts).',
  )

  console.log('\n### warm engine, in process (median ms, x the same-run git row)\n')
  console.log(
    markdownTable(
      ['row', ...header],
      ENGINE_ROWS.map((row) => [
        row.name,
        ...results.map((r) =>
          cell(
            r.engine.get(row.name),
            r.process.get(row.op === 'check' ? 'git apply --check' : 'git apply'),
          ),
        ),
      ]),
    ),
  )
  const chosen = ENGINE_ROWS.filter((r) => r.route === 'auto').map((row) => {
    const picks = results.map((r) => r.autoRoute.get(row.name) ?? null)
    return picks.every((p) => p === null)
      ? null
      : `${row.name}: ${results.map((r, i) => `${count(r.setup.size.files)} files ${picks[i] ?? '?'}`).join(', ')}`
  })
  if (chosen.every((c) => c === null))
    console.log(
      "\n> route chosen by 'auto': not exposed by the engine (no route field on the result and " +
        'no logged event names one)',
    )
  else
    for (const line of chosen) if (line !== null) console.log(`\n> route chosen by auto: ${line}`)
  console.log(
    '\nEngine: `createEngine({ workers: { minThreads: 2, maxThreads: 2 }, durability: "fast", ' +
      'journal: { keep: 1 } })`, warmed up by one run per row; apply rows reset the tree with ' +
      '`git reset --hard` before each run (untimed).',
  )

  console.log(
    "\n### worker scaling (engine.check, route 'pool', minThreads = maxThreads, median ms; the verify phase as the engine logs it, verifyMs)\n",
  )
  console.log(
    markdownTable(
      [
        'files',
        'verify phase, 1 worker',
        '2 workers',
        '1 worker / 2 workers',
        'whole call, 1 worker',
        '2 workers',
        '1 worker / 2 workers',
      ],
      results.map(({ setup: s, workers }) => [
        count(s.size.files),
        plain(workers.oneVerify),
        plain(workers.twoVerify),
        ratio(workers.oneVerify.ms, workers.twoVerify.ms),
        plain(workers.one),
        plain(workers.two),
        ratio(workers.one.ms, workers.two.ms),
      ]),
    ),
  )
  console.log(`\n${loadLine()}`)
}

/** The time-per-file curve's rows (and the chart's lines). */
const PER_FILE_ROWS = [
  'git apply',
  'git apply --check',
  'patchloom apply --durability fast',
  'patchloom check',
] as const

async function writeCharts(
  results: readonly SizeResult[],
  out: string,
  stamp: string,
): Promise<void> {
  await mkdir(out, { recursive: true })
  const perFile: Series[] = PER_FILE_ROWS.map((name) => ({
    name,
    points: results.map((r) => ({
      x: r.setup.size.files,
      y: (r.process.get(name)?.ms ?? Number.NaN) / r.setup.size.files,
    })),
  }))
  const lines = results[0]?.setup.size.lines ?? 0
  const hunks = results[0]?.setup.size.hunks ?? 0
  await writeFile(
    path.join(out, 'large-per-file.svg'),
    lineChartSvg({
      title: `Time per file, whole process (${lines} lines, ${hunks} hunks per file)`,
      subtitle: stamp,
      xLabel: 'files in the patch (log scale)',
      yLabel: 'ms per file (log scale; flat = linear)',
      xLog: true,
      yLog: true,
      series: perFile,
    }),
  )
  const workers: Series[] = [
    {
      name: '1 worker',
      points: results.map((r) => ({ x: r.setup.size.files, y: r.workers.oneVerify.ms })),
    },
    {
      name: '2 workers',
      points: results.map((r) => ({ x: r.setup.size.files, y: r.workers.twoVerify.ms })),
    },
  ]
  await writeFile(
    path.join(out, 'large-workers.svg'),
    lineChartSvg({
      title: "Verify phase on the pool: engine.check, route 'pool', 1 vs 2 threads",
      subtitle: stamp,
      xLabel: 'files in the patch (log scale)',
      yLabel: 'ms (log scale)',
      xLog: true,
      yLog: true,
      series: workers,
    }),
  )
}

export async function main(argv: readonly string[]): Promise<number> {
  const flags = parseFlags(argv)
  // Output piped into `head` must not kill the bench before it removes its scratch repositories.
  process.stdout.on('error', () => undefined)
  const machine = machineLine()
  console.log(`## large.bench\n\n${machine}\n`)
  console.log(
    `Command: \`node dist/bench/large.bench.js${argv.length > 0 ? ' ' + argv.join(' ') : ''}\``,
  )
  const scratch = await mkdtemp(path.join(flags.scratch, 'patchloom-large-bench-'))
  console.log(`Scratch repositories under ${flags.scratch} (removed at the end).\n`)
  const results: SizeResult[] = []
  try {
    const { cli, preload } = await snapshotCliWithPreload(scratch)
    const floorFile = path.join(scratch, 'rss-floor')
    run(NODE, ['--import', preload, '-e', '0'], scratch, {
      ...GIT_ENV,
      PATCHLOOM_BENCH_RSS_FILE: floorFile,
    })
    nodeFloorRss = Number(readFileSync(floorFile, 'utf8'))
    for (const files of flags.files) {
      const size: Size = { files, lines: flags.lines, hunks: flags.hunks }
      const setup = await prepare(size, scratch)
      const samples = samplesFor(flags, files)
      const rss = new Map<string, number>()
      const wrong = verifyProcessRoutes(setup, cli, preload, rss)
      const processResults = timeProcessRoutes(setup, cli, samples, wrong)
      const { results: engine, auto } = await engineRows(setup, samples)
      const workers = await workerScaling(setup, samples)
      results.push({ setup, process: processResults, rss, engine, autoRoute: auto, workers })
      console.error(`large.bench: ${count(files)} files done (${loadLine()})`)
      // The next size's repository is the only one that needs to be in RAM.
      await rm(setup.scratch, { recursive: true, force: true })
    }
    printTables(results, flags)
    const stamp =
      machine.replace(/^date (\S+?)T(\d\d:\d\d)\S*/, '$1 $2 UTC').replace(/, GNU patch[^,]*/, '') +
      `; ${loadLine().replace('loadavg 1m at end of table', 'at end')}`
    await writeCharts(results, flags.out, stamp)
    console.log(
      `\nCharts: ${path.join(flags.out, 'large-per-file.svg')}, ${path.join(flags.out, 'large-workers.svg')}`,
    )
  } finally {
    await rm(scratch, { recursive: true, force: true, maxRetries: 3 })
  }
  if (problems.length > 0) {
    console.log(`\n> ${problems.length} route(s) mismatched or failed; exit status 1`)
    return 1
  }
  return 0
}

process.exitCode = await main(process.argv.slice(2))
