// The operating-system side of a server process: killing its whole process group, reading the
// group's resident memory from Linux /proc, and the timers used while waiting on it. Spawning,
// the LSP conversation and when to stop are the session's (session.ts).
// Servers run in their own process group because some start commands are shims that fork the
// real server (typescript@7's bin/tsc under Node 20), so both kill and memory act on the group.

import type { ChildProcess } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'

export function delay<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(value), ms)
    timer.unref()
  })
}

/** The promise's value, or undefined when it has not settled within `ms`. */
export async function waitFor<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([promise, delay(ms, undefined)])
}

export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  const pid = child.pid
  if (pid === undefined) return
  try {
    // The server leads its own group (detached): a negative pid reaches every process in it.
    if (process.platform !== 'win32') process.kill(-pid, signal)
    else child.kill(signal)
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Resident memory of the process group led by `pid`, or undefined when /proc says nothing. */
export async function groupRssBytes(pid: number): Promise<number | undefined> {
  // The whole process group: a shim's forked server is where the memory is.
  const members = await processGroupMembers(pid)
  let total = 0
  let known = false
  for (const member of members.length > 0 ? members : [pid]) {
    const rss = await readRssBytes(member)
    if (rss !== undefined) {
      total += rss
      known = true
    }
  }
  return known ? total : undefined
}

async function readRssBytes(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024
  } catch {
    return undefined
  }
}

/** Pids whose process group is `pgid` (Linux /proc), or [] when /proc cannot be read. */
async function processGroupMembers(pgid: number): Promise<number[]> {
  let entries: string[]
  try {
    entries = await readdir('/proc')
  } catch {
    return []
  }
  const members: number[] = []
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (entry) => {
        try {
          const stat = await readFile(`/proc/${entry}/stat`, 'utf8')
          // Fields after the parenthesised command name: state ppid pgrp ...
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
          if (Number(fields[2]) === pgid) members.push(Number(entry))
        } catch {
          // The process exited while we looked.
        }
      }),
  )
  return members
}
