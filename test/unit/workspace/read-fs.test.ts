// The two filesystem views paths.ts and read.ts run on must agree: the worker's synchronous
// one caches directory realpaths per batch, and must still resolve every path, and fail on every
// path, as realpath(3) through fs/promises does.
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { asyncReadFs, createSyncReadFs } from '../../../src/workspace/read-fs.js'
import { makeTempDir } from '../../helpers/tree.js'

let root: string

beforeAll(async () => {
  root = await makeTempDir('patchloom-read-fs-')
  await mkdir(path.join(root, 'dir', 'deep'), { recursive: true })
  await writeFile(path.join(root, 'dir', 'file.txt'), 'x')
  await writeFile(path.join(root, 'dir', 'deep', 'f.txt'), 'y')
  await symlink('dir', path.join(root, 'dirlink'))
  await symlink('file.txt', path.join(root, 'dir', 'filelink'))
  await symlink('deep', path.join(root, 'dir', 'deeplink'))
  await symlink('../dir', path.join(root, 'dir', 'deep', 'up'))
  await symlink('missing', path.join(root, 'dir', 'dangling'))
  await symlink('loop2', path.join(root, 'loop1'))
  await symlink('loop1', path.join(root, 'loop2'))
})

afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

async function outcome(run: () => unknown): Promise<string> {
  try {
    return `ok ${String(await run())}`
  } catch (error) {
    return `error ${(error as NodeJS.ErrnoException).code ?? String(error)}`
  }
}

describe('createSyncReadFs().realpath', () => {
  const cases = [
    'dir/file.txt',
    'dir/deep/f.txt',
    'dirlink/file.txt',
    'dirlink/deep/f.txt',
    'dir/filelink',
    'dirlink/filelink',
    'dir/dangling',
    'dir/dangling/x',
    'dir/deeplink/f.txt',
    'dirlink/deeplink/f.txt',
    'dir/deep/up/deep/up/file.txt',
    'dirlink/deep/up/filelink',
    'dir/missing.txt',
    'nodir/missing.txt',
    'dir/file.txt/under',
    'loop1',
    'loop1/x',
    'dir',
  ]
  it.each(cases)('resolves %s as realpath(3) does', async (rel) => {
    const abs = path.join(root, rel)
    const sync = createSyncReadFs()
    // Twice through one instance: the second answer comes from the directory cache.
    const first = await outcome(() => sync.realpath(abs))
    const second = await outcome(() => sync.realpath(abs))
    const expected = await outcome(() => asyncReadFs.realpath(abs))
    expect(first).toBe(expected)
    expect(second).toBe(expected)
  })

  it('resolves every case as realpath(3) does through one shared directory cache', async () => {
    // Each directory is resolved from its parent's cached answer, so the order in which
    // paths fill the cache must not change any answer: forwards, then backwards, one instance.
    const sync = createSyncReadFs()
    for (const rel of [...cases, ...cases.slice().reverse()]) {
      const abs = path.join(root, rel)
      expect(`${rel}: ${await outcome(() => sync.realpath(abs))}`).toBe(
        `${rel}: ${await outcome(() => asyncReadFs.realpath(abs))}`,
      )
    }
  })

  it("answers a resolved file's next stat from the lstat that resolved it, once", async () => {
    const sync = createSyncReadFs()
    const file = path.join(root, 'dir', 'grows.txt')
    await writeFile(file, 'ab')
    expect(sync.realpath(file)).toBe(file)
    await writeFile(file, 'abcd')
    // The batch's snapshot first (what was opened is judged by fstat, read.ts), then the kernel.
    expect((await sync.stat(file)).size).toBe(2)
    expect((await sync.stat(file)).size).toBe(4)
    // A link is stat'ed through, never answered from its own lstat.
    const link = path.join(root, 'dir', 'filelink')
    expect(await sync.realpath(link)).toBe(path.join(root, 'dir', 'file.txt'))
    expect((await sync.stat(link)).isFile()).toBe(true)
  })
})
