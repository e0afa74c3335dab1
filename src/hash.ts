// Content hashes: `sha256:<hex>` of a file's raw bytes. Used in every result (beforeHash,
// afterHash), for expected_hash checks, and to catch a file that changed between verification and
// commit. A leaf beside types.ts and errors.ts: the engine and workspace (reads, expected_hash) and
// the journal (commit, recovery, undo) all hash, and none should reach into another for it.
import * as crypto from 'node:crypto'

export const HASH_PREFIX = 'sha256:'

type OneShot = (algorithm: string, data: Uint8Array, encoding: 'hex') => string

// PERF: crypto.hash (Node 20.12+) hashes without creating a Hash object per call, which was a
// tenth of a worker's time verifying thousands of small files; older Node 20s fall back.
const oneShot = (crypto as { hash?: OneShot }).hash

export function hashBytes(bytes: Uint8Array): string {
  if (oneShot !== undefined) return HASH_PREFIX + oneShot('sha256', bytes, 'hex')
  return HASH_PREFIX + crypto.createHash('sha256').update(bytes).digest('hex')
}
