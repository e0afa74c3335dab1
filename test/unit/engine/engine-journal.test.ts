// The engine's side of the journal: transaction ids in results, undo and the log through the
// engine, recovery before the first request, and the durability and journal options.
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEngine, createEngineWithInternals } from '../../../src/engine/engine.js'
import { nodeJournalFs, type JournalFs } from '../../../src/journal/fs.js'
import { rejection } from '../../helpers/edit-error.js'

let root: string
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'patchloom-engine-journal-'))
  await writeFile(path.join(root, 'a.txt'), 'one\ntwo\nthree\n')
  await writeFile(path.join(root, 'b.txt'), 'alpha\nbeta\n')
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const patch = (from: string, to: string, file = 'a.txt') =>
  `*** Begin Patch\n*** Update File: ${file}\n@@\n-${from}\n+${to}\n*** End Patch\n`

const MOVE_AND_ADD = [
  '*** Begin Patch',
  '*** Update File: b.txt',
  '*** Move to: lib/deep/b.txt',
  '@@',
  '-beta',
  '+BETA',
  '*** Add File: new/c.txt',
  '+created',
  '*** Delete File: a.txt',
  '*** End Patch',
].join('\n')

const read = (rel: string) => readFile(path.join(root, rel), 'utf8')
const journal = () => readdir(path.join(root, '.patchloom', 'journal'))

describe('engine and journal', () => {
  it('names the committed transaction in the result, and lists it in the log', async () => {
    const engine = createEngine({ root, workers: false })
    const result = await engine.apply(patch('two', 'TWO'))
    expect(result.transaction).toMatch(/^\d{8}T\d{9}Z-[0-9a-z]{6}$/)
    expect(await journal()).toEqual([result.transaction])
    const [info] = await engine.transactions()
    expect(info).toMatchObject({
      id: result.transaction,
      status: 'committed',
      kind: 'apply',
      additions: 1,
      deletions: 1,
      undoable: true,
      files: [{ path: 'a.txt', op: 'update', additions: 1, deletions: 1 }],
    })
    await engine.close()
  })

  it('gives no transaction for a dry run, and refuses a change that changes nothing', async () => {
    const engine = createEngine({ root, workers: false })
    expect((await engine.check(patch('two', 'TWO'))).transaction).toBeUndefined()
    expect((await rejection(engine.apply(patch('two', 'two')))).code).toBe('PATCH_NO_OP')
    expect(await engine.transactions()).toEqual([])
    await engine.close()
  })

  it('undoes a move, an add and a delete back to the exact bytes, modes and directories', async () => {
    await chmod(path.join(root, 'b.txt'), 0o755)
    const engine = createEngine({ root, workers: false })
    const applied = await engine.apply(MOVE_AND_ADD)
    expect(await read('lib/deep/b.txt')).toBe('alpha\nBETA\n')
    const undone = await engine.undo()
    expect(undone.undone).toBe(applied.transaction)
    expect(undone.files.map((f) => `${f.op} ${f.path}`).sort()).toEqual([
      'remove lib/deep/b.txt',
      'remove new/c.txt',
      'restore a.txt',
      'restore b.txt',
    ])
    expect(await read('a.txt')).toBe('one\ntwo\nthree\n')
    expect(await read('b.txt')).toBe('alpha\nbeta\n')
    expect((await stat(path.join(root, 'b.txt'))).mode & 0o777).toBe(0o755)
    expect((await readdir(root)).sort()).toEqual(['.patchloom', 'a.txt', 'b.txt'])
    const log = await engine.transactions()
    expect(log.map((t) => [t.kind, t.status, t.undoneBy ?? t.undoes])).toEqual([
      ['undo', 'committed', applied.transaction],
      ['apply', 'committed', undone.transaction],
    ])
    await expect(engine.undo(applied.transaction)).rejects.toMatchObject({
      code: 'UNDO_UNAVAILABLE',
    })
    await engine.close()
  })

  it('refuses to undo over a later change, naming the file, and writes nothing', async () => {
    const engine = createEngine({ root, workers: false })
    const first = await engine.apply(patch('two', 'TWO'))
    await writeFile(path.join(root, 'a.txt'), 'edited by hand\n')
    const error = await rejection(engine.undo(first.transaction))
    expect(error).toMatchObject({ code: 'UNDO_CONFLICT', retryable: false, path: 'a.txt' })
    expect(error.message).toMatch(/a\.txt/)
    expect(await read('a.txt')).toBe('edited by hand\n')
    expect(await journal()).toEqual([first.transaction])
    await engine.close()
  })

  it('keeps only the last `keep` transactions', async () => {
    const engine = createEngine({ root, workers: false, journal: { keep: 2 } })
    const ids: (string | undefined)[] = []
    for (const [from, to] of [
      ['two', 'TWO'],
      ['TWO', 'two'],
      ['two', 'zwei'],
    ] as const)
      ids.push((await engine.apply(patch(from, to))).transaction)
    expect((await journal()).sort()).toEqual(ids.slice(1).sort())
    await expect(engine.undo(ids[0])).rejects.toMatchObject({ code: 'UNDO_NOT_FOUND' })
    await engine.close()
  })

  it('rolls back a transaction left pending before it reads any file', async () => {
    // A commit whose mark and rollback both fail leaves a pending transaction behind, with the
    // files in their after state: what a crash at that moment would leave.
    let failing = true
    const fs: JournalFs = {
      ...nodeJournalFs,
      rename: async (from, to) => {
        if (failing && (from.endsWith('.pending') || path.basename(from).startsWith('old.')))
          throw Object.assign(new Error('I/O error'), { code: 'EIO', path: from })
        return nodeJournalFs.rename(from, to)
      },
    }
    const broken = createEngineWithInternals({ root, workers: false }, { journalFs: fs })
    const error = await rejection(broken.apply(patch('two', 'TWO')))
    expect(error.code).toBe('JOURNAL_ROLLBACK_FAILED')
    expect(await read('a.txt')).toBe('one\ntwo\nthree\n'.replace('two', 'TWO'))
    expect((await journal()).some((n) => n.endsWith('.pending'))).toBe(true)
    failing = false
    await broken.close()

    const warnings: string[] = []
    const engine = createEngine({
      root,
      workers: false,
      logger: { debug: () => undefined, warn: (event) => warnings.push(event) },
    })
    // A dry run writes nothing (D-020): it sees the torn file and says recovery is pending.
    const pending = await journal()
    const checked = await engine.check(patch('TWO', 'deux'))
    expect(checked.warnings).toEqual([
      expect.objectContaining({
        code: 'journal.pending',
        path: `.patchloom/journal/${pending[0]}`,
      }),
    ])
    expect(await read('a.txt')).toBe('one\nTWO\nthree\n')
    expect(await journal()).toEqual(pending)
    // The next apply rolls it back before it reads a file, and says so.
    const applied = await engine.apply(patch('two', 'deux'))
    expect(applied.warnings).toEqual([expect.objectContaining({ code: 'journal.recovered' })])
    expect(await read('a.txt')).toBe('one\ndeux\nthree\n')
    expect(await journal()).toEqual([applied.transaction])
    expect(warnings).toEqual(['engine.journal.recovered'])
    await engine.close()
  })

  it('refuses to keep its journal behind a .patchloom symlink', async () => {
    const elsewhere = await mkdtemp(path.join(tmpdir(), 'patchloom-elsewhere-'))
    await symlink(elsewhere, path.join(root, '.patchloom'))
    const engine = createEngine({ root, workers: false })
    const error = await rejection(engine.apply(patch('two', 'TWO')))
    expect(error.code).toBe('JOURNAL_CORRUPT')
    expect(await read('a.txt')).toBe('one\ntwo\nthree\n')
    expect(await readdir(elsewhere)).toEqual([])
    await engine.close()
    await rm(elsewhere, { recursive: true, force: true })
  })

  it('orders commits to one file across engines whose roots nest', async () => {
    await mkdir(path.join(root, 'sub'))
    await writeFile(path.join(root, 'sub/x.txt'), 'x\n')
    const events: string[] = []
    const hooks = (name: string) => ({
      journalHooks: {
        at: (point: string) => {
          if (point === 'locked' || point === 'marked') events.push(`${name} ${point}`)
        },
      },
    })
    const outer = createEngineWithInternals({ root, workers: false }, hooks('outer'))
    const inner = createEngineWithInternals(
      { root: path.join(root, 'sub'), workers: false },
      hooks('inner'),
    )
    const outcomes = await Promise.allSettled([
      outer.apply(patch('x', 'outer', 'sub/x.txt')),
      inner.apply(patch('x', 'inner', 'x.txt')),
    ])
    // Both verified against 'x'; the second to commit finds the file changed, verifies its
    // patch again and finds the line gone.
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected'])
    const rejected = outcomes.find((o) => o.status === 'rejected')
    expect(rejected?.reason).toMatchObject({ code: 'MATCH_NOT_FOUND' })
    const first = events[0]?.split(' ')[0]
    expect(events.slice(0, 2)).toEqual([`${first} locked`, `${first} marked`])
    await Promise.all([outer.close(), inner.close()])
  })

  it('validates durability and journal options', () => {
    expect(() => createEngine({ root, durability: 'sometimes' as never })).toThrow(/durability/)
    expect(() => createEngine({ root, journal: { keep: -1 } })).toThrow(/journal\.keep/)
    expect(() => createEngine({ root, journal: { other: 1 } as never })).toThrow(/journal\.other/)
  })

  it('commits with durability fast exactly as with full', async () => {
    const engine = createEngine({ root, workers: false, durability: 'fast' })
    const result = await engine.apply(MOVE_AND_ADD)
    expect(await read('new/c.txt')).toBe('created\n')
    expect(await journal()).toEqual([result.transaction])
    await engine.close()
  })
})
