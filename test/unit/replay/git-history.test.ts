// The git side of replay against real git: a repository built here covers every kind of
// change a history holds, and each commit readHistory yields is compared with what git itself
// says about that commit (`git diff-tree -z` for the raw changes, `git diff` for the patch bytes,
// `git cat-file` for trees). The code under test runs with a HOME whose .gitconfig tries to change
// every part of git's output; the oracles run with a clean one. Also: the stream parser fed one
// byte at a time and in random chunks, every error path, and no git process left behind.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process'
import { chmod, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { deflateSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBlobReader } from '../../../src/replay/cat-file.js'
import {
  countCommits,
  openHistory,
  readHistory,
  readTree,
  startOf,
  type TreeEntry,
} from '../../../src/replay/git-history.js'
import {
  HISTORY_LOG_FORMAT,
  HistoryStreamParser,
  type HistoryCommit,
  type RawChange,
} from '../../../src/replay/history-parse.js'
import { decodePatchBytes } from '../../../src/text/patch-bytes.js'
import { rejection } from '../../helpers/edit-error.js'
import { makeTempDir } from '../../helpers/tree.js'

const ORIGINAL_ENV = { ...process.env }
let root = ''
let repo = ''
let big = ''
let cleanEnv: NodeJS.ProcessEnv = {}

/** Runs git with the clean configuration (the oracle and the repository builder). */
function git(dir: string, args: readonly string[], options: SpawnSyncOptions = {}): Buffer {
  const run = spawnSync('git', ['-C', dir, ...args], {
    env: cleanEnv,
    maxBuffer: 1 << 30,
    ...options,
  })
  if (run.status !== 0) {
    throw new Error(`git ${args.join(' ')} failed: ${String(run.stderr)}`)
  }
  return run.stdout as Buffer
}

/** `cp -a` (node's fs.cp cannot copy a name that is not UTF-8). */
function copyRepo(from: string, to: string): void {
  const run = spawnSync('cp', ['-a', from, to])
  if (run.status !== 0) throw new Error(`cp failed: ${String(run.stderr)}`)
}

function gitText(dir: string, args: readonly string[]): string {
  return git(dir, args).toString('utf8').trim()
}

async function commit(dir: string, message: string, add = true): Promise<string> {
  if (add) git(dir, ['add', '-A'])
  git(dir, ['commit', '-q', '--allow-empty', '-m', message])
  return gitText(dir, ['rev-parse', 'HEAD'])
}

const lines = (prefix: string, count: number): string =>
  Array.from({ length: count }, (_, i) => `${prefix} line ${i + 1}\n`).join('')

const shas: Record<string, string> = {}

async function buildRepo(dir: string): Promise<void> {
  git(dir, ['init', '-q', '-b', 'main'])
  const w = (name: string, data: string | Uint8Array): Promise<void> =>
    writeFile(join(dir, name), data)
  await w('a.txt', lines('a', 12))
  await w('keep.txt', lines('keep', 12))
  await w('del.txt', 'to be deleted\n')
  await w('nonl.txt', 'x\ny')
  await w('crlf.txt', 'one\r\ntwo\r\nthree\r\n')
  await w('cr.txt', 'a\rb\nc\n')
  await w('src.txt', lines('src', 20))
  shas['root'] = await commit(dir, 'root')

  await rm(join(dir, 'del.txt'))
  await w('a.txt', lines('a', 12).replace('a line 5\n', 'a line five\n'))
  const binary = new Uint8Array(3000)
  for (let i = 0; i < binary.length; i++) binary[i] = (i * 7919) % 256
  await w('bin.dat', binary)
  await w('nonl.txt', 'x\ny\nz')
  await w('cr.txt', 'a\rb\nc\nd\re\n')
  await w('crlf.txt', 'one\r\ntwo\r\nthree\r\nfour\r\n')
  shas['edits'] = await commit(dir, 'delete, edit, binary')

  await mkdir(join(dir, 'dir'))
  await rename(join(dir, 'src.txt'), join(dir, 'dir/moved.txt'))
  await w('dir/moved.txt', lines('src', 20).replace('src line 10\n', 'src line ten\n'))
  shas['rename'] = await commit(dir, 'rename with edits')

  await w('copy.txt', lines('keep', 12).replace('keep line 12\n', 'copy line 12\n'))
  await w('keep.txt', lines('keep', 12) + 'keep more\n')
  shas['copy'] = await commit(dir, 'copy')

  await chmod(join(dir, 'a.txt'), 0o755)
  shas['chmod'] = await commit(dir, 'chmod +x')

  await symlink('a.txt', join(dir, 'link'))
  shas['symlink'] = await commit(dir, 'symlink')

  git(dir, ['update-index', '--add', '--cacheinfo', `160000,${shas['root']},sub`])
  await mkdir(join(dir, 'sub'))
  shas['gitlink'] = await commit(dir, 'submodule pointer', false)

  await w('with space.txt', 'space\n')
  await w('tab\there.txt', 'tab\n')
  await w('quote"d.txt', 'quote\n')
  await w('back\\slash.txt', 'backslash\n')
  await w('new\nline.txt', 'newline\n')
  await w('ünïcödé.txt', 'unicode\n')
  await writeFile(
    Buffer.concat([Buffer.from(join(dir, 'latin')), Buffer.from([0xe9, 0x2e, 0x74])]),
    'latin1\n',
  )
  shas['names'] = await commit(dir, 'unusual names')

  binary[100] = 1
  binary[2000] = 2
  await w('bin.dat', binary)
  await w('tab\there.txt', 'tab\nmore\n')
  shas['binary'] = await commit(dir, 'binary edit')

  shas['empty'] = await commit(dir, 'empty', false)

  git(dir, ['checkout', '-q', '-b', 'side'])
  await w('keep.txt', lines('keep', 12) + 'keep more\nfrom side\n')
  shas['side'] = await commit(dir, 'side change')
  git(dir, ['checkout', '-q', 'main'])
  await w('a.txt', 'top\n' + lines('a', 12).replace('a line 5\n', 'a line five\n'))
  shas['main'] = await commit(dir, 'main change')
  git(dir, ['merge', '-q', '--no-ff', '-m', 'merge side', 'side'])
  shas['merge'] = gitText(dir, ['rev-parse', 'HEAD'])

  await rm(join(dir, 'cr.txt'))
  await symlink('crlf.txt', join(dir, 'cr.txt'))
  await rm(join(dir, 'with space.txt'))
  git(dir, ['update-index', '--cacheinfo', `160000,${shas['edits']},sub`])
  shas['typechange'] = await commit(dir, 'type change, gitlink moved')

  git(dir, ['rm', '-q', '--cached', 'sub'])
  shas['last'] = await commit(dir, 'gitlink removed', false)
}

// The hostile configuration the code under test runs with: each entry would change what
// `git log -p --raw` prints if it were not pinned.
function hostileConfig(dir: string): string {
  return [
    '[color]',
    '\tui = always',
    '\tdiff = always',
    '[diff]',
    '\tnoprefix = true',
    '\tmnemonicPrefix = true',
    '\trenames = false',
    '\trenameLimit = 1',
    '\texternal = false',
    '\tsuppressBlankEmpty = true',
    '\tcontext = 1',
    '\tinterHunkContext = 10',
    '\talgorithm = patience',
    '\tindentHeuristic = false',
    '\tsubmodule = log',
    '\tignoreSubmodules = all',
    '\trelative = true',
    `\torderFile = ${join(dir, 'order')}`,
    '[log]',
    '\tshowSignature = true',
    '\tshowRoot = false',
    '\tdecorate = full',
    '\tdiffMerges = separate',
    '[core]',
    '\tquotePath = true',
    '\tbigFileThreshold = 1',
    '\tabbrev = 7',
    `\tattributesFile = ${join(dir, 'attributes')}`,
    '[format]',
    '\tpretty = fuller',
    '',
  ].join('\n')
}

beforeAll(async () => {
  root = await makeTempDir('patchloom-git-history-')
  const clean = join(root, 'clean-home')
  const hostile = join(root, 'hostile-home')
  await mkdir(clean)
  await mkdir(hostile)
  await writeFile(join(clean, '.gitconfig'), '[user]\n\tname = Test\n\temail = test@example.com\n')
  await writeFile(join(hostile, '.gitconfig'), hostileConfig(hostile))
  await writeFile(join(hostile, 'order'), 'z*\ncopy.txt\n')
  await writeFile(join(hostile, 'attributes'), '* -diff\n')
  cleanEnv = { ...ORIGINAL_ENV, HOME: clean, XDG_CONFIG_HOME: clean, GIT_CONFIG_NOSYSTEM: '1' }
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_CONFIG_GLOBAL']) {
    delete cleanEnv[name]
  }
  repo = join(root, 'repo')
  await mkdir(repo)
  await buildRepo(repo)
  // Large enough that git blocks on a full pipe while the test holds the first commit.
  big = join(root, 'big')
  await mkdir(big)
  git(big, ['init', '-q', '-b', 'main'])
  for (let i = 0; i < 3; i++) {
    await writeFile(join(big, `f${i}.txt`), lines(`big ${i}`, 100_000))
    await commit(big, `big ${i}`)
  }
  process.env['HOME'] = hostile
  process.env['XDG_CONFIG_HOME'] = hostile
}, 60_000)

afterAll(async () => {
  process.env['HOME'] = ORIGINAL_ENV['HOME']
  process.env['XDG_CONFIG_HOME'] = ORIGINAL_ENV['XDG_CONFIG_HOME']
  if (ORIGINAL_ENV['XDG_CONFIG_HOME'] === undefined) delete process.env['XDG_CONFIG_HOME']
  if (root !== '') await rm(root, { recursive: true, force: true })
})

/** Commits as plain data, each patch as its bytes rather than a view into some buffer. */
function plainCommits(commits: readonly HistoryCommit[]) {
  return commits.map((c) => ({ ...c, patch: Buffer.from(c.patch).toString('latin1') }))
}

async function collect(history: AsyncIterable<HistoryCommit>): Promise<HistoryCommit[]> {
  const out: HistoryCommit[] = []
  for await (const commit of history) out.push(commit)
  return out
}

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'

/** `git diff-tree -z -r --raw` read in the simplest way: NUL-separated, never quoted. */
function oracleChanges(dir: string, parent: string, sha: string, find: string): RawChange[] {
  const out = git(dir, ['diff-tree', '-z', '-r', '--raw', '--no-abbrev', find, parent, sha])
  const fields = out.toString('latin1').split('\0')
  const changes: RawChange[] = []
  const path = (latin: string): string => decodePatchBytes(Buffer.from(latin, 'latin1')).text
  for (let i = 0; i < fields.length - 1;) {
    const [srcMode, dstMode, srcId, dstId, score] = (fields[i++] as string).slice(1).split(' ')
    const status = (score as string)[0] as RawChange['status']
    const base = {
      status,
      srcMode: srcMode as string,
      dstMode: dstMode as string,
      srcId: srcId as string,
      dstId: dstId as string,
    }
    if (status === 'R' || status === 'C') {
      const from = path(fields[i++] as string)
      changes.push({ ...base, path: path(fields[i++] as string), from })
    } else {
      changes.push({ ...base, path: path(fields[i++] as string) })
    }
  }
  return changes
}

function oraclePatch(dir: string, parent: string, sha: string, find: string): Buffer {
  return git(dir, [
    '-c',
    'core.quotePath=false',
    'diff',
    '--binary',
    '--full-index',
    find,
    parent,
    sha,
  ])
}

/** The first-parent line, oldest first, as [sha, ...parents]. */
function firstParentLine(dir: string, range = 'HEAD'): string[][] {
  return gitText(dir, ['rev-list', '--first-parent', '--reverse', '--parents', range])
    .split('\n')
    .map((line) => line.split(' '))
}

/** Git processes started by this test process, as `ps` lists them (zombies included). */
function gitChildren(): string[] {
  const ps = spawnSync('ps', ['-o', 'pid=,stat=,args=', '--ppid', String(process.pid)], {
    encoding: 'utf8',
  })
  return ps.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /\bgit\b|defunct/.test(l) && !l.includes(' ps '))
}

function expectMatchesGit(commits: readonly HistoryCommit[], dir: string, find: string): void {
  const line = firstParentLine(dir)
  expect(commits.map((c) => [c.sha, ...c.parents])).toEqual(line)
  for (const c of commits) {
    const parent = c.parents[0] ?? EMPTY_TREE
    expect(c.changes, c.sha).toEqual(oracleChanges(dir, parent, c.sha, find))
    const patch = oraclePatch(dir, parent, c.sha, find)
    expect(Buffer.from(c.patch).equals(patch), `patch of ${c.sha}`).toBe(true)
  }
}

describe('readHistory', () => {
  it('yields every first-parent commit with the raw changes and patch git gives', async () => {
    const commits = await collect(readHistory({ repo }))
    expectMatchesGit(commits, repo, '-C')
    const bySha = new Map(commits.map((c) => [c.sha, c]))
    // Every kind of change came through, under the hostile configuration.
    const statuses = new Set(commits.flatMap((c) => c.changes.map((ch) => ch.status)))
    expect([...statuses].sort()).toEqual(['A', 'C', 'D', 'M', 'R', 'T'])
    expect(bySha.get(shas['rename'] as string)?.changes).toMatchObject([
      { status: 'R', from: 'src.txt', path: 'dir/moved.txt' },
    ])
    expect(bySha.get(shas['chmod'] as string)?.changes).toMatchObject([
      { status: 'M', srcMode: '100644', dstMode: '100755', path: 'a.txt' },
    ])
    expect(bySha.get(shas['gitlink'] as string)?.changes).toMatchObject([
      { status: 'A', dstMode: '160000', dstId: shas['root'], path: 'sub' },
    ])
    const names = bySha.get(shas['names'] as string)?.changes.map((ch) => ch.path)
    expect(names).toEqual(
      expect.arrayContaining([
        'with space.txt',
        'tab\there.txt',
        'quote"d.txt',
        'back\\slash.txt',
        'new\nline.txt',
        'ünïcödé.txt',
        'latin\udce9.t',
      ]),
    )
    const empty = bySha.get(shas['empty'] as string)
    expect(empty?.changes).toEqual([])
    expect(empty?.patch.length).toBe(0)
    // The merge shows the side branch's change against its first parent; the side commit itself
    // is not on the first-parent line.
    expect(bySha.get(shas['merge'] as string)?.changes).toMatchObject([
      { status: 'M', path: 'keep.txt' },
    ])
    expect(bySha.has(shas['side'] as string)).toBe(false)
    expect(Buffer.from(bySha.get(shas['edits'] as string)?.patch ?? []).toString()).toContain(
      'GIT binary patch',
    )
  })

  it('reads a range A..B and a single rev from the root', async () => {
    const range = `${shas['chmod']}..${shas['merge']}`
    const commits = await collect(readHistory({ repo, range }))
    expect(commits.map((c) => [c.sha, ...c.parents])).toEqual(firstParentLine(repo, range))
    expect(commits[0]?.parents[0]).toBe(shas['chmod'])
    expect(await startOf(repo, range)).toBe(shas['chmod'])
    const upTo = await collect(readHistory({ repo, range: shas['rename'] as string }))
    expect(upTo.map((c) => c.sha)).toEqual([shas['root'], shas['edits'], shas['rename']])
  })

  it('counts the first-parent commits a range holds, and refuses a bad range', async () => {
    const range = `${shas['chmod']}..${shas['merge']}`
    expect(await countCommits(repo, range)).toBe(firstParentLine(repo, range).length)
    expect(await countCommits(repo)).toBe(firstParentLine(repo, 'HEAD').length)
    expect((await rejection(countCommits(repo, 'no-such-rev'))).code).toBe('CONFIG_INVALID')
  })

  it('stops git when the consumer breaks out early', async () => {
    let during: string[] = []
    for await (const first of readHistory({ repo: big })) {
      expect(first.changes).toHaveLength(1)
      during = gitChildren()
      break
    }
    expect(during).toHaveLength(1)
    expect(gitChildren()).toEqual([])
  })

  it('reads git’s output ahead while the consumer holds a commit, up to aheadBytes', async () => {
    const whole = await collect(readHistory({ repo: big }))
    const output = whole.reduce((n, c) => n + c.patch.length, 0)
    expect(output).toBeGreaterThan(1 << 20) // far more than a pipe holds
    // Held at the first commit, the consumer lets the event loop turn: git writes all it has
    // and exits, which it could not do into a full pipe.
    const seen: HistoryCommit[] = []
    for await (const commit of readHistory({ repo: big, aheadBytes: 2 * output })) {
      seen.push(commit)
      while (seen.length === 1 && gitChildren().length > 0)
        await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(plainCommits(seen)).toEqual(plainCommits(whole))
    // With a window of 64 KiB, git is still writing (paused) while the first commit is held.
    const small: HistoryCommit[] = []
    for await (const commit of readHistory({ repo: big, aheadBytes: 64 * 1024 })) {
      small.push(commit)
      if (small.length > 1) continue
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(gitChildren()).toHaveLength(1)
    }
    expect(plainCommits(small)).toEqual(plainCommits(whole))
    expect(gitChildren()).toEqual([])
    // Stopping while git waits on the full window still kills and reaps it.
    for await (const first of readHistory({ repo: big, aheadBytes: 64 * 1024 })) {
      expect(first.changes).toHaveLength(1)
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setTimeout(resolve, 10))
      break
    }
    expect(gitChildren()).toEqual([])
  })

  it('starts git at openHistory, and close() stops it whether or not it was read', async () => {
    const unread = openHistory({ repo: big, aheadBytes: 64 * 1024 })
    expect(gitChildren()).toHaveLength(1)
    await unread.close()
    await unread.close()
    expect(gitChildren()).toEqual([])
    const read = openHistory({ repo })
    const commits = await collect(read.commits)
    await read.close()
    expect(plainCommits(commits)).toEqual(plainCommits(await collect(readHistory({ repo }))))
    expect(gitChildren()).toEqual([])
  })

  it('reports a killed git as REPLAY_GIT_FAILED, not as the end of the history', async () => {
    const seen: HistoryCommit[] = []
    const error = await rejection(
      (async () => {
        for await (const commit of readHistory({ repo: big })) {
          seen.push(commit)
          const pid = Number(gitChildren()[0]?.split(/\s+/)[0])
          if (seen.length === 1) process.kill(pid, 'SIGKILL')
        }
      })(),
    )
    expect(error.code).toBe('REPLAY_GIT_FAILED')
    expect(error.message).toMatch(/killed by SIGKILL/)
    expect(seen).toHaveLength(1)
    expect(gitChildren()).toEqual([])
  })

  it('ends with REQUEST_CANCELLED when the signal aborts, and leaves no git behind', async () => {
    const controller = new AbortController()
    const seen: HistoryCommit[] = []
    const error = await rejection(
      (async () => {
        for await (const commit of readHistory({ repo: big, signal: controller.signal })) {
          seen.push(commit)
          controller.abort()
        }
      })(),
    )
    expect(error.code).toBe('REQUEST_CANCELLED')
    expect(seen).toHaveLength(1)
    expect(gitChildren()).toEqual([])
    const before = await rejection(collect(readHistory({ repo, signal: AbortSignal.abort() })))
    expect(before.code).toBe('REQUEST_CANCELLED')
    expect(before.message).toBe('Reading the history was cancelled.')
  })

  it('ends with REQUEST_TIMEOUT when the signal is a timeout that fired', async () => {
    const timedOut = AbortSignal.abort(new DOMException('timed out', 'TimeoutError'))
    const error = await rejection(collect(readHistory({ repo, signal: timedOut })))
    expect(error.code).toBe('REQUEST_TIMEOUT')
    expect(error.message).toBe('Reading the history did not finish in time.')
  })

  it('reports a missing repository, a bad range and an empty repository as CONFIG_INVALID', async () => {
    const missing = await rejection(collect(readHistory({ repo: join(root, 'nope') })))
    expect(missing.code).toBe('CONFIG_INVALID')
    expect(missing.message).toMatch(/not a git repository/)
    const plain = join(root, 'plain')
    await mkdir(plain, { recursive: true })
    const notRepo = await rejection(collect(readHistory({ repo: plain })))
    expect(notRepo.code).toBe('CONFIG_INVALID')
    for (const range of ['nope..HEAD', 'HEAD~99..HEAD', '--output=x', '']) {
      const bad = await rejection(collect(readHistory({ repo, range })))
      expect(bad.code, range).toBe('CONFIG_INVALID')
    }
    const empty = join(root, 'empty-repo')
    await mkdir(empty, { recursive: true })
    git(empty, ['init', '-q'])
    expect((await rejection(collect(readHistory({ repo: empty })))).code).toBe('CONFIG_INVALID')
    expect((await rejection(startOf(join(root, 'nope')))).code).toBe('CONFIG_INVALID')
    expect((await rejection(readTree(repo, 'nope'))).code).toBe('CONFIG_INVALID')
  })

  it('reports git exiting non-zero mid-history as REPLAY_GIT_FAILED', async () => {
    const broken = join(root, 'broken')
    copyRepo(repo, broken)
    const id = gitText(repo, ['rev-parse', `${shas['root']}:del.txt`])
    await rm(join(broken, '.git/objects', id.slice(0, 2), id.slice(2)))
    const error = await rejection(collect(readHistory({ repo: broken })))
    expect(error.code).toBe('REPLAY_GIT_FAILED')
    expect(error.message).toMatch(/exited with status 128/)
  })

  it('reports a missing git as REPLAY_GIT_NOT_INSTALLED', async () => {
    const path = process.env['PATH']
    process.env['PATH'] = join(root, 'no-bin')
    try {
      const history = collect(readHistory({ repo }))
      const tree = readTree(repo, 'HEAD')
      const reader = createBlobReader(repo)
      const blob = reader.read(EMPTY_TREE)
      const errors = await Promise.all([history, tree, blob].map((p) => rejection(p)))
      expect(errors.map((e) => e.code)).toEqual(Array(3).fill('REPLAY_GIT_NOT_INSTALLED'))
      await reader.close()
    } finally {
      process.env['PATH'] = path
    }
  })
})

describe('HistoryStreamParser', () => {
  // The same output fed whole, one byte at a time and in random chunks; git run with -C so the
  // parser also meets copy lines (status C), checked against git like readHistory's output.
  let output: Buffer = Buffer.alloc(0)
  beforeAll(() => {
    output = git(repo, [
      '-c',
      'core.quotePath=false',
      'log',
      '--reverse',
      '--first-parent',
      '--root',
      '-C',
      '--raw',
      '-p',
      '--no-abbrev',
      '--full-index',
      '--binary',
      `--format=${HISTORY_LOG_FORMAT}`,
    ])
  })

  const feed = (sizes: () => number): HistoryCommit[] => {
    const parser = new HistoryStreamParser()
    const out: HistoryCommit[] = []
    for (let at = 0; at < output.length;) {
      const size = sizes()
      out.push(...parser.push(output.subarray(at, at + size)))
      at += size
    }
    return [...out, ...parser.end()]
  }

  it('reads copies and everything else as git reports them', () => {
    const commits = feed(() => output.length)
    expectMatchesGit(commits, repo, '-C')
    const copy = commits.find((c) => c.sha === shas['copy'])
    expect(copy?.changes).toMatchObject([
      { status: 'C', from: 'keep.txt', path: 'copy.txt' },
      { status: 'M', path: 'keep.txt' },
    ])
  })

  it('gives the same commits for any chunking', () => {
    const whole = feed(() => output.length)
    expect(feed(() => 1)).toEqual(whole)
    let seed = 12345
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return 1 + (seed % 97)
    }
    for (let round = 0; round < 5; round++) expect(feed(random)).toEqual(whole)
  })

  it('refuses output that is not git log output', () => {
    expect(() => new HistoryStreamParser().end()).not.toThrow()
    const parser = new HistoryStreamParser()
    parser.push(new TextEncoder().encode('commit 123\n'))
    expect(() => parser.end()).toThrow(/commit marker/)
  })
})

describe('readTree and createBlobReader', () => {
  async function oracleTree(rev: string): Promise<Map<string, TreeEntry>> {
    const out = git(repo, ['ls-tree', '-r', '-z', '--full-tree', rev]).toString('latin1')
    const tree = new Map<string, TreeEntry>()
    for (const entry of out.split('\0').filter((e) => e !== '')) {
      const tab = entry.indexOf('\t')
      const [meta, name] = [entry.slice(0, tab), entry.slice(tab + 1)]
      const [mode, type, id] = meta.split(' ') as [string, string, string]
      const path = decodePatchBytes(Buffer.from(name, 'latin1')).text
      const bytes = type === 'commit' ? null : new Uint8Array(git(repo, ['cat-file', 'blob', id]))
      tree.set(path, { mode, id, bytes })
    }
    return tree
  }

  it('reads every blob of a tree, gitlinks without bytes', async () => {
    for (const rev of [shas['names'] as string, shas['typechange'] as string]) {
      const tree = await readTree(repo, rev)
      expect(tree).toEqual(await oracleTree(rev))
      expect(tree.get('sub')?.bytes).toBeNull()
      expect(tree.get('link')).toMatchObject({ mode: '120000' })
    }
    expect(await readTree(repo, null)).toEqual(new Map())
    expect(await startOf(repo)).toBeNull()
    expect(await startOf(repo, shas['rename'] as string)).toBeNull()
    expect(await startOf(repo, `${shas['merge']}..${shas['merge']}`)).toBe(shas['merge'])
  })

  it('reads blobs on demand from one process', async () => {
    const tree = await oracleTree('HEAD')
    const reader = createBlobReader(repo)
    const blobs = [...tree.values()].filter((e) => e.bytes !== null)
    const read = await Promise.all(blobs.map((e) => reader.read(e.id)))
    expect(read).toEqual(blobs.map((e) => e.bytes))
    const missing = await rejection(reader.read('0'.repeat(40)))
    expect(missing.code).toBe('REPLAY_OBJECT_CORRUPT')
    expect(await reader.read(blobs[0]?.id as string)).toEqual(blobs[0]?.bytes)
    expect((await rejection(reader.read('HEAD:a.txt'))).code).toBe('CONFIG_INVALID')
    await reader.close()
    expect(gitChildren()).toEqual([])
  })

  it('reports a corrupted object naming its path and id', async () => {
    const corrupt = join(root, 'corrupt')
    copyRepo(repo, corrupt)
    const id = gitText(repo, ['rev-parse', 'HEAD:keep.txt'])
    const file = join(corrupt, '.git/objects', id.slice(0, 2), id.slice(2))
    const original = await readFile(file)
    expect(original.length).toBeGreaterThan(0)
    const size = (await readFile(join(repo, 'keep.txt'))).length
    const forged = Buffer.concat([Buffer.from(`blob ${size}\0`), Buffer.alloc(size, 'x')])
    await rm(file)
    await writeFile(file, deflateSync(forged))
    const error = await rejection(readTree(corrupt, 'HEAD'))
    expect(error.code).toBe('REPLAY_OBJECT_CORRUPT')
    expect(error.path).toBe('keep.txt')
    expect(error.message).toContain(id)
    const reader = createBlobReader(corrupt)
    expect((await rejection(reader.read(id))).code).toBe('REPLAY_OBJECT_CORRUPT')
    await reader.close()
  })
})
