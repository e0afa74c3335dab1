// `replay`: a repository's first-parent history re-applied through the engine, commit by
// commit, to an in-memory tree that starts from the range's first parent; after each commit every
// file git says it touched is compared, blob id and mode, with git's record of that commit, and
// nothing else may have changed. Nothing is written to the repository. Git is read by two
// long-lived processes: the history stream (git-history.ts) and `cat-file --batch` for blobs on
// demand (cat-file.ts).
import { EditError, isEditError } from '../errors.js'
import { WorkerPool } from '../threads/worker-pool.js'
import { JOB_PROTOCOL } from '../threads/jobs.js'
import {
  computeCommit,
  type CommitJob,
  gitlinksOf,
  GITLINK,
  MAX_REPLAY_WORKERS,
  pathsOf,
  REPLAY_VIAS,
  type ReplayVia,
} from './commit.js'
import { createBlobReader, type BlobReader } from './cat-file.js'
import { openHistory, readTree, startOf } from './git-history.js'
import type { HistoryCommit, RawChange } from './history-parse.js'
import type { FallbackReason } from './convert.js'
import type { AppliedPlan, HunkMisplaced, HunkRefusal, Tree, TreeFile } from './tree.js'

export type { ReplayVia }
export { REPLAY_VIAS }
export type { FallbackReason }

export interface ReplayOptions {
  /** A directory inside a git work tree, or a bare repository. */
  readonly repo: string
  /** `A..B`, or one revision (its history from the root); default HEAD. */
  readonly range?: string
  readonly via?: ReplayVia
  /** Stop after this many commits (the oldest first). */
  readonly maxCommits?: number
  /**
   * Compute commits on this many pool workers (0, the default: the calling thread). Commits whose
   * files no earlier pending commit touches run at once; results are checked and yielded in order.
   */
  readonly workers?: number
  readonly signal?: AbortSignal
}

/** A file whose blob id or mode after a commit is not git's. `line` is 1-based, when known. */
export interface ReplayMismatch {
  readonly commit: string
  readonly path: string
  /** The first line where the bytes differ; null when only the mode differs or a side is absent. */
  readonly line: number | null
  /** What git has there: that line's text, or `<mode> <blob id>`, or `(absent)`. */
  readonly expected: string
  readonly actual: string
}

/** A hunk a context-only via placed elsewhere than git's diff has it (must never happen). */
export interface ReplayMisplaced extends HunkMisplaced {
  readonly commit: string
}

/**
 * One commit replayed. `tree` is the tree after it, with git's bytes where a file mismatched; the
 * replay goes on from the same map, so it is valid until the next step (copy it to keep it).
 */
export interface ReplayCommit {
  readonly commit: string
  /** 0-based position in the replayed range. */
  readonly index: number
  /** Files git records as changed by the commit. */
  readonly files: number
  readonly hunks: number
  /** Bytes of the commit's diff. */
  readonly bytes: number
  /** Every touched file matched git's blob id and mode, and nothing else changed. */
  readonly exact: boolean
  /**
   * Files the via's format cannot state, replayed from git's diff or (submodule pointers) git's record;
   * their reasons are `fallbackReasons`.
   */
  readonly fallbacks: number
  readonly fallbackReasons: readonly FallbackReason[]
  /** Hunks that went through the context-only format (0 for `via: 'unified'`). */
  readonly formatHunks: number
  /** Hunks the matcher refused; their files continue from git's post-image. */
  readonly refusals: readonly HunkRefusal[]
  readonly misplaced: readonly ReplayMisplaced[]
  readonly mismatches: readonly ReplayMismatch[]
  readonly tree: Tree
}

/** The whole replay's figures (the CLI's report and --json object). */
export interface ReplayReport {
  readonly repo: string
  readonly range: string
  readonly via: ReplayVia
  readonly commits: number
  readonly exactCommits: number
  readonly files: number
  readonly hunks: number
  readonly bytes: number
  /** Hunks that went through the context-only format: the refused share's denominator. */
  readonly formatHunks: number
  readonly refusedHunks: number
  /** Refused hunks by the matcher's error code (MATCH_AMBIGUOUS, MATCH_NOT_FOUND, ...). */
  readonly refusals: Readonly<Record<string, number>>
  readonly misplacedHunks: number
  readonly misplaced: readonly ReplayMisplaced[]
  readonly fallbacks: number
  /** Fallbacks by reason (FallbackReason). */
  readonly fallbackReasons: Readonly<Record<string, number>>
  readonly mismatches: readonly ReplayMismatch[]
  readonly wallMs: number
}

// Where the engine's result differs from git's (or it refuses git's own diff), the mismatch is
// reported with its first differing line and the file continues from git's post-image, so one
// difference does not cascade through the rest of the history. A submodule pointer has no bytes
// to apply a diff to: it is taken from git's record and counted as a fallback.
//
// `via: 'codex' | 'search-replace'` converts each file's diff to that format first (D-078,
// tree.ts): refused hunks are counted and the file continues from git's post-image; misplaced
// hunks (placed anywhere but git's place) fail the commit like a mismatch.
//
// `workers: N` computes commits on the pool (D-086, onPool below): a commit waits only for the
// earlier pending commits that touch its paths, and results are checked and yielded in order.
/**
 * The replay, one commit at a time (oldest first); the generator's return value is the report.
 *
 * @example
 * const run = replay({ repo: '.', range: 'v1.0..main' })
 * for (let step = await run.next(); !step.done; step = await run.next()) use(step.value.tree)
 */
export async function* replay(options: ReplayOptions): AsyncGenerator<ReplayCommit, ReplayReport> {
  const started = performance.now()
  const via = options.via ?? 'unified'
  if (!REPLAY_VIAS.includes(via)) {
    throw new EditError(
      'CONFIG_INVALID',
      `Invalid option: via must be one of ${REPLAY_VIAS.map((v) => `"${v}"`).join(', ')}; got ${String(via)}.`,
    )
  }
  const { repo, signal } = options
  const range = options.range ?? 'HEAD'
  const maxCommits = options.maxCommits ?? Infinity
  const workers = options.workers ?? 0
  if (!Number.isInteger(workers) || workers < 0 || workers > MAX_REPLAY_WORKERS) {
    throw new EditError(
      'CONFIG_INVALID',
      `Invalid option: workers must be a whole number from 0 to ${MAX_REPLAY_WORKERS}; got ${String(workers)}.`,
    )
  }
  // git's history stream starts first: its first commits are read while the start tree is.
  const history =
    maxCommits > 0
      ? openHistory({ repo, range, ...(signal === undefined ? {} : { signal }) })
      : null
  let tree: Map<string, TreeFile>
  try {
    // One tree, changed in place commit by commit (a copy per commit would cost the tree's size
    // times the history's length).
    tree = new Map<string, TreeFile>(await readTree(repo, await startOf(repo, range)))
  } catch (error) {
    await history?.close()
    throw error
  }
  const blobs = createBlobReader(repo)
  const totals = {
    commits: 0,
    exactCommits: 0,
    files: 0,
    hunks: 0,
    bytes: 0,
    formatHunks: 0,
    refusedHunks: 0,
    fallbacks: 0,
  }
  const mismatches: ReplayMismatch[] = []
  const misplaced: ReplayMisplaced[] = []
  const refusals: Record<string, number> = {}
  const fallbackReasons: Record<string, number> = {}
  const pool = workers > 0 ? new WorkerPool({ minThreads: workers, maxThreads: workers }) : null
  try {
    if (history !== null) {
      const steps =
        pool === null
          ? inOrder(history.commits, tree, blobs, via)
          : onPool(history.commits, tree, blobs, via, pool, workers)
      for await (const done of steps) {
        totals.commits++
        if (done.exact) totals.exactCommits++
        totals.files += done.files
        totals.hunks += done.hunks
        totals.bytes += done.bytes
        totals.formatHunks += done.formatHunks
        totals.refusedHunks += done.refusals.length
        totals.fallbacks += done.fallbacks
        for (const r of done.refusals) refusals[r.code] = (refusals[r.code] ?? 0) + 1
        for (const r of done.fallbackReasons) fallbackReasons[r] = (fallbackReasons[r] ?? 0) + 1
        mismatches.push(...done.mismatches)
        misplaced.push(...done.misplaced)
        yield done
        if (totals.commits >= maxCommits) break
      }
    }
  } finally {
    await history?.close()
    await pool?.close()
    await blobs.close()
  }
  return {
    repo,
    range,
    via,
    ...totals,
    refusals,
    misplacedHunks: misplaced.length,
    misplaced,
    fallbackReasons,
    mismatches,
    wallMs: performance.now() - started,
  }
}

/** Commits read ahead of the one being yielded, per worker (each holds its diff). */
const AHEAD_PER_WORKER = 16

/** Each commit computed and checked in the calling thread, against the one tree. */
async function* inOrder(
  history: AsyncIterable<HistoryCommit>,
  tree: Map<string, TreeFile>,
  blobs: BlobReader,
  via: ReplayVia,
): AsyncGenerator<ReplayCommit> {
  let index = 0
  for await (const commit of history) {
    const applied = computeCommit(tree, { patch: commit.patch, changes: commit.changes, via })
    const checked = await checkCommit((p) => tree.get(p), commit, index++, applied, blobs)
    applyOverlay(tree, checked.overlay)
    yield { ...checked.done, tree }
  }
}

/** A commit on its way through the pool: `checked` resolves once its compute is checked. */
interface Slot {
  readonly paths: readonly string[]
  /** The commit's result, and each of its paths' entries after it (undefined: absent). */
  readonly checked: Promise<Checked & { readonly after: ReadonlyMap<string, TreeFile | undefined> }>
}

/**
 * Commits computed on the pool: a commit waits only for the earlier pending commits that
 * touch one of its paths (a file's changes form a chain; different files' chains run at once),
 * reads its entries from them or the tree, is computed by a worker and checked here. Results are
 * laid over the tree and yielded in commit order, so every yielded tree is exactly that commit's.
 */
async function* onPool(
  history: AsyncIterable<HistoryCommit>,
  tree: Map<string, TreeFile>,
  blobs: BlobReader,
  via: ReplayVia,
  pool: WorkerPool,
  workers: number,
): AsyncGenerator<ReplayCommit> {
  const window: Slot[] = []
  // The latest slot not yet laid over the tree that touches each path.
  const writer = new Map<string, Slot>()
  let index = 0
  const run = async (
    commit: HistoryCommit,
    at: number,
    deps: ReadonlyMap<string, Slot>,
    paths: readonly string[],
  ) => {
    const sources = new Map<string, TreeFile>()
    for (const path of paths) {
      const dep = deps.get(path)
      // With no pending writer, the tree holds the entry: every earlier writer is laid over it.
      const entry = dep === undefined ? tree.get(path) : (await dep.checked).after.get(path)
      if (entry !== undefined) sources.set(path, entry)
    }
    const work = { patch: commit.patch, changes: commit.changes, via }
    const job: CommitJob = { protocol: JOB_PROTOCOL, sources, work }
    const applied =
      commit.patch.length === 0
        ? computeCommit(sources, work)
        : await pool.run<AppliedPlan>('replay', job)
    const checked = await checkCommit((p) => sources.get(p), commit, at, applied, blobs)
    const after = new Map<string, TreeFile | undefined>()
    for (const path of paths) {
      const o = checked.overlay
      after.set(path, o.has(path) ? (o.get(path) ?? undefined) : sources.get(path))
    }
    return { ...checked, after }
  }
  const flush = async (): Promise<ReplayCommit> => {
    const slot = window.shift() as Slot
    const checked = await slot.checked
    applyOverlay(tree, checked.overlay)
    for (const path of slot.paths) if (writer.get(path) === slot) writer.delete(path)
    return { ...checked.done, tree }
  }
  try {
    for await (const commit of history) {
      const paths = pathsOf(commit.changes)
      const deps = new Map<string, Slot>()
      for (const path of paths) {
        const w = writer.get(path)
        if (w !== undefined) deps.set(path, w)
      }
      const slot: Slot = { paths, checked: run(commit, index++, deps, paths) }
      // A rejection is thrown in order, by flush; until then it must not count as unhandled.
      slot.checked.catch(() => undefined)
      for (const path of paths) writer.set(path, slot)
      window.push(slot)
      while (window.length >= workers * AHEAD_PER_WORKER) yield await flush()
    }
    while (window.length > 0) yield await flush()
  } finally {
    // Stopped early (maxCommits, an error): the computes in flight end before the pool closes.
    await Promise.allSettled(window.map((s) => s.checked))
  }
}

/** A commit checked: its result without the tree, and the entries it sets (null: deleted). */
interface Checked {
  readonly done: Omit<ReplayCommit, 'tree'>
  readonly overlay: ReadonlyMap<string, TreeFile | null>
}

/**
 * One computed commit against git's record: every touched file's blob id and mode, and no other
 * file changed. `base` gives each path's entry before the commit. Where the engine's result
 * differs (or it refused), the overlay holds git's own post-image, so one difference does not
 * cascade; submodule pointers come from git's record.
 */
async function checkCommit(
  base: (path: string) => TreeFile | undefined,
  commit: HistoryCommit,
  index: number,
  applied: AppliedPlan,
  blobs: BlobReader,
): Promise<Checked> {
  const gitlinks = gitlinksOf(commit.changes)
  const overlay = new Map(applied.changes)
  // Submodule pointers (and whatever replaced one) come from git's record.
  for (const c of commit.changes) {
    if (!gitlinks.has(c.path)) continue
    overlay.set(c.path, c.status === 'D' ? null : await gitEntry(c, blobs))
    if (c.status === 'R' && c.from !== undefined) overlay.set(c.from, null)
  }
  const mismatches: ReplayMismatch[] = []
  for (const failure of applied.failures) {
    mismatches.push({
      commit: commit.sha,
      path: failure.path,
      line: failure.error.patchLine ?? null,
      expected: 'the commit applied',
      actual: `refused: ${failure.error.code}: ${failure.error.message}`,
    })
  }
  const changed = [...overlay.keys()]
  const after = (path: string): TreeFile | undefined =>
    overlay.has(path) ? (overlay.get(path) ?? undefined) : base(path)
  const expected = expectedEntries(commit.changes)
  for (const [path, want] of expected) {
    const have = after(path)
    if (sameEntry(have, want)) continue
    // A refused hunk's file is taken from git without a mismatch: the refusal is counted.
    if (!applied.refused.has(path) && !applied.failures.some((f) => f.path === path))
      mismatches.push(await describe(commit.sha, path, want, have, blobs))
    // Continue from git's own post-image: one difference must not cascade. An object git cannot
    // give back intact leaves the file as the commit's diff made it.
    if (want === null) overlay.set(path, null)
    else if (want.mode === GITLINK) overlay.set(path, { ...want, bytes: null })
    else {
      const bytes = await gitBlob(blobs, want.id)
      if (bytes instanceof Uint8Array) overlay.set(path, { ...want, bytes })
    }
  }
  for (const path of changed) {
    if (expected.has(path)) continue
    // The engine changed a file git's record does not name: reported, and left as it was.
    mismatches.push(await describe(commit.sha, path, base(path) ?? null, after(path), blobs))
    overlay.delete(path)
  }
  const submodules = [...gitlinks].filter((p) => expected.has(p)).map(() => 'submodule' as const)
  const fallbackReasons = [...submodules, ...applied.fallbacks]
  const misplaced = applied.misplaced.map((m) => ({ commit: commit.sha, ...m }))
  const done = {
    commit: commit.sha,
    index,
    files: commit.changes.length,
    hunks: applied.hunks,
    bytes: commit.patch.length,
    exact: mismatches.length === 0 && misplaced.length === 0,
    fallbacks: fallbackReasons.length,
    fallbackReasons,
    formatHunks: applied.formatHunks,
    refusals: applied.refusals,
    misplaced,
    mismatches,
  }
  return { done, overlay }
}

/** Lays a checked commit's entries over the tree. */
function applyOverlay(
  tree: Map<string, TreeFile>,
  overlay: ReadonlyMap<string, TreeFile | null>,
): void {
  for (const [path, file] of overlay) {
    if (file === null) tree.delete(path)
    else tree.set(path, file)
  }
}

const NO_FILE = '000000'

/** Each path's entry after the commit as git records it: mode and id, or null for a deletion. */
function expectedEntries(
  changes: readonly RawChange[],
): Map<string, { mode: string; id: string } | null> {
  const out = new Map<string, { mode: string; id: string } | null>()
  for (const c of changes) {
    if (c.status === 'R' && c.from !== undefined && !out.has(c.from)) out.set(c.from, null)
  }
  for (const c of changes)
    out.set(
      c.path,
      c.status === 'D' || c.dstMode === NO_FILE ? null : { mode: c.dstMode, id: c.dstId },
    )
  return out
}

function sameEntry(have: TreeFile | undefined, want: { mode: string; id: string } | null): boolean {
  if (want === null) return have === undefined
  return have !== undefined && have.mode === want.mode && have.id === want.id
}

async function gitEntry(c: RawChange, blobs: BlobReader): Promise<TreeFile> {
  return {
    mode: c.dstMode,
    id: c.dstId,
    bytes: c.dstMode === GITLINK ? null : await blobs.read(c.dstId),
  }
}

/** A mismatch, with the first line where git's bytes and the engine's differ. */
async function describe(
  commit: string,
  path: string,
  want: { mode: string; id: string } | null,
  have: TreeFile | undefined,
  blobs: BlobReader,
): Promise<ReplayMismatch> {
  const entry = (e: { mode: string; id: string } | null | undefined) =>
    e === null || e === undefined ? '(absent)' : `${e.mode} ${e.id}`
  if (
    want === null ||
    have === undefined ||
    have.bytes === null ||
    want.mode === GITLINK ||
    want.id === have.id
  )
    return { commit, path, line: null, expected: entry(want), actual: entry(have) }
  const wanted = await gitBlob(blobs, want.id)
  if (!(wanted instanceof Uint8Array))
    return {
      commit,
      path,
      line: null,
      expected: `${entry(want)} (${wanted.message})`,
      actual: entry(have),
    }
  const wantLines = splitForReport(wanted)
  const haveLines = splitForReport(have.bytes)
  let line = 0
  while (line < wantLines.length && line < haveLines.length && wantLines[line] === haveLines[line])
    line++
  return {
    commit,
    path,
    line: line + 1,
    expected: wantLines[line] ?? '(end of file)',
    actual: haveLines[line] ?? '(end of file)',
  }
}

/** Git's bytes for a blob id, or the error when git's object is damaged (a mismatch, not a crash). */
async function gitBlob(blobs: BlobReader, id: string): Promise<Uint8Array | EditError> {
  try {
    return await blobs.read(id)
  } catch (error) {
    if (isEditError(error) && error.code === 'REPLAY_OBJECT_CORRUPT') return error
    throw error
  }
}

function splitForReport(bytes: Uint8Array): string[] {
  return new TextDecoder().decode(bytes).split('\n')
}
