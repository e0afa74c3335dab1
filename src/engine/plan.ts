// What a request will verify, and where: either the whole patch parsed here, or, for a large
// `git diff` bound for the pool, runs of its text that the workers parse themselves
// (src/parse/segments.ts). `planRequest` decides before any file is read (route.ts), so parse
// errors of a patch parsed here come before the journal is even looked at. `verifyPlanned` then
// hands the plan or the runs to dispatch.ts, and falls back to the whole patch when a run does not
// parse to its sections.
import type { ResolvedConfig } from './config.js'
import { detectFormat, parsePlan } from '../parse/index.js'
import { checkPlanEncoding } from '../parse/raw-bytes.js'
import { splitUnifiedSections, type PatchSegment } from '../parse/segments.js'
import type { SkippedEntry } from '../parse/unified.js'
import { unwrap } from '../result.js'
import type { PatchText } from '../text/patch-bytes.js'
import type { EditPlan, FormatOption, PatchFormat } from '../types.js'
import type { WorkerPool } from '../threads/worker-pool.js'
import { checkFileCount } from './limits.js'
import { batchCount, chooseRoute, MAX_BATCH_OPS } from './route.js'
import type { RequestedRoute, RouteInput } from './route.js'
import { poolRunner, thisThread, verifyPlan, verifySegments } from './dispatch.js'
import type { VerifiedOp, VerifySettings } from './verify.js'

export interface PlannedRequest {
  readonly patch: PatchText
  /** The format asked for, or the detected one ('auto' when nothing matched: parsing says so). */
  readonly format: FormatOption
  readonly requested: RequestedRoute
  readonly diffs: boolean
  /** Set when runs of the patch will be parsed one at a time; otherwise `plan` is. */
  readonly segments?: readonly PatchSegment[]
  /**
   * Where the runs go: the workers, or this thread in turn (a request verified inline with more
   * than MAX_BATCH_OPS files; the event loop gets a turn between runs unless blockingReads).
   */
  readonly runsOn?: 'pool' | 'this-thread'
  readonly plan?: EditPlan
  /** Skip binary entries without data (ApplyOptions.binaryWithoutData 'skip'), listed here. */
  readonly skipped?: SkippedEntry[]
}

/**
 * How a request was verified: inline from the plan, inline from runs of the text (blockingReads),
 * on the pool from the plan, or on the pool from runs of the text.
 */
export type RouteTaken = 'inline' | 'inline-runs' | 'pool' | 'pool-runs'

export interface VerifiedRequest {
  readonly format: PatchFormat
  readonly verified: VerifiedOp[]
  readonly route: RouteTaken
}

interface Engineish {
  readonly config: ResolvedConfig
  readonly pool: WorkerPool | undefined
}

export function planRequest(
  engine: Engineish,
  patch: PatchText,
  format: FormatOption,
  requested: RequestedRoute,
  diffs: boolean,
  skipBinaryWithoutData = false,
): PlannedRequest {
  const detected: FormatOption = format === 'auto' ? (detectFormat(patch.text) ?? 'auto') : format
  const skipped: SkippedEntry[] | undefined = skipBinaryWithoutData ? [] : undefined
  const base = { patch, format: detected, requested, diffs, ...(skipped ? { skipped } : {}) }
  // Entries skipped on request are listed by the one parse of the whole text.
  const segments = skipped ? null : segmentsOf(engine, patch, detected, requested)
  if (segments !== null) {
    const files = segments.reduce((sum, s) => sum + s.sections, 0)
    const route = chooseRoute(routeInput(engine, base, files))
    if (files <= engine.config.limits.maxFiles) {
      if (route === 'pool') return { ...base, segments, runsOn: 'pool' }
      // More than one batch, read in this thread: parsed a run at a time, so the whole plan and
      // every file's bytes are never held at once (D-072), and read as a worker reads (D-196).
      if (files > MAX_BATCH_OPS) return { ...base, segments, runsOn: 'this-thread' }
    }
  }
  return { ...base, plan: parseWhole(engine, patch, detected, skipped) }
}

export async function verifyPlanned(
  engine: Engineish,
  planned: PlannedRequest,
  settings: Omit<VerifySettings, 'format'>,
  signal?: AbortSignal,
): Promise<VerifiedRequest> {
  let plan = planned.plan
  const whole = (): EditPlan =>
    (plan ??= parseWhole(engine, planned.patch, planned.format, planned.skipped))
  const runner =
    planned.runsOn === 'pool' && engine.pool !== undefined
      ? poolRunner(engine.pool)
      : planned.runsOn === 'this-thread'
        ? thisThread(engine.config.blockingReads)
        : undefined
  if (planned.segments !== undefined && runner !== undefined) {
    const runs = { ...settings, format: 'unified' as const }
    const verified = await verifySegments(planned.segments, runs, runner, whole, signal)
    const route = runner.kind === 'this-thread' ? 'inline-runs' : 'pool-runs'
    if (verified !== null) return { format: 'unified', verified, route }
  }
  const parsed = whole()
  const route = chooseRoute(routeInput(engine, planned, parsed.ops.length))
  const verified = await verifyPlan(
    parsed,
    { ...settings, format: parsed.format },
    route,
    engine.pool,
    engine.config.blockingReads,
    signal,
  )
  return { format: parsed.format, verified, route }
}

function routeInput(
  engine: Engineish,
  request: Pick<PlannedRequest, 'patch' | 'requested' | 'diffs'>,
  files: number,
): RouteInput {
  return {
    requested: request.requested,
    pool: engine.pool === undefined ? false : engine.config.workers,
    files,
    patchLength: request.patch.text.length,
    diffs: request.diffs,
    poolStarted: engine.pool?.started === true,
    blockingReads: engine.config.blockingReads,
  }
}

function parseWhole(
  engine: Engineish,
  patch: PatchText,
  format: FormatOption,
  skipped?: SkippedEntry[],
): EditPlan {
  const { limits } = engine.config
  const options = skipped ? { onBinaryWithoutData: (e: SkippedEntry) => skipped.push(e) } : {}
  const plan = unwrap(parsePlan(patch.text, format, options))
  // A patch that is not UTF-8 keeps its raw bytes in line content only (D-040, D-041).
  unwrap(checkPlanEncoding(plan, patch.firstRawLine))
  checkFileCount(plan, limits.maxFiles)
  return plan
}

/** Runs of a `git diff` for the workers to parse, or null when this request is not split. */
function segmentsOf(
  engine: Engineish,
  patch: PatchText,
  format: FormatOption,
  requested: RequestedRoute,
): PatchSegment[] | null {
  const { pool } = engine
  if (format !== 'unified' || (pool === undefined && requested === 'pool')) return null
  // Raw bytes are checked against the whole plan (checkPlanEncoding): such patches stay whole.
  if (patch.firstRawLine !== undefined) return null
  const segments = splitUnifiedSections(patch.text, (sections) =>
    batchCount(sections, pool?.maxThreads ?? 1),
  )
  return patch.plain === true && segments !== null
    ? segments.map((s) => ({ ...s, plain: true }))
    : segments
}
