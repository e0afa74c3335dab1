// patchloom/ai-sdk: the MCP server's tools (server/tools.ts) as Vercel AI SDK tools over one
// engine, for `generateText({ tools: patchloomTools(engine) })`: the same names, descriptions and
// input schemas, less `workspace` (one engine is one workspace), each call run the server's way
// (session.ts). The model reads the server's outcome text; execute's result keeps its structured
// content for the harness. applyPatchExecute serves @ai-sdk/openai's apply_patch provider tool
// through patchloom/openai. Nothing here imports an SDK at run time.
import type { Tool } from 'ai'
import type * as z from 'zod'
import type { Engine } from '../engine/api.js'
import { TOOLS, type ToolName } from '../server/tools.js'
import { applyPatchCall, type ApplyPatchOperation, type ApplyPatchOptions } from './openai.js'
import { callTool, checkEngine, inOrder, inSession, type AdapterOptions } from './session.js'

export type { AdapterOptions } from './session.js'
export type { ToolName } from '../server/tools.js'

/** What a patchloom tool's execute returns. */
export interface ToolOutput {
  /** False when the call was refused or failed: the model reads `text` as an error. */
  readonly ok: boolean
  /** What the model reads: the summary, content hashes and diff, or the error, hint and candidates. */
  readonly text: string
  /** The MCP server's structuredContent: the tool's output schema, or `{ error }` when not ok. */
  readonly structured: Readonly<Record<string, unknown>>
}

type DefOf<N extends ToolName> = Extract<(typeof TOOLS)[number], { readonly name: N }>

/** A tool's input: the MCP tool's arguments without `workspace`. */
export type ToolInput<N extends ToolName> = Omit<z.input<DefOf<N>['input']>, 'workspace'>

/** Every patchloom tool, by name, as an AI SDK tool. */
export type PatchloomTools = { readonly [N in ToolName]: Tool<ToolInput<N>, ToolOutput> }

/** Options of patchloomTools. */
export interface PatchloomToolsOptions<N extends ToolName = ToolName> extends AdapterOptions {
  /** The tools to give the model, by name. @default every tool, in the MCP server's order */
  readonly only?: readonly N[]
}

/** Every tool's name, in the order the MCP server lists them. */
const TOOL_NAMES: readonly ToolName[] = TOOLS.map((tool) => tool.name)

/**
 * The patchloom tools as AI SDK tools over `engine`, for `generateText` or `streamText`. Each
 * execute runs the call as the MCP server does (read-before-write, rebasing, paths inside the
 * workspace) and never rejects: a refusal is an output the model reads as error text. The
 * calls of one agent run one after another in the order they were made, though the SDK starts
 * a step's calls at once. Throws TypeError if `engine` is not one or `only` names a tool that
 * does not exist.
 * @example
 * const result = await generateText({ model, tools: patchloomTools(engine), stopWhen: stepCountIs(10), prompt })
 */
export function patchloomTools<const N extends ToolName = ToolName>(
  engine: Engine,
  options: PatchloomToolsOptions<N> = {},
): Pick<PatchloomTools, N> {
  checkEngine(engine)
  const names = options.only ?? (TOOL_NAMES as readonly N[])
  const unknown = names.filter((name) => !TOOL_NAMES.includes(name))
  if (unknown.length > 0) {
    throw new TypeError(
      `patchloom: no tool named ${unknown.map((n) => JSON.stringify(n)).join(', ')}; the tools are ${TOOL_NAMES.join(', ')}.`,
    )
  }
  const agent = options.agent ?? 'agent'
  const tools: Partial<Record<ToolName, Tool<never, ToolOutput>>> = {}
  for (const def of TOOLS) {
    if (!names.includes(def.name as N)) continue
    const name: ToolName = def.name
    tools[name] = {
      title: def.title,
      description: def.description,
      inputSchema: inputSchemaOf(name),
      execute: (input: Readonly<Record<string, unknown>>) =>
        inOrder(engine, agent, () =>
          inSession(engine, options, true, (session) => callTool(session, name, input)),
        ),
      toModelOutput: modelOutput,
    } as Tool<never, ToolOutput>
  }
  return tools as Pick<PatchloomTools, N>
}

type ModelOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>

/** The server's outcome text, as error text when the call failed. */
function modelOutput({ output }: { readonly output: ToolOutput }): ModelOutput {
  return { type: output.ok ? 'text' : 'error-text', value: output.text }
}

const inputSchemas = new Map<ToolName, unknown>()

// The tool's zod schema less `workspace`, as a Standard Schema whose validation and JSON Schema
// come from patchloom's own zod, not from the zod the SDK resolves (DECISIONS.md D-168).
function inputSchemaOf(name: ToolName): unknown {
  let schema = inputSchemas.get(name)
  if (schema === undefined) {
    const def = TOOLS.find((tool) => tool.name === name) as (typeof TOOLS)[number]
    const input = (def.input as z.ZodObject).omit({ workspace: true })
    schema = { '~standard': { ...input['~standard'], vendor: 'patchloom' } }
    inputSchemas.set(name, schema)
  }
  return schema
}

/** The input @ai-sdk/openai's apply_patch provider tool gives its execute. */
export interface OpenAIApplyPatchInput {
  readonly callId: string
  readonly operation: ApplyPatchOperation
}

/** The output it sends back to OpenAI as the apply_patch_call_output. */
export interface OpenAIApplyPatchOutput {
  readonly status: 'completed' | 'failed'
  readonly output: string
}

/**
 * The execute of @ai-sdk/openai's apply_patch provider tool over `engine`: each operation is one
 * patchloom/openai applyPatchCall (its own transaction; read-before-write off by default, as
 * there), in call order with this agent's other calls. Never rejects: a failure is status
 * 'failed' with the text the model reads. Throws TypeError if `engine` is not one.
 * @example
 * tools: { apply_patch: openai.tools.applyPatch({ execute: applyPatchExecute(engine) }) }
 */
export function applyPatchExecute(
  engine: Engine,
  options: ApplyPatchOptions = {},
): (input: OpenAIApplyPatchInput) => Promise<OpenAIApplyPatchOutput> {
  checkEngine(engine)
  const agent = options.agent ?? 'agent'
  return async ({ callId, operation }) => {
    const call = { type: 'apply_patch_call', call_id: callId, operation } as const
    const { status, output } = await inOrder(engine, agent, () =>
      applyPatchCall(engine, call, options),
    )
    return { status, output }
  }
}
