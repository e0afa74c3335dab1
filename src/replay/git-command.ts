// git run against one repository the way replay reads it: every config that could change what
// git prints pinned on the command line, so a user's ~/.gitconfig (color, prefixes, rename
// limits, context size, order files, attributes...) cannot change what is parsed, and a failed
// run turned into the EditError that says why (no git, no repository, no such revision, or
// REPLAY_GIT_FAILED). The process itself is git-process.ts.
import { devNull } from 'node:os'
import { EditError } from '../errors.js'
import { startGit, type GitProcess } from './git-process.js'

// Config pins, as `-c` pairs: the ones no command-line flag of git 2.39 overrides, and the rest
// for good measure. Pinned values are git's own defaults.
const CONFIG_PINS = [
  'core.quotePath=false',
  'core.bigFileThreshold=512m', // smaller values turn text diffs into binary ones
  `core.attributesFile=${devNull}`, // a global `* -diff` would do the same
  'diff.noprefix=false',
  'diff.mnemonicPrefix=false',
  'diff.renames=true',
  'diff.renameLimit=1000',
  'diff.suppressBlankEmpty=false', // true drops the space of empty context lines
  `diff.orderFile=${devNull}`,
  'diff.context=3',
  'diff.interHunkContext=0',
  'diff.algorithm=myers',
  'diff.indentHeuristic=true',
  'color.ui=never',
].flatMap((pair) => ['-c', pair])

/** A git process reading `repo`. */
export interface RepoGit extends GitProcess {
  readonly repo: string
}

/** The arguments after `git` that run `args` in `repo` with the config pins. */
export function pinnedArgs(repo: string, args: readonly string[]): string[] {
  return ['-C', repo, ...CONFIG_PINS, '--no-pager', ...args]
}

/** Starts `git <args>` in `repo` with the config pins. */
export function startGitIn(repo: string, args: readonly string[], stdin: boolean): RepoGit {
  if (typeof repo !== 'string' || repo === '') {
    throw new EditError('CONFIG_INVALID', 'The repository path is empty.')
  }
  return Object.assign(startGit(pinnedArgs(repo, args), { stdin }), { repo })
}

/** Runs git in `repo` to completion and returns its stdout (small outputs: rev-parse, ls-tree). */
export async function runGit(
  repo: string,
  args: readonly string[],
  rev: string,
): Promise<Uint8Array> {
  const git = startGitIn(repo, args, false)
  const chunks: Buffer[] = []
  git.child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk))
  const exit = await git.exit
  if (!exit.ok) throw failure(git, args[0] ?? 'git', undefined, rev)
  return Buffer.concat(chunks)
}

/** CONFIG_INVALID unless `range` reads as a revision or an A..B range (never as an option). */
export function checkRange(range: string): void {
  if (typeof range !== 'string' || range === '' || range.startsWith('-') || /[\s\0]/.test(range)) {
    throw new EditError(
      'CONFIG_INVALID',
      `The range ${JSON.stringify(range)} is not a revision or A..B range.`,
      {
        hint: "Give a revision (e.g. 'HEAD') or a range 'A..B'.",
      },
    )
  }
}

/** REPLAY_GIT_NOT_INSTALLED, for a spawn that failed with ENOENT. */
export function gitNotInstalled(cause: NodeJS.ErrnoException): EditError {
  return new EditError('REPLAY_GIT_NOT_INSTALLED', 'git was not found on PATH.', { cause })
}

export function gitFailed(message: string, cause?: unknown): EditError {
  return new EditError('REPLAY_GIT_FAILED', message, cause === undefined ? {} : { cause })
}

/** The error for a git process that failed; call it once `git.exit` has resolved. */
export function failure(
  git: RepoGit,
  what: string,
  cause: unknown,
  rev: string | undefined,
): EditError {
  const exit = git.result()
  const opts = cause === undefined ? {} : { cause }
  if (exit?.error !== undefined) {
    if (exit.error.code === 'ENOENT') return gitNotInstalled(exit.error)
    return gitFailed(`git could not be started: ${exit.error.message}.`, exit.error)
  }
  if (exit !== null && exit.signal !== null)
    return gitFailed(`git ${what} was killed by ${exit.signal}.`, cause)
  const stderr = git.stderr()
  const fatal = firstFatal(stderr)
  if (/not a git repository|cannot change to/i.test(stderr)) {
    return new EditError('CONFIG_INVALID', `${git.repo} is not a git repository: ${fatal}`, {
      ...opts,
      hint: 'Give a directory inside a git work tree, or a bare repository.',
    })
  }
  if (rev !== undefined && BAD_REV_RE.test(stderr)) {
    const message = `${JSON.stringify(rev)} is not a revision or range in ${git.repo}: ${fatal}`
    return new EditError('CONFIG_INVALID', message, {
      ...opts,
      hint: "Give a revision (e.g. 'HEAD') or a range 'A..B' that exists in the repository.",
    })
  }
  const status = exit === null ? 'failed' : `exited with status ${exit.code ?? '?'}`
  return gitFailed(`git ${what} ${status}${fatal === '' ? '.' : `: ${fatal}`}`, cause)
}

// What git 2.39 says (LC_ALL=C) when a revision does not resolve, or the repository has no commits.
const BAD_REV_RE =
  /bad revision|unknown revision|ambiguous argument|not a valid object name|bad default revision|needed a single revision|not a tree object|does not have any commits/i

function firstFatal(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
  return lines.find((l) => /^(fatal|error):/.test(l)) ?? lines[0] ?? ''
}

/** Bytes `start..end` of `buf` as one character each (git's ids, modes and counts are ASCII). */
export function latin1(buf: Uint8Array, start: number, end: number): string {
  let text = ''
  for (let i = start; i < end; i++) text += String.fromCharCode(buf[i] as number)
  return text
}
