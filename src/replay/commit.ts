// One commit's compute: its diff parsed and applied to the entries it reads, nothing else.
// It needs no git and no tree beyond those entries, so the calling thread and a pool worker run
// the same function (workers/engine.worker.ts `replay`); everything in and out is plain,
// structured-clone data. Checking the result against git's record is replay.ts's (checkCommit).
import { inflateSync } from 'node:zlib'
import { DEFAULT_LIMITS } from '../defaults.js'
import { patchTextOf } from '../bytes/patch-input.js'
import { plainness } from '../bytes/plainness.js'
import type { EditErrorData } from '../errors.js'
import { parsePlan } from '../parse/index.js'
import type { ReplayJob } from '../threads/jobs.js'
import type { EditPlan } from '../types.js'
import { gitBlobId } from '../bytes/blob-id.js'
import type { RawChange } from './history-parse.js'
import { applyPlan, type AppliedPlan, type Tree, type TreeFile } from './tree.js'

export type ReplayVia = 'unified' | 'codex' | 'search-replace'
export const REPLAY_VIAS: readonly ReplayVia[] = ['unified', 'codex', 'search-replace']

/** The most pool workers a replay takes (`workers`, `--workers`). */
export const MAX_REPLAY_WORKERS = 64

export const GITLINK = '160000'

/** What a commit's compute needs: its diff, git's record of it, and the via. */
export interface CommitWork {
  readonly patch: Uint8Array
  readonly changes: readonly RawChange[]
  readonly via: ReplayVia
}

/** A commit's compute sent to a pool worker (workers/engine.worker.ts `replay`). */
export type CommitJob = ReplayJob<Tree, CommitWork>

/**
 * The commit's ops applied to `sources` (at least every path git's record names, as it was
 * before the commit). Submodule pointers are left to the caller (`skip`).
 */
export function computeCommit(sources: Tree, work: CommitWork): AppliedPlan {
  const plan = planOf(work.patch)
  if (plan === null) return emptyApplied([])
  // A diff of git's that the engine does not parse fails every file it names.
  if ('error' in plan)
    return emptyApplied(work.changes.map((c) => ({ path: c.path, error: plan.error })))
  return applyPlan(sources, plan.plan, {
    gitBlobId,
    inflate,
    skip: gitlinksOf(work.changes),
    rawPatch: plan.rawPatch,
    via: work.via,
    plainness,
  })
}

/** Every path a commit's record names: what its compute reads and may write. */
export function pathsOf(changes: readonly RawChange[]): string[] {
  const out = new Set<string>()
  for (const c of changes) {
    out.add(c.path)
    if (c.from !== undefined) out.add(c.from)
  }
  return [...out]
}

/** Paths of submodule pointers (either side), which the caller takes from git's record. */
export function gitlinksOf(changes: readonly RawChange[]): Set<string> {
  return new Set(
    changes
      .filter((c) => c.srcMode === GITLINK || c.dstMode === GITLINK)
      .flatMap((c) => (c.from === undefined ? [c.path] : [c.path, c.from])),
  )
}

function emptyApplied(failures: AppliedPlan['failures']): AppliedPlan {
  return {
    changes: new Map<string, TreeFile | null>(),
    failures,
    hunks: 0,
    refused: new Set<string>(),
    fallbacks: [],
    formatHunks: 0,
    refusals: [],
    misplaced: [],
  }
}

/** The commit's diff parsed, null for an empty commit, or the parse error as data. */
function planOf(
  patch: Uint8Array,
): { plan: EditPlan; rawPatch: boolean } | { error: EditErrorData } | null {
  if (patch.length === 0) return null
  // Git wrote this diff: a line ending in a stop token is the file's (a training corpus).
  const text = patchTextOf(patch, Number.MAX_SAFE_INTEGER, { keepStopTokens: true })
  const parsed = parsePlan(text.text, 'unified')
  if (!parsed.ok) return { error: parsed.error }
  return { plan: parsed.value, rawPatch: text.firstRawLine !== undefined }
}

function inflate(deflated: Uint8Array): Uint8Array {
  return new Uint8Array(inflateSync(deflated, { maxOutputLength: DEFAULT_LIMITS.maxFileBytes }))
}
