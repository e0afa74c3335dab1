// Git's blob id: the SHA-1 of `blob <size>\0<bytes>`, as lowercase hex (what `git hash-object`
// prints and a diff's `index` line abbreviates). Pure TypeScript because the pure core compiles
// with `types: []` (D-004) and has no node:crypto; the binary-patch preimage check (D-052)
// runs in compute on either route. History replay, outside the core, hashes with node:crypto
// (src/bytes/blob-id.ts).
// SHA-1 is used here only to name git objects, never for security.

/** The git blob id of `bytes` (40 lowercase hex digits). */
export function gitBlobId(bytes: Uint8Array): string {
  const header = new TextEncoder().encode(`blob ${bytes.length}\0`)
  return sha1([header, bytes])
}

/** SHA-1 of the concatenation of `parts`, as 40 lowercase hex digits; the parts are not copied. */
export function sha1(parts: readonly Uint8Array[]): string {
  const state = new Uint32Array([0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0])
  const words = new Uint32Array(80)
  const block = new Uint8Array(64)
  let filled = 0
  let total = 0
  for (const part of parts) {
    total += part.length
    let at = 0
    // PERF: whole blocks are read straight from the input; only a block that spans two parts,
    // or the tail, goes through `block`.
    if (filled > 0) {
      const take = Math.min(64 - filled, part.length)
      block.set(part.subarray(0, take), filled)
      filled += take
      at = take
      if (filled === 64) {
        compress(state, words, block, 0)
        filled = 0
      }
    }
    for (; at + 64 <= part.length; at += 64) compress(state, words, part, at)
    if (at < part.length) {
      block.set(part.subarray(at), 0)
      filled = part.length - at
    }
  }
  // Padding: 0x80, zeros, then the length in bits as a 64-bit big-endian number.
  block[filled++] = 0x80
  if (filled > 56) {
    block.fill(0, filled)
    compress(state, words, block, 0)
    filled = 0
  }
  block.fill(0, filled)
  const bits = total * 8
  const high = Math.floor(bits / 2 ** 32)
  const low = bits >>> 0
  block[56] = high >>> 24
  block[57] = (high >>> 16) & 0xff
  block[58] = (high >>> 8) & 0xff
  block[59] = high & 0xff
  block[60] = low >>> 24
  block[61] = (low >>> 16) & 0xff
  block[62] = (low >>> 8) & 0xff
  block[63] = low & 0xff
  compress(state, words, block, 0)
  let hex = ''
  for (const word of state) hex += word.toString(16).padStart(8, '0')
  return hex
}

function compress(state: Uint32Array, w: Uint32Array, data: Uint8Array, at: number): void {
  for (let i = 0; i < 16; i++) {
    const j = at + i * 4
    w[i] =
      (((data[j] as number) << 24) |
        ((data[j + 1] as number) << 16) |
        ((data[j + 2] as number) << 8) |
        (data[j + 3] as number)) >>>
      0
  }
  for (let i = 16; i < 80; i++) {
    const x =
      (w[i - 3] as number) ^ (w[i - 8] as number) ^ (w[i - 14] as number) ^ (w[i - 16] as number)
    w[i] = (x << 1) | (x >>> 31)
  }
  let a = state[0] as number
  let b = state[1] as number
  let c = state[2] as number
  let d = state[3] as number
  let e = state[4] as number
  for (let i = 0; i < 80; i++) {
    let f: number
    let k: number
    if (i < 20) {
      f = (b & c) | (~b & d)
      k = 0x5a827999
    } else if (i < 40) {
      f = b ^ c ^ d
      k = 0x6ed9eba1
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d)
      k = 0x8f1bbcdc
    } else {
      f = b ^ c ^ d
      k = 0xca62c1d6
    }
    const t = (((a << 5) | (a >>> 27)) + f + e + k + (w[i] as number)) | 0
    e = d
    d = c
    c = (b << 30) | (b >>> 2)
    b = a
    a = t
  }
  state[0] = ((state[0] as number) + a) | 0
  state[1] = ((state[1] as number) + b) | 0
  state[2] = ((state[2] as number) + c) | 0
  state[3] = ((state[3] as number) + d) | 0
  state[4] = ((state[4] as number) + e) | 0
}
