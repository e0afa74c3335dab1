// The README's first command: `npm run demo` runs `patchloom demo` from the built CLI.
import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/run-cli.js'

describe('patchloom demo', () => {
  it('applies one change per format and shows a refused patch writing nothing', async () => {
    const { code, stdout } = await runCli(['demo'])
    expect(code).toBe(0)
    for (const format of ['codex', 'search-replace', 'edits', 'unified'])
      expect(stdout).toContain(`[format: ${format},`)
    expect(stdout).toMatch(
      /\+ src\/greet\.ts:2:3 error TS2322: .*\n  1 introduced, 0 resolved \(typescript settled via pull/,
    )
    expect(stdout).toMatch(
      /undid \d{8}T\d{9}Z-\w{6} as transaction \S+\n  restore src\/greet\.ts\n/,
    )
    expect(stdout).toContain('refused with MATCH_NOT_FOUND')
    expect(stdout).toContain('nothing was written')
    // Last, this clone's own history replayed through the engine in each mode, every commit
    // exact, no hunk misplaced.
    expect(stdout).toContain("== History replay: this project's own git history")
    for (const via of ['unified', 'codex', 'search-replace']) {
      const replayed = new RegExp(`via ${via} +(\\d+) commits .*: (\\d+) exact, 0 mismatches`).exec(
        stdout,
      )
      expect(replayed?.[1], via).toBeDefined()
      expect(replayed?.[2], via).toBe(replayed?.[1])
      if (via !== 'unified') expect(stdout).toMatch(new RegExp(`via ${via} .* 0 misplaced\n`))
    }
  })
})
