// One workspace the server serves: its engine, its path sandbox, its memory of what each
// agent has seen, and the in-process locks that order overlapping transactions. Every path a
// request names goes through the engine's own resolution (containment through symlinks, deny
// globs), for reads as for writes.
import { closeSync, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs'
import { lstat, realpath } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { DEFAULT_DENY_GLOBS, DEFAULT_LIMITS } from '../defaults.js'
import { createEngineWithInternals, type InternalEngine } from '../engine/engine.js'
import type { Engine } from '../engine/api.js'
import { compileGlobs } from '../workspace/glob.js'
import type { WorkerPool } from '../threads/worker-pool.js'
import { resolveWorkspacePath, type PathContext, type ResolvedPath } from '../workspace/paths.js'
import { createSyncReadFs, READ_FLAGS } from '../workspace/read-fs.js'
import { EditError } from '../errors.js'
import { hashBytes } from '../hash.js'
import type { Durability, RecoveryReport } from '../journal/records.js'
import { pathLocks, type AcquireKeys } from '../journal/lock.js'
import { WorkspaceMemory, type MemoryLimits } from './memory.js'

export interface WorkspaceSpec {
  /** What requests call it (the `workspace` argument); the root's base name by default. */
  readonly name: string
  readonly root: string
}

export interface WorkspaceSettings {
  readonly durability: Durability
  readonly diagnostics: boolean
  readonly memory?: MemoryLimits
  readonly pool?: WorkerPool
}

/** A file's bytes as they are now, with their hash; null when there is no file. */
export interface FileNow {
  readonly bytes: Uint8Array
  readonly hash: string
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

export class Workspace {
  readonly name: string
  readonly root: string
  /**
   * The workspace's engine, typed with the internal request options (`onCommitted`): a caller's
   * engine from createEngine takes them; any other Engine ignores them.
   */
  readonly engine: InternalEngine
  readonly memory: WorkspaceMemory
  /** Held from a transaction's first read of a file to its commit (keys: absolute paths). */
  readonly lock: AcquireKeys = pathLocks()
  readonly #ctx: PathContext
  /** Whether close() stops the engine: false for a caller's engine (Workspace.over). */
  readonly #ownsEngine: boolean

  private constructor(
    name: string,
    rootReal: string,
    engine: Engine,
    memory: MemoryLimits | undefined,
    ownsEngine: boolean,
  ) {
    this.name = name
    this.root = rootReal
    this.engine = engine as InternalEngine
    this.memory = new WorkspaceMemory(memory)
    this.#ownsEngine = ownsEngine
    const isDenied = compileGlobs(DEFAULT_DENY_GLOBS)
    this.#ctx = { root: rootReal, rootReal, isDenied }
  }

  /** What recovery did when the workspace opened (interrupted commits rolled back, or refused). */
  recovery: RecoveryReport = { rolledBack: [], conflicted: [], conflicts: [] }

  /** Opens a workspace: its root must be an existing directory; interrupted commits roll back. */
  static async open(spec: WorkspaceSpec, settings: WorkspaceSettings): Promise<Workspace> {
    const rootReal = await existingRoot(spec.root)
    const engine = createEngineWithInternals(
      { root: rootReal, durability: settings.durability, diagnostics: settings.diagnostics },
      settings.pool === undefined ? {} : { sharedPool: settings.pool },
    )
    const workspace = new Workspace(spec.name, rootReal, engine, settings.memory, true)
    workspace.recovery = await engine.recover()
    return workspace
  }

  /**
   * A workspace over a caller's engine (the framework adapters): same sandbox, memory and locks
   * as the server's, but close() leaves the engine running, and interrupted commits are rolled
   * back by the engine's own first request.
   */
  static async over(engine: Engine, memory?: MemoryLimits): Promise<Workspace> {
    const rootReal = await existingRoot(engine.root)
    return new Workspace(basename(rootReal) || 'root', rootReal, engine, memory, false)
  }

  // Synchronous calls on purpose, here and in now() (DECISIONS.md D-123).
  /**
   * Resolves a request's path inside the root (PATH_* errors otherwise), with synchronous calls:
   * one path is a few microseconds of lstat, where each awaited call is a thread-pool round trip.
   */
  resolve(path: string): Promise<ResolvedPath> {
    return resolveWorkspacePath(this.#ctx, path, 0, { fs: createSyncReadFs() })
  }

  /**
   * A path the engine reported for a file it just committed, joined to the root without resolving
   * it again (the engine resolved it in the sandbox): for reading back what was written, whose
   * bytes count only when they hash to what the engine reported.
   */
  committedPath(rel: string): ResolvedPath {
    return { input: rel, rel, abs: join(this.root, rel) }
  }

  /**
   * The file's bytes and hash now; null when nothing is there. FILE_IS_DIRECTORY and the size
   * limit apply. Synchronous, as resolve() is: one file of at most maxFileBytes.
   */
  async now(resolved: ResolvedPath): Promise<FileNow | null> {
    let size: number
    try {
      const st = lstatSync(resolved.abs)
      if (st.isDirectory()) {
        throw new EditError('FILE_IS_DIRECTORY', `${resolved.rel} is a directory, not a file.`, {
          path: resolved.rel,
        })
      }
      if (!st.isFile()) {
        throw new EditError('FILE_NOT_REGULAR', `${resolved.rel} is not a regular file.`, {
          path: resolved.rel,
        })
      }
      size = st.size
    } catch (error) {
      if (isMissing(error)) return null
      throw error
    }
    if (size > DEFAULT_LIMITS.maxFileBytes) {
      throw new EditError(
        'LIMIT_FILE_TOO_LARGE',
        `${resolved.rel} is ${size} bytes, over the ${DEFAULT_LIMITS.maxFileBytes}-byte file limit.`,
        { path: resolved.rel },
      )
    }
    let bytes: Uint8Array | null
    try {
      bytes = readRegular(resolved.abs)
    } catch (error) {
      if (isMissing(error)) return null
      throw error
    }
    if (bytes === null) {
      throw new EditError('FILE_NOT_REGULAR', `${resolved.rel} is not a regular file.`, {
        path: resolved.rel,
      })
    }
    return { bytes, hash: hashBytes(bytes) }
  }

  /** Remembers a version's text for rebasing, when it is text; returns the text or null. */
  keepVersion(now: FileNow): string | null {
    const text = decodeText(now.bytes)
    if (text !== null) this.memory.keepVersion(now.hash, text)
    return text
  }

  close(): Promise<void> {
    return this.#ownsEngine ? this.engine.close() : Promise.resolve()
  }
}

/** The real path of an existing directory, or CONFIG_INVALID. */
async function existingRoot(root: string): Promise<string> {
  try {
    const rootReal = await realpath(root)
    if (!(await lstat(rootReal)).isDirectory()) throw new Error('not a directory')
    return rootReal
  } catch (error) {
    throw new EditError(
      'CONFIG_INVALID',
      `Invalid option: workspace root ${root} is not an existing directory.`,
      { cause: error },
    )
  }
}

/**
 * A regular file's bytes, or null when what was opened is not one (swapped in since the lstat):
 * opened without following a symlink and without blocking on a FIFO (READ_FLAGS), so a
 * synchronous read can neither hang the event loop nor leave the workspace.
 */
function readRegular(abs: string): Uint8Array | null {
  const fd = openSync(abs, READ_FLAGS)
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd) : null
  } finally {
    closeSync(fd)
  }
}

/** UTF-8 text without NUL bytes (the BOM kept), or null. */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null
  try {
    return UTF8.decode(bytes)
  } catch {
    return null
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return code === 'ENOENT' || code === 'ENOTDIR'
}
