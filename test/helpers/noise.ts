// Deterministic pseudo-random bytes for tests (a linear congruential generator's high bytes):
// the same length and seed always give the same bytes, and they deflate poorly, so git prefers
// a delta for small changes to them.

export function noise(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length)
  let state = seed >>> 0
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    out[i] = state >>> 24
  }
  return out
}
