// What the exact splice may take as checked about a file's bytes (src/apply/exact-splice.ts):
// valid UTF-8, and no CR or NUL. Native checks (simdutf, memchr) are cheap next to decoding the
// file, which is what the splice saves. Shared by verification and history replay.
import { Buffer, isUtf8 } from 'node:buffer'
import type { ComputeInput } from '../types.js'

export function plainness(
  bytes: Uint8Array,
): Pick<ComputeInput, 'sourceIsUtf8' | 'sourceHasNoCrOrNul'> {
  if (!isUtf8(bytes)) return {}
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  const plain = view.indexOf(0x0d) === -1 && view.indexOf(0x00) === -1
  return plain ? { sourceIsUtf8: true, sourceHasNoCrOrNul: true } : { sourceIsUtf8: true }
}
