// Unit tests for src/text/blob-id.ts: the pure SHA-1 against node:crypto on awkward lengths and
// part splits, and the blob id against `git hash-object` on real files.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { gitBlobId, sha1 } from '../../../src/text/blob-id.js'
import { noise } from '../../helpers/noise.js'

const dir = mkdtempSync(join(tmpdir(), 'patchloom-blob-id-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('sha1', () => {
  it('matches node:crypto at every length around the block and padding edges', () => {
    for (const length of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 70_001]) {
      const data = noise(length, length)
      expect(sha1([data])).toBe(createHash('sha1').update(data).digest('hex'))
    }
  })

  it('gives the same digest however the input is split into parts', () => {
    const data = noise(300, 7)
    const want = createHash('sha1').update(data).digest('hex')
    for (const cuts of [[0], [1], [63, 64], [10, 70, 200], [299, 300]]) {
      const parts: Uint8Array[] = []
      let at = 0
      for (const cut of cuts) {
        parts.push(data.subarray(at, cut))
        at = cut
      }
      parts.push(data.subarray(at))
      expect(sha1(parts)).toBe(want)
    }
  })
})

describe('gitBlobId', () => {
  it('equals git hash-object for empty, text and binary files', () => {
    const files: Uint8Array[] = [
      new Uint8Array(0),
      new TextEncoder().encode('hello\n'),
      noise(5000, 3),
    ]
    files.forEach((data, i) => {
      const path = join(dir, `f${i}`)
      writeFileSync(path, data)
      const want = execFileSync('git', ['hash-object', path], { encoding: 'utf8' }).trim()
      expect(gitBlobId(data)).toBe(want)
    })
  })
})
