// `patchloom apply`: read the patch (FILE or stdin), run it through the engine (or a dry run of
// it), print the result. Failures propagate as EditError to main.ts, which renders them and
// picks the exit status; this module only guarantees the engine is closed on every path.
import { DEFAULT_DENY_GLOBS, DEFAULT_LIMITS } from '../../config.js'
import { checkPatchSize } from '../../coordinator/limits.js'
import { readFile, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { EditError } from '../../errors.js'
import type { RunCommand } from '../args.js'
import type { CliDeps, CliIo } from '../types.js'
import { EXIT, renderApplyHuman, renderJsonLine, withUndoCommand } from '../render.js'

/**
 * Reads the patch text from `file` (relative to io.cwd), or from stdin when file is null, and
 * refuses one over maxPatchBytes (a file from its size, before reading it).
 */
export async function readPatchInput(
  file: string | null,
  io: CliIo,
  maxPatchBytes: number = DEFAULT_LIMITS.maxPatchBytes,
): Promise<string> {
  if (file === null) {
    const text = await io.stdin()
    checkPatchSize(text, maxPatchBytes)
    return text
  }
  const abs = resolve(io.cwd, file)
  const size = await stat(abs).then(
    (st) => (st.isFile() ? st.size : 0),
    () => 0,
  )
  if (size > maxPatchBytes) {
    throw new EditError(
      'LIMIT_PATCH_TOO_LARGE',
      `The patch file '${file}' is ${size} bytes, over the ${maxPatchBytes}-byte patch size limit.`,
    )
  }
  try {
    return await readFile(abs, 'utf8')
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
  const input = await readPatchInput(cmd.file, io, cmd.limits.maxPatchBytes)
  const engine = deps.createEngine({
    root: resolve(io.cwd, cmd.root ?? '.'),
    ...(cmd.workers ? {} : { pool: false as const }),
    ...(cmd.deny.length === 0 ? {} : { denyGlobs: [...DEFAULT_DENY_GLOBS, ...cmd.deny] }),
    ...(cmd.diagnostics ? { diagnostics: true } : {}),
    ...(Object.keys(cmd.limits).length === 0 ? {} : { limits: cmd.limits }),
    durability: cmd.durability,
  })
  try {
    const result = cmd.dryRun
      ? await engine.check(input, { format: cmd.format })
      : await engine.apply(input, { format: cmd.format })
    const shown = withUndoCommand(result, cmd.root)
    io.stdout(cmd.json ? renderJsonLine(shown) : renderApplyHuman(shown))
    return EXIT.OK
  } finally {
    await engine.close()
  }
}
