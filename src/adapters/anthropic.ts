// patchloom/anthropic: Anthropic's text editor tool over an engine. handleTextEditor answers one
// tool_use block with its tool_result block, for every command of each version (view, create,
// str_replace, insert, and undo_edit where the version has it); textEditorTool is the tool's
// definition for a request's `tools`, textEditorRunnable the same with the run and parse of the
// SDK's tool runner (client.beta.messages.toolRunner). Every command goes through the server's
// tools (session.ts): one read-before-write, one matcher, one writer, shared with the other
// adapters of the engine. The types are structural: nothing here imports an Anthropic package
// at run time.
import type { Engine } from '../engine/api.js'
import { isEditError } from '../errors.js'
import { create, insert, strReplace } from './anthropic-edit.js'
import { commonError, failureOfData } from './anthropic-errors.js'
import {
  checkInput,
  isVersion,
  TEXT_EDITOR_VERSIONS,
  VERSION_FACTS,
  type TextEditorCommand,
  type TextEditorToolName,
  type TextEditorVersion,
} from './anthropic-input.js'
import { undoEdit } from './anthropic-undo.js'
import { view, type Reply } from './anthropic-view.js'
import { checkEngine, inOrder, openSession, type AdapterOptions, type Session } from './session.js'

export type { AdapterOptions } from './session.js'
export {
  TEXT_EDITOR_VERSIONS,
  type TextEditorCommand,
  type TextEditorCommandName,
  type TextEditorToolName,
  type TextEditorVersion,
} from './anthropic-input.js'

/** The version handleTextEditor and textEditorTool take when none is given. */
export const DEFAULT_TEXT_EDITOR_VERSION = 'text_editor_20250728' satisfies TextEditorVersion

/** The tool's definition, for the `tools` of a Messages API request. */
export type TextEditorTool<V extends TextEditorVersion = TextEditorVersion> =
  V extends 'text_editor_20250728'
    ? {
        readonly type: V
        readonly name: TextEditorToolName<V>
        /** Views of a file are cut at this many characters. */
        readonly max_characters?: number
      }
    : { readonly type: V; readonly name: TextEditorToolName<V> }

/** A `tool_use` block of a response (the SDK's ToolUseBlock fits). */
export interface TextEditorToolUse {
  readonly type?: string
  readonly id: string
  readonly name: string
  /** The model's arguments: untrusted JSON, checked before anything runs. */
  readonly input: unknown
}

/** The `tool_result` block to send back in the next user message. */
export interface TextEditorToolResult {
  readonly type: 'tool_result'
  readonly tool_use_id: string
  /** For the model: the view, the snippet of the change and its content hash, or the refusal. */
  readonly content: string
  readonly is_error?: true
}

/** Options of handleTextEditor. `readBeforeWrite` defaults to true, as in the MCP server. */
export interface TextEditorOptions extends AdapterOptions {
  /** The tool's version, as in its definition's `type`. @default 'text_editor_20250728' */
  readonly version?: TextEditorVersion
  /**
   * Cut each view of a file (and what a refusal or an undo shows of one) at this many characters
   * of its numbered lines, saying so: the definition's max_characters. @default no limit
   */
  readonly maxCharacters?: number
}

/** Options of textEditorRunnable. */
export interface TextEditorRunnableOptions<V extends TextEditorVersion> extends TextEditorOptions {
  readonly version?: V
  /**
   * The SDK's ToolError (`@anthropic-ai/sdk/lib/tools/ToolError`): a refusal is thrown as one,
   * so the runner sends its text as it is with is_error. Without it, a refusal is thrown as an
   * Error, which the runner sends as "Error: " and the text.
   */
  readonly toolError?: new (content: string) => Error
}

/** textEditorRunnable's tool: the definition, and the runner's parse and run. */
export type TextEditorRunnable<V extends TextEditorVersion> = TextEditorTool<V> & {
  parse(input: unknown): unknown
  run(input: unknown, context?: { readonly toolUse?: TextEditorToolUse }): Promise<string>
}

/** The text editor tool's definition for `version`; maxCharacters only for text_editor_20250728. */
export function textEditorTool<V extends TextEditorVersion = typeof DEFAULT_TEXT_EDITOR_VERSION>(
  version: V = DEFAULT_TEXT_EDITOR_VERSION as V,
  options: { readonly maxCharacters?: number } = {},
): TextEditorTool<V> {
  checkVersion(version)
  checkMaxCharacters(options.maxCharacters)
  const facts = VERSION_FACTS[version]
  if (options.maxCharacters !== undefined && !facts.maxCharacters) {
    throw new TypeError(
      `patchloom: ${version} has no max_characters; it is text_editor_20250728's (give the limit to handleTextEditor as maxCharacters instead).`,
    )
  }
  return {
    type: version,
    name: facts.name,
    ...(options.maxCharacters === undefined ? {} : { max_characters: options.maxCharacters }),
  } as TextEditorTool<V>
}

/**
 * Runs one tool_use block of the text editor tool on the engine and returns its tool_result.
 * Never rejects: a bad input, a refused edit or a path outside the workspace is a result with
 * `is_error: true`, in the tool's words. Calls made for one agent run one after another, in the
 * order they were made, so the blocks of one response may be handled concurrently.
 * Throws TypeError only for a programming error: no engine, no block, an unknown version.
 */
export function handleTextEditor(
  engine: Engine,
  toolUse: TextEditorToolUse,
  options: TextEditorOptions = {},
): Promise<TextEditorToolResult> {
  checkEngine(engine)
  const t = toolUse as Partial<TextEditorToolUse> | null | undefined
  if (typeof t?.id !== 'string' || typeof t.name !== 'string') {
    throw new TypeError('patchloom: handleTextEditor needs a tool_use block ({ id, name, input }).')
  }
  const version = options.version ?? DEFAULT_TEXT_EDITOR_VERSION
  checkVersion(version)
  checkMaxCharacters(options.maxCharacters)
  // The SDK's tool runner runs one response's calls at once (DECISIONS.md D-166).
  return inOrder(engine, options.agent ?? 'agent', async () => {
    const reply = await answer(engine, toolUse, version, options)
    return {
      type: 'tool_result',
      tool_use_id: toolUse.id,
      content: reply.content,
      ...(reply.isError ? { is_error: true as const } : {}),
    }
  })
}

/**
 * The text editor tool for the SDK's tool runner: its definition with `parse` and `run`, which
 * answers each call with handleTextEditor (a refusal is thrown, see `toolError`).
 */
export function textEditorRunnable<
  V extends TextEditorVersion = typeof DEFAULT_TEXT_EDITOR_VERSION,
>(engine: Engine, options: TextEditorRunnableOptions<V> = {}): TextEditorRunnable<V> {
  checkEngine(engine)
  const version = (options.version ?? DEFAULT_TEXT_EDITOR_VERSION) as V
  const { toolError, ...handlerOptions } = options
  const definition = textEditorTool(
    version,
    VERSION_FACTS[version].maxCharacters && options.maxCharacters !== undefined
      ? { maxCharacters: options.maxCharacters }
      : {},
  )
  const Refusal = toolError ?? Error
  return {
    ...definition,
    parse: (input: unknown) => input,
    run: async (input: unknown, context?: { readonly toolUse?: TextEditorToolUse }) => {
      const toolUse = context?.toolUse ?? { id: '', name: definition.name, input }
      const result = await handleTextEditor(
        engine,
        { id: toolUse.id, name: toolUse.name, input },
        { ...handlerOptions, version },
      )
      if (result.is_error) throw new Refusal(result.content)
      return result.content
    },
  }
}

async function answer(
  engine: Engine,
  toolUse: TextEditorToolUse,
  version: TextEditorVersion,
  options: TextEditorOptions,
): Promise<Reply> {
  const facts = VERSION_FACTS[version]
  if (toolUse.name !== facts.name) {
    return {
      content: `This handler serves ${facts.name} (${version}); the tool_use calls ${toolUse.name}.`,
      isError: true,
    }
  }
  const checked = checkInput(toolUse.input, version)
  if (!checked.ok) return { content: checked.message, isError: true }
  const command = checked.command
  let session: Session | undefined
  try {
    session = await openSession(engine, options, true)
    return await run(session, command, options.maxCharacters)
  } catch (error) {
    const root = session?.workspace.root ?? engine.root
    if (isEditError(error)) {
      const failure = failureOfData(error.toData())
      return { content: commonError(command.command, command.path, failure, root), isError: true }
    }
    const message = error instanceof Error ? error.message : String(error)
    return {
      content: `${command.command} of ${command.path} failed: ${message}`,
      isError: true,
    }
  }
}

function run(
  session: Session,
  command: TextEditorCommand,
  maxCharacters: number | undefined,
): Promise<Reply> {
  switch (command.command) {
    case 'view':
      return view(session, command.path, command.view_range, maxCharacters)
    case 'create':
      return create(session, command.path, command.file_text, maxCharacters)
    case 'str_replace':
      return strReplace(
        session,
        command.path,
        command.old_str,
        command.new_str ?? '',
        maxCharacters,
      )
    case 'insert':
      return insert(session, command.path, command.insert_line, command.new_str, maxCharacters)
    case 'undo_edit':
      return undoEdit(session, command.path, maxCharacters)
  }
}

function checkVersion(version: unknown): asserts version is TextEditorVersion {
  if (!isVersion(version)) {
    throw new TypeError(
      `patchloom: unknown text editor version ${String(version)}; known: ${TEXT_EDITOR_VERSIONS.join(', ')}.`,
    )
  }
}

function checkMaxCharacters(value: unknown): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) > 0)) {
    throw new TypeError(
      `patchloom: maxCharacters must be a positive integer, not ${String(value)}.`,
    )
  }
}
