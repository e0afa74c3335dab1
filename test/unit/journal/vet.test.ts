// Which transactions the journal acts on: only those this workspace's engine signed, whose
// every path passes the sandbox. Anything else is refused with a code, reported with the
// directory to delete, and never written to; a transaction whose rollback fails is reported, not
// thrown, so later commits of other files still work.
import { existsSync } from 'node:fs'
import { mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { EditError } from '../../../src/errors.js'
import { hashBytes } from '../../../src/hash.js'
import {
  encodeManifest,
  signManifest,
  type Manifest,
  type SignedManifest,
} from '../../../src/journal/manifest.js'
import { fixedKeyTrust } from '../../../src/journal/trust.js'
import { journalEntries, readableTree, snapshot } from '../../helpers/tree.js'
import {
  editError,
  enc,
  journalFor,
  quietJournalFs,
  removeStep,
  summaryOf,
  tempWorkspace,
  testTrust,
  writeFiles,
  writeStep,
} from './fixtures.js'

const ID = '20261130T120000000Z-abcdef'
const SCRIPT = '#!/bin/sh\necho owned\n'

/** A pending removal of `rel` whose backup holds `text`: recovery would create `rel`. */
function removal(rel: string, text: string): Manifest {
  return {
    version: 2,
    id: ID,
    createdAt: '2026-11-30T12:00:00.000Z',
    durability: 'full',
    summary: summaryOf([{ path: rel, op: 'delete' }]),
    steps: [
      {
        kind: 'remove',
        path: rel,
        before: { hash: hashBytes(enc(text)), permissions: 0o755 },
        after: null,
        createdDirs: [],
      },
    ],
  }
}

async function plant(
  root: string,
  manifest: Manifest | SignedManifest,
  text: string,
  suffix = '.pending',
): Promise<string> {
  const dir = path.join(root, '.patchloom/journal', ID + suffix)
  await mkdir(path.join(dir, 'old'), { recursive: true })
  await writeFile(path.join(dir, 'manifest.json'), encodeManifest(manifest))
  await writeFile(path.join(dir, 'old/0'), text)
  return dir
}

const everything = async (root: string) =>
  readableTree(await snapshot(root, { includeState: true }))

describe('recovery refuses a transaction it cannot verify', () => {
  const UNTRUSTED: [
    string,
    (root: string, parent: string) => Promise<SignedManifest | Manifest>,
  ][] = [
    [
      'signed with another key',
      async (root) =>
        signManifest(fixedKeyTrust(new Uint8Array(32).fill(9), root), removal('x.sh', SCRIPT)),
    ],
    [
      'signed for another workspace (a copied journal)',
      async (_root, parent) =>
        signManifest(testTrust(path.join(parent, 'elsewhere')), removal('x.sh', SCRIPT)),
    ],
    [
      'unsigned (version 1, written before signing)',
      async () => ({
        ...removal('x.sh', SCRIPT),
        version: 1 as never,
      }),
    ],
    [
      'signed, then edited',
      async (root) => {
        const signed = await signManifest(testTrust(root), removal('x.sh', 'harmless\n'))
        return { ...signed, steps: removal('x.sh', SCRIPT).steps }
      },
    ],
  ]
  for (const [what, make] of UNTRUSTED) {
    it(`refuses one ${what} with JOURNAL_UNTRUSTED, writes nothing, and lets commits go on`, async () => {
      const { root, parent } = await tempWorkspace()
      await writeFiles(root, { 'a.txt': 'a\n' })
      await plant(root, await make(root, parent), SCRIPT)
      const before = await everything(root)
      const journal = journalFor(root)

      const report = await journal.recover()
      expect(report.rolledBack).toEqual([])
      expect(report.conflicts).toEqual([
        expect.objectContaining({
          transaction: ID,
          code: 'JOURNAL_UNTRUSTED',
          path: `.patchloom/journal/${ID}.pending`,
          reason: expect.stringContaining(`delete .patchloom/journal/${ID}.pending`),
        }),
      ])
      expect(await everything(root)).toEqual(before)
      expect(await journal.beforeRequest(true)).toEqual([
        expect.objectContaining({ code: 'journal.untrusted' }),
      ])
      expect(await journal.beforeRequest(false)).toEqual([
        expect.objectContaining({ code: 'journal.untrusted' }),
      ])
      expect(await everything(root)).toEqual(before)

      const id = await journal.commit([await writeStep(root, 'a.txt', 'A\n')], summaryOf([]))
      expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('A\n')
      expect(existsSync(path.join(root, 'x.sh'))).toBe(false)
      expect(await journalEntries(root)).toEqual([id, `${ID}.pending`].sort())
      const log = await journal.list()
      expect(log.find((t) => t.id === ID)).toMatchObject({ untrusted: true, files: [] })
    })
  }

  it('refuses to undo a committed transaction it did not sign', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'x.sh': 'mine\n' })
    const forged = removal('x.sh', SCRIPT)
    await plant(root, { ...forged, steps: [{ ...forged.steps[0]!, after: null }] }, SCRIPT, '')
    await rm(path.join(root, 'x.sh'))
    const error = await editError(journalFor(root).undo(ID))
    expect(error.code).toBe('JOURNAL_UNTRUSTED')
    expect(existsSync(path.join(root, 'x.sh'))).toBe(false)
    // Nor is it the default target of a plain `patchloom undo`.
    expect((await editError(journalFor(root).undo())).code).toBe('UNDO_NOT_FOUND')
  })
})

describe('recovery and undo go through the sandbox', () => {
  it('never writes into .git, even for a transaction it signed', async () => {
    const { root } = await tempWorkspace()
    await mkdir(path.join(root, '.git'))
    await plant(
      root,
      await signManifest(testTrust(root), removal('.git/hooks/pre-commit', SCRIPT)),
      SCRIPT,
    )
    const before = await everything(root)
    const report = await journalFor(root).recover()
    expect(report.conflicts[0]).toMatchObject({
      code: 'JOURNAL_UNSAFE_PATH',
      reason: expect.stringContaining('.git/hooks/pre-commit is inside a .git directory'),
    })
    expect(await everything(root)).toEqual(before)
  })

  it("applies the engine's check to every path, and refuses on its verdict", async () => {
    const { root } = await tempWorkspace()
    await plant(
      root,
      await signManifest(testTrust(root), removal('secrets/key.pem', SCRIPT)),
      SCRIPT,
    )
    const checked: string[] = []
    const journal = journalFor(root, {
      checkPath: async (rel) => {
        checked.push(rel)
        if (rel.startsWith('secrets/'))
          throw new EditError('PATH_DENIED', `${rel} is protected by the deny rule "secrets/**".`)
      },
    })
    const report = await journal.recover()
    expect(checked).toEqual(['secrets/key.pem'])
    expect(report.conflicts[0]).toMatchObject({
      code: 'JOURNAL_UNSAFE_PATH',
      reason: expect.stringContaining('PATH_DENIED'),
    })
    expect(existsSync(path.join(root, 'secrets'))).toBe(false)
  })

  it('does not restore through a directory that became a symlink, and does not brick', async () => {
    const { root, parent } = await tempWorkspace()
    await writeFiles(root, { 'sub/three.txt': '3\n', 'other.txt': 'o\n' })
    await mkdir(path.join(parent, 'outside'))
    const journal = journalFor(root)
    const id = await journal.commit([await removeStep(root, 'sub/three.txt')], summaryOf([]))
    // sub/ is pruned with its last file; a symlink to outside the workspace takes its place.
    await symlink(path.join(parent, 'outside'), path.join(root, 'sub'))
    // The same transaction, interrupted: recovery would restore sub/three.txt through the link.
    await rename(
      path.join(root, '.patchloom/journal', id as string),
      path.join(root, '.patchloom/journal', `${id}.pending`),
    )
    const report = await journal.recover()
    expect(report.conflicts[0]).toMatchObject({
      code: 'JOURNAL_UNSAFE_PATH',
      reason: expect.stringContaining('goes through sub, which is a symlink'),
    })
    expect(await readFileOrNull(path.join(parent, 'outside/three.txt'))).toBeNull()
    // Later commits and recoveries still work; the refusal is reported each time.
    await journal.commit([await writeStep(root, 'other.txt', 'O\n')], summaryOf([]))
    expect(await readFile(path.join(root, 'other.txt'), 'utf8')).toBe('O\n')
    expect((await journal.recover()).conflicts[0]?.code).toBe('JOURNAL_UNSAFE_PATH')
  })

  it('refuses an undo through a directory that became a symlink, and later undos still work', async () => {
    const { root, parent } = await tempWorkspace()
    await writeFiles(root, { 'sub/three.txt': '3\n', 'other.txt': 'o\n' })
    await mkdir(path.join(parent, 'outside'))
    const journal = journalFor(root)
    const first = await journal.commit([await removeStep(root, 'sub/three.txt')], summaryOf([]))
    await symlink(path.join(parent, 'outside'), path.join(root, 'sub'))
    const error = await editError(journal.undo(first))
    expect(error.code).toBe('JOURNAL_UNSAFE_PATH')
    expect(await readFileOrNull(path.join(parent, 'outside/three.txt'))).toBeNull()
    expect((await journalEntries(root)).filter((n) => n.endsWith('.pending'))).toEqual([])
    await journal.commit([await writeStep(root, 'other.txt', 'O\n')], summaryOf([]))
    await journal.undo()
    expect(await readFile(path.join(root, 'other.txt'), 'utf8')).toBe('o\n')
  })
})

describe('an undo through a symlinked directory (it must not brick the workspace)', () => {
  it('is refused with nothing written, and later commits, undos and recoveries work', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'sub/x.txt': 'x\n', 'other.txt': 'o\n' })
    await symlink('sub', path.join(root, 'link'))
    const journal = journalFor(root)
    // A change that created link/d/new.txt, spelled through the symlinked directory.
    const abs = path.join(root, 'link/d/new.txt')
    await journal.commit(
      [
        {
          kind: 'write',
          abs,
          rel: 'link/d/new.txt',
          bytes: enc('new\n'),
          permissions: 0o644,
          before: null,
        },
      ],
      summaryOf([{ path: 'link/d/new.txt', op: 'add' }]),
    )
    const before = await everything(root)
    const error = await editError(journal.undo())
    expect(error.code).toBe('JOURNAL_UNSAFE_PATH')
    expect(error.message).toContain('goes through link, which is a symlink')
    expect(await everything(root)).toEqual(before)
    // Nothing left pending, nothing thrown later.
    expect(await journal.beforeRequest(false)).toEqual([])
    await journal.commit([await writeStep(root, 'other.txt', 'O\n')], summaryOf([]))
    expect(await journal.recover()).toEqual({ rolledBack: [], conflicted: [], conflicts: [] })
    await journal.undo()
    expect(await readFile(path.join(root, 'other.txt'), 'utf8')).toBe('o\n')
  })
})

describe('a rollback that fails', () => {
  it("is reported with a code naming the user's file, never thrown, and the next recover finishes it", async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'sub/three.txt': '3\n', 'other.txt': 'o\n' })
    const id = await journalFor(root).commit(
      [await writeStep(root, 'sub/three.txt', 'THREE\n')],
      summaryOf([]),
    )
    await rename(
      path.join(root, '.patchloom/journal', id as string),
      path.join(root, '.patchloom/journal', `${id}.pending`),
    )
    let failing = true
    const journal = journalFor(root, {
      fs: {
        ...quietJournalFs,
        rename: async (from, to) => {
          if (failing && to.endsWith(path.join('sub', 'three.txt')))
            throw Object.assign(new Error('EACCES: permission denied'), {
              code: 'EACCES',
              path: from,
              dest: to,
            })
          return quietJournalFs.rename(from, to)
        },
      },
    })
    const notices = await journal.beforeRequest(false)
    expect(notices).toEqual([
      expect.objectContaining({ code: 'journal.permission-denied', path: 'sub/three.txt' }),
    ])
    expect(notices[0]?.message).toContain('sub/three.txt')
    expect(notices[0]?.message).not.toContain('old/0')
    await journal.commit([await writeStep(root, 'other.txt', 'O\n')], summaryOf([]))
    failing = false
    expect((await journal.recover()).rolledBack).toEqual([id])
    expect(await readFile(path.join(root, 'sub/three.txt'), 'utf8')).toBe('3\n')
  })
})

async function readFileOrNull(p: string): Promise<string | null> {
  return readFile(p, 'utf8').catch(() => null)
}
