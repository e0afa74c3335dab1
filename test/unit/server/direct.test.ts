// The direct leg for 2025-era tools/call (D-121): which requests take it, and that one
// connected McpServer answers many at once, each under its client's own id, with the SDK's
// input validation and the caller taken from the request's auth. Over real HTTP in
// test/e2e/mcp-server.test.ts (the SDK client's tools/call goes this way).
import type { IncomingMessage } from 'node:http'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { AuthInfo, JSONRPCRequest } from '@modelcontextprotocol/server'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { directCandidate, DirectLeg, directRequest } from '../../../src/server/direct.js'
import { createMcpServer } from '../../../src/server/mcp.js'
import { EditService } from '../../../src/server/service.js'
import { makeTempDir } from '../../helpers/tree.js'

const HEADERS = {
  'mcp-protocol-version': '2025-11-25',
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
}

function incoming(headers: Record<string, string>, method = 'POST'): IncomingMessage {
  return { method, headers } as unknown as IncomingMessage
}

const call = (id: number | string, args: Record<string, unknown>): JSONRPCRequest => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'read_file', arguments: args },
})

describe('directCandidate', () => {
  it('takes a POST naming a 2025-era version that accepts JSON and SSE and sends JSON', () => {
    expect(directCandidate(incoming(HEADERS))).toBe(true)
    expect(
      directCandidate(incoming({ ...HEADERS, 'content-type': 'application/json; charset=utf-8' })),
    ).toBe(true)
  })

  it.each([
    ['a GET', incoming(HEADERS, 'GET')],
    ['no version header', incoming({ ...HEADERS, 'mcp-protocol-version': '' })],
    ['the 2026 era', incoming({ ...HEADERS, 'mcp-protocol-version': '2026-07-28' })],
    ['an unknown version', incoming({ ...HEADERS, 'mcp-protocol-version': '1999-01-01' })],
    ['an Accept without SSE', incoming({ ...HEADERS, accept: 'application/json' })],
    ['a body that is not JSON', incoming({ ...HEADERS, 'content-type': 'text/plain' })],
  ])('leaves %s to the SDK', (_, req) => {
    expect(directCandidate(req)).toBe(false)
  })
})

describe('directRequest', () => {
  it('takes one tools/call request', () => {
    const request = call(7, { path: 'a.txt' })
    expect(directRequest(request)).toEqual(request)
  })

  it.each([
    ['a batch', [call(1, { path: 'a.txt' })]],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['another method', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }],
    ['initialize', { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }],
    ['a response', { jsonrpc: '2.0', id: 1, result: {} }],
    ['no jsonrpc version', { id: 1, method: 'tools/call', params: {} }],
    [
      'a 2026 envelope',
      {
        ...call(1, { path: 'a.txt' }),
        params: {
          name: 'read_file',
          arguments: { path: 'a.txt' },
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
        },
      },
    ],
  ])('leaves %s to the SDK', (_, body) => {
    expect(directRequest(body)).toBeUndefined()
  })
})

describe('DirectLeg', () => {
  let root = ''
  let service: EditService
  let leg: DirectLeg
  const agents: string[] = []
  const auth = (agent: string): AuthInfo => ({
    token: '',
    clientId: agent,
    scopes: [],
    extra: { agent },
  })

  beforeEach(async () => {
    root = await makeTempDir('direct-')
    await writeFile(join(root, 'a.txt'), 'one\ntwo\n')
    await writeFile(join(root, 'b.txt'), 'three\n')
    service = await EditService.open({ workspaces: [{ root }], workers: false })
    leg = await DirectLeg.connect(
      createMcpServer({
        service,
        version: 'test',
        callerOf: (extra) => {
          const agent = String(extra?.['agent'] ?? 'anonymous')
          agents.push(agent)
          return { agent }
        },
      }),
    )
  })

  afterEach(async () => {
    await leg.close()
    await service.close()
  })

  it('answers concurrent requests that share an id, each under its own', async () => {
    const [a, b] = await Promise.all([
      leg.exchange(call(1, { path: 'a.txt' }), auth('first')),
      leg.exchange(call(1, { path: 'b.txt' }), auth('second')),
    ])
    expect(a).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { structuredContent: { path: 'a.txt' } },
    })
    expect(b).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { structuredContent: { path: 'b.txt' } },
    })
    expect(JSON.stringify(a)).toContain('two')
    expect(JSON.stringify(b)).toContain('three')
    expect(agents.slice(-2).sort()).toEqual(['first', 'second'])
    const named = await leg.exchange(call('req-x', { path: 'a.txt' }), auth('third'))
    expect(named).toMatchObject({ id: 'req-x' })
  })

  it("answers arguments the tool's schema refuses with the SDK's error result", async () => {
    const answer = await leg.exchange(call(3, { path: 'a.txt', limit: 'two' }), auth('x'))
    expect(answer).toMatchObject({ id: 3, result: { isError: true } })
    expect(JSON.stringify(answer)).toMatch(/limit/)
  })

  it('refuses exchanges once closed', async () => {
    await leg.close()
    await expect(leg.exchange(call(1, { path: 'a.txt' }), auth('x'))).rejects.toThrow(/closed/)
  })
})
