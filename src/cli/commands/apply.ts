// `patchloom apply`: read the patch (FILE or stdin), run it through the engine (or a dry run of
// it), print the result. Failures propagate as EditError to main.ts, which renders them and
// picks the exit status; this module only guarantees the engine is closed on every path.
import { DEFAULT_DENY_GLOBS } from '../../config.js'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { EditError } from '../../errors.js'
import type { RunCommand } from '../args.js'
import type { CliDeps, CliIo } from '../main.js'
import { EXIT, renderApplyHuman, renderJsonLine } from '../render.js'

/** Reads the patch text from `file` (relative to io.cwd), or from stdin when file is null. */
export async function readPatchInput(file: string | null, io: CliIo): Promise<string> {
  if (file === null) return io.stdin()
  try {
    return await readFile(resolve(io.cwd, file), 'utf8')
  } catch (err) {
    const reason = err instanceof Error && 'code' in err ? String(err.code) : String(err)
    throw new EditError('USAGE_INVALID', `Cannot read the patch file '${file}' (${reason}).`, {
      hint: 'Give an existing patch file, or pipe the patch on stdin.',
      cause: err,
    })
  }
}

/** Runs apply (or, with cmd.dryRun, a check) and prints the result. Returns the exit status. */
export async function runApply(cmd: RunCommand, io: CliIo, deps: CliDeps): Promise<number> {
  const input = await readPatchInput(cmd.file, io)
  const engine = deps.createEngine({
    root: resolve(io.cwd, cmd.root ?? '.'),
    ...(cmd.workers ? {} : { pool: false as const }),
    ...(cmd.deny.length === 0 ? {} : { denyGlobs: [...DEFAULT_DENY_GLOBS, ...cmd.deny] }),
    ...(cmd.diagnostics ? { diagnostics: true } : {}),
  })
  try {
    const result = cmd.dryRun
      ? await engine.check(input, { format: cmd.format })
      : await engine.apply(input, { format: cmd.format })
    io.stdout(cmd.json ? renderJsonLine(result) : renderApplyHuman(result))
    return EXIT.OK
  } finally {
    await engine.close()
  }
}
