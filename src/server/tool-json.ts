// `patchloom tools --json` (#11): the tool definitions as JSON Schema, in the shapes the common
// function-calling APIs take, for harnesses that do not speak MCP. The schemas are the ones the
// MCP server registers (tools.ts), converted by zod.
import * as z from 'zod'
import { TOOLS } from './tools.js'

export interface ToolJson {
  /** As MCP's tools/list gives them. */
  readonly mcp: readonly Record<string, unknown>[]
  /** OpenAI function calling (`tools: [{ type: 'function', function: {...} }]`). */
  readonly openai: readonly Record<string, unknown>[]
  /** Anthropic tool use (`tools: [{ name, description, input_schema }]`). */
  readonly anthropic: readonly Record<string, unknown>[]
}

export function toolJson(): ToolJson {
  const defs = TOOLS.map((tool) => ({
    tool,
    input: schemaOf(tool.input),
    output: schemaOf(tool.output),
  }))
  return {
    mcp: defs.map(({ tool, input, output }) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: input,
      outputSchema: output,
      annotations: { title: tool.title, ...tool.annotations },
    })),
    openai: defs.map(({ tool, input }) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: input },
    })),
    anthropic: defs.map(({ tool, input }) => ({
      name: tool.name,
      description: tool.description,
      input_schema: input,
    })),
  }
}

function schemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<
    string,
    unknown
  >
  return rest
}
