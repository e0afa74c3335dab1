// The production JournalFs (synchronous calls behind the promise interface): what each call
// leaves on disk, that the errors keep their errno (fs-errors.ts maps them), and that removeTree
// never follows a symlink out of the tree it removes.
import { execFileSync } from 'node:child_process'
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  CHILD_REMOVE_MIN_ENTRIES,
  errnoOf,
  nodeJournalFs,
  removeTreeAside,
} from '../../../src/journal/fs.js'
import { enc, tempWorkspace } from './fixtures.js'

async function errnoOfCall(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: unknown) => errnoOf(error),
  )
}

describe('nodeJournalFs', () => {
  it('writes a new file with exactly the given bits and refuses an existing one', async () => {
    const { root } = await tempWorkspace()
    const p = path.join(root, 'n')
    await nodeJournalFs.writeNew(p, enc('x'.repeat(70_000)), 0o751, true)
    expect(readFileSync(p, 'utf8')).toBe('x'.repeat(70_000))
    expect(lstatSync(p).mode & 0o7777).toBe(0o751)
    expect(await errnoOfCall(nodeJournalFs.writeNew(p, enc('y'), 0o644, false))).toBe('EEXIST')
  })

  it('rejects with the errno of the failed call, as fs/promises did', async () => {
    const { root } = await tempWorkspace()
    const missing = path.join(root, 'missing')
    expect(await errnoOfCall(nodeJournalFs.lstat(missing))).toBe('ENOENT')
    expect(await errnoOfCall(nodeJournalFs.readFile(missing))).toBe('ENOENT')
    expect(await errnoOfCall(nodeJournalFs.rename(missing, path.join(root, 'b')))).toBe('ENOENT')
    expect(await errnoOfCall(nodeJournalFs.syncDir(missing))).toBe('ENOENT')
    expect(await errnoOfCall(nodeJournalFs.mkdir(root))).toBe('EEXIST')
  })

  it('refuses to read or copy a FIFO instead of blocking the thread on it', async () => {
    const { root } = await tempWorkspace()
    const fifo = path.join(root, 'fifo')
    execFileSync('mkfifo', [fifo])
    expect(await errnoOfCall(nodeJournalFs.readFile(fifo))).toBe('EINVAL')
    expect(await errnoOfCall(nodeJournalFs.copyNew(fifo, path.join(root, 'c'), 0o644, false))).toBe(
      'EINVAL',
    )
    expect(() => lstatSync(path.join(root, 'c'))).toThrow(/ENOENT/)
  })

  it('copies a file to a new one with exactly the given bits', async () => {
    const { root } = await tempWorkspace()
    writeFileSync(path.join(root, 'src'), 'data\n')
    await nodeJournalFs.copyNew(path.join(root, 'src'), path.join(root, 'dst'), 0o600, true)
    expect(readFileSync(path.join(root, 'dst'), 'utf8')).toBe('data\n')
    expect(lstatSync(path.join(root, 'dst')).mode & 0o7777).toBe(0o600)
    expect(
      await errnoOfCall(
        nodeJournalFs.copyNew(path.join(root, 'src'), path.join(root, 'dst'), 0o600, false),
      ),
    ).toBe('EEXIST')
  })

  it.each(['removeTree', 'removeTreeAside'] as const)(
    '%s removes a tree without following a symlink in it, and accepts a missing one',
    async (remove) => {
      const { parent, root } = await tempWorkspace()
      const outside = path.join(parent, 'outside')
      mkdirSync(outside)
      writeFileSync(path.join(outside, 'keep.txt'), 'kept\n')
      const tree = path.join(root, 'txn')
      mkdirSync(path.join(tree, 'old', 'deep'), { recursive: true })
      writeFileSync(path.join(tree, 'manifest.json'), '{}')
      writeFileSync(path.join(tree, 'old', '0'), 'a')
      writeFileSync(path.join(tree, 'old', 'deep', '1'), 'b')
      symlinkSync(outside, path.join(tree, 'old', 'to-outside'))
      symlinkSync(path.join(outside, 'keep.txt'), path.join(tree, 'old', 'to-file'))

      await nodeJournalFs[remove](tree)

      expect(() => lstatSync(tree)).toThrow(/ENOENT/)
      expect(readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('kept\n')
      expect(readdirSync(outside)).toEqual(['keep.txt'])
      await nodeJournalFs[remove](tree)
      const file = path.join(root, 'plain')
      writeFileSync(file, 'x')
      await nodeJournalFs[remove](file)
      expect(() => lstatSync(file)).toThrow(/ENOENT/)
    },
  )

  it.each([
    ['by rm(1)', 'rm'],
    ['by the walk here when the command cannot run', 'patchloom-no-such-command'],
    ['by the walk here when the command fails', 'false'],
  ])(
    'removeTreeAside removes a large tree %s, never following a symlink in it',
    async (_how, command) => {
      const { parent, root } = await tempWorkspace()
      const outside = path.join(parent, 'outside')
      mkdirSync(outside)
      writeFileSync(path.join(outside, 'keep.txt'), 'kept\n')
      const tree = path.join(root, 'txn')
      mkdirSync(path.join(tree, 'deep'), { recursive: true })
      for (let i = 0; i < CHILD_REMOVE_MIN_ENTRIES; i++)
        writeFileSync(path.join(tree, `old.${i}`), `${i}\n`)
      writeFileSync(path.join(tree, 'deep', 'x'), 'x')
      symlinkSync(outside, path.join(tree, 'to-outside'))
      symlinkSync(path.join(outside, 'keep.txt'), path.join(tree, 'to-file'))
      expect(readdirSync(tree).length).toBeGreaterThanOrEqual(CHILD_REMOVE_MIN_ENTRIES)

      await removeTreeAside(tree, command)

      expect(() => lstatSync(tree)).toThrow(/ENOENT/)
      expect(readdirSync(outside)).toEqual(['keep.txt'])
      expect(readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('kept\n')
    },
  )
})
