// CI runs the replay bench on a small generated history: every way ends at the
// repository's own tree (git apply in one process and per patch, patch -p1, and patchloom replay
// in each --via mode with every commit exact and no hunk misplaced), and the tables print.
// Timings are never asserted.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const BENCH = fileURLToPath(new URL('../../dist/bench/replay.bench.js', import.meta.url))

describe('replay.bench --quick', () => {
  it('runs every way to the same tree and prints the table', () => {
    const child = spawnSync(process.execPath, [BENCH, '--quick'], {
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(child.status, `${child.stdout}\n${child.stderr}`).toBe(0)
    expect(child.stdout).not.toMatch(/^> mismatch/m)
    for (const row of [
      '| git apply, every patch in one process | ',
      '| git log -p stream + one git apply | ',
      '| git apply, once per patch | ',
      '| patch -p1, once per patch | ',
      '| patchloom replay --via unified (blob ids checked) | ',
      '| patchloom replay --via codex (blob ids checked) | ',
      '| patchloom replay --via search-replace (blob ids checked) | ',
      '| patchloom replay --via unified --workers 2 (blob ids checked) | ',
    ])
      expect(child.stdout).toContain(row)
    // The fidelity table: every mode exact, nothing misplaced.
    for (const via of ['unified', 'codex', 'search-replace'])
      expect(child.stdout).toMatch(
        new RegExp(`^\\| ${via} \\| 30 of 30 \\| .* \\| 0 \\| \\d+ \\|$`, 'm'),
      )
    expect(child.stdout).toMatch(/30 first-parent commits, 30 patches, \d+ hunks/)
  })
})
