// Decides whether any parser needs work before it can sit in front of the matcher: each parser
// (Codex, unified, SEARCH/REPLACE, JSON edits) parses the SAME change rendered in its format, on
// small, large and pathological inputs (a 10k-line hunk, 1k files, a block of repeated lines
// where every other line changes, the worst case for SEARCH/REPLACE's line diff). Cells are
// medians and the ratio to the Codex parser on the same change in the same run; a ratio far
// above the others, or a time that grows faster than the input, marks the parser to look at.
// It also shows the cost of parsing on the event loop (the engine's thread parses all but a split
// git diff).
// Run: npm run build && node dist/bench/parse.bench.js   (tables paste into bench/RESULTS.md)
import { Bench } from 'tinybench'
import { parseCodexPatch } from '../src/parse/codex.js'
import { parseEditsJson } from '../src/parse/edits.js'
import { parseSearchReplace } from '../src/parse/search-replace.js'
import { parseUnifiedDiff } from '../src/parse/unified.js'
import type { Result } from '../src/result.js'
import type { EditPlan } from '../src/types.js'
import {
  blockChange,
  codexFromChanges,
  editsFromChanges,
  generateFile,
  generateWorkspace,
  prng,
  searchReplaceFromChanges,
  signatureChanges,
  unifiedFromChanges,
  type BlockChange,
  type GeneratedFile,
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

interface Input {
  readonly name: string
  readonly changes: readonly BlockChange[]
}

/** Every line the same boilerplate: the worst case for a line diff (no unique anchors). */
function repeatedFile(lineCount: number): GeneratedFile {
  return {
    path: 'src/repeated.ts',
    lines: Array.from({ length: lineCount }, () => '  log.debug(value)'),
  }
}

function inputs(): Input[] {
  const small = generateWorkspace(1, 200, 11)
  const large = generateWorkspace(50, 2_000, 12)
  const many = generateWorkspace(1_000, 40, 13)
  const big = generateFile(0, 10_000, prng(14))
  return [
    { name: 'small: 1 file, 2 hunks', changes: signatureChanges(small, 1, 2) },
    { name: 'large: 50 files, 8 hunks each', changes: signatureChanges(large, 50, 8) },
    {
      name: 'one 10k-line hunk, every 10th line changed',
      changes: [blockChange(big, 0, 10_000, 10)],
    },
    { name: '1k files, 1 hunk each', changes: signatureChanges(many, 1_000, 1) },
    {
      name: '4k repeated lines, every 2nd changed',
      changes: [blockChange(repeatedFile(4_000), 0, 4_000, 2)],
    },
  ]
}

interface Parser {
  readonly format: string
  readonly render: (changes: readonly BlockChange[]) => string
  readonly parse: (text: string) => Result<EditPlan>
}

const PARSERS: readonly Parser[] = [
  { format: 'codex', render: codexFromChanges, parse: parseCodexPatch },
  { format: 'unified', render: unifiedFromChanges, parse: parseUnifiedDiff },
  { format: 'search-replace', render: searchReplaceFromChanges, parse: parseSearchReplace },
  { format: 'edits', render: editsFromChanges, parse: parseEditsJson },
]

export async function main(): Promise<void> {
  console.log(`## parse.bench\n\n${machineLine()}\n`)
  const rows: string[][] = []
  for (const input of inputs()) {
    // A parser taking seconds on a pathological input gets 8 samples, not tinybench's 64.
    const bench = new Bench({ time: 400, iterations: 8, warmupTime: 100, warmupIterations: 2 })
    const sizes = new Map<string, number>()
    for (const parser of PARSERS) {
      const text = parser.render(input.changes)
      sizes.set(parser.format, text.length)
      // A parse that fails would be timed as fast: check once, outside the timing.
      const once = parser.parse(text)
      if (!once.ok)
        console.log(`> ${parser.format} rejected "${input.name}": ${once.error.message}`)
      bench.add(
        parser.format,
        () => {
          parser.parse(text)
        },
        { async: false },
      )
    }
    await bench.run()
    const baseline = p50(bench, 'codex')
    for (const parser of PARSERS) {
      const value = p50(bench, parser.format)
      const bytes = sizes.get(parser.format) ?? 0
      const rate = bytes / 1024 / 1024 / (value / 1000)
      const mibPerS = Number.isNaN(value) ? '-' : rate < 10 ? rate.toFixed(2) : rate.toFixed(0)
      rows.push([input.name, parser.format, kib(bytes), ms(value), ratio(value, baseline), mibPerS])
    }
    printFailures(bench)
  }
  console.log(markdownTable(['input', 'format', 'patch KiB', 'p50 ms', 'x codex', 'MiB/s'], rows))
  console.log(`\n${loadLine()}`)
}

await main()
