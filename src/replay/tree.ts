// One commit's plan applied to an in-memory tree: the engine's own compute (src/apply/
// compute.ts: the unified applier, the matcher, binary patches) on each file, no filesystem. Pure:
// the blob hash and zlib come in as functions, so the module runs anywhere the core does. With
// `via` a context-only format (D-078), each op is first converted (convert.ts) and goes through
// that format's own parser and the matcher.
import { computeFile } from '../apply/compute.js'
import { errorData, type EditErrorData } from '../errors.js'
import { parsePlan } from '../parse/index.js'
import { opHasRawBytes } from '../parse/raw-bytes.js'
import type { ComputeInput, EditPlan, FileMode, FileOp, LineHunk } from '../types.js'
import { convertOp, type ContextFormat, type FallbackReason } from './convert.js'

/** A tree entry: its git mode, blob id, and bytes (null for a submodule pointer, mode 160000). */
export interface TreeFile {
  readonly mode: FileMode
  readonly id: string
  readonly bytes: Uint8Array | null
}

export type Tree = ReadonlyMap<string, TreeFile>

/** What applying a commit's plan needs besides the tree and the plan. */
export interface ApplyContext {
  /** Git's blob id of `bytes` (the SHA-1 of `blob <size>\0<bytes>`). */
  readonly gitBlobId: (bytes: Uint8Array) => string
  /** Inflates a `GIT binary patch` hunk's zlib data; throws when it does not inflate. */
  readonly inflate: (deflated: Uint8Array) => Uint8Array
  /** Paths the caller takes from git's record instead of the ops (submodule pointers). */
  readonly skip?: ReadonlySet<string>
  // Why such ops match byte for byte: DECISIONS.md D-040.
  /** The patch is not UTF-8 somewhere (PatchText.firstRawLine): ops holding raw bytes match them exactly. */
  readonly rawPatch?: boolean
  /** Apply git's diff as it is (the default), or converted to a context-only format. */
  readonly via?: 'unified' | ContextFormat
  /**
   * What the caller vouches for about a source's bytes (UTF-8, no CR or NUL), which lets an
   * exactly placed unified hunk be spliced into the bytes without decoding them.
   */
  readonly plainness?: (
    bytes: Uint8Array,
  ) => Pick<ComputeInput, 'sourceIsUtf8' | 'sourceHasNoCrOrNul'>
}

/** A hunk the matcher would not place in exactly one place (an error code of MATCH_*). */
export interface HunkRefusal {
  readonly path: string
  /** 1-based position of the hunk among the file's hunks in git's diff. */
  readonly hunk: number
  readonly code: string
  readonly message: string
}

/** A hunk the matcher placed somewhere other than where git's diff has it. */
export interface HunkMisplaced {
  readonly path: string
  readonly hunk: number
  /** 1-based lines: git's placement and the matcher's (see convert.ts for which text). */
  readonly expectedLine: number
  readonly actualLine: number
}

/** One op the engine could not apply: the path, and the engine's error as data. */
export interface OpFailure {
  readonly path: string
  readonly error: EditErrorData
}

export interface AppliedPlan {
  /** Every path the ops wrote: its new entry, or null where they deleted it. */
  readonly changes: ReadonlyMap<string, TreeFile | null>
  readonly failures: readonly OpFailure[]
  /** Hunks in the plan (a binary patch counts as one). */
  readonly hunks: number
  /** Paths whose converted change had a hunk refused: the caller takes git's entry for them. */
  readonly refused: ReadonlySet<string>
  /** One reason per op that went through git's diff because the format cannot state it. */
  readonly fallbacks: readonly FallbackReason[]
  /** Hunks that went through the context-only format (refused ones included). */
  readonly formatHunks: number
  readonly refusals: readonly HunkRefusal[]
  readonly misplaced: readonly HunkMisplaced[]
}

const DEFAULT_MODE: FileMode = '100644'

// A diff's ops describe one change from one tree, so every op reads the tree as it was before the
// commit: a rename's source, a copy's source, the two sides of a type change (git writes a delete
// and an add of the same path) and a swap of two names all see the old tree. Deletions are laid
// out before additions, so a type change ends with the new entry. What the ops do not cover (a
// submodule pointer, which has no bytes here) the caller sets from git's own record (`skip`).
//
// Under a context-only via, a hunk the matcher refuses is counted and dropped, and the rest
// retried, so every hunk is judged; the file's bytes then come from git (`refused`), so one
// refusal does not cascade. A hunk placed anywhere but where git's header says is misplaced.
// What the format cannot state replays through git's diff and is counted as a fallback.
/** The plan's ops applied to `tree`, each against the tree as it was before the commit. */
export function applyPlan(tree: Tree, plan: EditPlan, ctx: ApplyContext): AppliedPlan {
  const deleted = new Map<string, null>()
  const written = new Map<string, TreeFile>()
  const failures: OpFailure[] = []
  const tally: Tally = {
    refused: new Set(),
    fallbacks: [],
    formatHunks: 0,
    refusals: [],
    misplaced: [],
  }
  let hunks = 0
  for (const op of plan.ops) {
    hunks += hunksOf(op)
    if (ctx.skip?.has(op.path) === true || (op.kind === 'copy' && ctx.skip?.has(op.from) === true))
      continue
    const via = ctx.via ?? 'unified'
    const applied =
      via === 'unified' ? applyOp(tree, plan, op, ctx) : applyVia(tree, plan, op, ctx, via, tally)
    if ('error' in applied) {
      failures.push({ path: op.path, error: applied.error })
      continue
    }
    for (const path of applied.deletes) deleted.set(path, null)
    if (applied.write !== undefined) written.set(applied.write.path, applied.write.file)
  }
  const changes = new Map<string, TreeFile | null>(deleted)
  for (const [path, file] of written) changes.set(path, file)
  return { changes, failures, hunks, ...tally }
}

interface Tally {
  refused: Set<string>
  fallbacks: FallbackReason[]
  formatHunks: number
  refusals: HunkRefusal[]
  misplaced: HunkMisplaced[]
}

const REFUSED: OpResult = { deletes: [] }

function chunksOf(op: FileOp): number {
  return op.kind === 'update' || op.kind === 'copy' || op.kind === 'delete' ? op.hunks.length : 0
}

/** `op` with only the chunks at `keep` (indexes into its hunks). */
function withChunks(op: FileOp, keep: readonly number[]): FileOp {
  if (op.kind !== 'update') return op
  return { ...op, hunks: keep.map((k) => op.hunks[k] as LineHunk) }
}

/**
 * One op through a context-only format: converted, parsed by that format's parser, placed by the
 * matcher. Refused hunks are dropped one at a time until the rest applies (or none is left).
 */
function applyVia(
  tree: Tree,
  plan: EditPlan,
  op: FileOp,
  ctx: ApplyContext,
  format: ContextFormat,
  tally: Tally,
): OpResult {
  const readPath = op.kind === 'copy' ? op.from : op.path
  const source = tree.get(readPath)
  const conversion = convertOp(op, source?.bytes ?? null, source?.mode, format)
  if (conversion.kind === 'fallback') {
    tally.fallbacks.push(conversion.reason)
    return applyOp(tree, plan, op, ctx)
  }
  tally.formatHunks += hunksOf(op)
  let keep = Array.from({ length: conversion.hunks }, (_, i) => i)
  // Parsed once: dropping a refused hunk drops its chunk from the parsed op (one chunk per hunk).
  const built = conversion.build(keep)
  const parsed = parsePlan(built.text, format)
  if (!parsed.ok) return { error: parsed.error }
  const whole = parsed.value.ops[0]
  if (parsed.value.ops.length !== 1 || whole === undefined || chunksOf(whole) !== keep.length) {
    throw new Error(
      `applyVia: the ${format} text for ${op.path} does not parse as one op with a chunk per hunk`,
    )
  }
  let refusedAny = false
  for (;;) {
    const converted = keep.length === conversion.hunks ? whole : withChunks(whole, keep)
    const applied = applyOp(tree, parsed.value, converted, ctx, true)
    if ('error' in applied) {
      const { error } = applied
      if (!error.code.startsWith('MATCH_')) return applied
      // The refused hunk: the last kept one starting at or before the line the error names.
      const at = error.patchLine ?? 0
      let which = 0
      for (let k = 0; k < keep.length; k++) {
        if ((built.patchLines[keep[k] as number] as number) <= at) which = k
      }
      tally.refusals.push({
        path: op.path,
        hunk: (keep[which] as number) + 1,
        code: error.code,
        message: error.message,
      })
      refusedAny = true
      keep = keep.filter((_, k) => k !== which)
      if (keep.length === 0) break
      continue
    }
    const placements = applied.placements ?? []
    const expectedOf =
      keep.length === conversion.hunks ? built.expected : conversion.build(keep).expected
    for (let k = 0; k < placements.length; k++) {
      const expected = expectedOf[k]
      const actual = placements[k] as number
      if (expected !== undefined && expected !== actual) {
        tally.misplaced.push({
          path: op.path,
          hunk: (keep[k] as number) + 1,
          expectedLine: expected + 1,
          actualLine: actual + 1,
        })
      }
    }
    if (!refusedAny) return applied
    break
  }
  tally.refused.add(op.path)
  if (op.kind === 'update' && op.moveTo !== undefined) tally.refused.add(op.moveTo)
  return REFUSED
}

type OpResult =
  | {
      readonly deletes: readonly string[]
      readonly write?: { path: string; file: TreeFile }
      /** With `placements` asked for: ComputedFile.placements. */
      readonly placements?: readonly number[]
    }
  | { readonly error: EditErrorData }

function applyOp(
  tree: Tree,
  plan: EditPlan,
  op: FileOp,
  ctx: ApplyContext,
  placements = false,
): OpResult {
  const readPath = op.kind === 'copy' ? op.from : op.path
  const source = tree.get(readPath)
  if (source !== undefined && source.bytes === null) {
    return {
      error: errorData(
        'FILE_WRONG_TYPE',
        `${readPath} is a submodule pointer in the tree; the patch edits it as a file.`,
        { path: readPath, patchLine: op.patchLine },
      ),
    }
  }
  const input: ComputeInput = {
    format: plan.format,
    op,
    source: source?.bytes ?? null,
    ...(source === undefined ? {} : { sourceMode: source.mode }),
    // Only the new bytes are wanted: no diff is rendered, no line counted.
    countOnly: true,
    bytesOnly: true,
    ...(placements ? { placements: true as const, noCandidates: true as const } : {}),
    ...(plan.format === 'unified' &&
    source !== undefined &&
    source.bytes !== null &&
    ctx.plainness !== undefined
      ? ctx.plainness(source.bytes)
      : {}),
    ...(ctx.rawPatch === true && opHasRawBytes(op) ? { rawBytes: true as const } : {}),
  }
  if (op.kind === 'add' && op.overwrite === false && source !== undefined && !replaces(plan, op)) {
    return {
      error: errorData('FILE_EXISTS', `${op.path} already exists; the patch creates it.`, {
        path: op.path,
        patchLine: op.patchLine,
      }),
    }
  }
  const binary = op.kind === 'edits' ? undefined : op.binary
  let computed: ReturnType<typeof computeFile>
  try {
    computed = computeFile(
      binary === undefined ? input : { ...input, inflated: ctx.inflate(binary.forward.deflated) },
      { gitBlobId: ctx.gitBlobId },
    )
  } catch (error) {
    return {
      error: errorData(
        'PARSE_BAD_BINARY',
        `${op.path}: the GIT binary patch data does not inflate (${(error as Error).message}).`,
        { path: op.path, patchLine: op.patchLine },
      ),
    }
  }
  if (!computed.ok) return { error: computed.error }
  const after = computed.value.after
  const placed =
    computed.value.placements === undefined ? {} : { placements: computed.value.placements }
  if (after === null) return { deletes: [op.path], ...placed }
  const mode = modeAfter(op) ?? source?.mode ?? DEFAULT_MODE
  const file: TreeFile = { mode, id: ctx.gitBlobId(after), bytes: after }
  if (op.kind === 'update' && op.moveTo !== undefined) {
    return { deletes: [op.path], write: { path: op.moveTo, file }, ...placed }
  }
  return { deletes: [], write: { path: op.path, file }, ...placed }
}

/** Whether the plan also deletes `op`'s path (a type change: git writes a delete and an add). */
function replaces(plan: EditPlan, op: FileOp): boolean {
  return plan.ops.some(
    (other) =>
      other !== op &&
      ((other.kind === 'delete' && other.path === op.path) ||
        (other.kind === 'update' && other.moveTo !== undefined && other.path === op.path)),
  )
}

function modeAfter(op: FileOp): FileMode | undefined {
  return op.kind === 'add' || op.kind === 'update' || op.kind === 'copy' ? op.modeAfter : undefined
}

function hunksOf(op: FileOp): number {
  switch (op.kind) {
    case 'add':
      return op.binary === undefined ? (op.content === '' ? 0 : 1) : 1
    case 'delete':
    case 'update':
    case 'copy':
      return op.binary === undefined ? op.hunks.length : 1
    case 'edits':
      return op.edits.length
  }
}
