// Errors name the user's file: a failed call on a staged file (new/N) or a backup (old/N)
// is reported against step N's path, never the journal's internal one.
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { JournalFs } from '../../../src/journal/fs.js'
import {
  editError,
  errnoError,
  journalFor,
  quietJournalFs,
  summaryOf,
  tempWorkspace,
  treeState,
  writeFiles,
  writeStep,
} from './fixtures.js'

/** Node's own shape for a failed rename: `path` is the source, `dest` the destination. */
function renameError(code: string, from: string, to: string): Error {
  return Object.assign(errnoError(code, from), { dest: to })
}

async function threeFiles() {
  const { root } = await tempWorkspace()
  await writeFiles(root, { 'one.txt': '1\n', 'two.txt': '2\n', 'sub/three.txt': '3\n' })
  const before = await treeState(root)
  const steps = [
    await writeStep(root, 'one.txt', 'ONE\n'),
    await writeStep(root, 'two.txt', 'TWO\n'),
    await writeStep(root, 'sub/three.txt', 'THREE\n'),
  ]
  return { root, before, steps }
}

describe('commit errors', () => {
  it('name sub/three.txt when replacing it is not permitted, not the staged file', async () => {
    const { root, before, steps } = await threeFiles()
    const fs: JournalFs = {
      ...quietJournalFs,
      rename: async (from, to) => {
        if (to === path.join(root, 'sub/three.txt')) throw renameError('EACCES', from, to)
        return quietJournalFs.rename(from, to)
      },
    }
    const error = await editError(journalFor(root, { fs }).commit(steps, summaryOf([])))
    expect(error.code).toBe('JOURNAL_PERMISSION_DENIED')
    expect(error.path).toBe('sub/three.txt')
    expect(error.message).toContain('EACCES on sub/three.txt')
    expect(error.message).not.toContain('.patchloom')
    expect(await treeState(root)).toEqual(before)
  })

  it('name the file whose backup could not be made', async () => {
    const { root, before, steps } = await threeFiles()
    const fs: JournalFs = {
      ...quietJournalFs,
      link: async (existing, newPath) => {
        if (existing === path.join(root, 'two.txt')) throw errnoError('ENOSPC', newPath)
        return quietJournalFs.link(existing, newPath)
      },
    }
    const error = await editError(journalFor(root, { fs }).commit(steps, summaryOf([])))
    expect(error.code).toBe('JOURNAL_NO_SPACE')
    expect(error.path).toBe('two.txt')
    expect(await treeState(root)).toEqual(before)
  })
})

describe('undo errors', () => {
  it('name the file that could not be read, with its errno code', async () => {
    const { root, steps } = await threeFiles()
    const id = await journalFor(root).commit(steps, summaryOf([]))
    const fs: JournalFs = {
      ...quietJournalFs,
      lstat: async (p) => {
        if (p === path.join(root, 'two.txt')) throw errnoError('EACCES', p)
        return quietJournalFs.lstat(p)
      },
    }
    const error = await editError(journalFor(root, { fs }).undo(id))
    expect(error.code).toBe('JOURNAL_PERMISSION_DENIED')
    expect(error.path).toBe('two.txt')
    expect(error.message).toContain('EACCES')
  })
})
