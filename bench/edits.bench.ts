// Decides whether the formats agents send most, JSON str_replace edits and SEARCH/REPLACE blocks,
// cost what the same change costs as one Codex patch (the target: 200 edits on a 20,000-line file
// within 2x), whether that cost is linear in file size plus edits, and what one small edit costs
// in a warm engine (target: a dry run p50 under 0.3 ms, p99 under 1 ms). Every row is a warm
// in-process engine (`workers: false`) running `check` inline on a seeded generated file
// (bench/generate.ts); the three formats carry the same change (signatureChanges), and before
// timing each format's result is compared with the Codex one, so the rows do the same work.
// The small-edit table (targets: a dry run p50 under 0.3 ms, p99 under 1 ms; a `fast` commit p50
// under 1 ms) also times computeFile alone (decode, edit, encode, diff: the pure part in src/apply)
// so the rest of a request's time (paths, reads, hashing, the journal: src/engine, src/workspace
// and src/journal) can be read off as the difference. Its engines are warm the way a long-running
// host's are: the journal already holds `keep` (20) transactions, so each commit also prunes one,
// and it last changed over a second before the dry runs (a dry run right after a commit lists the
// journal again, D-112).
// Run: npm run build && node dist/bench/edits.bench.js   (tables paste into bench/RESULTS.md)
//      add --small for the small-edit table alone (about 10 s), and --baseline DIR to time the
//      same small edit through the engine built in another checkout (for example main: `git
//      archive main | tar -x -C DIR`, link node_modules, `npm run build` there) in the same
//      process, iterations interleaved, which is how a change to it is compared before and after
//      on a shared machine (separate runs differ by more than the change)
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Bench } from 'tinybench'
import { computeFile } from '../src/apply/compute.js'
// The internal engine: its requests take `route: 'inline'`, which a baseline build's pool needs.
import { createEngineWithInternals, type InternalEngine } from '../src/engine/engine.js'
import { parseEditsJson } from '../src/parse/edits.js'
import type { EngineOptions } from '../src/engine/api.js'
import type { FormatOption } from '../src/types.js'
import {
  codexFromChanges,
  editsFromChanges,
  generateWorkspace,
  searchReplaceFromChanges,
  signatureChanges,
  writeWorkspace,
  type Workspace,
} from './generate.js'
import { loadLine, machineLine, markdownTable, ms, p50, printFailures, ratio } from './report.js'

const LINES = 20_000
const EDIT_COUNTS = [1, 10, 50, 200] as const
/** The last row of the first table: 200 edits of one line each. */
const ONE_LINE = '200, one line each'
/** The sweep keeps one edit per 100 lines, so a linear cost shows as a flat time per line. */
const SWEEP_LINES = [2_500, 5_000, 10_000, 20_000, 40_000] as const
const SMALL_LINES = 2_000
/** The journal's default `keep`: a warm engine's journal holds this many transactions. */
const JOURNAL_KEEP = 20
/** Longer than the journal's RACY_MS, after which a dry run may reuse its listing (D-112). */
const SETTLE_MS = 1_100
/** --baseline: untimed rounds, then timed samples per build and row. */
const COMPARE_WARMUP = 300
const COMPARE_SAMPLES = 3_000

const OPTIONS = { time: 600, iterations: 10, warmupTime: 150, warmupIterations: 3 }
const SMALL_OPTIONS = { time: 2_000, iterations: 2_000, warmupTime: 300, warmupIterations: 200 }
const ASYNC = { async: true } as const
const SYNC = { async: false } as const

type Format = 'edits' | 'search-replace' | 'codex'
const FORMATS: readonly Format[] = ['edits', 'search-replace', 'codex']
const FORMAT_NAMES: Readonly<Record<Format, string>> = {
  edits: 'JSON edits',
  'search-replace': 'SEARCH/REPLACE',
  codex: 'Codex patch',
}

interface Workload {
  readonly root: string
  readonly engine: InternalEngine
  readonly inputs: Readonly<Record<Format, string>>
}

async function scratchDir(): Promise<string> {
  // tmpfs keeps disk writeback out of the numbers (and out of other people's way).
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir()
  return mkdtemp(path.join(base, 'patchloom-edits-bench-'))
}

/**
 * One file of `lines` lines and `edits` signature changes in all three formats: with 3 lines of
 * context on each side, or (`oneLine`) the changed line alone, which a JSON edit can only find by
 * searching the text (no whole line inside the old_string to look up, D-070).
 */
async function workload(
  scratch: string,
  lines: number,
  edits: number,
  oneLine = false,
): Promise<Workload> {
  const root = path.join(scratch, `ws-${lines}-${edits}${oneLine ? '-1' : ''}`)
  const ws: Workspace = generateWorkspace(1, lines, 9)
  await writeWorkspace(root, ws)
  const context = oneLine ? 0 : 3
  const changes = signatureChanges(ws, 1, edits, context, context)
  const inputs = {
    edits: editsFromChanges(changes),
    'search-replace': searchReplaceFromChanges(changes),
    codex: codexFromChanges(changes),
  }
  return { root, engine: createEngineWithInternals({ root, workers: false }), inputs }
}

/** Checks every format once and says (as a `>` line) when one differs from the Codex result. */
async function verify(w: Workload, label: string): Promise<void> {
  const hashes = new Map<Format, string>()
  for (const format of FORMATS) {
    try {
      const result = await w.engine.check(w.inputs[format], { format, route: 'inline' })
      hashes.set(format, result.files.map((f) => `${f.afterHash}`).join())
    } catch (error) {
      console.log(`> ${label}: ${format} failed: ${error instanceof Error ? error.message : error}`)
    }
  }
  for (const format of FORMATS) {
    if (hashes.get(format) !== hashes.get('codex')) {
      console.log(`> ${label}: ${format} gives a different result from the Codex patch`)
    }
  }
}

function addChecks(bench: Bench, w: Workload, label: string): void {
  for (const format of FORMATS) {
    const input = w.inputs[format]
    const options = { format: format as FormatOption, route: 'inline' as const }
    bench.add(`${label} ${format}`, async () => void (await w.engine.check(input, options)), ASYNC)
  }
}

async function formatsTable(scratch: string): Promise<void> {
  const bench = new Bench(OPTIONS)
  const loads: Workload[] = []
  for (const count of EDIT_COUNTS) {
    const w = await workload(scratch, LINES, count)
    await verify(w, `${count} edits`)
    addChecks(bench, w, `${count}`)
    loads.push(w)
  }
  const oneLine = await workload(scratch, LINES, 200, true)
  await verify(oneLine, ONE_LINE)
  addChecks(bench, oneLine, ONE_LINE)
  loads.push(oneLine)
  await bench.run()
  console.log(`### one file of ${LINES.toLocaleString('en')} lines, engine.check inline\n`)
  const rows = [...EDIT_COUNTS.map(String), ONE_LINE].map((label) => {
    const count = label === ONE_LINE ? 200 : Number(label)
    const codex = p50(bench, `${label} codex`)
    const json = p50(bench, `${label} edits`)
    const sr = p50(bench, `${label} search-replace`)
    return [
      label,
      ms(json),
      ratio(json, codex),
      ms(sr),
      ratio(sr, codex),
      ms(codex),
      ms(json / count),
    ]
  })
  const header = [
    'edits',
    `${FORMAT_NAMES.edits} p50 ms`,
    'x Codex',
    `${FORMAT_NAMES['search-replace']} p50 ms`,
    'x Codex',
    `${FORMAT_NAMES.codex} p50 ms`,
    'JSON ms per edit',
  ]
  console.log(markdownTable(header, rows))
  printFailures(bench)
  console.log(`\n${loadLine()}\n`)
  for (const w of loads) await w.engine.close()
}

async function sweepTable(scratch: string): Promise<void> {
  const bench = new Bench(OPTIONS)
  const loads: Workload[] = []
  for (const lines of SWEEP_LINES) {
    const w = await workload(scratch, lines, lines / 100)
    await verify(w, `${lines} lines`)
    addChecks(bench, w, `${lines}`)
    loads.push(w)
  }
  await bench.run()
  console.log('### file-size sweep: one edit per 100 lines, engine.check inline\n')
  const us = (valueMs: number, lines: number) =>
    Number.isNaN(valueMs) ? 'error' : ((valueMs * 1000) / lines).toFixed(2)
  const rows = SWEEP_LINES.map((lines) => {
    const cells = [lines.toLocaleString('en'), String(lines / 100)]
    for (const format of FORMATS) {
      const value = p50(bench, `${lines} ${format}`)
      cells.push(ms(value), us(value, lines))
    }
    return cells
  })
  const header = ['lines', 'edits']
  for (const format of FORMATS) header.push(`${FORMAT_NAMES[format]} p50 ms`, 'us per line')
  console.log(markdownTable(header, rows))
  printFailures(bench)
  console.log(`\n${loadLine()}\n`)
  for (const w of loads) await w.engine.close()
}

function percentile(bench: Bench, name: string, which: 'p50' | 'p99'): number {
  const result = bench.tasks.find((t) => t.name === name)?.result
  return result?.state === 'completed' ? result.latency[which] : Number.NaN
}

async function smallTable(scratch: string): Promise<void> {
  const side = await smallRows(scratch, 'small', THIS_BUILD)
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  const bench = new Bench(SMALL_OPTIONS)
  for (const row of side.rows) {
    const run = row.run
    bench.add(row.name, row.async ? async () => void (await run()) : run, row.async ? ASYNC : SYNC)
  }
  await bench.run()
  console.log(
    `### one str_replace on a ${SMALL_LINES.toLocaleString('en')}-line file, warm engine, inline\n`,
  )
  const rows = bench.tasks.map((task) => [
    task.name,
    ms(percentile(bench, task.name, 'p50')),
    ms(percentile(bench, task.name, 'p99')),
    String(task.result?.state === 'completed' ? task.result.latency.samplesCount : 0),
  ])
  console.log(markdownTable(['row', 'p50 ms', 'p99 ms', 'samples'], rows))
  printFailures(bench)
  console.log(`\n${loadLine()}\n`)
  await side.close()
}

/** The parts of an engine build the small-edit comparison drives: this one or a baseline's. */
interface Build {
  /**
   * This build's createEngineWithInternals, or a baseline build's createEngine (whose engines
   * honour `route` at run time too; in a build that old `route` was still a public option and the
   * worker switch was `pool`, not `workers`: with `route: 'inline'` its unused worker pool never
   * starts).
   */
  readonly createEngine: (options: EngineOptions) => InternalEngine
  readonly computeFile: typeof computeFile
  readonly parseEditsJson: typeof parseEditsJson
}

const THIS_BUILD: Build = {
  createEngine: (options) => createEngineWithInternals(options),
  computeFile,
  parseEditsJson,
}

async function loadBuild(dir: string): Promise<Build> {
  const at = (rel: string) => pathToFileURL(path.join(dir, 'dist', 'src', rel)).href
  const [index, compute, edits] = await Promise.all([
    import(at('index.js')) as Promise<{ createEngine: Build['createEngine'] }>,
    import(at('apply/compute.js')) as Promise<{ computeFile: Build['computeFile'] }>,
    import(at('parse/edits.js')) as Promise<{ parseEditsJson: Build['parseEditsJson'] }>,
  ])
  return {
    createEngine: index.createEngine,
    computeFile: compute.computeFile,
    parseEditsJson: edits.parseEditsJson,
  }
}

interface SmallRow {
  readonly name: string
  readonly async: boolean
  readonly run: () => unknown
}

/** The small edit's three rows for one build, each in workspaces of its own (see smallTable). */
async function smallRows(
  scratch: string,
  label: string,
  build: Build,
): Promise<{ rows: SmallRow[]; close: () => Promise<void> }> {
  const ws = generateWorkspace(1, SMALL_LINES, 9)
  const file = ws.files[0]!
  const [change] = signatureChanges(ws, 1, 1, 1, 1)
  if (change === undefined) throw new Error('edits.bench: no change to make')
  const forward = editsFromChanges([change])
  const back = editsFromChanges([{ ...change, before: change.after, after: change.before }])
  const options = { format: 'edits' as const, route: 'inline' as const }
  // Each apply flips the signature, so every iteration has one edit to make. The dry runs get a
  // workspace of their own: tinybench warms every task up before timing any, and an odd number
  // of flips would leave their edit nothing to find.
  const warm = async (name: string) => {
    const root = path.join(scratch, `${label}-${name}`)
    await writeWorkspace(root, ws)
    const engine = build.createEngine({ root, workers: false, durability: 'fast' })
    let flip = false
    const flipOnce = async () => {
      flip = !flip
      await engine.apply(flip ? forward : back, options)
    }
    for (let i = 0; i < JOURNAL_KEEP + 2; i++) await flipOnce()
    const close = async () => {
      if (flip) await flipOnce()
      await engine.close()
    }
    return { root, flipOnce, close }
  }
  const forCheck = await warm('check')
  const forApply = await warm('apply')
  const checkEngine = build.createEngine({ root: forCheck.root, workers: false })
  const source = new Uint8Array(await readFile(path.join(forCheck.root, file.path)))
  const parsed = build.parseEditsJson(forward)
  const op = parsed.ok ? parsed.value.ops[0] : undefined
  if (op === undefined) throw new Error('edits.bench: the small edit does not parse')
  await checkEngine.check(forward, options)
  return {
    rows: [
      {
        name: 'computeFile (src/apply only)',
        async: false,
        run: () => {
          const out = build.computeFile({ format: 'edits', op, source })
          if (!out.ok) throw new Error(out.error.message)
        },
      },
      {
        name: 'engine.check (dry run)',
        async: true,
        run: () => checkEngine.check(forward, options),
      },
      { name: 'engine.apply, durability fast', async: true, run: forApply.flipOnce },
    ],
    close: async () => {
      await Promise.all([checkEngine.close(), forCheck.close(), forApply.close()])
    },
  }
}

/**
 * `--baseline DIR`: the small edit through this build and DIR's, in one process, alternating
 * iteration by iteration, so a burst of load on the machine falls on both alike.
 */
async function smallComparison(scratch: string, dir: string): Promise<void> {
  const sides = [
    await smallRows(scratch, 'this', THIS_BUILD),
    await smallRows(scratch, 'baseline', await loadBuild(dir)),
  ]
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  const percentile = (sorted: readonly number[], q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number
  const table: string[][] = []
  for (const [r, { name }] of (sides[0] as (typeof sides)[number]).rows.entries()) {
    const runs = sides.map((side) => (side.rows[r] as SmallRow).run)
    const times: number[][] = runs.map(() => [])
    for (let i = 0; i < COMPARE_WARMUP; i++) for (const run of runs) await run()
    for (let i = 0; i < COMPARE_SAMPLES; i++) {
      for (const [k, run] of runs.entries()) {
        const start = performance.now()
        await run()
        ;(times[k] as number[]).push(performance.now() - start)
      }
    }
    const [mine, base] = times.map((t) => t.sort((a, b) => a - b)) as [number[], number[]]
    table.push([
      name,
      ms(percentile(mine, 0.5)),
      ms(percentile(mine, 0.99)),
      ms(percentile(base, 0.5)),
      ms(percentile(base, 0.99)),
      ratio(percentile(mine, 0.5), percentile(base, 0.5)),
    ])
  }
  console.log(
    `### the same small edit, this build against ${dir}, interleaved (${COMPARE_SAMPLES} samples each)\n`,
  )
  const header = ['row', 'p50 ms', 'p99 ms', 'baseline p50 ms', 'baseline p99 ms', 'p50 x baseline']
  console.log(markdownTable(header, table))
  console.log(`\n${loadLine()}\n`)
  for (const side of sides) await side.close()
}

async function main(): Promise<void> {
  console.log('## edits.bench\n')
  console.log(machineLine() + '\n')
  const scratch = await scratchDir()
  try {
    if (!process.argv.includes('--small')) {
      await formatsTable(scratch)
      await sweepTable(scratch)
    }
    await smallTable(scratch)
    const at = process.argv.indexOf('--baseline')
    if (at !== -1) {
      const dir = process.argv[at + 1]
      if (dir === undefined) throw new Error('edits.bench: --baseline needs a directory')
      await smallComparison(scratch, path.resolve(dir))
    }
  } finally {
    await rm(scratch, { recursive: true, force: true, maxRetries: 3 })
  }
}

await main()
