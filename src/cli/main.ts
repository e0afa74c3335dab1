// The CLI's composition root: argv -> command -> engine -> output, and every outcome -> an exit
// status (0 applied, 1 rejected, 75 retryable, 64 usage, 70 internal; recover: 1 while a
// conflict remains). Runs in-process against a CliIo so tests need no child process;
// bin/patchloom.js wires it to the real process.
// With --json, stdout carries exactly one JSON line whatever happens.
import { createEngineWithInternals } from '../engine/engine.js'
import { isEditError, type EditErrorData } from '../errors.js'
import { HELP_TEXT, parseArgs } from './args.js'
import { runApply } from './commands/apply.js'
import { runBatch } from './commands/batch.js'
import { runCheck } from './commands/check.js'
import { runDemo } from './commands/demo.js'
import { runDiagnostics } from './commands/diagnostics.js'
import { runLog } from './commands/log.js'
import { runRecover } from './commands/recover.js'
import { runReplay } from './commands/replay.js'
import { runUndo } from './commands/undo.js'
import { findPackageRoot } from './package-root.js'
import {
  EXIT,
  exitCodeFor,
  failedResult,
  internalErrorData,
  renderErrorHuman,
  renderJsonLine,
} from './render.js'
import type { CliDeps, CliIo } from './io.js'

const DEFAULT_DEPS: CliDeps = {
  createEngine: (options, internals) => createEngineWithInternals(options, internals),
}

/** The long-running server commands (src/cli/commands/serve.ts). */
const SERVER_COMMANDS = new Set(['mcp', 'serve', 'tools'])

/** Resolves on the first SIGTERM or SIGINT (a worker then finishes the jobs in hand). */
function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => resolve())
  })
}

/** The distributed replay's commands: `worker`, `queue`, and `replay --queue`. */
function isQueueCommand(argv: readonly string[]): boolean {
  const [word] = argv
  if (word === 'worker' || word === 'queue') return true
  return word === 'replay' && argv.some((a) => a === '--queue' || a.startsWith('--queue='))
}

/**
 * Runs the CLI with `argv` (without node and script path) and resolves to the exit status.
 * Never rejects: internal failures become exit 70.
 *
 * @example
 * const code = await main(['apply', 'fix.patch', '--json'], { stdin, stdout, stderr, cwd })
 */
export async function main(
  argv: readonly string[],
  io: CliIo,
  deps: CliDeps = DEFAULT_DEPS,
): Promise<number> {
  // Known even when parsing fails, so a usage error still answers in the requested shape.
  const json = argv.includes('--json')
  const report = (error: EditErrorData): number => {
    if (json) io.stdout(renderJsonLine(failedResult(error)))
    else io.stderr(renderErrorHuman(error))
    return exitCodeFor(error)
  }

  if (SERVER_COMMANDS.has(argv[0] ?? '')) {
    try {
      // Loaded only here: one-shot commands never load the MCP SDK.
      const { runServerCommand } = await import('./commands/serve.js')
      const version = (await findPackageRoot())?.version ?? 'unknown'
      return await runServerCommand(argv, { ...io, env: process.env }, version)
    } catch (err) {
      if (isEditError(err)) return report(err.toData())
      io.stderr(`${err instanceof Error && err.stack !== undefined ? err.stack : String(err)}\n`)
      return report(internalErrorData(err))
    }
  }
  if (isQueueCommand(argv)) {
    try {
      // Loaded only here: other commands never load BullMQ.
      const { runQueueCommand } = await import('./commands/queue.js')
      // Only a worker waits for a signal; a one-shot command keeps the default SIGTERM.
      const stopped = io.stopped ?? (argv[0] === 'worker' ? stopSignal() : undefined)
      return await runQueueCommand(argv, { ...io, ...(stopped === undefined ? {} : { stopped }) })
    } catch (err) {
      if (isEditError(err)) return report(err.toData())
      io.stderr(`${err instanceof Error && err.stack !== undefined ? err.stack : String(err)}\n`)
      return report(internalErrorData(err))
    }
  }
  const parsed = parseArgs(argv)
  if (!parsed.ok) return report(parsed.error)
  const command = parsed.value
  try {
    switch (command.kind) {
      case 'help':
        io.stdout(HELP_TEXT)
        return EXIT.OK
      case 'version':
        io.stdout(`${(await findPackageRoot())?.version ?? 'unknown'}\n`)
        return EXIT.OK
      case 'demo':
        return await runDemo(io)
      case 'replay':
        return await runReplay(command, io)
      case 'diagnostics':
        return await runDiagnostics(command, io, deps)
      case 'apply':
        return await runApply(command, io, deps)
      case 'check':
        return await runCheck(command, io, deps)
      case 'batch':
        return await runBatch(command, io, deps)
      case 'undo':
        return await runUndo(command, io, deps)
      case 'log':
        return await runLog(command, io, deps)
      case 'recover':
        return await runRecover(command, io, deps)
    }
  } catch (err) {
    if (isEditError(err)) return report(err.toData())
    // A plain Error is a bug: say so in the agreed shape, and keep the stack for the report.
    io.stderr(`${err instanceof Error && err.stack !== undefined ? err.stack : String(err)}\n`)
    return report(internalErrorData(err))
  }
}
