// A distributed replay's split: a history cut into ranges, and the ranges' reports summed.
// The property that makes the queue safe to build on: replaying the ranges one by one and merging
// their reports gives exactly the report of one replay of the whole history (real git, the
// replay's own test repository: renames, binaries, symlinks, a submodule, CRLF, a merge).
import { rmSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EditError } from '../../../src/errors.js'
import { mergeReports, rangeBase, splitRange } from '../../../src/queue/ranges.js'
import { firstParentCommits } from '../../../src/replay/git-history.js'
import { replay, type ReplayReport, type ReplayVia } from '../../../src/replay/replay.js'
import { buildHistoryRepo, type HistoryRepo } from '../../helpers/history-repo.js'
import { makeTempDir } from '../../helpers/tree.js'

const ids = (n: number) => Array.from({ length: n }, (_, i) => `c${i + 1}`)

describe('splitRange', () => {
  it('cuts a history from the root into ranges that start where the last one ended', () => {
    expect(splitRange(ids(5), null, 2)).toEqual([
      { index: 0, range: 'c2', first: 'c1', last: 'c2', commits: 2 },
      { index: 1, range: 'c2..c4', first: 'c3', last: 'c4', commits: 2 },
      { index: 2, range: 'c4..c5', first: 'c5', last: 'c5', commits: 1 },
    ])
  })

  it("starts the first range at the user's base, and gives one range when it is big enough", () => {
    expect(splitRange(ids(3), 'v1', 10)).toEqual([
      { index: 0, range: 'v1..c3', first: 'c1', last: 'c3', commits: 3 },
    ])
    expect(splitRange([], 'v1', 10)).toEqual([])
  })

  it.each([0, -1, 1.5, Number.NaN, 2_000_000])('refuses a range size of %s', (size) => {
    expect(() => splitRange(ids(3), null, size)).toThrow(EditError)
    expect(() => splitRange(ids(3), null, size)).toThrow(/--split commits=N/)
  })
})

describe('rangeBase', () => {
  it('is A of A..B, HEAD for ..B, and null for one revision', () => {
    expect(rangeBase('v1.0..main')).toBe('v1.0')
    expect(rangeBase('..main')).toBe('HEAD')
    expect(rangeBase('main')).toBeNull()
    expect(() => rangeBase('a...b')).toThrow(/symmetric difference/)
  })
})

describe('mergeReports', () => {
  const part = (over: Partial<ReplayReport>): ReplayReport => ({
    repo: 'r',
    range: 'x',
    via: 'codex',
    commits: 2,
    exactCommits: 2,
    files: 3,
    hunks: 4,
    bytes: 100,
    formatHunks: 4,
    refusedHunks: 0,
    refusals: {},
    misplacedHunks: 0,
    misplaced: [],
    fallbacks: 0,
    fallbackReasons: {},
    mismatches: [],
    wallMs: 5,
    ...over,
  })

  it('adds the figures, merges the counts by key, and keeps mismatches in range order', () => {
    const a = part({
      refusals: { MATCH_AMBIGUOUS: 1 },
      refusedHunks: 1,
      mismatches: [{ commit: 'c1', path: 'a', line: 1, expected: 'x', actual: 'y' }],
    })
    const b = part({
      refusals: { MATCH_AMBIGUOUS: 2, MATCH_NOT_FOUND: 1 },
      refusedHunks: 3,
      exactCommits: 1,
      fallbackReasons: { binary: 1 },
      fallbacks: 1,
      mismatches: [{ commit: 'c3', path: 'b', line: null, expected: 'x', actual: 'z' }],
    })
    const merged = mergeReports({ repo: 'r', range: 'HEAD', via: 'codex' }, [a, b], 42)
    expect(merged).toMatchObject({
      range: 'HEAD',
      commits: 4,
      exactCommits: 3,
      files: 6,
      refusedHunks: 4,
      refusals: { MATCH_AMBIGUOUS: 3, MATCH_NOT_FOUND: 1 },
      fallbacks: 1,
      fallbackReasons: { binary: 1 },
      wallMs: 42,
    })
    expect(merged.mismatches.map((m) => m.commit)).toEqual(['c1', 'c3'])
  })

  it('refuses to merge ranges replayed through another format', () => {
    expect(() =>
      mergeReports({ repo: 'r', range: 'HEAD', via: 'unified' }, [part({ via: 'codex' })], 1),
    ).toThrow(/via codex/)
  })
})

describe('ranges of a real history', () => {
  let scratch: string
  let repo: HistoryRepo
  beforeAll(async () => {
    scratch = await makeTempDir('patchloom-plan-')
    repo = buildHistoryRepo(path.join(scratch, 'repo'), path.join(scratch, 'home'))
  })
  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true })
  })

  async function reportOf(range: string, via: ReplayVia): Promise<ReplayReport> {
    const run = replay({ repo: repo.dir, range, via })
    let step = await run.next()
    while (!step.done) step = await run.next()
    return step.value
  }

  const withoutWall = ({ wallMs: _wall, ...rest }: ReplayReport) => rest

  it('lists the first-parent commits a replay visits, oldest first', async () => {
    expect(await firstParentCommits(repo.dir, 'HEAD')).toEqual(repo.commits)
    const [, second, , fourth] = repo.commits
    expect(await firstParentCommits(repo.dir, `${second}..${fourth}`)).toEqual(
      repo.commits.slice(2, 4),
    )
  })

  for (const via of ['unified', 'codex'] as const) {
    it(`merges the ranges' reports into the whole history's report (via ${via})`, async () => {
      const whole = await reportOf('HEAD', via)
      expect(whole.commits).toBe(repo.commits.length)
      for (const size of [1, 3, repo.commits.length]) {
        const specs = splitRange(await firstParentCommits(repo.dir, 'HEAD'), null, size)
        expect(specs.reduce((n, s) => n + s.commits, 0)).toBe(repo.commits.length)
        const parts: ReplayReport[] = []
        for (const spec of specs) parts.push(await reportOf(spec.range, via))
        const merged = mergeReports({ repo: repo.dir, range: 'HEAD', via }, parts, 0)
        expect(withoutWall(merged), `size ${size}`).toEqual(withoutWall(whole))
      }
    })
  }
})
