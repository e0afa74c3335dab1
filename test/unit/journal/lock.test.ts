// The workspace lock as commits see it: journals in one process queue instead of interleaving;
// across processes a lock file whose owner is gone (dead pid, reused pid, old torn file) is
// broken, and a live owner (a real child process, with its start time from /proc) is waited for
// until lockTimeoutMs, then JOURNAL_LOCKED.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { journalEntries } from '../../helpers/tree.js'
import {
  editError,
  journalFor,
  STANDARD_SUMMARY,
  tempWorkspace,
  treeState,
  writeFiles,
  writeStep,
} from './fixtures.js'

const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})

/** A child process that stays alive until the test ends. */
async function liveChild(): Promise<number> {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' })
  children.push(child)
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve)
    child.once('error', reject)
  })
  return child.pid as number
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn('true', [], { stdio: 'ignore' })
  await new Promise((resolve) => child.once('exit', resolve))
  return child.pid as number
}

/** Field 22 of /proc/PID/stat: the process start time, as lock.ts records it. */
function startTime(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] as string
}

async function workspaceWithLock(owner: unknown): Promise<{ root: string; lockPath: string }> {
  const { root } = await tempWorkspace()
  await writeFiles(root, { 'a.txt': 'one\n' })
  await mkdir(path.join(root, '.patchloom/journal'), { recursive: true })
  const lockPath = path.join(root, '.patchloom/lock')
  await writeFile(lockPath, typeof owner === 'string' ? owner : JSON.stringify(owner))
  return { root, lockPath }
}

const ownerOf = (pid: number, start: string | null, host = hostname()) => ({
  pid,
  host,
  start,
  acquiredAt: new Date().toISOString(),
})

async function commitA(root: string, lockTimeoutMs: number): Promise<string | undefined> {
  return journalFor(root, { lockTimeoutMs }).commit(
    [await writeStep(root, 'a.txt', 'two\n')],
    STANDARD_SUMMARY,
  )
}

describe('Journal lock within one process', () => {
  it('never interleaves the commits of journals sharing a root', async () => {
    const { root } = await tempWorkspace()
    const events: string[] = []
    const lockSeen: boolean[] = []
    const journals = ['a', 'b', 'c'].map((name) =>
      journalFor(root, {
        hooks: {
          at: (point, index) => {
            events.push(`${name}:${point}`)
            if (point === 'prepared' && index === 0) {
              const owner = JSON.parse(readFileSync(path.join(root, '.patchloom/lock'), 'utf8'))
              lockSeen.push((owner as { pid: number }).pid === process.pid)
            }
          },
        },
      }),
    )
    // Two commits per journal, all started before any finishes.
    const steps = await Promise.all(
      ['a', 'b', 'c'].flatMap((name) =>
        [1, 2].map((n) => writeStep(root, `${name}${n}.txt`, `${name} ${n}\n`)),
      ),
    )
    const ids = await Promise.all(
      steps.map((step, i) => journals[Math.floor(i / 2)]!.commit([step], STANDARD_SUMMARY)),
    )
    expect(new Set(ids).size).toBe(6)
    // A lock turn begins with a transaction's first point after the previous turn's last
    // (cleaned); a journal's queued commits may share one turn (group commit).
    const runs: string[][] = []
    for (const [i, event] of events.entries()) {
      if (event.endsWith(':locked') && (i === 0 || events[i - 1]?.endsWith(':cleaned') === true))
        runs.push([])
      runs.at(-1)?.push(event)
    }
    expect(runs.length).toBeGreaterThanOrEqual(3)
    expect(events.filter((e) => e.endsWith(':cleaned'))).toHaveLength(6)
    for (const run of runs) {
      const owner = run[0]?.split(':')[0]
      expect(run.every((e) => e.startsWith(`${owner}:`))).toBe(true)
      expect(run.at(-1)).toBe(`${owner}:cleaned`)
    }
    expect(lockSeen.length).toBeGreaterThan(0)
    expect(lockSeen.every(Boolean)).toBe(true)
    expect(existsSync(path.join(root, '.patchloom/lock'))).toBe(false)
  })

  it('runs each commit from locked to cleaned before the next starts', async () => {
    const { root } = await tempWorkspace()
    await writeFiles(root, { 'x.txt': 'x\n', 'y.txt': 'y\n' })
    const events: string[] = []
    const hooksFor = (name: string) => ({
      at: (point: string) => {
        if (point === 'locked' || point === 'marked' || point === 'cleaned')
          events.push(`${name}:${point}`)
      },
    })
    const one = journalFor(root, { hooks: hooksFor('one') })
    const two = journalFor(root, { hooks: hooksFor('two') })
    const [x, y] = await Promise.all([
      one.commit([await writeStep(root, 'x.txt', 'X\n')], STANDARD_SUMMARY),
      two.commit([await writeStep(root, 'y.txt', 'Y\n')], STANDARD_SUMMARY),
    ])
    const [first, second] = events[0]?.startsWith('one:') ? ['one', 'two'] : ['two', 'one']
    expect(events).toEqual([
      `${first}:locked`,
      `${first}:marked`,
      `${first}:cleaned`,
      `${second}:locked`,
      `${second}:marked`,
      `${second}:cleaned`,
    ])
    expect(await journalEntries(root)).toEqual([x, y].sort())
  })
})

describe('Journal lock across processes', () => {
  it('breaks a stale lock whose owner is dead', async () => {
    const { root, lockPath } = await workspaceWithLock(ownerOf(await deadPid(), '1'))
    expect(await commitA(root, 2000)).toBeDefined()
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('two\n')
    expect(existsSync(lockPath)).toBe(false)
  })

  it('breaks a lock whose pid now belongs to a process started at another time', async () => {
    const pid = await liveChild()
    const { root, lockPath } = await workspaceWithLock(
      ownerOf(pid, `${Number(startTime(pid)) - 1}`),
    )
    expect(await commitA(root, 2000)).toBeDefined()
    expect(existsSync(lockPath)).toBe(false)
  })

  it('waits for a live owner, then fails JOURNAL_LOCKED without touching anything', async () => {
    const pid = await liveChild()
    const owner = ownerOf(pid, startTime(pid))
    const { root, lockPath } = await workspaceWithLock(owner)
    const before = await treeState(root)
    const started = Date.now()
    const error = await editError(commitA(root, 150))
    expect(Date.now() - started).toBeGreaterThanOrEqual(150)
    expect(error.code).toBe('JOURNAL_LOCKED')
    expect(error.retryable).toBe(true)
    expect(error.message).toContain(`pid ${pid}`)
    expect(await treeState(root)).toEqual(before)
    expect(await journalEntries(root)).toEqual([])
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toEqual(owner)
  })

  it('takes the lock once its live owner dies while it waits', async () => {
    const pid = await liveChild()
    const { root, lockPath } = await workspaceWithLock(ownerOf(pid, startTime(pid)))
    const commit = commitA(root, 10_000)
    children.pop()?.kill('SIGKILL')
    expect(await commit).toBeDefined()
    expect(existsSync(lockPath)).toBe(false)
  })

  it('treats an owner on another host as alive', async () => {
    const { root } = await workspaceWithLock(ownerOf(1, null, `not-${hostname()}`))
    expect((await editError(commitA(root, 100))).code).toBe('JOURNAL_LOCKED')
  })

  it('waits on a torn (empty) lock that is young', async () => {
    const { root, lockPath } = await workspaceWithLock('')
    const error = await editError(commitA(root, 150))
    expect(error.code).toBe('JOURNAL_LOCKED')
    expect(error.message).toContain('Another patchloom process is committing')
    expect(await readFile(lockPath, 'utf8')).toBe('')
  })

  it('breaks a torn (empty) lock that is old', async () => {
    const { root, lockPath } = await workspaceWithLock('')
    const old = new Date(Date.now() - 60_000)
    await utimes(lockPath, old, old)
    expect(await commitA(root, 2000)).toBeDefined()
    expect(existsSync(lockPath)).toBe(false)
  })
})
