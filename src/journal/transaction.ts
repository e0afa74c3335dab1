// Transactions through the write-ahead journal, run while the workspace lock is held, alone
// (runTransaction) or several at once (runBatch), in three phases: prepare stages every new
// content in <id>.pending as new.N and keeps every old content as old.N, checks both against the
// verified hashes and writes the manifest, before any target is touched; replace, in step order,
// re-checks each target and renames the staged file over it (or unlinks it); mark fsyncs the
// touched directories and renames <id>.pending to <id>: committed. Any failure before the mark
// rolls back with the same code recovery uses (recover.ts), so a failed commit and a crashed one
// end the same way; in a batch, only the transaction it concerns.
import { equalBytes } from '../bytes/equal.js'
import path from 'node:path'
import { EditError } from '../errors.js'
import type { Warning } from '../types.js'
import { codeForErrno, reasonOf } from './fs-errors.js'
import { errnoOf, type JournalFs, type JournalStat } from './fs.js'
import { hashBytes } from '../hash.js'
import {
  backupPath,
  MANIFEST,
  stagedPath,
  STATE_DIR,
  stepOfTxnFile,
  txnDir,
  userPath,
} from './layout.js'
import {
  encodeSignedManifest,
  MANIFEST_VERSION,
  type Manifest,
  type ManifestStep,
} from './manifest.js'
import { rollBack, type RecoveryContext } from './recover.js'
import { backUpLink, isLinkState, SYMLINK_PERMISSIONS } from './symlink.js'
import type { CommitStep, ReadStamp, TransactionSummary } from './records.js'

/** Recovery's context: a failed commit rolls back with recovery's code (and its checks). */
export type TransactionContext = RecoveryContext

/** Files staged or backed up at once; bounded so a large change cannot exhaust fds (EMFILE). */
const CONCURRENCY = 16

/** How a target was captured at prepare time, to re-check it cheaply just before replacing it. */
type Captured =
  /** Nothing there; `clear`: a directory stands there that earlier removals empty. */
  | { readonly kind: 'absent'; readonly clear?: true }
  /** A hard link: the target is unchanged while it is still this inode with this stat. */
  | { readonly kind: 'linked'; readonly stat: JournalStat }
  /** A copy: the target must be re-read and hashed. */
  | { readonly kind: 'copied'; readonly hash: string }
  /** A symlink, backed up as a new link: its target string must still hash the same. */
  | { readonly kind: 'link'; readonly hash: string }

/** One transaction of a batch: its id (ids increase in batch order), steps and summary. */
export interface BatchMember {
  readonly id: string
  readonly steps: readonly CommitStep[]
  readonly summary: TransactionSummary
}

/** How one transaction of a batch ended: committed (with its warnings), or its error. */
export type MemberOutcome =
  | { readonly ok: true; readonly warnings: Warning[] }
  | { readonly ok: false; readonly error: unknown }

/** A transaction of a batch from its prepare on: what later phases need of it. */
interface Prepared {
  readonly member: BatchMember
  readonly index: number
  readonly dir: string
  readonly captured: readonly Captured[]
  readonly manifestSteps: readonly ManifestStep[]
  readonly manifestTemp: string
  /** Staged files and copied backups to flush with the manifest (durability 'full'). */
  readonly syncFiles: readonly string[]
  readonly touchedDirs: Set<string>
  /** Steps begun (see replaceAll). */
  started: number
}

// The phases in detail, each one round for the whole batch:
//   prepare: for each transaction, stage every new content in <id>.pending as new.N, keep every
//            old content as old.N (a hard link, else a copy; a symlink as a new link, see
//            symlink.ts), check both against the verified hashes, write the manifest aside; with
//            durability 'full' fsync all of it (one round for every transaction), name each
//            manifest, then fsync the transaction directories and the journal directory (one
//            round). No target has been touched yet.
//   replace: for each transaction, in step order, re-check each target and rename the staged
//            file over it (or unlink it). A write may stand where an earlier removal of the same
//            transaction took a file or link away from a directory it needs (foo removed,
//            foo/bar written), or where a directory stands whose files earlier removals took
//            (foo/bar removed, foo written): its directories are then made, or the emptied
//            directory removed, just before it.
//   mark:    fsync every touched directory and transaction directory (one round), then rename
//            each <id>.pending to <id>: committed, and fsync the journal directory once (a
//            failure there is a warning: see the end).
// A failure ends only the transactions it concerns: in prepare, their staging is dropped; later,
// each is rolled back on its own. The journal decides which transactions may share a batch
// (journal.ts); those here touch disjoint files and make or remove no directories of another's.
/**
 * Runs one transaction; returns when it is committed, with a `journal.not-durable` warning when
 * the commit mark could not be synced. The caller holds the workspace lock.
 */
export async function runTransaction(
  ctx: TransactionContext,
  id: string,
  steps: readonly CommitStep[],
  summary: TransactionSummary,
): Promise<Warning[]> {
  const [outcome] = await runBatch(ctx, [{ id, steps, summary }])
  if (outcome === undefined) throw new Error('journal: a batch of one has one outcome')
  if (!outcome.ok) throw outcome.error
  return outcome.warnings
}

/**
 * Runs the transactions of one batch, in the phases above; one outcome per member, in order.
 * Never throws for a member's failure. The caller holds the workspace lock.
 */
export async function runBatch(
  ctx: TransactionContext,
  members: readonly BatchMember[],
): Promise<MemberOutcome[]> {
  const { fs, layout, hooks } = ctx
  const sync = ctx.durability === 'full'
  const outcomes: (MemberOutcome | undefined)[] = members.map(() => undefined)
  const fail = (p: Prepared | number, error: unknown): void => {
    outcomes[typeof p === 'number' ? p : p.index] = { ok: false, error }
  }
  // Failed before any target was touched: its staging is dropped.
  const unprepared = async (p: Prepared, error: unknown): Promise<void> => {
    await fs.removeTree(p.dir).catch(() => undefined)
    fail(p, asCommitError(error, 'nothing was changed', layout.root, p.dir, p.member.steps))
  }

  let live: Prepared[] = []
  for (const [index, member] of members.entries()) {
    // A hook that throws here is a crash before the transaction began: nothing to drop.
    try {
      hooks.at?.('locked', 0)
    } catch (error) {
      fail(index, error)
      continue
    }
    const dir = txnDir(layout, member.id, 'pending')
    try {
      live.push(await stage(ctx, member, index, dir))
    } catch (error) {
      await fs.removeTree(dir).catch(() => undefined)
      fail(index, asCommitError(error, 'nothing was changed', layout.root, dir, member.steps))
    }
  }
  // PERF (D-125): the staged contents and the manifests flushed at once, before the manifests
  // get their names: none of them matters until a target is replaced, which waits for every
  // sync here and below, and a manifest is never named before its bytes are durable.
  if (sync) {
    const failed = await syncRound(
      live.flatMap((p) =>
        [...p.syncFiles, p.manifestTemp].map((f) => ({ target: f, owners: [p] })),
      ),
      (f) => fs.syncFile(f),
    )
    for (const [p, error] of failed) await unprepared(p, error)
    live = live.filter((p) => !failed.has(p))
  }
  const named: Prepared[] = []
  for (const p of live) {
    try {
      await fs.rename(p.manifestTemp, path.join(p.dir, MANIFEST))
      named.push(p)
    } catch (error) {
      await unprepared(p, error)
    }
  }
  live = named
  // Independent of one another, and all done before any target is touched: in flight at once.
  if (sync && live.length > 0) {
    const failed = await syncRound(
      [
        ...live.map((p) => ({ target: p.dir, owners: [p] })),
        { target: layout.journalDir, owners: live },
      ],
      (d) => fs.syncDir(d),
    )
    for (const [p, error] of failed) await unprepared(p, error)
    live = live.filter((p) => !failed.has(p))
  }
  const prepared: Prepared[] = []
  for (const p of live) {
    // A hook that throws here is a crash with the transaction prepared: it stays pending.
    try {
      hooks.at?.('prepared', 0)
      prepared.push(p)
    } catch (error) {
      fail(p, error)
    }
  }
  live = prepared

  // Rolled back on its own: what the transaction touched goes back to its before state.
  const undo = async (p: Prepared, error: unknown): Promise<void> => {
    fail(p, await rolledBack(ctx, p, error))
  }
  const replaced: Prepared[] = []
  for (const p of live) {
    try {
      await replaceAll(ctx, p)
      replaced.push(p)
    } catch (error) {
      await undo(p, error)
    }
  }
  live = replaced
  // All of them finish before the marks below; their order among themselves does not matter.
  if (sync && live.length > 0) {
    const owners = new Map<string, Prepared[]>()
    for (const p of live)
      for (const d of p.touchedDirs) owners.set(d, [...(owners.get(d) ?? []), p])
    const txnDirs = new Set(live.map((p) => p.dir))
    const failed = await syncRound(
      [
        ...[...owners].map(([d, ps]) => ({ target: d, owners: ps })),
        ...live.map((p) => ({ target: p.dir, owners: [p] })),
      ],
      (d) => (txnDirs.has(d) ? fs.syncDir(d) : syncIfPresent(fs, d)),
    )
    for (const [p, error] of failed) await undo(p, error)
    live = live.filter((p) => !failed.has(p))
  }
  const marked: Prepared[] = []
  for (const p of live) {
    try {
      hooks.at?.('synced', 0)
      await fs.rename(p.dir, txnDir(layout, p.member.id, 'committed'))
      marked.push(p)
    } catch (error) {
      await undo(p, error)
    }
  }
  // Committed: nothing after the mark may roll back (the pending directory is gone), so a failed
  // sync of the mark cannot fail the commit. It is reported instead: until the disk flushes
  // the rename, a power cut would roll the whole change back (still all-or-nothing, but not the
  // durable commit `full` promises).
  const warnings: Warning[] = []
  if (sync && marked.length > 0) {
    try {
      await fs.syncDir(layout.journalDir)
    } catch (error) {
      warnings.push(notDurable(error))
    }
  }
  for (const p of marked) {
    try {
      hooks.at?.('marked', 0)
      outcomes[p.index] = { ok: true, warnings: [...warnings] }
    } catch (error) {
      fail(p, error)
    }
  }
  return outcomes.map(
    (o) => o ?? { ok: false, error: new Error('journal: a member has no outcome') },
  )
}

/** Prepare without its syncs: stages, backs up and writes the manifest aside (see above). */
async function stage(
  ctx: TransactionContext,
  member: BatchMember,
  index: number,
  dir: string,
): Promise<Prepared> {
  const { fs, layout, hooks } = ctx
  const { id, steps, summary } = member
  const removals = removalIndex(steps)
  const manifestSteps: ManifestStep[] = []
  // PERF (D-122): one directory per transaction; each mkdir cost 0.2-0.6 ms here.
  await fs.mkdir(dir)
  await forEachLimited(steps, async (step, i) => {
    if (step.kind !== 'write') return
    const staged = stagedPath(dir, MANIFEST_VERSION, i)
    if (step.symlink === true) await fs.symlink(step.bytes, staged)
    // Flushed with the manifest, in one round of fsyncs (D-125).
    else await fs.writeNew(staged, step.bytes, step.permissions, false)
    hooks.at?.('staged', i)
  })
  const captured = await captureAll(ctx, dir, steps, removals)
  // A directory two new files share is created (and removed on rollback) by the first step
  // only: listed twice, the second mkdir would fail with EEXIST.
  const claimedDirs = new Set<string>()
  for (const [i, step] of steps.entries()) {
    const createdDirs =
      step.kind === 'write' && step.before === null
        ? (await missingDirs(ctx, step.abs, removedBefore(removals, i))).filter(
            (d) => !claimedDirs.has(d),
          )
        : []
    for (const d of createdDirs) claimedDirs.add(d)
    manifestSteps.push({
      kind: step.kind,
      // The real path, symlinks resolved: recovery and undo refuse to write through a symlink
      // (vet.ts), and step.rel may spell the file through a symlinked directory.
      path: userPath(layout, step.abs) ?? step.rel,
      before: step.before,
      after:
        step.kind === 'write'
          ? step.symlink === true
            ? // Recorded as every link is, whatever bits the step carries (manifest.ts).
              {
                hash: hashBytes(step.bytes),
                permissions: SYMLINK_PERMISSIONS,
                kind: 'symlink' as const,
              }
            : // PERF: the engine passes the hash it already took of these bytes.
              { hash: step.afterHash ?? hashBytes(step.bytes), permissions: step.permissions }
          : null,
      createdDirs,
    })
  }
  const manifest: Manifest = {
    version: MANIFEST_VERSION,
    id,
    createdAt: new Date().toISOString(),
    durability: ctx.durability,
    summary,
    steps: manifestSteps,
  }
  // Written aside and renamed: a manifest is either absent (nothing was touched) or whole.
  const manifestTemp = path.join(dir, MANIFEST + '.tmp')
  const bytes = await encodeSignedManifest(ctx.trust, manifest)
  await fs.writeNew(manifestTemp, bytes, 0o644, false)
  const syncFiles = steps.flatMap((step, i) => [
    ...(step.kind === 'write' && step.symlink !== true
      ? [stagedPath(dir, MANIFEST_VERSION, i)]
      : []),
    // A backup that is a copy (a hard link shares the target's inode: nothing to flush).
    ...(captured[i]?.kind === 'copied' ? [backupPath(dir, MANIFEST_VERSION, i)] : []),
  ])
  return {
    member,
    index,
    dir,
    captured,
    manifestSteps,
    manifestTemp,
    syncFiles,
    touchedDirs: new Set(),
    started: 0,
  }
}

/**
 * Replaces the targets of one prepared transaction, in step order, and prunes the directories
 * its removals emptied; records the directories it touched. Throws on the first failure, with
 * `p.started` saying how many steps were begun.
 */
async function replaceAll(ctx: TransactionContext, p: Prepared): Promise<void> {
  const { fs, layout, hooks } = ctx
  const emptied: string[] = []
  // A step that failed half-way (after creating its directories) is rolled back too. A step
  // whose re-check or directory creation failed has touched nothing: what it found there is
  // someone else's change, which rollback would otherwise report as a conflict or remove.
  const breathe = slicer()
  for (const [i, step] of p.member.steps.entries()) {
    await breathe()
    const was = p.captured[i] as Captured
    await recheck(ctx, step, was)
    if (step.kind === 'write') {
      if (was.kind === 'absent' && was.clear === true) await clearEmptiedDir(ctx, step)
      const made = await makeDirs(ctx, step, (p.manifestSteps[i] as ManifestStep).createdDirs)
      for (const abs of made) p.touchedDirs.add(path.dirname(abs))
    }
    p.started = i + 1
    if (step.kind === 'write') {
      await fs.rename(stagedPath(p.dir, MANIFEST_VERSION, i), step.abs)
    } else {
      await fs.unlink(step.abs)
      emptied.push(path.dirname(step.abs))
    }
    p.touchedDirs.add(path.dirname(step.abs))
    hooks.at?.('replaced', i)
  }
  // Pruned only once every step is in place: a later step may write into the directory a
  // removal emptied (delete d/a, add d/b), and its manifest expects that directory to exist.
  for (const d of emptied)
    for (const pruned of await pruneEmptyDirs(fs, d, layout.root))
      p.touchedDirs.add(path.dirname(pruned))
}

/** Rolls one transaction back after `error`; the error its caller gets. */
async function rolledBack(ctx: TransactionContext, p: Prepared, error: unknown): Promise<unknown> {
  const { layout } = ctx
  const { id, steps } = p.member
  const outcome = await rollBackFailed(ctx, id, p.dir, p.started)
  if (outcome.ok)
    return asCommitError(
      error,
      `the change was rolled back; no file was changed${notDurableRollback(outcome.warnings)}`,
      layout.root,
      p.dir,
      steps,
    )
  const first = outcome.conflicts[0]
  return new EditError(
    'JOURNAL_ROLLBACK_FAILED',
    `Committing failed (${describe(error, layout.root, p.dir, steps)}) and rolling back failed too: ${outcome.reason} The transaction ${id} stays in .patchloom/journal; run \`patchloom recover\` once the cause is fixed.`,
    { ...(first === undefined ? {} : { path: first }), cause: error },
  )
}

/**
 * One round of fsyncs: every target, CONCURRENCY at a time. A failure fails the transactions
 * that own the target (the first error of each is returned); a target whose owners have all
 * failed already is not synced.
 */
async function syncRound(
  items: readonly { readonly target: string; readonly owners: readonly Prepared[] }[],
  run: (target: string) => Promise<void>,
): Promise<Map<Prepared, unknown>> {
  const failed = new Map<Prepared, unknown>()
  let next = 0
  const breathe = slicer()
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      await breathe()
      const item = items[next++]
      if (item === undefined) break
      if (item.owners.every((p) => failed.has(p))) continue
      try {
        await run(item.target)
      } catch (error) {
        for (const p of item.owners) if (!failed.has(p)) failed.set(p, error)
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker))
  return failed
}

function notDurable(error: unknown): Warning {
  return {
    code: 'journal.not-durable',
    message: `The change is committed, but syncing ${STATE_DIR}/journal after the commit mark failed (${reasonOf(error)}): it is not guaranteed to survive a power cut, which would roll it back whole.`,
  }
}

/** Links (or copies) every before-state as old.N and checks it against the verified hash. */
async function captureAll(
  ctx: TransactionContext,
  dir: string,
  steps: readonly CommitStep[],
  removals: Removals,
): Promise<Captured[]> {
  const out: Captured[] = new Array<Captured>(steps.length)
  await forEachLimited(steps, async (step, i) => {
    const removed = removedBefore(removals, i)
    out[i] = await capture(ctx, backupPath(dir, MANIFEST_VERSION, i), step, removed)
    ctx.hooks.at?.('backed-up', i)
  })
  return out
}

async function capture(
  ctx: TransactionContext,
  backup: string,
  step: CommitStep,
  removed: RemovedBefore,
): Promise<Captured> {
  const { fs } = ctx
  if (step.before === null && removedAbove(step.abs, removed, ctx.layout.root)) {
    // Below a file or link an earlier step removes: whatever the path reaches now is not it.
    return { kind: 'absent' }
  }
  const current = await lstatOrNull(fs, step.abs)
  if (step.before === null) {
    if (current?.kind === 'dir' && removesInside(step.abs, removed))
      return { kind: 'absent', clear: true }
    if (current !== null)
      throw changed(step, current.kind === 'dir' ? 'became a directory' : 'was created')
    return { kind: 'absent' }
  }
  if (current === null) throw changed(step, 'was removed')
  if (isLinkState(step.before)) return captureLink(ctx.fs, backup, step, current)
  if (current.kind !== 'file')
    throw changed(step, `became a ${current.kind === 'dir' ? 'directory' : current.kind}`)
  if (current.permissions !== step.before.permissions)
    throw changed(step, `had its mode changed to ${current.permissions.toString(8)}`)
  let linked = false
  // A file with other hard links may be edited in place through them, which would change a
  // linked backup too; copy those. Link where the filesystem allows, else copy.
  if (current.nlink === 1) {
    try {
      await fs.link(step.abs, backup)
      linked = true
    } catch (error) {
      if (!['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK'].includes(errnoOf(error) ?? ''))
        throw error
    }
  }
  if (linked && step.beforeStamp !== undefined && stampHolds(current, step.beforeStamp)) {
    // PERF (D-082): the file is the one the caller read (same inode, size, mtime and a ctime
    // the kernel would have moved on any change since), so the backup, the same inode, holds the
    // bytes it hashed: no second read and hash. The link itself moves the ctime; a content change
    // between the lstat above and the link that moved the mtime still sends it to the hash.
    const stat = await fs.lstat(backup)
    const stamp = step.beforeStamp
    if (stat.ino === stamp.ino && stat.size === stamp.size && stat.mtimeNs === stamp.mtimeNs)
      return { kind: 'linked', stat }
  }
  // A copy is flushed with the staged files and the manifest (runTransaction, D-125).
  if (!linked) await fs.copyNew(step.abs, backup, current.permissions, false)
  const bytes = await fs.readFile(backup)
  // PERF: the bytes the caller hashed, when it kept them, are compared (a memcmp) instead
  // of hashing the backup: a file edited again within RACY_MS of its last change (an agent's
  // edit loop) has a stamp that proves nothing. Any difference still goes to the hash.
  const same = step.beforeBytes !== undefined && equalBytes(bytes, step.beforeBytes)
  const hash = same ? step.before.hash : hashBytes(bytes)
  if (hash !== step.before.hash) {
    throw new EditError(
      'FILE_CHANGED',
      `${step.rel} changed after it was verified; nothing was changed.`,
      {
        path: step.rel,
        currentHash: hash,
      },
    )
  }
  return linked ? { kind: 'linked', stat: await fs.lstat(backup) } : { kind: 'copied', hash }
}

/** Backs up a symlink the step replaces or removes as a new link (see symlink.ts). */
async function captureLink(
  fs: JournalFs,
  backup: string,
  step: CommitStep,
  current: JournalStat,
): Promise<Captured> {
  if (current.kind !== 'symlink') throw changed(step, `is no longer a symlink`)
  const hash = await backUpLink(fs, step.abs, backup)
  if (hash !== step.before?.hash) {
    throw new EditError(
      'FILE_CHANGED',
      `${step.rel} changed after it was verified (the symlink points elsewhere); nothing was changed.`,
      { path: step.rel, currentHash: hash },
    )
  }
  return { kind: 'link', hash }
}

/** The last check before a target is replaced: it must still be what prepare captured. */
async function recheck(
  ctx: TransactionContext,
  step: CommitStep,
  captured: Captured,
): Promise<void> {
  const current = await lstatOrNull(ctx.fs, step.abs)
  if (captured.kind === 'absent') {
    if (current?.kind === 'dir' && captured.clear === true) return
    if (current !== null)
      throw changed(step, current.kind === 'dir' ? 'became a directory' : 'was created')
    return
  }
  if (current === null) throw changed(step, 'was removed')
  if (captured.kind === 'link') {
    if (current.kind !== 'symlink') throw changed(step, 'is no longer a symlink')
    const hash = hashBytes(await ctx.fs.readlink(step.abs))
    if (hash === captured.hash) return
    throw new EditError(
      'FILE_CHANGED',
      `${step.rel} changed after it was verified (the symlink points elsewhere); nothing was changed.`,
      { path: step.rel, currentHash: hash },
    )
  }
  if (current.kind !== 'file')
    throw changed(step, `became a ${current.kind === 'dir' ? 'directory' : current.kind}`)
  if (captured.kind === 'linked' && sameInode(current, captured.stat)) return
  // PERF: only a copied backup, or a target whose stat moved, pays for a read and a hash.
  const hash = hashBytes(await ctx.fs.readFile(step.abs))
  // Same content and bits (possibly rewritten identically, or under a new inode): still the file
  // that was verified.
  if (hash === step.before?.hash && current.permissions === step.before.permissions) return
  throw new EditError(
    'FILE_CHANGED',
    `${step.rel} changed after it was verified; nothing was changed.`,
    { path: step.rel, currentHash: hash },
  )
}

/**
 * A file changed within this long before the caller's read may change again in the same tick of
 * the kernel's coarse file clock without moving its ctime: its stamp proves nothing (as git's
 * "racy" index entries), and it is read and hashed instead. Ticks are 1-10 ms; 1 s also covers
 * a clock stepped back by NTP.
 */
export const RACY_MS = 1_000

/** Whether `current` (lstat just before the link) is still the file `stamp` describes. */
function stampHolds(current: JournalStat, stamp: ReadStamp): boolean {
  return (
    current.ino === stamp.ino &&
    current.size === stamp.size &&
    current.mtimeNs === stamp.mtimeNs &&
    current.ctimeNs === stamp.ctimeNs &&
    current.ctimeNs < BigInt(Math.floor(stamp.readStartMs - RACY_MS)) * 1_000_000n
  )
}

function sameInode(a: JournalStat, b: JournalStat): boolean {
  return (
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeNs === b.mtimeNs &&
    a.ctimeNs === b.ctimeNs &&
    a.permissions === b.permissions
  )
}

function changed(step: CommitStep, detail: string): EditError {
  return new EditError(
    'FILE_CHANGED',
    `${step.rel} ${detail} after it was verified; nothing was changed.`,
    {
      path: step.rel,
    },
  )
}

/**
 * Creates a new file's missing directories (outermost first). On failure it removes the ones it
 * made, so the step has touched nothing; one that appeared since prepare is someone else's.
 */
async function makeDirs(
  ctx: TransactionContext,
  step: CommitStep,
  dirs: readonly string[],
): Promise<string[]> {
  const made: string[] = []
  for (const rel of dirs) {
    const abs = path.join(ctx.layout.root, rel)
    try {
      await ctx.fs.mkdir(abs)
    } catch (error) {
      for (const ours of made.reverse()) await ctx.fs.rmdir(ours).catch(() => undefined)
      if (errnoOf(error) === 'EEXIST')
        throw changed(step, `needs directory ${rel}, which was created`)
      throw error
    }
    made.push(abs)
  }
  return made
}

/**
 * Directories that must be created for a new file at `abs`, outermost first, relative to root:
 * those missing, and those where a file or link stands that an earlier step removes.
 */
async function missingDirs(
  ctx: TransactionContext,
  abs: string,
  removed: RemovedBefore,
): Promise<string[]> {
  const missing: string[] = []
  let dir = path.dirname(abs)
  while (dir !== ctx.layout.root && dir.startsWith(ctx.layout.root + path.sep)) {
    const st = removed.has(dir) ? null : await lstatOrNull(ctx.fs, dir)
    if (st !== null) break
    missing.unshift(path.relative(ctx.layout.root, dir).split(path.sep).join('/'))
    dir = path.dirname(dir)
  }
  return missing
}

/**
 * A change's steps in commit order: every removal first, then every write, each in the order
 * given, as git apply writes a patch. A file replaced by a directory of the same name (or the
 * reverse, or a rename from foo to foo/bar) needs the old entry gone before the new one is
 * written; steps on distinct paths do not care.
 */
export function inCommitOrder(steps: readonly CommitStep[]): CommitStep[] {
  return [...steps.filter((s) => s.kind === 'remove'), ...steps.filter((s) => s.kind === 'write')]
}

/** Each removal step's target, with its step index. */
type Removals = ReadonlyMap<string, number>

/** The targets removed by the steps before one step: `has` answers, `all` lists them. */
interface RemovedBefore {
  readonly none: boolean
  has(abs: string): boolean
  all(): Iterable<string>
}

function removalIndex(steps: readonly CommitStep[]): Removals {
  const out = new Map<string, number>()
  steps.forEach((step, i) => {
    if (step.kind === 'remove') out.set(step.abs, i)
  })
  return out
}

/** PERF: one index for the whole change, not a set per step (a 10,000-file commit). */
function removedBefore(removals: Removals, index: number): RemovedBefore {
  return {
    none: removals.size === 0,
    has: (abs) => (removals.get(abs) ?? Infinity) < index,
    all: () => [...removals].flatMap(([abs, i]) => (i < index ? [abs] : [])),
  }
}

/** Whether a strict ancestor of `abs` below `root` is removed by an earlier step. */
function removedAbove(abs: string, removed: RemovedBefore, root: string): boolean {
  if (removed.none) return false
  for (let dir = path.dirname(abs); dir.startsWith(root + path.sep); dir = path.dirname(dir))
    if (removed.has(dir)) return true
  return false
}

/** Whether an earlier step removes a path below the directory `abs`. */
function removesInside(abs: string, removed: RemovedBefore): boolean {
  for (const r of removed.all()) if (r.startsWith(abs + path.sep)) return true
  return false
}

/**
 * Removes the directory at a write's target that earlier removals emptied, and the empty
 * directories inside it, deepest first. Anything else still in it fails the step (rolled back):
 * it is someone else's, written since verification.
 */
async function clearEmptiedDir(ctx: TransactionContext, step: CommitStep): Promise<void> {
  const { fs } = ctx
  const clear = async (dir: string): Promise<void> => {
    for (const name of await fs.readdir(dir)) {
      const child = path.join(dir, name)
      if ((await fs.lstat(child)).kind !== 'dir') {
        throw changed(
          step,
          `is a directory that still holds ${path.relative(ctx.layout.root, child)}`,
        )
      }
      await clear(child)
    }
    await fs.rmdir(dir)
  }
  await clear(step.abs)
}

/** Removes `dir` and its ancestors below `stopAt` while they are empty, as git apply does. */
async function pruneEmptyDirs(fs: JournalFs, dir: string, stopAt: string): Promise<string[]> {
  const removed: string[] = []
  let current = dir
  while (current !== stopAt && current.startsWith(stopAt + path.sep)) {
    try {
      await fs.rmdir(current)
    } catch (error) {
      // Not empty (or gone, or a mount point): it stays, as it should. Any other failure would
      // leave an empty directory the change removes, so it fails (and rolls back) the commit.
      // ENOTDIR: a later step wrote a file where the emptied directory stood.
      if (['ENOTEMPTY', 'EEXIST', 'ENOENT', 'EBUSY', 'ENOTDIR'].includes(errnoOf(error) ?? ''))
        break
      throw error
    }
    removed.push(current)
    current = path.dirname(current)
  }
  return removed
}

async function rollBackFailed(
  ctx: TransactionContext,
  id: string,
  dir: string,
  started: number,
): Promise<
  { ok: true; warnings: readonly Warning[] } | { ok: false; reason: string; conflicts: string[] }
> {
  try {
    const result = await rollBack(ctx, id, dir, started)
    if (result.conflicts.length === 0) {
      await ctx.fs.removeTree(dir).catch(() => undefined)
      return { ok: true, warnings: result.warnings }
    }
    return {
      ok: false,
      reason: result.conflicts.map((c) => `${c.path}: ${c.reason}`).join(' '),
      conflicts: result.conflicts.map((c) => c.path),
    }
  } catch (error) {
    return { ok: false, reason: `${describe(error)}.`, conflicts: [] }
  }
}

// What the error of a failed commit adds when the rollback's directory syncs failed (D-049): the
// files are back, but a power cut could still bring the change's entries back. An error has
// no warnings list, so the message says it.
function notDurableRollback(warnings: readonly Warning[]): string {
  if (warnings.length === 0) return ''
  const where = warnings.map((w) => w.path ?? w.message).join(', ')
  return ` (but syncing ${where} after the rollback failed, so the rollback is not guaranteed to survive a power cut)`
}

function asCommitError(
  error: unknown,
  outcome: string,
  root: string,
  dir: string,
  steps: readonly CommitStep[],
): EditError {
  if (error instanceof EditError) return error
  const code = codeForErrno(error)
  const rel = userFileOf(error, root, dir, steps)
  const what = rel === undefined ? '' : ` on ${rel}`
  return new EditError(code, `Commit failed (${reasonOf(error)}${what}); ${outcome}.`, {
    ...(rel === undefined ? {} : { path: rel }),
    cause: error,
  })
}

/**
 * The user's file a failed call was about: a staged file (new.N) or a backup (old.N) stands
 * for step N's target, a rename into the workspace for its destination; other journal files are
 * not the user's and name nothing.
 */
function userFileOf(
  error: unknown,
  root: string,
  dir: string,
  steps: readonly CommitStep[],
): string | undefined {
  const { path: from, dest, syscall } = error as NodeJS.ErrnoException & { dest?: string }
  // symlink(2) reports the link's target string as `path`: not a file of ours, and a relative
  // one would resolve against the working directory. Its `dest` is the link.
  for (const where of syscall === 'symlink' ? [dest] : [from, dest]) {
    if (where === undefined) continue
    const index = stepOfTxnFile(path.relative(dir, where).split(path.sep))
    if (index !== undefined) {
      const step = steps[index]
      if (step !== undefined) return step.rel
      continue
    }
    const rel = workspaceRelative(root, where)
    if (rel !== undefined && !rel.startsWith('.patchloom/')) return rel
  }
  return undefined
}

/** `abs` relative to the workspace, '/'-separated; undefined outside it. */
function workspaceRelative(root: string, abs: string): string | undefined {
  const rel = path.relative(root, abs)
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined
  return rel.split(path.sep).join('/')
}

/** The cause of a failed commit in a few words, without the "nothing was changed" outcome. */
function describe(
  error: unknown,
  root?: string,
  dir?: string,
  steps?: readonly CommitStep[],
): string {
  if (error instanceof EditError) {
    // A rollback step's failure carries its errno (EIO, ...), which says more than the code.
    const what = errnoOf(error.cause) ?? error.code
    return error.path === undefined ? what : `${what} on ${error.path}`
  }
  const where =
    root === undefined || dir === undefined || steps === undefined
      ? (error as NodeJS.ErrnoException).path
      : userFileOf(error, root, dir, steps)
  return where === undefined ? reasonOf(error) : `${reasonOf(error)} on ${where}`
}

async function lstatOrNull(fs: JournalFs, p: string): Promise<JournalStat | null> {
  try {
    return await fs.lstat(p)
  } catch (error) {
    const code = errnoOf(error)
    if (code === 'ENOENT' || code === 'ENOTDIR') return null
    throw error
  }
}

async function syncIfPresent(fs: JournalFs, dir: string): Promise<void> {
  try {
    await fs.syncDir(dir)
  } catch (error) {
    // Pruned after a removal, or replaced by a file a later step wrote: nothing to sync.
    if (!['ENOENT', 'ENOTDIR'].includes(errnoOf(error) ?? '')) throw error
  }
}

/** How long the commit may keep the event loop before it yields (see nodeJournalFs). */
const SLICE_MS = 10

/**
 * A function to await between calls: it yields to the event loop (setImmediate) once SLICE_MS
 * have passed since the last yield, so timers, sockets and other requests get their turn during
 * a large commit whose calls complete synchronously.
 */
function slicer(): () => Promise<void> {
  let since = performance.now()
  return async () => {
    if (performance.now() - since < SLICE_MS) return
    await new Promise((resolve) => setImmediate(resolve))
    since = performance.now()
  }
}

async function forEachLimited<T>(
  items: readonly T[],
  run: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0
  let failure: { error: unknown } | undefined
  const breathe = slicer()
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      await breathe()
      if (failure !== undefined || next >= items.length) break
      const index = next++
      try {
        await run(items[index] as T, index)
      } catch (error) {
        failure ??= { error }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker))
  if (failure !== undefined) throw failure.error
}
