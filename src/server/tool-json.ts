// `patchloom tools --json`: the tool definitions as JSON Schema, in the shapes the common
// function-calling APIs take, for harnesses that do not speak MCP. The schemas are the ones the
// MCP server registers (tools.ts), converted by zod.
import type * as z from 'zod'
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
    input: withoutDialect(mcpSchema(tool.input, 'input')),
  }))
  return {
    // Exactly as tools/list gives them ($schema included), converted the way the SDK converts.
    mcp: defs.map(({ tool }) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: mcpSchema(tool.input, 'input'),
      outputSchema: mcpSchema(tool.output, 'output'),
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

/** The SDK's conversion (its standardSchemaToJsonSchema) for object-shaped schemas. */
export function mcpSchema(schema: z.ZodObject, io: 'input' | 'output'): Record<string, unknown> {
  return schema['~standard'].jsonSchema[io]({ target: 'draft-2020-12' })
}

/** Function-calling APIs take the schema without its dialect line. */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema
  return rest
}
