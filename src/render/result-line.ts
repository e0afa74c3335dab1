// The object an apply's outcome is reported as on a JSON wire: `{"ok":true,...result}` with the
// command that undoes its transaction, or `{"ok":false,"error":{...}}` (ERRORS.md). `apply --json`
// prints one; `patchloom batch` and applyMany give one per job. Pure: data in, data out.
import { errorData, type EditErrorData } from '../errors.js'
import type { ApplyResult } from '../types.js'

/**
 * An ApplyResult as the wire carries it: `ok: true` first, as every success line starts, and the
 * command that undoes its transaction, if any. (ApplyResult itself has no `ok`: the engine
 * rejects on failure, so only a wire with both outcomes needs it.)
 */
export interface AppliedResult extends ApplyResult {
  readonly ok: true
  readonly undoCommand?: string
}

/** A failure on the JSON wire: `{"ok":false,"error":{...}}` (ERRORS.md). */
export interface FailedResult {
  readonly ok: false
  readonly error: EditErrorData
}

export function failedResult(error: EditErrorData): FailedResult {
  return { ok: false, error }
}

/** The INTERNAL error reported for an exception that is not an EditError (a bug). */
export function internalErrorData(err: unknown): EditErrorData {
  const detail = err instanceof Error ? err.message : String(err)
  return errorData('INTERNAL', `Internal error: ${detail}`)
}

/** Quotes `word` for a POSIX shell when it needs it, so a printed command can be pasted. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

/** The command that undoes `transaction`; with --root when the user gave one. */
export function undoCommandFor(transaction: string, root: string | null): string {
  const rootFlag = root === null ? '' : ` --root ${shellQuote(root)}`
  return `patchloom undo ${transaction}${rootFlag}`
}

/** The wire line for a result: `ok: true`, and undoCommand when the change committed as a transaction. */
export function withUndoCommand(result: ApplyResult, root: string | null): AppliedResult {
  if (result.transaction === undefined) return { ok: true, ...result }
  return { ok: true, ...result, undoCommand: undoCommandFor(result.transaction, root) }
}
