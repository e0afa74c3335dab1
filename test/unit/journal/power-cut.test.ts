// The power-cut model check (bench/power-cut-model.ts) at CI size: one 3-file commit (an update,
// an add into a new directory, a delete that empties one) through Journal.commit, every state a
// POSIX filesystem may leave at every crash point recovered by Journal.recover. `full` must have
// no vulnerable state; `fast` and a deliberately weakened `full` must have some, which is what
// shows the check can fail. LINK_FIXTURE does the same for symlink steps (link deleted, created,
// retargeted). BATCH_FIXTURE is a batch of two transactions committed at once (group commit),
// each judged on its own files. bench/power-cut.ts runs the larger changes and prints the figures.
import { describe, expect, it } from 'vitest'
import {
  BATCH_FIXTURE,
  checkPowerCuts,
  LINK_FIXTURE,
  MARK_BEFORE_REPLACED_SYNCS,
  SKIP_PREPARED_DIR_SYNCS,
  SMALL_FIXTURE,
  TYPE_CHANGE_FIXTURE,
  type SyncPolicy,
} from '../../../bench/power-cut-model.js'

const MARK = 'rename .patchloom/journal/<id>.pending .patchloom/journal/<id>'

// A few hundred temp workspaces each: seconds on a quiet machine, more on a loaded one.
describe('power cuts during a commit (model-checked)', { timeout: 60_000 }, () => {
  it('leaves the workspace exactly before or after in every state with full, and after once committed', async () => {
    const report = await checkPowerCuts({ fixture: SMALL_FIXTURE, durability: 'full' })
    expect(report.vulnerable).toEqual([])
    expect(report.exhaustive).toBe(true)
    expect(report.promisedDurable).toBe(true)
    expect(report.fsyncs).toBeGreaterThan(0)
    // Both outcomes occur: the check is not trivially satisfied by one of them.
    expect(report.outcomes.before).toBeGreaterThan(50)
    expect(report.outcomes.after).toBeGreaterThan(0)
    expect(report.conflicts).toBe(0)
  })

  it('finds torn states with fast, which skips every fsync: the check can fail', async () => {
    const report = await checkPowerCuts({
      fixture: SMALL_FIXTURE,
      durability: 'fast',
      maxFree: 8,
      samples: 40,
      stopAfter: 5,
    })
    expect(report.fsyncs).toBe(0)
    expect(report.outcomes.torn).toBeGreaterThan(0)
    // The classic one: the rename of the staged file persisted, its content did not.
    expect(report.vulnerable.some((v) => v.detail.startsWith('a.txt: empty'))).toBe(true)
  })

  it('finds torn and lost states when full drops the workspace directory syncs before the mark', async () => {
    const dropWorkspaceSyncs: SyncPolicy = (dir) => (dir.startsWith('.patchloom') ? 'sync' : 'skip')
    const report = await checkPowerCuts({
      fixture: SMALL_FIXTURE,
      durability: 'full',
      syncPolicy: dropWorkspaceSyncs,
      stopAfter: 5,
    })
    expect(report.promisedDurable).toBe(true)
    expect(report.vulnerable.length).toBeGreaterThan(0)
    // The mark persisted while a replaced file's rename did not: recovery sees a committed change.
    expect(report.vulnerable.map((v) => v.verdict)).toContain('torn')
  })

  // Recovery is cut too: each recorded recovery's own crash states are recovered again and must
  // be whole. rollBack fsyncs the parents of the directories it re-creates or removes; without
  // that, a power cut during or just after recovery brings back an emptied new/, or loses the
  // re-created gone/ with the restored gone/c.txt in it, once the transaction is gone.
  it('keeps the workspace whole when the recovery of a full commit is cut too', async () => {
    const report = await checkPowerCuts({
      fixture: SMALL_FIXTURE,
      durability: 'full',
      recoveryCuts: 3,
      stopAfter: 1,
    })
    expect(report.vulnerable).toEqual([])
    expect(report.recovery.commitStates).toBe(3)
    expect(report.recovery.checked).toBeGreaterThan(0)
    expect(report.recovery.vulnerable).toEqual([])
  })

  // Symlink steps are modelled too: JournalFs.symlink is a recorded call like the others.
  it('keeps a commit with symlink steps whole in every state with full, its recovery cut too', async () => {
    const report = await checkPowerCuts({
      fixture: LINK_FIXTURE,
      durability: 'full',
      recoveryCuts: 2,
      stopAfter: 1,
    })
    // Staging runs concurrently, so the calls' order varies from run to run; the set is fixed.
    expect(report.calls.filter((c) => c.startsWith('symlink ')).sort()).toEqual([
      'symlink .patchloom/journal/<id>.pending/new.2',
      'symlink .patchloom/journal/<id>.pending/new.3',
      'symlink .patchloom/journal/<id>.pending/old.1',
      'symlink .patchloom/journal/<id>.pending/old.3',
    ])
    expect(report.vulnerable).toEqual([])
    expect(report.exhaustive).toBe(true)
    expect(report.promisedDurable).toBe(true)
    expect(report.outcomes.before).toBeGreaterThan(0)
    expect(report.outcomes.after).toBeGreaterThan(0)
    expect(report.recovery.commitStates).toBe(2)
    expect(report.recovery.vulnerable).toEqual([])
  })

  it('finds torn link states with fast: the link check can fail', async () => {
    const report = await checkPowerCuts({
      fixture: LINK_FIXTURE,
      durability: 'fast',
      maxFree: 8,
      samples: 40,
      stopAfter: 5,
    })
    expect(report.vulnerable.length).toBeGreaterThan(0)
  })

  it('does not promise a commit whose mark failed to sync: it warns, and no state is lost', async () => {
    const failMarkSync: SyncPolicy = (dir, calls) =>
      dir === '.patchloom/journal' && calls.includes(MARK) ? 'fail' : 'sync'
    const report = await checkPowerCuts({
      fixture: SMALL_FIXTURE,
      durability: 'full',
      syncPolicy: failMarkSync,
    })
    expect(report.calls).toContain('syncDir .patchloom/journal (failed: EIO)')
    // Were the commit reported as durable, the states where the unsynced mark is lost (recovery
    // rolls the change back) would be vulnerable: 'lost'.
    expect(report.vulnerable).toEqual([])
    expect(report.commitWarnings.map((w) => w.code)).toEqual(['journal.not-durable'])
    expect(report.promisedDurable).toBe(false)
    expect(report.outcomes.before).toBeGreaterThan(0)
  })

  // Type changes: a file replaced by a directory and a directory by a file commit through
  // directories made where a removed file stood and a directory cleared after its removals.
  it('keeps a commit that changes a file into a directory and back whole in every state with full, its recovery cut too', async () => {
    const report = await checkPowerCuts({
      fixture: TYPE_CHANGE_FIXTURE,
      durability: 'full',
      recoveryCuts: 2,
      stopAfter: 1,
    })
    expect(report.vulnerable).toEqual([])
    expect(report.recovery.vulnerable).toEqual([])
    expect(report.outcomes.before).toBeGreaterThan(0)
    expect(report.outcomes.after).toBeGreaterThan(0)
    expect(report.conflicts).toBe(0)
    // Weakened the same way as above, the type change is caught too.
    const weakened = await checkPowerCuts({
      fixture: TYPE_CHANGE_FIXTURE,
      durability: 'full',
      syncPolicy: (dir) => (dir.startsWith('.patchloom') ? 'sync' : 'skip'),
      stopAfter: 1,
    })
    expect(weakened.vulnerable.length).toBeGreaterThan(0)
  })

  // Group commit: two transactions through one lock turn, one round of each sync for both.
  it('keeps each transaction of a batch whole in every state with full, its recovery cut too', async () => {
    const report = await checkPowerCuts({
      fixture: BATCH_FIXTURE,
      durability: 'full',
      recoveryCuts: 2,
      stopAfter: 1,
    })
    expect(report.transactions).toBe(2)
    expect(report.calls.some((c) => c.includes('<id2>.pending'))).toBe(true)
    expect(report.vulnerable).toEqual([])
    expect(report.exhaustive).toBe(true)
    expect(report.promisedDurable).toBe(true)
    // Both ends, and states with one transaction after and the other before.
    expect(report.outcomes.before).toBeGreaterThan(50)
    expect(report.outcomes.after).toBeGreaterThan(0)
    expect(report.outcomes.split).toBeGreaterThan(0)
    expect(report.recovery.commitStates).toBe(2)
    expect(report.recovery.vulnerable).toEqual([])
  })

  it('keeps each transaction of a fast batch whole when the process is killed at any point', async () => {
    const report = await checkPowerCuts({
      fixture: BATCH_FIXTURE,
      durability: 'fast',
      processKill: true,
    })
    expect(report.fsyncs).toBe(0)
    expect(report.vulnerable).toEqual([])
    expect(report.outcomes.before).toBeGreaterThan(0)
    expect(report.outcomes.split).toBeGreaterThan(0)
    expect(report.outcomes.after).toBeGreaterThan(0)
  })

  it('finds vulnerable states when a batch drops its directory syncs before replacing', async () => {
    const report = await checkPowerCuts({
      fixture: BATCH_FIXTURE,
      durability: 'full',
      syncPolicy: SKIP_PREPARED_DIR_SYNCS,
      maxFree: 10,
      samples: 100,
      stopAfter: 1,
    })
    expect(report.calls).toContain('syncDir .patchloom/journal (dropped)')
    expect(report.vulnerable.length).toBeGreaterThan(0)
    // The second transaction's manifest was lost while one of its files was replaced.
    expect(report.vulnerable[0]?.verdict).toBe('torn')
  })

  it('finds vulnerable states when a batch marks before syncing the replaced files', async () => {
    const report = await checkPowerCuts({
      fixture: BATCH_FIXTURE,
      durability: 'full',
      syncPolicy: MARK_BEFORE_REPLACED_SYNCS,
      maxFree: 10,
      samples: 100,
      stopAfter: 1,
    })
    expect(report.vulnerable.length).toBeGreaterThan(0)
  })
})
