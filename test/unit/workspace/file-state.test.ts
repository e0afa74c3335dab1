import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EditError } from '../../../src/errors.js'
import { hashBytes } from '../../../src/hash.js'
import { checkFileSize, readSnapshot } from '../../../src/workspace/file-state.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'patchloom-read-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const limit = (maxFileBytes: number) => ({ maxFileBytes, path: 'f.txt', patchLine: 5 })

describe('readSnapshot', () => {
  it('reads a regular file with its hash, git mode and permission bits', async () => {
    const file = path.join(dir, 'f.txt')
    await writeFile(file, 'hello\n', { mode: 0o755 })
    const snap = await readSnapshot(file, limit(6))
    expect(new TextDecoder().decode(snap.bytes ?? new Uint8Array())).toBe('hello\n')
    expect(snap).toMatchObject({ kind: 'file', mode: '100755', permissions: 0o755 })
    expect(snap.hash).toBe(hashBytes(new TextEncoder().encode('hello\n')))
  })

  it('reports missing paths, directories and empty files', async () => {
    expect((await readSnapshot(path.join(dir, 'nope'))).kind).toBe('missing')
    await mkdir(path.join(dir, 'sub'))
    expect((await readSnapshot(path.join(dir, 'sub'))).kind).toBe('directory')
    await writeFile(path.join(dir, 'empty'), '')
    expect((await readSnapshot(path.join(dir, 'empty'))).bytes).toEqual(new Uint8Array())
  })

  it('classifies a FIFO as other without opening it (an open would block with no writer)', async () => {
    const fifo = path.join(dir, 'pipe')
    execFileSync('mkfifo', [fifo])
    const before = await stat(fifo)
    const snap = await readSnapshot(fifo, limit(10))
    expect(snap).toEqual({ kind: 'other', bytes: null, hash: null })
    const after = await stat(fifo)
    expect(after.isFIFO()).toBe(true)
    expect([after.ino, after.mtimeMs, after.atimeMs]).toEqual([
      before.ino,
      before.mtimeMs,
      before.atimeMs,
    ])
  })

  it('classifies a character device as other', async () => {
    expect((await readSnapshot('/dev/null')).kind).toBe('other')
  })

  it('refuses a file over the limit from its stat, without reading it', async () => {
    const file = path.join(dir, 'f.txt')
    await writeFile(file, 'x'.repeat(100))
    const before = await stat(file)
    const error = await readSnapshot(file, limit(99)).then(
      () => new EditError('INTERNAL', 'read a file over the limit'),
      (e: unknown) => e as EditError,
    )
    expect(error).toBeInstanceOf(EditError)
    expect(error).toMatchObject({ code: 'LIMIT_FILE_TOO_LARGE', path: 'f.txt', patchLine: 5 })
    expect(error.message).toBe('f.txt is 100 bytes, over the 99-byte file size limit.')
    // Reading would have advanced the access time (unless the mount says noatime).
    expect((await stat(file)).atimeMs).toBe(before.atimeMs)
    expect((await readSnapshot(file, limit(100))).bytes?.length).toBe(100)
  })

  it('reads a file larger than the read probe exactly', async () => {
    const file = path.join(dir, 'big.bin')
    const bytes = new Uint8Array(200_000).map((_, i) => i % 251)
    await writeFile(file, bytes)
    const snap = await readSnapshot(file)
    expect(snap.bytes).toEqual(bytes)
  })
})

describe('checkFileSize', () => {
  it('accepts sizes up to the limit and refuses one byte more', () => {
    expect(() => checkFileSize(10, limit(10))).not.toThrow()
    expect(() => checkFileSize(11, limit(10))).toThrow(/11 bytes, over the 10-byte/)
  })
})
