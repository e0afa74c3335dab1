// The phases of preparing an op, which verify.ts runs in order: resolve its paths, read the state
// of every file it reads or replaces, pair type changes, check that state (checkDuplicates, across
// the whole plan, runs in merge.ts). Refuses, before any content is compared, what no match could
// fix: paths outside the root or denied, duplicates, moves onto themselves, missing files,
// directories, FIFOs and device nodes, files over the size limit, targets a diff may not
// overwrite, stale expected hashes. Symlinks: deletes, moves and diff creations act on the link
// itself (its target string, mode 120000); adds, deletes and moves through a symlinked directory
// are refused. A unified plan that names a path more than once is read by sequence.ts.
import { EditError } from '../errors.js'
import type { FileOp, PatchFormat } from '../types.js'
import { pathKey } from '../workspace/case-fold.js'
import { resolveWorkspacePath, type PathContext, type ResolvedPath } from '../workspace/paths.js'
import { asyncReadFs, type ReadFs } from '../workspace/read-fs.js'
import {
  MISSING,
  readLinkSnapshot,
  readSnapshot,
  SYMLINK_MODE,
  type Snapshot,
} from '../workspace/file-state.js'

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
  /**
   * Set by sequence.ts for a unified plan that names a path more than once: what the path the op
   * writes holds on disk, which its one commit step replaces (the op itself saw the path as the
   * earlier sections left it, or as missing where the patch removes what stands there).
   */
  readonly replaces?: Snapshot
  /** A later op writes the same path: this op's write is not committed. */
  readonly skipWrite?: true
  /** The path this op removes (a deletion's file, a rename's source) is written again later. */
  readonly skipRemove?: true
  /** An update that read what an earlier section wrote to the same path (results merge them). */
  readonly continues?: true
}

/**
 * Whether `op` acts on a symlink at the given path itself rather than on what it points to
 * as git does: deletes, both ends of a move or copy, diff creations, and updates
 * whose patch states mode 120000. Edits and Codex Add File write through a link.
 */
export function actsOnLink(op: FileOp): boolean {
  switch (op.kind) {
    case 'delete':
      return true
    case 'update':
      return (
        op.moveTo !== undefined || op.modeBefore === SYMLINK_MODE || op.modeAfter === SYMLINK_MODE
      )
    case 'add':
      return !op.overwrite || op.modeAfter === SYMLINK_MODE
    case 'copy':
      return true // git copies a link as a link
    case 'edits':
      return false
  }
}

/** Whether the op leaves a symlink at its destination: git mode 120000. */
export function writesLink(p: PreparedOp): boolean {
  const { op } = p
  if (op.kind === 'edits' || op.kind === 'delete') return false
  if (op.modeAfter !== undefined) return op.modeAfter === SYMLINK_MODE
  if (op.kind === 'copy') return p.from?.snap.kind === 'symlink'
  return op.kind === 'update' && p.target.snap.kind === 'symlink'
}

export interface ResolvedOp {
  readonly op: FileOp
  readonly target: ResolvedPath
  readonly moveTo?: ResolvedPath
  readonly from?: ResolvedPath
}

export async function resolveOp(
  ctx: PathContext,
  op: FileOp,
  fs: ReadFs = asyncReadFs,
  removedAncestor?: (rel: string) => string | undefined,
): Promise<ResolvedOp> {
  const options = {
    followLast: !actsOnLink(op),
    fs,
    ...(removedAncestor === undefined ? {} : { removedAncestor }),
  }
  const target = await resolveWorkspacePath(ctx, op.path, op.patchLine, options)
  if (op.kind === 'update' && op.moveTo !== undefined) {
    const moveTo = await resolveWorkspacePath(ctx, op.moveTo, op.patchLine, options)
    if (moveTo.abs === target.abs) {
      throw new EditError('PATH_MOVE_TO_SELF', `${target.rel} is moved onto itself.`, {
        path: target.rel,
        patchLine: op.patchLine,
      })
    }
    return { op: { ...op, path: target.rel, moveTo: moveTo.rel }, target, moveTo }
  }
  if (op.kind === 'copy') {
    const from = await resolveWorkspacePath(ctx, op.from, op.patchLine, options)
    return { op: { ...op, path: target.rel, from: from.rel }, target, from }
  }
  return { op: { ...op, path: target.rel }, target }
}

/**
 * Refuses two ops on one path (case-folded on a case-insensitive filesystem). With `sequences`
 * (a unified plan, sequence.ts), a path named again as written is left to the sequence rules;
 * two spellings of one file still are refused.
 */
export function checkDuplicates(
  ops: readonly ResolvedOp[],
  caseInsensitive: boolean,
  sequences = false,
): void {
  const seen = new Map<string, { rel: string; abs: string; patchLine: number }>()
  for (const { op, target, moveTo } of ops) {
    for (const p of moveTo === undefined ? [target] : [target, moveTo]) {
      // Keyed by the file and by the name: an edit through link.txt (its target) and a delete of
      // link.txt (the link itself) resolve apart but are two changes to one path.
      const keys = [pathKey(p.abs, caseInsensitive), `name:${pathKey(p.rel, caseInsensitive)}`]
      const earlier = keys.map((k) => seen.get(k)).find((e) => e !== undefined)
      if (earlier !== undefined && !(sequences && earlier.rel === p.rel)) {
        const also =
          earlier.rel === p.rel
            ? ''
            : ` (as ${earlier.rel}; ${sameFileBecause(earlier.abs, p.abs)})`
        throw new EditError(
          'PATH_DUPLICATE',
          `${p.rel} is changed twice in one patch${also} (patch lines ${earlier.patchLine} and ${op.patchLine}).`,
          { path: p.rel, patchLine: op.patchLine },
        )
      }
      const entry = { rel: p.rel, abs: p.abs, patchLine: op.patchLine }
      for (const key of keys) seen.set(key, entry)
    }
  }
}

/** Why two differently written paths are one file: a symlink, or a filesystem that folds case. */
function sameFileBecause(earlierAbs: string, abs: string): string {
  return earlierAbs === abs ? 'the same file through a symlink' : 'this filesystem ignores case'
}

export async function readOp(
  op: ResolvedOp,
  maxFileBytes: number | undefined,
  fs: ReadFs = asyncReadFs,
): Promise<PreparedOp> {
  // One rule for every path of an op: a link there is read as the link, or followed.
  const link = actsOnLink(op.op)
  const read = async (resolved: ResolvedPath): Promise<PreparedPath> => {
    // Below a file or link the plan removes: nothing of what stands there now is read.
    if (resolved.belowRemoved !== undefined) return { resolved, snap: MISSING }
    const limit =
      maxFileBytes === undefined
        ? undefined
        : { maxFileBytes, path: resolved.rel, patchLine: op.op.patchLine }
    return {
      resolved,
      snap: await (link
        ? readLinkSnapshot(resolved.abs, limit, fs)
        : readSnapshot(resolved.abs, limit, fs)),
    }
  }
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

export function checkState({ op, target, moveTo, from }: PreparedOp, format: PatchFormat): void {
  const where = (p: PreparedPath) => ({ path: p.resolved.rel, patchLine: op.patchLine })
  checkNotSubmodule(op)
  checkNotBeyondSymlink(op, target, moveTo, format)
  checkLinkType(op, op.kind === 'copy' && from !== undefined ? from : target)
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
    if (p.snap.kind === 'file' || p.snap.kind === 'symlink') {
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
      // A diff's rename never replaces a file, as git apply refuses it (DECISIONS.md D-051);
      // Codex's Move to overwrites, as Codex's apply_patch does (scenario 028).
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
            'FILE_HASH_MISMATCH',
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

/**
 * Adds, deletes and moves through a symlinked directory are refused, as git refuses a path
 * "beyond a symbolic link": deleting aliasdir/x.txt would otherwise act inside the
 * directory the link points to, and pruning it could remove that directory itself. Updating an
 * existing file there (its real path is inside the root) still works in the other formats, but not
 * in a unified diff, which git refuses there too; creating a missing one through SEARCH/REPLACE
 * or JSON edits is an add, and refused.
 */
function checkNotBeyondSymlink(
  op: FileOp,
  target: PreparedPath,
  moveTo: PreparedPath | undefined,
  format: PatchFormat,
): void {
  const creates = target.snap.kind === 'missing'
  const checked: PreparedPath[] =
    op.kind === 'add' || op.kind === 'delete' || op.kind === 'copy'
      ? [target]
      : op.kind === 'update' && moveTo !== undefined
        ? [target, moveTo]
        : creates || format === 'unified'
          ? [target]
          : []
  for (const p of checked) {
    const dir = p.resolved.beyondSymlink
    if (dir === undefined) continue
    const what =
      p === moveTo
        ? 'moved into'
        : op.kind === 'delete'
          ? 'deleted'
          : op.kind === 'update' && moveTo !== undefined
            ? 'moved'
            : creates
              ? 'created'
              : 'patched by a unified diff'
    throw new EditError(
      'PATH_BEYOND_SYMLINK',
      `${p.resolved.rel} is beyond a symbolic link: ${dir} is a symlink, and a file is not ${what} through one.`,
      { path: p.resolved.rel, patchLine: op.patchLine },
    )
  }
}

/** A git mode of 160000 is a submodule's commit id, which no file holds (FILE_SUBMODULE). */
function checkNotSubmodule(op: FileOp): void {
  if (op.kind === 'edits') return
  const modes = [op.kind === 'delete' || op.kind === 'update' ? op.modeBefore : undefined]
  if (op.kind !== 'delete') modes.push(op.modeAfter)
  if (!modes.includes(GITLINK_MODE)) return
  const what = op.kind === 'add' ? 'creates' : op.kind === 'delete' ? 'deletes' : 'changes'
  throw new EditError(
    'FILE_SUBMODULE',
    `The patch ${what} ${op.path} as a submodule (mode ${GITLINK_MODE}); patchloom changes files and symlinks, not submodules.`,
    { path: op.path, patchLine: op.patchLine },
  )
}

const GITLINK_MODE = '160000'

/**
 * A link must be what the patch says it is (git apply's "wrong type"): a stated mode 120000 on a
 * regular file, or a regular mode on a link, is refused; so is a change to a link's content that
 * no stated mode vouches for (a Codex move with chunks would edit the link's target string).
 */
function checkLinkType(op: FileOp, source: PreparedPath): void {
  if (op.kind !== 'delete' && op.kind !== 'update' && op.kind !== 'copy') return
  const kind = source.snap.kind
  if (kind !== 'file' && kind !== 'symlink') return
  const modeBefore = op.kind === 'copy' ? undefined : op.modeBefore
  const stated = [modeBefore, op.kind === 'delete' ? undefined : op.modeAfter].filter(
    (m): m is string => m !== undefined,
  )
  const isLink = kind === 'symlink'
  const mismatch = stated.some((m) => (m === SYMLINK_MODE) !== isLink)
  const unvouched =
    isLink &&
    op.kind !== 'delete' &&
    (op.hunks.length > 0 ||
      (op.kind === 'update' && op.packed !== undefined) ||
      op.binary !== undefined) &&
    modeBefore !== SYMLINK_MODE
  if (!mismatch && !unvouched) return
  const rel = source.resolved.rel
  throw new EditError(
    'FILE_WRONG_TYPE',
    mismatch
      ? `${rel} is ${isLink ? 'a symlink' : 'a regular file'}, but the patch states mode ${stated.join(' -> ')}.`
      : `${rel} is a symlink; a ${op.kind === 'copy' ? 'copy' : 'move'} carries the link, not its content, so it cannot also apply changes.`,
    { path: rel, patchLine: op.patchLine },
  )
}
