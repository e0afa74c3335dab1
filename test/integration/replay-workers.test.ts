// replay({ workers }): commits computed on real pool workers (the built
// workers/engine.worker.js, so `npm run build` must have run) give, commit by commit, the same
// results and the same trees as the calling thread, in every --via mode, on a history of adds,
// deletes, renames, copies, modes, binaries, symlinks, a submodule, CRLF and a merge; a commit
// limit stops the pool cleanly; a bad worker count is refused.
import { rmSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { replay, REPLAY_VIAS, type ReplayCommit } from '../../src/replay/replay.js'
import { buildHistoryRepo, type HistoryRepo } from '../helpers/history-repo.js'
import { makeTempDir } from '../helpers/tree.js'

let scratch: string
let repo: HistoryRepo

beforeAll(async () => {
  scratch = await makeTempDir('patchloom-replay-workers-')
  repo = buildHistoryRepo(path.join(scratch, 'repo'), path.join(scratch, 'home'))
})

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true })
})

/** Every step without its tree, and each tree as `path -> mode id`, taken as it comes. */
async function steps(options: Parameters<typeof replay>[0]) {
  const out: Array<{ result: Omit<ReplayCommit, 'tree'>; tree: Record<string, string> }> = []
  const run = replay(options)
  let step = await run.next()
  for (; !step.done; step = await run.next()) {
    const { tree, ...result } = step.value
    const listed: Record<string, string> = {}
    for (const [p, f] of tree) listed[p] = `${f.mode} ${f.id}`
    out.push({ result, tree: listed })
  }
  const { wallMs: _wallMs, ...report } = step.value
  return { out, report }
}

describe('replay on pool workers', () => {
  it.each(REPLAY_VIAS)('gives the calling thread’s results and trees --via %s', async (via) => {
    const inline = await steps({ repo: repo.dir, via })
    const pooled = await steps({ repo: repo.dir, via, workers: 2 })
    expect(pooled.out).toEqual(inline.out)
    expect(pooled.report).toEqual(inline.report)
    expect(pooled.report.exactCommits).toBe(repo.commits.length)
  })

  it('stops at a commit limit and refuses a worker count it cannot use', async () => {
    const limited = await steps({ repo: repo.dir, workers: 1, maxCommits: 3 })
    expect(limited.out.map((s) => s.result.commit)).toEqual(repo.commits.slice(0, 3))
    await expect(steps({ repo: repo.dir, workers: 1.5 })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    })
  })
})
