// What a context-only replay refuses, by kind: replays REPO through the library with
// --via V and sorts every refused hunk's message into the matcher's refusal kinds (outside the
// hint's scope, spilling past it, twice inside one scope, repeated context with no hint, ...).
// Prints counts; judges nothing.
// Run: npm run build && node dist/bench/replay-refusals.js --repo DIR [--via codex] [--commits N]
import { replay, type ReplayVia } from '../src/replay/replay.js'
import { markdownTable } from './report.js'

/** The kind of a refusal, from the matcher's message (src/match/locate-*.ts). */
function kindOf(code: string, message: string): string {
  if (/is not inside .*scope.*but it would change lines past/.test(message))
    return 'fits at the hint, changes past its scope end'
  if (/is not inside .*scope/.test(message)) return 'lines only outside the hint scope'
  if (/Could not find the @@ hint/.test(message)) return 'hint not found after the cursor'
  if (/more than once inside the scope/.test(message)) return 'twice inside one hint scope'
  if (/fits one scope of its @@ hint/.test(message)) return 'fits one scope, spills from another'
  if (/each reading of its @@ hints/.test(message)) return 'fits several hint readings'
  if (code === 'MATCH_AMBIGUOUS') return 'repeated context'
  return `other: ${message.slice(0, 60)}`
}

async function main(argv: readonly string[]): Promise<void> {
  let repo: string | null = null
  let via: ReplayVia = 'codex'
  let commits = Infinity
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]
    const value = argv[++i]
    if (value === undefined) throw new Error(`${flag ?? ''} needs a value`)
    if (flag === '--repo') repo = value
    else if (flag === '--via') via = value as ReplayVia
    else if (flag === '--commits') commits = Number(value)
    else throw new Error(`unknown flag ${flag ?? ''}`)
  }
  if (repo === null) throw new Error('usage: replay-refusals.js --repo DIR [--via V] [--commits N]')
  const kinds = new Map<string, number>()
  const run = replay({ repo, via, maxCommits: commits })
  let step = await run.next()
  for (; !step.done; step = await run.next()) {
    for (const r of step.value.refusals) {
      const kind = `${r.code}: ${kindOf(r.code, r.message)}`
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
    }
  }
  const report = step.value
  console.log(
    `## replay refusals\n\n${repo}, via ${via}, ${report.commits} commits: ${report.refusedHunks} of ${report.formatHunks} hunks refused, ${report.misplacedHunks} misplaced\n`,
  )
  const rows = [...kinds].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, String(n)])
  console.log(markdownTable(['refusal', 'hunks'], rows))
}

await main(process.argv.slice(2))
