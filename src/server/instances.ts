// McpServer instances reused across HTTP requests: a pool per protocol era lends one to a request
// and takes it back when the SDK (or the legacy leg below) closes it, never lending one twice at
// once; building one per request was most of the SDK's cost (DECISIONS.md D-118). The legacy leg
// serves a 2025-era request on a lent instance over the SDK's web-standard Streamable HTTP
// transport, stateless, answering with one JSON body instead of an SSE stream; modern
// (2026-07-28) requests go to createMcpHandler. An instance keeps between exchanges only what the
// SDK records of its last client, which the tools never read.
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpHandlerRequestOptions,
  type McpServer,
} from '@modelcontextprotocol/server'

type Era = 'legacy' | 'modern'

export class InstancePool {
  readonly #make: () => McpServer
  readonly #idle: Record<Era, McpServer[]> = { legacy: [], modern: [] }
  /** Lent and not yet returned. Weak: an instance the SDK never closes is not kept alive here. */
  readonly #lent = new WeakSet<McpServer>()
  #made = 0

  constructor(make: () => McpServer) {
    this.#make = make
  }

  /** An instance for one exchange; it comes back when its connection closes. */
  lend(era: Era): McpServer {
    const instance = this.#idle[era].pop() ?? this.#fresh(era)
    this.#lent.add(instance)
    return instance
  }

  /** Instances made so far. */
  get made(): number {
    return this.#made
  }

  #fresh(era: Era): McpServer {
    const instance = this.#make()
    this.#made++
    const giveBack = (): void => {
      // Only a lent instance goes back, and only once per lending.
      if (this.#lent.delete(instance)) this.#idle[era].push(instance)
    }
    // The exchange ends when the instance's transport closes: the SDK's modern leg never calls
    // close() on success, but it chains the low-level server's onclose (and restores it after).
    instance.server.onclose = giveBack
    const close = instance.close.bind(instance)
    instance.close = async () => {
      await close()
      giveBack()
    }
    return instance
  }
}

export interface ReusingHandler {
  fetch(request: Request, options?: McpHandlerRequestOptions): Promise<Response>
  close(): Promise<void>
}

export interface ReusingHandlerOptions {
  readonly maxRequestBodySize: number
  readonly onerror?: (error: Error) => void
}

/** Both eras, through pooled instances: legacy on the JSON leg, modern through createMcpHandler. */
export function reusingHandler(pool: InstancePool, options: ReusingHandlerOptions): ReusingHandler {
  const modern = createMcpHandler((ctx) => pool.lend(ctx.era), {
    legacy: 'reject',
    maxRequestBodySize: options.maxRequestBodySize,
    ...(options.onerror === undefined ? {} : { onerror: options.onerror }),
  })
  const legacy = async (request: Request, opts?: McpHandlerRequestOptions): Promise<Response> => {
    if (request.method.toUpperCase() !== 'POST') {
      // Stateless: there is no session to GET a stream of or to DELETE (as the SDK's fallback).
      return Response.json(
        { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null },
        { status: 405, headers: { allow: 'POST' } },
      )
    }
    const instance = pool.lend('legacy')
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: options.maxRequestBodySize,
    })
    try {
      await instance.connect(transport)
      return await transport.handleRequest(request, {
        ...(opts?.authInfo === undefined ? {} : { authInfo: opts.authInfo }),
      })
    } finally {
      await transport.close().catch(() => undefined)
      await instance.close().catch(() => undefined)
    }
  }
  return {
    fetch: async (request, opts) =>
      (await isLegacyRequest(request, undefined, {
        maxRequestBodySize: options.maxRequestBodySize,
      }))
        ? legacy(request, opts)
        : modern.fetch(request, opts),
    close: () => modern.close(),
  }
}
