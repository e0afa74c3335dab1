// The engine's patch input, string or bytes (#8), to the text the parsers read. Bytes are checked
// against maxPatchBytes from their length and decoded by src/text/patch-bytes.ts, which keeps
// every byte that is not UTF-8 as a raw-byte char. A string must be well-formed: an unpaired
// surrogate has no UTF-8 encoding, and writing it would substitute U+FFFD. Throws EditError.
import { EditError } from '../errors.js'
import { decodePatchBytes, hasLoneSurrogate, type PatchText } from '../text/patch-bytes.js'
import { checkPatchSize } from './limits.js'

export function patchTextOf(input: unknown, maxPatchBytes: number): PatchText {
  if (input instanceof Uint8Array) {
    if (input.length > maxPatchBytes) {
      throw new EditError(
        'LIMIT_PATCH_TOO_LARGE',
        `The patch is ${input.length} bytes, over the ${maxPatchBytes}-byte patch size limit.`,
      )
    }
    return decodePatchBytes(input, nodeUnitsToString)
  }
  if (typeof input !== 'string')
    throw new EditError('CONFIG_INVALID', 'Invalid input: the patch must be a string or bytes.')
  checkPatchSize(input, maxPatchBytes)
  if (hasLoneSurrogate(input)) {
    throw new EditError(
      'PARSE_BAD_ENCODING',
      'The patch text holds an unpaired surrogate, which has no UTF-8 encoding.',
    )
  }
  return { text: input }
}

/**
 * PERF: Buffer's 'utf16le' copies the units into a string without validating them, so raw-byte
 * chars survive; 32 MiB of units take ~70 ms, against ~2 s for the portable String.fromCharCode.
 */
function nodeUnitsToString(units: Uint16Array): string {
  return Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString('utf16le')
}
