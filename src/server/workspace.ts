// One workspace the server serves: its engine, its path sandbox, its memory of what each
// agent has seen, and the in-process locks that order overlapping transactions. Every path a
// request names goes through the engine's own resolution (containment through symlinks, deny
// globs), for reads as for writes. With an observer (the serve command's metrics), it reports
// its waits for those locks and each lock turn of its journal's commit.
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
import type { LspClient, PoolStatus, SidecarPoolOptions } from '../lsp/client-types.js'
import { WorkspaceMemory, type MemoryLimits } from './memory.js'
import type { ServerObserver } from './observe.js'

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
  readonly observer?: ServerObserver
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
  readonly lock: AcquireKeys
  readonly #ctx: PathContext
  /** Whether close() stops the engine: false for a caller's engine (Workspace.over). */
  readonly #ownsEngine: boolean
  /** The engine's language-server client, once a request has started it (Workspace.open). */
  #lsp: LspClient | undefined

  private constructor(
    name: string,
    rootReal: string,
    engine: Engine,
    memory: MemoryLimits | undefined,
    ownsEngine: boolean,
    observer?: ServerObserver,
  ) {
    this.name = name
    this.root = rootReal
    this.engine = engine as InternalEngine
    this.memory = new WorkspaceMemory(memory)
    this.#ownsEngine = ownsEngine
    this.lock = observer === undefined ? pathLocks() : timedLocks(pathLocks(), observer)
    const isDenied = compileGlobs(DEFAULT_DENY_GLOBS)
    this.#ctx = { root: rootReal, rootReal, isDenied }
  }

  /** What recovery did when the workspace opened (interrupted commits rolled back, or refused). */
  recovery: RecoveryReport = { rolledBack: [], conflicted: [], conflicts: [] }
  /** Whether recovery has run (Workspace.open), or is the engine's own (Workspace.over). */
  recovered = false

  /** Opens a workspace: its root must be an existing directory; interrupted commits roll back. */
  static async open(spec: WorkspaceSpec, settings: WorkspaceSettings): Promise<Workspace> {
    const rootReal = await existingRoot(spec.root)
    const { observer } = settings
    let workspace: Workspace | undefined
    const engine = createEngineWithInternals(
      { root: rootReal, durability: settings.durability, diagnostics: settings.diagnostics },
      {
        ...(settings.pool === undefined ? {} : { sharedPool: settings.pool }),
        // PERF (DECISIONS.md D-192): agents' requests arrive between batches; the lock is kept
        // for them one event-loop turn instead of made again per commit.
        journalHoldLock: true,
        ...(observer === undefined
          ? {}
          : { onCommitBatch: (stats) => observer.commitBatch(spec.name, stats) }),
        // The engine's own way of starting the client, kept here too so its status can be read.
        lspClientFactory: async (options: SidecarPoolOptions) => {
          const { startLspClient } = await import('../lsp/client.js')
          const client = startLspClient(options)
          if (workspace !== undefined) workspace.#lsp = client
          return client
        },
      },
    )
    workspace = new Workspace(spec.name, rootReal, engine, settings.memory, true, observer)
    workspace.recovery = await engine.recover()
    workspace.recovered = true
    return workspace
  }

  /**
   * The language-server pool's status; undefined while no request has started it. A pool that
   * cannot answer reads as unavailable.
   */
  async languageServers(): Promise<PoolStatus | undefined> {
    const lsp = this.#lsp
    if (lsp === undefined) return undefined
    try {
      return await lsp.status()
    } catch (error) {
      return { servers: [], unavailable: error instanceof Error ? error.message : String(error) }
    }
  }

  /**
   * A workspace over a caller's engine (the framework adapters): same sandbox, memory and locks
   * as the server's, but close() leaves the engine running, and interrupted commits are rolled
   * back by the engine's own first request.
   */
  static async over(engine: Engine, memory?: MemoryLimits): Promise<Workspace> {
    const rootReal = await existingRoot(engine.root)
    const workspace = new Workspace(basename(rootReal) || 'root', rootReal, engine, memory, false)
    workspace.recovered = true
    return workspace
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

/** `locks` telling `observer` how long each claim waited. */
function timedLocks(locks: AcquireKeys, observer: ServerObserver): AcquireKeys {
  return async (keys) => {
    const started = performance.now()
    const release = await locks(keys)
    observer.serverLockWait(performance.now() - started)
    return release
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
