// Fault injection through JournalFs: the standard change is committed once cleanly while every
// call is counted and tagged with the phase it belongs to; then each method is failed at its
// first, middle and last call with each errno. The workspace must end exactly as before (or, for
// a fault after the commit mark, exactly as after), with the code fs-errors.ts maps the errno to,
// and no pending transaction left. A second table also fails the rollback's own renames and
// unlinks: JOURNAL_ROLLBACK_FAILED, the transaction left pending, and recover() with a healthy
// filesystem then restores the before tree.
import { existsSync } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ErrorCode } from '../../../src/errors.js'
import type { JournalPoint } from '../../../src/journal/records.js'
import { journalEntries, makeTempDir } from '../../helpers/tree.js'
import {
  editError,
  FAULT_ERRNOS,
  FAULT_METHODS,
  journalFor,
  quietJournalFs,
  recordingFs,
  standardSteps,
  STANDARD_AFTER,
  STANDARD_BEFORE,
  STANDARD_SUMMARY,
  tempWorkspace,
  treeState,
  writeStandardFiles,
  type FsCall,
  type FsMethod,
} from './fixtures.js'

/** Where a call falls: before the journal's first point, prepare, replace, or after the mark. */
type Phase = 'setup' | 'prepare' | 'replace' | 'committed'

const CODE_FOR: Record<(typeof FAULT_ERRNOS)[number], ErrorCode> = {
  ENOSPC: 'JOURNAL_NO_SPACE',
  EACCES: 'JOURNAL_PERMISSION_DENIED',
  EROFS: 'JOURNAL_READ_ONLY',
  EISDIR: 'FILE_CHANGED',
  EXDEV: 'JOURNAL_CROSS_DEVICE',
  EMFILE: 'JOURNAL_TOO_MANY_OPEN_FILES',
}

const PHASE_AFTER: Partial<Record<JournalPoint, Phase>> = {
  locked: 'prepare',
  prepared: 'replace',
}

/** The clean run: each method's calls in order, with the phase of each. */
async function cleanRun(): Promise<Record<FsMethod, Phase[]>> {
  const parent = await makeTempDir('patchloom-faults-')
  const root = path.join(parent, 'ws')
  try {
    await mkdir(root)
    await writeStandardFiles(root)
    expect(await treeState(root)).toEqual(STANDARD_BEFORE)
    const steps = standardSteps(root)
    let phase: Phase = 'setup'
    const phases = {} as Record<FsMethod, Phase[]>
    const rec = recordingFs({
      fail: (call) => {
        ;(phases[call.method] ??= []).push(phase)
        // The rename of <id>.pending to <id> is the commit mark.
        const [from, to] = call.args.map(String)
        if (call.method === 'rename' && from?.endsWith('.pending') && !to?.endsWith('.pending'))
          phase = 'committed'
        return undefined
      },
    })
    const journal = journalFor(root, {
      fs: rec.fs,
      hooks: { at: (point) => (phase = PHASE_AFTER[point] ?? phase) },
    })
    await journal.commit(steps, STANDARD_SUMMARY)
    expect(await treeState(root)).toEqual(STANDARD_AFTER)
    return phases
  } finally {
    await rm(parent, { recursive: true, force: true })
  }
}

const PHASES = await cleanRun()

function positions(count: number): number[] {
  return [...new Set([1, Math.ceil(count / 2), count])].filter((n) => n >= 1)
}

interface Outcome {
  readonly tree: 'before' | 'after'
  readonly code?: ErrorCode
}

function expectedOutcome(
  method: FsMethod,
  errno: (typeof FAULT_ERRNOS)[number],
  phase: Phase,
): Outcome {
  // A hard link that cannot cross devices falls back to a copy.
  if (method === 'link' && errno === 'EXDEV') return { tree: 'after' }
  // After the mark the change stands; only the last directory sync is left, and it is best effort.
  if (phase === 'committed') return { tree: 'after' }
  return { tree: 'before', code: CODE_FOR[errno] }
}

async function standardWorkspace(): Promise<{ root: string; before: readonly unknown[] }> {
  const { root } = await tempWorkspace()
  await writeStandardFiles(root)
  return { root, before: STANDARD_BEFORE }
}

function failingAt(
  method: FsMethod,
  nth: number,
  errno: string,
): (call: FsCall) => string | undefined {
  return (call) => (call.method === method && call.nth === nth ? errno : undefined)
}

describe('Journal.commit under injected faults', () => {
  it('counts the calls of a clean run', () => {
    for (const method of FAULT_METHODS) expect(PHASES[method]?.length ?? 0).toBeGreaterThan(0)
  })

  for (const method of FAULT_METHODS) {
    const phases = PHASES[method] ?? []
    for (const nth of positions(phases.length)) {
      const phase = phases[nth - 1] as Phase
      for (const errno of FAULT_ERRNOS) {
        const outcome = expectedOutcome(method, errno, phase)
        const title =
          outcome.code === undefined
            ? `ends exactly as after when ${method} call ${nth}/${phases.length} (${phase}) fails with ${errno}`
            : `ends exactly as before with ${outcome.code} when ${method} call ${nth}/${phases.length} (${phase}) fails with ${errno}`
        it(title, async () => {
          const { root, before } = await standardWorkspace()
          const steps = standardSteps(root)
          const rec = recordingFs({ fail: failingAt(method, nth, errno) })
          const journal = journalFor(root, { fs: rec.fs })
          const result = journal.commit(steps, STANDARD_SUMMARY)
          if (outcome.code === undefined) {
            const id = await result
            expect(await treeState(root)).toEqual(STANDARD_AFTER)
            expect(await journalEntries(root)).toEqual([id])
          } else {
            const error = await editError(result)
            expect(error.code).toBe(outcome.code)
            expect(error.message).toContain(errno)
            expect(await treeState(root)).toEqual(before)
            expect(await journalEntries(root)).toEqual([])
          }
          expect(rec.failed).toHaveLength(1)
          expect(existsSync(path.join(root, '.patchloom/lock'))).toBe(false)
          // The journal stays usable: the same change commits once the fault is gone (checked
          // for one errno: the state left behind does not depend on which).
          if (outcome.code !== undefined && errno === 'ENOSPC') {
            await journalFor(root).commit(standardSteps(root), STANDARD_SUMMARY)
            expect(await treeState(root)).toEqual(STANDARD_AFTER)
          }
        })
      }
    }
  }
})

describe('Journal.commit when the rollback fails too', () => {
  // Every call after prepare and before the mark, failed, with every later rename and unlink
  // failing as well.
  for (const method of FAULT_METHODS) {
    const phases = PHASES[method] ?? []
    for (const [index, phase] of phases.entries()) {
      if (phase !== 'replace') continue
      const nth = index + 1
      it(`leaves the transaction pending when ${method} call ${nth}/${phases.length} fails and so does the rollback, and recover() restores the before tree`, async () => {
        const { root, before } = await standardWorkspace()
        const steps = standardSteps(root)
        let replaced = 0
        let replacedAtFault: number | undefined
        const rec = recordingFs({
          fail: (call) => {
            if (call.method === method && call.nth === nth) {
              replacedAtFault = replaced
              return 'ENOSPC'
            }
            if (
              replacedAtFault !== undefined &&
              (call.method === 'rename' || call.method === 'unlink')
            )
              return 'EIO'
            return undefined
          },
        })
        const journal = journalFor(root, {
          fs: rec.fs,
          hooks: { at: (point) => (point === 'replaced' ? (replaced += 1) : undefined) },
        })
        const error = await editError(journal.commit(steps, STANDARD_SUMMARY))
        expect(existsSync(path.join(root, '.patchloom/lock'))).toBe(false)
        if (replacedAtFault === 0) {
          // Nothing was replaced yet: the rollback had nothing to rename or unlink.
          expect(error.code).toBe('JOURNAL_NO_SPACE')
          expect(await treeState(root)).toEqual(before)
          expect(await journalEntries(root)).toEqual([])
          return
        }
        expect(error.code).toBe('JOURNAL_ROLLBACK_FAILED')
        expect(error.retryable).toBe(false)
        expect(error.message).toContain('ENOSPC')
        expect(error.message).toContain('EIO')
        const entries = await journalEntries(root)
        expect(entries).toHaveLength(1)
        expect(entries[0]).toMatch(/\.pending$/)
        const report = await journalFor(root, { fs: quietJournalFs }).recover()
        expect(report).toEqual({
          rolledBack: [entries[0]?.replace(/\.pending$/, '')],
          conflicted: [],
          conflicts: [],
        })
        expect(await treeState(root)).toEqual(before)
        expect(await journalEntries(root)).toEqual([])
      })
    }
  }
})

describe('Journal.commit when the rollback cannot sync', () => {
  it('says in the error that the rollback is not guaranteed durable, and restores the before tree', async () => {
    const { root, before } = await standardWorkspace()
    let replaced = 0
    let failedAt: number | undefined
    const rec = recordingFs({
      fail: (call) => {
        // The second target's replacement fails; every directory sync after it fails too.
        if (failedAt === undefined && replaced === 1 && call.method === 'rename') {
          failedAt = call.nth
          return 'ENOSPC'
        }
        return failedAt !== undefined && call.method === 'syncDir' ? 'EIO' : undefined
      },
    })
    const journal = journalFor(root, {
      fs: rec.fs,
      hooks: { at: (point) => (point === 'replaced' ? (replaced += 1) : undefined) },
    })
    const error = await editError(journal.commit(standardSteps(root), STANDARD_SUMMARY))
    expect(error.code).toBe('JOURNAL_NO_SPACE')
    expect(error.message).toContain('the change was rolled back; no file was changed (but syncing')
    expect(error.message).toContain('not guaranteed to survive a power cut')
    expect(rec.failed.some((c) => c.method === 'syncDir')).toBe(true)
    expect(await treeState(root)).toEqual(before)
    expect(await journalEntries(root)).toEqual([])
  })

  it('says nothing of durability when the rollback synced', async () => {
    const { root } = await standardWorkspace()
    let replaced = 0
    let failed = false
    const rec = recordingFs({
      fail: (call) => {
        if (failed || replaced !== 1 || call.method !== 'rename') return undefined
        failed = true
        return 'ENOSPC'
      },
    })
    const journal = journalFor(root, {
      fs: rec.fs,
      hooks: { at: (point) => (point === 'replaced' ? (replaced += 1) : undefined) },
    })
    const error = await editError(journal.commit(standardSteps(root), STANDARD_SUMMARY))
    expect(error.code).toBe('JOURNAL_NO_SPACE')
    expect(error.message).not.toContain('power cut')
  })
})
