// The journal read back as a list of transactions for `patchloom log` and for undo: newest first,
// with what each did per file and whether it can still be undone. A transaction this workspace's
// engine did not sign is listed as untrusted, without the files its manifest claims.
import { EditError } from '../errors.js'
import { txnDir } from './layout.js'
import { isSignedBy } from './manifest.js'
import { listEntries, readManifest } from './store.js'
import type { TransactionInfo } from './records.js'
import type { VetContext } from './vet.js'

export async function describeTransactions(ctx: VetContext): Promise<TransactionInfo[]> {
  const { fs, layout } = ctx
  const entries = (await listEntries(fs, layout)).sort((a, b) => (a.id < b.id ? 1 : -1))
  const infos: TransactionInfo[] = []
  for (const entry of entries) {
    let manifest
    const untrusted = unreadable(entry.id, entry.status, true)
    try {
      manifest = await readManifest(fs, txnDir(layout, entry.id, entry.status), entry.id)
    } catch (error) {
      if (error instanceof EditError && error.code === 'JOURNAL_UNTRUSTED') {
        infos.push(untrusted)
        continue
      }
      // Pruned or cleaned up while we were reading, or a pending one without a manifest yet.
      if (error instanceof EditError && error.code === 'JOURNAL_CORRUPT') {
        if (entry.status === 'committed' || entry.status === 'conflict')
          infos.push(unreadable(entry.id, 'conflict', false))
        continue
      }
      throw error
    }
    if (!(await isSignedBy(ctx.trust, manifest))) {
      infos.push(untrusted)
      continue
    }
    const { summary } = manifest
    infos.push({
      id: entry.id,
      status: entry.status,
      kind: summary.kind,
      createdAt: manifest.createdAt,
      ...(summary.undoes === undefined ? {} : { undoes: summary.undoes }),
      files: summary.files,
      additions: summary.files.reduce((n, f) => n + f.additions, 0),
      deletions: summary.files.reduce((n, f) => n + f.deletions, 0),
      undoable: entry.status === 'committed',
    })
  }
  // An undo that committed marks what it undid.
  const undoneBy = new Map<string, string>()
  for (const info of infos)
    if (info.status === 'committed' && info.undoes !== undefined && !undoneBy.has(info.undoes))
      undoneBy.set(info.undoes, info.id)
  return infos.map((info) => {
    const by = undoneBy.get(info.id)
    return by === undefined ? info : { ...info, undoneBy: by, undoable: false }
  })
}

/** A transaction whose manifest says nothing we can use: no files, nothing to undo. */
function unreadable(
  id: string,
  status: TransactionInfo['status'],
  untrusted: boolean,
): TransactionInfo {
  return {
    id,
    status,
    kind: 'apply',
    createdAt: '',
    files: [],
    additions: 0,
    deletions: 0,
    undoable: false,
    ...(untrusted ? { untrusted: true } : {}),
  }
}
