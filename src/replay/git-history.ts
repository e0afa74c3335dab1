// git's history as replay reads it: one streaming `git log` for a whole range (readHistory, or
// openHistory to start it early), read ahead of its consumer (read-ahead.ts), a commit's tree read
// in bulk (readTree: `git ls-tree`, then cat-file.ts), and the rev queries that plan a replay.
// Effects only: parsing the log is history-parse.ts. Every git process is reaped before a function
// returns, a generator finishes or close() resolves, also when the consumer stops early or the
// signal aborts.
import { EditError } from '../errors.js'
import { throwIfAborted, type AbortWords } from '../abort.js'
import { decodePatchBytes } from '../text/patch-bytes.js'
import { readBlobs } from './cat-file.js'
import {
  checkRange,
  failure,
  gitFailed,
  latin1,
  pinnedArgs,
  runGit,
  startGitIn,
} from './git-command.js'
import type { Readable } from 'node:stream'
import { HISTORY_LOG_FORMAT, HistoryStreamParser, type HistoryCommit } from './history-parse.js'
import { readAhead, Turns } from './read-ahead.js'

// The measurement: DECISIONS.md D-198.
/**
 * Bytes of git's output read ahead of the commit being consumed; then git waits. Read whenever
 * the event loop turns, which readHistory lets it do at least every TURN_MS of the consumer's work.
 */
export const HISTORY_AHEAD_BYTES = 8 * 1024 * 1024
const TURN_MS = 1

export interface HistoryOptions {
  /** A directory inside a git work tree, or a bare repository. */
  readonly repo: string
  /**
   * 'A..B', or a single rev meaning root..rev.
   * @default 'HEAD'
   */
  readonly range?: string
  readonly signal?: AbortSignal
  /** Bytes of git's output read ahead of the consumer. @default HISTORY_AHEAD_BYTES */
  readonly aheadBytes?: number
}

/** A tree entry: its mode as git prints it, its object id, and its bytes (null for a gitlink). */
export interface TreeEntry {
  readonly mode: string
  readonly id: string
  readonly bytes: Uint8Array | null
}

/** First-parent commits in `range` (`git rev-list --count`): a progress line's total. */
export async function countCommits(repo: string, range = 'HEAD'): Promise<number> {
  checkRange(range)
  const out = await runGit(
    repo,
    ['rev-list', '--count', '--first-parent', '--end-of-options', range, '--'],
    range,
  )
  return Number(latin1(out, 0, out.length).trim())
}

const DIFF_FLAGS = [
  '-C', // copies (and renames, which -C implies) among the files a commit changes
  '--raw',
  '-p',
  '--no-abbrev',
  '--full-index',
  '--binary',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-relative',
  '--ignore-submodules=none',
  '--submodule=short',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '-U3',
  '--inter-hunk-context=0',
  '--diff-algorithm=myers',
  '--indent-heuristic',
]

const LOG_FLAGS = [
  'log',
  '--reverse',
  '--first-parent',
  '--diff-merges=first-parent',
  '--root',
  '--no-show-signature',
  '--no-notes',
  '--no-decorate',
  ...DIFF_FLAGS,
  `--format=${HISTORY_LOG_FORMAT}`,
]

/**
 * The arguments after `git` of the history stream for `range` in `repo`, pins included: what
 * readHistory runs, for a bench that must hand other tools the very same patches.
 */
export function historyArgs(repo: string, range: string): string[] {
  checkRange(range)
  return pinnedArgs(repo, [...LOG_FLAGS, '--end-of-options', range, '--'])
}

/** Reading the history is replay's own step: a stop says so, not "the request". */
const HISTORY_ABORT: AbortWords = {
  timeout: 'Reading the history did not finish in time.',
  cancelled: 'Reading the history was cancelled.',
}

/**
 * Commits oldest first, first-parent line, one git process for the whole stream. Merges come
 * with their diff against the first parent; empty commits with no changes and an empty patch.
 * git's output is read ahead while the consumer works, so git runs meanwhile; memory is bounded
 * by `aheadBytes` of it plus one commit's output. Stopping early (`break`, `return()`) or aborting
 * `signal` kills git and waits for it.
 *
 * @example
 * for await (const commit of readHistory({ repo: '.', range: 'v1.0..main' })) {
 *   console.log(commit.sha, commit.changes.length, commit.patch.length)
 * }
 */
export async function* readHistory(options: HistoryOptions): AsyncGenerator<HistoryCommit> {
  const history = openHistory(options)
  try {
    yield* history.commits
  } finally {
    await history.close()
  }
}

/** A history whose git has started: its commits (read once), and close() to stop git. */
export interface OpenHistory {
  readonly commits: AsyncGenerator<HistoryCommit>
  /** Kills git if it is still running and waits until it is reaped; idempotent. */
  close(): Promise<void>
}

/**
 * readHistory, started now: git runs, and its output is read ahead, while the caller does
 * something else first (replay reads the start tree). Call close() when done with it, also when
 * `commits` was never iterated.
 */
export function openHistory(options: HistoryOptions): OpenHistory {
  const range = options.range ?? 'HEAD'
  checkRange(range)
  const { signal } = options
  throwIfAborted(signal, HISTORY_ABORT)
  const git = startGitIn(options.repo, [...LOG_FLAGS, '--end-of-options', range, '--'], false)
  const onAbort = (): void => git.stop()
  signal?.addEventListener('abort', onAbort, { once: true })
  const stdout = git.child.stdout as Readable
  const chunks = readAhead(stdout, options.aheadBytes ?? HISTORY_AHEAD_BYTES)
  const close = async (): Promise<void> => {
    signal?.removeEventListener('abort', onAbort)
    git.stop()
    // The window may be full (the pipe paused): let the rest flow out while git ends.
    stdout.resume()
    await git.exit
  }
  async function* commits(): AsyncGenerator<HistoryCommit> {
    const parser = new HistoryStreamParser()
    const turns = new Turns(TURN_MS)
    try {
      for await (const chunk of chunks) {
        turns.turned()
        throwIfAborted(signal, HISTORY_ABORT)
        for (const commit of parsed(() => parser.push(chunk))) {
          yield commit
          throwIfAborted(signal, HISTORY_ABORT)
          // The consumer computed since the loop last turned: let git's output in meanwhile.
          await turns.maybe()
        }
      }
      const exit = await git.exit
      throwIfAborted(signal, HISTORY_ABORT)
      // Only a clean exit ends the history: a killed git's last commit may be cut short.
      if (!exit.ok) throw failure(git, 'log', undefined, range)
      for (const commit of parsed(() => parser.end())) yield commit
    } catch (error) {
      if (error instanceof EditError) throw error
      git.stop()
      await git.exit
      throwIfAborted(signal, HISTORY_ABORT)
      throw failure(git, 'log', error, range)
    } finally {
      await close()
    }
  }
  return { commits: commits(), close }
}

/** The parser's commits; output it cannot read becomes REPLAY_GIT_FAILED. */
function parsed(parse: () => HistoryCommit[]): HistoryCommit[] {
  try {
    return parse()
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    throw gitFailed(`git log printed output patchloom cannot read (${detail}).`, error)
  }
}

/**
 * The tree of `rev` (all blobs read in bulk by one `git cat-file --batch`, each checked against
 * its id), or an empty map for null. Keys are full paths, decoded like RawChange.path.
 */
export async function readTree(repo: string, rev: string | null): Promise<Map<string, TreeEntry>> {
  const tree = new Map<string, TreeEntry>()
  if (rev === null) return tree
  checkRange(rev)
  const listing = await runGit(
    repo,
    ['ls-tree', '-r', '-z', '--full-tree', '--end-of-options', rev],
    rev,
  )
  const wanted: { path: string; mode: string; id: string }[] = []
  const gitlinks: { path: string; mode: string; id: string }[] = []
  for (let at = 0; at < listing.length;) {
    let end = listing.indexOf(0, at)
    if (end === -1) end = listing.length
    const tab = listing.indexOf(0x09, at)
    const [mode, type, id] = latin1(listing, at, tab).split(' ')
    const path = decodePatchBytes(listing.subarray(tab + 1, end)).text
    if (tab === -1 || tab > end || mode === undefined || id === undefined) {
      throw gitFailed(`git ls-tree printed a line patchloom cannot read: ${JSON.stringify(path)}.`)
    }
    if (type === 'commit') gitlinks.push({ path, mode, id })
    else if (type === 'blob') wanted.push({ path, mode, id })
    at = end + 1
  }
  const ids = [...new Set(wanted.map((w) => w.id))]
  const blobs = await readBlobs(repo, ids, wanted)
  for (const w of wanted) {
    tree.set(w.path, { mode: w.mode, id: w.id, bytes: blobs.get(w.id) as Uint8Array })
  }
  for (const g of gitlinks) tree.set(g.path, { mode: g.mode, id: g.id, bytes: null })
  return tree
}

/**
 * The commit whose tree the replay starts from: the first parent of the first commit of `range`
 * (first-parent line), or null for a root commit. An empty range ('B..B') starts, and ends, at
 * the tree of its end.
 */
export async function startOf(repo: string, range = 'HEAD'): Promise<string | null> {
  checkRange(range)
  const git = startGitIn(
    repo,
    ['rev-list', '--first-parent', '--parents', '--end-of-options', range, '--'],
    false,
  )
  // Newest first, so the oldest is the last line: keep only that (memory stays small on long
  // histories, where `--reverse` would make git hold the whole list).
  let tail = new Uint8Array(0)
  try {
    for await (const chunk of git.child.stdout as AsyncIterable<Uint8Array>) {
      const joined = new Uint8Array(tail.length + chunk.length)
      joined.set(tail)
      joined.set(chunk, tail.length)
      const lastLf = joined.lastIndexOf(0x0a, joined.length - 2)
      tail = lastLf === -1 ? joined : joined.slice(lastLf + 1)
    }
  } catch (error) {
    git.stop()
    await git.exit
    throw failure(git, 'rev-list', error, range)
  }
  const exit = await git.exit
  if (!exit.ok) throw failure(git, 'rev-list', undefined, range)
  const fields = latin1(tail, 0, tail.length).trim().split(' ')
  if (fields[0] === '') {
    const end = range.includes('..') ? range.slice(range.lastIndexOf('..') + 2) : range
    const out = await runGit(
      repo,
      ['rev-parse', '--verify', '--end-of-options', `${end || 'HEAD'}^{commit}`],
      range,
    )
    return latin1(out, 0, out.length).trim()
  }
  return fields[1] ?? null
}

/** The commit id `rev` names in `repo` (a branch, a tag, `HEAD~3`, an id). */
export async function resolveCommit(repo: string, rev: string): Promise<string> {
  checkRange(rev)
  const out = await runGit(
    repo,
    ['rev-parse', '--verify', '--end-of-options', `${rev}^{commit}`],
    rev,
  )
  return latin1(out, 0, out.length).trim()
}

/**
 * The first-parent commits of `range`, oldest first: what a replay of it visits (the distributed
 * replay splits this list into ranges). One id per line; 41 bytes a commit in memory.
 */
export async function firstParentCommits(repo: string, range = 'HEAD'): Promise<string[]> {
  checkRange(range)
  const out = await runGit(
    repo,
    ['rev-list', '--first-parent', '--reverse', '--end-of-options', range, '--'],
    range,
  )
  return latin1(out, 0, out.length)
    .split('\n')
    .filter((line) => line !== '')
}
