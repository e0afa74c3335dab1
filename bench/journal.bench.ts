// Decides where the journal's commit time goes and whether it keeps up with plain writes: a
// commit of N files (16 KiB each) through `Journal.commit`, durability `fast` and `full`,
// against baselines measured in the same run on the same paths (a loop of writeFileSync, the
// same bytes through fs/promises 16 at a time, and `git apply` of an equivalent one-line-per-file
// patch, whole process); the one-file commit's p50/p99 on its own and through a warm engine
// (`engine.apply` of one str_replace edit, durability `fast`); and what rolling a commit back
// costs, in-process (the mark fails) and by recovery (a commit interrupted before its mark), with
// the journal filesystem calls each makes. Every commit is a real one: the tree flips between
// two versions, so each iteration's before state is the previous one's after state.
// Run: npm run build && node dist/bench/journal.bench.js [--sizes 1,100,1000,10000] [--quick]
//      [--base DIR] [--no-commit] [--no-small] [--no-rollback]
// Trees live on tmpfs (/dev/shm) when there is one, so disk writeback does not blur the numbers.
import { spawnSync } from 'node:child_process'
import { existsSync, lstatSync, mkdirSync, writeFileSync } from 'node:fs'
import { mkdtemp, rename, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createEngine } from '../src/index.js'
import { hashBytes } from '../src/hash.js'
import { nodeJournalFs, type JournalFs } from '../src/journal/fs.js'
import { Journal } from '../src/journal/journal.js'
import { fixedKeyTrust } from '../src/journal/trust.js'
import { prng } from './generate.js'
import type {
  CommitStep,
  Durability,
  ReadStamp,
  TransactionSummary,
} from '../src/journal/records.js'
import { loadLine, machineLine, markdownTable, ms, ratio } from './report.js'

const FILE_BYTES = 16 * 1024
const LINE_CHARS = 63 // + '\n': 256 lines of 64 bytes per file
const FILES_PER_DIR = 100
const KEY = new Uint8Array(32).fill(7)

const args = process.argv.slice(2)
/** --base DIR puts the trees on another filesystem (a disk, to see what fsync costs there). */
const baseArg = args.includes('--base') ? args[args.indexOf('--base') + 1] : undefined
const TEMP_BASE = baseArg ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir())
const QUICK = args.includes('--quick')
const sizesArg = args[args.indexOf('--sizes') + 1]
const SIZES: readonly number[] =
  args.includes('--sizes') && sizesArg !== undefined
    ? sizesArg.split(',').map(Number)
    : QUICK
      ? [1, 100]
      : [1, 100, 1_000, 10_000]

/** Timed iterations per size: large commits are slow and their medians steady. */
function iterationsFor(files: number): number {
  if (QUICK) return files === 1 ? 50 : 3
  if (files <= 1) return 400
  if (files <= 100) return 40
  if (files <= 1_000) return 10
  return 3
}

interface Tree {
  readonly root: string
  readonly rels: readonly string[]
  readonly abs: readonly string[]
  /** Version A and B of each file: B changes line CHANGED_LINE (0-based). */
  readonly a: readonly Uint8Array[]
  readonly b: readonly Uint8Array[]
  readonly hashA: readonly string[]
  readonly hashB: readonly string[]
}

const LINES = FILE_BYTES / (LINE_CHARS + 1)
const CHANGED_LINE = LINES / 2

function fileLines(random: () => number): string[] {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz     '
  return Array.from({ length: LINES }, () => {
    let line = ''
    for (let i = 0; i < LINE_CHARS; i++) line += alphabet[Math.floor(random() * alphabet.length)]
    return line
  })
}

async function makeTree(files: number, seed: number): Promise<Tree> {
  const root = await mkdtemp(path.join(TEMP_BASE, 'patchloom-journal-bench-'))
  const random = prng(seed)
  const rels: string[] = []
  const a: Uint8Array[] = []
  const b: Uint8Array[] = []
  const enc = new TextEncoder()
  for (let i = 0; i < files; i++) {
    const dir = `d${String(Math.floor(i / FILES_PER_DIR)).padStart(4, '0')}`
    const rel = `${dir}/f${String(i % FILES_PER_DIR).padStart(2, '0')}.txt`
    const lines = fileLines(random)
    rels.push(rel)
    a.push(enc.encode(lines.join('\n') + '\n'))
    lines[CHANGED_LINE] = `changed ${i}`.padEnd(LINE_CHARS, '.')
    b.push(enc.encode(lines.join('\n') + '\n'))
  }
  const abs = rels.map((rel) => path.join(root, ...rel.split('/')))
  for (const [i, p] of abs.entries()) {
    mkdirSync(path.dirname(p), { recursive: true })
    writeFileSync(p, a[i] as Uint8Array, { mode: 0o644 })
  }
  return { root, rels, abs, a, b, hashA: a.map(hashBytes), hashB: b.map(hashBytes) }
}

/** The steps that turn every file from `from` into `to` (as the engine builds them). */
function stepsFor(tree: Tree, toB: boolean, withAfterHash: boolean): CommitStep[] {
  return tree.rels.map((rel, i) => ({
    kind: 'write' as const,
    abs: tree.abs[i] as string,
    rel,
    bytes: (toB ? tree.b[i] : tree.a[i]) as Uint8Array,
    permissions: 0o644,
    before: { hash: (toB ? tree.hashA[i] : tree.hashB[i]) as string, permissions: 0o644 },
    ...(withAfterHash ? { afterHash: (toB ? tree.hashB[i] : tree.hashA[i]) as string } : {}),
  }))
}

function summaryOf(tree: Tree): TransactionSummary {
  return {
    kind: 'apply',
    files: tree.rels.map((p) => ({ path: p, op: 'update', additions: 1, deletions: 1 })),
  }
}

/** The unified diff git would print for A -> B (one changed line per file, 3 lines context). */
function unifiedPatch(tree: Tree): string {
  const dec = new TextDecoder()
  const out: string[] = []
  for (const [i, rel] of tree.rels.entries()) {
    const before = dec.decode(tree.a[i]).split('\n')
    const after = dec.decode(tree.b[i]).split('\n')
    const start = CHANGED_LINE - 3
    out.push(`diff --git a/${rel} b/${rel}`, `--- a/${rel}`, `+++ b/${rel}`)
    out.push(`@@ -${start + 1},7 +${start + 1},7 @@`)
    for (let l = start; l < CHANGED_LINE; l++) out.push(' ' + before[l])
    out.push('-' + before[CHANGED_LINE], '+' + after[CHANGED_LINE])
    for (let l = CHANGED_LINE + 1; l <= CHANGED_LINE + 3; l++) out.push(' ' + before[l])
  }
  return out.join('\n') + '\n'
}

function median(values: readonly number[]): number {
  const s = [...values].sort((x, y) => x - y)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}

function percentile(values: readonly number[], p: number): number {
  const s = [...values].sort((x, y) => x - y)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number
}

/** Times `run` `iterations` times after one untimed warm-up; run(i) flips the tree each time. */
async function timeFlips(
  iterations: number,
  run: (toB: boolean) => Promise<void> | void,
  state: { toB: boolean },
): Promise<number[]> {
  await run(state.toB)
  state.toB = !state.toB
  const samples: number[] = []
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now()
    await run(state.toB)
    samples.push(performance.now() - t0)
    state.toB = !state.toB
  }
  return samples
}

/**
 * Read stamps as the engine would take them when reading each file (ReadStamp, D-082), after a
 * pause: a file changed within RACY_MS of its read is hashed anyway, and the tree was just
 * flipped. The pause and the lstats are untimed.
 */
async function stampsAfterPause(tree: Tree): Promise<ReadStamp[]> {
  await new Promise((resolve) => setTimeout(resolve, 1_100))
  const readStartMs = Date.now()
  return tree.abs.map((p) => {
    const st = lstatSync(p, { bigint: true })
    return {
      ino: Number(st.ino),
      size: Number(st.size),
      mtimeNs: st.mtimeNs,
      ctimeNs: st.ctimeNs,
      readStartMs,
    }
  })
}

/** A JournalFs that counts its calls by method; `fail` may fail one chosen call with an errno. */
function countingFs(fail?: (method: string, args: readonly unknown[]) => boolean): {
  fs: JournalFs
  counts: Map<string, number>
  total: () => number
} {
  const counts = new Map<string, number>()
  const wrapped: Record<string, unknown> = {}
  for (const [method, fn] of Object.entries(nodeJournalFs)) {
    const call = fn as (...a: unknown[]) => Promise<unknown>
    wrapped[method] = async (...a: unknown[]) => {
      counts.set(method, (counts.get(method) ?? 0) + 1)
      if (fail?.(method, a) === true)
        throw Object.assign(new Error(`EIO: injected, ${method}`), { code: 'EIO' })
      return call(...a)
    }
  }
  return {
    fs: wrapped as unknown as JournalFs,
    counts,
    total: () => [...counts.values()].reduce((s, n) => s + n, 0),
  }
}

/** Writes version A everywhere (untimed), so the next flip goes A -> B. */
function resetToA(tree: Tree, state: { toB: boolean }): void {
  for (const [i, p] of tree.abs.entries()) writeFileSync(p, tree.a[i] as Uint8Array)
  state.toB = true
}

function journalFor(root: string, durability: Durability, fs?: JournalFs): Journal {
  return new Journal({
    rootReal: root,
    durability,
    keep: 20,
    lockTimeoutMs: 10_000,
    trust: fixedKeyTrust(KEY, root),
    ...(fs === undefined ? {} : { fs }),
  })
}

function gitApply(root: string, patchPath: string, reverse: boolean): void {
  const r = spawnSync('git', ['apply', ...(reverse ? ['-R'] : []), patchPath], { cwd: root })
  if (r.status !== 0) throw new Error(`git apply failed: ${r.stderr.toString()}`)
}

async function commitTable(): Promise<void> {
  const header = [
    'files (16 KiB each)',
    'writeFileSync loop',
    'fs/promises x16',
    'git apply',
    'commit fast',
    'commit fast, read stamps',
    'commit full',
    'full - fast (sync cost)',
    'fast per file',
    'fs calls (fast)',
  ]
  const rows: string[][] = []
  for (const files of SIZES) {
    const tree = await makeTree(files, files)
    const iterations = iterationsFor(files)
    const state = { toB: true }
    const sync = await timeFlips(
      iterations,
      (toB) => {
        for (const [i, p] of tree.abs.entries())
          writeFileSync(p, (toB ? tree.b[i] : tree.a[i]) as Uint8Array)
      },
      state,
    )
    const parallel = await timeFlips(
      iterations,
      async (toB) => {
        let next = 0
        const lane = async (): Promise<void> => {
          while (next < tree.abs.length) {
            const i = next++
            await writeFile(tree.abs[i] as string, (toB ? tree.b[i] : tree.a[i]) as Uint8Array)
          }
        }
        await Promise.all(Array.from({ length: 16 }, lane))
      },
      state,
    )
    // git apply expects A: bring the tree there first.
    resetToA(tree, state)
    const patchPath = path.join(tree.root, '..', path.basename(tree.root) + '.diff')
    await writeFile(patchPath, unifiedPatch(tree))
    const git = await timeFlips(iterations, (toB) => gitApply(tree.root, patchPath, !toB), state)
    await rm(patchPath, { force: true })
    resetToA(tree, state)
    const timed: Record<Durability, number> = { fast: Number.NaN, full: Number.NaN }
    let calls = 0
    const summary = summaryOf(tree)
    for (const durability of ['fast', 'full'] as const) {
      // Timed through the production JournalFs; the calls are counted in one more commit.
      const journal = journalFor(tree.root, durability)
      const samples = await timeFlips(
        iterations,
        async (toB) => {
          await journal.commit(stepsFor(tree, toB, true), summary)
        },
        state,
      )
      timed[durability] = median(samples)
    }
    // The same fast commit with read stamps (the engine does not pass them yet, D-082).
    const stampedSamples: number[] = []
    const stampedJournal = journalFor(tree.root, 'fast')
    for (let i = 0; i < Math.min(iterations, 5) + 1; i++) {
      const stamps = await stampsAfterPause(tree)
      const steps = stepsFor(tree, state.toB, true).map((step, j) => ({
        ...step,
        beforeStamp: stamps[j] as ReadStamp,
      }))
      const t0 = performance.now()
      await stampedJournal.commit(steps, summary)
      if (i > 0) stampedSamples.push(performance.now() - t0)
      state.toB = !state.toB
    }
    const stamped = median(stampedSamples)
    const counter = countingFs()
    await journalFor(tree.root, 'fast', counter.fs).commit(stepsFor(tree, state.toB, true), summary)
    state.toB = !state.toB
    calls = counter.total()
    const syncMs = median(sync)
    rows.push([
      String(files),
      `${ms(syncMs)} (1.00x)`,
      `${ms(median(parallel))} (${ratio(median(parallel), syncMs)})`,
      `${ms(median(git))} (${ratio(median(git), syncMs)})`,
      `${ms(timed.fast)} (${ratio(timed.fast, syncMs)})`,
      `${ms(stamped)} (${ratio(stamped, syncMs)})`,
      `${ms(timed.full)} (${ratio(timed.full, syncMs)})`,
      `${ms(timed.full - timed.fast)} (${ratio(timed.full, timed.fast)} of fast)`,
      `${ms(timed.fast / files)}`,
      String(calls),
    ])
    await rm(tree.root, { recursive: true, force: true })
  }
  console.log('\n### commit N files (p50 ms, x writeFileSync loop)\n')
  console.log(markdownTable(header, rows))
  console.log(`\n${loadLine()}`)
}

async function smallTable(): Promise<void> {
  const iterations = QUICK ? 50 : 1_000
  const rows: string[][] = []
  // The journal alone, one file.
  for (const durability of ['fast', 'full'] as const) {
    const tree = await makeTree(1, 42)
    const journal = journalFor(tree.root, durability)
    const summary = summaryOf(tree)
    const samples = await timeFlips(
      iterations,
      async (toB) => {
        await journal.commit(stepsFor(tree, toB, true), summary)
      },
      { toB: true },
    )
    rows.push([
      `Journal.commit, 1 file, ${durability}`,
      ms(median(samples)),
      ms(percentile(samples, 99)),
    ])
    await rm(tree.root, { recursive: true, force: true })
  }
  // A warm engine, one str_replace on a 2,000-line file.
  for (const durability of ['fast', 'full'] as const) {
    const root = await mkdtemp(path.join(TEMP_BASE, 'patchloom-journal-bench-'))
    const random = prng(7)
    const lines = Array.from({ length: 2_000 }, (_, i) => `line ${i} ${random().toString(36)}`)
    await writeFile(path.join(root, 'big.txt'), lines.join('\n') + '\n')
    const engine = createEngine({ root, durability, workers: false })
    const edit = (toB: boolean): string =>
      JSON.stringify({
        edits: [
          {
            path: 'big.txt',
            old_string: toB ? lines[1_000] : 'replaced line 1000',
            new_string: toB ? 'replaced line 1000' : lines[1_000],
          },
        ],
      })
    const dry = await timeFlips(
      iterations,
      async () => {
        // apply rejects on failure; a result means the dry run verified.
        await engine.apply(edit(true), { dryRun: true })
      },
      { toB: true },
    )
    const samples = await timeFlips(
      iterations,
      async (toB) => {
        const r = await engine.apply(edit(toB))
        if (r.transaction === undefined)
          throw new Error(`journal bench: apply committed nothing: ${JSON.stringify(r)}`)
      },
      { toB: true },
    )
    await engine.close()
    if (durability === 'fast')
      rows.push([
        'engine.apply dry run, 1 str_replace, 2,000 lines',
        ms(median(dry)),
        ms(percentile(dry, 99)),
      ])
    rows.push([
      `engine.apply, 1 str_replace, 2,000 lines, ${durability}`,
      ms(median(samples)),
      ms(percentile(samples, 99)),
    ])
    await rm(root, { recursive: true, force: true })
  }
  console.log(`\n### one-file commit (${iterations} commits each, keep 20)\n`)
  console.log(markdownTable(['task', 'p50 ms', 'p99 ms'], rows))
  console.log(`\n${loadLine()}`)
}

async function rollbackTable(): Promise<void> {
  const rows: string[][] = []
  const sizes = SIZES.filter((n) => n > 1 && n <= 1_000)
  for (const files of sizes.length === 0 ? [100] : sizes) {
    for (const durability of ['fast', 'full'] as const) {
      const tree = await makeTree(files, files + 1)
      const summary = summaryOf(tree)
      const iterations = Math.max(3, Math.min(10, iterationsFor(files)))
      // A commit that succeeds, for scale (timed without the counting wrapper, counted once).
      const okJournal = journalFor(tree.root, durability)
      const state = { toB: true }
      const okSamples = await timeFlips(
        iterations,
        async (toB) => {
          await okJournal.commit(stepsFor(tree, toB, true), summary)
        },
        state,
      )
      const ok = countingFs()
      await journalFor(tree.root, durability, ok.fs).commit(
        stepsFor(tree, state.toB, true),
        summary,
      )
      state.toB = !state.toB
      const okCalls = ok.total()
      // In-process: every file replaced, then the mark (the rename of <id>.pending) fails.
      const failing = countingFs(
        (method, a) => method === 'rename' && String(a[0]).endsWith('.pending'),
      )
      const failJournal = journalFor(tree.root, durability, failing.fs)
      // A rolled-back commit leaves the tree as it was: every attempt makes the same change.
      const failSamples: number[] = []
      for (let i = 0; i <= iterations; i++) {
        const t0 = performance.now()
        const outcome = await failJournal.commit(stepsFor(tree, state.toB, true), summary).then(
          () => 'committed',
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        )
        if (i > 0) failSamples.push(performance.now() - t0)
        if (!outcome.includes('rolled back'))
          throw new Error(`journal bench: expected a rolled-back commit, got: ${outcome}`)
      }
      const failCalls = Math.round(failing.total() / (iterations + 1))
      // Recovery: a committed transaction renamed back to pending is exactly one interrupted
      // after its last file and before its mark (new/ is gone, backups and manifest in place).
      const journalDir = path.join(tree.root, '.patchloom', 'journal')
      const recoverSamples: number[] = []
      let recoverCalls = 0
      for (let i = 0; i < iterations; i++) {
        await okJournal.commit(stepsFor(tree, state.toB, true), summary)
        const newest = (await readdir(journalDir)).sort().at(-1) as string
        await rename(path.join(journalDir, newest), path.join(journalDir, newest + '.pending'))
        const counter = countingFs()
        const recovering = journalFor(tree.root, durability, counter.fs)
        const t0 = performance.now()
        const report = await recovering.recover()
        recoverSamples.push(performance.now() - t0)
        if (report.rolledBack.length !== 1) throw new Error('journal bench: recovery missed')
        recoverCalls = counter.total()
      }
      rows.push([
        `${files} files, ${durability}`,
        `${ms(median(okSamples))} (${okCalls})`,
        `${ms(median(failSamples))} (${failCalls})`,
        `${ms(median(recoverSamples))} (${recoverCalls})`,
      ])
      await rm(tree.root, { recursive: true, force: true })
    }
  }
  console.log('\n### rollback (p50 ms, journal fs calls per run in parentheses)\n')
  console.log(
    markdownTable(
      [
        'change',
        'commit',
        'commit whose mark fails, rolled back in-process',
        'recovery of one interrupted before its mark',
      ],
      rows,
    ),
  )
  console.log(`\n${loadLine()}`)
}

async function main(): Promise<void> {
  console.log('## journal.bench\n')
  console.log(machineLine())
  console.log(
    `trees on ${TEMP_BASE}; UV_THREADPOOL_SIZE ${process.env['UV_THREADPOOL_SIZE'] ?? '4 (default)'}`,
  )
  if (!args.includes('--no-commit')) await commitTable()
  if (!args.includes('--no-small')) await smallTable()
  if (!args.includes('--no-rollback')) await rollbackTable()
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
