// Decides where matching time goes on a large file, pass by pass, using the pure functions:
// findLineMatches (the ladder: exact -> trim-end -> trim -> fold), findCandidates (near-miss
// scoring after a miss) and applyHunks (locate + splice for a whole file). "cold" rows hand the
// ladder a fresh array each iteration, so the per-pass keys are built and the first lookup scans;
// "warm" rows reuse one array, so after SCANS_BEFORE_MAP lookups the cached positions map answers.
// Down the cold column, each row adds one pass's cost to the one above. Cells are medians and the
// ratio to the exact cold hit in the same run. PERF comments in src/match cite these rows.
// Run: npm run build && node dist/bench/match.bench.js   (tables paste into bench/RESULTS.md)
import { Bench } from 'tinybench'
import { applyHunks } from '../src/apply/apply-hunks.js'
import { findCandidates } from '../src/match/candidates.js'
import { cachedIndex, findLineMatches, findLineMatchesIn } from '../src/match/ladder.js'
import { parseCodexPatch } from '../src/parse/codex.js'
import { parseUnifiedDiff } from '../src/parse/unified.js'
import type { Result } from '../src/result.js'
import { splitLines } from '../src/text/lines.js'
import type { EditPlan, LineHunk, LocateMode, PatchFormat } from '../src/types.js'
import {
  codexFromChanges,
  generateWorkspace,
  signatureChanges,
  unifiedFromChanges,
  type Workspace,
} from './generate.js'
import { loadLine, machineLine, markdownTable, p50, printFailures, ratio } from './report.js'

const LINES = 20_000
const BLOCK = 4

const us = (valueMs: number) => (Number.isNaN(valueMs) ? 'error' : (valueMs * 1000).toFixed(1))

const ws: Workspace = generateWorkspace(1, LINES, 21)
const file = ws.files[0]!
const lines: readonly string[] = file.lines
/** The last function header: the block starting there is unique and sits at the end of the file. */
const last = lines.findLastIndex((line) => line.startsWith('export function'))
const block = lines.slice(last, last + BLOCK)

/** The file with trailing blanks on the block only: exact misses, trim-end hits. */
const trailing = lines.map((line, i) => (i >= last && i < last + BLOCK ? `${line}  ` : line))
/** The block re-indented with a tab: exact and trim-end miss, trim hits. */
const reindented = block.map((line) => `\t${line.trim()}`)
/** The block with no-break spaces (text copied from a rendered page): only fold hits. */
const nbsp = block.map((line) => line.replace(/(\S) (\S)/g, '$1\u00a0$2'))
/** A header that does not exist plus three common body lines: every pass misses. */
const missing = [block[0]!.replace(/f0_\d+/, 'f0_999999'), ...block.slice(1)]
/** Nothing equal to any file line even after folding: candidates fall back to line similarity. */
const unlike = [
  'export function g0_9999(input: string): Result {',
  '  const result = compute(input, options)',
  '  return ok(result)',
  '  // done',
]

interface LadderRow {
  readonly name: string
  readonly file: readonly string[]
  readonly wanted: readonly string[]
  readonly expect: string
}

const LADDER: readonly LadderRow[] = [
  { name: 'exact hit at end of 20k-line file', file: lines, wanted: block, expect: 'exact' },
  { name: 'trailing-whitespace hit (trim-end)', file: trailing, wanted: block, expect: 'trim-end' },
  { name: 'indentation hit (trim)', file: lines, wanted: reindented, expect: 'trim' },
  { name: 'no-break-space hit (fold)', file: lines, wanted: nbsp, expect: 'fold' },
  { name: 'miss (all four passes)', file: lines, wanted: missing, expect: 'none' },
]

function ladderTable(): Bench {
  const bench = new Bench({ time: 500, warmupTime: 100 })
  for (const row of LADDER) {
    const found = findLineMatches(row.file, row.wanted, 0, row.file.length)
    // A row that hits a different pass would time the wrong thing: say so, outside the timing.
    if ((found?.pass ?? 'none') !== row.expect) {
      console.log(`> "${row.name}" found ${found?.pass ?? 'nothing'}, expected ${row.expect}`)
    }
    const { file: rows, wanted } = row
    bench.add(`${row.name}, cold`, () => findLineMatches(rows.slice(), wanted, 0, rows.length), {
      async: false,
    })
    const warm = rows.slice()
    bench.add(`${row.name}, warm`, () => findLineMatches(warm, wanted, 0, warm.length), {
      async: false,
    })
  }
  // findLineMatches re-validates the cached snapshot (a walk over every line) on each call;
  // locate.ts holds the index and skips that. This row prices the walk.
  const held = cachedIndex(lines.slice())
  bench.add(
    'exact hit at end of 20k-line file, index held (locate.ts path)',
    () => findLineMatchesIn(held, block, 0, held.lines.length),
    { async: false },
  )
  const warmFile = lines.slice()
  findLineMatches(warmFile, missing, 0, warmFile.length)
  // After a miss the engine asks for candidates with every pass already built (warm).
  bench.add('candidates after a miss (fold votes)', () => findCandidates(warmFile, missing), {
    async: false,
  })
  bench.add(
    'candidates, no line in common (similarity fallback)',
    () => findCandidates(warmFile, unlike),
    {
      async: false,
    },
  )
  bench.add('candidates after a miss, cold', () => findCandidates(lines.slice(), missing), {
    async: false,
  })
  return bench
}

function plan(result: Result<EditPlan>): readonly LineHunk[] {
  if (!result.ok) throw new Error(result.error.message)
  const op = result.value.ops[0]
  if (op === undefined || op.kind !== 'update') throw new Error('expected one update op')
  return op.hunks
}

interface HunkRow {
  readonly name: string
  readonly text: string
  readonly hunks: readonly LineHunk[]
  readonly mode: LocateMode
  readonly format: PatchFormat
}

function hunkRows(): HunkRow[] {
  const text = lines.join('\n') + '\n'
  // Every line ends in a blank: each hunk misses exact and is found by trim-end.
  const trailingText = lines.map((line) => `${line} `).join('\n') + '\n'
  const eight = signatureChanges(ws, 1, 8)
  const many = signatureChanges(ws, 1, 64)
  return [
    {
      name: '8 Codex hunks (cursor), 20k-line file',
      text,
      hunks: plan(parseCodexPatch(codexFromChanges(eight))),
      mode: 'cursor',
      format: 'codex',
    },
    {
      name: '8 unified hunks (near-line), 20k-line file',
      text,
      hunks: plan(parseUnifiedDiff(unifiedFromChanges(eight))),
      mode: 'near-line',
      format: 'unified',
    },
    {
      name: '64 Codex hunks (cursor), 20k-line file',
      text,
      hunks: plan(parseCodexPatch(codexFromChanges(many))),
      mode: 'cursor',
      format: 'codex',
    },
    {
      name: '8 Codex hunks, trailing blank on every file line (trim-end)',
      text: trailingText,
      hunks: plan(parseCodexPatch(codexFromChanges(eight))),
      mode: 'cursor',
      format: 'codex',
    },
  ]
}

function applyTable(): Bench {
  const bench = new Bench({ time: 500, warmupTime: 100 })
  const text = lines.join('\n') + '\n'
  bench.add('splitLines of the 20k-line file (for scale)', () => splitLines(text), { async: false })
  for (const row of hunkRows()) {
    // applyHunks leaves its input untouched and indexes it afresh per call (indexLines, not the
    // cache), so one split array serves every iteration and the timing is applyHunks alone.
    const input = {
      lines: splitLines(row.text),
      hunks: row.hunks,
      mode: row.mode,
      format: row.format,
      path: file.path,
      exactOnly: false,
    }
    const once = applyHunks(input)
    if (!once.ok) console.log(`> "${row.name}" failed: ${once.error.message}`)
    bench.add(`applyHunks: ${row.name}`, () => applyHunks(input), { async: false })
  }
  return bench
}

function print(bench: Bench): void {
  const baseline = p50(bench, bench.tasks[0]!.name)
  const rows = bench.tasks.map((task) => {
    const value = p50(bench, task.name)
    return [task.name, us(value), ratio(value, baseline)]
  })
  console.log(markdownTable(['task', 'p50 us', `x ${bench.tasks[0]!.name}`], rows))
  printFailures(bench)
}

export async function main(): Promise<void> {
  console.log(`## match.bench\n\n${machineLine()}\n`)
  const ladder = ladderTable()
  await ladder.run()
  console.log('### ladder and candidates\n')
  print(ladder)
  const apply = applyTable()
  await apply.run()
  console.log('\n### applyHunks (locate + splice, whole file)\n')
  print(apply)
  console.log(`\n${loadLine()}`)
}

await main()
