import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEngine, createEngineWithInternals } from '../../../src/engine/engine.js'
import type { ApprovalRequest } from '../../../src/engine/api.js'
import { EditError } from '../../../src/errors.js'
import { hashBytes } from '../../../src/hash.js'
import { nodeJournalFs, type JournalFs } from '../../../src/journal/fs.js'
import { rejection } from '../../helpers/edit-error.js'

let root: string
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'patchloom-engine-'))
  await writeFile(path.join(root, 'a.txt'), 'one\ntwo\nthree\n')
  await writeFile(path.join(root, 'b.txt'), 'alpha\nbeta\n')
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const TWO_FILES = [
  '*** Begin Patch',
  '*** Update File: a.txt',
  '@@',
  '-two',
  '+TWO',
  '*** Update File: b.txt',
  '@@',
  '-beta',
  '+BETA',
  '*** End Patch',
].join('\n')

const read = (rel: string) => readFile(path.join(root, rel), 'utf8')

describe('createEngine', () => {
  it('rejects invalid options with CONFIG_INVALID', () => {
    expect(() => createEngine({ root: '' })).toThrow(EditError)
    expect(() => createEngine({ root, workers: { maxThreads: 0 } })).toThrow(/maxThreads/)
    expect(() => createEngine({ root, denyGlobs: [''] })).toThrow(/denyGlobs/)
  })

  it('rejects a root that is not a directory on first use', async () => {
    const engine = createEngine({ root: path.join(root, 'a.txt'), workers: false })
    await expect(engine.apply(TWO_FILES)).rejects.toMatchObject({ code: 'CONFIG_INVALID' })
  })

  it('rejects an unknown format option', async () => {
    const engine = createEngine({ root, workers: false })
    await expect(engine.apply(TWO_FILES, { format: 'rtf' as never })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    })
  })
})

describe('EditEngine.apply', () => {
  it('reports every file with hashes and a git-style diff', async () => {
    const engine = createEngine({ root, workers: false })
    const result = await engine.apply(TWO_FILES)
    expect(result).toMatchObject({ format: 'codex', dryRun: false, warnings: [] })
    expect(result).not.toHaveProperty('ok')
    expect(result.files.map((f) => [f.path, f.op, f.additions, f.deletions])).toEqual([
      ['a.txt', 'update', 1, 1],
      ['b.txt', 'update', 1, 1],
    ])
    expect(result.files[0]?.beforeHash).toBe(
      hashBytes(new TextEncoder().encode('one\ntwo\nthree\n')),
    )
    expect(result.files[0]?.afterHash).toBe(
      hashBytes(new TextEncoder().encode('one\nTWO\nthree\n')),
    )
    expect(result.files[0]?.diff).toContain(
      'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n',
    )
    expect(await read('a.txt')).toBe('one\nTWO\nthree\n')
  })

  it('writes nothing on a dry run or check, and reports the same files', async () => {
    const engine = createEngine({ root, workers: false })
    const dry = await engine.apply(TWO_FILES, { dryRun: true })
    const checked = await engine.check(TWO_FILES)
    expect(dry.dryRun).toBe(true)
    expect(checked).toEqual(dry)
    expect(await read('a.txt')).toBe('one\ntwo\nthree\n')
  })

  it('shows the approve callback every diff before writing, and honours a refusal', async () => {
    const seen: ApprovalRequest[] = []
    const engine = createEngine({
      root,
      workers: false,
      approve: (request) => {
        seen.push(request)
        return false
      },
    })
    await expect(engine.apply(TWO_FILES)).rejects.toMatchObject({
      code: 'APPROVAL_DENIED',
      retryable: false,
    })
    expect(seen).toHaveLength(1)
    expect(seen[0]?.files.map((f) => f.diff.includes('+TWO') || f.diff.includes('+BETA'))).toEqual([
      true,
      true,
    ])
    expect(await read('a.txt')).toBe('one\ntwo\nthree\n')
    // A per-request approve overrides the engine's.
    await engine.apply(TWO_FILES, { approve: async () => true })
    expect(await read('b.txt')).toBe('alpha\nBETA\n')
  })

  it('catches a file changed between verification and commit with FILE_CHANGED and writes nothing', async () => {
    const engine = createEngine({
      root,
      workers: false,
      // Runs after verification, before commit: the window a concurrent writer would use.
      approve: async () => {
        await writeFile(path.join(root, 'b.txt'), 'alpha\nbeta\ngamma\n')
        return true
      },
    })
    const error = await rejection(engine.apply(TWO_FILES))
    expect(error).toMatchObject({ code: 'FILE_CHANGED', retryable: true, path: 'b.txt' })
    expect(error.currentHash).toBe(hashBytes(new TextEncoder().encode('alpha\nbeta\ngamma\n')))
    expect(await read('a.txt')).toBe('one\ntwo\nthree\n')
  })

  it('restores files already written when replacing a later one fails during commit', async () => {
    let renames = 0
    const journalFs: JournalFs = {
      ...nodeJournalFs,
      rename: async (from, to) => {
        // Renames: manifest.json.tmp -> manifest.json, then a.txt, then b.txt.
        if (to.endsWith('b.txt') && ++renames === 1)
          throw Object.assign(new Error('read-only'), { code: 'EROFS', path: to })
        return nodeJournalFs.rename(from, to)
      },
    }
    const engine = createEngineWithInternals({ root, workers: false }, { journalFs })
    const error = await rejection(engine.apply(TWO_FILES))
    expect(error).toMatchObject({ code: 'JOURNAL_READ_ONLY', retryable: false })
    expect(error.message).toMatch(/rolled back; no file was changed/)
    expect(await read('a.txt')).toBe('one\ntwo\nthree\n')
    expect(await read('b.txt')).toBe('alpha\nbeta\n')
    expect((await readdir(root)).sort()).toEqual(['.patchloom', 'a.txt', 'b.txt'])
    expect(await readdir(path.join(root, '.patchloom/journal'))).toEqual([])
  })

  it('applies the change but warns journal.not-durable when the sync after the commit mark fails', async () => {
    let marked = false
    const journalFs: JournalFs = {
      ...nodeJournalFs,
      rename: async (from, to) => {
        await nodeJournalFs.rename(from, to)
        if (from.endsWith('.pending')) marked = true
      },
      syncDir: async (p) => {
        if (marked) throw Object.assign(new Error('i/o error'), { code: 'EIO', path: p })
        return nodeJournalFs.syncDir(p)
      },
    }
    const engine = createEngineWithInternals({ root, workers: false }, { journalFs })
    const result = await engine.apply(TWO_FILES)
    expect(result.transaction).toBeDefined()
    expect(await read('a.txt')).toBe('one\nTWO\nthree\n')
    expect(result.warnings.map((w) => w.code)).toEqual(['journal.not-durable'])
  })

  it('writes nothing when staging the new contents fails (ENOSPC), and leaves no staging file', async () => {
    let writes = 0
    const journalFs: JournalFs = {
      ...nodeJournalFs,
      writeNew: async (p, data, permissions, sync) => {
        if (++writes === 2) throw Object.assign(new Error('no space'), { code: 'ENOSPC' })
        return nodeJournalFs.writeNew(p, data, permissions, sync)
      },
    }
    const engine = createEngineWithInternals({ root, workers: false }, { journalFs })
    const error = await rejection(engine.apply(TWO_FILES))
    expect(error).toMatchObject({ code: 'JOURNAL_NO_SPACE', retryable: true })
    expect(error.message).toMatch(/\(ENOSPC\); nothing was changed/)
    expect(await read('a.txt')).toBe('one\ntwo\nthree\n')
    expect((await readdir(root)).sort()).toEqual(['.patchloom', 'a.txt', 'b.txt'])
    expect(await readdir(path.join(root, '.patchloom/journal'))).toEqual([])
  })

  it('refuses a stale expected_hash on JSON edits as FILE_HASH_MISMATCH with the current hash', async () => {
    const engine = createEngine({ root, workers: false })
    const current = hashBytes(new TextEncoder().encode('alpha\nbeta\n'))
    const stale = 'sha256:' + '0'.repeat(64)
    const edit = (hash: string) =>
      JSON.stringify({
        edits: [{ path: 'b.txt', old_string: 'beta', new_string: 'BETA', expected_hash: hash }],
      })
    // A stale hash fails on every resend: not retryable, unlike a race at commit.
    await expect(engine.apply(edit(stale))).rejects.toMatchObject({
      code: 'FILE_HASH_MISMATCH',
      retryable: false,
      currentHash: current,
    })
    await engine.apply(edit(current))
    expect(await read('b.txt')).toBe('alpha\nBETA\n')
  })

  it('serialises commits of concurrent requests on one engine', async () => {
    const engine = createEngine({ root, workers: false })
    const patches = Array.from({ length: 8 }, (_, i) =>
      JSON.stringify({ edits: [{ path: `n${i}.txt`, mode: 'write', content: `${i}\n` }] }),
    )
    const results = await Promise.all(patches.map((p) => engine.apply(p)))
    expect(results.every((r) => r.files[0]?.op === 'add')).toBe(true)
    for (let i = 0; i < 8; i++) expect(await read(`n${i}.txt`)).toBe(`${i}\n`)
  })

  it('lets exactly one of two racing edits to the same file win and never merges them', async () => {
    const engine = createEngine({ root, workers: false })
    const edit = (to: string) =>
      JSON.stringify({ edits: [{ path: 'a.txt', old_string: 'two', new_string: to }] })
    const outcomes = await Promise.allSettled([engine.apply(edit('2a')), engine.apply(edit('2b'))])
    const rejected = outcomes.filter((o) => o.status === 'rejected')
    expect(rejected).toHaveLength(1)
    // FILE_CHANGED when both verified before either committed (the usual case), MATCH_NOT_FOUND
    // when the loser read the winner's result; either way the loser wrote nothing.
    expect(['FILE_CHANGED', 'MATCH_NOT_FOUND']).toContain(
      (rejected[0] as PromiseRejectedResult).reason.code,
    )
    expect(['one\n2a\nthree\n', 'one\n2b\nthree\n']).toContain(await read('a.txt'))
  })

  it('reports requests to the logger with dotted event names', async () => {
    const events: [string, Record<string, unknown> | undefined][] = []
    const logger = {
      debug: (event: string, fields?: Record<string, unknown>) => events.push([event, fields]),
      warn: (event: string, fields?: Record<string, unknown>) => events.push([event, fields]),
    }
    const engine = createEngine({ root, workers: false, logger })
    await engine.check(TWO_FILES)
    await engine.apply(TWO_FILES)
    await engine.apply(TWO_FILES).catch(() => undefined)
    expect(events.map(([event]) => event)).toEqual([
      'engine.request.verified',
      'engine.request.committed',
      'engine.request.rejected',
    ])
    expect(events[1]?.[1]).toMatchObject({ format: 'codex', files: 2 })
    // The verify phase's own wall time, within the request's (bench/large.bench.ts reads it).
    const { ms, verifyMs } = events[1]?.[1] as { ms: number; verifyMs: number }
    expect(verifyMs).toBeGreaterThanOrEqual(0)
    expect(verifyMs).toBeLessThanOrEqual(ms)
    expect(events[2]?.[1]).toMatchObject({ code: 'MATCH_NOT_FOUND', path: 'a.txt' })
  })

  it('refuses to run after close()', async () => {
    const engine = createEngine({ root, workers: false })
    await engine.close()
    await expect(engine.apply(TWO_FILES)).rejects.toThrow(/after close/)
  })
})
