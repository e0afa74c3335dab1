// One JSON-RPC message to `patchloom serve --http` over keep-alive HTTP, and the reply read back
// from a JSON body or an SSE stream: what farm.bench's clients and warm.bench's serve rows send.
// No retries and no judgement of the reply (the callers count refusals their own way).
import { request, type Agent } from 'node:http'

export const PROTOCOL_VERSION = '2025-11-25'

export interface RpcReply {
  readonly result?: {
    readonly isError?: boolean
    readonly structuredContent?: Record<string, unknown>
    readonly content?: readonly { readonly type: string; readonly text?: string }[]
  }
  readonly error?: { readonly code: number; readonly message: string }
}

/** POSTs `body` to `url` as agent `agentName`; resolves with the status and the whole text. */
export function postRpc(
  url: URL,
  agent: Agent,
  agentName: string,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': PROTOCOL_VERSION,
          'x-patchloom-agent': agentName,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** A JSON body, or an SSE stream whose `data:` line holds the reply. */
export function parseReply(text: string, who: string): RpcReply {
  if (text.startsWith('{')) return JSON.parse(text) as RpcReply
  for (const line of text.split('\n'))
    if (line.startsWith('data: ')) {
      const message = JSON.parse(line.slice(6)) as RpcReply & { id?: unknown }
      if (message.id !== undefined) return message
    }
  throw new Error(`${who}: no JSON-RPC reply in ${JSON.stringify(text.slice(0, 200))}`)
}
