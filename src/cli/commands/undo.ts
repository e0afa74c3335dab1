// `patchloom undo [TXN]`: restore the before state of a committed transaction (the newest change
// not yet undone by default) through engine.undo(), itself a journal transaction. Refusals
// (UNDO_NOT_FOUND, UNDO_UNAVAILABLE, UNDO_CONFLICT, JOURNAL_*) propagate as EditError to main.ts,
// which prints them like apply's errors and picks the exit status.
import { resolve } from 'node:path'
import type { UndoCommand } from '../args.js'
import type { CliDeps, CliIo } from '../io.js'
import { EXIT, renderJsonLine, renderUndoHuman } from '../render.js'

export async function runUndo(cmd: UndoCommand, io: CliIo, deps: CliDeps): Promise<number> {
  const engine = deps.createEngine({
    root: resolve(io.cwd, cmd.root ?? '.'),
    workers: false,
    durability: cmd.durability,
  })
  try {
    const result = await engine.undo(cmd.transaction ?? undefined)
    io.stdout(cmd.json ? renderJsonLine({ ok: true, ...result }) : renderUndoHuman(result))
    return EXIT.OK
  } finally {
    await engine.close()
  }
}
