// Reads the patch for `apply` and `check` as bytes: from stdin as a stream, or from a FILE
// (a regular file is refused from its stat when over the limit, before any read). Both count
// bytes as they arrive and stop at --max-patch-bytes with LIMIT_PATCH_TOO_LARGE, so no more
// than the limit plus one chunk is ever held in memory. Decoding is the engine's business
// (src/bytes/patch-input.ts): the bytes are passed on as they are.
import { open, type FileHandle } from 'node:fs/promises'
import { resolve } from 'node:path'
import { DEFAULT_LIMITS } from '../defaults.js'
import { EditError } from '../errors.js'
import type { CliIo } from './io.js'

/** Where the patch came from, for messages. */
type Source = { readonly kind: 'stdin' } | { readonly kind: 'file'; readonly name: string }

/**
 * Reads the patch bytes from `file` (relative to io.cwd), or from stdin when file is null, and
 * refuses one over maxPatchBytes without reading past the limit.
 */
export async function readPatchInput(
  file: string | null,
  io: CliIo,
  maxPatchBytes: number = DEFAULT_LIMITS.maxPatchBytes,
): Promise<Uint8Array> {
  if (file === null) return readLimited(io.stdin(), maxPatchBytes, { kind: 'stdin' })
  const source: Source = { kind: 'file', name: file }
  const abs = resolve(io.cwd, file)
  try {
    const handle = await open(abs, 'r')
    try {
      const st = await handle.stat()
      if (st.isFile() && st.size > maxPatchBytes) throw tooLarge(source, maxPatchBytes, st.size)
      // Read to the end, counted: a FIFO (`<(git diff)`) has no size, and a file may grow
      // meanwhile. A file handle rather than a read stream: one read for a small patch.
      const chunkBytes = Math.min(Math.max(st.size + 1, 64 * 1024), maxPatchBytes + 1)
      return await readLimited(chunksOf(handle, chunkBytes), maxPatchBytes, source)
    } finally {
      await handle.close()
    }
  } catch (err) {
    if (err instanceof EditError) throw err
    const reason = err instanceof Error && 'code' in err ? String(err.code) : String(err)
    throw new EditError('USAGE_INVALID', `Cannot read the patch file '${file}' (${reason}).`, {
      hint: 'Give an existing patch file, or pipe the patch on stdin.',
      cause: err,
    })
  }
}

/** Read size after a short read: usually only end of file is left to see (a FIFO goes on). */
const PROBE_BYTES = 64 * 1024

/**
 * The handle's bytes from the start, `chunkBytes` at a time, until end of file. After a short read
 * the next buffer is small: a file read whole in one chunk then needs no second buffer of its
 * size just to see end of file (without this, a 27 MiB patch was held twice at the CLI's peak).
 */
async function* chunksOf(handle: FileHandle, chunkBytes: number): AsyncGenerator<Uint8Array> {
  let size = chunkBytes
  for (;;) {
    const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(size), 0, size)
    if (bytesRead === 0) return
    yield buffer.subarray(0, bytesRead)
    size = bytesRead < size ? Math.min(PROBE_BYTES, chunkBytes) : chunkBytes
  }
}

/** Collects `chunks` until they end, or throws once they pass `maxBytes` (the rest is not read). */
export async function readLimited(
  chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  maxBytes: number,
  source: Source,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  let total = 0
  // Leaving the loop early returns the iterator, which destroys a Node stream: no more is read.
  for await (const chunk of chunks) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    total += bytes.length
    if (total > maxBytes) throw tooLarge(source, maxBytes)
    parts.push(bytes)
  }
  // One chunk (a file read whole) is returned as it is, not copied: the patch can be large.
  return parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts, total)
}

function tooLarge(source: Source, maxBytes: number, size?: number): EditError {
  const what = source.kind === 'stdin' ? 'The patch on stdin' : `The patch file '${source.name}'`
  const amount = size === undefined ? 'is over' : `is ${size} bytes, over`
  return new EditError(
    'LIMIT_PATCH_TOO_LARGE',
    `${what} ${amount} the ${maxBytes}-byte patch size limit; raise it with --max-patch-bytes N.`,
    { hint: 'Split the change into smaller patches, or raise the limit with --max-patch-bytes N.' },
  )
}
