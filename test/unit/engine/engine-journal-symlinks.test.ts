// Symlinks through the signed journal and its sandbox, where the two meet: a link leading
// outside the root that a transaction deleted is put back, as a link, by undo and by recovery
// (the sandbox resolves a manifest path without following its last component: the journal acts on
// the link, never through it); a manifest that would plant a link is refused and writes nothing
// when it is forged, names a path in .git or beyond a symlinked directory, states a kind other
// than a link, or keeps a backup of the wrong kind (a link where a file was, or the reverse). A
// failure staging a link names the link, never its target string.
import { createHash } from 'node:crypto'
import {
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEngineWithInternals } from '../../../src/engine/engine.js'
import { nodeJournalFs, type JournalFs } from '../../../src/journal/fs.js'
import { signManifest, type Manifest } from '../../../src/journal/manifest.js'
import { keyFileTrust } from '../../../src/journal/trust.js'
import { readableTree, snapshot } from '../../helpers/tree.js'
import { rejection } from '../../helpers/edit-error.js'

const ID = '20261201T120000000Z-forged'
const sha = (text: string) => 'sha256:' + createHash('sha256').update(text).digest('hex')
const linkState = (target: string) => ({ hash: sha(target), permissions: 0o777, kind: 'symlink' })

let base: string
let root: string
let stateDir: string
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'patchloom-journal-links-')))
  root = path.join(base, 'ws')
  stateDir = path.join(base, 'state')
  await mkdir(path.join(root, '.git'), { recursive: true })
  await writeFile(path.join(root, '.git/HEAD'), 'ref: refs/heads/main\n')
  await writeFile(path.join(root, 'a.txt'), 'one\n')
  await writeFile(path.join(base, 'outside.txt'), 'not in the workspace\n')
  // A link leading out of the root, as users have them (say to a shared config).
  await symlink('../outside.txt', path.join(root, 'out'))
})
afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

const engine = () =>
  createEngineWithInternals(
    { root, workers: false, durability: 'fast' },
    { journalStateDir: stateDir },
  )
const codex = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n')
const everything = async () => readableTree(await snapshot(root, { includeState: true }))
const outsideText = () => readFile(path.join(base, 'outside.txt'), 'utf8')

async function entry(rel: string): Promise<{ link: string } | { text: string } | null> {
  const abs = path.join(root, rel)
  const st = await lstat(abs).catch(() => null)
  if (st === null) return null
  if (st.isSymbolicLink()) return { link: await readlink(abs) }
  return { text: await readFile(abs, 'utf8') }
}

/**
 * Plants a pending transaction removing `steps` (each with its backup, a link or a file), signed
 * with this user's key when `signed`: a manifest a bug could have written, to show the sandbox
 * and the validation stand even behind a valid MAC.
 */
async function plant(
  steps: readonly {
    path: string
    before: Record<string, unknown>
    backup: { link: string } | { text: string }
  }[],
  signed: boolean,
): Promise<void> {
  const dir = path.join(root, '.patchloom/journal', `${ID}.pending`)
  await mkdir(path.join(dir, 'old'), { recursive: true })
  const manifest = {
    version: 2,
    id: ID,
    createdAt: '2026-12-01T12:00:00.000Z',
    durability: 'fast',
    summary: { kind: 'apply', files: [] },
    steps: steps.map((s) => ({
      kind: 'remove',
      path: s.path,
      before: s.before,
      after: null,
      createdDirs: [],
    })),
  } as unknown as Manifest
  const written = signed
    ? await signManifest(keyFileTrust(stateDir, root), manifest)
    : { ...manifest, mac: 'ab'.repeat(32) }
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(written, null, 1) + '\n')
  for (const [i, s] of steps.entries()) {
    const backup = path.join(dir, 'old', String(i))
    if ('link' in s.backup) await symlink(s.backup.link, backup)
    else await writeFile(backup, s.backup.text)
  }
}

describe('a link leading outside the root, through the signed journal', () => {
  it('is deleted as a link and undone back to the same link', async () => {
    const e = engine()
    const result = await e.apply(codex('*** Delete File: out'))
    expect(await entry('out')).toBeNull()
    expect(await outsideText()).toBe('not in the workspace\n')
    const manifest = JSON.parse(
      await readFile(
        path.join(root, '.patchloom/journal', result.transaction as string, 'manifest.json'),
        'utf8',
      ),
    ) as Record<string, unknown>
    // The link's kind is part of the signed manifest, not beside it.
    expect(manifest).toMatchObject({
      version: 3,
      mac: expect.stringMatching(/^[0-9a-f]{64}$/),
      steps: [{ kind: 'remove', path: 'out', before: linkState('../outside.txt') }],
    })
    const undo = await e.undo()
    expect(undo.undone).toBe(result.transaction)
    expect(await entry('out')).toEqual({ link: '../outside.txt' })
    expect(await outsideText()).toBe('not in the workspace\n')
    await e.close()
  })

  it('lets recovery of a change interrupted before the link was deleted restore the rest', async () => {
    const e = engine()
    const both = codex('*** Update File: a.txt', '@@', '-one', '+ONE', '*** Delete File: out')
    const result = await e.apply(both)
    await e.close()
    const id = result.transaction as string
    // A crash after a.txt was replaced and before the link was deleted: the manifest names a
    // link that still stands and leads out of the root, and must still pass the sandbox.
    const journal = path.join(root, '.patchloom/journal')
    await rename(path.join(journal, id), path.join(journal, `${id}.pending`))
    await symlink('../outside.txt', path.join(root, 'out'))
    const again = engine()
    const report = await again.recover()
    expect(report).toMatchObject({ rolledBack: [id], conflicts: [] })
    expect(await entry('a.txt')).toEqual({ text: 'one\n' })
    expect(await entry('out')).toEqual({ link: '../outside.txt' })
    expect(await outsideText()).toBe('not in the workspace\n')
    await again.close()
  })

  it('rolls a failed commit back past a link leading out that it had not deleted yet', async () => {
    const at = path.join(root, 'out')
    const fs: JournalFs = {
      ...nodeJournalFs,
      unlink: async (p) => {
        if (p === at)
          throw Object.assign(new Error(`EIO: i/o error, unlink '${p}'`), {
            code: 'EIO',
            syscall: 'unlink',
            path: p,
          })
        return nodeJournalFs.unlink(p)
      },
    }
    const e = createEngineWithInternals(
      { root, workers: false, durability: 'fast' },
      { journalStateDir: stateDir, journalFs: fs },
    )
    const both = codex('*** Update File: a.txt', '@@', '-one', '+ONE', '*** Delete File: out')
    const error = await rejection(e.apply(both))
    expect(error.code).toBe('JOURNAL_COMMIT_FAILED')
    expect(error.path).toBe('out')
    expect(await entry('a.txt')).toEqual({ text: 'one\n' })
    expect(await entry('out')).toEqual({ link: '../outside.txt' })
    expect((await e.recover()).conflicts).toEqual([])
    await e.close()
  })

  it('reports a link put back elsewhere after the delete as an undo conflict, not an unsafe journal', async () => {
    const e = engine()
    await e.apply(codex('*** Delete File: out'))
    await symlink('/etc/passwd', path.join(root, 'out'))
    expect((await rejection(e.undo())).code).toBe('UNDO_CONFLICT')
    expect(await entry('out')).toEqual({ link: '/etc/passwd' })
    await e.close()
  })
})

describe('a failure on a link', () => {
  it('names the link, not its target string, when staging the link fails', async () => {
    // symlink(2) errors carry the target string as `path` and the new link as `dest`; the target
    // names a workspace file here, and is not the file the failure is about.
    const fs: JournalFs = {
      ...nodeJournalFs,
      symlink: async (target, p) => {
        throw Object.assign(new Error(`ENOSPC: no space left on device, symlink`), {
          code: 'ENOSPC',
          syscall: 'symlink',
          path: new TextDecoder().decode(target),
          dest: p,
        })
      },
    }
    const e = createEngineWithInternals(
      { root, workers: false, durability: 'fast' },
      { journalStateDir: stateDir, journalFs: fs },
    )
    const target = path.join(root, 'a.txt')
    const diff = [
      'diff --git a/link b/link',
      'new file mode 120000',
      '--- /dev/null',
      '+++ b/link',
      '@@ -0,0 +1 @@',
      `+${target}`,
      '\\ No newline at end of file',
      '',
    ].join('\n')
    const error = await rejection(e.apply(diff))
    expect(error.code).toBe('JOURNAL_NO_SPACE')
    expect(error.path).toBe('link')
    expect(error.message).not.toContain('a.txt')
    expect(await entry('link')).toBeNull()
    await e.close()
  })
})

describe('a manifest that would plant a link', () => {
  // Makes the key the way a first commit does, so `plant(…, true)` signs with the engine's key.
  async function withKey(): Promise<void> {
    const e = engine()
    await e.apply(codex('*** Update File: a.txt', '@@', '-one', '+ONE'))
    await e.close()
  }

  async function refused(code: string): Promise<void> {
    const before = await everything()
    const e = engine()
    const report = await e.recover()
    expect(report.rolledBack).toEqual([])
    expect(report.conflicts).toEqual([expect.objectContaining({ transaction: ID, code })])
    expect(await everything()).toEqual(before)
    expect(await outsideText()).toBe('not in the workspace\n')
    await e.close()
  }

  it('is refused unsigned: a link into .git/hooks pointing outside the root', async () => {
    await plant(
      [
        {
          path: '.git/hooks/pre-commit',
          before: linkState('/bin/sh'),
          backup: { link: '/bin/sh' },
        },
      ],
      false,
    )
    await refused('JOURNAL_UNTRUSTED')
    expect(await entry('.git/hooks')).toBeNull()
  })

  it('is refused unsigned: a link at an ordinary path pointing outside the root', async () => {
    await plant(
      [{ path: 'evil', before: linkState('../outside.txt'), backup: { link: '../outside.txt' } }],
      false,
    )
    await refused('JOURNAL_UNTRUSTED')
    expect(await entry('evil')).toBeNull()
  })

  it('is refused signed when the link would stand inside .git', async () => {
    await withKey()
    await plant(
      [
        {
          path: '.git/hooks/pre-commit',
          before: linkState('../../evil.sh'),
          backup: { link: '../../evil.sh' },
        },
      ],
      true,
    )
    await refused('JOURNAL_UNSAFE_PATH')
    expect(await entry('.git/hooks')).toBeNull()
  })

  it('is refused signed when the link would stand beyond a symlinked directory', async () => {
    await withKey()
    await mkdir(path.join(base, 'elsewhere'))
    await symlink('../elsewhere', path.join(root, 'sub'))
    await plant([{ path: 'sub/evil', before: linkState('x'), backup: { link: 'x' } }], true)
    await refused('JOURNAL_UNSAFE_PATH')
    expect(await lstat(path.join(base, 'elsewhere/evil')).catch(() => null)).toBeNull()
  })

  it('is refused signed when it states a kind other than a link, or a link with mode bits', async () => {
    await withKey()
    await plant(
      [
        {
          path: 'evil',
          before: { hash: sha('../outside.txt'), permissions: 0o777, kind: 'hardlink' },
          backup: { link: '../outside.txt' },
        },
      ],
      true,
    )
    await refused('JOURNAL_CORRUPT')
    await rm(path.join(root, '.patchloom/journal', `${ID}.pending`), { recursive: true })
    await plant(
      [
        {
          path: 'evil',
          before: { ...linkState('../outside.txt'), permissions: 0o4755 },
          backup: { link: '../outside.txt' },
        },
      ],
      true,
    )
    await refused('JOURNAL_CORRUPT')
    expect(await entry('evil')).toBeNull()
  })

  it('never restores a link where the signed manifest states a regular file', async () => {
    await withKey()
    // The backup's target holds exactly the bytes the manifest names: read through the link,
    // the "file" would pass the hash check and the link would be renamed into the workspace.
    await plant(
      [
        {
          path: 'evil',
          before: { hash: sha('not in the workspace\n'), permissions: 0o644 },
          backup: { link: path.join(base, 'outside.txt') },
        },
      ],
      true,
    )
    const e = engine()
    const report = await e.recover()
    expect(report.conflicts).toEqual([
      expect.objectContaining({ transaction: ID, path: 'evil', reason: expect.any(String) }),
    ])
    expect(await entry('evil')).toBeNull()
    await e.close()
  })

  it('never restores a regular file where the signed manifest states a link', async () => {
    await withKey()
    await plant([{ path: 'evil', before: linkState('payload'), backup: { text: 'payload' } }], true)
    const e = engine()
    const report = await e.recover()
    expect(report.conflicts).toEqual([expect.objectContaining({ transaction: ID, path: 'evil' })])
    expect(await entry('evil')).toBeNull()
    await e.close()
  })
})
