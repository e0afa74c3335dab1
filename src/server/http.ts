// Streamable HTTP for the edit service, on node:http. In front of the SDK's handler, which
// validates neither Host nor Origin: DNS-rebinding protection (both headers checked against the
// names the server answers to), a bearer token (required unless bound to loopback), a body size
// limit and a per-client limit on requests in flight. Both protocol eras are served through
// reused McpServer instances (instances.ts): 2026-07-28 requests by the SDK's createMcpHandler,
// 2025-era traffic (`initialize` and all) statelessly by the SDK's web-standard transport.
// Beside /mcp: /healthz and /readyz, outside the token and Host checks (they say nothing but
// "up" and a reason code), and /metrics, behind the same checks as /mcp (DECISIONS.md D-181).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AuthInfo, McpServer } from '@modelcontextprotocol/server'
import { toNodeHandler, type NodeIncomingMessageLike } from '@modelcontextprotocol/node'
import { EditError } from '../errors.js'
import { AGENT_NAME, type TokenTable } from './auth.js'
import { directCandidate, DirectLeg, directRequest } from './direct.js'
import { InstancePool, reusingHandler } from './instances.js'
import type { BusyLimit } from './observe.js'
import { acceptedRequestId, REQUEST_ID_HEADER } from './request-id.js'
import type { Caller, Readiness } from './service.js'

/** What /metrics serves and what the transport counts (metrics.ts's ServerMetrics). */
export interface HttpMetrics {
  readonly contentType: string
  text(): Promise<string>
  busy(limit: BusyLimit): void
  httpRefused(status: number): void
}

export interface HttpOptions {
  /** Address to bind. @default '127.0.0.1' */
  readonly host?: string
  /** Port; 0 picks a free one. */
  readonly port: number
  /** Accepted bearer tokens; required when `host` is not a loopback address. */
  readonly tokens?: TokenTable
  /** Further Host / Origin names to accept (e.g. the machine's DNS name behind a proxy). */
  readonly allowedHosts?: readonly string[]
  /** Largest request body. @default 4 MiB */
  readonly maxBodyBytes?: number
  /** Requests in flight per client (token or address); more get 429. @default 64 */
  readonly maxInFlightPerClient?: number
  /** Makes the MCP server instance serving one request. */
  readonly factory: () => McpServer
  readonly onError?: (error: Error) => void
  /** Served at /metrics (404 without). */
  readonly metrics?: HttpMetrics
  /** What /readyz answers while the server is not draining. @default always ready */
  readonly readiness?: () => Promise<Readiness>
}

export interface RunningHttp {
  readonly url: string
  readonly server: Server
  /** Stops accepting, awaits `drain` (the service finishing its requests), then closes. */
  close(drain: () => Promise<void>): Promise<void>
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1']
const DEFAULT_MAX_BODY = 4 * 1024 * 1024
const AGENT_HEADER = 'x-patchloom-agent'

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)
}

export async function startHttp(options: HttpOptions): Promise<RunningHttp> {
  const host = options.host ?? '127.0.0.1'
  if (!isLoopback(host) && options.tokens === undefined) {
    throw new EditError(
      'CONFIG_INVALID',
      `Invalid option: binding to ${host} (not loopback) needs a bearer token: give --token-file FILE or set PATCHLOOM_TOKEN.`,
    )
  }
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY
  const perClient = options.maxInFlightPerClient ?? 64
  const allowed = new Set(
    [...LOOPBACK_NAMES, ...(isLoopback(host) ? [] : [host]), ...(options.allowedHosts ?? [])].map(
      (h) => h.toLowerCase(),
    ),
  )
  const handler = reusingHandler(new InstancePool(options.factory), {
    maxRequestBodySize: maxBody,
    ...(options.onError === undefined ? {} : { onerror: options.onError }),
  })
  const serve = toNodeHandler(handler, {
    maxRequestBodySize: maxBody,
    ...(options.onError === undefined ? {} : { onerror: options.onError }),
  })
  const direct = await DirectLeg.connect(options.factory())
  /** A request whose headers allow the direct leg: its body decides (direct.ts). */
  const serveCandidate = async (
    req: IncomingMessage,
    res: ServerResponse,
    auth: AuthInfo,
  ): Promise<void> => {
    const text = await readBody(req, maxBody)
    if (text === undefined) {
      res.setHeader('connection', 'close')
      return refuse(res, 413, `Request body over ${maxBody} bytes.`)
    }
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      // What the SDK answers a body that is not JSON (its stream is read here, not there).
      return reply(res, 400, 'Parse error: Invalid JSON', -32700)
    }
    const request = directRequest(body)
    if (request === undefined) {
      // The SDK's way, with the body already parsed (toNodeHandler's third argument).
      return serve(Object.assign(req, { auth }) as unknown as NodeIncomingMessageLike, res, body)
    }
    const answer = JSON.stringify(await direct.exchange(request, auth))
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(answer),
    })
    res.end(answer)
  }
  const inFlight = new Map<string, number>()
  /** Requests being served, until their response is written (what a shutdown waits for). */
  const pending = new Set<Promise<void>>()
  const metrics = options.metrics
  let draining = false
  /** A refusal of the transport's own, counted. */
  const refuse = (res: ServerResponse, status: number, message: string): void => {
    metrics?.httpRefused(status)
    reply(res, status, message)
  }

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost')
      const path = url.pathname
      if (path === '/healthz' || path === '/readyz') {
        if (req.method !== 'GET' && req.method !== 'HEAD') return probeReply(res, 405, {})
        if (path === '/healthz') return probeReply(res, 200, { status: 'ok' })
        const ready: Readiness = draining
          ? { ready: false, reason: 'draining' }
          : ((await options.readiness?.()) ?? { ready: true })
        return ready.ready
          ? probeReply(res, 200, { status: 'ready' })
          : probeReply(res, 503, { status: 'not_ready', reason: ready.reason })
      }
      if (path !== '/mcp' && (path !== '/metrics' || metrics === undefined)) {
        return refuse(res, 404, 'Not found: the MCP endpoint is /mcp.')
      }
      if (!allowed.has(hostnameOf(req.headers.host))) {
        return refuse(
          res,
          403,
          `Forbidden: Host ${JSON.stringify(req.headers.host ?? '')} is not one this server answers to.`,
        )
      }
      const origin = req.headers.origin
      if (origin !== undefined && !allowed.has(originHostname(origin))) {
        return refuse(res, 403, `Forbidden: Origin ${JSON.stringify(origin)} is not allowed.`)
      }
      const length = Number(req.headers['content-length'] ?? 0)
      if (length > maxBody) return refuse(res, 413, `Request body over ${maxBody} bytes.`)
      const caller = callerOf(req, options.tokens)
      if (typeof caller === 'string') {
        res.setHeader('WWW-Authenticate', 'Bearer realm="patchloom"')
        return refuse(res, 401, caller)
      }
      if (path === '/metrics' && metrics !== undefined) {
        if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'Use GET.')
        const text = await metrics.text()
        res.writeHead(200, {
          'content-type': metrics.contentType,
          'content-length': Buffer.byteLength(text),
        })
        return void res.end(req.method === 'HEAD' ? undefined : text)
      }
      const client = caller.client
      const count = inFlight.get(client) ?? 0
      if (count >= perClient) {
        metrics?.busy('client')
        res.setHeader('Retry-After', '1')
        return refuse(res, 429, `Too many requests in flight for this client (limit ${perClient}).`)
      }
      inFlight.set(client, count + 1)
      try {
        const requestId = acceptedRequestId(req.headers[REQUEST_ID_HEADER])
        const auth: AuthInfo = {
          token: caller.token,
          clientId: caller.agent,
          scopes: [],
          extra: {
            agent: caller.agent,
            ...(caller.workspace === undefined ? {} : { workspace: caller.workspace }),
            ...(requestId === undefined ? {} : { requestId }),
          },
        }
        const served = directCandidate(req)
          ? serveCandidate(req, res, auth)
          : serve(Object.assign(req, { auth }) as unknown as NodeIncomingMessageLike, res)
        pending.add(served)
        await served.finally(() => pending.delete(served))
      } finally {
        const left = (inFlight.get(client) ?? 1) - 1
        if (left === 0) inFlight.delete(client)
        else inFlight.set(client, left)
      }
    })().catch((error: unknown) => {
      options.onError?.(error instanceof Error ? error : new Error(String(error)))
      if (!res.headersSent) reply(res, 500, 'Internal error.')
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shown}:${address.port}/mcp`,
    server,
    close: async (drain) => {
      draining = true
      // Stop accepting, let the requests in flight finish, then drop the kept-alive sockets.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      while (pending.size > 0) await Promise.allSettled([...pending])
      await drain()
      server.closeAllConnections()
      await closed
      await Promise.all([handler.close(), direct.close()])
    },
  }
}

interface HttpCaller extends Caller {
  readonly token: string
  /** What the per-client limit counts by: the token's agent, or the remote address. */
  readonly client: string
}

/** The caller, or the reason it is refused (401). */
function callerOf(req: IncomingMessage, tokens: TokenTable | undefined): HttpCaller | string {
  const header = req.headers[AGENT_HEADER]
  const named = typeof header === 'string' && header !== '' ? header : undefined
  if (named !== undefined && !AGENT_NAME.test(named)) {
    return `Unauthorized: ${AGENT_HEADER} must be 1-128 letters, digits or . _ : @ / -.`
  }
  const address = req.socket.remoteAddress ?? 'unknown'
  if (tokens === undefined) {
    const agent = named ?? 'anonymous'
    return { agent, token: '', client: named ?? address }
  }
  const auth = req.headers.authorization
  const match = auth === undefined ? null : /^Bearer\s+(\S+)$/i.exec(auth)
  if (match === null) return 'Unauthorized: send Authorization: Bearer <token>.'
  const token = match[1] as string
  const grant = tokens.lookup(token)
  if (grant === undefined) return 'Unauthorized: the bearer token is not known to this server.'
  const agent = grant.agent ?? named ?? 'anonymous'
  return {
    agent,
    token,
    client: grant.agent ?? named ?? address,
    ...(grant.workspace === undefined ? {} : { workspace: grant.workspace }),
  }
}

function hostnameOf(host: string | undefined): string {
  if (host === undefined) return ''
  const h = host.toLowerCase()
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1)
  const colon = h.lastIndexOf(':')
  return colon === -1 ? h : h.slice(0, colon)
}

function originHostname(origin: string): string {
  try {
    const hostname = new URL(origin).hostname.toLowerCase()
    return hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname
  } catch {
    return ''
  }
}

/** A probe's answer: a small JSON object, never anything about the workspaces or the callers. */
function probeReply(res: ServerResponse, status: number, body: Record<string, string>): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  })
  res.end(text)
}

function reply(res: ServerResponse, status: number, message: string, code = -32000): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
}

/** The body as text, or undefined once it grows past `limit` bytes. */
async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) return undefined
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}
