// Times `patchloom replay` against git on the same history: one patch file per
// first-parent commit, made by one `git log -p` stream with the flags replay itself uses, then,
// whole process and side by side in each round: `git apply` given every patch in one process (its
// fastest mode), `git apply` once per patch, GNU `patch -p1` once per patch, each from an empty
// directory, and `patchloom replay REPO --json` in each --via mode (it makes its own patches and
// checks every touched file's blob id). Before timing, each way's final tree is
// compared with the repository's own (`git add -A && git write-tree`); a way that does not end
// there prints `> mismatch` and is marked, and replay must report every commit exact and no hunk
// misplaced. Prints medians and ratios against the one-process `git apply` and against the
// pipeline a user would script (git's stream written to a file, then that one `git apply`), with
// the repository, commits, hunks and machine, then each mode's fidelity: refused share,
// misplaced, fallbacks.
// The unified via is timed in this thread and on two pool workers (--workers 2).
// Run: npm run build && node dist/bench/replay.bench.js [--repo DIR]... [--samples K]
//   --repo DIR   a repository to replay from its root (repeatable; default: a generated one)
//   --commits N  commits in the generated history (default 400)
//   --large-commits  generate a history of large commits instead (generated-history.ts)
//   --no-per-patch  skip the once-per-patch rows (slow on long histories)
//   --quick      a 30-commit generated history, 1 sample (CI: test/e2e/replay-bench.test.ts)
import { spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { historyArgs } from '../src/replay/git-history.js'
import { prng } from './generate.js'
import { LARGE_COMMITS, largeCommitHistory } from './generated-history.js'
import { loadLine, machineLine, markdownTable, median, mib, ms, ratio } from './report.js'

const CLI = fileURLToPath(new URL('../../bin/patchloom.js', import.meta.url))
const NODE = process.execPath
const ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
}
interface Flags {
  readonly repos: readonly string[]
  readonly commits: number
  readonly samples: number
  readonly perPatch: boolean
  readonly large: boolean
}

function parseFlags(argv: readonly string[]): Flags {
  const repos: string[] = []
  let commits = 400
  let samples = 3
  let perPatch = true
  let large = false
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]
    const value = () => {
      const v = argv[++i]
      if (v === undefined) throw new Error(`${flag} needs a value`)
      return v
    }
    if (flag === '--repo') repos.push(path.resolve(value()))
    else if (flag === '--commits') commits = Number(value())
    else if (flag === '--samples') samples = Number(value())
    else if (flag === '--no-per-patch') perPatch = false
    else if (flag === '--large-commits') large = true
    else if (flag === '--quick') {
      commits = 30
      samples = 1
    } else throw new Error(`unknown flag ${flag}`)
  }
  return { repos, commits, samples, perPatch, large }
}

function run(cmd: string, args: readonly string[], cwd: string, input?: Buffer): Buffer {
  const r = spawnSync(cmd, args, { cwd, env: ENV, maxBuffer: 1 << 30, input })
  if (r.status !== 0)
    throw new Error(
      `${cmd} ${args.slice(0, 3).join(' ')}... exited ${String(r.status)}: ${`${String(r.stderr)} ${String(r.stdout)}`.trim().slice(0, 300)}`,
    )
  return r.stdout
}

const git = (cwd: string, ...args: string[]) => run('git', args, cwd).toString('utf8')

/** A seeded history: files edited, added, renamed and deleted over `commits` commits. */
function generateHistory(dir: string, commits: number): void {
  mkdirSync(dir, { recursive: true })
  git(dir, 'init', '-q', '-b', 'main')
  const random = prng(10)
  const files = new Map<string, string[]>()
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T
  const write = (rel: string, lines: string[]) => {
    files.set(rel, lines)
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    writeFileSync(path.join(dir, rel), lines.join('\n') + '\n')
  }
  for (let i = 0; i < 40; i++)
    write(
      `src/m${i % 5}/file${i}.ts`,
      Array.from({ length: 120 }, (_, k) => `export const v${i}_${k} = ${k}`),
    )
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'root')
  for (let c = 1; c < commits; c++) {
    const roll = random()
    const names = [...files.keys()]
    if (roll < 0.05 && names.length > 10) {
      const name = pick(names)
      rmSync(path.join(dir, name))
      files.delete(name)
    } else if (roll < 0.1) {
      const from = pick(names)
      const to = from.replace(/\.ts$/, `_r${c}.ts`)
      git(dir, 'mv', from, to)
      files.set(to, files.get(from) as string[])
      files.delete(from)
    } else if (roll < 0.15) {
      write(
        `src/new/n${c}.ts`,
        Array.from({ length: 30 }, (_, k) => `export const n${c}_${k} = ${k}`),
      )
    } else {
      for (let e = 0; e < 1 + Math.floor(random() * 3); e++) {
        const name = pick([...files.keys()])
        const lines = (files.get(name) as string[]).slice()
        const at = Math.floor(random() * lines.length)
        if (random() < 0.3) lines.splice(at, 1)
        else if (random() < 0.5) lines.splice(at, 0, `// commit ${c}`)
        else lines[at] = `${lines[at] ?? ''} // ${c}`
        write(name, lines)
      }
    }
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '--allow-empty', '-m', `commit ${c}`)
  }
}

/** One patch file per non-empty commit, from one git log stream; returns their paths and hunks. */
function patchSeries(repo: string, out: string): { files: string[]; hunks: number; bytes: number } {
  mkdirSync(out, { recursive: true })
  // The stream replay itself reads (its --raw lines sit before each diff; both tools skip them).
  const log = run('git', historyArgs(repo, 'HEAD'), repo)
  const files: string[] = []
  let hunks = 0
  let start = -1
  const flush = (end: number) => {
    if (start < 0) return
    const chunk = log.subarray(start, end)
    const body = chunk.subarray(chunk.indexOf(10) + 1)
    if (body.length === 0) return
    const file = path.join(out, `${String(files.length + 1).padStart(6, '0')}.patch`)
    writeFileSync(file, body)
    files.push(file)
  }
  for (let i = 0; i < log.length; i++) {
    if (log[i] === 0 && (i === 0 || log[i - 1] === 10)) {
      flush(i)
      start = i
    } else if (log[i] === 64 && log[i + 1] === 64 && log[i - 1] === 10) hunks++ // "@@" at line start
  }
  flush(log.length)
  return { files, hunks, bytes: log.length }
}

/** The history stream replay reads (historyArgs), written to `file` as git prints it. */
function logToFile(repo: string, file: string): void {
  const fd = openSync(file, 'w')
  try {
    const r = spawnSync('git', historyArgs(repo, 'HEAD'), {
      cwd: repo,
      env: ENV,
      stdio: ['ignore', fd, 'pipe'],
    })
    if (r.status !== 0) throw new Error(`git log exited ${String(r.status)}: ${String(r.stderr)}`)
  } finally {
    closeSync(fd)
  }
}

function treeOf(dir: string): string {
  // -f: a history may hold files its own .gitignore names (this repository's forged-journal
  // scenarios sit under an ignored .patchloom/), and the patches created them.
  git(dir, 'add', '-A', '-f')
  return git(dir, 'write-tree').trim()
}

function freshDir(scratch: string, name: string): string {
  const dir = path.join(scratch, name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir)
  git(dir, 'init', '-q')
  return dir
}

interface Row {
  readonly name: string
  /** Runs the way once from scratch; returns its wall time in ms. */
  readonly time: () => number
  /** After an untimed run: null when the way ended where git did, else why not. */
  readonly check: () => string | null
}

function timed(fn: () => void): number {
  const started = performance.now()
  fn()
  return performance.now() - started
}

/** The --json report's figures this bench reads. */
interface ReplayJson {
  readonly commits: number
  readonly exactCommits: number
  readonly formatHunks: number
  readonly refusedHunks: number
  readonly refusals: Record<string, number>
  readonly misplacedHunks: number
  readonly fallbacks: number
  readonly hunks: number
}

const VIAS = ['unified', 'codex', 'search-replace'] as const

/** The second baseline: the pipeline a user would script from git alone. */
const STREAM_ROW = 'git log -p stream + one git apply'

/** The replay rows: each mode in this thread, then the unified via on two pool workers. */
const REPLAY_ROWS: ReadonlyArray<{ via: (typeof VIAS)[number]; workers: number }> = [
  ...VIAS.map((via) => ({ via, workers: 0 })),
  { via: 'unified', workers: 2 },
]

function rows(
  repo: string,
  scratch: string,
  series: string[],
  perPatch: boolean,
  reports: Map<string, ReplayJson>,
): Row[] {
  const headTree = git(repo, 'rev-parse', 'HEAD^{tree}').trim()
  const target = path.join(scratch, 'apply')
  const treeCheck = () => {
    const tree = treeOf(target)
    return tree === headTree ? null : `tree ${tree} is not HEAD's ${headTree}`
  }
  const applyAll = () => run('git', ['apply', '--whitespace=nowarn', ...series], target)
  const list: Row[] = [
    {
      name: 'git apply, every patch in one process',
      time: () => {
        freshDir(scratch, 'apply')
        return timed(applyAll)
      },
      check: treeCheck,
    },
    {
      // What a user would script: git's stream to a file, then one git apply of its patches.
      name: STREAM_ROW,
      time: () => {
        const stream = timed(() => logToFile(repo, path.join(scratch, 'stream.log')))
        freshDir(scratch, 'apply')
        return stream + timed(applyAll)
      },
      check: treeCheck,
    },
  ]
  if (perPatch)
    list.push(
      {
        name: 'git apply, once per patch',
        time: () => {
          freshDir(scratch, 'apply')
          return timed(() => {
            for (const p of series) run('git', ['apply', '--whitespace=nowarn', p], target)
          })
        },
        check: treeCheck,
      },
      {
        name: 'patch -p1, once per patch',
        time: () => {
          freshDir(scratch, 'apply')
          return timed(() => {
            for (const p of series) run('patch', ['-p1', '-s', '-f', '-i', p], target)
          })
        },
        check: treeCheck,
      },
    )
  for (const { via, workers } of REPLAY_ROWS) {
    const key = workers === 0 ? via : `${via} --workers ${workers}`
    list.push({
      name: `patchloom replay --via ${key} (blob ids checked)`,
      time: () =>
        timed(() => {
          // Exit 1 is a mismatch or a misplaced hunk: the report says which, check() fails it.
          const args = [CLI, 'replay', repo, '--via', via, '--workers', String(workers), '--json']
          const r = spawnSync(NODE, args, { cwd: scratch, env: ENV, maxBuffer: 1 << 30 })
          if (r.status !== 0 && r.status !== 1)
            throw new Error(`replay --via ${key} exited ${String(r.status)}: ${String(r.stderr)}`)
          reports.set(key, JSON.parse(r.stdout.toString('utf8')) as ReplayJson)
        }),
      check: () => {
        const r = reports.get(key)
        if (r === undefined) return 'no report'
        if (r.misplacedHunks > 0) return `${r.misplacedHunks} hunks misplaced`
        return r.exactCommits === r.commits
          ? null
          : `${r.commits - r.exactCommits} commits not exact`
      },
    })
  }
  return list
}

/** Each mode's fidelity from its last report: what landed, what was refused, what fell back. */
function fidelityTable(reports: ReadonlyMap<string, ReplayJson>): string {
  const n = (x: number) => x.toLocaleString('en-US')
  return markdownTable(
    [
      'via',
      'exact commits',
      'hunks through the format',
      'refused (share; by code)',
      'misplaced',
      'fallbacks',
    ],
    VIAS.flatMap((via) => {
      const r = reports.get(via)
      if (r === undefined) return []
      const share = r.formatHunks === 0 ? 0 : (100 * r.refusedHunks) / r.formatHunks
      const codes = Object.entries(r.refusals)
        .sort((a, b) => b[1] - a[1])
        .map(([code, count]) => `${code} ${n(count)}`)
        .join(', ')
      return [
        [
          via,
          `${n(r.exactCommits)} of ${n(r.commits)}`,
          via === 'unified' ? '-' : n(r.formatHunks),
          via === 'unified'
            ? '-'
            : `${n(r.refusedHunks)} (${share.toFixed(1)}%${codes === '' ? '' : `; ${codes}`})`,
          n(r.misplacedHunks),
          n(r.fallbacks),
        ],
      ]
    }),
  )
}

function benchRepo(repo: string, label: string, flags: Flags): void {
  const scratchRoot = existsSync('/dev/shm') ? '/dev/shm' : tmpdir()
  const scratch = mkdtempSync(path.join(scratchRoot, 'patchloom-replay-bench-'))
  try {
    const commits = Number(git(repo, 'rev-list', '--count', '--first-parent', 'HEAD').trim())
    const series = patchSeries(repo, path.join(scratch, 'patches'))
    const reports = new Map<string, ReplayJson>()
    const list = rows(repo, scratch, series.files, flags.perPatch, reports)
    const errors = new Map<string, string>()
    for (const row of list) {
      try {
        row.time()
        const problem = row.check()
        if (problem !== null) {
          errors.set(row.name, problem)
          console.log(`> mismatch: ${label}, ${row.name}: ${problem}`)
        }
      } catch (error) {
        errors.set(row.name, (error as Error).message)
        console.log(`> mismatch: ${label}, ${row.name}: ${(error as Error).message}`)
      }
    }
    const times = new Map<string, number[]>(list.map((r) => [r.name, []]))
    for (let s = 0; s < flags.samples; s++)
      for (const row of list) if (!errors.has(row.name)) times.get(row.name)?.push(row.time())
    const baseline = median(times.get(list[0]?.name ?? '') ?? [])
    const pipeline = median(times.get(STREAM_ROW) ?? [])
    console.log(
      `\n### ${label}: ${commits.toLocaleString('en-US')} first-parent commits, ${series.files.length.toLocaleString('en-US')} patches, ${series.hunks.toLocaleString('en-US')} hunks, ${mib(series.bytes)} MiB of patches (median of ${flags.samples})\n`,
    )
    console.log(
      markdownTable(
        ['way', 'wall ms (x git apply, one process)', 'x git log -p stream + one git apply'],
        list.map((row) => {
          const error = errors.get(row.name)
          if (error !== undefined) return [row.name, 'mismatch', '-']
          const m = median(times.get(row.name) ?? [])
          return [row.name, `${ms(m)} (${ratio(m, baseline)})`, ratio(m, pipeline)]
        }),
      ),
    )
    console.log(`\nFidelity (each mode's report):\n\n${fidelityTable(reports)}`)
    console.log(`\n${loadLine()}`)
    if (errors.size > 0) process.exitCode = 1
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

const flags = parseFlags(process.argv.slice(2))
console.log(`## replay.bench\n\n${machineLine()}\n`)
console.log(`Command: \`node dist/bench/replay.bench.js ${process.argv.slice(2).join(' ')}\``)
if (flags.repos.length === 0) {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchloom-replay-history-'))
  try {
    const repo = path.join(dir, 'repo')
    if (flags.large) {
      largeCommitHistory(repo, path.join(dir, 'home'))
      const { commits, files, lines, filesPerCommit, editsPerFile } = LARGE_COMMITS
      const shape = `${commits} commits, ${filesPerCommit} of ${files} ${lines}-line files edited in ${editsPerFile} places each`
      benchRepo(repo, `generated history of large commits (seed 11, ${shape})`, flags)
    } else {
      generateHistory(repo, flags.commits)
      benchRepo(repo, `generated history (seed 10, ${flags.commits} commits)`, flags)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
} else for (const repo of flags.repos) benchRepo(repo, path.basename(repo), flags)
