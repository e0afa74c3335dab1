// Where the journal keeps its files inside a workspace. One directory per transaction, whose
// name carries its state: `<id>.pending` while it runs (recovery rolls it back), `<id>` once
// committed (backups kept for undo), `<id>.conflict` when recovery had to leave files alone.
// A pruned transaction is renamed into the trash directory beside the journal and deleted from
// there off the event loop (journal.ts); nothing reads the trash.
import path from 'node:path'
import { isTransactionId } from './manifest.js'
import type { TransactionStatus } from './records.js'

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
  // (a commit lists the journal twice; three tests per name were most of the listing).
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
/** Version 2 transactions: staged new contents in new/, named by step index. */
export const NEW_DIR = 'new'
/** Version 2 transactions: before-state backups in old/ (hard links where possible). */
export const OLD_DIR = 'old'
// Since manifest version 3 (D-122) both live in the transaction directory itself, as `new.N`
// and `old.N`: two directories fewer to make and delete per commit.
const STAGED_PREFIX = 'new.'
const BACKUP_PREFIX = 'old.'

/** Whether a transaction of this manifest version keeps its files in new/ and old/. */
function inSubdirs(version: number): boolean {
  return version <= 2
}

/** Where step `i` of a transaction in `dir` stages its new content. */
export function stagedPath(dir: string, version: number, i: number): string {
  return inSubdirs(version) ? path.join(dir, NEW_DIR, String(i)) : path.join(dir, STAGED_PREFIX + i)
}

/** Where step `i` of a transaction in `dir` keeps its before state. */
export function backupPath(dir: string, version: number, i: number): string {
  return inSubdirs(version) ? path.join(dir, OLD_DIR, String(i)) : path.join(dir, BACKUP_PREFIX + i)
}

/** Where a transaction's staged files are listed (stagedSteps reads that listing). */
export function stagedListing(dir: string, version: number): string {
  return inSubdirs(version) ? path.join(dir, NEW_DIR) : dir
}

/** The steps whose staged file a listing of stagedListing(dir, version) shows. */
export function stagedSteps(names: readonly string[], version: number): Set<number> {
  const steps = new Set<number>()
  for (const name of names) {
    const index = inSubdirs(version)
      ? name
      : name.startsWith(STAGED_PREFIX)
        ? name.slice(STAGED_PREFIX.length)
        : undefined
    if (index !== undefined && /^(0|[1-9]\d*)$/.test(index)) steps.add(Number(index))
  }
  return steps
}

/** The step a file inside a transaction directory stands for (a staged file or a backup). */
export function stepOfTxnFile(relInTxn: readonly string[]): number | undefined {
  const [first, second] = relInTxn
  const index =
    relInTxn.length === 2 && (first === NEW_DIR || first === OLD_DIR)
      ? second
      : relInTxn.length === 1 && first !== undefined
        ? [STAGED_PREFIX, BACKUP_PREFIX]
            .filter((p) => first.startsWith(p))
            .map((p) => first.slice(p.length))[0]
        : undefined
  return index !== undefined && /^(0|[1-9]\d*)$/.test(index) ? Number(index) : undefined
}

/** `abs` relative to the workspace, '/'-separated, or undefined outside it. */
export function userPath(layout: Layout, abs: string): string | undefined {
  const rel = path.relative(layout.root, abs)
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined
  return rel.split(path.sep).join('/')
}
