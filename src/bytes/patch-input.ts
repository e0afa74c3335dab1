// The engine's patch input, string or bytes, to the text the parsers read. Bytes are checked
// against maxPatchBytes from their length and decoded by src/text/patch-bytes.ts, which keeps
// every byte that is not UTF-8 as a raw-byte char. A string must be well-formed: an unpaired
// surrogate has no UTF-8 encoding, and writing it would substitute U+FFFD. Model stop tokens at
// the end are cut here, once, before any format is detected (src/text/stop-tokens.ts). Throws
// EditError.
import { isAscii } from 'node:buffer'
import { EditError } from '../errors.js'
import { decodePatchBytes, hasLoneSurrogate, type PatchText } from '../text/patch-bytes.js'
import { cutStopTokens } from '../text/stop-tokens.js'

export interface PatchTextOptions {
  /** Read the text as it is, stop tokens and all: git's own diffs, which no model wrote. */
  readonly keepStopTokens?: boolean
}

export function patchTextOf(
  input: unknown,
  maxPatchBytes: number,
  options: PatchTextOptions = {},
): PatchText {
  const decoded = decodedPatchText(input, maxPatchBytes)
  if (options.keepStopTokens === true) return decoded
  const cut = cutStopTokens(decoded.text)
  if (cut === null) return decoded
  const text = endLine(cut.text)
  return { ...decoded, text, stopTokens: { tokens: cut.tokens, line: cut.line } }
}

/**
 * The text with its last line ended as the lines before it end. A stop token says the model
 * finished that line, so the parsers must not read it as cut off by a length limit.
 */
function endLine(text: string): string {
  if (text === '' || text.endsWith('\n')) return text
  const previous = text.lastIndexOf('\n')
  const crlf = previous > 0 && text[previous - 1] === '\r' && !text.endsWith('\r')
  return text + (crlf ? '\r\n' : '\n')
}

function decodedPatchText(input: unknown, maxPatchBytes: number): PatchText {
  if (input instanceof Uint8Array) {
    if (input.length > maxPatchBytes) {
      throw new EditError(
        'LIMIT_PATCH_TOO_LARGE',
        `The patch is ${input.length} bytes, over the ${maxPatchBytes}-byte patch size limit.`,
      )
    }
    const decoded = decodePatchBytes(input, nodeUnitsToString)
    return isPlainAscii(input) ? { ...decoded, plain: true } : decoded
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

/** ASCII without CR or NUL; native scans, where a regex over the decoded text took ~35 ms per 27 MB. */
function isPlainAscii(bytes: Uint8Array): boolean {
  if (!isAscii(bytes)) return false
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  return view.indexOf(0x0d) === -1 && view.indexOf(0x00) === -1
}

/**
 * PERF: Buffer's 'utf16le' copies the units into a string without validating them, so raw-byte
 * chars survive; 32 MiB of units take ~70 ms, against ~2 s for the portable String.fromCharCode.
 */
function nodeUnitsToString(units: Uint16Array): string {
  return Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString('utf16le')
}

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
