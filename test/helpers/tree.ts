// Directory trees as comparable data for scenario and e2e tests: snapshot() lists every entry
// (directories, files with their bytes and executable bit, symlinks with their verbatim target),
// so a leftover temp file, an empty folder or a lost mode bit shows up as a difference.
// copyTree() builds a workspace from a fixture without following symlinks. No vitest imports:
// the built-CLI runner shares this module.
import {
  chmod,
  copyFile,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  symlink,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export type TreeEntryKind = 'file' | 'dir' | 'symlink'

export interface TreeEntry {
  /** '/'-separated, relative to the snapshot root. */
  readonly path: string
  readonly kind: TreeEntryKind
  /** File content, base64. */
  readonly bytes?: string
  /** Symlink target exactly as stored (not resolved). */
  readonly target?: string
  /** Files only: whether the owner execute bit is set. */
  readonly executable?: boolean
}

/**
 * Every entry under `dir` (not `dir` itself), sorted by path. A missing `dir` gives []. The
 * workspace's own `.patchloom/` (journal and lock) is left out unless `includeState`: tests check
 * it with journalEntries().
 */
export async function snapshot(
  dir: string,
  options: { readonly includeState?: boolean } = {},
): Promise<TreeEntry[]> {
  const entries: TreeEntry[] = []
  if (!(await exists(dir))) return entries
  await walk(dir, '', entries, options.includeState === true)
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** Names in `<root>/.patchloom/journal`, sorted ([] when there is none). */
export async function journalEntries(root: string): Promise<string[]> {
  const dir = join(root, '.patchloom', 'journal')
  return (await exists(dir)) ? (await readdir(dir)).sort() : []
}

async function walk(
  absDir: string,
  relDir: string,
  out: TreeEntry[],
  includeState = true,
): Promise<void> {
  for (const name of await readdir(absDir)) {
    if (relDir === '' && name === '.patchloom' && !includeState) continue
    const abs = join(absDir, name)
    const rel = relDir === '' ? name : `${relDir}/${name}`
    const stat = await lstat(abs)
    if (stat.isSymbolicLink()) {
      out.push({ path: rel, kind: 'symlink', target: await readlink(abs) })
    } else if (stat.isDirectory()) {
      out.push({ path: rel, kind: 'dir' })
      await walk(abs, rel, out)
    } else {
      const bytes = await readFile(abs)
      const executable = (stat.mode & 0o100) !== 0
      out.push({ path: rel, kind: 'file', bytes: bytes.toString('base64'), executable })
    }
  }
}

/**
 * The same entries with file content shown as text when it is valid UTF-8 (lossless: strict
 * UTF-8 decoding is a bijection), else as base64, so a failed toEqual prints a readable diff.
 */
export function readableTree(entries: readonly TreeEntry[]): Record<string, unknown>[] {
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
  return entries.map((entry) => {
    if (entry.kind !== 'file' || entry.bytes === undefined) return { ...entry }
    const raw = Buffer.from(entry.bytes, 'base64')
    let content: string
    try {
      content = `text:${utf8.decode(raw)}`
    } catch {
      content = `base64:${entry.bytes}`
    }
    return { path: entry.path, kind: entry.kind, content, executable: entry.executable }
  })
}

/** Copies `src` into `dst` (created if needed), keeping symlinks verbatim and file modes. */
export async function copyTree(src: string, dst: string): Promise<void> {
  await mkdir(dst, { recursive: true })
  for (const name of await readdir(src)) {
    const from = join(src, name)
    const to = join(dst, name)
    const stat = await lstat(from)
    if (stat.isSymbolicLink()) {
      await symlink(await readlink(from), to)
    } else if (stat.isDirectory()) {
      await copyTree(from, to)
    } else {
      await copyFile(from, to)
      await chmod(to, stat.mode & 0o777)
    }
  }
}

/** Removes everything inside `dir` but keeps `dir` itself. */
export async function emptyDir(dir: string): Promise<void> {
  for (const name of await readdir(dir)) await rm(join(dir, name), { recursive: true, force: true })
}

/** A fresh directory under the OS temp dir, realpath'd so roots compare equal on macOS too. */
export async function makeTempDir(prefix: string): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)))
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path)
    return true
  } catch {
    return false
  }
}
