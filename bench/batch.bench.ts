// Decides whether `patchloom batch` serves a benchmark harness: N patches of 1-5 files each on N
// checkouts (generated, committed, each patch real `git diff` output), applied by one `git apply`
// process per patch, one `patchloom apply` per patch, and one `patchloom batch` for all (fast and
// full), in one run; each round runs every row in turn, cells are medians and ratios to `git
// apply`, and every row's files are checked against the known result. Then git apply and batch at
// --large patches (1,000); then peak RSS of `batch --dry-run` fed 1,000 to 100,000 jobs (capped
// with --old-space MiB: memory kept, without the collector's slack). Run: npm run build && node
// dist/bench/batch.bench.js [--n N] [--large N] [--rounds R] [--quick] [--old-space MiB]
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { snapshotCli } from './cli-snapshot.js'
import {
  changedTexts,
  generateRepository,
  signatureChanges,
  writeWorkspace,
  type Workspace,
} from './generate.js'
import { loadLine, machineLine, markdownTable, median, mib, ms, ratio } from './report.js'

// dist/bench/batch.bench.js -> repo root
const REPO = fileURLToPath(new URL('../../', import.meta.url))
const NODE = process.execPath

interface Args {
  readonly n: number
  /** Checkouts of the second table (git apply and batch only); 0 leaves it out. */
  readonly large: number
  readonly rounds: number
  readonly filesPerRepo: number
  readonly lines: number
  readonly scratch: string
  /** Job counts of the memory table. */
  readonly counts: readonly number[]
  /** `--max-old-space-size` (MiB) for the memory runs: what stays bounded without GC slack. */
  readonly oldSpace?: number
}

function parseArgs(argv: readonly string[]): Args {
  let n = 100
  let large = 1_000
  let rounds = 3
  let filesPerRepo = 20
  let lines = 300
  let scratch = tmpdir()
  let counts = [1_000, 10_000, 100_000]
  let oldSpace: number | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const value = (): string => {
      const v = argv[++i]
      if (v === undefined) throw new Error(`${arg} needs a value`)
      return v
    }
    if (arg === '--n') n = Number(value())
    else if (arg === '--large') large = Number(value())
    else if (arg === '--rounds') rounds = Number(value())
    else if (arg === '--scratch') scratch = value()
    else if (arg === '--old-space') oldSpace = Number(value())
    else if (arg === '--quick') {
      n = 8
      large = 16
      rounds = 1
      filesPerRepo = 6
      lines = 60
      counts = [100, 1_000]
    } else throw new Error(`unknown argument ${arg}`)
  }
  if (!(n >= 1 && rounds >= 1)) throw new Error('--n and --rounds need positive numbers')
  if (!(Number.isInteger(large) && large >= 0)) throw new Error('--large needs a whole number')
  if (oldSpace !== undefined && !(Number.isInteger(oldSpace) && oldSpace > 0))
    throw new Error('--old-space needs a whole number of MiB')
  return {
    n,
    large,
    rounds,
    filesPerRepo,
    lines,
    scratch,
    counts,
    ...(oldSpace === undefined ? {} : { oldSpace }),
  }
}

/** Runs a command to completion; a non-zero exit fails the row (a broken row must not look fast). */
function run(command: string, args: readonly string[], cwd: string, stdin?: string): string {
  const child = spawnSync(command, args, {
    cwd,
    input: stdin,
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 1024 * 1024 * 1024,
  })
  if (child.status !== 0) {
    const reason = (child.stderr?.toString() ?? '').split('\n').find((l) => l.trim() !== '') ?? ''
    throw new Error(`${path.basename(command)} ${args.join(' ')} exited ${child.status}: ${reason}`)
  }
  return child.stdout.toString()
}

interface Checkout {
  readonly root: string
  readonly patchFile: string
  readonly patch: string
  /** Each touched file's path, its text before and after the change. */
  readonly files: readonly { path: string; before: string; after: string }[]
}

/** Checkout `index`: its own files, committed; 1-5 of them changed, as `git diff` prints it. */
async function prepare(scratch: string, index: number, args: Args): Promise<Checkout> {
  const root = path.join(scratch, `repo${index}`)
  const ws: Workspace = generateRepository(args.filesPerRepo, args.lines, index + 1)
  await writeWorkspace(root, ws)
  const git = (...a: string[]): string =>
    run('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...a], root)
  git('init', '-q')
  git('add', '-A')
  git('commit', '-q', '-m', 'base')
  const changes = signatureChanges(ws, 1 + (index % 5), 2)
  const after = changedTexts(ws, changes)
  const files = [...after].map(([file, text]) => {
    const before = readFileSync(path.join(root, file), 'utf8')
    writeFileSync(path.join(root, file), text)
    return { path: file, before, after: text }
  })
  const patch = git('diff', '--no-color')
  for (const f of files) writeFileSync(path.join(root, f.path), f.before)
  const patchFile = path.join(scratch, `repo${index}.diff`)
  await writeFile(patchFile, patch)
  return { root, patchFile, patch, files }
}

/** Every touched file holds the change's result (or, with `before`, its starting text). */
function mismatches(checkouts: readonly Checkout[], state: 'before' | 'after'): number {
  let wrong = 0
  for (const c of checkouts)
    for (const f of c.files)
      if (readFileSync(path.join(c.root, f.path), 'utf8') !== f[state]) wrong++
  return wrong
}

function reset(checkouts: readonly Checkout[]): void {
  for (const c of checkouts)
    for (const f of c.files) writeFileSync(path.join(c.root, f.path), f.before)
}

interface MemoryRun {
  readonly peakRss: number
  readonly ms: number
  readonly ok: number
  readonly lines: number
}

/**
 * `patchloom batch --dry-run` fed `count` check jobs (the checkouts' patches in turn) on stdin,
 * written as the child takes them; returns its peak RSS (from the preload), time and results.
 */
async function memoryRun(
  cli: string,
  preload: string,
  checkouts: readonly Checkout[],
  count: number,
  rssFile: string,
  oldSpace: number | undefined,
): Promise<MemoryRun> {
  const cap = oldSpace === undefined ? [] : [`--max-old-space-size=${oldSpace}`]
  const child = spawn(NODE, [...cap, '--import', preload, cli, 'batch', '--dry-run'], {
    env: { ...process.env, PATCHLOOM_BENCH_RSS_FILE: rssFile },
    stdio: ['pipe', 'pipe', 'ignore'],
  })
  let ok = 0
  let lines = 0
  let rest = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n')
    rest = parts.pop() ?? ''
    for (const line of parts) {
      lines++
      if ((JSON.parse(line) as { ok: boolean }).ok) ok++
    }
  })
  const closed = once(child, 'close')
  const started = performance.now()
  for (let i = 0; i < count; i++) {
    const c = checkouts[i % checkouts.length] as Checkout
    const job = {
      id: i,
      root: c.root,
      patch: c.patch,
      format: 'unified',
      options: { dryRun: true },
    }
    if (!child.stdin.write(`${JSON.stringify(job)}\n`)) await once(child.stdin, 'drain')
  }
  child.stdin.end()
  const [code] = (await closed) as [number | null]
  const elapsed = performance.now() - started
  if (code !== 0) throw new Error(`batch --dry-run of ${count} jobs exited ${String(code)}`)
  return { peakRss: Number(readFileSync(rssFile, 'utf8')), ms: elapsed, ok, lines }
}

interface Row {
  readonly name: string
  /** Applies every patch once; throws if any run failed. */
  readonly apply: () => void
}

interface Measured {
  readonly times: Map<string, number[]>
  readonly failures: Map<string, string>
}

/** Each round runs every row once, in turn, from reset trees; a row's trees are checked after it. */
function measure(rows: readonly Row[], checkouts: readonly Checkout[], rounds: number): Measured {
  const times = new Map<string, number[]>(rows.map((r) => [r.name, []]))
  const failures = new Map<string, string>()
  for (let round = 0; round < rounds; round++) {
    for (const row of rows) {
      if (failures.has(row.name)) continue
      reset(checkouts)
      const started = performance.now()
      try {
        row.apply()
      } catch (error) {
        failures.set(row.name, error instanceof Error ? error.message : String(error))
        continue
      }
      const elapsed = performance.now() - started
      const wrong = mismatches(checkouts, 'after')
      if (wrong > 0) failures.set(row.name, `${wrong} files differ from the change's result`)
      else times.get(row.name)?.push(elapsed)
    }
  }
  reset(checkouts)
  if (mismatches(checkouts, 'before') > 0) failures.set('reset', 'the trees did not reset')
  return { times, failures }
}

/** The table of medians, per patch and against the first row; failed rows say so below it. */
function routeTable(rows: readonly Row[], { times, failures }: Measured, patches: number): string {
  const base = median(times.get(rows[0]?.name ?? '') ?? [])
  const table = markdownTable(
    ['route', 'all patches (ms)', 'per patch (ms)', 'x git apply'],
    rows.map((r) => {
      const t = failures.has(r.name) ? Number.NaN : median(times.get(r.name) ?? [])
      return [r.name, ms(t), ms(t / patches), ratio(t, base)]
    }),
  )
  const failed = [...failures].map(([name, message]) => `\n> row "${name}" failed: ${message}`)
  return [table, ...failed].join('\n')
}

/** One JSON job a line for these checkouts. */
async function writeJobs(file: string, checkouts: readonly Checkout[]): Promise<void> {
  await writeFile(
    file,
    checkouts
      .map((c, i) => JSON.stringify({ id: i, root: c.root, patch: c.patch, format: 'unified' }))
      .join('\n') + '\n',
  )
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2))
  const scratch = await mkdtemp(path.join(args.scratch, 'patchloom-batch-bench-'))
  try {
    const cli = await snapshotCli(REPO, path.join(scratch, 'cli'), ['dist/bench/peak-rss.js'])
    const preload = pathToFileURL(path.join(scratch, 'cli', 'dist', 'bench', 'peak-rss.js')).href
    const checkouts: Checkout[] = []
    for (let i = 0; i < Math.max(args.n, args.large); i++)
      checkouts.push(await prepare(scratch, i, args))
    const small = checkouts.slice(0, args.n)
    const patchFiles = small.reduce((sum, c) => sum + c.files.length, 0)
    const batchRow = (durability: string, of: readonly Checkout[], jobsFile: string): Row => ({
      name: `patchloom batch --durability ${durability}`,
      apply: () => {
        const out = run(NODE, [cli, 'batch', jobsFile, '--durability', durability], scratch)
        const lines = out.trimEnd().split('\n')
        const applied = lines.filter((l) => (JSON.parse(l) as { ok: boolean }).ok).length
        if (applied !== of.length) throw new Error(`batch applied ${applied} of ${of.length}`)
      },
    })
    const gitRow = (of: readonly Checkout[]): Row => ({
      name: 'git apply, once per patch',
      apply: () => {
        for (const c of of) run('git', ['apply', c.patchFile], c.root)
      },
    })
    const jobsFile = path.join(scratch, 'jobs.jsonl')
    await writeJobs(jobsFile, small)
    const rows: Row[] = [
      gitRow(small),
      {
        name: 'patchloom apply --durability fast, once per patch',
        apply: () => {
          for (const c of small)
            run(NODE, [cli, 'apply', c.patchFile, '--durability', 'fast'], c.root)
        },
      },
      batchRow('fast', small, jobsFile),
      batchRow('full', small, jobsFile),
    ]
    const measured = measure(rows, small, args.rounds)

    console.log(`## batch.bench\n\n${machineLine()}\n`)
    console.log(
      `${args.n} checkouts of ${args.filesPerRepo} files x ${args.lines} lines; ${patchFiles} files changed in all (1-5 a patch, 2 hunks a file); ${args.rounds} rounds\n`,
    )
    console.log(routeTable(rows, measured, args.n))
    console.log(`\n${loadLine()}`)
    const failures = new Map(measured.failures)

    // The same rows at --large patches, without one `patchloom apply` per patch (30x git apply).
    if (args.large > 0) {
      const largeJobs = path.join(scratch, 'jobs-large.jsonl')
      await writeJobs(largeJobs, checkouts.slice(0, args.large))
      const many = checkouts.slice(0, args.large)
      const largeRows = [
        gitRow(many),
        batchRow('fast', many, largeJobs),
        batchRow('full', many, largeJobs),
      ]
      const large = measure(largeRows, many, args.rounds)
      console.log(`\n### ${args.large} checkouts: git apply and batch\n`)
      console.log(routeTable(largeRows, large, args.large))
      console.log(`\n${loadLine()}`)
      for (const [name, message] of large.failures) failures.set(`large ${name}`, message)
    }

    // Memory: checks write nothing, so one patch can be checked again and again.
    const capped = args.oldSpace === undefined ? '' : `, --max-old-space-size=${args.oldSpace}`
    console.log(`\n### memory: batch --dry-run, jobs streamed on stdin${capped}\n`)
    const memoryRows: string[][] = []
    for (const count of args.counts) {
      try {
        const rssFile = path.join(scratch, `rss-${count}`)
        const m = await memoryRun(cli, preload, small, count, rssFile, args.oldSpace)
        if (m.lines !== count || m.ok !== count)
          failures.set(`memory ${count}`, `${m.ok} of ${m.lines} lines ok, for ${count} jobs`)
        memoryRows.push([String(count), mib(m.peakRss), ms(m.ms), ms(m.ms / count)])
      } catch (error) {
        failures.set(`memory ${count}`, error instanceof Error ? error.message : String(error))
        memoryRows.push([String(count), 'error', 'error', 'error'])
      }
    }
    console.log(
      markdownTable(['jobs', 'peak RSS (MiB)', 'all jobs (ms)', 'per job (ms)'], memoryRows),
    )
    for (const [name, message] of failures)
      if (name.startsWith('memory')) console.log(`\n> row "${name}" failed: ${message}`)
    console.log(`\n${loadLine()}`)
    if (failures.size > 0) process.exitCode = 1
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

await main()
