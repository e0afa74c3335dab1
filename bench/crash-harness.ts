// The SIGKILL crash harness, shared by bench/crash.ts (1,000 trials) and
// test/e2e/crash.test.ts (the CI-sized run). A trial writes a fresh 50-file workspace, spawns
// bench/crash-child.js (a real process running the built engine) to apply one Codex patch that
// touches every file, kills it with SIGKILL after a random delay, at an instrumented journal
// point or right after a journal filesystem call (and may kill the recovery that follows the
// same ways), then recovers in this process and judges the tree: every path wholly before or
// wholly after, all together, no stray entry, no transaction left pending, and a second
// recovery that changes nothing. Printing is left to the callers.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createEngineWithInternals } from '../src/engine/engine.js'
import type { Durability, JournalPoint, RecoveryReport } from '../src/journal/records.js'
import type { ChildRequest, Kill } from './crash-child.js'
import { prng } from './generate.js'

// ---- The workspace and the change ------------------------------------------------------------

export interface FixtureFile {
  /** '/'-separated, relative to the workspace root. */
  readonly path: string
  readonly bytes: Uint8Array
  /** Permission bits, e.g. 0o644. */
  readonly permissions: number
}

export interface CrashFixture {
  readonly before: readonly FixtureFile[]
  /** What the patch must produce, computed here independently of the engine. */
  readonly after: readonly FixtureFile[]
  readonly patch: string
  /** Every path the change touches (existing before, after, or both), sorted. */
  readonly paths: readonly string[]
  readonly counts: {
    readonly updates: number
    readonly adds: number
    readonly deletes: number
    readonly moves: number
  }
}

const UPDATE_DIRS = ['', 'src', 'src/core', 'src/core/deep/nested', 'lib', 'docs', 'test/unit']
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'value', 'input', 'cache', 'index', 'node', 'map']

/** Generic updates; with the CRLF file they make 44, and 44 + 3 moves + 3 deletes = 50 files. */
const GENERIC_UPDATES = 43
const CRLF_FILE = 'docs/windows-crlf.txt'
const MOVES: readonly (readonly [string, string, number])[] = [
  ['scripts/run.sh', 'tools/bin/run.sh', 0o755], // the executable, into new directories
  ['src/core/move-a.ts', 'src/core/renamed-a.ts', 0o644],
  ['lib/move-b.ts', 'src/moved-b.ts', 0o644],
]
/** old/legacy/only.txt is alone in its directories: deleting it prunes them. */
const DELETES = ['old/legacy/only.txt', 'src/delete-1.ts', 'test/unit/delete-2.ts']
/** Two adds share a new directory; all four create directories. */
const ADDS = ['gen/a/new-0.ts', 'gen/a/new-1.ts', 'gen/b/c/new-2.ts', 'src/core/fresh/new-3.ts']

/**
 * The 50-file workspace and one Codex patch touching all of it: 44 updates (one CRLF), 3 moves
 * with an edit (one executable), 3 deletes and 4 adds into new directories, in a seeded order.
 */
export function crashFixture(seed: number): CrashFixture {
  const random = prng(seed)
  const pick = (): string => WORDS[Math.floor(random() * WORDS.length)] as string
  const linesOf = (rel: string): string[] => {
    const count = 40 + Math.floor(random() * 80)
    return Array.from({ length: count }, (_, n) => `${rel}:${n + 1} ${pick()} ${pick()} ${pick()}`)
  }
  const encode = (lines: readonly string[], eol: string): Uint8Array =>
    new TextEncoder().encode(lines.map((l) => l + eol).join(''))

  const before: FixtureFile[] = []
  const after: FixtureFile[] = []
  const sections: string[][] = []
  /** Replaces one line and inserts one after it, with three lines of context either side. */
  const edit = (rel: string, to: string, eol: string, permissions: number, header: string[]) => {
    const lines = linesOf(rel)
    if (rel === 'scripts/run.sh') lines[0] = '#!/bin/sh'
    const k = 3 + Math.floor(random() * (lines.length - 7))
    const changed = `${lines[k] as string} (edited)`
    const inserted = `inserted after ${rel}:${k + 1}`
    before.push({ path: rel, bytes: encode(lines, eol), permissions })
    const next = [...lines.slice(0, k), changed, inserted, ...lines.slice(k + 1)]
    after.push({ path: to, bytes: encode(next, eol), permissions })
    sections.push([
      ...header,
      '@@',
      ...lines.slice(k - 3, k).map((l) => ` ${l}`),
      `-${lines[k] as string}`,
      `+${changed}`,
      `+${inserted}`,
      ...lines.slice(k + 1, k + 4).map((l) => ` ${l}`),
    ])
  }
  for (let i = 0; i < GENERIC_UPDATES; i++) {
    const dir = UPDATE_DIRS[i % UPDATE_DIRS.length] as string
    const rel = `${dir === '' ? '' : dir + '/'}file-${String(i).padStart(2, '0')}.ts`
    edit(rel, rel, '\n', 0o644, [`*** Update File: ${rel}`])
  }
  edit(CRLF_FILE, CRLF_FILE, '\r\n', 0o644, [`*** Update File: ${CRLF_FILE}`])
  for (const [from, to, permissions] of MOVES)
    edit(from, to, '\n', permissions, [`*** Update File: ${from}`, `*** Move to: ${to}`])
  for (const rel of DELETES) {
    before.push({ path: rel, bytes: encode(linesOf(rel), '\n'), permissions: 0o644 })
    sections.push([`*** Delete File: ${rel}`])
  }
  for (const rel of ADDS) {
    const lines = linesOf(rel)
    after.push({ path: rel, bytes: encode(lines, '\n'), permissions: 0o644 })
    sections.push([`*** Add File: ${rel}`, ...lines.map((l) => `+${l}`)])
  }
  // Shuffled so that adds, deletes and moves sit among the updates, not in blocks.
  for (let i = sections.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[sections[i], sections[j]] = [sections[j] as string[], sections[i] as string[]]
  }
  const patch = ['*** Begin Patch', ...sections.flat(), '*** End Patch', ''].join('\n')
  const paths = [...new Set([...before, ...after].map((f) => f.path))].sort()
  return {
    before,
    after,
    patch,
    paths,
    counts: {
      updates: GENERIC_UPDATES + 1,
      adds: ADDS.length,
      deletes: DELETES.length,
      moves: MOVES.length,
    },
  }
}

export async function writeFiles(root: string, files: readonly FixtureFile[]): Promise<void> {
  for (const file of files) {
    const abs = path.join(root, ...file.path.split('/'))
    await mkdir(path.dirname(abs), { recursive: true })
    await writeFile(abs, file.bytes)
    await chmod(abs, file.permissions) // writeFile's mode is filtered by the umask
  }
}

// ---- Trees --------------------------------------------------------------------------------------

/** Entries under a root by relative path: `dir`, `file <mode> <sha256>` or `other <kind>`. */
export type Tree = ReadonlyMap<string, string>

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

function fileEntry(bytes: Uint8Array, permissions: number): string {
  return `file ${permissions.toString(8)} ${sha256(bytes)}`
}

/** The tree `files` make: the files and every directory above them. */
export function treeOf(files: readonly FixtureFile[]): Tree {
  const tree = new Map<string, string>()
  for (const file of files) {
    tree.set(file.path, fileEntry(file.bytes, file.permissions))
    const parts = file.path.split('/')
    for (let i = 1; i < parts.length; i++) tree.set(parts.slice(0, i).join('/'), 'dir')
  }
  return tree
}

/** What is on disk under `root`, leaving out the root's own `.patchloom/`. */
export async function readTree(root: string): Promise<Tree> {
  const tree = new Map<string, string>()
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const name of await readdir(abs)) {
      if (rel === '' && name === '.patchloom') continue
      const childAbs = path.join(abs, name)
      const childRel = rel === '' ? name : `${rel}/${name}`
      const st = await lstat(childAbs)
      if (st.isDirectory()) {
        tree.set(childRel, 'dir')
        await walk(childAbs, childRel)
      } else if (st.isFile()) {
        tree.set(childRel, fileEntry(await readFile(childAbs), st.mode & 0o777))
      } else {
        tree.set(childRel, `other ${st.isSymbolicLink() ? 'symlink' : 'special'}`)
      }
    }
  }
  await walk(root, '')
  return tree
}

// ---- The child process --------------------------------------------------------------------------

export interface TracePoint {
  readonly point: JournalPoint
  readonly index: number
  /** Milliseconds since the child printed `start`. */
  readonly ms: number
}

/** One journal filesystem call the child made (n counts from 1, path relative to the root). */
export interface FsCall {
  readonly n: number
  readonly method: string
  readonly path: string
}

export interface ChildRun {
  /** 'SIGKILL' when killed; null when it exited by itself. */
  readonly signal: NodeJS.Signals | null
  readonly code: number | null
  readonly started: boolean
  readonly trace: readonly TracePoint[]
  readonly calls: readonly FsCall[]
  /** Milliseconds from `start` to `done`, when it finished. */
  readonly doneMs?: number
  /** What the child reported failing, or a harness timeout. */
  readonly error?: string
}

/** A hung child (a lock never released, say) is a harness failure, not a long wait. */
const CHILD_TIMEOUT_MS = 60_000

/** Where a delayed kill's clock starts: the child's `start` line, or its first line for a point. */
export type Anchor = 'start' | JournalPoint

/**
 * Runs the child once. With `kill`, SIGKILLs it `ms` after the anchor's line arrives (setTimeout
 * for the whole milliseconds, a short spin for the fraction); not at all if it never arrives.
 */
export function runChild(
  childScript: string,
  request: ChildRequest,
  kill?: { readonly after: Anchor; readonly ms: number },
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [childScript, JSON.stringify(request)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const trace: TracePoint[] = []
    const calls: FsCall[] = []
    let started = false
    let doneMs: number | undefined
    let error: string | undefined
    let pending = ''
    let stderr = ''
    const timers: NodeJS.Timeout[] = []
    let scheduled = false
    const killNow = (): void => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
    const schedule = (ms: number): void => {
      scheduled = true
      const target = performance.now() + ms
      const spin = (): void => {
        while (performance.now() < target) {
          // spin out the sub-millisecond rest of the delay
        }
        killNow()
      }
      timers.push(setTimeout(spin, Math.max(0, Math.floor(ms) - 1)))
    }
    timers.push(
      setTimeout(() => {
        error = `harness: the child was still running after ${CHILD_TIMEOUT_MS} ms`
        killNow()
      }, CHILD_TIMEOUT_MS),
    )
    const onLine = (line: string): void => {
      const [word, ...rest] = line.split(' ')
      if (word === 'start') {
        started = true
        if (kill?.after === 'start') schedule(kill.ms)
      } else if (word === 'point') {
        const point = rest[0] as JournalPoint
        trace.push({ point, index: Number(rest[1]), ms: Number(rest[2]) })
        if (kill !== undefined && kill.after === point && !scheduled) schedule(kill.ms)
      } else if (word === 'call') {
        calls.push({ n: Number(rest[0]), method: rest[1] ?? '', path: rest[2] ?? '' })
      } else if (word === 'done') {
        doneMs = Number(rest[0])
      } else if (word === 'error') {
        error = rest.join(' ')
      }
    }
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      pending += chunk
      let nl: number
      while ((nl = pending.indexOf('\n')) >= 0) {
        onLine(pending.slice(0, nl))
        pending = pending.slice(nl + 1)
      }
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      for (const t of timers) clearTimeout(t)
      if (code !== 0 && signal === null && error === undefined)
        error = `child exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' / ')}`
      resolve({
        signal,
        code,
        started,
        trace,
        calls,
        ...(doneMs === undefined ? {} : { doneMs }),
        ...(error === undefined ? {} : { error }),
      })
    })
  })
}

// ---- Kill plans ---------------------------------------------------------------------------------

/** Commit points in the order a commit passes them; 'recovery-restored' is planned separately. */
export const COMMIT_POINTS: readonly JournalPoint[] = [
  'locked',
  'staged',
  'backed-up',
  'prepared',
  'replaced',
  'synced',
  'marked',
  'cleaned',
]

export type { Kill }

export type KillPlan =
  | {
      readonly kind: 'delay'
      /** The apply child's line the delay counts from. */
      readonly after: Anchor
      readonly delayMs: number
      /** If a transaction is left pending: also kill a recovery child this long after its start. */
      readonly recoveryDelayMs?: number
    }
  | {
      readonly kind: 'at'
      /** Where the apply child kills itself. */
      readonly apply: Kill
      /** Recovery children to run next, each killing itself at its Kill. */
      readonly recovery?: readonly Kill[]
    }

/** A point kill's outcome is known: before until the transaction is marked committed. */
export function expectedOutcome(plan: KillPlan): 'before' | 'after' | undefined {
  if (plan.kind !== 'at' || !('point' in plan.apply)) return undefined
  return plan.apply.point === 'marked' || plan.apply.point === 'cleaned' ? 'after' : 'before'
}

export function describeKill(kill: Kill): string {
  return 'point' in kill ? `${kill.point}#${kill.index}` : `call#${kill.call}`
}

export function describePlan(plan: KillPlan): string {
  if (plan.kind === 'delay') {
    const rec =
      plan.recoveryDelayMs === undefined
        ? ''
        : `, recovery at ${plan.recoveryDelayMs.toFixed(2)} ms`
    return `delay ${plan.delayMs.toFixed(2)} ms after ${plan.after}${rec}`
  }
  const rec = (plan.recovery ?? []).map((k) => ` -> recovery ${describeKill(k)}`).join('')
  return `${describeKill(plan.apply)}${rec}`
}

// ---- Calibration --------------------------------------------------------------------------------

export interface HarnessSetup {
  /** The built child, dist/bench/crash-child.js. */
  readonly childScript: string
  readonly durability: Durability
  readonly fixture: CrashFixture
  /** A directory for the trials' workspaces (each trial makes and removes its own). */
  readonly workDir: string
  /** The fixture's patch, written once under workDir (see prepareSetup). */
  readonly patchPath: string
  /** Keep a torn trial's workspace for inspection (its path is in the problems). */
  readonly keepTorn?: boolean
}

/** Writes the patch file and checks the fixture against the engine (in process, unkilled). */
export async function prepareSetup(
  options: Omit<HarnessSetup, 'patchPath'>,
): Promise<HarnessSetup> {
  const patchPath = path.join(options.workDir, 'change.patch')
  await writeFile(patchPath, options.fixture.patch)
  const root = await mkdtemp(path.join(options.workDir, 'reference-'))
  try {
    await writeFiles(root, options.fixture.before)
    const engine = createEngineWithInternals(
      { root, durability: options.durability, workers: false },
      {},
    )
    try {
      await engine.apply(options.fixture.patch, { format: 'codex' })
    } finally {
      await engine.close()
    }
    const diff = treeDiff(await readTree(root), treeOf(options.fixture.after))
    if (diff.length > 0)
      throw new Error(`crash harness: the fixture's expected after-tree is wrong: ${diff[0]}`)
  } finally {
    await rm(root, { recursive: true, force: true })
  }
  return { ...options, patchPath }
}

/** Milliseconds from the child's `start` line to each once-per-commit point. */
export interface PhaseTimes {
  readonly lockedMs: number
  readonly preparedMs: number
  readonly syncedMs: number
  readonly markedMs: number
  readonly cleanedMs: number
}

export interface Calibration extends PhaseTimes {
  /** One entry per unkilled run. */
  readonly runs: readonly PhaseTimes[]
  /** Median locked -> marked: the commit itself. */
  readonly commitMs: number
  /** Median ms a recovery child takes to roll back a fully replaced transaction. */
  readonly recoveryMs: number
  /** The indices each commit point fired with in an unkilled run, sorted. */
  readonly indices: ReadonlyMap<JournalPoint, readonly number[]>
  /** 'recovery-restored' indices in the order a full rollback passes them. */
  readonly restoredOrder: readonly number[]
  /** The journal filesystem calls of one unkilled commit, and of one full rollback. */
  readonly applyCalls: readonly FsCall[]
  readonly recoveryCalls: readonly FsCall[]
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/**
 * Measures the commit in `runs` unkilled children and a full rollback in `runs` recovery
 * children, `jobs` at a time (the trials' own concurrency, so the times include its load), and
 * records which indices each point fires with. Each run is checked like a trial.
 */
export async function calibrate(setup: HarnessSetup, runs: number, jobs = 1): Promise<Calibration> {
  const timings: PhaseTimes[] = []
  const recoveries: number[] = []
  const indices = new Map<JournalPoint, number[]>()
  let restoredOrder: number[] = []
  let applyCalls: readonly FsCall[] = []
  let recoveryCalls: readonly FsCall[] = []
  const once = async (): Promise<void> => {
    const root = await freshWorkspace(setup)
    const run = await runChild(setup.childScript, applyRequest(setup, root))
    if (run.error !== undefined || run.doneMs === undefined)
      throw new Error(`crash harness: an unkilled run failed: ${run.error ?? 'no done line'}`)
    const at = (point: JournalPoint): number =>
      run.trace.find((t) => t.point === point)?.ms ?? Number.NaN
    timings.push({
      lockedMs: at('locked'),
      preparedMs: at('prepared'),
      syncedMs: at('synced'),
      markedMs: at('marked'),
      cleanedMs: at('cleaned'),
    })
    applyCalls = run.calls
    for (const t of run.trace) {
      const list = indices.get(t.point) ?? []
      if (!list.includes(t.index)) list.push(t.index)
      indices.set(t.point, list)
    }
    await expectJudged(setup, root, 'after', 'unkilled run')

    const rolled = await freshWorkspace(setup)
    const killed = await runChild(setup.childScript, {
      ...applyRequest(setup, rolled),
      kill: { point: 'synced', index: 0 },
    })
    if (killed.signal !== 'SIGKILL') throw new Error('crash harness: the synced kill missed')
    const recovery = await runChild(setup.childScript, recoverRequest(setup, rolled))
    if (recovery.error !== undefined || recovery.doneMs === undefined)
      throw new Error(`crash harness: a recovery run failed: ${recovery.error ?? 'no done line'}`)
    recoveries.push(recovery.doneMs)
    recoveryCalls = recovery.calls
    restoredOrder = recovery.trace
      .filter((t) => t.point === 'recovery-restored')
      .map((t) => t.index)
    await expectJudged(setup, rolled, 'before', 'recovery run')
  }
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(jobs, runs)) }, async (_, lane) => {
      for (let r = lane; r < runs; r += Math.max(1, jobs)) await once()
    }),
  )
  for (const list of indices.values()) list.sort((a, b) => a - b)
  const of = (key: keyof PhaseTimes): number => median(timings.map((t) => t[key]))
  return {
    runs: timings,
    lockedMs: of('lockedMs'),
    preparedMs: of('preparedMs'),
    syncedMs: of('syncedMs'),
    markedMs: of('markedMs'),
    cleanedMs: of('cleanedMs'),
    commitMs: median(timings.map((t) => t.markedMs - t.lockedMs)),
    recoveryMs: median(recoveries),
    indices,
    restoredOrder,
    applyCalls,
    recoveryCalls,
  }
}

async function expectJudged(
  setup: HarnessSetup,
  root: string,
  want: 'before' | 'after',
  what: string,
): Promise<void> {
  const verdict = await recoverAndJudge(setup, root)
  if (verdict.outcome !== want || verdict.problems.length > 0)
    throw new Error(
      `crash harness: ${what} ended ${verdict.outcome}, not ${want}: ${verdict.problems.join('; ')}`,
    )
  await rm(root, { recursive: true, force: true })
}

/**
 * Point kills: every commit point at its first, middle and last index (`edges`) or at every
 * index (`all`); recovery killed at the first, middle and last step it restores (or every one)
 * after a kill at `synced`; and a chain that kills recovery twice after a kill mid-replace.
 */
export function pointPlans(cal: Calibration, coverage: 'edges' | 'all'): KillPlan[] {
  const choose = (list: readonly number[]): number[] => {
    if (coverage === 'all' || list.length <= 3) return [...list]
    return [
      ...new Set([list[0], list[Math.floor(list.length / 2)], list[list.length - 1]]),
    ] as number[]
  }
  const plans: KillPlan[] = []
  for (const point of COMMIT_POINTS) {
    for (const index of choose(cal.indices.get(point) ?? []))
      plans.push({ kind: 'at', apply: { point, index } })
  }
  for (const index of choose(cal.restoredOrder)) {
    plans.push({
      kind: 'at',
      apply: SYNCED,
      recovery: [{ point: 'recovery-restored', index }],
    })
  }
  // Killed half-way through replacing, then recovery killed twice before it finishes.
  const replaced = cal.indices.get('replaced') ?? []
  const mid = replaced[Math.floor(replaced.length / 2)]
  if (mid !== undefined && mid >= 2) {
    plans.push({
      kind: 'at',
      apply: { point: 'replaced', index: mid },
      recovery: [
        { point: 'recovery-restored', index: Math.floor(mid / 2) },
        { point: 'recovery-restored', index: 0 },
      ],
    })
  }
  return plans
}

const SYNCED: Kill = { point: 'synced', index: 0 }

/**
 * Kills right after a journal filesystem call returns: of the commit (`apply`), or of a recovery
 * rolling back a commit killed at `synced` (`recovery`), for the calls `select` picks. Between any
 * two calls is a state the journal must survive; the points above are a few of them.
 */
export function callPlans(
  cal: Calibration,
  select: (call: FsCall, phase: 'apply' | 'recovery') => boolean,
): KillPlan[] {
  return [
    ...cal.applyCalls
      .filter((c) => select(c, 'apply'))
      .map((c): KillPlan => ({ kind: 'at', apply: { call: c.n } })),
    ...cal.recoveryCalls
      .filter((c) => select(c, 'recovery'))
      .map((c): KillPlan => ({ kind: 'at', apply: SYNCED, recovery: [{ call: c.n }] })),
  ]
}

/** `count` of `items`, evenly spaced (all of them when count >= items.length). */
export function spread<T>(items: readonly T[], count: number): T[] {
  if (count >= items.length) return [...items]
  if (count <= 0) return []
  return Array.from({ length: count }, (_, i) => items[Math.floor((i * items.length) / count)] as T)
}

/**
 * Random delays spread over the measured commit, from the end of verification to the child's
 * exit (a kill while the patch is still being verified ends before; one after the rename that
 * commits, or a child that exits first, ends after). On a
 * shared machine one run's phases can take twice another's, so each delay counts from the line
 * that opens its phase (start, locked, prepared, synced) and is drawn within that phase's median
 * duration: the short replace phase, where a tear could happen, then gets its share of kills
 * (double weight) whatever the load. About a third also kill the recovery that follows, within
 * its measured duration.
 */
export function delayPlans(cal: Calibration, count: number, seed: number): KillPlan[] {
  const random = prng(seed ^ 0x5eed)
  const margin = Math.max(0.3 * cal.commitMs, 2)
  const windows: readonly { after: Anchor; from: number; to: number }[] = [
    { after: 'start', from: Math.max(0, cal.lockedMs - margin), to: cal.lockedMs },
    { after: 'locked', from: 0, to: cal.preparedMs - cal.lockedMs },
    { after: 'prepared', from: 0, to: cal.syncedMs - cal.preparedMs },
    { after: 'prepared', from: 0, to: cal.syncedMs - cal.preparedMs },
    // The rename that commits, pruning and the exit: a few ms (the child may beat the kill).
    { after: 'synced', from: 0, to: 2 * (cal.cleanedMs - cal.syncedMs) + 2 },
  ]
  return Array.from({ length: count }, () => {
    const w = windows[Math.floor(random() * windows.length)] as (typeof windows)[number]
    const delayMs = w.from + random() * Math.max(0, w.to - w.from)
    const plan = { kind: 'delay', after: w.after, delayMs } as const
    return random() < 1 / 3 ? { ...plan, recoveryDelayMs: random() * 1.2 * cal.recoveryMs } : plan
  })
}

// ---- One trial ----------------------------------------------------------------------------------

export type Outcome = 'before' | 'after' | 'torn'

export interface TrialResult {
  readonly plan: KillPlan
  readonly outcome: Outcome
  /** Why the trial is torn, or what went wrong in the harness (a point never reached, ...). */
  readonly problems: readonly string[]
  /** The apply child died by SIGKILL (false: it finished before a delayed kill). */
  readonly killed: boolean
  /** The last journal point the apply child passed before it died ('start', 'done', a point). */
  readonly landed: string
  /** Recovery children that were killed before they finished. */
  readonly recoveryKilled: number
  readonly ms: number
}

function applyRequest(setup: HarnessSetup, root: string): ChildRequest {
  return { root, mode: 'apply', patchPath: setup.patchPath, durability: setup.durability }
}

function recoverRequest(setup: HarnessSetup, root: string): ChildRequest {
  return { root, mode: 'recover', durability: setup.durability }
}

async function freshWorkspace(setup: HarnessSetup): Promise<string> {
  const root = await mkdtemp(path.join(setup.workDir, 'ws-'))
  await writeFiles(root, setup.fixture.before)
  return root
}

/** Runs one trial: fresh workspace, kill(s), recovery here, verdict. Never throws for a tear. */
export async function runTrial(setup: HarnessSetup, plan: KillPlan): Promise<TrialResult> {
  const started = performance.now()
  const root = await freshWorkspace(setup)
  const problems: string[] = []
  const apply =
    plan.kind === 'delay'
      ? await runChild(setup.childScript, applyRequest(setup, root), {
          after: plan.after,
          ms: plan.delayMs,
        })
      : await runChild(setup.childScript, { ...applyRequest(setup, root), kill: plan.apply })
  if (apply.error !== undefined) problems.push(`apply child: ${apply.error}`)
  const killed = apply.signal === 'SIGKILL'
  if (plan.kind === 'at' && !killed)
    problems.push(`harness: the apply child never reached ${describeKill(plan.apply)}`)
  const last = apply.trace[apply.trace.length - 1]
  const landed = !killed
    ? 'done'
    : last !== undefined
      ? last.point
      : apply.started
        ? 'start'
        : 'launch'

  let recoveryKilled = 0
  const recoveryKills: { kill?: Kill; delayMs?: number }[] =
    plan.kind === 'at'
      ? (plan.recovery ?? []).map((kill) => ({ kill }))
      : plan.recoveryDelayMs !== undefined && (await hasPending(root))
        ? [{ delayMs: plan.recoveryDelayMs }]
        : []
  for (const { kill, delayMs } of recoveryKills) {
    const run = await runChild(
      setup.childScript,
      kill === undefined ? recoverRequest(setup, root) : { ...recoverRequest(setup, root), kill },
      delayMs === undefined ? undefined : { after: 'start', ms: delayMs },
    )
    if (run.error !== undefined) problems.push(`recovery child: ${run.error}`)
    if (run.signal === 'SIGKILL') recoveryKilled++
    else if (kill !== undefined)
      problems.push(`harness: the recovery child never reached ${describeKill(kill)}`)
  }

  const verdict = await recoverAndJudge(setup, root)
  problems.push(...verdict.problems)
  const expected = expectedOutcome(plan)
  if (expected !== undefined && verdict.outcome !== 'torn' && verdict.outcome !== expected)
    problems.push(`a kill at ${describePlan(plan)} must end ${expected}, ended ${verdict.outcome}`)
  if (verdict.outcome === 'torn' && setup.keepTorn === true)
    problems.push(`workspace kept: ${root}`)
  else await rm(root, { recursive: true, force: true })
  return {
    plan,
    outcome: verdict.outcome,
    problems,
    killed,
    landed,
    recoveryKilled,
    ms: performance.now() - started,
  }
}

async function hasPending(root: string): Promise<boolean> {
  const names = await readdir(path.join(root, '.patchloom', 'journal')).catch(() => [])
  return names.some((n) => n.endsWith('.pending'))
}

/**
 * Recovers `root` with a fresh engine in this process, then judges it against the fixture. Torn:
 * a path in neither state, a mix of before and after paths, an entry in neither tree (stray file
 * or directory, a directory left or lost), a transaction left pending or in conflict, a
 * recovery conflict, or a second recovery that does anything.
 */
export async function recoverAndJudge(
  setup: HarnessSetup,
  root: string,
): Promise<{ outcome: Outcome; problems: string[] }> {
  const problems: string[] = []
  const engine = createEngineWithInternals(
    { root, durability: setup.durability, workers: false },
    {},
  )
  let tree: Tree
  try {
    const first = await engine.recover()
    if (first.conflicts.length > 0) problems.push(`recovery conflicts: ${conflictText(first)}`)
    tree = await readTree(root)
    const second = await engine.recover()
    if (second.rolledBack.length + second.conflicted.length > 0)
      problems.push(`a second recovery was not a no-op: ${JSON.stringify(second)}`)
    if (treeDiff(await readTree(root), tree).length > 0)
      problems.push('a second recovery changed the tree')
  } catch (error) {
    problems.push(`recovery failed: ${error instanceof Error ? error.message : String(error)}`)
    tree = await readTree(root)
  } finally {
    await engine.close()
  }

  const beforeTree = treeOf(setup.fixture.before)
  const afterTree = treeOf(setup.fixture.after)
  let before = 0
  let after = 0
  const neither: string[] = []
  for (const p of setup.fixture.paths) {
    const now = tree.get(p) ?? 'absent'
    if (now === (beforeTree.get(p) ?? 'absent')) before++
    else if (now === (afterTree.get(p) ?? 'absent')) after++
    else neither.push(p)
  }
  if (neither.length > 0)
    problems.push(`in neither state: ${neither.slice(0, 5).join(', ')} (${neither.length})`)
  if (before > 0 && after > 0) problems.push(`mixed: ${before} paths before, ${after} after`)

  const outcome: Outcome =
    neither.length > 0 || (before > 0 && after > 0) ? 'torn' : before > 0 ? 'before' : 'after'
  if (outcome !== 'torn') {
    const stray = treeDiff(tree, outcome === 'before' ? beforeTree : afterTree)
    if (stray.length > 0) problems.push(`tree differs: ${stray.slice(0, 5).join('; ')}`)
  }

  const entries = await readdir(path.join(root, '.patchloom', 'journal')).catch(() => [])
  const unfinished = entries.filter((n) => n.endsWith('.pending') || n.endsWith('.conflict'))
  if (unfinished.length > 0) problems.push(`journal entries left: ${unfinished.join(', ')}`)
  const committed = entries.filter((n) => !n.includes('.')).length
  if (outcome !== 'torn' && committed !== (outcome === 'after' ? 1 : 0))
    problems.push(`${committed} committed transactions after an outcome of ${outcome}`)

  return { outcome: problems.length > 0 ? 'torn' : outcome, problems }
}

function conflictText(report: RecoveryReport): string {
  return report.conflicts.map((c) => `${c.path}: ${c.reason}`).join('; ')
}

/** Differences between two trees, one line each ('+' only in a, '-' only in b, '~' both). */
export function treeDiff(a: Tree, b: Tree): string[] {
  const out: string[] = []
  for (const [p, entry] of a) {
    const other = b.get(p)
    if (other === undefined) out.push(`+ ${p} (${entry.split(' ')[0] as string})`)
    else if (other !== entry) out.push(`~ ${p}`)
  }
  for (const p of b.keys()) if (!a.has(p)) out.push(`- ${p}`)
  return out
}

// ---- Running many -------------------------------------------------------------------------------

/** Runs `plans` with `jobs` trials at a time, calling `onResult` as each finishes. */
export async function runTrials(
  setup: HarnessSetup,
  plans: readonly KillPlan[],
  jobs: number,
  onResult?: (result: TrialResult, done: number) => void,
): Promise<TrialResult[]> {
  const results: TrialResult[] = new Array<TrialResult>(plans.length)
  let next = 0
  let done = 0
  const worker = async (): Promise<void> => {
    while (next < plans.length) {
      const i = next++
      const result = await runTrial(setup, plans[i] as KillPlan)
      results[i] = result
      onResult?.(result, ++done)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker))
  return results
}

export interface Tally {
  trials: number
  before: number
  after: number
  torn: number
  /** Harness failures that are not tears (a point never reached, a child error). */
  problems: number
}

export function tally(results: readonly TrialResult[]): Tally {
  const t: Tally = { trials: 0, before: 0, after: 0, torn: 0, problems: 0 }
  for (const r of results) {
    t.trials++
    t[r.outcome]++
    if (r.outcome !== 'torn' && r.problems.length > 0) t.problems++
  }
  return t
}

/**
 * Reads describePlan()'s form back: `replaced#17 -> recovery recovery-restored#8`,
 * `synced#0 -> recovery call#40`, or `delay 12.50 ms after prepared, recovery at 3.10 ms`.
 */
export function parsePlan(text: string): KillPlan | undefined {
  const delay = /^delay ([\d.]+) ms after ([a-z-]+)(?:, recovery at ([\d.]+) ms)?$/.exec(
    text.trim(),
  )
  if (delay !== null) {
    const after = delay[2] as Anchor
    if (after !== 'start' && !COMMIT_POINTS.includes(after)) return undefined
    const plan = { kind: 'delay', after, delayMs: Number(delay[1]) } as const
    return delay[3] === undefined ? plan : { ...plan, recoveryDelayMs: Number(delay[3]) }
  }
  const kills = text.split('->').map((part, i) => {
    const m = new RegExp(`^\\s*${i === 0 ? '' : 'recovery '}([a-z-]+)#(\\d+)\\s*$`).exec(part)
    if (m === null) return undefined
    const [name, n] = [m[1] as string, Number(m[2])]
    if (name === 'call') return { call: n }
    const points: readonly string[] = i === 0 ? COMMIT_POINTS : ['recovery-restored']
    return points.includes(name) ? { point: name as JournalPoint, index: n } : undefined
  })
  const [apply, ...recovery] = kills
  if (apply === undefined || recovery.some((k) => k === undefined)) return undefined
  return recovery.length === 0
    ? { kind: 'at', apply }
    : { kind: 'at', apply, recovery: recovery as Kill[] }
}
