// Where the journal keeps its files inside a workspace. One directory per transaction, whose
// name carries its state: `<id>.pending` while it runs (recovery rolls it back), `<id>` once
// committed (backups kept for undo), `<id>.conflict` when recovery had to leave files alone.
// A pruned transaction is renamed into the trash directory beside the journal and deleted from
// there off the event loop (journal.ts); nothing reads the trash.
import path from 'node:path'
import { isTransactionId } from './manifest.js'
import type { TransactionStatus } from './types.js'

export const STATE_DIR = '.patchloom'

export interface Layout {
  readonly root: string
  readonly stateDir: string
  readonly journalDir: string
  readonly trashDir: string
  readonly lockPath: string
}

export function layoutFor(rootReal: string): Layout {
  const stateDir = path.join(rootReal, STATE_DIR)
  return {
    root: rootReal,
    stateDir,
    journalDir: path.join(stateDir, 'journal'),
    trashDir: path.join(stateDir, 'trash'),
    lockPath: path.join(stateDir, 'lock'),
  }
}

const SUFFIX: Record<TransactionStatus, string> = {
  committed: '',
  pending: '.pending',
  conflict: '.conflict',
}

export function txnDir(layout: Layout, id: string, status: TransactionStatus): string {
  return path.join(layout.journalDir, id + SUFFIX[status])
}

/** Parses a journal directory entry name; undefined for anything that is not a transaction. */
export function parseEntry(name: string): { id: string; status: TransactionStatus } | undefined {
  // An id has no '.', so a name has at most one of the suffixes, and one pattern test decides
  // (#9: a commit lists the journal twice; three tests per name were most of the listing).
  const status: TransactionStatus = name.endsWith(SUFFIX.pending)
    ? 'pending'
    : name.endsWith(SUFFIX.conflict)
      ? 'conflict'
      : 'committed'
  const id = status === 'committed' ? name : name.slice(0, -SUFFIX[status].length)
  return isTransactionId(id) ? { id, status } : undefined
}

export const MANIFEST = 'manifest.json'
export const CONFLICTS = 'conflicts.json'
/** Staged new contents, named by step index. */
export const NEW_DIR = 'new'
/** Before-state backups (hard links where possible), named by step index. */
export const OLD_DIR = 'old'
