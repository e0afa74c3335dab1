// Shared by the AI SDK adapter's tests: a scripted model for the SDK's own loop (ai/test's
// MockLanguageModelV3 answering each step with tool calls, then a final text), the tool-result
// parts the SDK sends back to the model in the next step's prompt, and the parts a test expects.
import { generateText, stepCountIs, streamText, type ToolSet } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test'

/** One tool call the model makes. */
export interface Call {
  readonly id: string
  readonly tool: string
  /** The input, sent as its JSON (or as this text when it is a string). */
  readonly input: unknown
}

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
}

function toolCallPart(call: Call) {
  return {
    type: 'tool-call' as const,
    toolCallId: call.id,
    toolName: call.tool,
    input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
  }
}

/** A model that answers step k with `turns[k]`'s tool calls, and the step after the last with 'done'. */
export function scriptedModel(turns: readonly (readonly Call[])[]): MockLanguageModelV3 {
  const results = [
    ...turns.map((calls) => ({
      content: calls.map(toolCallPart),
      finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
      usage: USAGE,
      warnings: [],
    })),
    {
      content: [{ type: 'text' as const, text: 'done' }],
      finishReason: { unified: 'stop' as const, raw: 'stop' },
      usage: USAGE,
      warnings: [],
    },
  ]
  const streams = results.map((r) => ({
    stream: convertArrayToReadableStream(
      [
        { type: 'stream-start' as const, warnings: [] },
        ...r.content.map((part) =>
          part.type === 'text'
            ? [
                { type: 'text-start' as const, id: 't' },
                { type: 'text-delta' as const, id: 't', delta: part.text },
                { type: 'text-end' as const, id: 't' },
              ]
            : [part],
        ),
        { type: 'finish' as const, finishReason: r.finishReason, usage: USAGE },
      ].flat(),
    ),
  }))
  return new MockLanguageModelV3({ doGenerate: results, doStream: streams })
}

/**
 * generateText over the scripted turns, with room for one step more than they take; `before`
 * runs before each step (0-based) calls the model.
 */
export async function loop(
  tools: ToolSet,
  turns: readonly (readonly Call[])[],
  before?: (step: number) => Promise<void>,
) {
  const model = scriptedModel(turns)
  const result = await generateText({
    model,
    tools,
    prompt: 'Edit the files.',
    stopWhen: stepCountIs(turns.length + 2),
    ...(before === undefined
      ? {}
      : {
          prepareStep: async ({ stepNumber }: { stepNumber: number }) => {
            await before(stepNumber)
            return undefined
          },
        }),
  })
  return { model, result, sent: (step: number) => sentAfter(model.doGenerateCalls, step) }
}

/** The same loop through streamText. */
export async function streamLoop(tools: ToolSet, turns: readonly (readonly Call[])[]) {
  const model = scriptedModel(turns)
  const result = streamText({
    model,
    tools,
    prompt: 'Edit the files.',
    stopWhen: stepCountIs(turns.length + 2),
  })
  const text = await result.text
  return { model, text, sent: (step: number) => sentAfter(model.doStreamCalls, step) }
}

/**
 * The tool message the SDK sent the model after step `step` (0-based): the last message of the
 * next call's prompt.
 */
function sentAfter(calls: readonly { prompt: readonly unknown[] }[], step: number): unknown {
  const next = calls[step + 1]
  if (next === undefined) throw new Error(`the model was not called after step ${step}`)
  return next.prompt[next.prompt.length - 1]
}

/** The tool message carrying these results. */
export function toolMessage(...content: unknown[]): Record<string, unknown> {
  return { role: 'tool', content }
}

/** A tool-result part the model reads as text. */
export function textResult(id: string, tool: string, value: string): Record<string, unknown> {
  return { type: 'tool-result', toolCallId: id, toolName: tool, output: { type: 'text', value } }
}

/** A tool-result part the model reads as error text. */
export function errorResult(id: string, tool: string, value: string): Record<string, unknown> {
  return {
    type: 'tool-result',
    toolCallId: id,
    toolName: tool,
    output: { type: 'error-text', value },
  }
}
