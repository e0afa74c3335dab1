// Serial, all-or-nothing commit of verified changes. Each step re-checks the target's hash just
// before replacing it (a concurrent writer is caught, not overwritten), writes through a temp file
// and rename (a reader never sees a half-written file), and records how to undo itself. Any
// failure rolls back every completed step in reverse order. This is in-process atomicity only;
// the durable on-disk journal that survives a crash is issue #4 (it replaces `commitSteps`).
import * as nodeFs from 'node:fs/promises'
import path from 'node:path'
import { EditError } from '../errors.js'
import { hashBytes } from './hash.js'

export type CommitStep =
  | {
      readonly kind: 'write'
      readonly abs: string
      readonly rel: string
      readonly bytes: Uint8Array
      /** Permission bits for the file (e.g. 0o644). */
      readonly permissions: number
      /** The content the target must still have: a hash, or null for "must not exist". */
      readonly expectHash: string | null
      /** The bytes and permissions to restore on rollback (null: remove the file). */
      readonly previous: { readonly bytes: Uint8Array; readonly permissions: number } | null
    }
  | {
      readonly kind: 'remove'
      readonly abs: string
      readonly rel: string
      readonly expectHash: string
      readonly previous: { readonly bytes: Uint8Array; readonly permissions: number }
      /** Remove directories left empty by the removal, up to but excluding this one (as git apply). */
      readonly pruneUpTo?: string
    }

/** The filesystem calls a commit makes; injectable so tests can fail any one of them. */
export interface CommitFs {
  readFile(p: string): Promise<Uint8Array>
  writeFile(p: string, data: Uint8Array, options: { mode: number; flag: string }): Promise<void>
  chmod(p: string, mode: number): Promise<void>
  rename(from: string, to: string): Promise<void>
  unlink(p: string): Promise<void>
  mkdir(p: string): Promise<void>
  rmdir(p: string): Promise<void>
}

export const nodeCommitFs: CommitFs = {
  readFile: async (p) => new Uint8Array(await nodeFs.readFile(p)),
  writeFile: (p, data, options) => nodeFs.writeFile(p, data, options),
  chmod: (p, mode) => nodeFs.chmod(p, mode),
  rename: (from, to) => nodeFs.rename(from, to),
  unlink: (p) => nodeFs.unlink(p),
  mkdir: async (p) => {
    await nodeFs.mkdir(p)
  },
  rmdir: (p) => nodeFs.rmdir(p),
}

type Undo = () => Promise<void>

let tempCounter = 0

/** Temp files written at once while staging; bounded so a huge change cannot exhaust fds (EMFILE). */
const STAGING_CONCURRENCY = 16

export async function commitSteps(
  steps: readonly CommitStep[],
  fs: CommitFs = nodeCommitFs,
): Promise<void> {
  // PERF: the new content of files that already exist is written to temp files concurrently up
  // front; the loop below then only re-checks each target and renames, in order. Awaiting every
  // write in turn cost ~2-3 ms per file (bench/apply.bench.ts). New files, which may need new
  // directories, are still written in the loop.
  const staged = await stageRewrites(steps, fs)
  const undo: { rel: string; run: Undo }[] = []
  for (const step of steps) {
    try {
      await verifyUnchanged(fs, step)
      const temp = staged.get(step)
      if (step.kind === 'write' && temp !== undefined) {
        await fs.rename(temp, step.abs)
        staged.delete(step)
        const previous = step.previous
        if (previous !== null) {
          undo.push({
            rel: step.rel,
            run: () => atomicWrite(fs, step.abs, previous.bytes, previous.permissions),
          })
        }
      } else if (step.kind === 'write') {
        // A file that exists has its directory; only new files may need parents created.
        // PERF: saves a mkdir round trip per rewritten file (bench/apply.bench.ts).
        const created =
          step.previous === null ? await ensureParentDirs(fs, path.dirname(step.abs)) : []
        if (created.length > 0) undo.push({ rel: step.rel, run: () => removeDirs(fs, created) })
        await atomicWrite(fs, step.abs, step.bytes, step.permissions)
        const previous = step.previous
        undo.push({
          rel: step.rel,
          run:
            previous === null
              ? () => fs.unlink(step.abs)
              : () => atomicWrite(fs, step.abs, previous.bytes, previous.permissions),
        })
      } else {
        await fs.unlink(step.abs)
        const previous = step.previous
        undo.push({
          rel: step.rel,
          run: () => atomicWrite(fs, step.abs, previous.bytes, previous.permissions),
        })
        if (step.pruneUpTo !== undefined) {
          const pruned = await pruneEmptyDirs(fs, path.dirname(step.abs), step.pruneUpTo)
          if (pruned.length > 0) undo.push({ rel: step.rel, run: () => recreateDirs(fs, pruned) })
        }
      }
    } catch (error) {
      await discard(fs, staged)
      const failedToRestore = await rollback(undo)
      if (error instanceof EditError) {
        if (failedToRestore.length === 0) throw error
        throw new EditError(
          'JOURNAL_COMMIT_FAILED',
          `${error.message} Rolling back failed for: ${failedToRestore.join(', ')}.`,
          {
            path: step.rel,
            cause: error,
          },
        )
      }
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
      const restored = new Set(undo.map((u) => u.rel)).size
      const outcome =
        failedToRestore.length === 0
          ? `restored ${restored} file${restored === 1 ? '' : 's'} already written; the workspace is as before`
          : `could NOT restore: ${failedToRestore.join(', ')}`
      throw new EditError(
        'JOURNAL_COMMIT_FAILED',
        `Writing ${step.rel} failed (${reason}); ${outcome}.`,
        {
          path: step.rel,
          cause: error,
        },
      )
    }
  }
}

/** Writes every rewrite's temp file; on any failure removes them all and throws JOURNAL_COMMIT_FAILED. */
async function stageRewrites(
  steps: readonly CommitStep[],
  fs: CommitFs,
): Promise<Map<CommitStep, string>> {
  const staged = new Map<CommitStep, string>()
  const rewrites = steps.filter((s) => s.kind === 'write' && s.previous !== null)
  let failure: { step: CommitStep; error: unknown } | undefined
  let next = 0
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < rewrites.length) {
      const step = rewrites[next++] as Extract<CommitStep, { kind: 'write' }>
      try {
        staged.set(step, await writeTemp(fs, step.abs, step.bytes, step.permissions))
      } catch (error) {
        failure ??= { step, error }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(STAGING_CONCURRENCY, rewrites.length) }, worker))
  if (failure === undefined) return staged
  await discard(fs, staged)
  const reason = (failure.error as NodeJS.ErrnoException).code ?? (failure.error as Error).message
  throw new EditError(
    'JOURNAL_COMMIT_FAILED',
    `Staging ${failure.step.rel} failed (${reason}); nothing was written.`,
    { path: failure.step.rel, cause: failure.error },
  )
}

async function discard(fs: CommitFs, staged: Map<CommitStep, string>): Promise<void> {
  await Promise.all([...staged.values()].map((temp) => fs.unlink(temp).catch(() => undefined)))
  staged.clear()
}

async function verifyUnchanged(fs: CommitFs, step: CommitStep): Promise<void> {
  let current: Uint8Array | null
  try {
    current = await fs.readFile(step.abs)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') current = null
    else if (code === 'EISDIR') {
      throw new EditError('FILE_CHANGED', `${step.rel} became a directory after it was verified.`, {
        path: step.rel,
      })
    } else throw error
  }
  const currentHash = current === null ? null : hashBytes(current)
  if (currentHash === step.expectHash) return
  const detail =
    current === null ? 'was removed' : step.expectHash === null ? 'was created' : 'changed'
  throw new EditError(
    'FILE_CHANGED',
    `${step.rel} ${detail} after it was verified; nothing was written.`,
    {
      path: step.rel,
      ...(currentHash === null ? {} : { currentHash }),
    },
  )
}

async function atomicWrite(
  fs: CommitFs,
  abs: string,
  bytes: Uint8Array,
  permissions: number,
): Promise<void> {
  const temp = await writeTemp(fs, abs, bytes, permissions)
  try {
    await fs.rename(temp, abs)
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined)
    throw error
  }
}

/** Writes `bytes` to a new temp file beside `abs` with exact permission bits; returns its path. */
async function writeTemp(
  fs: CommitFs,
  abs: string,
  bytes: Uint8Array,
  permissions: number,
): Promise<string> {
  // A fixed-length name: the target's own name may already be near NAME_MAX (255 bytes), so it
  // cannot be part of the temp name (found by test/fuzz/engine.test.ts).
  const temp = path.join(path.dirname(abs), `.patchloom-${process.pid}-${tempCounter++}.tmp`)
  try {
    await fs.writeFile(temp, bytes, { mode: permissions, flag: 'wx' })
    // writeFile's mode is filtered by the umask; chmod sets exactly what the file had.
    await fs.chmod(temp, permissions)
    return temp
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined)
    throw error
  }
}

/** Creates `dir` and its missing ancestors; returns those it created, deepest first. */
async function ensureParentDirs(fs: CommitFs, dir: string): Promise<string[]> {
  const created: string[] = []
  await ensureDir(fs, dir, created)
  return created.reverse()
}

async function ensureDir(fs: CommitFs, dir: string, created: string[]): Promise<void> {
  try {
    await fs.mkdir(dir)
    created.push(dir)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return
    const parent = path.dirname(dir)
    if (code !== 'ENOENT' || parent === dir) throw error
    await ensureDir(fs, parent, created)
    await fs.mkdir(dir)
    created.push(dir)
  }
}

/** Removes `dir` and its ancestors below `stopAt` while they are empty; returns them, deepest first. */
async function pruneEmptyDirs(fs: CommitFs, dir: string, stopAt: string): Promise<string[]> {
  const removed: string[] = []
  let current = dir
  while (current !== stopAt && current.startsWith(stopAt + path.sep)) {
    try {
      await fs.rmdir(current)
    } catch {
      break // not empty (or not ours to remove): stop pruning, the commit itself succeeded
    }
    removed.push(current)
    current = path.dirname(current)
  }
  return removed
}

async function recreateDirs(fs: CommitFs, deepestFirst: readonly string[]): Promise<void> {
  for (let i = deepestFirst.length - 1; i >= 0; i--) await fs.mkdir(deepestFirst[i] as string)
}

async function removeDirs(fs: CommitFs, dirs: readonly string[]): Promise<void> {
  for (const dir of dirs) await fs.rmdir(dir)
}

async function rollback(undo: readonly { rel: string; run: Undo }[]): Promise<string[]> {
  const failed: string[] = []
  for (let i = undo.length - 1; i >= 0; i--) {
    const entry = undo[i] as { rel: string; run: Undo }
    try {
      await entry.run()
    } catch {
      if (!failed.includes(entry.rel)) failed.push(entry.rel)
    }
  }
  return failed
}
