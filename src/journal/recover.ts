// Rolling an unfinished transaction back to its before state, from its manifest and backups.
// The same code serves a commit that failed in this process and one a crash interrupted. It is
// idempotent: a step whose target is already in its before state is skipped, so an interrupted
// recovery can simply run again. It never overwrites a file that is in neither the before nor
// the after state (someone changed it since): that is reported as a conflict and left alone.
import path from 'node:path'
import { EditError } from '../errors.js'
import { errnoOf, type JournalFs } from './fs.js'
import { hashBytes } from '../hash.js'
import { CONFLICTS, MANIFEST, NEW_DIR, OLD_DIR, parseEntry, txnDir, type Layout } from './layout.js'
import { decodeManifest, type Manifest, type ManifestStep } from './manifest.js'
import { isLinkState, linkState } from './symlink.js'
import type {
  Durability,
  FileState,
  JournalConflict,
  JournalHooks,
  RecoveryReport,
} from './types.js'

export interface RecoveryContext {
  readonly fs: JournalFs
  readonly layout: Layout
  readonly durability: Durability
  readonly hooks: JournalHooks
}

/** What a target is now: absent, a regular file's state, or something else (dir, symlink, ...). */
type Current = null | FileState | { readonly other: string }

/**
 * Rolls the transaction in `dir` back. `started` (in-process only) is how many steps were begun;
 * recovery after a crash passes undefined and judges every step by its state.
 */
export async function rollBack(
  ctx: RecoveryContext,
  id: string,
  dir: string,
  started?: number,
): Promise<{ conflicts: JournalConflict[] }> {
  const manifest = await readManifest(ctx.fs, dir, id)
  const { fs, layout } = ctx
  const conflicts: JournalConflict[] = []
  const touched = new Set<string>()
  const last = Math.min(started ?? manifest.steps.length, manifest.steps.length) - 1
  for (let i = last; i >= 0; i--) {
    const step = manifest.steps[i] as ManifestStep
    const abs = path.join(layout.root, ...step.path.split('/'))
    const backup = path.join(dir, OLD_DIR, String(i))
    // A staged file still in new/ was never renamed: this step did not touch its target, though
    // it may have created (empty) directories for it.
    if (step.kind === 'write' && (await exists(fs, path.join(dir, NEW_DIR, String(i))))) {
      await removeCreatedDirs(fs, layout.root, step)
      continue
    }
    const current = await currentState(fs, abs)
    if (sameState(current, step.before)) {
      // A recovery killed between removing a new file and removing the directories made for it
      // leaves them behind; removing them again is a no-op when they are already gone.
      if (step.before === null) await removeCreatedDirs(fs, layout.root, step)
      continue
    }
    if (!sameState(current, step.after)) {
      conflicts.push({
        transaction: id,
        path: step.path,
        reason: `${describeCurrent(current)}, neither the state before nor after transaction ${id}; left as it is.`,
        ...(step.before === null ? {} : { backup }),
      })
      continue
    }
    if (step.before === null) {
      await fs.unlink(abs)
      await removeCreatedDirs(fs, layout.root, step)
    } else {
      const saved = await backupHash(fs, backup, step.before)
      if (saved !== step.before.hash) {
        conflicts.push({
          transaction: id,
          path: step.path,
          reason: `its backup ${saved === null ? 'is missing' : 'does not match the recorded hash'}; the file was left in its after state.`,
        })
        continue
      }
      await ensureDirs(fs, path.dirname(abs), layout.root)
      // Renaming the backup (a hard link of the original where possible) restores the original
      // inode, so even its timestamps come back.
      await fs.rename(backup, abs)
    }
    touched.add(path.dirname(abs))
    ctx.hooks.at?.('recovery-restored', i)
  }
  if (ctx.durability === 'full') {
    for (const d of touched) await fs.syncDir(d).catch(() => undefined)
  }
  return { conflicts }
}

/**
 * Rolls back every unfinished transaction (newest first). With `retryConflicts`, transactions
 * left in conflict by an earlier recovery are tried again (the user may have fixed the files).
 * The caller holds the workspace lock.
 */
export async function recoverAll(
  ctx: RecoveryContext,
  retryConflicts: boolean,
): Promise<RecoveryReport> {
  const rolledBack: string[] = []
  const conflicted: string[] = []
  const conflicts: JournalConflict[] = []
  const entries = await listEntries(ctx.fs, ctx.layout)
  const todo = entries
    .filter((e) => e.status === 'pending' || (retryConflicts && e.status === 'conflict'))
    .sort((a, b) => (a.id < b.id ? 1 : -1))
  for (const entry of todo) {
    const dir = txnDir(ctx.layout, entry.id, entry.status)
    if (entry.status === 'pending' && !(await exists(ctx.fs, path.join(dir, MANIFEST)))) {
      // Prepare never finished: no target was touched. Only staging files to drop.
      await ctx.fs.removeTree(dir)
      continue
    }
    // A conflict names the directory (and backups) where they stay: the .conflict one.
    const kept = txnDir(ctx.layout, entry.id, 'conflict')
    let found: JournalConflict[]
    try {
      found = (await rollBack(ctx, entry.id, dir)).conflicts.map((c) =>
        c.backup === undefined
          ? c
          : { ...c, backup: path.join(kept, path.relative(dir, c.backup)) },
      )
    } catch (error) {
      if (!(error instanceof EditError) || error.code !== 'JOURNAL_CORRUPT') throw error
      found = [
        {
          transaction: entry.id,
          path: path.relative(ctx.layout.root, kept),
          reason: error.message,
        },
      ]
    }
    if (found.length === 0) {
      await ctx.fs.removeTree(dir)
      rolledBack.push(entry.id)
      continue
    }
    conflicted.push(entry.id)
    conflicts.push(...found)
    const report = new TextEncoder().encode(JSON.stringify(found, null, 1) + '\n')
    await ctx.fs.removeTree(path.join(dir, CONFLICTS))
    await ctx.fs.writeNew(path.join(dir, CONFLICTS), report, 0o644, ctx.durability === 'full')
    if (entry.status === 'pending') {
      await ctx.fs.rename(dir, txnDir(ctx.layout, entry.id, 'conflict'))
    }
  }
  if (ctx.durability === 'full' && todo.length > 0)
    await ctx.fs.syncDir(ctx.layout.journalDir).catch(() => undefined)
  return { rolledBack, conflicted, conflicts }
}

export async function listEntries(
  fs: JournalFs,
  layout: Layout,
): Promise<{ id: string; status: 'committed' | 'pending' | 'conflict' }[]> {
  let names: string[]
  try {
    names = await fs.readdir(layout.journalDir)
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return []
    throw error
  }
  return names.flatMap((name) => {
    const entry = parseEntry(name)
    return entry === undefined ? [] : [entry]
  })
}

export async function readManifest(fs: JournalFs, dir: string, id: string): Promise<Manifest> {
  let bytes: Uint8Array
  try {
    bytes = await fs.readFile(path.join(dir, MANIFEST))
  } catch (error) {
    throw new EditError(
      'JOURNAL_CORRUPT',
      `Transaction ${id} has no readable manifest (${errnoOf(error) ?? (error as Error).message}).`,
      { cause: error },
    )
  }
  const manifest = decodeManifest(bytes)
  if (typeof manifest === 'string' || manifest.id !== id) {
    throw new EditError(
      'JOURNAL_CORRUPT',
      `Transaction ${id} has an invalid manifest: ${typeof manifest === 'string' ? manifest : 'its id does not match its directory'}.`,
    )
  }
  return manifest
}

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

/** Removes the directories a step created, deepest first, while they are empty. */
async function removeCreatedDirs(fs: JournalFs, root: string, step: ManifestStep): Promise<void> {
  for (const rel of [...step.createdDirs].reverse()) {
    try {
      await fs.rmdir(path.join(root, ...rel.split('/')))
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') continue // never created, or already removed
      if (['ENOTEMPTY', 'EEXIST'].includes(errnoOf(error) ?? '')) return // someone uses it now
      throw error
    }
  }
}

async function backupHash(
  fs: JournalFs,
  backup: string,
  before: FileState,
): Promise<string | null> {
  try {
    // A link's backup is a link: read its target, never the file it points to.
    return hashBytes(await (isLinkState(before) ? fs.readlink(backup) : fs.readFile(backup)))
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return null
    throw error
  }
}

async function exists(fs: JournalFs, p: string): Promise<boolean> {
  try {
    await fs.lstat(p)
    return true
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return false
    throw error
  }
}

/** mkdir -p for `dir`, never above `root`. */
async function ensureDirs(fs: JournalFs, dir: string, root: string): Promise<void> {
  if (dir === root || !dir.startsWith(root + path.sep)) return
  try {
    const st = await fs.lstat(dir)
    if (st.kind === 'dir') return
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw error
  }
  await ensureDirs(fs, path.dirname(dir), root)
  await fs.mkdir(dir)
}
