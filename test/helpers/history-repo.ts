// A git repository whose first-parent history covers what a replay must reproduce: adds,
// deletes, a rename with edits, a copy, a mode change, a binary file, a symlink, a submodule
// pointer, a file without a final newline, CRLF lines, a lone CR, an unusual path, a merge on the
// first-parent line and an empty commit. Built with the real `git`, under a HOME of its own so
// the user's configuration cannot change it. No vitest imports.
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'

export interface HistoryRepo {
  readonly dir: string
  readonly git: (...args: string[]) => string
  /** Commits on the first-parent line, oldest first. */
  readonly commits: readonly string[]
}

export function gitEnv(home: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'replay',
    GIT_AUTHOR_EMAIL: 'replay@example.com',
    GIT_COMMITTER_NAME: 'replay',
    GIT_COMMITTER_EMAIL: 'replay@example.com',
    GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  }
}

/** Builds the repository in `dir` (which must not exist yet); `home` holds its git config. */
export function buildHistoryRepo(dir: string, home: string): HistoryRepo {
  mkdirSync(dir, { recursive: true })
  mkdirSync(home, { recursive: true })
  const env = gitEnv(home)
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    })
  const write = (rel: string, content: string | Uint8Array) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    writeFileSync(path.join(dir, rel), content)
  }
  const commit = (message: string) => {
    // The submodule pointer has no checkout here: `add -A` would stage its deletion.
    git('add', '-A', '--', '.', ':!vendor/sub')
    git('commit', '-q', '--allow-empty', '-m', message)
  }
  git('init', '-q', '-b', 'main')
  const lines = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}`).join('\n') + '\n'

  write('src/a.txt', lines(30, 'a'))
  write('src/b.txt', lines(12, 'b'))
  write('tool.sh', '#!/bin/sh\necho hi\n')
  commit('root: three files')

  write('src/a.txt', lines(30, 'a').replace('a line 7\n', 'a line seven\n'))
  write('docs/readme.md', '# readme\n\nno final newline')
  write('crlf.txt', 'one\r\ntwo\r\nthree\r\n')
  commit('edit, a file without a final newline, a CRLF file')

  // a.txt changes too, so that git's copy detection (-C) looks at it as a source.
  write(
    'src/a.txt',
    lines(30, 'a').replace('a line 7\n', 'a line seven\n').replace('a line 1\n', 'a line one\n'),
  )
  git('mv', 'src/b.txt', 'src/b-renamed.txt')
  write('src/b-renamed.txt', lines(12, 'b').replace('b line 3\n', 'b line three\n'))
  write('src/copy-of-a.txt', lines(30, 'a').replace('a line 7\n', 'a line seven\n'))
  chmodSync(path.join(dir, 'tool.sh'), 0o755)
  commit('rename with an edit, a copy, a mode change')

  write(
    'bin/data.bin',
    Uint8Array.from({ length: 600 }, (_, i) => (i * 7) % 256),
  )
  symlinkSync('src/a.txt', path.join(dir, 'link-to-a'))
  write('weird dir/tab\there "quoted" é.txt', 'unusual path\n')
  write('crlf.txt', 'one\r\nTWO\r\nthree\r\n')
  write('lone-cr.txt', 'a\rb\nc\n')
  commit('binary, symlink, unusual path, CRLF edit, lone CR')

  git('update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},vendor/sub`)
  git('commit', '-q', '-m', 'a submodule pointer')

  git('checkout', '-q', '-b', 'side')
  write('side.txt', 'from the side branch\n')
  write(
    'src/a.txt',
    lines(30, 'a')
      .replace('a line 7\n', 'a line seven\n')
      .replace('a line 20\n', 'a line twenty\n'),
  )
  commit('side: a file and an edit')
  git('checkout', '-q', 'main')
  write('docs/readme.md', '# readme\n\nnow with a final newline\n')
  commit('main: readme')
  git('merge', '-q', '--no-ff', '-m', 'merge side', 'side')

  rmSync(path.join(dir, 'lone-cr.txt'))
  write(
    'bin/data.bin',
    Uint8Array.from({ length: 600 }, (_, i) => (i * 11) % 256),
  )
  git('rm', '-q', '--cached', 'vendor/sub')
  commit('delete, binary edit, submodule removed')
  commit('an empty commit')

  const commits = git('rev-list', '--first-parent', '--reverse', 'HEAD').trim().split('\n')
  return { dir, git, commits }
}
