// Decides whether group commit pays: K clients (K = 1, 8, 32, 64) each committing a one-file
// transaction (a 4 KiB file of its own) in a closed loop through one Journal, durability `full`
// and `fast`, with batching on (the default) and off (`groupCommit: false`: one lock turn per
// commit), alternating on and off `--rounds` times. Reports commits/s and p50/p99 of one commit
// (call to return) per side, the medians over the rounds, and the mean batch size. The workspace
// is on the temp directory's disk (not tmpfs) unless --base says otherwise, so fsync costs what
// it costs there.
// Run: npm run build && node dist/bench/group-commit.bench.js [--ks 1,8,32,64] [--rounds 3] [--seconds 2] [--keep 20] [--base DIR]
import { writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { hashBytes } from '../src/hash.js'
import { Journal } from '../src/journal/journal.js'
import { fixedKeyTrust } from '../src/journal/trust.js'
import type { CommitBatchStats, Durability } from '../src/journal/records.js'
import { loadLine, machineLine, markdownTable, median } from './report.js'

const args = process.argv.slice(2)
const argOf = (name: string): string | undefined =>
  args.includes(name) ? args[args.indexOf(name) + 1] : undefined
const KS = (argOf('--ks') ?? '1,8,32,64').split(',').map(Number)
const ROUNDS = Number(argOf('--rounds') ?? 3)
const SECONDS = Number(argOf('--seconds') ?? 2)
const BASE = argOf('--base') ?? tmpdir()
/** Committed transactions kept (pruning deletes the older ones off the lock). */
const KEEP = Number(argOf('--keep') ?? 20)
const DURABILITIES = (argOf('--durability') ?? 'full,fast').split(',') as Durability[]
const FILE_BYTES = 4096
const KEY = new Uint8Array(32).fill(7)

interface Side {
  readonly commits: number
  readonly seconds: number
  readonly latencies: number[]
  readonly batches: number
}

function percentile(values: readonly number[], p: number): number {
  const s = [...values].sort((x, y) => x - y)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number
}

function content(client: number, version: number): Uint8Array {
  const line = `client ${client} version ${version} `.padEnd(63, '.') + '\n'
  return new TextEncoder().encode(line.repeat(FILE_BYTES / 64))
}

/** K clients committing their own file for SECONDS; every commit a real one (versions flip). */
async function run(k: number, durability: Durability, groupCommit: boolean): Promise<Side> {
  const root = await mkdtemp(path.join(BASE, 'patchloom-group-commit-'))
  try {
    const files = Array.from({ length: k }, (_, i) => path.join(root, `f${i}.txt`))
    const state = files.map((abs, i) => {
      const bytes = content(i, 0)
      writeFileSync(abs, bytes, { mode: 0o644 })
      return { bytes, hash: hashBytes(bytes), version: 0 }
    })
    let batches = 0
    const journal = new Journal({
      rootReal: root,
      durability,
      keep: KEEP,
      lockTimeoutMs: 60_000,
      trust: fixedKeyTrust(KEY, root),
      groupCommit,
      onCommitBatch: (_: CommitBatchStats) => void batches++,
    })
    const commitOnce = async (i: number): Promise<number> => {
      const s = state[i] as (typeof state)[number]
      const next = content(i, s.version + 1)
      const started = performance.now()
      await journal.commit(
        [
          {
            kind: 'write',
            abs: files[i] as string,
            rel: `f${i}.txt`,
            bytes: next,
            permissions: 0o644,
            before: { hash: s.hash, permissions: 0o644 },
            beforeBytes: s.bytes,
          },
        ],
        { kind: 'apply', files: [] },
      )
      const took = performance.now() - started
      s.bytes = next
      s.hash = hashBytes(next)
      s.version++
      return took
    }
    // Warm-up: one commit per client, untimed.
    await Promise.all(files.map((_, i) => commitOnce(i)))
    batches = 0
    const latencies: number[] = []
    const started = performance.now()
    const deadline = started + SECONDS * 1000
    await Promise.all(
      files.map(async (_, i) => {
        while (performance.now() < deadline) latencies.push(await commitOnce(i))
      }),
    )
    const seconds = (performance.now() - started) / 1000
    await journal.settled()
    return { commits: latencies.length, seconds, latencies, batches }
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  console.log('## group-commit.bench: K concurrent one-file commits, batching on vs off\n')
  console.log(machineLine())
  console.log(
    `${SECONDS} s per side, ${ROUNDS} rounds alternating on/off, medians over the rounds; ${FILE_BYTES / 1024} KiB files in ${BASE}; keep ${KEEP}\n`,
  )
  const rows: string[][] = []
  for (const durability of DURABILITIES) {
    for (const k of KS) {
      const on: Side[] = []
      const off: Side[] = []
      for (let r = 0; r < ROUNDS; r++) {
        // Alternating which side goes first, so a drift in the disk's speed hits both alike.
        if (r % 2 === 0) {
          on.push(await run(k, durability, true))
          off.push(await run(k, durability, false))
        } else {
          off.push(await run(k, durability, false))
          on.push(await run(k, durability, true))
        }
      }
      const rate = (sides: Side[]): number => median(sides.map((s) => s.commits / s.seconds))
      const p = (sides: Side[], q: number): number =>
        median(sides.map((s) => percentile(s.latencies, q)))
      const perBatch = median(on.map((s) => s.commits / Math.max(1, s.batches)))
      rows.push([
        durability,
        String(k),
        rate(off).toFixed(0),
        rate(on).toFixed(0),
        `${(rate(on) / rate(off)).toFixed(2)}x`,
        p(off, 50).toFixed(2),
        p(on, 50).toFixed(2),
        p(off, 99).toFixed(2),
        p(on, 99).toFixed(2),
        perBatch.toFixed(1),
      ])
      console.error(`done: ${durability} K=${k}`)
    }
  }
  console.log(
    markdownTable(
      [
        'durability',
        'K clients',
        'off: commits/s',
        'on: commits/s',
        'on / off',
        'off: p50 ms',
        'on: p50 ms',
        'off: p99 ms',
        'on: p99 ms',
        'on: commits per batch',
      ],
      rows,
    ),
  )
  console.log('\n' + loadLine())
}

await main()
