// What the journal writes for a verified change: every op's commit steps (write, remove; the
// permissions as git records them, the state each step replaces and how it was read), in the
// order the patch's format commits them, and the summary the journal's log records. Plain
// functions of the verified data.
import path from 'node:path'
import { SYMLINK_PERMISSIONS } from '../journal/symlink.js'
import type { CommitStep, TransactionSummary } from '../journal/records.js'
import { inCommitOrder } from '../journal/transaction.js'
import type { FileResult, PatchFormat } from '../types.js'
import type { Snapshot } from '../workspace/file-state.js'
import { DEFAULT_PERMISSIONS, permissionsFor } from './permissions.js'
import { writesLink, type PreparedOp } from './prepare.js'
import { DROPPED_AFTER, type VerifiedOp } from './verify.js'

/** The steps of every op, in the order the journal commits them. */
export function commitSteps(
  rootReal: string,
  verified: readonly VerifiedOp[],
  format: PatchFormat,
): CommitStep[] {
  const planned = verified.flatMap((v) => commitStepsFor(rootReal, v))
  // A unified diff commits as git writes it, removals first (a type change needs the old entry
  // gone); the other formats keep their own order (Codex writes a move's destination before it
  // removes the source).
  return format === 'unified' ? inCommitOrder(planned) : planned
}

function commitStepsFor(rootReal: string, v: VerifiedOp): CommitStep[] {
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
