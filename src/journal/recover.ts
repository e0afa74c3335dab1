// Rolling an unfinished transaction back to its before state, from its manifest and backups:
// the same code for a commit that failed in this process and one a crash interrupted. It is
// idempotent (a step already in its before state is skipped, so an interrupted recovery runs
// again), never overwrites a file in neither the before nor the after state (a conflict, left
// alone), and acts only on transactions vet.ts accepts; any other is refused and never written
// to, not even renamed. A failure on one transaction is reported, never thrown, so it cannot
// stop the requests that follow.
import path from 'node:path'
import { EditError } from '../errors.js'
import { codeForErrno, reasonOf } from './fs-errors.js'
import { errnoOf, type JournalFs } from './fs.js'
import { hashBytes } from '../hash.js'
import {
  CONFLICTS,
  MANIFEST,
  backupPath,
  stagedListing,
  stagedSteps,
  STATE_DIR,
  txnDir,
  userPath,
  type Layout,
} from './layout.js'
import type { Manifest, ManifestStep } from './manifest.js'
import { listEntries } from './store.js'
import { isLinkState } from './symlink.js'
import { currentState, describeCurrent, sameState } from './target-state.js'
import type { JournalTrust } from './trust.js'
import type { Warning } from '../types.js'
import { relDir, vetTransaction, type PathCheck } from './vet.js'
import type {
  Durability,
  FileState,
  JournalConflict,
  JournalHooks,
  RecoveryReport,
} from './records.js'

export interface RecoveryContext {
  readonly fs: JournalFs
  readonly layout: Layout
  readonly durability: Durability
  readonly hooks: JournalHooks
  /** Decides which transactions this workspace's engine wrote. */
  readonly trust: JournalTrust
  /** The engine's sandbox for the paths a manifest names (see vet.ts). */
  readonly checkPath?: PathCheck
}

// Durability (`full`, D-048): every directory whose entries recovery changed or may find changed
// only in memory (by an earlier recovery that was killed) is fsynced before the transaction is
// removed: the directory of each restored or removed file, the parent of each directory it
// removes, and the parent of each directory it re-creates, right after the mkdir and before the
// backup is renamed into it. A sync that fails after every file is back is reported as a
// `journal.not-durable` warning (the transaction is still removed); one that fails before a
// backup is moved stops the rollback there. Only the directories recovery itself removed are not
// synced (their parents are).
/**
 * Rolls the transaction in `dir` back. `started` (in-process only) is how many steps were begun;
 * recovery after a crash passes undefined and judges every step by its state. `vetted` is the
 * manifest vetTransaction just returned for it under the same lock hold (recoverAll): it is
 * not read and checked a second time.
 */
export async function rollBack(
  ctx: RecoveryContext,
  id: string,
  dir: string,
  started?: number,
  vetted?: Manifest,
): Promise<{ conflicts: JournalConflict[]; warnings: Warning[] }> {
  const status = path.basename(dir).endsWith('.conflict') ? 'conflict' : 'pending'
  const manifest = vetted ?? (await vetTransaction(ctx, id, status))
  const { fs, layout } = ctx
  // Staged files still there (never renamed into place), listed once rather than one lstat per
  // step. Nothing else writes them while the lock is held; a missing new/ means none are.
  const staged = await stagedNames(fs, dir, manifest.version)
  const conflicts: JournalConflict[] = []
  const sync = ctx.durability === 'full'
  // Directories to fsync at the end, and those recovery removed (gone: their parents are synced).
  const dirs: Dirs = {
    touched: new Set<string>(),
    removed: new Set<string>(),
    present: new Set<string>(),
  }
  const last = Math.min(started ?? manifest.steps.length, manifest.steps.length) - 1
  for (let i = last; i >= 0; i--) {
    const step = manifest.steps[i] as ManifestStep
    const abs = path.join(layout.root, ...step.path.split('/'))
    const backup = backupPath(dir, manifest.version, i)
    try {
      // A staged file still in place was never renamed: this step did not touch its target, though
      // it may have created (empty) directories for it.
      if (step.kind === 'write' && staged.has(i)) {
        await removeCreatedDirs(fs, layout.root, step, dirs)
        continue
      }
      const current = await currentState(fs, abs)
      // A write of a file where a directory stood (a type change: its files are removed by the
      // earlier steps) that finds the directory still there never took its place.
      const notReplaced =
        step.before === null &&
        current !== null &&
        'other' in current &&
        current.other === 'a directory' &&
        removesBelow(manifest, step.path)
      if (notReplaced) continue
      if (sameState(current, step.before)) {
        // A recovery killed between removing a new file and removing the directories made for it
        // leaves them behind; removing them again is a no-op when they are already gone.
        if (step.before === null) await removeCreatedDirs(fs, layout.root, step, dirs)
        // Never touched, or put back by a recovery that was killed before its syncs: the entries
        // may be only in memory, so they are synced up to the root (cheap: a set, rare: reruns).
        for (let d = path.dirname(abs); ; d = path.dirname(d)) {
          dirs.touched.add(d)
          if (d === layout.root || !d.startsWith(layout.root + path.sep)) break
        }
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
        dirs.touched.add(path.dirname(abs))
        await removeCreatedDirs(fs, layout.root, step, dirs)
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
        await ensureDirs(fs, path.dirname(abs), layout.root, sync, dirs)
        // Renaming the backup (a hard link of the original where possible) restores the original
        // inode, so even its timestamps come back.
        await fs.rename(backup, abs)
        dirs.touched.add(path.dirname(abs))
      }
    } catch (error) {
      throw stepFailure(id, step.path, error)
    }
    ctx.hooks.at?.('recovery-restored', i)
  }
  const warnings: Warning[] = []
  if (sync) {
    for (const d of dirs.touched) {
      if (dirs.removed.has(d)) continue
      try {
        await fs.syncDir(d)
      } catch (error) {
        warnings.push(notDurable(id, userPath(layout, d) ?? '.', error))
      }
    }
  }
  return { conflicts, warnings }
}

/** Whether a step of the manifest removes a path below `rel` ('/'-separated). */
function removesBelow(manifest: Manifest, rel: string): boolean {
  return manifest.steps.some((s) => s.after === null && s.path.startsWith(`${rel}/`))
}

/** What rollBack fsyncs at the end, and the directories it removed (never synced themselves). */
interface Dirs {
  readonly touched: Set<string>
  readonly removed: Set<string>
  /** Directories an earlier step of this rollback found or re-created (ensureDirs). */
  readonly present: Set<string>
}

/** A rollback whose files are back but whose directory sync failed: not known to be durable. */
function notDurable(id: string, where: string, error: unknown): Warning {
  return {
    code: 'journal.not-durable',
    message: `Transaction ${id} was rolled back, but syncing ${where} failed (${reasonOf(error)}): the files are back in their before state, but a power cut now could undo part of that.`,
    path: where,
  }
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
  const warnings: Warning[] = []
  const entries = await listEntries(ctx.fs, ctx.layout)
  const todo = entries
    .filter((e) => e.status === 'pending' || (retryConflicts && e.status === 'conflict'))
    .sort((a, b) => (a.id < b.id ? 1 : -1))
  for (const entry of todo) {
    const dir = txnDir(ctx.layout, entry.id, entry.status)
    if (entry.status === 'pending' && (await unprepared(ctx, dir))) {
      // Prepare never finished: no target was touched. Only staging files to drop.
      await ctx.fs.removeTree(dir).catch(() => undefined) // dropped on a later run instead
      continue
    }
    let found: JournalConflict[]
    let manifest: Manifest
    try {
      manifest = await vetTransaction(ctx, entry.id, entry.status)
    } catch (error) {
      if (!(error instanceof EditError)) throw error
      // Not ours, or not safe to act on: reported where it is and never written to.
      conflicted.push(entry.id)
      conflicts.push(refusal(entry.id, relDir(ctx.layout, dir), error))
      continue
    }
    // A conflict names the directory (and backups) where they stay: the .conflict one.
    const kept = txnDir(ctx.layout, entry.id, 'conflict')
    try {
      const result = await rollBack(ctx, entry.id, dir, undefined, manifest)
      warnings.push(...result.warnings)
      found = result.conflicts.map((c) =>
        c.backup === undefined
          ? c
          : { ...c, backup: path.join(kept, path.relative(dir, c.backup)) },
      )
    } catch (error) {
      // A filesystem failure part-way (say EACCES on a target's directory): what was restored
      // stays restored, the rest waits for the next `patchloom recover` (rollback is idempotent).
      const failure = stepFailure(entry.id, relDir(ctx.layout, kept), error)
      if (!(failure instanceof EditError)) throw failure
      found = [refusal(entry.id, failure.path ?? relDir(ctx.layout, kept), failure)]
    }
    if (found.length === 0) {
      await ctx.fs.removeTree(dir)
      rolledBack.push(entry.id)
      continue
    }
    conflicted.push(entry.id)
    conflicts.push(...found)
    try {
      const report = new TextEncoder().encode(JSON.stringify(found, null, 1) + '\n')
      await ctx.fs.removeTree(path.join(dir, CONFLICTS))
      await ctx.fs.writeNew(path.join(dir, CONFLICTS), report, 0o644, ctx.durability === 'full')
      if (entry.status === 'pending') {
        await ctx.fs.rename(dir, txnDir(ctx.layout, entry.id, 'conflict'))
      }
    } catch {
      // Still pending: the next request tries again and reports it again.
    }
  }
  // The removal (or the .conflict rename) of each transaction directory. A failure is reported
  // (D-048): a power cut could then bring a rolled-back transaction back, and recovery would
  // roll it back again (its files are in their before state), so nothing is lost, but it is not
  // the durable end `full` promises.
  if (ctx.durability === 'full' && todo.length > 0) {
    try {
      await ctx.fs.syncDir(ctx.layout.journalDir)
    } catch (error) {
      warnings.push({
        code: 'journal.not-durable',
        message: `Recovery finished, but syncing ${STATE_DIR}/journal failed (${reasonOf(error)}): after a power cut the rolled-back transactions may be listed again (recovery then finds their files already back).`,
        path: `${STATE_DIR}/journal`,
      })
    }
  }
  return { rolledBack, conflicted, conflicts, ...(warnings.length === 0 ? {} : { warnings }) }
}

/** A conflict entry for a transaction that was refused or whose rollback failed. */
function refusal(transaction: string, where: string, error: EditError): JournalConflict {
  return { transaction, path: where, reason: error.message, code: error.code }
}

/** True for a pending directory without a manifest: prepare never finished. */
async function unprepared(ctx: RecoveryContext, dir: string): Promise<boolean> {
  try {
    const st = await ctx.fs.lstat(dir)
    const uid = process.getuid?.()
    // Only our own real directory is dropped; anything else is left to vetTransaction to refuse.
    if (st.kind !== 'dir' || (uid !== undefined && st.uid !== undefined && st.uid !== uid))
      return false
    return !(await exists(ctx.fs, path.join(dir, MANIFEST)))
  } catch {
    return false
  }
}

/** A filesystem failure while rolling back one step, naming the user's file, not the journal's. */
function stepFailure(id: string, rel: string, error: unknown): unknown {
  // A plain Error without an errno is a bug (or a test's simulated crash): it stays what it is.
  if (error instanceof EditError || errnoOf(error) === undefined) return error
  return new EditError(
    codeForErrno(error),
    `Rolling back transaction ${id} failed on ${rel} (${reasonOf(error)}); the files restored so far stay restored. Fix the cause, then run \`patchloom recover\` again.`,
    { path: rel, cause: error },
  )
}

/**
 * Removes the directories a step created, deepest first, while they are empty. Each one gone
 * (removed now, or by an earlier run that may have been killed before syncing) is recorded in
 * `dirs.removed` and its parent in `dirs.touched`: the rmdir persists only when the parent is
 * synced, or a power cut brings back an empty directory the transaction created.
 */
async function removeCreatedDirs(
  fs: JournalFs,
  root: string,
  step: ManifestStep,
  dirs: Dirs,
): Promise<void> {
  for (const rel of [...step.createdDirs].reverse()) {
    const abs = path.join(root, ...rel.split('/'))
    try {
      await fs.rmdir(abs)
    } catch (error) {
      // ENOENT: never created, or already removed; ENOTEMPTY/EEXIST: someone uses it now;
      // ENOTDIR: never created, since the file or link an earlier step removes still stands there.
      if (['ENOTEMPTY', 'EEXIST', 'ENOTDIR'].includes(errnoOf(error) ?? '')) return
      if (errnoOf(error) !== 'ENOENT') throw error
    }
    dirs.removed.add(abs)
    dirs.touched.add(path.dirname(abs))
  }
}

async function backupHash(
  fs: JournalFs,
  backup: string,
  before: FileState,
): Promise<string | null> {
  try {
    // Renamed into the workspace, the backup is planted as it is: a link's backup must be a link
    // (hashed by its target, never what it points to), a file's a regular file; anything else
    // (a link where a file was, a FIFO) is not trusted.
    const kind = (await fs.lstat(backup)).kind
    if (isLinkState(before)) return kind === 'symlink' ? hashBytes(await fs.readlink(backup)) : null
    return kind === 'file' ? hashBytes(await fs.readFile(backup)) : null
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return null
    throw error
  }
}

/** The steps whose staged file is still in the transaction (none when new/ is gone, version 2). */
async function stagedNames(fs: JournalFs, dir: string, version: number): Promise<Set<number>> {
  try {
    return stagedSteps(await fs.readdir(stagedListing(dir, version)), version)
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return new Set()
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

/**
 * mkdir -p for `dir`, never above `root`. With `sync`, each new directory's parent is fsynced
 * right after the mkdir: the backup renamed in next leaves the transaction for good once its new directory
 * is synced, so the directory's own name must be durable first, or a power cut loses both.
 */
async function ensureDirs(
  fs: JournalFs,
  dir: string,
  root: string,
  sync: boolean,
  dirs: Dirs,
): Promise<void> {
  if (dir === root || !dir.startsWith(root + path.sep)) return
  // Found or made by an earlier step of this rollback, and not removed since (one lstat per
  // directory, not one per file restored into it).
  if (dirs.present.has(dir) && !dirs.removed.has(dir)) return
  try {
    const st = await fs.lstat(dir)
    if (st.kind === 'dir') {
      dirs.present.add(dir)
      return
    }
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw error
  }
  await ensureDirs(fs, path.dirname(dir), root, sync, dirs)
  await fs.mkdir(dir)
  if (sync) await fs.syncDir(path.dirname(dir))
  dirs.present.add(dir)
}
