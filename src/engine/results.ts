// From verified ops to what a request reports and what the journal writes: one FileResult per op
// (paths, counts, hashes, mode fields), the symlink-target check for links the change writes, and
// the commit steps (write, remove; permissions as git records them). Plain functions of the
// verified data; the only filesystem access is checkLinkTargets' resolution of link targets.
import path from 'node:path'
import { SYMLINK_PERMISSIONS } from '../journal/symlink.js'
import type { CommitStep, TransactionSummary } from '../journal/records.js'
import type { FileMode, FileResult } from '../types.js'
import { checkSymlinkTarget, type PathContext } from '../workspace/paths.js'
import { DEFAULT_PERMISSIONS, permissionsFor } from './permissions.js'
import { writesLink, type PreparedOp } from './prepare.js'
import type { Snapshot } from '../workspace/file-state.js'
import { DROPPED_AFTER, type VerifiedOp } from './verify.js'

/**
 * One FileResult per op, except that an update reading what an earlier section wrote to the
 * same path (sequence.ts) is folded into that section's result: one entry per file, from its
 * state before the change to its state after, with the sections' diffs one after the other.
 */
export function fileResults(verified: readonly VerifiedOp[]): FileResult[] {
  const out: FileResult[] = []
  for (const v of verified) {
    const result = fileResult(v)
    const earlier =
      v.prepared.continues === true ? out.findLastIndex((f) => f.path === result.path) : -1
    const first = out[earlier]
    if (first === undefined) {
      out.push(result)
      continue
    }
    const { modeBefore, modeAfter: _firstModeAfter, ...rest } = first
    const modeAfter = result.modeAfter ?? first.modeAfter
    const modes =
      modeAfter === undefined || modeAfter === modeBefore
        ? {}
        : { ...(modeBefore === undefined ? {} : { modeBefore }), modeAfter }
    out[earlier] = {
      ...rest,
      additions: first.additions + result.additions,
      deletions: first.deletions + result.deletions,
      afterHash: result.afterHash,
      ...modes,
      diff: first.diff + result.diff,
    }
  }
  return out
}

export function fileResult(v: VerifiedOp): FileResult {
  const { prepared: p, computed, afterHash } = v
  const { op, target } = p
  const counts = {
    additions: computed.additions,
    deletions: computed.deletions,
    diff: computed.diff,
  }
  const modes = modeFields(p)
  // Updated (or created, for SEARCH/REPLACE and JSON edits on a missing file) where it stands.
  const inPlace = (): FileResult => ({
    path: target.resolved.rel,
    op: target.snap.kind === 'missing' ? 'add' : 'update',
    ...counts,
    beforeHash: target.snap.hash,
    afterHash,
    ...modes,
  })
  switch (op.kind) {
    case 'add':
      return {
        path: target.resolved.rel,
        op: 'add',
        ...counts,
        beforeHash: target.snap.hash,
        afterHash,
        ...modes,
        ...(target.snap.kind === 'file' ? { overwrote: true } : {}),
      }
    case 'delete':
      return {
        path: target.resolved.rel,
        op: 'delete',
        ...counts,
        beforeHash: target.snap.hash,
        afterHash: null,
        ...modes,
      }
    case 'copy':
      return {
        path: target.resolved.rel,
        op: 'copy',
        from: p.from?.resolved.rel ?? op.from,
        ...counts,
        beforeHash: null,
        afterHash,
        ...modes,
      }
    case 'update':
      if (p.moveTo !== undefined) {
        return {
          path: p.moveTo.resolved.rel,
          op: 'move',
          from: target.resolved.rel,
          ...counts,
          beforeHash: target.snap.hash,
          afterHash,
          ...modes,
          ...(p.moveTo.snap.kind === 'file' || p.moveTo.snap.kind === 'symlink'
            ? { overwrote: true }
            : {}),
        }
      }
      return inPlace()
    case 'edits':
      return inPlace()
  }
}

/** modeBefore/modeAfter are reported when the change sets or alters a mode. */
function modeFields(p: PreparedOp): { modeBefore?: FileMode; modeAfter?: FileMode } {
  const { op } = p
  const read = op.kind === 'copy' ? p.from : p.target
  const before = read?.snap.mode
  const requested = op.kind === 'edits' || op.kind === 'delete' ? undefined : op.modeAfter
  if (requested === undefined || requested === before) return {}
  return {
    ...(before === undefined || (op.kind === 'add' && p.target.snap.kind !== 'file')
      ? {}
      : { modeBefore: before }),
    modeAfter: requested,
  }
}

/** Every symlink the change writes must lead somewhere inside the root (paths.ts). */
export async function checkLinkTargets(
  ctx: PathContext,
  verified: readonly VerifiedOp[],
): Promise<void> {
  for (const { prepared: p, computed } of verified) {
    const after = computed.after
    if (after === null || after === undefined || !writesLink(p) || p.skipWrite === true) continue
    const dest = p.moveTo ?? p.target
    await checkSymlinkTarget(ctx, dest.resolved.abs, after, {
      path: dest.resolved.rel,
      patchLine: p.op.patchLine,
    })
  }
}

export function commitStepsFor(rootReal: string, v: VerifiedOp): CommitStep[] {
  const { prepared: p, computed } = v
  const { op, target } = p
  const stateOf = (snap: PreparedOp['target']['snap']) =>
    snap.kind === 'symlink' && snap.hash !== null
      ? { hash: snap.hash, permissions: SYMLINK_PERMISSIONS, kind: 'symlink' as const }
      : snap.kind === 'file' && snap.hash !== null
        ? { hash: snap.hash, permissions: snap.permissions ?? DEFAULT_PERMISSIONS }
        : null
  const link = writesLink(p)
  // The journal names the real path: recovery and undo find the file again without following
  // a symlink the patch went through (an update through link.txt changes real.txt).
  const relOf = (dest: PreparedOp['target']) =>
    path.relative(rootReal, dest.resolved.abs).split(path.sep).join('/')
  // How each before state was read, so the journal need not read it again (D-082).
  const stampOf = (snap: Snapshot) => ({
    ...(snap.stamp === undefined ? {} : { beforeStamp: snap.stamp }),
    // The bytes it hashed, where verification kept them (a small request), for the backup's
    // check when the stamp proves nothing.
    ...(snap.kind === 'file' && snap.bytes !== null ? { beforeBytes: snap.bytes } : {}),
  })
  const write = (
    dest: PreparedOp['target'],
    bytes: Uint8Array,
    permissions: number,
    beforeSnap: Snapshot,
  ): CommitStep => ({
    kind: 'write',
    abs: dest.resolved.abs,
    rel: relOf(dest),
    bytes,
    // The hash verification took of exactly these bytes (D-081).
    ...(v.afterHash === null ? {} : { afterHash: v.afterHash }),
    permissions: link ? SYMLINK_PERMISSIONS : permissions,
    ...(link ? { symlink: true } : {}),
    before: stateOf(beforeSnap),
    ...stampOf(beforeSnap),
  })
  const remove = (dest: PreparedOp['target']): CommitStep[] => {
    // A path the patch writes again later (a type change, swapped renames): that write replaces it.
    if (p.skipRemove === true) return []
    const before = stateOf(dest.snap)
    if (before === null) throw new Error('engine: cannot remove a file that was not read')
    return [
      { kind: 'remove', abs: dest.resolved.abs, rel: relOf(dest), before, ...stampOf(dest.snap) },
    ]
  }
  const after = computed.after
  // A dry run drops new contents (verify.ts); only a request that commits keeps them.
  if (after === DROPPED_AFTER) throw new Error("engine: cannot commit a dry run's dropped content")
  const modeAfter = op.kind === 'edits' || op.kind === 'delete' ? undefined : op.modeAfter
  if (after === null) return remove(target)
  // What the destination holds on disk: for a sequenced op, what its step replaces (sequence.ts).
  const replaced = (dest: PreparedOp['target']): Snapshot => p.replaces ?? dest.snap
  if (op.kind === 'update' && p.moveTo !== undefined) {
    const moved =
      p.skipWrite === true
        ? []
        : [
            write(
              p.moveTo,
              after,
              permissionsFor(target.snap.permissions, modeAfter),
              replaced(p.moveTo),
            ),
          ]
    return [...remove(target), ...moved]
  }
  if (p.skipWrite === true) return []
  if (op.kind === 'copy') {
    const permissions = permissionsFor(p.from?.snap.permissions, modeAfter)
    return [write(target, after, permissions, replaced(target))]
  }
  const permissions = permissionsFor(target.snap.permissions, modeAfter)
  const before = replaced(target)
  const unchanged =
    v.sameBytes &&
    (link
      ? before.kind === 'symlink'
      : before.kind === 'file' && permissions === before.permissions)
  return unchanged ? [] : [write(target, after, permissions, before)]
}

/** What the journal's log records about a change. */
export function summaryOf(files: readonly FileResult[]): TransactionSummary {
  return {
    kind: 'apply',
    files: files.map((f) => ({
      path: f.path,
      op: f.op,
      ...(f.from === undefined ? {} : { from: f.from }),
      additions: f.additions,
      deletions: f.deletions,
    })),
  }
}
