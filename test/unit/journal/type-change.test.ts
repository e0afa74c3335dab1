// Type changes through the journal: a file replaced by a directory of the same name and the
// reverse, a symlink replaced by a directory, and a rename from foo to foo/baz, each committed in
// the order git writes them (removals first). Each one must commit to the after tree, be undone
// to the before tree, roll back to the before tree when any filesystem call of its commit fails,
// and be recovered to the before tree when the process dies at any call of its commit.
import { mkdir, symlink } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { newTransactionId } from '../../../src/journal/manifest.js'
import { recoverAll } from '../../../src/journal/recover.js'
import { inCommitOrder, runTransaction } from '../../../src/journal/transaction.js'
import type { CommitStep } from '../../../src/journal/records.js'
import { journalEntries } from '../../helpers/tree.js'
import {
  contextFor,
  enc,
  journalFor,
  linkState,
  recordingFs,
  removeStep,
  summaryOf,
  tempWorkspace,
  treeState,
  writeFiles,
  writeLink,
  writeStep,
  type FsCall,
} from './fixtures.js'

interface Case {
  readonly name: string
  readonly setup: (root: string) => Promise<void>
  readonly steps: (root: string) => Promise<CommitStep[]>
  readonly after: readonly string[]
}

const CASES: readonly Case[] = [
  {
    name: 'a file replaced by a directory',
    setup: (root) => writeFiles(root, { foo: 'one\n', 'keep.txt': 'k\n' }),
    steps: async (root) => [
      await writeStep(root, 'foo/bar', 'inside\n'),
      await removeStep(root, 'foo'),
    ],
    after: ['foo', 'foo/bar', 'keep.txt'],
  },
  {
    name: 'a directory replaced by a file',
    setup: (root) =>
      writeFiles(root, { 'foo/bar': 'a\n', 'foo/deep/baz': 'b\n', 'keep.txt': 'k\n' }),
    steps: async (root) => [
      await writeStep(root, 'foo', 'now a file\n'),
      await removeStep(root, 'foo/bar'),
      await removeStep(root, 'foo/deep/baz'),
    ],
    after: ['foo', 'keep.txt'],
  },
  {
    name: 'a symlink replaced by a directory',
    setup: async (root) => {
      await writeFiles(root, { 'real/Makefile': 'r\n' })
      await symlink('real', path.join(root, 'link'))
    },
    steps: async (root) => [
      // Nothing stands at link/Makefile once the link is gone: what the path reaches now is not it.
      {
        kind: 'write',
        abs: path.join(root, 'link/Makefile'),
        rel: 'link/Makefile',
        bytes: enc('own\n'),
        permissions: 0o644,
        before: null,
      },
      {
        kind: 'remove',
        abs: path.join(root, 'link'),
        rel: 'link',
        before: linkState('real'),
      },
    ],
    after: ['link', 'link/Makefile', 'real', 'real/Makefile'],
  },
  {
    name: 'a directory replaced by a symlink',
    setup: (root) => writeFiles(root, { 'd/x': 'd\n', 'real/x': 'r\n' }),
    steps: async (root) => [writeLink(root, 'd', 'real'), await removeStep(root, 'd/x')],
    after: ['d', 'real', 'real/x'],
  },
  {
    name: 'a rename from foo to foo/baz',
    setup: (root) => writeFiles(root, { foo: '1\n2\n' }),
    steps: async (root) => [
      await writeStep(root, 'foo/baz', '1\n2\n'),
      await removeStep(root, 'foo'),
    ],
    after: ['foo', 'foo/baz'],
  },
]

async function prepared(c: Case): Promise<{ root: string; steps: CommitStep[] }> {
  const { root } = await tempWorkspace()
  await c.setup(root)
  await mkdir(path.join(root, '.patchloom/journal'), { recursive: true })
  // Built in patch order (the write first, as git sorts foo before foo/bar), committed in the
  // journal's order: removals first.
  return { root, steps: inCommitOrder(await c.steps(root)) }
}

const SUMMARY = summaryOf([{ path: 'foo', op: 'update' }])
const paths = (tree: readonly Record<string, unknown>[]) => tree.map((e) => e['path'])

/** How many filesystem calls a clean commit of `c` makes after its prepare phase. */
async function replaceCalls(c: Case): Promise<number> {
  const { root, steps } = await prepared(c)
  let replacing = false
  let calls = 0
  const rec = recordingFs({
    fail: () => {
      if (replacing) calls++
      return undefined
    },
  })
  const ctx = contextFor(root, rec.fs, { at: (p) => void (p === 'prepared' && (replacing = true)) })
  await runTransaction(ctx, newTransactionId(new Date()), steps, SUMMARY)
  return calls
}

describe('type changes through the journal', () => {
  for (const c of CASES) {
    it(`commits and undoes ${c.name}`, async () => {
      const { root, steps } = await prepared(c)
      const before = await treeState(root)
      const journal = journalFor(root)
      const id = await journal.commit(steps, SUMMARY, [])
      expect(paths(await treeState(root))).toEqual(c.after)
      if (id === undefined) throw new Error('nothing committed')
      await journal.undo(id)
      expect(await treeState(root)).toEqual(before)
    })

    it(`rolls back ${c.name} whatever call of its commit fails`, async () => {
      const total = await replaceCalls(c)
      expect(total).toBeGreaterThan(0)
      for (let n = 1; n <= total; n++) {
        const { root, steps } = await prepared(c)
        const before = await treeState(root)
        let replacing = false
        let seen = 0
        const rec = recordingFs({
          fail: () => (replacing && ++seen === n ? 'EIO' : undefined),
        })
        const ctx = contextFor(root, rec.fs, {
          at: (p) => void (p === 'prepared' && (replacing = true)),
        })
        const run = runTransaction(ctx, newTransactionId(new Date()), steps, SUMMARY)
        const failed = await run.then(
          () => false,
          () => true,
        )
        // A failure after the commit mark (the last syncs) leaves the change committed.
        const tree = await treeState(root)
        if (failed) expect(tree, `call ${n}`).toEqual(before)
        else expect(paths(tree), `call ${n}`).toEqual(c.after)
        expect(await journalEntries(root), `call ${n}`).not.toContainEqual(
          expect.stringMatching(/\.pending$/),
        )
      }
    })

    it(`recovers ${c.name} from a crash at any call of its commit`, async () => {
      const total = await replaceCalls(c)
      for (let n = 1; n <= total; n++) {
        const { root, steps } = await prepared(c)
        const before = await treeState(root)
        let replacing = false
        let seen = 0
        let crashed = false
        const rec = recordingFs({
          fail: (_call: FsCall) => {
            if (replacing && ++seen === n) crashed = true
            if (crashed) throw new Error('crashed')
            return undefined
          },
        })
        const ctx = contextFor(root, rec.fs, {
          at: (p) => void (p === 'prepared' && (replacing = true)),
        })
        const id = newTransactionId(new Date())
        await runTransaction(ctx, id, steps, SUMMARY).catch(() => undefined)
        const entries = await journalEntries(root)
        if (entries.includes(`${id}.pending`)) {
          const report = await recoverAll(contextFor(root), false)
          expect(report.conflicts, `call ${n}: ${JSON.stringify(report)}`).toEqual([])
          expect(await treeState(root), `call ${n}`).toEqual(before)
        } else expect(paths(await treeState(root)), `call ${n}`).toEqual(c.after)
      }
    })
  }
})
