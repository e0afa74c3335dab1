// patchloom/openai: OpenAI's apply_patch tool over an engine. applyPatchCall and applyPatchCalls
// turn the Responses API's apply_patch_call items into apply_patch_call_output items;
// createEditor gives the Agents SDK's applyPatchTool({ editor }) its Editor. Each operation is a
// section of a Codex patch (v4a.ts) run by the server's apply_patch tool, so the Codex parser and
// matcher place every hunk; with atomic, all calls of one response are one Codex patch.
// The item types are structural: nothing here imports an OpenAI package at run time.
import { EditError } from '../errors.js'
import type { Engine } from '../engine/api.js'
import { failureOutcome } from '../server/run-tool.js'
import { runAtomic } from './openai-atomic.js'
import { prepare, runOne, type CallOutcome } from './openai-run.js'
import { checkEngine, openSession, type AdapterOptions, type Session } from './session.js'

export type { AdapterOptions } from './session.js'

/** Who made a call: the model directly, or a program the model ran (programmatic tool calling). */
export type ApplyPatchCaller =
  { readonly type: 'direct' } | { readonly type: 'program'; readonly caller_id: string }

/** The operation of an apply_patch_call: a file to create, update (V4A diff) or delete. */
export type ApplyPatchOperation =
  | { readonly type: 'create_file'; readonly path: string; readonly diff: string }
  | { readonly type: 'update_file'; readonly path: string; readonly diff: string }
  | { readonly type: 'delete_file'; readonly path: string }

/** An `apply_patch_call` item of a response (or of the input that replays it). */
export interface ApplyPatchCall {
  readonly type: 'apply_patch_call'
  readonly call_id: string
  readonly operation: ApplyPatchOperation
  readonly status?: string
  readonly id?: string | null
  readonly caller?: ApplyPatchCaller | null
}

/** The `apply_patch_call_output` item to send back in the next request's input. */
export interface ApplyPatchCallOutput {
  readonly type: 'apply_patch_call_output'
  readonly call_id: string
  readonly status: 'completed' | 'failed'
  /** For the model: the summary, content hashes, warnings and diff, or the error and its hint. */
  readonly output: string
  readonly caller?: ApplyPatchCaller
}

/** Options of applyPatchCall and createEditor. `readBeforeWrite` defaults to false here. */
export type ApplyPatchOptions = AdapterOptions

/** Options of applyPatchCalls. */
export interface ApplyPatchCallsOptions extends AdapterOptions {
  /**
   * Commit all the calls as one transaction (one Codex patch): all land or none, and one undo
   * reverts them. Without it each call is its own transaction with its own status.
   * @default false
   */
  readonly atomic?: boolean
}

/** What an Editor method returns: the status and the text the model reads. */
export interface EditorResult {
  readonly status: 'completed' | 'failed'
  readonly output: string
}

/** The Agents SDK's Editor (`applyPatchTool({ editor })`), over an engine. Never rejects. */
export interface PatchloomEditor {
  createFile(operation: {
    readonly type: 'create_file'
    readonly path: string
    readonly diff: string
  }): Promise<EditorResult>
  updateFile(operation: {
    readonly type: 'update_file'
    readonly path: string
    readonly diff: string
    readonly moveTo?: string
  }): Promise<EditorResult>
  deleteFile(operation: {
    readonly type: 'delete_file'
    readonly path: string
  }): Promise<EditorResult>
}

// The OpenAI tool has no read command: the model reads through a shell (DECISIONS.md D-160).
const READ_BEFORE_WRITE = false

/**
 * Applies one apply_patch_call as its own transaction and returns its apply_patch_call_output.
 * Failures are outputs with status 'failed'; it rejects only on a programming error (TypeError).
 * @example
 * const out = await applyPatchCall(engine, item) // { type: 'apply_patch_call_output', call_id, status, output }
 */
export async function applyPatchCall(
  engine: Engine,
  call: ApplyPatchCall,
  options: ApplyPatchOptions = {},
): Promise<ApplyPatchCallOutput> {
  const [output] = await applyPatchCalls(engine, [call], options)
  return output as ApplyPatchCallOutput
}

/**
 * Applies the apply_patch_call items of one response, in order, and returns one output per call
 * in the same order. With `atomic: true` they commit as one transaction, and when any fails
 * none is written: the failing call's output has the error, the others say they were not
 * applied. Rejects only on a programming error (TypeError).
 * @example
 * const calls = response.output.filter((item) => item.type === 'apply_patch_call')
 * input.push(...(await applyPatchCalls(engine, calls, { atomic: true })))
 */
export async function applyPatchCalls(
  engine: Engine,
  calls: Iterable<ApplyPatchCall>,
  options: ApplyPatchCallsOptions = {},
): Promise<ApplyPatchCallOutput[]> {
  checkEngine(engine)
  const list = [...calls]
  list.forEach(checkCall)
  if (list.length === 0) return []
  let session: Session
  try {
    session = await openSession(engine, options, READ_BEFORE_WRITE)
  } catch (error) {
    if (!(error instanceof EditError)) throw error
    const failed = { ok: false, text: failureOutcome(error).text }
    return list.map((call) => outputOf(call, failed))
  }
  if (options.atomic === true && list.length > 1) {
    const prepared = []
    for (const call of list) prepared.push(await prepare(session, call.operation))
    const ids = list.map((call) => call.call_id)
    const outcomes = await runAtomic(session, ids, prepared)
    return list.map((call, i) => outputOf(call, outcomes[i] as CallOutcome))
  }
  const outputs: ApplyPatchCallOutput[] = []
  // In order, each its own transaction: a later call may build on an earlier one's file.
  for (const call of list) outputs.push(outputOf(call, await runOne(session, call.operation)))
  return outputs
}

/**
 * An Agents SDK Editor for `applyPatchTool({ editor: createEditor(engine) })`. The Runner calls
 * it once per operation, so each is its own transaction. Throws TypeError if `engine` is not one.
 */
export function createEditor(engine: Engine, options: ApplyPatchOptions = {}): PatchloomEditor {
  checkEngine(engine)
  const run = async (operation: unknown): Promise<EditorResult> => {
    let session: Session
    try {
      session = await openSession(engine, options, READ_BEFORE_WRITE)
    } catch (error) {
      if (!(error instanceof EditError)) throw error
      return { status: 'failed', output: failureOutcome(error).text }
    }
    const outcome = await runOne(session, operation)
    return { status: outcome.ok ? 'completed' : 'failed', output: outcome.text }
  }
  return {
    createFile: (operation) => run(operation),
    updateFile: (operation) => run(operation),
    deleteFile: (operation) => run(operation),
  }
}

function outputOf(call: ApplyPatchCall, outcome: CallOutcome): ApplyPatchCallOutput {
  return {
    type: 'apply_patch_call_output',
    call_id: call.call_id,
    status: outcome.ok ? 'completed' : 'failed',
    output: outcome.text,
    ...(call.caller === undefined || call.caller === null ? {} : { caller: call.caller }),
  }
}

/** A programming error, thrown: an item that is not an apply_patch_call. */
function checkCall(call: ApplyPatchCall): void {
  const c = call as Partial<ApplyPatchCall> | null | undefined
  if (c?.type !== 'apply_patch_call' || typeof c.call_id !== 'string') {
    throw new TypeError(
      `patchloom: applyPatchCalls takes apply_patch_call items (with a call_id); got ${describe(call)}.`,
    )
  }
}

function describe(value: unknown): string {
  const type = (value as { type?: unknown } | null)?.type
  return typeof type === 'string' ? `an item of type ${JSON.stringify(type)}` : String(value)
}
