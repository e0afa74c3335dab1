// One writer per workspace. Across processes: a lock file `.patchloom/lock` created with O_EXCL,
// holding its owner's pid, host and process start time; a lock whose owner is gone (or whose pid
// now belongs to a different process) is stale and is broken. Inside one process: a mutex per
// lock file, so engines sharing a workspace queue instead of polling the file.
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import * as fsp from 'node:fs/promises'
import { hostname } from 'node:os'
import { EditError } from '../errors.js'
import { errnoOf } from './fs.js'

interface LockOwner {
  readonly pid: number
  readonly host: string
  /** Process start time (clock ticks since boot, Linux); null where it cannot be read. */
  readonly start: string | null
  readonly acquiredAt: string
}

/** Held lock; release() is idempotent. */
export interface WorkspaceLock {
  /** True when a dead owner's lock was broken: its transaction may need recovery. */
  readonly brokeStale: boolean
  release(): Promise<void>
}

const queues = new Map<string, Promise<void>>()

/** An unreadable lock file younger than this may be mid-write by a live owner. */
const TORN_LOCK_AGE_MS = 2000
const POLL_START_MS = 2
const POLL_MAX_MS = 50

/**
 * Takes the workspace lock at `lockPath`, waiting up to `timeoutMs` for a live owner to finish.
 * Throws JOURNAL_LOCKED (retryable) naming the owner when the wait runs out.
 */
export async function acquireLock(lockPath: string, timeoutMs: number): Promise<WorkspaceLock> {
  // In-process queue first: the file lock then only ever sees one contender from this process.
  const previous = queues.get(lockPath) ?? Promise.resolve()
  let releaseQueue!: () => void
  const mine = new Promise<void>((resolve) => (releaseQueue = resolve))
  const tail = previous.then(() => mine)
  queues.set(lockPath, tail)
  const dropQueue = (): void => {
    releaseQueue()
    if (queues.get(lockPath) === tail) queues.delete(lockPath)
  }
  await previous
  try {
    const brokeStale = await acquireFile(lockPath, timeoutMs)
    let released = false
    return {
      brokeStale,
      release: async () => {
        if (released) return
        released = true
        try {
          // PERF: a local unlink is microseconds; its threadpool round trip is not (D-080).
          unlinkSync(lockPath)
        } finally {
          dropQueue()
        }
      },
    }
  } catch (error) {
    dropQueue()
    throw error
  }
}

async function acquireFile(lockPath: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  const self = JSON.stringify(currentOwner())
  let brokeStale = false
  let waitMs = POLL_START_MS
  for (;;) {
    try {
      writeFileSync(lockPath, self, { flag: 'wx', mode: 0o644 })
      return brokeStale
    } catch (error) {
      if (errnoOf(error) !== 'EEXIST') throw error
    }
    const seen = await readOwner(lockPath)
    if (seen === undefined) continue // released between our create and our read: try again
    if (seen.owner === null ? seen.ageMs > TORN_LOCK_AGE_MS : !isAlive(seen.owner)) {
      if (await breakStale(lockPath, seen.text)) brokeStale = true
      continue
    }
    if (Date.now() >= deadline) {
      const who =
        seen.owner === null
          ? 'Another patchloom process'
          : `Another patchloom process (pid ${seen.owner.pid} on ${seen.owner.host}, since ${seen.owner.acquiredAt})`
      throw new EditError(
        'JOURNAL_LOCKED',
        `${who} is committing to this workspace; waited ${timeoutMs} ms for ${lockPath}.`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, waitMs))
    waitMs = Math.min(waitMs * 2, POLL_MAX_MS)
  }
}

async function readOwner(
  lockPath: string,
): Promise<{ text: string; owner: LockOwner | null; ageMs: number } | undefined> {
  let text: string
  let ageMs: number
  try {
    text = await fsp.readFile(lockPath, 'utf8')
    ageMs = Date.now() - (await fsp.stat(lockPath)).mtimeMs
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined
    throw error
  }
  try {
    const value = JSON.parse(text) as Partial<LockOwner>
    if (typeof value.pid === 'number' && typeof value.host === 'string') {
      return { text, owner: value as LockOwner, ageMs }
    }
  } catch {
    // Empty or torn: the writer died between creating the file and writing it, or is writing it
    // right now. The caller waits TORN_LOCK_AGE_MS before calling it stale.
  }
  return { text, owner: null, ageMs }
}

/**
 * Moves a stale lock aside, then checks that what was moved is the stale lock seen: two processes
 * breaking the same stale lock could otherwise remove a fresh lock the faster one just took.
 */
async function breakStale(lockPath: string, seenText: string): Promise<boolean> {
  const aside = `${lockPath}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`
  try {
    await fsp.rename(lockPath, aside)
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return false
    throw error
  }
  const moved = await fsp.readFile(aside, 'utf8').catch(() => '')
  if (moved !== seenText) {
    // We moved someone's fresh lock: put it back (fails harmlessly if a third process got in).
    await fsp.link(aside, lockPath).catch(() => undefined)
    await fsp.unlink(aside).catch(() => undefined)
    return false
  }
  await fsp.unlink(aside).catch(() => undefined)
  return true
}

function isAlive(owner: LockOwner | null): boolean {
  if (owner === null) return false
  // Another host's process cannot be checked from here: assume it is alive (see README).
  if (owner.host !== hostname()) return true
  try {
    process.kill(owner.pid, 0)
  } catch (error) {
    // EPERM: the pid exists but belongs to another user; it is alive.
    if (errnoOf(error) === 'ESRCH') return false
  }
  // The pid may have been reused by an unrelated process since the owner died.
  const start = processStart(owner.pid)
  return owner.start === null || start === null || start === owner.start
}

/** This process's pid, host and start time: fixed for its life, so read once. */
let thisProcess: Omit<LockOwner, 'acquiredAt'> | undefined

function currentOwner(): LockOwner {
  thisProcess ??= { pid: process.pid, host: hostname(), start: processStart(process.pid) }
  return { ...thisProcess, acquiredAt: new Date().toISOString() }
}

/** Field 22 of /proc/PID/stat (start time since boot); null off Linux. */
function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) is parenthesised and may contain spaces: split after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[19] ?? null
  } catch {
    return null
  }
}

/** Claims a set of keys in one step and returns its release (see pathLocks). */
export type AcquireKeys = (keys: readonly string[]) => Promise<() => void>

/**
 * A family of per-key locks: acquire(keys) waits for every earlier holder of any of `keys`, then
 * holds them all until the returned release is called. All keys are claimed in one synchronous
 * step, so two claimants can never wait on each other (no lock order is needed). Each family has
 * its own keys: the server holds its paths in one family while the engine's commit takes
 * the same paths in the journal's.
 */
export function pathLocks(): AcquireKeys {
  const tails = new Map<string, Promise<void>>()
  return async (keys) => {
    let release!: () => void
    const mine = new Promise<void>((resolve) => (release = resolve))
    const waits: Promise<void>[] = []
    const claimed: [string, Promise<void>][] = []
    for (const key of new Set(keys)) {
      const previous = tails.get(key)
      if (previous !== undefined) waits.push(previous)
      // Unclaimed (the usual case): the key's tail is our own promise, no chain per path (a
      // 10,000-file commit would build 10,000 of them).
      const tail = previous === undefined ? mine : previous.then(() => mine)
      tails.set(key, tail)
      claimed.push([key, tail])
    }
    await Promise.all(waits)
    return () => {
      release()
      for (const [key, tail] of claimed) if (tails.get(key) === tail) tails.delete(key)
    }
  }
}

/**
 * Orders commits per file inside this process: waits for every earlier holder of any of `paths`,
 * then holds them all until the returned release is called. This matters for engines whose roots
 * nest (each has its own workspace lock, yet both may write one file).
 */
export const acquirePaths: AcquireKeys = pathLocks()
