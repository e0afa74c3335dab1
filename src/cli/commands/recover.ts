// `patchloom recover`: engine.recover() rolls back transactions a crash interrupted and retries
// ones an earlier recovery left in conflict. The report (conflicts included) goes to stdout;
// exit 0 when nothing is left in conflict, 1 while a file still is (the user must look at it).
import { resolve } from 'node:path'
import type { RecoverCommand } from '../args.js'
import type { CliDeps, CliIo } from '../io.js'
import { EXIT, renderJsonLine, renderRecoverHuman } from '../render.js'

export async function runRecover(cmd: RecoverCommand, io: CliIo, deps: CliDeps): Promise<number> {
  const engine = deps.createEngine({ root: resolve(io.cwd, cmd.root ?? '.'), workers: false })
  try {
    const report = await engine.recover()
    io.stdout(cmd.json ? renderJsonLine({ ok: true, ...report }) : renderRecoverHuman(report))
    return report.conflicts.length + report.conflicted.length === 0 ? EXIT.OK : EXIT.REJECTED
  } finally {
    await engine.close()
  }
}
