// Git's blob id (the SHA-1 of `blob <size>\0<bytes>`) with node:crypto's native hash, for history
// replay, which hashes every file it reads from git and every file it writes. The pure core has
// its own, in TypeScript (src/text/blob-id.ts, D-004), for the binary-patch preimage check; the
// tests of each compare it with git's own ids.
import { createHash } from 'node:crypto'

export function gitBlobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
}
