// `patchloom check`: a dry run of apply, or with --parse-only a report built from the patch
// alone (src/parse/summary.ts), which reads no workspace file and starts no engine.
import { EditError } from '../../errors.js'
import { parsePatch } from '../../parse/index.js'
import { summarizePlan } from '../../parse/summary.js'
import type { RunCommand } from '../args.js'
import type { CliDeps, CliIo } from '../types.js'
import { EXIT, parseOnlyResult, renderJsonLine, renderParseOnlyHuman } from '../render.js'
import { readPatchInput, runApply } from './apply.js'

/** Runs check and prints the result. Returns the exit status; failures throw EditError. */
export async function runCheck(cmd: RunCommand, io: CliIo, deps: CliDeps): Promise<number> {
  if (!cmd.parseOnly) return runApply({ ...cmd, dryRun: true }, io, deps)
  const input = await readPatchInput(cmd.file, io, cmd.limits.maxPatchBytes)
  const parsed = parsePatch(input, cmd.format)
  if (!parsed.ok) throw EditError.fromData(parsed.error)
  const result = parseOnlyResult(parsed.value.format, summarizePlan(parsed.value))
  io.stdout(cmd.json ? renderJsonLine(result) : renderParseOnlyHuman(result))
  return EXIT.OK
}
