// The MCP face of the edit service, on the official TypeScript SDK (v2): one factory makes
// an McpServer with every tool of tools.ts; the stdio entry pins one instance per connection,
// the HTTP entry (http.ts) asks for one per request. Both eras are served from the same factory:
// 2026-07-28 (stateless, per request) and the 2025 `initialize` handshake.
import { McpServer, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server'
import type { Caller, EditService } from './service.js'
import { TOOLS, type ToolName } from './tools.js'
import type { ToolOutcome } from './format.js'
import { mcpSchema } from './tool-json.js'

export const SERVER_NAME = 'patchloom'

/** Where a request's caller comes from when the transport does not say (stdio). */
export type CallerOf = (authExtra: Readonly<Record<string, unknown>> | undefined) => Caller

export interface McpFactoryOptions {
  readonly service: EditService
  readonly version: string
  readonly callerOf: CallerOf
}

/** Builds one McpServer instance serving every tool through `service`. */
export function createMcpServer(options: McpFactoryOptions): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: options.version },
    {
      capabilities: { tools: {} },
      instructions:
        'patchloom edits files safely: read_file returns a content_hash; edits are verified before anything is written and land all-or-nothing. Read a file before editing it.',
    },
  )
  for (const tool of TOOLS) {
    const registered = server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { title: tool.title, ...tool.annotations },
      },
      async (args: Record<string, unknown>, ctx: ServerContext) => {
        const caller = options.callerOf(ctx.http?.authInfo?.extra)
        return toCallResult(await options.service.call(tool.name as ToolName, args, caller))
      },
    )
    // The SDK memoises this conversion per instance; converted once per process instead, for
    // every instance (DECISIONS.md D-118).
    registered.outputSchemaJson = outputSchemaJson(tool)
  }
  return server
}

const outputSchemas = new Map<string, Record<string, unknown>>()

/** The tool's output schema as JSON Schema, as the SDK itself converts it (standard schema). */
function outputSchemaJson(tool: (typeof TOOLS)[number]): Record<string, unknown> {
  let json = outputSchemas.get(tool.name)
  if (json === undefined) {
    json = mcpSchema(tool.output, 'output')
    outputSchemas.set(tool.name, json)
  }
  return json
}

export function toCallResult(outcome: ToolOutcome): CallToolResult {
  return {
    content: [{ type: 'text', text: outcome.text }],
    structuredContent: outcome.structured,
    ...(outcome.ok ? {} : { isError: true }),
  }
}
