// Resolve and read phase: turns a parsed plan into prepared operations, each with its resolved
// paths and the current state of every file it reads or replaces. Refuses, before any content is
// compared, what no match could fix: paths outside the root or denied, duplicates (case-folded on
// a case-insensitive filesystem), moves onto themselves, missing files, directories, FIFOs and
// device nodes, files over the size limit, existing targets a diff may not overwrite (creations,
// copies and renames), and stale expected hashes.
import { EditError } from '../errors.js'
import type { EditPlan, FileOp, PatchFormat } from '../types.js'
import { pathKey, resolveWorkspacePath, type PathContext, type ResolvedPath } from './paths.js'
import { readSnapshot, type Snapshot } from './read.js'

export interface PreparedPath {
  readonly resolved: ResolvedPath
  readonly snap: Snapshot
}

export interface PreparedOp {
  /** The op with every path rewritten to its workspace-relative form. */
  readonly op: FileOp
  /** op.path: the file added, updated, deleted or edited, or the copy's destination. */
  readonly target: PreparedPath
  readonly moveTo?: PreparedPath
  readonly from?: PreparedPath
}

export interface PrepareOptions {
  /** Files larger than this are refused from their stat, unread (LIMIT_FILE_TOO_LARGE). */
  readonly maxFileBytes?: number
}

export async function prepareOps(
  ctx: PathContext,
  plan: EditPlan,
  options: PrepareOptions = {},
): Promise<PreparedOp[]> {
  const resolved = await Promise.all(plan.ops.map((op) => resolveOp(ctx, op)))
  checkDuplicates(resolved, ctx.caseInsensitive === true)
  const prepared = await Promise.all(resolved.map((op) => readOp(op, options.maxFileBytes)))
  for (const p of prepared) checkState(p, plan.format)
  return prepared
}

export interface ResolvedOp {
  readonly op: FileOp
  readonly target: ResolvedPath
  readonly moveTo?: ResolvedPath
  readonly from?: ResolvedPath
}

async function resolveOp(ctx: PathContext, op: FileOp): Promise<ResolvedOp> {
  const target = await resolveWorkspacePath(ctx, op.path, op.patchLine)
  if (op.kind === 'update' && op.moveTo !== undefined) {
    const moveTo = await resolveWorkspacePath(ctx, op.moveTo, op.patchLine)
    if (moveTo.abs === target.abs) {
      throw new EditError('PATH_MOVE_TO_SELF', `${target.rel} is moved onto itself.`, {
        path: target.rel,
        patchLine: op.patchLine,
      })
    }
    return { op: { ...op, path: target.rel, moveTo: moveTo.rel }, target, moveTo }
  }
  if (op.kind === 'copy') {
    const from = await resolveWorkspacePath(ctx, op.from, op.patchLine)
    return { op: { ...op, path: target.rel, from: from.rel }, target, from }
  }
  return { op: { ...op, path: target.rel }, target }
}

export function checkDuplicates(ops: readonly ResolvedOp[], caseInsensitive: boolean): void {
  const seen = new Map<string, { rel: string; patchLine: number }>()
  for (const { op, target, moveTo } of ops) {
    for (const p of moveTo === undefined ? [target] : [target, moveTo]) {
      const key = pathKey(p.abs, caseInsensitive)
      const earlier = seen.get(key)
      if (earlier !== undefined) {
        const also =
          earlier.rel === p.rel ? '' : ` (as ${earlier.rel}; this filesystem ignores case)`
        throw new EditError(
          'PATH_DUPLICATE',
          `${p.rel} is changed twice in one patch${also} (patch lines ${earlier.patchLine} and ${op.patchLine}).`,
          { path: p.rel, patchLine: op.patchLine },
        )
      }
      seen.set(key, { rel: p.rel, patchLine: op.patchLine })
    }
  }
}

async function readOp(op: ResolvedOp, maxFileBytes: number | undefined): Promise<PreparedOp> {
  const read = async (resolved: ResolvedPath): Promise<PreparedPath> => ({
    resolved,
    snap: await readSnapshot(
      resolved.abs,
      maxFileBytes === undefined
        ? undefined
        : { maxFileBytes, path: resolved.rel, patchLine: op.op.patchLine },
    ),
  })
  const [target, moveTo, from] = await Promise.all([
    read(op.target),
    op.moveTo === undefined ? undefined : read(op.moveTo),
    op.from === undefined ? undefined : read(op.from),
  ])
  return {
    op: op.op,
    target,
    ...(moveTo === undefined ? {} : { moveTo }),
    ...(from === undefined ? {} : { from }),
  }
}

function checkState({ op, target, moveTo, from }: PreparedOp, format: PatchFormat): void {
  const where = (p: PreparedPath) => ({ path: p.resolved.rel, patchLine: op.patchLine })
  const notRegular = (p: PreparedPath) => {
    if (p.snap.kind === 'directory')
      throw new EditError('FILE_IS_DIRECTORY', `${p.resolved.rel} is a directory.`, where(p))
    if (p.snap.kind === 'other') {
      throw new EditError(
        'FILE_NOT_REGULAR',
        `${p.resolved.rel} is a FIFO, socket or device node, not a regular file; it was not opened.`,
        where(p),
      )
    }
  }
  const mustExist = (p: PreparedPath) => {
    notRegular(p)
    if (p.snap.kind === 'missing')
      throw new EditError('FILE_NOT_FOUND', `${p.resolved.rel} does not exist.`, where(p))
  }
  const mustNotExist = (p: PreparedPath, why: string) => {
    notRegular(p)
    if (p.snap.kind === 'file') {
      throw new EditError('FILE_EXISTS', `${p.resolved.rel} already exists; ${why}.`, where(p))
    }
  }
  switch (op.kind) {
    case 'add':
      if (op.overwrite) notRegular(target)
      else mustNotExist(target, 'the diff creates it')
      return
    case 'delete':
      mustExist(target)
      return
    case 'update':
      if (op.createIfMissing === true) notRegular(target)
      else mustExist(target)
      // A diff's rename never replaces a file, as git apply refuses it (#8, D-051); Codex's
      // Move to overwrites, as Codex's apply_patch does (scenario 028).
      if (moveTo !== undefined && format === 'unified') {
        mustNotExist(moveTo, 'the diff renames onto it')
      } else if (moveTo !== undefined) notRegular(moveTo)
      return
    case 'copy':
      if (from !== undefined) mustExist(from)
      mustNotExist(target, 'the diff copies onto it')
      return
    case 'edits':
      notRegular(target)
      for (const edit of op.edits) {
        if (edit.expectedHash !== undefined && edit.expectedHash !== target.snap.hash) {
          const now = target.snap.hash === null ? 'does not exist' : `now has ${target.snap.hash}`
          throw new EditError(
            'FILE_CHANGED',
            `${target.resolved.rel} ${now}, not the expected ${edit.expectedHash} (edit ${edit.index + 1}).`,
            {
              ...where(target),
              ...(target.snap.hash === null ? {} : { currentHash: target.snap.hash }),
            },
          )
        }
      }
      return
  }
}
