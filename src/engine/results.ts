// From verified ops to what a request reports: one FileResult per file (paths, counts, hashes,
// mode fields), and the check that every symlink the change writes leads somewhere inside the
// root. Plain functions of the verified data; the only filesystem access is checkLinkTargets'
// resolution of link targets. What the journal writes is commit-steps.ts's.
import type { PatchText } from '../text/patch-bytes.js'
import type { SkippedEntry } from '../parse/unified.js'
import type { FileMode, FileResult, Warning } from '../types.js'
import { checkSymlinkTarget, type PathContext } from '../workspace/paths.js'
import { writesLink, type PreparedOp } from './prepare.js'
import type { VerifiedOp } from './verify.js'

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

/**
 * The warnings about the patch itself: model stop tokens cut from its end (src/bytes/
 * patch-input.ts), and entries skipped on request (binary files without data).
 */
export function patchWarnings(patch: PatchText, skipped: readonly SkippedEntry[] = []): Warning[] {
  const warnings: Warning[] = skipped.map((entry) => ({
    code: 'parse.binary-skipped',
    message: `Skipped ${entry.path ?? 'a binary file'} at patch line ${entry.patchLine}: the patch says it differs but carries no binary data, and binaryWithoutData is skip.`,
    ...(entry.path === undefined ? {} : { path: entry.path }),
    patchLine: entry.patchLine,
  }))
  const cut = patch.stopTokens
  if (cut === undefined) return warnings
  const which = cut.tokens.length === 1 ? 'stop token' : 'stop tokens'
  return [
    ...warnings,
    {
      code: 'parse.stop-token',
      message:
        `The patch ended in the model ${which} ${cut.tokens.join('')} at line ${cut.line}; ` +
        'cut before parsing, so the patch ends with the text before it.',
      patchLine: cut.line,
    },
  ]
}
