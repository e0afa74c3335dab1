// `patchloom diagnostics FILE...`: what the language servers report for files as they are on
// disk, with the same settle rules as `apply --diagnostics`. Exit 0 when every server settled
// and no error was found, 1 when errors were found, 75 when a server did not settle (the answer
// is incomplete, which is never the same as clean).
import { resolve } from 'node:path'
import type { DiagnosticsCommand } from '../args.js'
import type { CliDeps, CliIo } from '../io.js'
import { EXIT, renderDiagnosticsHuman } from '../render.js'

export async function runDiagnostics(
  cmd: DiagnosticsCommand,
  io: CliIo,
  deps: CliDeps,
): Promise<number> {
  const engine = deps.createEngine({ root: resolve(io.cwd, cmd.root ?? '.'), workers: false })
  try {
    const report = await engine.diagnostics(cmd.files.map((f) => resolve(io.cwd, f)))
    io.stdout(
      cmd.json
        ? `${JSON.stringify({ ok: true, diagnostics: report })}\n`
        : renderDiagnosticsHuman(report),
    )
    if (!report.settled) return EXIT.RETRYABLE
    return report.remaining.some((d) => d.severity === 'error') ? EXIT.REJECTED : EXIT.OK
  } finally {
    await engine.close()
  }
}
