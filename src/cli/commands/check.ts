// `patchloom check`: a dry run of apply, or with --parse-only a report built from the patch
// alone (the library's parsePatch, src/engine/parse-patch.ts), which reads no workspace
// file and starts no engine.
import { DEFAULT_LIMITS } from '../../defaults.js'
import { patchTextOf } from '../../bytes/patch-input.js'
import { summarizePatch } from '../../engine/parse-patch.js'
import type { RunCommand } from '../args.js'
import type { CliDeps, CliIo } from '../io.js'
import { EXIT, parseOnlyResult, renderJsonLine, renderParseOnlyHuman } from '../render.js'
import { readPatchInput } from '../read-patch.js'
import { runApply } from './apply.js'

/** Runs check and prints the result. Returns the exit status; failures throw EditError. */
export async function runCheck(cmd: RunCommand, io: CliIo, deps: CliDeps): Promise<number> {
  if (!cmd.parseOnly) return runApply({ ...cmd, dryRun: true }, io, deps)
  const maxPatchBytes = cmd.limits.maxPatchBytes ?? DEFAULT_LIMITS.maxPatchBytes
  const patch = patchTextOf(await readPatchInput(cmd.file, io, maxPatchBytes), maxPatchBytes)
  const summary = summarizePatch(
    patch,
    cmd.format,
    cmd.binaryWithoutData === undefined ? {} : { binaryWithoutData: cmd.binaryWithoutData },
  )
  const result = parseOnlyResult(summary.format, summary.files, summary.warnings)
  io.stdout(cmd.json ? renderJsonLine(result) : renderParseOnlyHuman(result))
  return EXIT.OK
}
