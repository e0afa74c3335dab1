// Shapes shared by the CLI's composition root (main.ts) and its commands: where the CLI reads
// and writes, and the seams tests replace. Types only, so commands never import main.ts and
// the root stays at the top of the import graph.
import type { EngineInternals, InternalEngine } from '../engine/engine.js'
import type { EngineOptions } from '../engine/api.js'

/** Where the CLI reads and writes; the real process or a test's buffers. */
export interface CliIo {
  /**
   * Stdin as a stream of chunks (strings count as UTF-8), read only up to the patch size limit
   * (src/cli/read-patch.ts). Only called when the patch comes from stdin.
   */
  readonly stdin: () => AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>
  readonly stdout: (s: string) => void
  readonly stderr: (s: string) => void
  /** Directory that relative FILE and --root arguments resolve against. */
  readonly cwd: string
  /** Stderr is a terminal: long commands (replay) may draw a progress line there. */
  readonly stderrIsTTY?: boolean
  /**
   * Resolves when stdout has room for more (at once unless its buffer is full): a command that
   * writes many lines (batch) waits for it, so a slow reader does not fill memory.
   */
  readonly drained?: () => Promise<void>
  /**
   * Resolves when the command should stop (`patchloom worker`); by default SIGTERM or SIGINT to
   * this process.
   */
  readonly stopped?: Promise<void>
}

/**
 * Seams for tests: the engine factory. The CLI is a composition root and takes the internal
 * engine, whose requests accept `route` (`--workers` forces the worker threads).
 */
export interface CliDeps {
  readonly createEngine: (options: EngineOptions, internals?: EngineInternals) => InternalEngine
}
