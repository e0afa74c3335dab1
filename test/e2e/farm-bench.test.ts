// CI runs the farm bench in a tiny configuration: 4 clients, 5 edits each, both durabilities,
// both client styles and both file mixes, beside the reference server. patchloom must lose or
// misplace no acknowledged edit and refuse no rebase; every row of the report must carry every
// figure (throughput, latency, retries, CPU shares and per edit, wall time). Timings are never
// asserted.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const BENCH = fileURLToPath(new URL('../../dist/bench/farm.bench.js', import.meta.url))
const dir = mkdtempSync(path.join(tmpdir(), 'farm-bench-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Row {
  readonly server: string
  readonly durability: string | null
  readonly client: string | null
  readonly mix: string
  readonly n: number
  readonly m: number
  readonly edits: number
  readonly failed: number
  readonly lost: number
  readonly [figure: string]: unknown
}

describe('farm.bench --quick', () => {
  it('loses no acknowledged patchloom edit and reports every figure', () => {
    const json = path.join(dir, 'farm.json')
    const child = spawnSync(process.execPath, [BENCH, '--quick', '--json', json], {
      encoding: 'utf8',
      timeout: 120_000,
    })
    expect(child.status, `${child.stdout}\n${child.stderr}`).toBe(0)
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      rows: Row[]
      targets: { target: string; measured: string; met: boolean | null }[]
    }
    const mine = report.rows.filter((r) => r.server === 'patchloom')
    expect(mine.map((r) => `${r.durability} ${r.client} ${r.mix} ${r.n}`).sort()).toEqual([
      'fast optimistic mixed 4',
      'fast optimistic private 4',
      'fast rebase mixed 4',
      'fast rebase private 4',
      'full optimistic mixed 4',
      'full optimistic private 4',
      'full rebase mixed 4',
      'full rebase private 4',
    ])
    for (const row of mine) {
      expect(row, JSON.stringify(row)).toMatchObject({
        m: 5,
        edits: 20,
        failed: 0,
        lost: 0,
        misplaced: 0,
        landedUnacknowledged: 0,
        rebaseRefused: 0,
      })
      expect(row['errors']).toEqual({})
    }
    // An optimistic client retries a stale hash from the file the refusal returned.
    for (const row of mine.filter((r) => r.client === 'optimistic'))
      expect(row['retriesFromRefusal']).toBe(row['staleRetries'])
    const reference = report.rows.filter((r) => r.server === 'server-filesystem')
    expect(reference.map((r) => `${r.client} ${r.mix} ${r.n}`).sort()).toEqual([
      'null mixed 4',
      'null private 4',
    ])
    for (const row of report.rows) {
      for (const figure of [
        'editsPerSec',
        'keptPerSec',
        'p50Ms',
        'p99Ms',
        'retriesPerEdit',
        'staleRetries',
        'rebaseRefused',
        'retriesFromRefusal',
        'rebasedEdits',
        'busyRetries',
        'misplaced',
        'clientCpuShare',
        'serverCpuShare',
        'serverCpuMsPerEdit',
        'wallMs',
      ])
        expect(typeof row[figure], `${figure} of ${JSON.stringify(row)}`).toBe('number')
      expect(row.edits + row.failed).toBe(20)
      // Kept edits are the acknowledged ones minus the lost, over the same wall time.
      expect(row['keptPerSec']).toBeCloseTo(
        ((row['editsPerSec'] as number) * (row.edits - row.lost)) / row.edits,
        6,
      )
    }
    // The reference server has no expected_hash: on private files nothing can be lost.
    expect(reference.find((r) => r.mix === 'private')?.lost).toBe(0)
    expect(report.targets.map((t) => t.target)).toContain(
      '0 lost updates at every N and client mode (patchloom)',
    )
    expect(child.stdout).toContain('| patchloom --durability full | optimistic | 4 | 20 | ')
    expect(child.stdout).toContain('| patchloom --durability fast | rebase | 4 | 20 | ')
    expect(child.stdout).toContain('| server-filesystem (stdio, 1 process per client) | - | 4 | ')
  })
})
