// Content hashes: `sha256:<hex>` of a file's raw bytes. Used in every result (beforeHash,
// afterHash), for expected_hash checks, and to catch a file that changed between verification
// and commit. A leaf beside types.ts and errors.ts: the coordinator (reads, expected_hash) and
// the journal (commit, recovery, undo) both hash, and neither should reach into the other for it.
import { createHash } from 'node:crypto'

export const HASH_PREFIX = 'sha256:'

export function hashBytes(bytes: Uint8Array): string {
  return HASH_PREFIX + createHash('sha256').update(bytes).digest('hex')
}
