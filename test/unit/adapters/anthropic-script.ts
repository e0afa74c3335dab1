// A scripted Claude for the Anthropic SDK: a `fetch` for `new Anthropic({ fetch })` that answers
// each Messages API request with the next scripted turn's tool_use blocks (then a text turn that
// ends the loop), and records every request it receives, so a test can assert the exact
// tool_result blocks the SDK sent back. runTextEditor runs a script through the SDK's own tool
// runner with patchloom's text editor tool. No network.
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError'
import {
  textEditorRunnable,
  type TextEditorRunnableOptions,
} from '../../../src/adapters/anthropic.js'
import type { TextEditorVersion } from '../../../src/adapters/anthropic-input.js'
import type { Engine } from '../../../src/engine/api.js'
import { createEngine } from '../../../src/index.js'
import { makeTempDir } from '../../helpers/tree.js'

/** One turn of the model: the inputs of its tool_use blocks (the tool's name by default). */
export type Turn = readonly (
  Readonly<Record<string, unknown>> | { readonly name: string; readonly input: unknown }
)[]

export interface ScriptedModel {
  readonly fetch: typeof globalThis.fetch
  /** Every request body, in order. */
  readonly requests: Record<string, unknown>[]
  /** The tool_result blocks sent back for turn k (in the request after it). */
  resultsOf(turn: number): unknown[]
}

/**
 * `before(k)`, when given, runs before the model answers with turn k (after the results of turn
 * k - 1 arrived): what someone else does to the workspace between two turns.
 */
export function scriptedModel(
  turns: readonly Turn[],
  toolName: string,
  before?: (turn: number) => Promise<void>,
): ScriptedModel {
  const requests: Record<string, unknown>[] = []
  let ids = 0
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>
    requests.push(body)
    await before?.(requests.length - 1)
    const turn = turns[requests.length - 1]
    const content =
      turn === undefined
        ? [{ type: 'text', text: 'Done.' }]
        : turn.map((call) => ({
            type: 'tool_use',
            id: `toolu_${++ids}`,
            name: 'name' in call && 'input' in call ? call.name : toolName,
            input: 'name' in call && 'input' in call ? call.input : call,
          }))
    const message = {
      id: `msg_${requests.length}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content,
      stop_reason: turn === undefined ? 'end_turn' : 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    }
    return new Response(JSON.stringify(message), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    })
  }
  return {
    fetch: fetch as typeof globalThis.fetch,
    requests,
    resultsOf(turn) {
      const messages = requests[turn + 1]?.['messages'] as { content: unknown }[] | undefined
      const last = messages?.[messages.length - 1]
      return Array.isArray(last?.content) ? last.content : []
    },
  }
}

/** Runs the turns through client.beta.messages.toolRunner; the results of each turn, in order. */
export async function runTextEditor<V extends TextEditorVersion = 'text_editor_20250728'>(
  engine: Engine,
  turns: readonly Turn[],
  options: TextEditorRunnableOptions<V> = {},
  before?: (turn: number) => Promise<void>,
): Promise<{ results: unknown[][]; model: ScriptedModel }> {
  const tool = textEditorRunnable(engine, { toolError: ToolError, ...options })
  const model = scriptedModel(turns, tool.name, before)
  const client = new Anthropic({ apiKey: 'test', fetch: model.fetch, maxRetries: 0 })
  await client.beta.messages.toolRunner({
    model: 'claude-test',
    max_tokens: 1024,
    thread: false,
    messages: [{ role: 'user', content: 'Edit the files.' }],
    tools: [tool],
  })
  return { results: turns.map((_, k) => model.resultsOf(k)), model }
}

/** A tool_result block as the runner sends it. */
export function ok(id: number, content: string): unknown {
  return { type: 'tool_result', tool_use_id: `toolu_${id}`, content }
}

export function refused(id: number, content: string): unknown {
  return { type: 'tool_result', tool_use_id: `toolu_${id}`, content, is_error: true }
}

/** A temp workspace holding `files` (path -> content) and an engine on it. */
export async function workspace(
  files: Readonly<Record<string, string>> = {},
): Promise<{ root: string; engine: Engine }> {
  const root = await makeTempDir('patchloom-anthropic-')
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), content)
  }
  return { root, engine: createEngine({ root, workers: false, durability: 'fast' }) }
}
