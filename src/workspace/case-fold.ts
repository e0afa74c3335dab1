// Whether the filesystem under a workspace root folds case, probed once per engine, and the key
// under which two paths name one file there (prepare.ts looks for PATH_DUPLICATE by it,
// sequence.ts groups paths by it). Reads the filesystem (readdir, lstat) but never writes.
import { lstatSync, readdirSync } from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import path from 'node:path'

/** The parts of the filesystem detectCaseInsensitive reads; tests substitute a fake. */
export interface CaseProbeFs {
  readonly readdir: (dir: string) => Promise<string[]>
  /** Identity of an entry (device and inode), or null when nothing is there. */
  readonly identity: (p: string) => Promise<string | null>
}

const nodeCaseProbeFs: CaseProbeFs = {
  readdir: (dir) => readdir(dir),
  identity: async (p) => {
    const st = await lstat(p, { bigint: true }).catch(() => null)
    return st === null ? null : `${st.dev}:${st.ino}`
  },
}

/** The same probes as synchronous calls, for an engine with blockingReads (no threadpool trip). */
export const syncCaseProbeFs: CaseProbeFs = {
  readdir: async (dir) => readdirSync(dir),
  identity: async (p) => {
    try {
      const st = lstatSync(p, { bigint: true })
      return `${st.dev}:${st.ino}`
    } catch {
      return null
    }
  },
}

/** Entries of the root probed before it is listed: a checkout's, and the journal's once it has one. */
const LIKELY_ENTRIES = ['.git', '.patchloom'] as const

/**
 * Whether the filesystem holding `rootReal` folds case: looks up an existing entry under its
 * case-swapped name and compares identities. Probes entries of the root first (LIKELY_ENTRIES,
 * then the root's listing), then the root's own name; writes nothing. Undecidable (no name with letters), it assumes the platform's usual
 * filesystem: case-insensitive on macOS and Windows, case-sensitive elsewhere.
 */
export async function detectCaseInsensitive(
  rootReal: string,
  fs: CaseProbeFs = nodeCaseProbeFs,
  platform: string = process.platform,
): Promise<boolean> {
  // PERF: entries most workspaces hold are tried before the root is listed (a readdir per engine).
  for (const name of LIKELY_ENTRIES) {
    const probe = path.join(rootReal, name)
    const original = await fs.identity(probe)
    if (original === null) continue
    return (await fs.identity(path.join(rootReal, swapCase(name)))) === original
  }
  const names = await fs.readdir(rootReal).catch(() => [] as string[])
  const probes = names.map((name) => path.join(rootReal, name))
  if (path.dirname(rootReal) !== rootReal) probes.push(rootReal)
  for (const probe of probes) {
    const name = path.basename(probe)
    const swapped = swapCase(name)
    if (swapped === name) continue
    const original = await fs.identity(probe)
    if (original === null) continue
    const other = await fs.identity(path.join(path.dirname(probe), swapped))
    // The swapped name could be a distinct file of its own: only the same identity means folding.
    return other === original
  }
  return platform === 'darwin' || platform === 'win32'
}

function swapCase(name: string): string {
  let out = ''
  for (const ch of name) {
    const upper = ch.toUpperCase()
    out += upper === ch ? ch.toLowerCase() : upper
  }
  return out
}

/** The key under which two paths name the same file on the root's filesystem. */
export function pathKey(abs: string, caseInsensitive: boolean): string {
  return caseInsensitive ? abs.normalize('NFC').toLowerCase() : abs
}
