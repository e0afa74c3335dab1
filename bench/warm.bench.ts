// What a long-lived host pays for a large `git diff` once patchloom is warm: a seeded repository of
// N files x 300 lines (N = 3,000 and 10,000), 10 hunks changed in each, committed with real git on
// tmpfs, the patch taken from real `git diff`. Timed in rounds, each running every row once in
// turn (git, then patchloom): `git apply --check` and `git apply` as processes (the baselines);
// engine.check (pool, diffs off and on; workers: false) and engine.apply (fast; pool and workers:
// false) on engines made once per size; apply_patch over `patchloom serve --http` (dry run, then
// real). Every row runs once untimed first and must leave HEAD's tree (check) or git apply's
// (apply), else `> mismatch` and exit 1. Does not: time start-up, cold engines or durability full.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { Agent } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { DEFAULT_LIMITS } from '../src/defaults.js'
import { createEngine, type ApplyResult, type Engine, type LimitOptions } from '../src/index.js'
import { workspaceBytes } from './generate.js'
import { generatedChange, git, GIT_ENV, worktreeTree } from './generated-repo.js'
import { loadLine, machineLine, markdownTable, median, mib, ms, ratio } from './report.js'
import { parseReply, postRpc, PROTOCOL_VERSION, type RpcReply } from './mcp-http.js'

// Run: npm run bench:warm   or   npm run build && node dist/bench/warm.bench.js [flags]
//   --files 3000,10000  --lines 300  --hunks 10  --samples 7
//   --quick        40 files x 40 lines, 3 hunks, 2 samples (CI: test/e2e/warm-bench.test.ts)
//   --scratch DIR  parent of the scratch repository (default /dev/shm, else the temp dir)
//   --json FILE    the report as JSON

// dist/bench/warm.bench.js -> the repository
const CLI = fileURLToPath(new URL('../../bin/patchloom.js', import.meta.url))
const SEED = 9
const DEFAULT_MAX_BODY = 4 * 1024 * 1024

// ---- flags ----------------------------------------------------------------------------------

interface Flags {
  readonly files: readonly number[]
  readonly lines: number
  readonly hunks: number
  readonly samples: number
  readonly scratch: string
  readonly json: string | null
}

function usage(message: string): never {
  console.error(`warm.bench: ${message}`)
  process.exit(64)
}

function positive(flag: string, value: string | undefined): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0) usage(`${flag} needs a positive integer, got ${value}`)
  return n
}

function parseFlags(argv: readonly string[]): Flags {
  let files = [3_000, 10_000]
  let lines = 300
  let hunks = 10
  let samples = 7
  let scratch = existsSync('/dev/shm') ? '/dev/shm' : tmpdir()
  let json: string | null = null
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string
    const value = () => {
      const v = argv[++i]
      if (v === undefined) usage(`${flag} needs a value`)
      return v
    }
    if (flag === '--quick') {
      files = [40]
      lines = 40
      hunks = 3
      samples = 2
    } else if (flag === '--files')
      files = value()
        .split(',')
        .map((v) => positive(flag, v))
    else if (flag === '--lines') lines = positive(flag, value())
    else if (flag === '--hunks') hunks = positive(flag, value())
    else if (flag === '--samples') samples = positive(flag, value())
    else if (flag === '--scratch') scratch = path.resolve(value())
    else if (flag === '--json') json = path.resolve(value())
    else usage(`unknown flag ${flag}`)
  }
  return { files: [...files].sort((a, b) => a - b), lines, hunks, samples, scratch, json }
}

// ---- git ------------------------------------------------------------------------------------

// ---- the repository and its patch -----------------------------------------------------------

interface Setup {
  readonly files: number
  readonly lines: number
  readonly hunks: number
  readonly scratch: string
  readonly root: string
  readonly diffFile: string
  readonly patch: string
  readonly touchedBytes: number
  /** HEAD's tree: where every check row must leave the workspace. */
  readonly headTree: string
  /** The generator's after-tree: where every apply row (git apply's too) must leave it. */
  readonly changedTree: string
  /** Engine limits past the defaults this patch needs (none while the defaults admit it). */
  readonly limits: LimitOptions
  /** serve flags past its defaults this patch needs (the body limit, the limits above). */
  readonly serveArgs: readonly string[]
  readonly generateMs: number
}

/** Back to HEAD, outside the timing (the journal in .patchloom/ stays; git ignores it). */
function reset(s: Setup): void {
  git(['reset', '--hard', '-q'], s.root)
}

async function prepare(flags: Flags, files: number, scratchRoot: string): Promise<Setup> {
  const started = performance.now()
  const made = await generatedChange(scratchRoot, files, flags.lines, flags.hunks, SEED)
  const { scratch, root, ws, diffFile, headTree, changedTree } = made
  const patch = made.unified

  // Raise a limit only where the default refuses this patch (and say so in the output).
  const patchBytes = Buffer.byteLength(patch)
  const limits: { maxPatchBytes?: number; maxFiles?: number } = {}
  const serveArgs: string[] = []
  if (patchBytes > DEFAULT_LIMITS.maxPatchBytes)
    limits.maxPatchBytes = Math.ceil(patchBytes / (1 << 20)) << 20
  if (files > DEFAULT_LIMITS.maxFiles) limits.maxFiles = files
  const body = Buffer.byteLength(rpcBody(0, toolCall(patch, true)))
  if (body > DEFAULT_MAX_BODY)
    serveArgs.push('--max-body-bytes', String(Math.ceil(body / (1 << 20) + 1) << 20))
  return {
    files,
    lines: flags.lines,
    hunks: flags.hunks,
    scratch,
    root,
    diffFile,
    patch,
    touchedBytes: workspaceBytes(ws),
    headTree,
    changedTree,
    limits,
    serveArgs,
    generateMs: performance.now() - started,
  }
}

// ---- patchloom serve --http -----------------------------------------------------------------

const toolCall = (patch: string, dryRun: boolean) => ({
  name: 'apply_patch',
  arguments: { patch, format: 'unified', ...(dryRun ? { dry_run: true } : {}) },
})

const rpcBody = (id: number, params: unknown, method = 'tools/call') =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params })

interface Server {
  readonly argv: readonly string[]
  /** One JSON-RPC request over keep-alive HTTP; resolves with the parsed reply. */
  call(method: string, params: unknown): Promise<RpcReply>
  /** The server process's peak RSS so far (VmHWM), bytes. */
  peakRss(): number
  stop(): Promise<void>
}

async function startServer(s: Setup): Promise<Server> {
  const argv = [
    'serve',
    '--http',
    '127.0.0.1:0',
    '--root',
    s.root,
    '--durability',
    'fast',
    ...s.serveArgs,
  ]
  const child = spawn(process.execPath, [CLI, ...argv], {
    cwd: s.root,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  // Its log is read (a full pipe would stall it); warnings and errors are kept for a failure.
  const log: string[] = []
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (!/"level":"(info|debug)"/.test(line) && log.length < 20) log.push(line)
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  // The first stdout line is the URL it listens on (port 0: a free one, picked by the kernel).
  const url = new URL(
    await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve)
      child.once('exit', (code) =>
        reject(new Error(`patchloom serve exited ${String(code)}: ${log.join(' | ')}`)),
      )
    }),
  )
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  let id = 0
  const call = async (method: string, params: unknown): Promise<RpcReply> => {
    const body = rpcBody(++id, params, method)
    const { status, text } = await postRpc(url, agent, 'warm-bench', body)
    if (status !== 200) throw new Error(`HTTP ${status}: ${text.slice(0, 200)}`)
    return parseReply(text, 'warm.bench')
  }
  const init = await call('initialize', {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'warm-bench', version: '1' },
  })
  if (init.error !== undefined) throw new Error(`initialize: ${init.error.message}`)
  return {
    argv,
    call,
    peakRss: () => vmHwm(child.pid),
    stop: async () => {
      agent.destroy()
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** A tool call's outcome as the files it names, or an error naming the refusal. */
function toolFiles(reply: RpcReply): number {
  if (reply.error !== undefined) throw new Error(`RPC ${reply.error.code}: ${reply.error.message}`)
  const structured = reply.result?.structuredContent ?? {}
  if (reply.result?.isError === true) {
    const error = structured['error'] as { code?: string; message?: string } | undefined
    throw new Error(`${error?.code ?? 'TOOL_ERROR'}: ${error?.message ?? ''}`.slice(0, 300))
  }
  const files = structured['files']
  return Array.isArray(files) ? files.length : 0
}

// ---- rows -----------------------------------------------------------------------------------

interface Row {
  readonly name: string
  readonly kind: 'check' | 'apply'
  /** The git row of the same kind: the baseline of its ratio. */
  readonly git: boolean
  /** The row a workers: false row is compared with. */
  readonly pool?: string
  /** Runs once and returns the number of files its result names (git: the file count). */
  readonly run: () => Promise<number>
}

interface Rig {
  readonly pool: Engine
  readonly inline: Engine
  readonly server: Server
}

function rows(s: Setup, rig: Rig): Row[] {
  const gitApply = (check: boolean) => async () => {
    const child = spawnSync('git', ['apply', ...(check ? ['--check'] : []), s.diffFile], {
      cwd: s.root,
      env: GIT_ENV,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    if (child.status !== 0)
      throw new Error(`git apply exited ${child.status}: ${child.stderr.toString().trim()}`)
    return s.files
  }
  const files = (r: ApplyResult) => r.files.length
  const check = (engine: Engine, diffs: boolean) => async () =>
    files(await engine.check(s.patch, { format: 'unified', diffs }))
  const apply = (engine: Engine) => async () =>
    files(await engine.apply(s.patch, { format: 'unified', diffs: false }))
  const tool = (dryRun: boolean) => async () =>
    toolFiles(await rig.server.call('tools/call', toolCall(s.patch, dryRun)))
  return [
    { name: 'git apply --check', kind: 'check', git: true, run: gitApply(true) },
    { name: 'engine.check, pool', kind: 'check', git: false, run: check(rig.pool, false) },
    {
      name: 'engine.check, pool, diffs: true',
      kind: 'check',
      git: false,
      run: check(rig.pool, true),
    },
    {
      name: 'engine.check, workers: false',
      kind: 'check',
      git: false,
      pool: 'engine.check, pool',
      run: check(rig.inline, false),
    },
    { name: 'serve apply_patch, dry_run', kind: 'check', git: false, run: tool(true) },
    { name: 'git apply', kind: 'apply', git: true, run: gitApply(false) },
    { name: 'engine.apply (fast), pool', kind: 'apply', git: false, run: apply(rig.pool) },
    {
      name: 'engine.apply (fast), workers: false',
      kind: 'apply',
      git: false,
      pool: 'engine.apply (fast), pool',
      run: apply(rig.inline),
    },
    { name: 'serve apply_patch', kind: 'apply', git: false, run: tool(false) },
  ]
}

interface Measured {
  readonly ms: number
  readonly samples: readonly number[]
  readonly error: string | null
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))
let problems = 0

/** Each row once (the warm-up), its result and tree checked; returns the rows that failed. */
async function verify(s: Setup, list: readonly Row[]): Promise<Map<string, string>> {
  const wrong = new Map<string, string>()
  const fail = (row: Row, why: string) => {
    console.log(`> mismatch: ${s.files} files, ${row.name}: ${why}`)
    wrong.set(row.name, why)
    problems++
  }
  for (const row of list) {
    reset(s)
    try {
      const named = await row.run()
      if (named !== s.files) fail(row, `${named} files in the result, not ${s.files}`)
      const want = row.kind === 'apply' ? s.changedTree : s.headTree
      if (worktreeTree(s.root, s.scratch) !== want)
        fail(row, `tree differs from ${row.kind === 'apply' ? "git apply's" : 'HEAD'}`)
    } catch (error) {
      fail(row, message(error))
    }
  }
  reset(s)
  return wrong
}

/** Rounds of every row once, in order; apply rows start from HEAD (reset, untimed). */
async function time(
  s: Setup,
  list: readonly Row[],
  samples: number,
  wrong: Map<string, string>,
): Promise<Map<string, Measured>> {
  const times = new Map<string, number[]>(list.map((r) => [r.name, []]))
  const errors = new Map(wrong)
  let dirty = false
  for (let round = 0; round < samples; round++) {
    for (const row of list) {
      if (errors.has(row.name)) continue
      if (dirty || row.kind === 'apply') reset(s)
      dirty = row.kind === 'apply'
      const started = performance.now()
      try {
        await row.run()
        times.get(row.name)?.push(performance.now() - started)
      } catch (error) {
        errors.set(row.name, message(error))
        console.log(`> ${s.files} files, ${row.name} failed while timed: ${message(error)}`)
        problems++
      }
    }
  }
  reset(s)
  return new Map(
    list.map((r) => {
      const got = times.get(r.name) ?? []
      const error = errors.get(r.name) ?? null
      return [r.name, { ms: error === null ? median(got) : Number.NaN, samples: got, error }]
    }),
  )
}

/** VmHWM of a process (default: this one), bytes; NaN where /proc cannot say. */
function vmHwm(pid: number | undefined | 'self' = 'self'): number {
  try {
    const status = readFileSync(`/proc/${pid ?? 'self'}/status`, 'utf8')
    const kib = /VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1]
    return kib === undefined ? Number.NaN : Number(kib) * 1024
  } catch {
    return Number.NaN
  }
}

// ---- one size -------------------------------------------------------------------------------

interface SizeReport {
  readonly files: number
  readonly lines: number
  readonly hunks: number
  readonly patchBytes: number
  readonly touchedBytes: number
  readonly serveArgs: readonly string[]
  readonly rows: readonly {
    readonly name: string
    readonly kind: 'check' | 'apply'
    readonly medianMs: number
    readonly xGit: number
    readonly xPool: number | null
    readonly samplesMs: readonly number[]
    readonly error: string | null
  }[]
  readonly peakRssBytes: number
  readonly servePeakRssBytes: number
  readonly loadavg1m: string
}

async function runSize(flags: Flags, files: number, scratch: string): Promise<SizeReport> {
  const s = await prepare(flags, files, scratch)
  const limits = Object.keys(s.limits).length === 0 ? {} : { limits: s.limits }
  const common = { root: s.root, durability: 'fast', journal: { keep: 1 }, ...limits } as const
  const pool = createEngine({ ...common, workers: { minThreads: 2, maxThreads: 2 } })
  const inline = createEngine({ ...common, workers: false })
  let server: Server | undefined
  try {
    server = await startServer(s)
    const list = rows(s, { pool, inline, server })
    const wrong = await verify(s, list)
    const measured = await time(s, list, flags.samples, wrong)
    const report = sizeReport(s, list, measured, vmHwm(), server.peakRss())
    printSize(s, report, flags.samples)
    return report
  } finally {
    await server?.stop()
    await Promise.all([pool.close(), inline.close()])
    await rm(s.scratch, { recursive: true, force: true, maxRetries: 3 })
  }
}

function sizeReport(
  s: Setup,
  list: readonly Row[],
  measured: ReadonlyMap<string, Measured>,
  peakRssBytes: number,
  servePeakRssBytes: number,
): SizeReport {
  const gitOf = (kind: 'check' | 'apply') =>
    measured.get(list.find((r) => r.git && r.kind === kind)?.name ?? '')?.ms ?? Number.NaN
  return {
    files: s.files,
    lines: s.lines,
    hunks: s.hunks,
    patchBytes: Buffer.byteLength(s.patch),
    touchedBytes: s.touchedBytes,
    serveArgs: s.serveArgs,
    rows: list.map((r) => {
      const m = measured.get(r.name) as Measured
      const poolMs = r.pool === undefined ? null : (measured.get(r.pool)?.ms ?? Number.NaN)
      return {
        name: r.name,
        kind: r.kind,
        medianMs: m.ms,
        xGit: m.ms / gitOf(r.kind),
        xPool: poolMs === null ? null : m.ms / poolMs,
        samplesMs: m.samples.map((v) => Math.round(v * 10) / 10),
        error: m.error,
      }
    }),
    peakRssBytes,
    servePeakRssBytes,
    loadavg1m: loadLine(),
  }
}

const count = (n: number) => n.toLocaleString('en-US')

function printSize(s: Setup, report: SizeReport, samples: number): void {
  console.log(
    `### ${count(s.files)} files x ${s.lines} lines, ${s.hunks} hunks per file ` +
      `(patch ${mib(report.patchBytes)} MiB, files ${mib(s.touchedBytes)} MiB; ` +
      `median of ${samples}, generate + commit ${(s.generateMs / 1000).toFixed(1)} s)\n`,
  )
  const cell = (v: number) => (Number.isNaN(v) ? 'mismatch' : ms(v))
  const gitName = (kind: 'check' | 'apply') =>
    kind === 'check' ? 'git apply --check' : 'git apply'
  console.log(
    markdownTable(
      ['row', 'median ms', 'x git (same kind)', 'workers: false x pool'],
      report.rows.map((r) => [
        r.name,
        cell(r.medianMs),
        r.name === gitName(r.kind) ? '1.00x (baseline)' : ratio(r.xGit, 1),
        r.xPool === null ? '' : ratio(r.xPool, 1),
      ]),
    ),
  )
  console.log(
    `\nPeak RSS (VmHWM) of this process after ${count(s.files)} files: ` +
      `${mib(report.peakRssBytes)} MiB (both engines and the bench; the largest size so far); ` +
      `the serve process: ${mib(report.servePeakRssBytes)} MiB.`,
  )
  console.log(
    'serve: `patchloom serve --http 127.0.0.1:0 --root . --durability fast' +
      `${report.serveArgs.length === 0 ? '' : ' ' + report.serveArgs.join(' ')}\`` +
      (report.serveArgs.length === 0
        ? ' (the defaults admit this request).'
        : ` (\`${report.serveArgs.join(' ')}\`: the default 4 MiB body limit refuses this request).`),
  )
  if (Object.keys(s.limits).length > 0)
    console.log(`engine limits raised: \`${JSON.stringify(s.limits)}\``)
  console.log(`\n${report.loadavg1m}\n`)
}

// ---- main -----------------------------------------------------------------------------------

export async function main(argv: readonly string[]): Promise<number> {
  const flags = parseFlags(argv)
  // Output piped into `head` must not kill the bench before it removes its scratch repository.
  process.stdout.on('error', () => undefined)
  const machine = machineLine()
  console.log(`## warm.bench\n\n${machine}\n`)
  console.log(
    `Command: \`node dist/bench/warm.bench.js${argv.length > 0 ? ' ' + argv.join(' ') : ''}\`\n`,
  )
  console.log(
    '- git rows: `git apply --check change.diff` and `git apply change.diff`, one process each, ' +
      'cwd the repository; every other row is x the git row of its kind in the same run\n' +
      '- engines, made once per size: `createEngine({ root, workers: { minThreads: 2, ' +
      "maxThreads: 2 } or false, durability: 'fast', journal: { keep: 1 } })`; " +
      "`check(patch, { format: 'unified', diffs })` (diffs: false unless the row says true; " +
      'true is the default and renders every file\'s diff), `apply(patch, { format: "unified", ' +
      'diffs: false })`\n' +
      '- serve rows: one `tools/call` of `apply_patch` ({ patch, format: "unified", dry_run }) ' +
      'over keep-alive HTTP to a `patchloom serve --http` started once per size (after ' +
      '`initialize`), from sending the request to the parsed reply; the server renders diffs\n' +
      '- each round runs every row once in the order shown; apply rows start from HEAD ' +
      '(`git reset --hard -q`, untimed); before timing each row runs once (the warm-up) and ' +
      "its tree is compared with HEAD's (check) or git apply's (apply) by `git add -A && " +
      'git write-tree` on a copy of the index\n',
  )
  const scratch = await mkdtemp(path.join(flags.scratch, 'patchloom-warm-bench-'))
  const reports: SizeReport[] = []
  try {
    for (const files of flags.files) {
      reports.push(await runSize(flags, files, scratch))
      console.error(`warm.bench: ${count(files)} files done (${loadLine()})`)
    }
  } finally {
    await rm(scratch, { recursive: true, force: true, maxRetries: 3 })
  }
  if (flags.json !== null)
    await writeFile(flags.json, JSON.stringify({ machine, argv, sizes: reports }, null, 2) + '\n')
  if (problems > 0) {
    console.log(`> ${problems} row(s) mismatched or failed; exit status 1`)
    return 1
  }
  return 0
}

process.exitCode = await main(process.argv.slice(2))
