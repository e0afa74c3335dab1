// Decides whether `full` durability survives a power cut at every point of a commit, and lists
// what `fast` cannot promise. Runs the model check of ./power-cut-model.ts on the
// CI-sized change and on a larger one (first commit in the workspace, so the journal is created
// too; two adds sharing a new directory, an update of a hard-linked file, a move, a delete that
// prunes two directories), for each durability and for three deliberately weakened `full` commits
// (workspace directory syncs dropped; renames across directories not atomic; the mark's sync
// failing), and, for `full`, power cuts during the recovery of --recovery-cuts of the pending
// states; then a batch of three transactions committed in one lock turn, likewise (fast also
// under a process kill, and two weakened batches). Prints markdown for bench/RESULTS.md and exits
// 1 if a `full` commit or its recovery has a vulnerable state, or a weakened one has none.
// Run: npm run bench:power-cut   or   npm run build && node dist/bench/power-cut.js [--only batch]
//      [--max-free 16] [--samples 3000] [--seed 1] [--examples 3] [--recovery-cuts 40]
import {
  checkPowerCuts,
  MARK_BEFORE_REPLACED_SYNCS,
  SKIP_PREPARED_DIR_SYNCS,
  SMALL_FIXTURE,
  type PowerCutFixture,
  type PowerCutReport,
  type SyncPolicy,
  type VulnerableState,
} from './power-cut-model.js'
import { loadLine, machineLine, markdownTable } from './report.js'

const LARGE_FIXTURE: PowerCutFixture = {
  files: {
    'a.txt': 'alpha\n',
    'linked.txt': 'linked v1\n',
    'src/from.ts': 'export const moving = 1\n',
    'src/stay.ts': 'export const stay = 1\n',
    'old/legacy/only.txt': 'legacy\n',
  },
  links: [['linked.txt', 'links/alias.txt']],
  changes: [
    { kind: 'write', path: 'a.txt', text: 'ALPHA\n' },
    { kind: 'write', path: 'gen/x/new-1.ts', text: 'export const one = 1\n' },
    { kind: 'write', path: 'gen/x/new-2.ts', text: 'export const two = 2\n' },
    { kind: 'write', path: 'linked.txt', text: 'linked v2\n' },
    { kind: 'write', path: 'dst/moved.ts', text: 'export const moving = 2\n' },
    { kind: 'remove', path: 'src/from.ts' },
    { kind: 'remove', path: 'old/legacy/only.txt' },
  ],
}

/**
 * Three transactions committed at once (group commit): updates in two directories, a new file in
 * an existing directory, and an update of a hard-linked file (its backup is a copy).
 */
const BATCH_OF_3: PowerCutFixture = {
  files: {
    'a.txt': 'alpha\n',
    'b.txt': 'beta\n',
    'src/c.ts': 'export const c = 1\n',
    'src/d.ts': 'export const d = 1\n',
    'lib/e.txt': 'e\n',
    'linked.txt': 'linked v1\n',
  },
  links: [['linked.txt', 'links/alias.txt']],
  journalExists: true,
  changes: [
    { kind: 'write', path: 'a.txt', text: 'ALPHA\n' },
    { kind: 'write', path: 'src/c.ts', text: 'export const c = 2\n' },
  ],
  concurrent: [
    [
      { kind: 'write', path: 'b.txt', text: 'BETA\n' },
      { kind: 'write', path: 'lib/new.txt', text: 'new\n' },
    ],
    [
      { kind: 'write', path: 'src/d.ts', text: 'export const d = 2\n' },
      { kind: 'write', path: 'linked.txt', text: 'linked v2\n' },
    ],
  ],
}

const MARK = 'rename .patchloom/journal/<id>.pending .patchloom/journal/<id>'

interface Run {
  readonly name: string
  readonly fixture: PowerCutFixture
  readonly durability: 'full' | 'fast'
  readonly syncPolicy?: SyncPolicy
  readonly atomicRename?: boolean
  /** A killed process instead of a power cut (what fast promises to survive). */
  readonly processKill?: boolean
  /** Whether power cuts during recovery are checked too (--recovery-cuts states of this run). */
  readonly cutRecovery?: boolean
  /** A weakened commit must be found vulnerable; `full` itself must not be. */
  readonly expectVulnerable: boolean
}

const dropWorkspaceSyncs: SyncPolicy = (dir) => (dir.startsWith('.patchloom') ? 'sync' : 'skip')
const failMarkSync: SyncPolicy = (dir, calls) =>
  dir === '.patchloom/journal' && calls.includes(MARK) ? 'fail' : 'sync'

const RUNS: readonly Run[] = [
  {
    name: '3 files',
    fixture: SMALL_FIXTURE,
    durability: 'full',
    cutRecovery: true,
    expectVulnerable: false,
  },
  { name: '3 files', fixture: SMALL_FIXTURE, durability: 'fast', expectVulnerable: true },
  {
    name: '7 steps, first commit',
    fixture: LARGE_FIXTURE,
    durability: 'full',
    cutRecovery: true,
    expectVulnerable: false,
  },
  {
    name: '7 steps, first commit',
    fixture: LARGE_FIXTURE,
    durability: 'fast',
    expectVulnerable: true,
  },
  {
    name: '7 steps, workspace dir syncs dropped',
    fixture: LARGE_FIXTURE,
    durability: 'full',
    syncPolicy: dropWorkspaceSyncs,
    expectVulnerable: true,
  },
  {
    name: '7 steps, renames across directories not atomic (weaker model)',
    fixture: LARGE_FIXTURE,
    durability: 'full',
    atomicRename: false,
    expectVulnerable: true,
  },
  {
    name: "7 steps, mark's sync fails (warned)",
    fixture: LARGE_FIXTURE,
    durability: 'full',
    syncPolicy: failMarkSync,
    expectVulnerable: false,
  },
  {
    name: 'batch of 3 transactions',
    fixture: BATCH_OF_3,
    durability: 'full',
    cutRecovery: true,
    expectVulnerable: false,
  },
  {
    name: 'batch of 3 transactions',
    fixture: BATCH_OF_3,
    durability: 'fast',
    expectVulnerable: true,
  },
  {
    name: 'batch of 3, process killed (not a power cut)',
    fixture: BATCH_OF_3,
    durability: 'fast',
    processKill: true,
    expectVulnerable: false,
  },
  {
    name: 'batch of 3, directory syncs before replacing dropped',
    fixture: BATCH_OF_3,
    durability: 'full',
    syncPolicy: SKIP_PREPARED_DIR_SYNCS,
    expectVulnerable: true,
  },
  {
    name: "batch of 3, marked before the replaced files' directories are synced",
    fixture: BATCH_OF_3,
    durability: 'full',
    syncPolicy: MARK_BEFORE_REPLACED_SYNCS,
    expectVulnerable: true,
  },
  {
    name: "batch of 3, marks' sync fails (warned)",
    fixture: BATCH_OF_3,
    durability: 'full',
    syncPolicy: failMarkSync,
    expectVulnerable: false,
  },
]

interface Args {
  maxFree: number
  samples: number
  seed: number
  examples: number
  recoveryCuts: number
  /** Only the runs whose name contains this. */
  only?: string
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { maxFree: 16, samples: 3000, seed: 1, examples: 3, recoveryCuts: 40 }
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--only') {
      args.only = argv[i + 1] ?? ''
      continue
    }
    const value = Number(argv[i + 1])
    const key = {
      '--max-free': 'maxFree',
      '--samples': 'samples',
      '--seed': 'seed',
      '--examples': 'examples',
      '--recovery-cuts': 'recoveryCuts',
    }[argv[i] as string] as Exclude<keyof Args, 'only'> | undefined
    if (key === undefined || !Number.isInteger(value) || value < 0) {
      console.error(
        'usage: node dist/bench/power-cut.js [--only TEXT] [--max-free N] [--samples N] [--seed S] [--examples N] [--recovery-cuts N]',
      )
      process.exit(64)
    }
    args[key] = value
  }
  return args
}

/** What a vulnerable state is, without the file names of one run: the class it belongs to. */
function classOf(v: VulnerableState): string {
  if (v.verdict !== 'torn') return v.verdict
  const conflicts = / \((\d+) conflict/.exec(v.detail)?.[1] ?? '0'
  const recovered =
    conflicts === '0' ? 'recovery saw nothing to do' : 'recovery reported a conflict'
  if (v.detail.startsWith('mixed')) return `mixed: some files after, others before; ${recovered}`
  const kinds = [
    ...new Set(
      [...v.detail.matchAll(/: (empty|missing|other content|a directory)/g)].map((m) => m[1]),
    ),
  ]
  return `file(s) ${kinds.join('/')}; ${recovered}`
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2))
  console.log('## power-cut model check\n')
  console.log(machineLine() + '\n')
  console.log(
    `Persisted sets: exhaustive up to ${args.maxFree} unsynced operations per crash point, else ${args.samples} seeded samples (seed ${args.seed}).\n`,
  )
  const rows: string[][] = []
  const reports: { run: Run; report: PowerCutReport }[] = []
  let failed = false
  for (const run of RUNS.filter((r) => args.only === undefined || r.name.includes(args.only))) {
    const started = performance.now()
    const report = await checkPowerCuts({
      fixture: run.fixture,
      durability: run.durability,
      maxFree: args.maxFree,
      samples: args.samples,
      seed: args.seed,
      ...(run.syncPolicy === undefined ? {} : { syncPolicy: run.syncPolicy }),
      ...(run.atomicRename === undefined ? {} : { atomicRename: run.atomicRename }),
      ...(run.processKill === undefined ? {} : { processKill: run.processKill }),
      ...(run.cutRecovery === true ? { recoveryCuts: args.recoveryCuts } : {}),
    })
    const seconds = (performance.now() - started) / 1000
    const o = report.outcomes
    rows.push([
      run.name,
      run.durability,
      String(report.calls.length),
      `${report.ops} / ${report.fsyncs}`,
      String(report.crashPoints),
      report.generated.toLocaleString('en-US'),
      report.checked.toLocaleString('en-US'),
      report.exhaustive ? 'yes' : 'sampled',
      String(o.before),
      String(o.after),
      String(o.split),
      `**${report.vulnerable.length}**`,
      report.commitWarnings.map((w) => w.code).join(', ') || '-',
      run.cutRecovery === true
        ? `${report.recovery.commitStates} / ${report.recovery.checked.toLocaleString('en-US')} / **${report.recovery.vulnerable.length}**`
        : '-',
      seconds.toFixed(1),
    ])
    reports.push({ run, report })
    if (run.expectVulnerable !== report.vulnerable.length > 0) failed = true
    if (report.recovery.vulnerable.length > 0) failed = true
  }
  console.log(
    markdownTable(
      [
        'change',
        'durability',
        'fs calls',
        'ops / fsyncs',
        'crash points',
        'persisted sets',
        'states checked',
        'exhaustive',
        'before',
        'after',
        'split',
        'vulnerable',
        'commit warning',
        'recovery cut: states / checked / vulnerable',
        's',
      ],
      rows,
    ),
  )
  console.log('\n' + loadLine())
  const sections = reports.flatMap(({ run, report }) => [
    { title: `${run.name}, ${run.durability}`, vulnerable: report.vulnerable },
    {
      title: `recovery of ${run.name}, ${run.durability}, cut`,
      vulnerable: report.recovery.vulnerable,
    },
  ])
  for (const { title, vulnerable } of sections) {
    if (vulnerable.length === 0) continue
    console.log(`\n### vulnerable states: ${title}\n`)
    const byClass = new Map<string, VulnerableState[]>()
    for (const v of vulnerable) {
      const c = classOf(v)
      byClass.set(c, [...(byClass.get(c) ?? []), v])
    }
    console.log(
      markdownTable(
        ['class', 'states', 'example (cut after; lost before the cut; workspace after recovery)'],
        [...byClass].map(([c, vs]) => {
          const v = vs[0] as VulnerableState
          const lost = v.lost.filter((l) => !l.includes('.gitignore'))
          const shown =
            lost.slice(0, 4).join(', ') + (lost.length > 4 ? `, +${lost.length - 4}` : '')
          return [c, String(vs.length), `${v.lastCall}; lost ${shown || 'nothing'}; ${v.detail}`]
        }),
      ),
    )
    for (const v of vulnerable.slice(0, args.examples))
      console.log(`\n> ${v.verdict} at op ${v.crashPoint} (${v.lastCall}): ${v.detail}`)
  }
  if (failed) {
    console.log(
      '\nFAILED: a full commit (or its recovery) has a vulnerable state, or a weakened commit has none.',
    )
    process.exit(1)
  }
}

await main()
