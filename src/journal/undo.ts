// Planning an undo: the steps that put a committed transaction's files back to their before
// state, checked first against the files as they are now. Any file changed since the transaction
// makes the whole undo refuse with UNDO_CONFLICT, naming every such file; nothing is written.
// The undo then commits as a transaction of its own, with the same guarantees as any other.
// Only a transaction vet.ts accepts is undone: this workspace's engine wrote it and every path
// passes the sandbox; anything else is refused with its code before a file is read.
import path from 'node:path'
import { EditError } from '../errors.js'
import { codeForErrno, reasonOf } from './fs-errors.js'
import { errnoOf } from './fs.js'
import { hashBytes } from '../hash.js'
import { backupPath, txnDir } from './layout.js'
import { currentState, describeCurrent, sameState } from './target-state.js'
import { isLinkState } from './symlink.js'
import { inCommitOrder } from './transaction.js'
import { vetTransaction, type VetContext } from './vet.js'
import type {
  CommitStep,
  TransactionFile,
  TransactionInfo,
  TransactionSummary,
  UndoResult,
} from './records.js'

export interface UndoPlan {
  readonly undone: string
  readonly steps: CommitStep[]
  readonly summary: TransactionSummary
  readonly files: UndoResult['files'][number][]
}

export async function planUndo(
  ctx: VetContext,
  infos: readonly TransactionInfo[],
  id: string | undefined,
): Promise<UndoPlan> {
  const { fs, layout } = ctx
  const info =
    id === undefined
      ? infos.find(
          (t) =>
            t.status === 'committed' &&
            t.kind === 'apply' &&
            t.undoneBy === undefined &&
            t.untrusted === undefined,
        )
      : infos.find((t) => t.id === id)
  if (info === undefined) {
    throw new EditError(
      'UNDO_NOT_FOUND',
      id === undefined
        ? 'There is no committed change left to undo in this workspace.'
        : `No transaction ${id} in this workspace's journal (it may have been pruned).`,
    )
  }
  if (info.untrusted !== undefined) await vetTransaction(ctx, info.id, info.status)
  if (info.undoneBy !== undefined)
    throw new EditError(
      'UNDO_UNAVAILABLE',
      `Transaction ${info.id} was already undone by ${info.undoneBy}.`,
    )
  if (info.status !== 'committed') {
    // The log lists a committed transaction whose manifest is unreadable as a conflict: recovery
    // cannot help there, so name the real cause (JOURNAL_CORRUPT).
    const committedDir = txnDir(layout, info.id, 'committed')
    const corrupt = await fs.lstat(committedDir).then(
      () => true,
      () => false,
    )
    if (corrupt) await vetTransaction(ctx, info.id, 'committed')
    throw new EditError(
      'UNDO_UNAVAILABLE',
      `Transaction ${info.id} did not commit (it is ${info.status}); run \`patchloom recover\` instead.`,
    )
  }
  const dir = txnDir(layout, info.id, 'committed')
  const manifest = await vetTransaction(ctx, info.id, 'committed')
  const changed: { path: string; now: string }[] = []
  // A type change (foo -> foo/bar, or back) leaves the transaction's own entries where the other
  // steps' paths were: below a file or link it wrote nothing of the old path stands, and a
  // directory it made where a file was is its own.
  const written = new Set(manifest.steps.filter((s) => s.after !== null).map((s) => s.path))
  const madeDirs = new Set(manifest.steps.flatMap((s) => s.createdDirs))
  for (const step of manifest.steps) {
    if (step.after === null && (belowAny(step.path, written) || madeDirs.has(step.path))) continue
    const current = await currentState(fs, path.join(layout.root, ...step.path.split('/'))).catch(
      (error: unknown) => {
        if (errnoOf(error) === undefined) throw error
        throw new EditError(
          codeForErrno(error),
          `Cannot undo ${info.id}: reading ${step.path} failed (${reasonOf(error)}). Nothing was written.`,
          { path: step.path, cause: error },
        )
      },
    )
    if (!sameState(current, step.after))
      changed.push({ path: step.path, now: describeCurrent(current) })
  }
  const firstChanged = changed[0]
  if (firstChanged !== undefined) {
    const shown = changed
      .slice(0, 10)
      .map((c) => `${c.path} (${c.now})`)
      .join(', ')
    const more = changed.length > 10 ? ` and ${changed.length - 10} more` : ''
    throw new EditError(
      'UNDO_CONFLICT',
      `Cannot undo ${info.id}: ${changed.length === 1 ? 'a file has' : `${changed.length} files have`} changed since it committed: ${shown}${more}. Nothing was written.`,
      { path: firstChanged.path },
    )
  }
  const steps: CommitStep[] = []
  const files: UndoPlan['files'] = []
  // Reverse order: a move (write destination, remove source) is undone by restoring the source
  // before removing the destination.
  for (let i = manifest.steps.length - 1; i >= 0; i--) {
    const step = manifest.steps[i]!
    const abs = path.join(layout.root, ...step.path.split('/'))
    const afterHash = step.after?.hash ?? null
    if (step.before === null) {
      if (step.after === null) continue
      steps.push({ kind: 'remove', abs, rel: step.path, before: step.after })
      files.push({ path: step.path, op: 'remove', beforeHash: afterHash, afterHash: null })
      continue
    }
    const backup = backupPath(dir, manifest.version, i)
    const link = isLinkState(step.before)
    // A link's backup must be a link, restored by its target string, never what it points to; a
    // file's must be a regular file: a symlink there could make undo copy a file from elsewhere.
    const kind = await fs.lstat(backup).then(
      (st) => st.kind,
      () => null,
    )
    const bytes =
      kind !== (link ? 'symlink' : 'file')
        ? null
        : await (link ? fs.readlink(backup) : fs.readFile(backup)).catch(() => null)
    if (bytes === null || hashBytes(bytes) !== step.before.hash) {
      throw new EditError(
        'UNDO_UNAVAILABLE',
        `Cannot undo ${info.id}: the kept copy of ${step.path} is ${bytes === null ? 'missing' : 'damaged'}.`,
        { path: step.path },
      )
    }
    steps.push({
      kind: 'write',
      abs,
      rel: step.path,
      bytes,
      permissions: step.before.permissions,
      // Just checked: the kept bytes hash to the before state (D-081, no second hash).
      ...(link ? { symlink: true } : { afterHash: step.before.hash }),
      before: step.after,
    })
    files.push({
      path: step.path,
      op: 'restore',
      beforeHash: afterHash,
      afterHash: step.before.hash,
    })
  }
  return {
    undone: info.id,
    steps: inCommitOrder(steps),
    summary: { kind: 'undo', undoes: info.id, files: manifest.summary.files.map(invert) },
    files,
  }
}

/** What undoing one file's change does, for the log. */
function invert(file: TransactionFile): TransactionFile {
  const swapped = { additions: file.deletions, deletions: file.additions }
  switch (file.op) {
    case 'add':
    case 'copy':
      return { path: file.path, op: 'delete', ...swapped }
    case 'delete':
      return { path: file.path, op: 'add', ...swapped }
    case 'move':
      return file.from === undefined
        ? { path: file.path, op: 'update', ...swapped }
        : { path: file.from, op: 'move', from: file.path, ...swapped }
    default:
      return { path: file.path, op: file.op, ...swapped }
  }
}

/** Whether a strict ancestor of the '/'-separated `rel` is in `paths`. */
function belowAny(rel: string, paths: ReadonlySet<string>): boolean {
  for (let at = rel.indexOf('/'); at !== -1; at = rel.indexOf('/', at + 1))
    if (paths.has(rel.slice(0, at))) return true
  return false
}
