// Unit tests for src/apply/git-binary.ts with hand-built literal and delta hunks (real git
// patches are covered end to end in test/unit/parse/unified.test.ts).
import { createHash } from 'node:crypto'
import { deflateSync, inflateSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { applyBinaryPatch, checkPreimage } from '../../../src/apply/git-binary.js'
import { gitBlobId } from '../../../src/text/blob-id.js'
import type { BinaryHunk, BinaryPatch } from '../../../src/types.js'

const inflate = (data: Uint8Array): Uint8Array => inflateSync(data)

function hunkOf(
  method: BinaryHunk['method'],
  data: Uint8Array,
  inflatedSize = data.length,
): BinaryPatch {
  return { forward: { method, inflatedSize, deflated: new Uint8Array(deflateSync(data)) } }
}

function varint(value: number): number[] {
  const out: number[] = []
  let rest = value
  do {
    let byte = rest & 0x7f
    rest = Math.floor(rest / 128)
    if (rest > 0) byte |= 0x80
    out.push(byte)
  } while (rest > 0)
  return out
}

/** Git's copy opcode, spelling out only the non-zero offset and size bytes. */
function copy(offset: number, size: number): number[] {
  let opcode = 0x80
  const args: number[] = []
  for (let bit = 0; bit < 4; bit++) {
    const byte = Math.floor(offset / 2 ** (8 * bit)) & 0xff
    if (byte !== 0) {
      opcode |= 1 << bit
      args.push(byte)
    }
  }
  const encodedSize = size === 0x10000 ? 0 : size
  for (let bit = 0; bit < 3; bit++) {
    const byte = (encodedSize >> (8 * bit)) & 0xff
    if (byte !== 0) {
      opcode |= 1 << (4 + bit)
      args.push(byte)
    }
  }
  return [opcode, ...args]
}

function insert(bytes: number[]): number[] {
  return [bytes.length, ...bytes]
}

function delta(sourceSize: number, targetSize: number, ...ops: number[][]): Uint8Array {
  return Uint8Array.from([...varint(sourceSize), ...varint(targetSize), ...ops.flat()])
}

function value(result: ReturnType<typeof applyBinaryPatch>): Uint8Array {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
  return new Uint8Array(result.value)
}

const SOURCE = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff)

describe('applyBinaryPatch', () => {
  it('returns the inflated bytes of a literal, with or without a source', () => {
    const bytes = Uint8Array.from([0, 1, 2, 255])
    expect(value(applyBinaryPatch(null, hunkOf('literal', bytes), inflate))).toEqual(bytes)
    expect(value(applyBinaryPatch(SOURCE, hunkOf('literal', bytes), inflate))).toEqual(bytes)
  })

  it('applies copy and insert instructions of a delta', () => {
    const patch = hunkOf(
      'delta',
      delta(300, 10, copy(0, 3), insert([9, 9]), copy(298, 2), copy(256, 3)),
    )
    expect(value(applyBinaryPatch(SOURCE, patch, inflate))).toEqual(
      Uint8Array.from([0, 1, 2, 9, 9, 42, 43, 0, 1, 2]),
    )
  })

  it('reads multi-byte varint sizes and multi-byte copy offsets and sizes', () => {
    const big = Uint8Array.from({ length: 80_000 }, (_, i) => (i * 7) & 0xff)
    const patch = hunkOf('delta', delta(big.length, 0x1234 + 1, copy(0x10203, 0x1234), insert([1])))
    const out = value(applyBinaryPatch(big, patch, inflate))
    expect(out).toEqual(Uint8Array.from([...big.subarray(0x10203, 0x10203 + 0x1234), 1]))
  })

  it('reads a copy size of 0 as 0x10000', () => {
    const big = Uint8Array.from({ length: 0x10000 + 5 }, (_, i) => (i * 13) & 0xff)
    const patch = hunkOf('delta', delta(big.length, 0x10000, [0x80 | 0x01, 5]))
    expect(value(applyBinaryPatch(big, patch, inflate))).toEqual(big.subarray(5))
  })

  it('refuses a delta whose source size differs from the file with MATCH_NOT_FOUND', () => {
    const patch = hunkOf('delta', delta(299, 1, insert([1])))
    const result = applyBinaryPatch(SOURCE, patch, inflate, { path: 'img.png', patchLine: 4 })
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'MATCH_NOT_FOUND', path: 'img.png', patchLine: 4 }),
    })
    expect(!result.ok && result.error.message).toBe(
      'Binary patch does not apply for img.png at patch line 4: file has 300 bytes, patch expects 299.',
    )
  })

  it('refuses a delta for a file that does not exist with MATCH_NOT_FOUND', () => {
    const result = applyBinaryPatch(null, hunkOf('delta', delta(3, 1, insert([1]))), inflate)
    expect(result).toMatchObject({ ok: false, error: { code: 'MATCH_NOT_FOUND' } })
    expect(!result.ok && result.error.message).toContain('does not exist')
  })

  it('wraps an inflate failure into PARSE_BAD_BINARY', () => {
    const patch: BinaryPatch = {
      forward: { method: 'literal', inflatedSize: 3, deflated: Uint8Array.from([1, 2, 3]) },
    }
    const result = applyBinaryPatch(null, patch, inflate, { path: 'x.bin' })
    expect(result).toMatchObject({ ok: false, error: { code: 'PARSE_BAD_BINARY', path: 'x.bin' } })
    expect(!result.ok && result.error.message).toMatch(
      /^The binary patch for x\.bin does not inflate: /,
    )
    const thrower = (): Uint8Array => {
      throw 'not an Error'
    }
    expect(applyBinaryPatch(null, patch, thrower)).toMatchObject({
      ok: false,
      error: { code: 'PARSE_BAD_BINARY' },
    })
  })

  it('refuses data that inflates to another size than stated', () => {
    const result = applyBinaryPatch(null, hunkOf('literal', Uint8Array.from([1, 2]), 3), inflate)
    expect(result).toMatchObject({ ok: false, error: { code: 'PARSE_BAD_BINARY' } })
    expect(!result.ok && result.error.message).toContain('inflates to 2 bytes but states 3')
  })

  it('refuses corrupt deltas with PARSE_BAD_BINARY', () => {
    const corrupt: [string, Uint8Array][] = [
      ['empty', new Uint8Array(0)],
      ['no target size', Uint8Array.from([0x80 | 1, 0x02])],
      ['opcode 0', delta(300, 1, [0])],
      ['truncated copy', delta(300, 1, [0x80 | 0x01 | 0x10, 5])],
      ['copy past source', delta(300, 10, copy(295, 10))],
      ['copy past target', delta(300, 2, copy(0, 3))],
      ['truncated insert', delta(300, 5, [5, 1, 2])],
      ['insert past target', delta(300, 1, insert([1, 2]))],
      ['short result', delta(300, 5, insert([1, 2]))],
    ]
    for (const [label, data] of corrupt) {
      const result = applyBinaryPatch(SOURCE, hunkOf('delta', data), inflate)
      expect([label, result.ok || result.error.code]).toEqual([label, 'PARSE_BAD_BINARY'])
    }
  })
})

describe('the index line blob ids', () => {
  const before = Uint8Array.from([0, 1, 2, 3, 4, 5, 6, 7])
  const same = Uint8Array.from([7, 6, 5, 4, 3, 2, 1, 0])
  const after = Uint8Array.from([0, 1, 2, 3, 9, 9])
  const edit = delta(8, 6, copy(0, 4), insert([9, 9]))
  const ids = (oldId: string, newId: string, patch = hunkOf('delta', edit)): BinaryPatch => ({
    ...patch,
    oldId,
    newId,
  })
  const full = { old: gitBlobId(before), new: gitBlobId(after) }

  it('applies a delta to the blob the full or abbreviated id names', () => {
    expect(value(applyBinaryPatch(before, ids(full.old, full.new), inflate))).toEqual(after)
    const short = ids(full.old.slice(0, 7), full.new.slice(0, 7))
    expect(value(applyBinaryPatch(before, short, inflate))).toEqual(after)
  })

  it('refuses a delta on another file of the same size with MATCH_NOT_FOUND', () => {
    for (const oldId of [full.old, full.old.slice(0, 7)]) {
      const result = applyBinaryPatch(same, ids(oldId, full.new), inflate, { path: 'x.bin' })
      expect(result).toMatchObject({ ok: false, error: { code: 'MATCH_NOT_FOUND', path: 'x.bin' } })
      expect(result.ok ? '' : result.error.message).toContain(gitBlobId(same))
    }
  })

  it('refuses a literal over a file that is not the preimage', () => {
    const literal = ids(full.old, gitBlobId(after), hunkOf('literal', after))
    expect(value(applyBinaryPatch(before, literal, inflate))).toEqual(after)
    expect(applyBinaryPatch(same, literal, inflate)).toMatchObject({
      ok: false,
      error: { code: 'MATCH_NOT_FOUND' },
    })
  })

  it('reads an all-zero old id as "no file yet"', () => {
    const creation = ids('0000000', gitBlobId(after), hunkOf('literal', after))
    expect(value(applyBinaryPatch(null, creation, inflate))).toEqual(after)
    expect(checkPreimage(before, creation)).toMatchObject({
      ok: false,
      error: { code: 'MATCH_NOT_FOUND' },
    })
    expect(checkPreimage(null, ids(full.old, full.new))).toMatchObject({
      ok: false,
      error: { code: 'MATCH_NOT_FOUND' },
    })
  })

  it('refuses a result that is not the blob the new id names as corrupt data', () => {
    const wrong = ids(full.old, gitBlobId(same))
    expect(applyBinaryPatch(before, wrong, inflate)).toMatchObject({
      ok: false,
      error: { code: 'PARSE_BAD_BINARY' },
    })
    // A deletion's new id is all zeros: nothing to compare.
    expect(value(applyBinaryPatch(before, ids(full.old, '0'.repeat(40)), inflate))).toEqual(after)
  })

  it('checks both ids with the blob id it is given, the same way as with its own', () => {
    const hashed: number[] = []
    const native = (bytes: Uint8Array): string => {
      hashed.push(bytes.length)
      return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
    }
    const literal = ids(full.old, gitBlobId(after), hunkOf('literal', after))
    expect(value(applyBinaryPatch(before, literal, inflate, {}, native))).toEqual(after)
    // The preimage, then the result.
    expect(hashed).toEqual([before.length, after.length])
    expect(applyBinaryPatch(same, literal, inflate, {}, native)).toEqual(
      applyBinaryPatch(same, literal, inflate),
    )
    expect(checkPreimage(same, literal, {}, native)).toEqual(checkPreimage(same, literal))
    const wrong = ids(full.old, gitBlobId(same))
    expect(applyBinaryPatch(before, wrong, inflate, {}, native)).toEqual(
      applyBinaryPatch(before, wrong, inflate),
    )
  })

  it('checks only the delta size when the patch has no index line', () => {
    expect(value(applyBinaryPatch(same, hunkOf('delta', edit), inflate))).toEqual(
      Uint8Array.from([7, 6, 5, 4, 9, 9]),
    )
  })
})
