// The git side of `patchloom replay` (#10): one streaming `git log` for a whole history, a
// commit's tree read in bulk (`git ls-tree` + one `git cat-file --batch`), and a long-lived
// `git cat-file --batch` for blobs on demand. Effects only: parsing is src/replay/history-parse.ts,
// and applying, comparing and reporting belong to the rest of src/replay/.
//
// Every flag and config that could change what git prints is pinned on the command line, so a
// user's ~/.gitconfig (color, prefixes, rename limits, context size, submodule format, order
// files, attributes...) cannot change what is parsed; the environment loses the GIT_* variables
// that would point git at another repository, and messages are in the C locale so failures can
// be classified. Every git process is reaped before a function returns or a generator finishes,
// also when the consumer stops early or the signal aborts.
import { spawn, type ChildProcess } from 'node:child_process'
import { devNull } from 'node:os'
import { EditError } from '../errors.js'
import { decodePatchBytes } from '../text/patch-bytes.js'
import { blobId } from '../bytes/blob-id.js'
import { HISTORY_LOG_FORMAT, HistoryStreamParser, type HistoryCommit } from './history-parse.js'

export interface HistoryOptions {
  /** A directory inside a git work tree, or a bare repository. */
  readonly repo: string
  /**
   * 'A..B', or a single rev meaning root..rev.
   * @default 'HEAD'
   */
  readonly range?: string
  readonly signal?: AbortSignal
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

/** One long-lived `git cat-file --batch` process for blobs by id, on demand. */
export interface BlobReader {
  /** The blob's bytes, checked against its id; reads may overlap. */
  read(id: string): Promise<Uint8Array>
  /** Ends the process and waits for it; reads still pending are rejected. */
  close(): Promise<void>
}

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

// Variables that would make git read another repository than `-C repo` finds, or run a diff
// program of the caller's choosing.
const DROPPED_ENV = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_COMMON_DIR',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_EXTERNAL_DIFF',
  'GIT_DIFF_OPTS',
]

/**
 * The environment git runs in here: C locale, no optional locks, and none of the variables that
 * point it at another repository or program than its arguments say.
 */
export function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LC_ALL: 'C',
    LANGUAGE: 'C',
    GIT_OPTIONAL_LOCKS: '0',
  }
  for (const name of DROPPED_ENV) delete env[name]
  return env
}

/**
 * The arguments after `git` of the history stream for `range` in `repo`, pins included: what
 * readHistory runs, for a bench that must hand other tools the very same patches.
 */
export function historyArgs(repo: string, range: string): string[] {
  checkRange(range)
  return ['-C', repo, ...CONFIG_PINS, '--no-pager', ...LOG_FLAGS, '--end-of-options', range, '--']
}

const HEX_ID_RE = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/
const STDERR_LIMIT = 16 * 1024

/**
 * Commits oldest first, first-parent line, one git process for the whole stream. Merges come
 * with their diff against the first parent; empty commits with no changes and an empty patch.
 * Memory is bounded by one commit's output. Stopping early (`break`, `return()`) or aborting
 * `signal` kills git and waits for it.
 *
 * @example
 * for await (const commit of readHistory({ repo: '.', range: 'v1.0..main' })) {
 *   console.log(commit.sha, commit.changes.length, commit.patch.length)
 * }
 */
export async function* readHistory(options: HistoryOptions): AsyncGenerator<HistoryCommit> {
  const range = options.range ?? 'HEAD'
  checkRange(range)
  const { signal } = options
  throwIfAborted(signal)
  const git = startGit(options.repo, [...LOG_FLAGS, '--end-of-options', range, '--'], false)
  const onAbort = (): void => git.stop()
  signal?.addEventListener('abort', onAbort, { once: true })
  const parser = new HistoryStreamParser()
  try {
    for await (const chunk of git.child.stdout as AsyncIterable<Uint8Array>) {
      throwIfAborted(signal)
      for (const commit of parsed(() => parser.push(chunk))) {
        yield commit
        throwIfAborted(signal)
      }
    }
    const exit = await git.exit
    throwIfAborted(signal)
    // Only a clean exit ends the history: a killed git's last commit may be cut short.
    if (!exit.ok) throw failure(git, 'log', undefined, range)
    for (const commit of parsed(() => parser.end())) yield commit
  } catch (error) {
    if (error instanceof EditError) throw error
    git.stop()
    await git.exit
    throwIfAborted(signal)
    throw failure(git, 'log', error, range)
  } finally {
    signal?.removeEventListener('abort', onAbort)
    git.stop()
    await git.exit
  }
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
  const blobs = await catFileBulk(repo, ids, wanted)
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
  const git = startGit(
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
 * replay splits this list into ranges, #12). One id per line; 41 bytes a commit in memory.
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

/** One long-lived `git cat-file --batch` process for blobs by id, on demand. */
export function createBlobReader(repo: string): BlobReader {
  const git = startGit(repo, ['cat-file', '--batch'], true)
  const batch = new CatFileBatch()
  const pending: { id: string; resolve(bytes: Uint8Array): void; reject(error: unknown): void }[] =
    []
  let closed = false
  let broken: EditError | null = null
  const failAll = (error: EditError): void => {
    broken ??= error
    for (const p of pending.splice(0)) p.reject(broken)
  }
  const stdout = git.child.stdout
  stdout?.on('data', (chunk: Uint8Array) => {
    let answers: CatFileAnswer[]
    try {
      answers = batch.push(chunk)
    } catch (error) {
      failAll(gitFailed('git cat-file printed output patchloom cannot read.', error))
      git.stop()
      return
    }
    for (const answer of answers) {
      const p = pending.shift()
      if (p === undefined) continue
      try {
        p.resolve(checkedBlob(answer, p.id, undefined))
      } catch (error) {
        p.reject(error)
      }
    }
  })
  git.child.stdin?.on('error', () => undefined)
  void git.exit.then(() => {
    if (!closed || pending.length > 0) failAll(failure(git, 'cat-file', undefined, undefined))
  })
  return {
    read(id) {
      if (closed) return Promise.reject(new Error('blob-reader: cannot read after close()'))
      if (!HEX_ID_RE.test(id)) {
        return Promise.reject(
          new EditError('CONFIG_INVALID', `${JSON.stringify(id)} is not a full object id.`),
        )
      }
      if (broken !== null) return Promise.reject(broken)
      return new Promise<Uint8Array>((resolve, reject) => {
        pending.push({ id, resolve, reject })
        git.child.stdin?.write(`${id}\n`)
      })
    },
    async close() {
      if (closed) return
      closed = true
      git.child.stdin?.end()
      const timer = setTimeout(() => git.stop(), 5_000)
      await git.exit
      clearTimeout(timer)
    },
  }
}

// ---------------------------------------------------------------------------------------------

interface GitExit {
  /** Exited with status 0. */
  readonly ok: boolean
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  /** The spawn error (ENOENT when git is not installed). */
  readonly error?: NodeJS.ErrnoException
}

interface Git {
  readonly child: ChildProcess
  readonly args: readonly string[]
  readonly repo: string
  /** Settles once the process has exited and been reaped; never rejects. */
  readonly exit: Promise<GitExit>
  /** The exit once `exit` has settled, else null. */
  result(): GitExit | null
  /** What git wrote on stderr so far (the first STDERR_LIMIT bytes). */
  stderr(): string
  /** Kills git if it is still running (idempotent); `exit` tells when it is gone. */
  stop(): void
}

function startGit(repo: string, args: readonly string[], stdin: boolean): Git {
  if (typeof repo !== 'string' || repo === '') {
    throw new EditError('CONFIG_INVALID', 'The repository path is empty.')
  }
  const fullArgs = ['-C', repo, ...CONFIG_PINS, '--no-pager', ...args] // see historyArgs
  const child = spawn('git', fullArgs, {
    stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    env: gitEnv(),
    windowsHide: true,
  })
  const errChunks: Buffer[] = []
  let errSize = 0
  child.stderr?.on('data', (chunk: Buffer) => {
    if (errSize >= STDERR_LIMIT) return
    errChunks.push(chunk)
    errSize += chunk.length
  })
  let settled: GitExit | null = null
  const exit = new Promise<GitExit>((resolve) => {
    const settle = (result: GitExit): void => {
      if (settled !== null) return
      settled = result
      resolve(result)
    }
    child.once('close', (code, signal) => settle({ ok: code === 0, code, signal }))
    child.once('error', (error: NodeJS.ErrnoException) => {
      // A failed spawn has no pid and may never emit 'close'.
      if (child.pid === undefined) settle({ ok: false, code: null, signal: null, error })
    })
  })
  return {
    child,
    args: fullArgs,
    repo,
    exit,
    stderr: () => Buffer.concat(errChunks).toString('utf8').slice(0, STDERR_LIMIT),
    result: () => settled,
    stop() {
      if (settled === null && child.pid !== undefined && child.exitCode === null) {
        child.kill('SIGTERM')
      }
    },
  }
}

/** Runs git to completion and returns its stdout (small outputs: rev-parse, ls-tree). */
async function runGit(repo: string, args: readonly string[], rev: string): Promise<Uint8Array> {
  const git = startGit(repo, args, false)
  const chunks: Buffer[] = []
  git.child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk))
  const exit = await git.exit
  if (!exit.ok) throw failure(git, args[0] ?? 'git', undefined, rev)
  return Buffer.concat(chunks)
}

/** Reads `ids` with one `git cat-file --batch --buffer`; `wanted` names the paths for errors. */
async function catFileBulk(
  repo: string,
  ids: readonly string[],
  wanted: readonly { path: string; id: string }[],
): Promise<Map<string, Uint8Array>> {
  const blobs = new Map<string, Uint8Array>()
  if (ids.length === 0) return blobs
  const pathOf = new Map<string, string>()
  for (const w of wanted) if (!pathOf.has(w.id)) pathOf.set(w.id, w.path)
  const git = startGit(repo, ['cat-file', '--batch', '--buffer'], true)
  git.child.stdin?.on('error', () => undefined)
  // Written in one go: git reads stdin while it writes stdout, and so do we, so neither blocks.
  git.child.stdin?.end(ids.join('\n') + '\n')
  const batch = new CatFileBatch()
  let next = 0
  try {
    for await (const chunk of git.child.stdout as AsyncIterable<Uint8Array>) {
      for (const answer of batch.push(chunk)) {
        const id = ids[next++]
        if (id === undefined) throw gitFailed('git cat-file answered more objects than asked for.')
        blobs.set(id, checkedBlob(answer, id, pathOf.get(id)))
      }
    }
  } catch (error) {
    git.stop()
    await git.exit
    if (error instanceof EditError) throw error
    throw failure(git, 'cat-file', error, undefined)
  }
  const exit = await git.exit
  if (!exit.ok) throw failure(git, 'cat-file', undefined, undefined)
  if (next !== ids.length)
    throw gitFailed(`git cat-file answered ${next} of ${ids.length} objects.`)
  return blobs
}

interface CatFileAnswer {
  /** The id git printed, or the requested name for a `missing` answer. */
  readonly id: string
  readonly type: string
  /** null when git said `missing` (or `ambiguous`). */
  readonly bytes: Uint8Array | null
}

/** Splits `git cat-file --batch` output (`<id> <type> <size>\n<bytes>\n` or `<name> missing\n`). */
class CatFileBatch {
  #parts: Uint8Array[] = []
  #size = 0
  /** The current answer's header once read; its body is then awaited. */
  #header: { id: string; type: string; size: number } | null = null

  push(chunk: Uint8Array): CatFileAnswer[] {
    const out: CatFileAnswer[] = []
    this.#parts.push(chunk)
    this.#size += chunk.length
    for (;;) {
      if (this.#header === null) {
        const buf = this.#flatten()
        const lf = buf.indexOf(0x0a)
        if (lf === -1) return out
        const fields = latin1(buf, 0, lf).split(' ')
        this.#take(lf + 1)
        const [id = '', type = '', size] = fields
        if (type === 'missing' || type === 'ambiguous') {
          out.push({ id, type, bytes: null })
          continue
        }
        if (size === undefined || !/^\d+$/.test(size)) {
          throw new Error(`cat-file: bad answer header ${JSON.stringify(fields.join(' '))}`)
        }
        this.#header = { id, type, size: Number(size) }
      }
      const header = this.#header
      if (this.#size < header.size + 1) return out
      const buf = this.#flatten()
      if (buf[header.size] !== 0x0a) throw new Error('cat-file: an object does not end with LF')
      // A copy of its own (not a Buffer view into a shared chunk), so it can be transferred.
      const bytes = new Uint8Array(header.size)
      bytes.set(buf.subarray(0, header.size))
      this.#take(header.size + 1)
      this.#header = null
      out.push({ id: header.id, type: header.type, bytes })
    }
  }

  /** The pending bytes as one array (joined only when they span chunks). */
  #flatten(): Uint8Array {
    if (this.#parts.length > 1) {
      const joined = new Uint8Array(this.#size)
      let at = 0
      for (const part of this.#parts) {
        joined.set(part, at)
        at += part.length
      }
      this.#parts = [joined]
    }
    return this.#parts[0] ?? new Uint8Array(0)
  }

  #take(count: number): void {
    const buf = this.#flatten()
    this.#parts = count < buf.length ? [buf.subarray(count)] : []
    this.#size -= count
  }
}

/** The answer's bytes if it is the blob `id` and they hash to it; else REPLAY_OBJECT_CORRUPT. */
function checkedBlob(answer: CatFileAnswer, id: string, path: string | undefined): Uint8Array {
  const where = path === undefined ? '' : ` (${path})`
  const details = path === undefined ? {} : { path }
  if (answer.bytes === null) {
    throw new EditError(
      'REPLAY_OBJECT_CORRUPT',
      `The object ${id}${where} is ${answer.type}.`,
      details,
    )
  }
  if (answer.type !== 'blob' || answer.id !== id) {
    throw new EditError(
      'REPLAY_OBJECT_CORRUPT',
      `The object ${id}${where} is a ${answer.type} (${answer.id}), not a blob.`,
      details,
    )
  }
  const actual = blobId(answer.bytes)
  if (actual !== id) {
    throw new EditError(
      'REPLAY_OBJECT_CORRUPT',
      `The blob ${id}${where} is corrupt: its bytes hash to ${actual}.`,
      details,
    )
  }
  return answer.bytes
}

function checkRange(range: string): void {
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

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) {
    throw new EditError('REQUEST_CANCELLED', 'Reading the history was cancelled.', {
      cause: signal.reason,
    })
  }
}

function gitFailed(message: string, cause?: unknown): EditError {
  return new EditError('REPLAY_GIT_FAILED', message, cause === undefined ? {} : { cause })
}

/** The error for a git process that failed; call it once `git.exit` has settled. */
function failure(git: Git, what: string, cause: unknown, rev: string | undefined): EditError {
  const exit = git.result()
  const opts = cause === undefined ? {} : { cause }
  if (exit?.error !== undefined) {
    if (exit.error.code === 'ENOENT') {
      return new EditError('REPLAY_GIT_NOT_INSTALLED', 'git was not found on PATH.', {
        cause: exit.error,
      })
    }
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

function latin1(buf: Uint8Array, start: number, end: number): string {
  let text = ''
  for (let i = start; i < end; i++) text += String.fromCharCode(buf[i] as number)
  return text
}
