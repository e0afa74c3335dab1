// replay on a repository built by the test with the real git: every commit of a history
// that covers adds, deletes, renames with edits, copies, mode changes, binary files, symlinks, a
// submodule pointer, CRLF and lone-CR lines, files without a final newline, an unusual path, a
// merge on the first-parent line and an empty commit replays exactly; the final tree is HEAD's;
// a range and a commit limit start and stop where they say; a corrupted object is reported as a
// mismatch that names the commit and path; the CLI's --json shape and exit codes.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { deflateSync } from 'node:zlib'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../../src/cli/main.js'
import { replay, type ReplayCommit, type ReplayReport } from '../../../src/replay/replay.js'
import { buildHistoryRepo, type HistoryRepo } from '../../helpers/history-repo.js'
import { makeTempDir } from '../../helpers/tree.js'

let scratch: string
let repo: HistoryRepo

beforeAll(async () => {
  scratch = await makeTempDir('patchloom-replay-')
  repo = buildHistoryRepo(path.join(scratch, 'repo'), path.join(scratch, 'home'))
})

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true })
})

async function run(
  options: Parameters<typeof replay>[0],
): Promise<{ commits: ReplayCommit[]; trees: Record<string, string>[]; report: ReplayReport }> {
  const commits: ReplayCommit[] = []
  // Each step's tree is valid until the next step: listed as it comes.
  const trees: Record<string, string>[] = []
  const generator = replay(options)
  let step = await generator.next()
  for (; !step.done; step = await generator.next()) {
    commits.push(step.value)
    trees.push(treeOf(step.value))
  }
  return { commits, trees, report: step.value }
}

/** `<mode> <id>` of every path in `rev`'s tree, as git lists it. */
function gitTree(rev: string, git: HistoryRepo['git'] = repo.git): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of git('ls-tree', '-r', '-z', '--full-tree', rev).split('\0')) {
    if (entry === '') continue
    const tab = entry.indexOf('\t') // a name may hold tabs itself
    const [meta, name] = [entry.slice(0, tab), entry.slice(tab + 1)]
    const [mode, , id] = meta.split(' ') as [string, string, string]
    out[name] = `${mode} ${id}`
  }
  return out
}

function treeOf(commit: ReplayCommit): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [p, f] of commit.tree) out[p] = `${f.mode} ${f.id}`
  return out
}

describe('replay', () => {
  it("replays the whole history exactly, every intermediate tree git's", async () => {
    const { commits, trees, report } = await run({ repo: repo.dir })
    expect(report.mismatches).toEqual([])
    expect(report).toMatchObject({
      commits: repo.commits.length,
      exactCommits: repo.commits.length,
      refusedHunks: 0,
      misplacedHunks: 0,
      fallbacks: 2, // the submodule pointer's addition and removal
      via: 'unified',
    })
    expect(commits.map((c) => c.commit)).toEqual(repo.commits)
    commits.forEach((c, i) => expect(trees[i], c.commit).toEqual(gitTree(c.commit)))
    expect(report.hunks).toBeGreaterThan(10)
    expect(report.files).toBeGreaterThan(20)
  })

  it("starts a range from its first commit's parent and stops at a commit limit", async () => {
    const from = repo.commits[2] as string
    const ranged = await run({ repo: repo.dir, range: `${from}..HEAD` })
    expect(ranged.commits.map((c) => c.commit)).toEqual(repo.commits.slice(3))
    expect(ranged.report.exactCommits).toBe(repo.commits.length - 3)
    const limited = await run({ repo: repo.dir, maxCommits: 4 })
    expect(limited.commits.map((c) => c.commit)).toEqual(repo.commits.slice(0, 4))
    expect(limited.report.commits).toBe(4)
  })

  it.each([
    [
      'codex',
      {
        'line-endings': 1,
        'final-newline': 1,
        copy: 1,
        mode: 1,
        binary: 2,
        symlink: 1,
        submodule: 2,
      },
    ],
    [
      'search-replace',
      {
        'line-endings': 1,
        'final-newline': 2,
        rename: 1,
        copy: 1,
        mode: 1,
        binary: 2,
        symlink: 1,
        submodule: 2,
        delete: 1,
      },
    ],
  ] as const)(
    'replays the whole history exactly --via %s, with the fallbacks the format cannot state',
    async (via, fallbackReasons) => {
      const { commits, trees, report } = await run({ repo: repo.dir, via })
      expect(report.mismatches).toEqual([])
      expect(report).toMatchObject({
        via,
        commits: repo.commits.length,
        exactCommits: repo.commits.length,
        misplacedHunks: 0,
        refusedHunks: 0,
        fallbackReasons,
      })
      expect(report.fallbacks).toBe(Object.values(fallbackReasons).reduce((a, b) => a + b, 0))
      expect(report.formatHunks).toBeGreaterThan(5)
      commits.forEach((c, i) => expect(trees[i], c.commit).toEqual(gitTree(c.commit)))
    },
  )

  it('counts a refused hunk and continues from git, so the next commits still land', async () => {
    // Two identical blocks; commit 2 edits the second with context that fits both (SEARCH/
    // REPLACE refuses it), commit 3 edits next to that edit, which needs git's post-image.
    const dir = path.join(scratch, 'twice')
    rmSync(dir, { recursive: true, force: true })
    const git = (...args: string[]) => repo.git('-C', dir, ...args)
    repo.git('init', '-q', '-b', 'main', dir)
    const block = (name: string, call: string) =>
      [
        `function ${name}() {`,
        '  // 1',
        '  // 2',
        '  // 3',
        '  if (ready) {',
        `    ${call}`,
        '  }',
        '  // 4',
        '  // 5',
        '  // 6',
        '}',
        '',
      ].join('\n')
    const save = (content: string, message: string) => {
      writeFileSync(path.join(dir, 'd.js'), content)
      git('add', '-A')
      git('commit', '-q', '-m', message)
    }
    save(block('a', 'go()') + '\n' + block('b', 'go()'), 'two blocks')
    save(block('a', 'go()') + '\n' + block('b', 'go(1)'), 'edit the second')
    save(block('a', 'go()') + '\n' + block('b', 'go(1)\n    done()'), 'next to it')
    const commits = git('rev-list', '--reverse', 'HEAD').trim().split('\n')
    const { report, trees } = await run({ repo: dir, via: 'search-replace' })
    expect(report.mismatches).toEqual([])
    expect(report).toMatchObject({
      exactCommits: 3,
      refusedHunks: 1,
      refusals: { MATCH_AMBIGUOUS: 1 },
      misplacedHunks: 0,
    })
    expect(trees[2]).toEqual(gitTree(commits[2] as string, git))
  })

  it('reports a corrupted object as a mismatch naming the commit and the path', async () => {
    // A copy of the repository in which the blob that commit 2 gives docs/readme.md holds other
    // bytes: git reads a loose object without checking its hash, so its diff carries the bad
    // bytes while its record names the good id.
    const dir = path.join(scratch, 'corrupt')
    rmSync(dir, { recursive: true, force: true })
    repo.git('clone', '-q', '--no-local', repo.dir, dir)
    const git = (...args: string[]) => repo.git('-C', dir, ...args)
    const commit = repo.commits[1] as string
    const id = git('rev-parse', `${commit}:docs/readme.md`).trim()
    unpack(dir)
    const bad = Buffer.from('# readme\n\nCORRUPTED final newline')
    const object = path.join(dir, '.git', 'objects', id.slice(0, 2), id.slice(2))
    rmSync(object, { force: true })
    writeFileSync(object, deflateSync(Buffer.concat([Buffer.from(`blob ${bad.length}\0`), bad])))
    const { report } = await run({ repo: dir })
    const m = report.mismatches.find((x) => x.path === 'docs/readme.md')
    // git gives the object's bytes back, but they do not hash to its id: the mismatch says so.
    expect(m).toMatchObject({ commit, path: 'docs/readme.md', line: null })
    expect(m?.expected).toContain(id)
    expect(report.mismatches).toHaveLength(1)
    expect(report.exactCommits).toBe(repo.commits.length - 1)
  })
})

/** Every object of the clone as a loose object (a clone packs them): each pack moved away and unpacked. */
function unpack(dir: string): void {
  const packs = path.join(dir, '.git', 'objects', 'pack')
  for (const file of readdirSync(packs)) {
    if (!file.endsWith('.pack')) continue
    const pack = readFileSync(path.join(packs, file))
    rmSync(path.join(packs, file))
    rmSync(path.join(packs, file.replace(/\.pack$/, '.idx')), { force: true })
    execFileSync('git', ['unpack-objects', '-q'], {
      cwd: dir,
      input: pack,
      stdio: ['pipe', 'ignore', 'pipe'],
    })
  }
}

describe('patchloom replay', () => {
  const io = (cwd: string) => {
    const out: string[] = []
    const err: string[] = []
    return {
      io: {
        stdin: () => [],
        stdout: (s: string) => out.push(s),
        stderr: (s: string) => err.push(s),
        cwd,
      },
      out,
      err,
    }
  }

  it("prints one JSON object with the report's figures", async () => {
    const { io: cli, out } = io(scratch)
    expect(await main(['replay', 'repo', '--json'], cli)).toBe(0)
    const json = JSON.parse(out.join('')) as Record<string, unknown>
    expect(Object.keys(json).sort()).toEqual(
      [
        'bytes',
        'commits',
        'commitsPerSecond',
        'exactCommits',
        'fallbacks',
        'fallbackReasons',
        'files',
        'formatHunks',
        'hunks',
        'hunksPerSecond',
        'misplaced',
        'misplacedHunks',
        'mismatches',
        'ok',
        'range',
        'refusals',
        'refusedHunks',
        'repo',
        'via',
        'wallMs',
      ].sort(),
    )
    expect(json).toMatchObject({ ok: true, commits: repo.commits.length, mismatches: [] })
  })

  it('reports a context-only mode: its hunks, refused share and fallbacks by reason', async () => {
    const { io: cli, out } = io(scratch)
    expect(await main(['replay', 'repo', '--via', 'search-replace'], cli)).toBe(0)
    const text = out.join('')
    expect(text).toMatch(/\(HEAD, via search-replace\)/)
    expect(text).toMatch(/^ {2}search-replace: \d+ hunks through the format, 0 refused \(0\.0%\)$/m)
    expect(text).toMatch(/^ {2}fallbacks by reason: .*\bbinary 2\b.*\bsubmodule 2\b/m)
    expect(text).toMatch(/misplaced hunks 0, fallbacks 12, mismatches 0/)
  })

  it('writes the final tree with --out, and refuses bad input with a usage error', async () => {
    const { io: cli, out } = io(scratch)
    const dest = path.join(scratch, 'out')
    expect(await main(['replay', 'repo', '--out', dest], cli)).toBe(0)
    expect(out.join('')).toMatch(/exact commits 9 \(100\.0%\)/)
    expect(readFileSync(path.join(dest, 'docs', 'readme.md'), 'utf8')).toBe(
      '# readme\n\nnow with a final newline\n',
    )
    expect(await main(['replay', 'repo', '--out', dest, '--json'], cli)).toBe(64) // not empty
    expect(await main(['replay', '--json'], cli)).toBe(64)
    expect(await main(['replay', 'repo', '--via', 'cvs', '--json'], cli)).toBe(64)
    expect(await main(['replay', 'repo', '--max-commits', '0', '--json'], cli)).toBe(64)
    expect(await main(['replay', path.join(scratch, 'home'), '--json'], cli)).toBe(64) // no repo
  })
})
