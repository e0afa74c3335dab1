// The clone cache of a queued replay, against the real git over file:// URLs: a URL is
// mirrored once, shared safely by processes racing to clone it, fetched again only for a commit
// it lacks; temporary clones dead processes left are swept; a range replayed from the mirror
// gives the report a replay of the repository itself gives. Clone failures (a stalled transfer
// among them) are retryable and never echo a password.
import { mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCloneCache, STALE_CLONE_MS } from '../../src/queue/clone-cache.js'
import { JOB_VERSION, type RangeJobData } from '../../src/queue/job.js'
import { replayRange } from '../../src/queue/replay-range.js'
import { cacheName } from '../../src/queue/source.js'
import { buildHistoryRepo, type HistoryRepo } from '../helpers/history-repo.js'
import { makeTempDir } from '../helpers/tree.js'

describe('clone cache', () => {
  let scratch: string
  let upstream: HistoryRepo
  let url: string
  beforeAll(async () => {
    scratch = await makeTempDir('patchloom-clones-')
    upstream = buildHistoryRepo(path.join(scratch, 'upstream'), path.join(scratch, 'home'))
    url = `file://${upstream.dir}`
  })
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  it('mirrors a URL once and gives the same mirror afterwards', async () => {
    const cache = createCloneCache(path.join(scratch, 'once'))
    const mirror = await cache.mirror(url)
    expect(path.dirname(mirror)).toBe(cache.dir)
    writeFileSync(path.join(mirror, 'patchloom-test-mark'), '')
    expect(await cache.mirror(url, { commits: [upstream.commits.at(-1) as string] })).toBe(mirror)
    expect(readdirSync(mirror)).toContain('patchloom-test-mark')
  })

  it('survives many clones of one URL at once, in this process and from caches racing on one directory', async () => {
    const dir = path.join(scratch, 'race')
    const caches = [createCloneCache(dir), createCloneCache(dir), createCloneCache(dir)]
    const mirrors = await Promise.all(caches.flatMap((c) => [c.mirror(url), c.mirror(url)]))
    expect(new Set(mirrors).size).toBe(1)
    // One mirror, and no clone left under a temporary name by the losers of the race.
    expect(readdirSync(dir)).toEqual([path.basename(mirrors[0] as string)])
  })

  it('deletes a clone a dead process left under a temporary name a day ago, and no younger one', async () => {
    const dir = path.join(scratch, 'stale')
    const mirror = path.join(dir, cacheName(url))
    mkdirSync(dir)
    const old = `${mirror}.tmp-999999-dead`
    const young = `${mirror}.tmp-999999-busy`
    for (const d of [old, young]) mkdirSync(d)
    const dayAgo = new Date(Date.now() - STALE_CLONE_MS - 60_000)
    utimesSync(old, dayAgo, dayAgo)
    expect(await createCloneCache(dir).mirror(url)).toBe(mirror)
    expect(readdirSync(dir).sort()).toEqual([path.basename(mirror), path.basename(young)])
  })

  it('fetches only for a commit the mirror lacks, and refuses one the remote has not', async () => {
    const cache = createCloneCache(path.join(scratch, 'fetch'))
    await cache.mirror(url)
    writeFileSync(path.join(upstream.dir, 'later.txt'), 'a commit made after the mirror\n')
    upstream.git('add', 'later.txt')
    upstream.git('commit', '-q', '-m', 'later')
    const later = upstream.git('rev-parse', 'HEAD').trim()
    const mirror = await cache.mirror(url, { commits: [later] })
    expect(upstream.git('--git-dir', mirror, 'cat-file', '-t', later).trim()).toBe('commit')
    await expect(cache.mirror(url, { commits: ['0'.repeat(40)] })).rejects.toMatchObject({
      code: 'QUEUE_COMMIT_MISSING',
      retryable: false,
      message: expect.stringContaining(`has no commit ${'0'.repeat(40)} even after a fetch`),
    })
    upstream.git('reset', '-q', '--hard', 'HEAD~1')
  })

  it('fails a clone it cannot make as retryable, naming git’s reason and never the password', async () => {
    const cache = createCloneCache(path.join(scratch, 'bad'))
    await expect(cache.mirror(`file://${scratch}/no-such-repo`)).rejects.toMatchObject({
      code: 'QUEUE_CLONE_FAILED',
      retryable: true,
      message: expect.stringMatching(/git clone of file:\/\/.*no-such-repo failed: .*not/),
    })
    const refused = cache.mirror('http://me:hunter2@127.0.0.1:1/repo.git')
    await expect(refused).rejects.toMatchObject({ code: 'QUEUE_CLONE_FAILED' })
    const message = await refused.catch((error: Error) => error.message)
    expect(message).toContain('http://me:***@127.0.0.1:1/repo.git')
    expect(message).not.toContain('hunter2')
    expect(readdirSync(cache.dir)).toEqual([])
  })

  it('stops a clone that makes no progress (a server that accepts and never answers), retryable', async () => {
    const held: Socket[] = []
    const silent = createServer((socket) => held.push(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as AddressInfo
    try {
      const cache = createCloneCache(path.join(scratch, 'stall'), { stallMs: 400 })
      for (const hung of [`git://127.0.0.1:${port}/repo`, `http://127.0.0.1:${port}/repo.git`]) {
        await expect(cache.mirror(hung)).rejects.toMatchObject({
          code: 'QUEUE_CLONE_FAILED',
          retryable: true,
          message: expect.stringContaining('made no progress for 0.4 s and was stopped'),
        })
      }
      expect(held.length).toBeGreaterThanOrEqual(2)
      expect(readdirSync(cache.dir)).toEqual([])
    } finally {
      for (const socket of held) socket.destroy()
      silent.close()
    }
  })

  it('replays a range from the mirror of a URL exactly as from the repository itself', async () => {
    const cache = createCloneCache(path.join(scratch, 'replay'))
    const job = (repo: string): RangeJobData => ({
      version: JOB_VERSION,
      run: 'rclone',
      repoIndex: 0,
      rangeIndex: 0,
      repo,
      range: `${upstream.commits[1]}..${upstream.commits.at(-1)}`,
      commits: upstream.commits.length - 2,
      via: 'unified',
    })
    const { wallMs: _a, repo: _ra, ...fromUrl } = await replayRange(job(url), { cache })
    const { wallMs: _b, repo: _rb, ...fromPath } = await replayRange(job(upstream.dir))
    expect(fromUrl.commits).toBe(upstream.commits.length - 2)
    expect(fromUrl.exactCommits).toBe(fromUrl.commits)
    expect(fromUrl).toEqual(fromPath)
    await expect(replayRange(job(url))).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('this worker has no clone cache'),
    })
  })
})
