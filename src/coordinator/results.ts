// From verified ops to what a request reports and what the journal writes: one FileResult per op
// (paths, counts, hashes, mode fields), the symlink-target check for links the change writes, and
// the commit steps (write, remove; permissions as git records them). Plain functions of the
// verified data; the only filesystem access is checkLinkTargets' resolution of link targets.
import path from 'node:path'
import { SYMLINK_PERMISSIONS } from '../journal/symlink.js'
import type { CommitStep, TransactionSummary } from '../journal/types.js'
import type { FileMode, FileResult } from '../types.js'
import { checkSymlinkTarget, type PathContext } from './paths.js'
import { writesLink, type PreparedOp } from './prepare.js'
import type { Snapshot } from './read.js'
import { DROPPED_AFTER, type VerifiedOp } from './verify.js'

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

const DEFAULT_PERMISSIONS = 0o644

function permissionsFor(base: number | undefined, mode: FileMode | undefined): number {
  const start = base ?? DEFAULT_PERMISSIONS
  if (mode === undefined) return start
  // Git records only the executable bit: grant x wherever r is granted, or clear all x bits.
  return mode === '100755' ? start | ((start & 0o444) >> 2) : start & ~0o111
}

/** Every symlink the change writes must lead somewhere inside the root (paths.ts). */
export async function checkLinkTargets(
  ctx: PathContext,
  verified: readonly VerifiedOp[],
): Promise<void> {
  for (const { prepared: p, computed } of verified) {
    const after = computed.after
    if (after === null || after === undefined || !writesLink(p)) continue
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
  if (p.replaced === true) return [] // the creation that follows replaces the path in one step
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
    // check when the stamp proves nothing (#9).
    ...(snap.kind === 'file' && snap.bytes !== null ? { beforeBytes: snap.bytes } : {}),
  })
  const write = (
    dest: PreparedOp['target'],
    bytes: Uint8Array,
    permissions: number,
    beforeSnap: Snapshot = dest.snap,
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
  const remove = (dest: PreparedOp['target']): CommitStep => {
    const before = stateOf(dest.snap)
    if (before === null) throw new Error('engine: cannot remove a file that was not read')
    return {
      kind: 'remove',
      abs: dest.resolved.abs,
      rel: relOf(dest),
      before,
      ...stampOf(dest.snap),
    }
  }
  const after = computed.after
  // A dry run drops new contents (verify.ts); only a request that commits keeps them.
  if (after === DROPPED_AFTER) throw new Error("engine: cannot commit a dry run's dropped content")
  const modeAfter = op.kind === 'edits' || op.kind === 'delete' ? undefined : op.modeAfter
  if (after === null) return [remove(target)]
  if (p.replaces !== undefined) {
    // A type change: one write replaces what the deletion before it removed.
    return [write(target, after, permissionsFor(undefined, modeAfter), p.replaces)]
  }
  switch (op.kind) {
    case 'update':
      if (p.moveTo !== undefined) {
        // Codex order: write the destination first, then remove the source.
        return [
          write(p.moveTo, after, permissionsFor(target.snap.permissions, modeAfter)),
          remove(target),
        ]
      }
      break
    case 'copy':
      return [write(target, after, permissionsFor(p.from?.snap.permissions, modeAfter))]
    case 'add':
    case 'edits':
    case 'delete':
      break
  }
  const permissions = permissionsFor(target.snap.permissions, modeAfter)
  const unchanged =
    v.sameBytes && (link ? target.snap.kind === 'symlink' : permissions === target.snap.permissions)
  return unchanged ? [] : [write(target, after, permissions)]
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
