// The state a step's target is in now, as recovery and undo compare it with a manifest's before
// and after states: absent, a file's content hash and permissions, a symlink's target hash, or
// something else standing there (a directory, a FIFO).
import { hashBytes } from '../hash.js'
import { errnoOf, type JournalFs } from './fs.js'
import { isLinkState, linkState } from './symlink.js'
import type { FileState } from './records.js'

/** What a target is now: absent, a file's or a symlink's state, or something else (a dir, ...). */
export type Current = null | FileState | { readonly other: string }

export async function currentState(fs: JournalFs, abs: string): Promise<Current> {
  let st
  try {
    st = await fs.lstat(abs)
  } catch (error) {
    const code = errnoOf(error)
    if (code === 'ENOENT' || code === 'ENOTDIR') return null
    throw error
  }
  if (st.kind === 'symlink') return linkState(fs, abs)
  if (st.kind !== 'file') return { other: st.kind === 'dir' ? 'a directory' : `a ${st.kind}` }
  return { hash: hashBytes(await fs.readFile(abs)), permissions: st.permissions }
}

export function sameState(current: Current, expected: FileState | null): boolean {
  if (current === null || expected === null) return current === expected
  if (!('hash' in current) || current.kind !== expected.kind) return false
  // A link has no permission bits of its own to compare (see symlink.ts).
  if (isLinkState(expected)) return current.hash === expected.hash
  return current.hash === expected.hash && current.permissions === expected.permissions
}

export function describeCurrent(current: Current): string {
  if (current === null) return 'it is missing'
  if ('other' in current) return `it is now ${current.other}`
  if (isLinkState(current)) return `it is a symlink with target ${current.hash.slice(0, 19)}…`
  return `it has content ${current.hash.slice(0, 19)}… and mode ${current.permissions.toString(8)}`
}
