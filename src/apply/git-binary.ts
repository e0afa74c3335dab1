// Applies one `GIT binary patch` (already base85-decoded by src/parse/unified.ts) to a file's
// bytes: inflate the forward hunk, then take it as the new content ('literal') or run git's delta
// format against the current content ('delta'). Pure: zlib is injected as `inflate`, so this runs
// in a worker or a browser alike. Like git, the current content must be the blob the `index`
// line names (full or abbreviated id; all zeros for no file), for deltas and literals alike, and
// the result must be the blob it names after (DECISIONS.md D-052); without an index line only a
// delta's stated source size guards the preimage. Reading and writing files, and the reverse
// hunk, are left to the caller (the reverse hunk only matters for `git apply -R`).
import { errorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import { gitBlobId } from '../text/blob-id.js'
import type { BinaryPatch } from '../types.js'

const PREIMAGE_HINT =
  'The file is not the one the binary diff was made from: regenerate it with `git diff --binary` against the current file.'

/** Git's blob id of some bytes: this core's own SHA-1 unless the caller has a faster one. */
export type BlobIdOf = (bytes: Uint8Array) => string

/** Where the patch came from, for error messages. */
export interface BinaryPatchContext {
  readonly path?: string
  readonly patchLine?: number
}

/**
 * Returns the file's new bytes. `source` is the current content, or null when the file does not
 * exist (fine for 'literal', MATCH_NOT_FOUND for 'delta').
 *
 * @example
 * applyBinaryPatch(before, op.binary, (d) => zlib.inflateSync(d))
 */
export function applyBinaryPatch(
  source: Uint8Array | null,
  patch: BinaryPatch,
  inflate: (deflated: Uint8Array) => Uint8Array,
  context: BinaryPatchContext = {},
  blobId: BlobIdOf = gitBlobId,
): Result<Uint8Array> {
  const where = describe(context)
  const { forward } = patch
  const preimage = checkPreimage(source, patch, context, blobId)
  if (!preimage.ok) return preimage
  let data: Uint8Array
  try {
    data = inflate(forward.deflated)
  } catch (cause) {
    const reason = cause instanceof Error ? `: ${cause.message}` : ''
    return fail(
      errorData('PARSE_BAD_BINARY', `The binary patch${where} does not inflate${reason}.`, context),
    )
  }
  if (data.length !== forward.inflatedSize) {
    return fail(
      errorData(
        'PARSE_BAD_BINARY',
        `The binary patch${where} inflates to ${data.length} bytes but states ${forward.inflatedSize}.`,
        context,
      ),
    )
  }
  const result =
    forward.method === 'literal'
      ? ok(Uint8Array.from(data))
      : applyDelta(source, data, where, context)
  if (!result.ok || patch.newId === undefined || isNullId(patch.newId)) return result
  const made = blobId(result.value)
  if (made.startsWith(patch.newId)) return result
  return fail(
    errorData(
      'PARSE_BAD_BINARY',
      `The binary patch${where} makes blob ${made}, not the ${patch.newId} its index line names: the patch data is corrupt.`,
      context,
    ),
  )
}

/**
 * Ok when `source` (null: no file) is the blob the patch's `index` line names before, or when
 * the patch names none; else MATCH_NOT_FOUND, as a context line that does not match would be.
 * Deletions call it directly: their data is never applied, but the file must be the one the
 * author saw.
 */
export function checkPreimage(
  source: Uint8Array | null,
  patch: Pick<BinaryPatch, 'oldId'>,
  context: BinaryPatchContext = {},
  blobId: BlobIdOf = gitBlobId,
): Result<void> {
  const expected = patch.oldId
  if (expected === undefined) return ok(undefined)
  const where = describe(context)
  if (isNullId(expected)) {
    if (source === null) return ok(undefined)
    return fail(
      errorData(
        'MATCH_NOT_FOUND',
        `Binary patch does not apply${where}: its index line says the file does not exist yet, but it does.`,
        { ...context, hint: PREIMAGE_HINT },
      ),
    )
  }
  if (source === null) {
    return fail(
      errorData(
        'MATCH_NOT_FOUND',
        `Binary patch does not apply${where}: the file does not exist, patch expects blob ${expected}.`,
        { ...context, hint: PREIMAGE_HINT },
      ),
    )
  }
  const actual = blobId(source)
  if (actual.startsWith(expected)) return ok(undefined)
  return fail(
    errorData(
      'MATCH_NOT_FOUND',
      `Binary patch does not apply${where}: the file is blob ${actual}, the patch's index line expects ${expected}.`,
      { ...context, hint: PREIMAGE_HINT },
    ),
  )
}

// git writes `index 0000000..` for a file that does not exist on that side.
function isNullId(id: string): boolean {
  return /^0+$/.test(id)
}

interface VarintRead {
  readonly value: number
  readonly next: number
}

// Git's delta header sizes: 7 bits per byte, least significant first, 0x80 = more bytes follow.
function readVarint(data: Uint8Array, start: number): VarintRead | null {
  let value = 0
  let shift = 0
  let index = start
  for (;;) {
    const byte = data[index]
    if (byte === undefined || shift > 49) return null
    value += (byte & 0x7f) * 2 ** shift
    index++
    shift += 7
    if ((byte & 0x80) === 0) return { value, next: index }
  }
}

function applyDelta(
  source: Uint8Array | null,
  delta: Uint8Array,
  where: string,
  context: BinaryPatchContext,
): Result<Uint8Array> {
  const bad = (why: string): Result<Uint8Array> =>
    fail(errorData('PARSE_BAD_BINARY', `The binary delta${where} is corrupt: ${why}.`, context))
  const sourceSize = readVarint(delta, 0)
  if (sourceSize === null) return bad('its source size is truncated')
  const targetSize = readVarint(delta, sourceSize.next)
  if (targetSize === null) return bad('its target size is truncated')
  if (source === null) {
    return fail(
      errorData(
        'MATCH_NOT_FOUND',
        `Binary patch does not apply${where}: the file does not exist, patch expects ${sourceSize.value} bytes.`,
        context,
      ),
    )
  }
  if (source.length !== sourceSize.value) {
    return fail(
      errorData(
        'MATCH_NOT_FOUND',
        `Binary patch does not apply${where}: file has ${source.length} bytes, patch expects ${sourceSize.value}.`,
        context,
      ),
    )
  }
  const out = new Uint8Array(targetSize.value)
  let written = 0
  let index = targetSize.next
  while (index < delta.length) {
    const opcode = delta[index++] as number
    if (opcode & 0x80) {
      // Copy from the source: bits 0-3 say which offset bytes follow, bits 4-6 which size bytes.
      let offset = 0
      let size = 0
      for (let bit = 0; bit < 4; bit++) {
        if (opcode & (1 << bit)) {
          const byte = delta[index++]
          if (byte === undefined) return bad('a copy instruction is truncated')
          offset += byte * 2 ** (8 * bit)
        }
      }
      for (let bit = 0; bit < 3; bit++) {
        if (opcode & (1 << (4 + bit))) {
          const byte = delta[index++]
          if (byte === undefined) return bad('a copy instruction is truncated')
          size += byte << (8 * bit)
        }
      }
      if (size === 0) size = 0x10000
      if (offset + size > source.length) return bad('a copy reaches past the end of the source')
      if (written + size > out.length) return bad('a copy overflows the stated target size')
      out.set(source.subarray(offset, offset + size), written)
      written += size
    } else if (opcode !== 0) {
      if (index + opcode > delta.length) return bad('an insert instruction is truncated')
      if (written + opcode > out.length) return bad('an insert overflows the stated target size')
      out.set(delta.subarray(index, index + opcode), written)
      written += opcode
      index += opcode
    } else {
      // Opcode 0 is reserved; git refuses it rather than guessing.
      return bad('it contains the reserved opcode 0')
    }
  }
  if (written !== out.length) {
    return bad(`it produces ${written} bytes but states ${out.length}`)
  }
  return ok(out)
}

function describe(context: BinaryPatchContext): string {
  const parts: string[] = []
  if (context.path !== undefined) parts.push(`for ${context.path}`)
  if (context.patchLine !== undefined) parts.push(`at patch line ${context.patchLine}`)
  return parts.length === 0 ? '' : ` ${parts.join(' ')}`
}
