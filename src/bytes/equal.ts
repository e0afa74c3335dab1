// Byte-for-byte equality of two buffers with Node's native compare (memcmp), for the engine's
// "changes no byte" check and the journal's idempotent rewrite check.
import { Buffer } from 'node:buffer'

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0
}
