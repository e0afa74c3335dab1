// The request-size limits (EngineOptions.limits): patch bytes before parsing, operations after
// parsing, and the size of every file the change would produce before commit. Sizes of files
// read are checked in read.ts, from their stat. Checks only: they read nothing and throw
// EditError LIMIT_*.
import { EditError } from '../errors.js'
import type { EditPlan } from '../types.js'
import type { VerifiedOp } from './verify.js'

/** Throws LIMIT_PATCH_TOO_LARGE when `input` is over `maxPatchBytes` bytes of UTF-8. */
export function checkPatchSize(input: string, maxPatchBytes: number): void {
  // Every UTF-16 unit is 1-3 UTF-8 bytes (a surrogate pair is 4 for 2 units), so most inputs are
  // decided from their length without encoding them.
  // Buffer.byteLength counts without allocating an encoded copy.
  if (input.length * 3 <= maxPatchBytes) return
  const bytes = Buffer.byteLength(input, 'utf8')
  if (bytes <= maxPatchBytes) return
  throw new EditError(
    'LIMIT_PATCH_TOO_LARGE',
    `The patch is ${bytes} bytes, over the ${maxPatchBytes}-byte patch size limit.`,
  )
}

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
