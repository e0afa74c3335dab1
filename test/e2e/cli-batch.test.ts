// `patchloom batch` through the built CLI, as a harness runs it: JSON lines on stdin or in a
// file, one result line a job on stdout in input order, the summary on stderr, the exit status
// (0, 1, 64), the trees on disk afterwards, and the shared worker pool (--workers) in real
// threads. Needs `npm run build` first.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/run-cli.js'
import { makeTempDir } from '../helpers/tree.js'

let base = ''
beforeEach(async () => {
  base = await makeTempDir('patchloom-e2e-batch-')
})
afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

async function roots(n: number): Promise<string[]> {
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    const root = join(base, `ws${i}`)
    await mkdir(root)
    await writeFile(join(root, 'a.txt'), 'line 0\n')
    out.push(root)
  }
  return out
}

const step = (from: number, to: number): string =>
  `--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-line ${from}\n+line ${to}\n`

function parsed(stdout: string): Record<string, unknown>[] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}

describe('patchloom batch (built CLI)', () => {
  it('applies a Latin-1 diff sent as patchBase64 byte for byte', async () => {
    const root = join(base, 'latin1')
    await mkdir(root)
    const before = Buffer.from('caf\xe9\nend\n', 'latin1')
    await writeFile(join(root, 'menu.txt'), before)
    const diff = Buffer.from(
      '--- a/menu.txt\n+++ b/menu.txt\n@@ -1,2 +1,2 @@\n-caf\xe9\n+th\xe9\n end\n',
      'latin1',
    )
    const job = { id: 'l1', root, patchBase64: diff.toString('base64') }
    const run = await runCli(['batch', '-', '--durability', 'fast'], {
      stdin: `${JSON.stringify(job)}\n`,
    })
    expect(run.code, run.stderr).toBe(0)
    expect(parsed(run.stdout)[0]).toMatchObject({ id: 'l1', ok: true })
    expect(await readFile(join(root, 'menu.txt'))).toEqual(Buffer.from('th\xe9\nend\n', 'latin1'))
  })

  it('runs a malformed line in the middle as its own result, applies the rest, exits 64', async () => {
    const [a, b] = await roots(2)
    const input = [
      JSON.stringify({ id: 'a1', root: a, patch: step(0, 1) }),
      JSON.stringify({ id: 'b1', root: b, patch: step(0, 1) }),
      'this is not json',
      JSON.stringify({ id: 'a2', root: a, patch: step(1, 2) }),
      JSON.stringify({ id: 'b2', root: b, patch: step(5, 6) }),
    ].join('\n')
    const run = await runCli(['batch', '-', '--durability', 'fast'], { stdin: `${input}\n` })
    expect(run.code).toBe(64)
    const lines = parsed(run.stdout)
    expect(lines.map((l) => [l['id'], l['ok']])).toEqual([
      ['a1', true],
      ['b1', true],
      [null, false],
      ['a2', true],
      ['b2', false],
    ])
    expect(lines[2]).toMatchObject({ line: 3, error: { code: 'BATCH_JOB_INVALID' } })
    expect(await readFile(join(a ?? '', 'a.txt'), 'utf8')).toBe('line 2\n')
    expect(await readFile(join(b ?? '', 'a.txt'), 'utf8')).toBe('line 1\n')
    expect(run.stderr).toMatch(/batch: 5 jobs: 3 applied, 0 checked, 1 refused, 1 malformed line /)
  })

  it('exits 0 from a FILE when every job succeeds, on the worker pool too, and 1 when one is refused', async () => {
    const rs = await roots(3)
    const jobs = rs.map((root, i) => JSON.stringify({ id: i, root, patch: step(0, 1) }))
    await writeFile(join(base, 'ok.jsonl'), `${jobs.join('\n')}\n`)
    const ok = await runCli(['batch', 'ok.jsonl', '--workers', '--durability=fast'], { cwd: base })
    expect(ok.code).toBe(0)
    expect(parsed(ok.stdout).map((l) => [l['id'], l['ok']])).toEqual([
      [0, true],
      [1, true],
      [2, true],
    ])
    for (const root of rs) expect(await readFile(join(root, 'a.txt'), 'utf8')).toBe('line 1\n')
    // The same jobs again: line 0 is gone, so each is refused.
    const again = await runCli(['batch', 'ok.jsonl'], { cwd: base })
    expect(again.code).toBe(1)
    expect(parsed(again.stdout).map((l) => l['ok'])).toEqual([false, false, false])
  })

  it('streams 3,000 jobs on 3 roots through a pipe, in order', async () => {
    const rs = await roots(3)
    const lines: string[] = []
    for (let i = 0; i < 3000; i++) {
      const root = rs[i % 3] ?? ''
      const n = Math.floor(i / 3)
      lines.push(JSON.stringify({ id: i, root, patch: step(n, n + 1) }))
    }
    const run = await runCli(['batch', '--durability', 'fast', '--concurrency', '4'], {
      stdin: `${lines.join('\n')}\n`,
    })
    expect(run.stderr).toMatch(/batch: 3000 jobs: 3000 applied/)
    expect(run.code).toBe(0)
    const out = parsed(run.stdout)
    expect(out.map((l) => l['id'])).toEqual(lines.map((_l, i) => i))
    for (const root of rs) expect(await readFile(join(root, 'a.txt'), 'utf8')).toBe('line 1000\n')
  }, 120_000)
})
