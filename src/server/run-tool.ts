// One tool call on one workspace, for every caller: the MCP and HTTP server (service.ts, after
// its admission checks) and the framework adapters (src/adapters/). Arguments are the tool
// schemas' (tools.ts), already checked. Read-before-write, rebasing and the agent's memory are
// json-edits.ts; this module routes each tool to them and turns every refusal into an outcome.
import { EditError, errorData, isEditError } from '../errors.js'
import { detectFormat, parsePlan } from '../parse/index.js'
import { patchTextOf } from '../bytes/patch-input.js'
import type { FormatOption } from '../types.js'
import {
  diagnosticsOutcome,
  errorOutcome,
  undoOutcome,
  MAX_RESULT_DIFF_BYTES,
  writeOutcome,
  type ToolOutcome,
} from './format.js'
import { readOutcome } from './read.js'
import type { ToolName } from './tools.js'
import { remember, runEdits, StaleEditError, type JsonEdit } from './json-edits.js'
import type { Workspace } from './workspace.js'

export interface ToolSettings {
  /** Refuse edits of files the agent has not read (FILE_STALE_READ). */
  readonly readBeforeWrite: boolean
}

type Args = Readonly<Record<string, unknown>>

/** Runs one tool call as `agent`. Never rejects: every failure is an error outcome. */
export function runTool(
  workspace: Workspace,
  agent: string,
  tool: ToolName,
  args: Args,
  settings: ToolSettings,
): Promise<ToolOutcome> {
  return dispatch(workspace, agent, tool, args, settings).catch(failureOutcome)
}

async function dispatch(
  workspace: Workspace,
  agent: string,
  tool: ToolName,
  args: Args,
  settings: ToolSettings,
): Promise<ToolOutcome> {
  switch (tool) {
    case 'read_file':
      return readOutcome(workspace, agent, args)
    case 'edit_file':
      return edits(workspace, agent, args, editFileEdits(args), settings)
    case 'multi_edit':
      return edits(workspace, agent, args, args['edits'] as JsonEdit[], settings)
    case 'write_file': {
      const hash = args['expected_hash']
      const edit = {
        path: args['path'] as string,
        mode: 'write',
        content: args['content'] as string,
        ...(hash === undefined ? {} : { expected_hash: hash }),
      }
      return edits(workspace, agent, args, [edit], settings)
    }
    case 'apply_patch':
      return patch(workspace, agent, args, settings)
    case 'undo':
      return undo(workspace, agent, args['transaction'] as string | undefined)
    case 'diagnostics':
      return diagnosticsOutcome(await workspace.engine.diagnostics(args['paths'] as string[]))
  }
}

async function edits(
  workspace: Workspace,
  agent: string,
  args: Args,
  list: readonly JsonEdit[],
  settings: ToolSettings,
): Promise<ToolOutcome> {
  const { result, rebased } = await runEdits(workspace, {
    agent,
    edits: list,
    rebase: args['rebase'] === true,
    dryRun: args['dry_run'] === true,
    readBeforeWrite: settings.readBeforeWrite,
    ...(typeof args['diagnostics'] === 'boolean' ? { diagnostics: args['diagnostics'] } : {}),
  })
  return writeOutcome(result, rebased)
}

/**
 * A patch proves what it knows of each file by its context lines, so it needs no earlier read,
 * except where it replaces or deletes a whole existing file without stating its content (a
 * Codex Add File over one, a Codex Delete File): that needs the file read at its current hash,
 * as write_file does. `final_newline: 'keep'` is an argument of the adapters' own, not in the
 * tool's schema (which MCP clients are held to): ApplyOptions.finalNewline 'keep', for patch
 * languages that cannot state a final newline (OpenAI's V4A diffs, src/adapters/openai-run.ts);
 * so is `adds_must_be_new: true`: a Codex Add File refuses an existing file (OpenAI's create_file).
 */
async function patch(
  workspace: Workspace,
  agent: string,
  args: Args,
  settings: ToolSettings,
): Promise<ToolOutcome> {
  const text = args['patch'] as string
  const format = (args['format'] as FormatOption | undefined) ?? 'auto'
  const skip = args['binary_without_data'] === 'skip'
  if (settings.readBeforeWrite && mayStateNoContent(text, format)) {
    // The text the engine will parse: model stop tokens cut from its end (bytes/patch-input.ts).
    const parsed = patchTextOf(text, Number.MAX_SAFE_INTEGER).text
    const plan = parsePlan(parsed, format, skip ? { onBinaryWithoutData: () => undefined } : {})
    if (!plan.ok) return errorOutcome(plan.error)
    for (const op of plan.value.ops) {
      const whole =
        (op.kind === 'add' && op.overwrite) ||
        (op.kind === 'delete' && op.hunks.length === 0 && op.binary === undefined)
      if (!whole) continue
      const resolved = await workspace.resolve(op.path)
      const now = await workspace.now(resolved)
      if (now !== null && workspace.memory.seen(agent, resolved.rel) !== now.hash) {
        const what = op.kind === 'add' ? 'replaces' : 'deletes'
        throw new EditError(
          'FILE_STALE_READ',
          `The patch ${what} ${resolved.rel} without stating its content, and this agent has not read it as it is now (${now.hash}).`,
          { path: resolved.rel, currentHash: now.hash },
        )
      }
    }
  }
  let written: ReadonlyMap<string, Uint8Array> | undefined
  // A diff is about as long as the patch it comes from: past the result's budget none is shown,
  // so none is rendered.
  const diffs = text.length <= MAX_RESULT_DIFF_BYTES
  const result = await workspace.engine.apply(text, {
    format,
    diffs,
    ...(skip ? { binaryWithoutData: 'skip' as const } : {}),
    ...(args['final_newline'] === 'keep' ? { finalNewline: 'keep' as const } : {}),
    ...(args['adds_must_be_new'] === true ? { addsMustBeNew: true } : {}),
    dryRun: args['dry_run'] === true,
    ...(typeof args['diagnostics'] === 'boolean' ? { diagnostics: args['diagnostics'] } : {}),
    onCommitted: (bytes) => (written = bytes),
  })
  if (!result.dryRun) await remember(workspace, agent, result, written)
  return writeOutcome(result, new Map(), diffs)
}

/**
 * Whether a patch may hold an op that replaces or deletes a whole file without stating its
 * content. A unified diff states every file it changes except a deletion without hunks (an empty
 * file, a binary one without data), and every deletion names /dev/null or says "deleted file
 * mode": a diff with neither needs no read and is not parsed here (at 10,000 files that parse
 * was an eighth of a dry run through the server).
 */
function mayStateNoContent(text: string, format: FormatOption): boolean {
  const detected = format === 'auto' ? detectFormat(text) : format
  if (detected !== 'unified') return true
  return text.includes('/dev/null') || text.includes('deleted file mode')
}

async function undo(
  workspace: Workspace,
  agent: string,
  named: string | undefined,
): Promise<ToolOutcome> {
  const id = named ?? workspace.memory.popTransaction(agent)
  if (id === undefined) {
    throw new EditError(
      'UNDO_NOT_FOUND',
      'This agent has no change left to undo in this workspace.',
    )
  }
  try {
    const result = await workspace.engine.undo(id)
    if (named !== undefined) workspace.memory.forgetTransaction(agent, named)
    for (const f of result.files) workspace.memory.see(agent, f.path, f.afterHash)
    return undoOutcome(result)
  } catch (error) {
    if (named === undefined) workspace.memory.pushTransaction(agent, id)
    throw error
  }
}

/** edit_file's edits: the `edits` list, or the single edit given by the top-level fields. */
function editFileEdits(args: Args): JsonEdit[] {
  const path = args['path'] as string
  const single = Object.fromEntries(
    Object.entries(args).filter(([k]) => !NOT_EDIT_FIELDS.has(k) && k !== 'edits'),
  )
  const list = args['edits'] as Record<string, unknown>[] | undefined
  const hash = args['expected_hash']
  const withHash = (e: Record<string, unknown>): JsonEdit => ({
    ...e,
    path,
    ...(hash === undefined ? {} : { expected_hash: hash }),
  })
  if (list !== undefined) {
    if (Object.keys(single).length > 0) {
      throw new EditError(
        'PARSE_BAD_EDIT',
        `Give either "edits" or the single-edit fields, not both (found ${Object.keys(single).join(', ')} beside "edits").`,
        { path },
      )
    }
    return list.map(withHash)
  }
  if (Object.keys(single).length === 0) {
    throw new EditError(
      'PARSE_BAD_EDIT',
      'The edit is empty: give old_string and new_string (or "edits").',
      { path },
    )
  }
  return [withHash(single)]
}

const NOT_EDIT_FIELDS = new Set([
  'workspace',
  'path',
  'expected_hash',
  'rebase',
  'dry_run',
  'diagnostics',
])

/** An error outcome for anything thrown: EditError data as it is, anything else as INTERNAL. */
export function failureOutcome(error: unknown): ToolOutcome {
  if (error instanceof StaleEditError) {
    const { current, rebasePossible } = error
    return errorOutcome(error.toData(), {
      rebasePossible,
      ...(current === undefined ? {} : { current }),
    })
  }
  if (isEditError(error)) return errorOutcome(error.toData())
  const message = error instanceof Error ? error.message : String(error)
  return errorOutcome(errorData('INTERNAL', `Internal error: ${message}`))
}
