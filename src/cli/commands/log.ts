// `patchloom log`: the workspace journal through engine.transactions(), newest first, cut to
// --limit. Reads only .patchloom/journal; never takes the lock or writes anything.
import { resolve } from 'node:path'
import type { LogCommand } from '../args.js'
import type { CliDeps, CliIo } from '../io.js'
import { EXIT, renderJsonLine, renderLogHuman, type LogResult } from '../render.js'

export async function runLog(cmd: LogCommand, io: CliIo, deps: CliDeps): Promise<number> {
  const engine = deps.createEngine({ root: resolve(io.cwd, cmd.root ?? '.'), workers: false })
  try {
    const all = await engine.transactions()
    const omitted = Math.max(0, all.length - cmd.limit)
    const result: LogResult = {
      ok: true,
      transactions: all.slice(0, cmd.limit),
      ...(omitted === 0 ? {} : { omitted }),
    }
    io.stdout(cmd.json ? renderJsonLine(result) : renderLogHuman(result))
    return EXIT.OK
  } finally {
    await engine.close()
  }
}
