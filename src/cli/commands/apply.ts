// `patchloom apply`: read the patch bytes (FILE or stdin, src/cli/read-patch.ts), run them
// through the engine (or a dry run), print the result. Failures propagate as EditError to main.ts, which renders them and
// picks the exit status; this module only guarantees the engine is closed on every path.
import { DEFAULT_DENY_GLOBS } from '../../defaults.js'
import { resolve } from 'node:path'
import type { RunCommand } from '../args.js'
import type { CliDeps, CliIo } from '../io.js'
import { readPatchInput } from '../read-patch.js'
import { EXIT, renderApplyHuman, renderJsonLine, withUndoCommand } from '../render.js'

/** Runs apply (or, with cmd.dryRun, a check) and prints the result. Returns the exit status. */
export async function runApply(cmd: RunCommand, io: CliIo, deps: CliDeps): Promise<number> {
  const input = await readPatchInput(cmd.file, io, cmd.limits.maxPatchBytes)
  const engine = deps.createEngine({
    root: resolve(io.cwd, cmd.root ?? '.'),
    ...(cmd.workers === 'never' ? { workers: false as const } : {}),
    // A one-shot process: nothing else waits on its event loop while it reads the files.
    blockingReads: true,
    ...(cmd.deny.length === 0 ? {} : { denyGlobs: [...DEFAULT_DENY_GLOBS, ...cmd.deny] }),
    ...(cmd.diagnostics ? { diagnostics: true } : {}),
    ...(Object.keys(cmd.limits).length === 0 ? {} : { limits: cmd.limits }),
    durability: cmd.durability,
  })
  try {
    // The human summary shows no diffs, so none are rendered; --json carries them.
    const options = {
      format: cmd.format,
      diffs: cmd.json,
      ...(cmd.binaryWithoutData === undefined ? {} : { binaryWithoutData: cmd.binaryWithoutData }),
      ...(cmd.workers === 'always' ? { route: 'pool' as const } : {}),
    }
    const result = cmd.dryRun
      ? await engine.check(input, options)
      : await engine.apply(input, options)
    const shown = withUndoCommand(result, cmd.root)
    io.stdout(cmd.json ? renderJsonLine(shown) : renderApplyHuman(shown))
    return EXIT.OK
  } finally {
    await engine.close()
  }
}
