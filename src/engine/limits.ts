// The request-size limits (EngineOptions.limits) checked on a plan: operations after parsing,
// and the size of every file the change would produce before commit. Patch bytes are checked
// before parsing (src/bytes/patch-input.ts), sizes of files read from their stat
// (src/workspace/file-state.ts). Checks only: they read nothing and throw EditError LIMIT_*.
import { EditError } from '../errors.js'
import type { EditPlan } from '../types.js'
import type { VerifiedOp } from './verify.js'

/** Throws LIMIT_TOO_MANY_FILES when the plan has more than `maxFiles` operations. */
export function checkFileCount(plan: EditPlan, maxFiles: number): void {
  if (plan.ops.length <= maxFiles) return
  throw new EditError(
    'LIMIT_TOO_MANY_FILES',
    `The patch changes ${plan.ops.length} files, over the limit of ${maxFiles} per change.`,
  )
}

/** Throws LIMIT_FILE_TOO_LARGE for the first (in plan order) result over `maxFileBytes`. */
export function checkComputedSizes(verified: readonly VerifiedOp[], maxFileBytes: number): void {
  for (const { prepared: p, afterSize } of verified) {
    const size = afterSize ?? 0
    if (size <= maxFileBytes) continue
    const rel = (p.moveTo ?? p.target).resolved.rel
    throw new EditError(
      'LIMIT_FILE_TOO_LARGE',
      `${rel} would be ${size} bytes after the change, over the ${maxFileBytes}-byte file size limit.`,
      { path: rel, patchLine: p.op.patchLine },
    )
  }
}
