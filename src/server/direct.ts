// The direct leg for 2025-era `tools/call` over HTTP: one McpServer connected for the life of
// the process to one transport that carries many exchanges at once, instead of the SDK's web
// Request, transport and close per request (DECISIONS.md D-121). A request's JSON-RPC id is
// swapped for one unique to this process on the way in and restored on the way out; the SDK's
// server still validates the arguments, runs the tool and checks its result. Only a POST naming
// a supported 2025-era version, accepting JSON and SSE, whose JSON body is one well-formed
// `tools/call` request takes this leg; anything else goes the SDK's way (instances.ts).
import type { IncomingMessage } from 'node:http'
import {
  isJsonContentType,
  isJSONRPCRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
  type AuthInfo,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpServer,
  type Transport,
} from '@modelcontextprotocol/server'

const MODERN_META_KEY = 'io.modelcontextprotocol/protocolVersion'

/** Whether the headers allow the direct leg; the body decides the rest (directRequest). */
export function directCandidate(req: IncomingMessage): boolean {
  if (req.method !== 'POST') return false
  const version = req.headers['mcp-protocol-version']
  if (typeof version !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return false
  const accept = req.headers.accept ?? ''
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return false
  return isJsonContentType(req.headers['content-type'])
}

/** The parsed body as a request for the direct leg, or undefined when the SDK should answer it. */
export function directRequest(body: unknown): JSONRPCRequest | undefined {
  if (!isJSONRPCRequest(body)) return undefined
  const request = body as JSONRPCRequest
  if (request.method !== 'tools/call') return undefined
  const meta = (request.params as { _meta?: Record<string, unknown> } | undefined)?._meta
  if (meta !== undefined && MODERN_META_KEY in meta) return undefined
  return request
}

/** One long-lived transport carrying many concurrent exchanges to one connected server. */
export class DirectLeg implements Transport {
  onmessage?: Transport['onmessage']
  onclose?: () => void
  onerror?: (error: Error) => void
  #next = 0
  readonly #waiting = new Map<number, (message: JSONRPCMessage) => void>()
  #closed = false

  static async connect(server: McpServer): Promise<DirectLeg> {
    const leg = new DirectLeg()
    await server.connect(leg)
    return leg
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.onclose?.()
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // Only answers end an exchange; the tools send the client no requests or notifications.
    if (!('result' in message) && !('error' in message)) return
    const id = (message as { id?: unknown }).id
    if (typeof id !== 'number') return
    const answer = this.#waiting.get(id)
    this.#waiting.delete(id)
    answer?.(message)
  }

  /** Runs one request through the server; resolves with its answer under the client's id. */
  exchange(request: JSONRPCRequest, authInfo: AuthInfo): Promise<JSONRPCMessage> {
    if (this.#closed) return Promise.reject(new Error('direct leg: closed'))
    const inner = ++this.#next
    return new Promise((resolve) => {
      this.#waiting.set(inner, (message) => resolve({ ...message, id: request.id }))
      this.onmessage?.({ ...request, id: inner }, { authInfo })
    })
  }
}
