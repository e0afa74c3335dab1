// What a replay keeps in memory as its history grows (the bound to keep: the tree's size, one
// commit's patch and at most 8 MiB of git's output read ahead, not the history's length).
// Replays REPO through the library and, at fixed commit counts, collects garbage twice and prints
// the live heap beside the tree's bytes and the largest commit's patch so far, then the process's
// peak RSS, which V8's lazy collection sets well above the live heap. Needs --expose-gc; prints.
// Run: npm run build && node --expose-gc dist/bench/replay-memory.js --repo DIR [--via MODE]
import { replay, type ReplayVia } from '../src/replay/replay.js'
import { machineLine, markdownTable, mib } from './report.js'

const MARKS = [1, 100, 500, 1000, 2000, 4000, 8000, 16000, 32000]

async function main(argv: readonly string[]): Promise<void> {
  let repo: string | null = null
  let via: ReplayVia = 'unified'
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--repo') repo = argv[++i] ?? null
    else if (argv[i] === '--via') via = (argv[++i] ?? 'unified') as ReplayVia
    else throw new Error(`unknown flag ${argv[i] ?? ''}`)
  }
  const gc = (globalThis as { gc?: () => void }).gc
  if (repo === null || gc === undefined)
    throw new Error('usage: node --expose-gc dist/bench/replay-memory.js --repo DIR [--via MODE]')
  console.log(`## replay memory\n\n${machineLine()}\n\nrepo ${repo}, via ${via}\n`)
  const rows: string[][] = []
  let largest = 0
  let commits = 0
  let tree: ReadonlyMap<string, { bytes: Uint8Array | null }> = new Map()
  const sample = () => {
    gc()
    gc()
    let bytes = 0
    for (const f of tree.values()) bytes += f.bytes?.length ?? 0
    const m = process.memoryUsage()
    const row = [commits, m.heapUsed, m.external, bytes, largest, m.rss]
    rows.push(row.map((v, i) => (i === 0 ? v.toLocaleString('en-US') : mib(v))))
  }
  const run = replay({ repo, via })
  for (let step = await run.next(); !step.done; step = await run.next()) {
    largest = Math.max(largest, step.value.bytes)
    commits = step.value.index + 1
    tree = step.value.tree
    if (MARKS.includes(commits)) sample()
  }
  // The last commit's tree is still the replay's (valid until a next step, and there is none).
  if (!MARKS.includes(commits)) sample()
  console.log(
    markdownTable(
      [
        'commits',
        'live heap MiB',
        'external MiB',
        'tree MiB',
        'largest patch so far MiB',
        'RSS MiB',
      ],
      rows,
    ),
  )
  console.log(`\npeak RSS ${mib(process.resourceUsage().maxRSS * 1024)} MiB`)
}

await main(process.argv.slice(2))
