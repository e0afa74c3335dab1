// The demo's own history: where a clone has no .git, `patchloom demo` builds this small
// repository with git and replays it in each --via mode; every commit must come out exact.
import { rmSync } from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildDemoRepo } from '../../../src/cli/commands/demo.js'
import { replay, REPLAY_VIAS } from '../../../src/replay/replay.js'
import { makeTempDir } from '../../helpers/tree.js'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('the demo history', () => {
  it('is five commits that replay exactly in each mode', async () => {
    const scratch = await makeTempDir('patchloom-demo-history-')
    dirs.push(scratch)
    const repo = buildDemoRepo(path.join(scratch, 'history'))
    for (const via of REPLAY_VIAS) {
      const run = replay({ repo, via })
      let step = await run.next()
      while (!step.done) step = await run.next()
      expect(step.value, via).toMatchObject({
        commits: 5,
        exactCommits: 5,
        mismatches: [],
        misplacedHunks: 0,
      })
      expect(step.value.hunks).toBeGreaterThan(2)
    }
  })
})
