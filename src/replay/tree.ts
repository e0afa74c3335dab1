// One commit's plan applied to an in-memory tree (#10): the engine's own compute (src/apply/
// compute.ts: the unified applier, the matcher, binary patches) on each file, no filesystem. Pure:
// the blob hash and zlib come in as functions, so the module runs anywhere the core does.
//
// A diff's ops describe one change from one tree, so every op reads the tree as it was before the
// commit: a rename's source, a copy's source, the two sides of a type change (git writes a delete
// and an add of the same path) and a swap of two names all see the old tree. Deletions are laid
// out before additions, so a type change ends with the new entry. What the ops do not cover (a
// submodule pointer, which has no bytes here) the caller sets from git's own record (`skip`).
import { computeFile } from '../apply/compute.js'
import { errorData, type EditErrorData } from '../errors.js'
import { opHasRawBytes } from '../parse/raw-bytes.js'
import type { ComputeInput, EditPlan, FileMode, FileOp } from '../types.js'

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
  readonly blobId: (bytes: Uint8Array) => string
  /** Inflates a `GIT binary patch` hunk's zlib data; throws when it does not inflate. */
  readonly inflate: (deflated: Uint8Array) => Uint8Array
  /** Paths the caller takes from git's record instead of the ops (submodule pointers). */
  readonly skip?: ReadonlySet<string>
  /** The patch is not UTF-8 somewhere (PatchText.firstRawLine): ops holding raw bytes match them exactly (D-040). */
  readonly rawPatch?: boolean
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
}

const DEFAULT_MODE: FileMode = '100644'

/** The plan's ops applied to `tree`, each against the tree as it was before the commit. */
export function applyPlan(tree: Tree, plan: EditPlan, ctx: ApplyContext): AppliedPlan {
  const deleted = new Map<string, null>()
  const written = new Map<string, TreeFile>()
  const failures: OpFailure[] = []
  let hunks = 0
  for (const op of plan.ops) {
    hunks += hunksOf(op)
    if (ctx.skip?.has(op.path) === true || (op.kind === 'copy' && ctx.skip?.has(op.from) === true))
      continue
    const applied = applyOp(tree, plan, op, ctx)
    if ('error' in applied) {
      failures.push({ path: op.path, error: applied.error })
      continue
    }
    for (const path of applied.deletes) deleted.set(path, null)
    if (applied.write !== undefined) written.set(applied.write.path, applied.write.file)
  }
  const changes = new Map<string, TreeFile | null>(deleted)
  for (const [path, file] of written) changes.set(path, file)
  return { changes, failures, hunks }
}

type OpResult =
  | { readonly deletes: readonly string[]; readonly write?: { path: string; file: TreeFile } }
  | { readonly error: EditErrorData }

function applyOp(tree: Tree, plan: EditPlan, op: FileOp, ctx: ApplyContext): OpResult {
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
  if (after === null) return { deletes: [op.path] }
  const mode = modeAfter(op) ?? source?.mode ?? DEFAULT_MODE
  const file: TreeFile = { mode, id: ctx.blobId(after), bytes: after }
  if (op.kind === 'update' && op.moveTo !== undefined) {
    return { deletes: [op.path], write: { path: op.moveTo, file } }
  }
  return { deletes: [], write: { path: op.path, file } }
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
