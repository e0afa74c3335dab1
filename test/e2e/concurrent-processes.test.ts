// Several patchloom processes committing to one workspace at once, through the built CLI: the
// workspace lock lets one commit at a time, and a change verified against a file another process
// has since replaced is verified again: it fails whole (MATCH_NOT_FOUND or FILE_CHANGED) instead
// of landing half-way, or lands as the merge when the two changes touch lines far apart.
import { existsSync } from 'node:fs'
import { readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { jsonLine, runCli } from '../helpers/run-cli.js'
import { journalEntries, makeTempDir } from '../helpers/tree.js'

const PROCESSES = 6

let ws = ''
beforeEach(async () => {
  ws = await makeTempDir('patchloom-e2e-concurrent-')
  await writeFile(join(ws, 'counter.txt'), '0\n')
})
afterEach(async () => {
  await rm(ws, { recursive: true, force: true })
})

/** Each process's change: claim the counter (which all saw as 0) and add a file of its own. */
function claim(k: number): string {
  return [
    '*** Begin Patch',
    '*** Update File: counter.txt',
    '@@',
    '-0',
    `+${k + 1}`, // never 0: an unchanged counter would not conflict
    `*** Add File: p${k}.txt`,
    `+written by process ${k}`,
    '*** End Patch',
    '',
  ].join('\n')
}

function addOnly(k: number): string {
  return `*** Begin Patch\n*** Add File: own/p${k}.txt\n+process ${k}\n*** End Patch\n`
}

/** Each process's change to a line of its own in one shared file, lines apart from the others. */
function ownLine(k: number): string {
  return `*** Begin Patch\n*** Update File: shared.txt\n@@\n-line ${3 * k + 2}\n+process ${k}\n*** End Patch\n`
}

async function applyAll(patch: (k: number) => string, processes = PROCESSES) {
  const files = await Promise.all(
    Array.from({ length: processes }, async (_, k) => {
      const file = join(ws, '..', `${ws.split('/').pop() ?? ''}-patch-${k}.txt`)
      await writeFile(file, patch(k))
      return file
    }),
  )
  try {
    return await Promise.all(
      files.map((file) => runCli(['apply', file, '--root', ws, '--json', '--no-workers'])),
    )
  } finally {
    await Promise.all(files.map((f) => rm(f, { force: true })))
  }
}

describe('several processes on one workspace', () => {
  it('lets exactly one of several conflicting changes land, whole', async () => {
    const runs = await applyAll(claim)
    const winners = runs.flatMap((run, k) => (run.code === 0 ? [k] : []))
    expect(winners).toHaveLength(1)
    const winner = winners[0] as number
    for (const [k, run] of runs.entries()) {
      if (k === winner) continue
      // Verified before the winner committed, it is verified again at its commit; either way its
      // context is gone (1). FILE_CHANGED (75) remains possible for a commit that loses too often.
      const code = (jsonLine(run)['error'] as { code: string }).code
      expect(['FILE_CHANGED', 'MATCH_NOT_FOUND'], run.stderr).toContain(code)
      expect(run.code).toBe(code === 'FILE_CHANGED' ? 75 : 1)
    }
    expect(await readFile(join(ws, 'counter.txt'), 'utf8')).toBe(`${winner + 1}\n`)
    const names = (await readdir(ws)).filter((n) => n !== '.patchloom').sort()
    expect(names).toEqual(['counter.txt', `p${winner}.txt`])
    const entries = await journalEntries(ws)
    expect(entries).toEqual([jsonLine(runs[winner]!)['transaction']])
    expect(existsSync(join(ws, '.patchloom', 'lock'))).toBe(false)
  })

  it('commits every one of several changes to lines far apart in one file', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}\n`).join('')
    let expected = lines
    for (let k = 0; k < 3; k++) expected = expected.replace(`line ${3 * k + 2}\n`, `process ${k}\n`)
    // Rounds, as the processes race only some of the time: a change verified before another
    // committed is verified again at its commit (warning file.rebased).
    for (let round = 1; round <= 4; round++) {
      await writeFile(join(ws, 'shared.txt'), lines)
      // Three: a commit that lost to both others is still within the engine's attempts.
      const runs = await applyAll(ownLine, 3)
      expect(
        runs.map((r) => r.code),
        runs.map((r) => r.stdout + r.stderr).join('\n'),
      ).toEqual([0, 0, 0])
      expect(await readFile(join(ws, 'shared.txt'), 'utf8')).toBe(expected)
      expect(await journalEntries(ws)).toHaveLength(3 * round)
    }
  })

  it('commits every one of several independent changes, one transaction each', async () => {
    const runs = await applyAll(addOnly)
    expect(runs.map((r) => r.code)).toEqual(Array.from({ length: PROCESSES }, () => 0))
    expect((await readdir(join(ws, 'own'))).sort()).toEqual(
      Array.from({ length: PROCESSES }, (_, k) => `p${k}.txt`),
    )
    const ids = runs.map((r) => jsonLine(r)['transaction'] as string).sort()
    expect(new Set(ids).size).toBe(PROCESSES)
    expect(await journalEntries(ws)).toEqual(ids)
    expect(existsSync(join(ws, '.patchloom', 'lock'))).toBe(false)
  })
})
