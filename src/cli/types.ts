// Shapes shared by the CLI's composition root (main.ts) and its commands: where the CLI reads
// and writes, and the seams tests replace. Types only, so commands never import main.ts and
// the root stays at the top of the import graph (#8).
import type { Engine, EngineOptions } from '../coordinator/engine-types.js'

/** Where the CLI reads and writes; the real process or a test's buffers. */
export interface CliIo {
  /** Resolves to all of stdin, decoded as UTF-8. Only called when the patch comes from stdin. */
  readonly stdin: () => Promise<string>
  readonly stdout: (s: string) => void
  readonly stderr: (s: string) => void
  /** Directory that relative FILE and --root arguments resolve against. */
  readonly cwd: string
}

/** Seams for tests: the engine factory. */
export interface CliDeps {
  readonly createEngine: (options: EngineOptions) => Engine
}
