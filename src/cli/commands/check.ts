// `patchloom check`: a dry run of apply, or with --parse-only a report built from the patch
// alone (src/parse/summary.ts), which reads no workspace file and starts no engine.
import { DEFAULT_LIMITS } from '../../config.js'
import { patchTextOf } from '../../coordinator/patch-input.js'
import { EditError } from '../../errors.js'
import { parsePatch } from '../../parse/index.js'
import { checkPlanEncoding } from '../../parse/raw-bytes.js'
import { summarizePlan } from '../../parse/summary.js'
import type { RunCommand } from '../args.js'
import type { CliDeps, CliIo } from '../types.js'
import { EXIT, parseOnlyResult, renderJsonLine, renderParseOnlyHuman } from '../render.js'
import { readPatchInput } from '../read-patch.js'
import { runApply } from './apply.js'

/** Runs check and prints the result. Returns the exit status; failures throw EditError. */
export async function runCheck(cmd: RunCommand, io: CliIo, deps: CliDeps): Promise<number> {
  if (!cmd.parseOnly) return runApply({ ...cmd, dryRun: true }, io, deps)
  const maxPatchBytes = cmd.limits.maxPatchBytes ?? DEFAULT_LIMITS.maxPatchBytes
  const patch = patchTextOf(await readPatchInput(cmd.file, io, maxPatchBytes), maxPatchBytes)
  const parsed = parsePatch(patch.text, cmd.format)
  if (!parsed.ok) throw EditError.fromData(parsed.error)
  const judged = checkPlanEncoding(parsed.value, patch.firstRawLine)
  if (!judged.ok) throw EditError.fromData(judged.error)
  const result = parseOnlyResult(parsed.value.format, summarizePlan(parsed.value))
  io.stdout(cmd.json ? renderJsonLine(result) : renderParseOnlyHuman(result))
  return EXIT.OK
}
