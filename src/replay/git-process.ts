// Starts one git process and reports how it ended: the runner behind every git command replay
// and the queue's clone cache run. git runs in the C locale (its messages can be classified),
// without the variables that would point it at another repository or program, and is reaped
// before `exit` resolves. The callers choose the arguments; the pinned command line that reads a
// repository is git-command.ts, the clone cache's commands are src/queue/clone-cache.ts.
import { spawn, type ChildProcess } from 'node:child_process'

export interface GitExit {
  /** Exited with status 0 (and was not stopped for stalling). */
  readonly ok: boolean
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  /** The spawn error (ENOENT when git is not installed). */
  readonly error?: NodeJS.ErrnoException
  /** Killed after this many milliseconds without a byte on stderr (see GitOptions.stallMs). */
  readonly stalled?: number
}

export interface GitProcess {
  readonly child: ChildProcess
  readonly args: readonly string[]
  /** Resolves once the process has exited and been reaped; never rejects. */
  readonly exit: Promise<GitExit>
  /** The exit once `exit` has resolved, else null. */
  result(): GitExit | null
  /** What git wrote on stderr so far: its first or last STDERR_LIMIT bytes (GitOptions.keep). */
  stderr(): string
  /** Kills git if it is still running (idempotent); `exit` tells when it is gone. */
  stop(): void
}

export interface GitOptions {
  /** A pipe to git's stdin; else stdin is closed. */
  readonly stdin?: boolean
  /** A pipe from git's stdout; else its output is dropped. @default true */
  readonly stdout?: boolean
  /** Variables set on top of gitEnv(). */
  readonly env?: NodeJS.ProcessEnv
  /**
   * Kills git, with its whole process group (remote helpers, ssh), once it has written nothing
   * on stderr for this long: a transfer asked for `--progress` that hangs on a dead network.
   */
  readonly stallMs?: number
  /**
   * Which end of a long stderr to keep: the first error git prints, or the last lines of a
   * transfer whose progress comes first.
   * @default 'head'
   */
  readonly keep?: 'head' | 'tail'
}

export const STDERR_LIMIT = 16 * 1024

// Variables that would make git read another repository than its arguments name, or run a diff
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

/** Starts `git <args>`; the caller reads its pipes, then awaits `exit`. */
export function startGit(args: readonly string[], options: GitOptions = {}): GitProcess {
  const { stallMs } = options
  const child = spawn('git', args, {
    stdio: [
      options.stdin === true ? 'pipe' : 'ignore',
      options.stdout === false ? 'ignore' : 'pipe',
      'pipe',
    ],
    env: { ...gitEnv(), ...options.env },
    detached: stallMs !== undefined,
    windowsHide: true,
  })
  const stderr = keptStderr(options.keep ?? 'head')
  let stalled: number | undefined
  let timer: NodeJS.Timeout | undefined
  const arm = (): void => {
    if (stallMs === undefined) return
    clearTimeout(timer)
    timer = setTimeout(() => {
      stalled = stallMs
      try {
        process.kill(-(child.pid as number), 'SIGKILL')
      } catch {
        child.kill('SIGKILL')
      }
    }, stallMs)
  }
  arm()
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr.push(chunk)
    arm()
  })
  let ended: GitExit | null = null
  const exit = new Promise<GitExit>((resolve) => {
    const finish = (result: GitExit): void => {
      if (ended !== null) return
      clearTimeout(timer)
      ended = stalled === undefined ? result : { ...result, ok: false, stalled }
      resolve(ended)
    }
    child.once('close', (code, signal) => finish({ ok: code === 0, code, signal }))
    child.once('error', (error: NodeJS.ErrnoException) => {
      // A failed spawn has no pid and may never emit 'close'.
      if (child.pid === undefined) finish({ ok: false, code: null, signal: null, error })
    })
  })
  return {
    child,
    args,
    exit,
    stderr: () => stderr.text(),
    result: () => ended,
    stop() {
      if (ended === null && child.pid !== undefined && child.exitCode === null) {
        child.kill('SIGTERM')
      }
    },
  }
}

/** The first or the last STDERR_LIMIT bytes of a stream, as text. */
function keptStderr(keep: 'head' | 'tail'): { push(chunk: Buffer): void; text(): string } {
  let chunks: Buffer[] = []
  let size = 0
  return {
    push(chunk) {
      if (keep === 'head' && size >= STDERR_LIMIT) return
      chunks.push(chunk)
      size += chunk.length
      if (keep === 'tail' && size > 2 * STDERR_LIMIT) {
        const joined = Buffer.concat(chunks).subarray(-STDERR_LIMIT)
        chunks = [joined]
        size = joined.length
      }
    },
    text() {
      const text = Buffer.concat(chunks).toString('utf8')
      return keep === 'head' ? text.slice(0, STDERR_LIMIT) : text.slice(-STDERR_LIMIT)
    },
  }
}
