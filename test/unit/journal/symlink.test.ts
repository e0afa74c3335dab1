// Symlink steps through the journal: a link is staged and backed up as a link (never
// a hard link or a copy of what it points to), a failed commit and undo put the link back as a
// link with its target string, and a link retargeted after verification stops the commit.
import { symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { lstat, readFile, readlink, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { hashBytes } from '../../../src/hash.js'
import {
  decodeManifest,
  encodeManifest,
  MANIFEST_VERSION,
  type Manifest,
} from '../../../src/journal/manifest.js'
import type { CommitStep, FileState } from '../../../src/journal/records.js'
import {
  editError,
  enc,
  FAULT_METHODS,
  journalFor,
  linkState,
  recordingFs,
  summaryOf,
  tempWorkspace,
  treeState,
  writeLink,
  type FsMethod,
} from './fixtures.js'
import { journalEntries } from '../../helpers/tree.js'

async function entry(abs: string): Promise<{ link: string } | { text: string } | null> {
  const st = await lstat(abs).catch(() => null)
  if (st === null) return null
  if (st.isSymbolicLink()) return { link: await readlink(abs) }
  return { text: await readFile(abs, 'utf8') }
}

/** real.txt (a file) and alias.txt -> real.txt. */
async function workspace(): Promise<string> {
  const { root } = await tempWorkspace()
  await writeFile(path.join(root, 'real.txt'), 'real\n')
  await symlink('real.txt', path.join(root, 'alias.txt'))
  return root
}

const removeLink = (root: string): CommitStep => ({
  kind: 'remove',
  abs: path.join(root, 'alias.txt'),
  rel: 'alias.txt',
  before: linkState('real.txt'),
})

describe('journal symlink steps', () => {
  it('removes a link, keeps its backup as a link, and undo restores the link', async () => {
    const root = await workspace()
    const journal = journalFor(root)
    const id = await journal.commit(
      [removeLink(root)],
      summaryOf([{ path: 'alias.txt', op: 'delete' }]),
    )
    expect(await entry(path.join(root, 'alias.txt'))).toBe(null)
    expect(await entry(path.join(root, 'real.txt'))).toEqual({ text: 'real\n' })
    const backup = path.join(root, '.patchloom/journal', id as string, 'old.0')
    expect(await entry(backup)).toEqual({ link: 'real.txt' })
    await journal.undo(id)
    expect(await entry(path.join(root, 'alias.txt'))).toEqual({ link: 'real.txt' })
  })

  it('writes a new link from its target bytes, recorded as kind symlink in the manifest', async () => {
    const root = await workspace()
    const journal = journalFor(root)
    const id = await journal.commit(
      [writeLink(root, 'sub/new-link', '../real.txt')],
      summaryOf([{ path: 'sub/new-link', op: 'add' }]),
    )
    expect(await entry(path.join(root, 'sub/new-link'))).toEqual({ link: '../real.txt' })
    const manifest = decodeManifest(
      await readFile(path.join(root, '.patchloom/journal', id as string, 'manifest.json')),
    ) as Manifest
    expect(manifest.steps[0]?.after).toEqual(linkState('../real.txt'))
    await journal.undo(id)
    expect(await entry(path.join(root, 'sub'))).toBe(null)
  })

  it('rolls a failed commit back with the link restored as a link', async () => {
    const root = await workspace()
    const journal = journalFor(root, {
      hooks: {
        at: (point, index) => {
          if (point === 'replaced' && index === 1) throw new Error('injected failure')
        },
      },
    })
    const steps: CommitStep[] = [removeLink(root), writeLink(root, 'moved/alias.txt', 'real.txt')]
    const error = await editError(
      journal.commit(steps, summaryOf([{ path: 'alias.txt', op: 'update' }])),
    )
    expect(error.code).toBe('JOURNAL_COMMIT_FAILED')
    expect(await entry(path.join(root, 'moved'))).toBe(null)
    expect(await entry(path.join(root, 'alias.txt'))).toEqual({ link: 'real.txt' })
    expect(await entry(path.join(root, 'real.txt'))).toEqual({ text: 'real\n' })
  })

  it('replaces a file by a link in one step and undo brings the file back', async () => {
    const root = await workspace()
    const before: FileState = { hash: hashBytes(enc('real\n')), permissions: 0o644 }
    const journal = journalFor(root)
    const id = await journal.commit(
      [{ ...writeLink(root, 'real.txt', 'alias.txt'), before }],
      summaryOf([{ path: 'real.txt', op: 'update' }]),
    )
    expect(await entry(path.join(root, 'real.txt'))).toEqual({ link: 'alias.txt' })
    await journal.undo(id)
    expect(await entry(path.join(root, 'real.txt'))).toEqual({ text: 'real\n' })
  })

  it('refuses to remove a link retargeted after it was backed up, changing nothing', async () => {
    const root = await workspace()
    writeFileSync(path.join(root, 'other.txt'), 'other\n')
    const alias = path.join(root, 'alias.txt')
    const journal = journalFor(root, {
      hooks: {
        at: (point) => {
          if (point !== 'prepared') return
          unlinkSync(alias)
          symlinkSync('other.txt', alias)
        },
      },
    })
    const error = await editError(
      journal.commit([removeLink(root)], summaryOf([{ path: 'alias.txt', op: 'delete' }])),
    )
    expect(error.code).toBe('FILE_CHANGED')
    expect(await entry(alias)).toEqual({ link: 'other.txt' })
  })

  it('refuses to back up a link that points elsewhere than verified', async () => {
    const root = await workspace()
    const step = { ...removeLink(root), before: linkState('elsewhere.txt') }
    const error = await editError(
      journalFor(root).commit([step], summaryOf([{ path: 'alias.txt', op: 'delete' }])),
    )
    expect(error.code).toBe('FILE_CHANGED')
    expect(await entry(path.join(root, 'alias.txt'))).toEqual({ link: 'real.txt' })
  })

  it('refuses a link step when a regular file stands there instead', async () => {
    const root = await workspace()
    const error = await editError(
      journalFor(root).commit(
        [{ ...removeLink(root), abs: path.join(root, 'real.txt'), rel: 'real.txt' }],
        summaryOf([{ path: 'real.txt', op: 'delete' }]),
      ),
    )
    expect(error.code).toBe('FILE_CHANGED')
    expect(await entry(path.join(root, 'real.txt'))).toEqual({ text: 'real\n' })
  })

  it('reads kind symlink in a manifest and rejects an unknown kind', () => {
    const manifest: Manifest = {
      version: MANIFEST_VERSION,
      id: '20261201T120000000Z-abcdef',
      createdAt: '2026-12-01T12:00:00.000Z',
      durability: 'full',
      summary: summaryOf([{ path: 'l', op: 'add' }]),
      steps: [{ kind: 'write', path: 'l', before: null, after: linkState('x'), createdDirs: [] }],
    }
    expect(decodeManifest(encodeManifest(manifest))).toEqual(manifest)
    const bogus = new TextEncoder().encode(
      new TextDecoder().decode(encodeManifest(manifest)).replace('"symlink"', '"fifo"'),
    )
    expect(decodeManifest(bogus)).toBe('step 0: bad after state')
  })

  it('ends exactly before or exactly after when any filesystem call of a link change fails', async () => {
    // Remove a link, create one in a new directory, replace a file by a link.
    const stepsFor = (root: string): CommitStep[] => [
      removeLink(root),
      writeLink(root, 'sub/new-link', '../real.txt'),
      {
        ...writeLink(root, 'real.txt', 'sub/new-link'),
        before: { hash: hashBytes(enc('real\n')), permissions: 0o644 },
      },
    ]
    const summary = summaryOf([{ path: 'alias.txt', op: 'delete' }])
    const clean = await workspace()
    const before = await treeState(clean)
    const counted = recordingFs()
    await journalFor(clean, { fs: counted.fs }).commit(stepsFor(clean), summary)
    const after = await treeState(clean)
    expect(after).not.toEqual(before)
    // Links are staged and backed up with symlink() and readlink(), never link() or copyNew().
    expect(counted.calls.symlink).toBeGreaterThanOrEqual(3)
    expect(counted.calls.readlink).toBeGreaterThanOrEqual(2)
    const methods: FsMethod[] = [...FAULT_METHODS, 'symlink', 'readlink']
    const outcomes = new Set<string>()
    for (const method of methods) {
      for (let nth = 1; nth <= counted.calls[method]; nth++) {
        const root = await workspace()
        const faulty = recordingFs({
          fail: (call) => (call.method === method && call.nth === nth ? 'ENOSPC' : undefined),
        })
        const label = `${method} #${nth}`
        const outcome = await journalFor(root, { fs: faulty.fs })
          .commit(stepsFor(root), summary)
          .then(
            () => 'committed',
            (error: unknown) => (error as { code?: string }).code ?? String(error),
          )
        outcomes.add(outcome)
        if (outcome === 'JOURNAL_ROLLBACK_FAILED') await journalFor(root).recover()
        const tree = await treeState(root)
        expect(tree, label).toEqual(outcome === 'committed' ? after : before)
        const pending = (await journalEntries(root)).filter((e) => e.endsWith('.pending'))
        expect(pending, label).toEqual([])
      }
    }
    expect([...outcomes]).toEqual(expect.arrayContaining(['JOURNAL_NO_SPACE']))
  })

  it('recovers an interrupted link change whose rollback failed too, links back as links', async () => {
    const root = await workspace()
    const before = await treeState(root)
    let broken = false
    const faulty = recordingFs({
      fail: (call) => {
        const [, to] = call.args.map(String)
        if (call.method === 'rename' && to === path.join(root, 'real.txt')) broken = true
        return broken && (call.method === 'rename' || call.method === 'unlink') ? 'EIO' : undefined
      },
    })
    const steps: CommitStep[] = [
      removeLink(root),
      writeLink(root, 'sub/new-link', '../real.txt'),
      {
        ...writeLink(root, 'real.txt', 'sub/new-link'),
        before: { hash: hashBytes(enc('real\n')), permissions: 0o644 },
      },
    ]
    const error = await editError(
      journalFor(root, { fs: faulty.fs }).commit(steps, summaryOf([{ path: 'x', op: 'update' }])),
    )
    expect(error.code).toBe('JOURNAL_ROLLBACK_FAILED')
    expect((await journalEntries(root)).some((e) => e.endsWith('.pending'))).toBe(true)
    const report = await journalFor(root).recover()
    expect(report.conflicts).toEqual([])
    expect(await treeState(root)).toEqual(before)
    expect(await entry(path.join(root, 'alias.txt'))).toEqual({ link: 'real.txt' })
  })
})
