// Two requests to one file at once: the second was verified before the first committed, so its
// commit finds the file changed. Without a pinned hash, and where its change and the other one
// touch lines far apart, the engine verifies it again on the new content and both land;
// otherwise it is refused, with the error of that verification or FILE_CHANGED.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEngine } from '../../../src/engine/engine.js'
import type { ApplyOptions, Engine } from '../../../src/engine/api.js'
import { COMMIT_ATTEMPTS } from '../../../src/engine/rebase.js'
import { hashBytes } from '../../../src/hash.js'
import type { ApplyResult } from '../../../src/types.js'

const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('')
const BASE = lines(12)

let root: string
let engine: Engine
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'patchloom-rebase-'))
  await writeFile(path.join(root, 'a.txt'), BASE)
  engine = createEngine({ root, workers: false, durability: 'fast' })
})
afterEach(async () => {
  await engine.close()
  await rm(root, { recursive: true, force: true })
})

const read = () => readFile(path.join(root, 'a.txt'), 'utf8')

function edit(fields: Record<string, unknown>): string {
  return JSON.stringify({ edits: [{ path: 'a.txt', ...fields }] })
}

function replaceLine(n: number, by: string, extra: Record<string, unknown> = {}): string {
  return edit({ old_string: `line ${n}\n`, new_string: by, ...extra })
}

/**
 * Runs `first` and `second` so that the second is verified before the first commits and commits
 * after it (each request's approve callback runs between its verification and its commit).
 */
async function raced(
  first: string,
  second: string,
  options: ApplyOptions = {},
): Promise<[PromiseSettledResult<ApplyResult>, PromiseSettledResult<ApplyResult>]> {
  let secondVerified!: () => void
  const verified = new Promise<void>((resolve) => (secondVerified = resolve))
  const a = engine.apply(first, {
    ...options,
    approve: async () => {
      await verified
      return true
    },
  })
  const b = engine.apply(second, {
    ...options,
    approve: async () => {
      secondVerified()
      await a.catch(() => undefined)
      return true
    },
  })
  const [ra, rb] = await Promise.allSettled([a, b])
  return [ra, rb]
}

function codeOf(outcome: PromiseSettledResult<ApplyResult>): string | undefined {
  return outcome.status === 'rejected' ? (outcome.reason as { code?: string }).code : undefined
}

describe('a change verified before another one to the same file committed', () => {
  it('lands both JSON edits sent at once to different lines', async () => {
    const results = await Promise.all([
      engine.apply(replaceLine(2, 'TWO\n'), { format: 'edits' }),
      engine.apply(replaceLine(10, 'TEN\n'), { format: 'edits' }),
    ])
    expect(results.map((r) => r.dryRun)).toEqual([false, false])
    expect(await read()).toBe(BASE.replace('line 2\n', 'TWO\n').replace('line 10\n', 'TEN\n'))
  })

  it('verifies the second edit again on the new content and says so', async () => {
    const [a, b] = await raced(replaceLine(2, 'TWO\n'), replaceLine(10, 'TEN\n'))
    expect(a.status).toBe('fulfilled')
    expect(b.status, String(codeOf(b))).toBe('fulfilled')
    const second = (b as PromiseFulfilledResult<ApplyResult>).value
    const after = BASE.replace('line 2\n', 'TWO\n').replace('line 10\n', 'TEN\n')
    expect(await read()).toBe(after)
    // The result describes what landed: the merge, against the hash the first commit left.
    const [file] = second.files
    expect(file?.beforeHash).toBe(
      hashBytes(new TextEncoder().encode(BASE.replace('line 2\n', 'TWO\n'))),
    )
    expect(file?.afterHash).toBe(hashBytes(new TextEncoder().encode(after)))
    expect(second.warnings).toEqual([
      expect.objectContaining({ code: 'file.rebased', path: 'a.txt' }),
    ])
    // Two transactions: each undoes its own change.
    expect(await engine.transactions()).toHaveLength(2)
  })

  it('gives up with FILE_CHANGED on a file that changes before every commit', async () => {
    let calls = 0
    const error = await engine
      .apply(replaceLine(2, 'TWO\n'), {
        approve: async () => {
          calls++
          await writeFile(path.join(root, 'a.txt'), BASE.replace('line 12\n', `L12 ${calls}\n`))
          return true
        },
      })
      .then(
        () => undefined,
        (e: unknown) => e as { code?: string },
      )
    expect(error?.code).toBe('FILE_CHANGED')
    expect(calls).toBe(COMMIT_ATTEMPTS)
    expect(await read()).toBe(BASE.replace('line 12\n', `L12 ${calls}\n`))
  })

  it('refuses the second edit with the match error when the first changed its line', async () => {
    const [a, b] = await raced(replaceLine(5, 'FIVE\n'), replaceLine(5, 'five\n'))
    expect(a.status).toBe('fulfilled')
    expect(codeOf(b)).toBe('MATCH_NOT_FOUND')
    expect(await read()).toBe(BASE.replace('line 5\n', 'FIVE\n'))
  })

  it('refuses an edit next to the other change (FILE_CHANGED), as a merge would', async () => {
    const [a, b] = await raced(replaceLine(5, 'FIVE\n'), replaceLine(6, 'SIX\n'))
    expect(a.status).toBe('fulfilled')
    expect(codeOf(b)).toBe('FILE_CHANGED')
    expect((b as PromiseRejectedResult).reason.message).toMatch(/next to them/)
    expect(await read()).toBe(BASE.replace('line 5\n', 'FIVE\n'))
  })

  it('does not verify again an edit that gave expected_hash', async () => {
    const hash = hashBytes(new TextEncoder().encode(BASE))
    const [a, b] = await raced(
      replaceLine(2, 'TWO\n'),
      replaceLine(10, 'TEN\n', { expected_hash: hash }),
    )
    expect(a.status).toBe('fulfilled')
    expect(codeOf(b)).toBe('FILE_CHANGED')
    expect(await read()).toBe(BASE.replace('line 2\n', 'TWO\n'))
  })

  it('does not verify again edits that name lines by number, every match, or the whole file', async () => {
    const insertTop = edit({
      mode: 'insert',
      anchor: 'line 3\n',
      position: 'before',
      new_string: 'TOP\n',
    })
    const cases = [
      edit({ mode: 'replace_range', start_line: 10, end_line: 10, new_string: 'TEN\n' }),
      edit({ mode: 'delete_range', start_line: 10, end_line: 10 }),
      edit({ old_string: 'line 1', new_string: 'LINE 1', replace_all: true }),
      edit({ old_string: 'line 12\n', new_string: 'L12\n', occurrence: 1 }),
      edit({ mode: 'write', content: 'new\n' }),
    ]
    for (const second of cases) {
      await writeFile(path.join(root, 'a.txt'), BASE)
      const [a, b] = await raced(insertTop, second)
      expect(a.status, String(a.status === 'rejected' ? a.reason : '')).toBe('fulfilled')
      expect(codeOf(b), second).toBe('FILE_CHANGED')
      expect(await read()).toBe(BASE.replace('line 3\n', 'TOP\nline 3\n'))
    }
  })

  it('lands two Codex patches and two unified diffs to different parts of one file', async () => {
    const codex = (from: string, to: string) =>
      `*** Begin Patch\n*** Update File: a.txt\n@@\n-${from}\n+${to}\n*** End Patch\n`
    const [a, b] = await raced(codex('line 2', 'TWO'), codex('line 10', 'TEN'))
    expect([a.status, b.status, codeOf(b)]).toEqual(['fulfilled', 'fulfilled', undefined])
    const afterCodex = BASE.replace('line 2\n', 'TWO\n').replace('line 10\n', 'TEN\n')
    expect(await read()).toBe(afterCodex)

    const unified = (n: number, to: string) =>
      [
        '--- a/a.txt',
        '+++ b/a.txt',
        `@@ -${n - 1},3 +${n - 1},3 @@`,
        ` ${n === 3 ? 'TWO' : `line ${n - 1}`}`,
        `-line ${n}`,
        `+${to}`,
        ` line ${n + 1}`,
        '',
      ].join('\n')
    const [c, d] = await raced(unified(3, 'THREE'), unified(8, 'EIGHT'))
    expect([c.status, d.status, codeOf(d)]).toEqual(['fulfilled', 'fulfilled', undefined])
    expect(await read()).toBe(
      afterCodex.replace('line 3\n', 'THREE\n').replace('line 8\n', 'EIGHT\n'),
    )
  })

  it('refuses a patch whose context the first change took away', async () => {
    const codex = (from: string, to: string) =>
      `*** Begin Patch\n*** Update File: a.txt\n@@\n-${from}\n+${to}\n*** End Patch\n`
    const [a, b] = await raced(codex('line 4', 'FOUR'), codex('line 4', 'four'))
    expect(a.status).toBe('fulfilled')
    expect(codeOf(b)).toBe('MATCH_NOT_FOUND')
    expect(await read()).toBe(BASE.replace('line 4\n', 'FOUR\n'))
  })

  it('still refuses a file created since it was verified', async () => {
    const create = JSON.stringify({ edits: [{ path: 'new.txt', mode: 'write', content: 'x\n' }] })
    const other = JSON.stringify({ edits: [{ path: 'new.txt', mode: 'write', content: 'y\n' }] })
    const [a, b] = await raced(create, other)
    expect(a.status).toBe('fulfilled')
    expect(codeOf(b)).toBe('FILE_CHANGED')
    expect(await readFile(path.join(root, 'new.txt'), 'utf8')).toBe('x\n')
  })
})
