// The clone cache of a queued replay: for a repository given by URL, each worker (and the
// enqueuer, which plans from it) keeps one bare mirror per URL under a cache directory, cloned
// the first time a job names the URL and fetched again only when a job needs a commit the mirror
// lacks. A clone goes to a temporary name and is renamed into place, so two processes sharing a
// cache never see half a mirror: the second rename loses, and its clone is deleted. git never
// prompts here (a worker has nobody to answer): credentials come from the user's credential
// helper, ssh agent or the URL itself, and are never echoed.
import { randomBytes } from 'node:crypto'
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import path from 'node:path'
import { EditError } from '../errors.js'
import { gitNotInstalled } from '../replay/git-command.js'
import { startGit, type GitExit } from '../replay/git-process.js'
import { cacheName, redactUrl } from './source.js'

export interface CloneCache {
  readonly dir: string
  /**
   * The local mirror of `url`, cloned if the cache has none. With `refresh`, fetched first (the
   * enqueuer plans from the remote's current history); otherwise fetched only when one of
   * `commits` is missing. QUEUE_CLONE_FAILED (retryable) when git cannot clone or fetch,
   * QUEUE_COMMIT_MISSING when a commit is still missing after a fetch.
   */
  mirror(url: string, options?: MirrorOptions): Promise<string>
}

export interface MirrorOptions {
  readonly refresh?: boolean
  readonly commits?: readonly string[]
}

/** `$XDG_CACHE_HOME/patchloom/repos`, or `~/.cache/patchloom/repos`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const xdg = env['XDG_CACHE_HOME']
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache')
  return path.join(base, 'patchloom', 'repos')
}

export interface CloneCacheOptions {
  /** Told of each clone and fetch before it starts (a worker logs them). */
  readonly onGit?: (what: 'clone' | 'fetch', url: string, mirror: string) => void
  /** A clone or fetch silent for this long is stopped (QUEUE_CLONE_FAILED). @default 300000 */
  readonly stallMs?: number
}

/** How long a clone or fetch may go without a word from git (progress included). */
export const DEFAULT_STALL_MS = 300_000

export function createCloneCache(dir: string, options: CloneCacheOptions = {}): CloneCache {
  const root = path.resolve(dir)
  const { onGit } = options
  const stallMs = options.stallMs ?? DEFAULT_STALL_MS
  // One operation per mirror at a time in this process (a worker with --concurrency K takes
  // several ranges of one repository at once); other processes are handled by the rename.
  const tails = new Map<string, Promise<unknown>>()
  const serial = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const next = (tails.get(key) ?? Promise.resolve()).then(work, work)
    const tail = next.catch(() => undefined)
    tails.set(key, tail)
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key)
    })
    return next
  }
  return {
    dir: root,
    mirror: (url, options = {}) =>
      serial(url, async () => {
        const target = path.join(root, cacheName(url))
        const fetch = async (): Promise<void> => {
          onGit?.('fetch', url, target)
          await fetchInto(url, target, stallMs)
        }
        if (!(await isDirectory(target))) {
          onGit?.('clone', url, target)
          await cloneInto(url, root, target, stallMs)
        } else if (options.refresh === true) await fetch()
        const wanted = options.commits ?? []
        if ((await missing(target, wanted)).length === 0) return target
        await fetch()
        const still = await missing(target, wanted)
        if (still.length > 0) {
          throw new EditError(
            'QUEUE_COMMIT_MISSING',
            `${redactUrl(url)} has no commit ${still[0] as string} even after a fetch: its history was rewritten (or the repository replaced) after the run was planned.`,
          )
        }
        return target
      }),
  }
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory()
  } catch {
    return false
  }
}

/** A clone under a temporary name older than this was left by a process that died. */
export const STALE_CLONE_MS = 24 * 3600 * 1000

async function cloneInto(
  url: string,
  root: string,
  target: string,
  stallMs: number,
): Promise<void> {
  await mkdir(root, { recursive: true })
  await removeStaleClones(root, path.basename(target))
  const temp = `${target}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`
  try {
    // gc.auto=0: a mirror that replays are reading from is never repacked under them.
    const run = await git(
      ['clone', '--mirror', '--progress', '-c', 'gc.auto=0', '--', url, temp],
      stallMs,
    )
    if (!run.ok) throw failed('clone', url, run)
    try {
      await rename(temp, target)
    } catch (error) {
      // Another process sharing the cache renamed its clone first: use that one.
      const code = (error as NodeJS.ErrnoException).code
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || !(await isDirectory(target))) throw error
    }
  } finally {
    await rm(temp, { recursive: true, force: true })
  }
}

const TEMP_MARK = '.tmp-'

/** Deletes the clones of `name` a dead process left under a temporary name a day or more ago. */
async function removeStaleClones(root: string, name: string): Promise<void> {
  const now = Date.now()
  for (const entry of await readdir(root)) {
    if (!entry.startsWith(`${name}${TEMP_MARK}`)) continue
    const at = path.join(root, entry)
    const since = await stat(at).then(
      (s) => now - s.mtimeMs,
      () => 0,
    )
    if (since >= STALE_CLONE_MS) await rm(at, { recursive: true, force: true })
  }
}

async function fetchInto(url: string, target: string, stallMs: number): Promise<void> {
  const run = await git(['-C', target, 'fetch', '--progress', '--prune', 'origin'], stallMs)
  // Two processes fetching into one mirror: the loser fails on a ref lock, and what it wanted
  // is usually there by now. The caller checks the commits again.
  if (!run.ok && !/\block\b|\.lock\b/i.test(run.stderr)) throw failed('fetch', url, run)
}

/** The commits of `wanted` that the mirror at `target` does not have. */
async function missing(target: string, wanted: readonly string[]): Promise<string[]> {
  const out: string[] = []
  for (const id of wanted) {
    const run = await git(['-C', target, 'cat-file', '-e', `${id}^{commit}`])
    if (!run.ok) out.push(id)
  }
  return out
}

/**
 * Runs git to its end. With `stallMs`, git is asked for progress and killed (its process group:
 * remote helpers and ssh too) once it has said nothing for that long: a transfer that hangs on a
 * dead network fails, and the range is retried, instead of holding a worker forever. git never
 * prompts for a user name or password: a worker has nobody to answer it.
 */
async function git(args: readonly string[], stallMs?: number): Promise<GitRun> {
  const run = startGit(args, {
    stdout: false,
    env: { GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '' },
    keep: 'tail',
    ...(stallMs === undefined ? {} : { stallMs }),
  })
  const exit = await run.exit
  if (exit.error !== undefined) {
    if (exit.error.code === 'ENOENT') throw gitNotInstalled(exit.error)
    throw exit.error
  }
  return { ...exit, stderr: run.stderr() }
}

type GitRun = GitExit & { readonly stderr: string }

function failed(what: string, url: string, run: GitRun): EditError {
  if (run.stalled !== undefined) {
    return new EditError(
      'QUEUE_CLONE_FAILED',
      `git ${what} of ${redactUrl(url)} made no progress for ${run.stalled / 1000} s and was stopped.`,
    )
  }
  const lines = run.stderr.split(/[\r\n]/).map((l) => l.trim())
  const fatal = lines.filter((l) => /^(fatal|error):/.test(l))
  const said = (fatal.length > 0 ? fatal : lines.filter((l) => l !== '').slice(-2)).join(' ')
  return new EditError(
    'QUEUE_CLONE_FAILED',
    `git ${what} of ${redactUrl(url)} failed: ${redactUrl(said) || 'git said nothing'}`,
  )
}
