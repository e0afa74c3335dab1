// Counts a commit batch's fsyncs and the wall time they take, for CommitBatchStats: a JournalFs
// that passes every call to the one it wraps and times syncFile, syncDir and the writes asked
// to sync. Overlapping fsyncs (a round in flight at once) count their wall time once.
import type { JournalFs } from './fs.js'

export interface SyncCounter {
  readonly fs: JournalFs
  /** fsync calls so far and the wall time during which at least one was in flight. */
  read(): { readonly syncs: number; readonly syncMs: number }
}

export function countSyncs(base: JournalFs): SyncCounter {
  let syncs = 0
  let inFlight = 0
  let since = 0
  let total = 0
  const timed = async <T>(run: () => Promise<T>): Promise<T> => {
    syncs++
    if (inFlight++ === 0) since = performance.now()
    try {
      return await run()
    } finally {
      if (--inFlight === 0) total += performance.now() - since
    }
  }
  const fs: JournalFs = {
    ...base,
    writeNew: (p, data, permissions, sync) =>
      sync
        ? timed(() => base.writeNew(p, data, permissions, sync))
        : base.writeNew(p, data, permissions, sync),
    copyNew: (from, to, permissions, sync) =>
      sync
        ? timed(() => base.copyNew(from, to, permissions, sync))
        : base.copyNew(from, to, permissions, sync),
    syncDir: (p) => timed(() => base.syncDir(p)),
    syncFile: (p) => timed(() => base.syncFile(p)),
  }
  return {
    fs,
    read: () => ({
      syncs,
      syncMs: total + (inFlight > 0 ? performance.now() - since : 0),
    }),
  }
}
