// Verification of a run of a plan's ops, everything short of writing: resolve each op's paths,
// read and hash its files, pair type changes, check states, compute the new bytes, hash them.
// The same function runs inline (the caller's thread) and in a worker on a batch of ops
// (verify-job.ts, synchronous calls: workers read their own files), so both routes make the same
// checks in the same order. Each op ends in an outcome, never a throw: merge.ts orders the
// failures of all batches by phase and plan position, so the error a request gets never depends
// on how it was split or on thread timing.
import { equalBytes } from '../bytes/equal.js'
import { inflateSync } from 'node:zlib'
import { computeFile } from '../apply/compute.js'
import { checkNotebook, isNotebookPath } from '../apply/notebook.js'
import { EditError, type EditErrorData } from '../errors.js'
import { hashBytes } from '../hash.js'
import { opHasRawBytes } from '../parse/raw-bytes.js'
import type { ComputedFile, ComputeInput, FileOp, LineHunk, PatchFormat } from '../types.js'
import { unpackHunks } from '../parse/plain-section.js'
import { compileGlobs } from '../workspace/glob.js'
import { plainness } from '../bytes/plainness.js'
import type { PathContext } from '../workspace/paths.js'
import {
  checkState,
  readOp,
  resolveOp,
  writesLink,
  type PreparedOp,
  type PreparedPath,
  type ResolvedOp,
} from './prepare.js'
import type { ReadFs } from '../workspace/read-fs.js'
import { searchRegex } from './regex-search.js'
import { permissionsFor } from './permissions.js'
import { PlanSequence, removedAncestorIn, removedRels, sequenceGroups } from './sequence.js'

/** What a verification needs besides the ops; plain data, so it crosses to a worker. */
export interface VerifySettings {
  readonly root: string
  readonly rootReal: string
  readonly denyGlobs: readonly string[]
  readonly caseInsensitive: boolean
  readonly format: PatchFormat
  readonly maxFileBytes: number
  /** The patch is not UTF-8 somewhere: ops whose lines hold raw bytes match exactly. */
  readonly rawPatch: boolean
  /** Render each file's diff text (counts are always computed). */
  readonly diffs: boolean
  /** Keep the before bytes in the result (language-server diagnostics need the old text). */
  readonly keepBefore: boolean
  /**
   * Keep the new bytes (a commit writes them). A dry run keeps only their hash and size, and the
   * bytes of a symlink the change writes (its target is checked), which spares the engine's thread
   * a copy of every new file.
   */
  readonly keepAfter: boolean
  /** A file's final-newline state: the format's rule, or kept (CheckOptions.finalNewline). */
  readonly finalNewline: 'format' | 'keep'
}

/** The order failures are reported in: an earlier phase wins over a later one. */
export type VerifyPhase = 'resolve' | 'read' | 'state' | 'compute'

/** A failure as data: an EditError, or any other exception (an errno, or a bug) by its fields. */
export type FailureData =
  | { readonly kind: 'edit'; readonly data: EditErrorData }
  | {
      readonly kind: 'error'
      readonly name: string
      readonly message: string
      readonly stack?: string
      readonly code?: string
      readonly errno?: number
      readonly syscall?: string
      readonly path?: string
    }

export interface VerifiedOp {
  readonly prepared: PreparedOp
  /** `after` is DROPPED_AFTER when settings.keepAfter was false; afterSize still holds. */
  readonly computed: ComputedFile
  readonly afterHash: string | null
  /** Bytes of the new content; null when the op deletes the file. */
  readonly afterSize: number | null
  /** The op's target already holds exactly the new bytes. */
  readonly sameBytes: boolean
}

/** The new content a dry run does not keep (VerifySettings.keepAfter); never written. */
export const DROPPED_AFTER: Uint8Array = new Uint8Array(0)

export type OpOutcome =
  | { readonly ok: true; readonly verified: VerifiedOp }
  | {
      readonly ok: false
      readonly phase: VerifyPhase
      readonly failure: FailureData
      /** Present once the op's paths resolved: duplicates are judged across every batch. */
      readonly resolved?: ResolvedOp
    }

export async function verifyOps(
  ops: readonly FileOp[],
  settings: VerifySettings,
  fs: ReadFs,
): Promise<OpOutcome[]> {
  const ctx: PathContext = {
    root: settings.root,
    rootReal: settings.rootReal,
    isDenied: denyRulesFor(settings.denyGlobs),
    caseInsensitive: settings.caseInsensitive,
  }
  const outcomes: (OpOutcome | undefined)[] = new Array<OpOutcome | undefined>(ops.length)
  const fail = (i: number, phase: VerifyPhase, error: unknown, resolved?: ResolvedOp) => {
    outcomes[i] = {
      ok: false,
      phase,
      failure: failureOf(error),
      ...(resolved === undefined ? {} : { resolved }),
    }
  }
  // A unified plan may name a path in several sections (sequence.ts); paths below one it removes
  // resolve through that name as the directory the commit will make there.
  const sequences = settings.format === 'unified'
  const removedAncestor = sequences ? removedAncestorIn(removedRels(ops)) : undefined
  const resolved = await Promise.all(
    ops.map(async (op, i) => {
      try {
        return await resolveOp(ctx, op, fs, removedAncestor)
      } catch (error) {
        fail(i, 'resolve', error)
        return undefined
      }
    }),
  )
  const read = await Promise.all(
    resolved.map(async (r, i) => {
      if (r === undefined) return undefined
      try {
        return await readOp(r, settings.maxFileBytes, fs)
      } catch (error) {
        fail(i, 'read', error, r)
        return undefined
      }
    }),
  )
  const readIndices = read.flatMap((p, i) => (p === undefined ? [] : [i]))
  const groups = sequences
    ? sequenceGroups(
        readIndices.map((i) => resolved[i] as ResolvedOp),
        settings.caseInsensitive,
      )
    : []
  if (groups.length === 0) {
    for (const i of readIndices) {
      const r = resolved[i] as ResolvedOp
      const p = read[i] as PreparedOp
      try {
        checkState(p, settings.format)
      } catch (error) {
        fail(i, 'state', error, r)
        continue
      }
      try {
        outcomes[i] = { ok: true, verified: verifiedOp(p, computeOp(p, settings), settings) }
      } catch (error) {
        fail(i, 'compute', error, r)
      }
    }
    return outcomes as OpOutcome[]
  }
  // Sections that name one path are read in order, as git reads them (sequence.ts).
  const sequence = new PlanSequence(
    readIndices.map((i) => read[i] as PreparedOp),
    settings.caseInsensitive,
    fs,
  )
  const computed = new Map<
    number,
    { p: PreparedOp; computed: ComputedFile; afterHash: string | null }
  >()
  for (const [k, i] of readIndices.entries()) {
    const r = resolved[i] as ResolvedOp
    let p: PreparedOp
    try {
      p = await sequence.adjust(k)
      checkState(p, settings.format)
    } catch (error) {
      fail(i, 'state', error, r)
      continue
    }
    try {
      const result = computeOp(p, settings)
      const after = result.after
      const afterHash = after === null ? null : hashBytes(after)
      sequence.record(k, p, {
        after,
        afterHash,
        permissions: permissionsFor(
          (p.op.kind === 'copy' ? p.from : p.target)?.snap.permissions,
          p.op.kind === 'edits' || p.op.kind === 'delete' ? undefined : p.op.modeAfter,
        ),
      })
      computed.set(k, { p, computed: result, afterHash })
    } catch (error) {
      fail(i, 'compute', error, r)
    }
  }
  const { roles, failure } = sequence.roles()
  for (const [k, i] of readIndices.entries()) {
    const done = computed.get(k)
    if (done === undefined) continue
    if (failure?.index === k) {
      fail(i, 'state', failure.error, resolved[i])
      continue
    }
    const p: PreparedOp = { ...done.p, ...roles.get(k) }
    outcomes[i] = { ok: true, verified: verifiedOp(p, done.computed, settings, done.afterHash) }
  }
  return outcomes as OpOutcome[]
}

/** The op's new content, its notebook checked; throws EditError when it does not verify. */
function computeOp(p: PreparedOp, settings: VerifySettings): ComputedFile {
  const computed = unwrapCompute(computeFile(computeInput(p, settings), { searchRegex }))
  refuseNoChange(p, computed)
  if (computed.after !== null) checkNotebookOp(p, computed.after)
  return computed
}

/**
 * PATCH_NO_OP when a patch's update of a file leaves every byte as it was: no rename, no mode
 * line, and the new bytes equal what the path holds now. The rule of EDIT_NO_OP, for patches: a
 * change that changes nothing is refused, not reported as applied.
 */
function refuseNoChange(p: PreparedOp, computed: ComputedFile): void {
  const op = p.op
  if (op.kind !== 'update' || op.moveTo !== undefined || op.modeAfter !== undefined) return
  const before = p.replaces === undefined ? p.target.snap.bytes : p.replaces.bytes
  if (before === null || computed.after === null || !equalBytes(before, computed.after)) return
  const hunks = op.packed === undefined ? op.hunks : unpackHunks(op).hunks
  const empty = hunks.filter((hunk) => hunk.lines.every((line) => line.op === ' '))
  const lines = (list: readonly LineHunk[]): string =>
    list.length === 1
      ? `line ${(list[0] as LineHunk).patchLine}`
      : `lines ${list.map((h) => h.patchLine).join(', ')}`
  const why =
    empty.length === 0
      ? 'its hunks remove and add the same lines'
      : `the ${empty.length === 1 ? 'hunk' : 'hunks'} at patch ${lines(empty)} ${empty.length === 1 ? 'has' : 'have'} no "-" or "+" line` +
        (empty.length < hunks.length ? ', and the others remove and add the same lines' : '')
  throw new EditError(
    'PATCH_NO_OP',
    `The patch changes nothing in ${op.path}: ${why}. Nothing was written.`,
    {
      path: op.path,
      patchLine: op.patchLine,
    },
  )
}

function verifiedOp(
  p: PreparedOp,
  computed: ComputedFile,
  settings: VerifySettings,
  afterHash = computed.after === null ? null : hashBytes(computed.after),
): VerifiedOp {
  const after = computed.after
  // What the path holds now: for a sequenced op, what stands on disk, which its step replaces.
  const before = p.replaces === undefined ? p.target.snap.bytes : p.replaces.bytes
  const keepAfter = settings.keepAfter || after === null || writesLink(p)
  return {
    prepared: settings.keepBefore ? p : withoutBytes(p),
    computed: keepAfter ? computed : { ...computed, after: DROPPED_AFTER },
    afterHash,
    afterSize: after === null ? null : after.length,
    sameBytes: before !== null && after !== null && equalBytes(before, after),
  }
}

// PERF: deny rules compiled once per list; recompiling them per request was a tenth of a small
// edit's time. Keyed by content, so a worker reuses them across batches too.
const compiledRules = new Map<string, (rel: string) => string | undefined>()

function denyRulesFor(globs: readonly string[]): (rel: string) => string | undefined {
  const key = JSON.stringify(globs)
  let rules = compiledRules.get(key)
  if (rules === undefined) {
    if (compiledRules.size > 64) compiledRules.clear()
    rules = compileGlobs(globs)
    compiledRules.set(key, rules)
  }
  return rules
}

/** A notebook must stay JSON whatever the format that edits it (src/apply/notebook.ts). */
function checkNotebookOp(p: PreparedOp, after: Uint8Array): void {
  const { op } = p
  const written = op.kind === 'update' && op.moveTo !== undefined ? op.moveTo : op.path
  if (!isNotebookPath(written)) return
  const read = op.kind === 'copy' && p.from !== undefined ? p.from : p.target
  const invalid = checkNotebook(written, op.patchLine, read.snap.bytes, after)
  if (invalid !== null) throw EditError.fromData(invalid)
}

function unwrapCompute(result: ReturnType<typeof computeFile>): ComputedFile {
  if (!result.ok) throw EditError.fromData(result.error)
  return result.value
}

/** The pure compute's input for one prepared op; a binary hunk is inflated here (zlib). */
function computeInput(p: PreparedOp, settings: VerifySettings): ComputeInput {
  const { op } = p
  const read = op.kind === 'copy' && p.from !== undefined ? p.from : p.target
  const binary = op.kind === 'edits' ? undefined : op.binary
  const inflated =
    binary === undefined ? undefined : inflate(op, binary.forward.deflated, settings.maxFileBytes)
  return {
    format: settings.format,
    op,
    source: read.snap.bytes,
    ...(read.snap.mode === undefined ? {} : { sourceMode: read.snap.mode }),
    ...(inflated === undefined ? {} : { inflated }),
    // Only ops whose own lines hold raw bytes lose leniency; the rest of the patch keeps it.
    ...(settings.rawPatch && opHasRawBytes(op) ? { rawBytes: true as const } : {}),
    ...(settings.diffs ? {} : { countOnly: true as const }),
    ...(settings.finalNewline === 'keep' ? { keepFinalNewline: true as const } : {}),
    // Native checks are cheap next to decoding; only the count-only splice uses them.
    ...(!settings.diffs && read.snap.bytes !== null ? plainness(read.snap.bytes) : {}),
  }
}

function inflate(op: FileOp, deflated: Uint8Array, maxFileBytes: number): Uint8Array {
  try {
    // A few kilobytes of deflate can claim gigabytes: stop at the file size limit.
    return new Uint8Array(inflateSync(deflated, { maxOutputLength: maxFileBytes }))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new EditError(
        'LIMIT_FILE_TOO_LARGE',
        `${op.path}: the GIT binary patch inflates to more than the ${maxFileBytes}-byte file size limit.`,
        { path: op.path, patchLine: op.patchLine, cause: error },
      )
    }
    throw new EditError(
      'PARSE_BAD_BINARY',
      `${op.path}: the GIT binary patch data does not inflate (${(error as Error).message}).`,
      { path: op.path, patchLine: op.patchLine, cause: error },
    )
  }
}

/** The op without the files' old bytes: nothing after verification needs them but diagnostics. */
function withoutBytes(p: PreparedOp): PreparedOp {
  const strip = (path: PreparedPath): PreparedPath =>
    path.snap.bytes === null ? path : { ...path, snap: { ...path.snap, bytes: null } }
  return {
    ...p,
    target: strip(p.target),
    ...(p.moveTo === undefined ? {} : { moveTo: strip(p.moveTo) }),
    ...(p.from === undefined ? {} : { from: strip(p.from) }),
    ...(p.replaces === undefined || p.replaces.bytes === null
      ? {}
      : { replaces: { ...p.replaces, bytes: null } }),
  }
}

function failureOf(error: unknown): FailureData {
  if (error instanceof EditError) return { kind: 'edit', data: error.toData() }
  if (error instanceof Error) {
    const e = error as NodeJS.ErrnoException
    return {
      kind: 'error',
      name: e.name,
      message: e.message,
      ...(e.stack === undefined ? {} : { stack: e.stack }),
      ...(e.code === undefined ? {} : { code: e.code }),
      ...(e.errno === undefined ? {} : { errno: e.errno }),
      ...(e.syscall === undefined ? {} : { syscall: e.syscall }),
      ...(e.path === undefined ? {} : { path: e.path }),
    }
  }
  return { kind: 'error', name: 'Error', message: String(error) }
}

/** The exception a failure stands for, as the thread that verified the op raised it. */
export function errorOf(failure: FailureData): Error {
  if (failure.kind === 'edit') return EditError.fromData(failure.data)
  const error = new Error(failure.message) as NodeJS.ErrnoException
  error.name = failure.name
  if (failure.stack !== undefined) error.stack = failure.stack
  if (failure.code !== undefined) error.code = failure.code
  if (failure.errno !== undefined) error.errno = failure.errno
  if (failure.syscall !== undefined) error.syscall = failure.syscall
  if (failure.path !== undefined) error.path = failure.path
  return error
}
