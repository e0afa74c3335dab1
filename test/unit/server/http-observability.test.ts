// The HTTP transport's endpoints beside /mcp, in-process on a loopback port (no worker threads):
// /healthz and /readyz answer without a token and whatever the Host, /metrics only with the
// token and a known Host, and a client's X-Request-Id reaches the result on both legs.
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { singleToken } from '../../../src/server/auth.js'
import { startHttp, type HttpOptions, type RunningHttp } from '../../../src/server/http.js'
import { createMcpServer } from '../../../src/server/mcp.js'
import { ServerMetrics } from '../../../src/server/metrics.js'
import { EditService } from '../../../src/server/service.js'
import { httpRequest } from '../../helpers/http-request.js'
import { parsePrometheus, sumOf } from '../../helpers/prometheus.js'
import { makeTempDir } from '../../helpers/tree.js'

const TOKEN = 'observability-test-token-0123456789'
const BEARER = { authorization: `Bearer ${TOKEN}` }
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
}

let root = ''
let service: EditService
let metrics: ServerMetrics
let running: RunningHttp | undefined
let base = ''

async function serve(options: Partial<HttpOptions> = {}, withMetrics = true): Promise<void> {
  service = await EditService.open({
    workspaces: [{ root }],
    workers: false,
    durability: 'fast',
    observer: (metrics = new ServerMetrics({ processMetrics: false })),
  })
  metrics.watch(() => service.snapshot())
  running = await startHttp({
    port: 0,
    tokens: singleToken(TOKEN),
    factory: () =>
      createMcpServer({
        service,
        version: 'test',
        callerOf: (extra) => ({
          agent: 'tester',
          ...(typeof extra?.['requestId'] === 'string' ? { requestId: extra['requestId'] } : {}),
        }),
      }),
    ...(withMetrics ? { metrics } : {}),
    readiness: () => service.readiness(),
    ...options,
  })
  base = running.url.replace(/\/mcp$/, '')
}

beforeEach(async () => {
  root = await makeTempDir('patchloom-http-observe-')
  await writeFile(join(root, 'a.txt'), 'one\n')
})
afterEach(async () => {
  await running?.close(() => service.close())
  running = undefined
  await rm(root, { recursive: true, force: true })
})

describe('startHttp probes', () => {
  it('answers /healthz and /readyz without a token, whatever the Host, and only to GET', async () => {
    await serve()
    const foreign = { host: 'pod-10-1-2-3.internal:8700' }
    const health = await httpRequest(`${base}/healthz`, { headers: foreign })
    expect([health.status, JSON.parse(health.body)]).toEqual([200, { status: 'ok' }])
    expect(health.headers['cache-control']).toBe('no-store')
    const ready = await httpRequest(`${base}/readyz`, { headers: foreign })
    expect([ready.status, JSON.parse(ready.body)]).toEqual([200, { status: 'ready' }])
    expect((await httpRequest(`${base}/healthz`, { body: '{}' })).status).toBe(405)
    expect((await httpRequest(`${base}/readyz`, { method: 'HEAD' })).status).toBe(200)
  })

  it('answers 503 with the reason code alone while not ready', async () => {
    await serve({ readiness: async () => ({ ready: false, reason: 'recovering' }) })
    const ready = await httpRequest(`${base}/readyz`)
    expect(ready.status).toBe(503)
    expect(JSON.parse(ready.body)).toEqual({ status: 'not_ready', reason: 'recovering' })
  })
})

describe('startHttp /metrics', () => {
  it('needs the token and a Host this server answers to, and counts the refusals', async () => {
    await serve()
    const none = await httpRequest(`${base}/metrics`)
    expect(none.status).toBe(401)
    expect(none.headers['www-authenticate']).toBe('Bearer realm="patchloom"')
    const wrong = await httpRequest(`${base}/metrics`, {
      headers: { authorization: 'Bearer not-the-token-at-all-000' },
    })
    expect(wrong.status).toBe(401)
    const forged = await httpRequest(`${base}/metrics`, {
      headers: { ...BEARER, host: 'evil.example' },
    })
    expect(forged.status).toBe(403)
    const good = await httpRequest(`${base}/metrics`, { headers: BEARER })
    expect(good.status).toBe(200)
    expect(good.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    const s = parsePrometheus(good.body)
    expect(sumOf(s, 'patchloom_http_refusals_total', { status: '401' })).toBe(2)
    expect(sumOf(s, 'patchloom_http_refusals_total', { status: '403' })).toBe(1)
    expect(sumOf(s, 'patchloom_workspaces_open')).toBe(1)
    expect((await httpRequest(`${base}/metrics`, { headers: BEARER, body: '' })).status).toBe(405)
  })

  it('is not served when the server has no metrics', async () => {
    await serve({}, false)
    expect((await httpRequest(`${base}/metrics`, { headers: BEARER })).status).toBe(404)
  })
})

describe('startHttp request ids', () => {
  it("puts the client's X-Request-Id in the result on the direct leg, when it is safe", async () => {
    await serve()
    const body = (id: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'read_file', arguments: { path: 'missing.txt' } },
      })
    const post = (id: number, requestId: string) =>
      httpRequest(running?.url as string, {
        headers: { ...MCP_HEADERS, ...BEARER, 'x-request-id': requestId },
        body: body(id),
      })
    const taken = JSON.parse((await post(1, 'harness-run-3.call-17')).body)
    expect(taken.result.isError).toBe(true)
    expect(taken.result.structuredContent.request_id).toBe('harness-run-3.call-17')
    const unsafe = JSON.parse((await post(2, 'has spaces and "quotes"')).body)
    expect(unsafe.result.structuredContent.request_id).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/)
  })

  it("puts it there on the SDK's leg too (2026-07-28 era)", async () => {
    await serve()
    const client = new Client(
      { name: 'observability-test', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    await client.connect(
      new StreamableHTTPClientTransport(new URL(running?.url as string), {
        requestInit: { headers: { ...BEARER, 'x-request-id': 'modern-1' } },
      }),
    )
    try {
      const result = await client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } })
      expect(result.structuredContent).toMatchObject({ content: '1\tone', request_id: 'modern-1' })
    } finally {
      await client.close()
    }
  })
})
