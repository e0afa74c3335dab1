// `patchloom serve --http` watched from outside while it works: concurrent SDK clients in both
// protocol eras send a few hundred tool calls, some refused on purpose (a stale expected_hash, a
// missing file, a path outside the root, a burst past the per-client limit), while /metrics is
// scraped; afterwards its counters must add up exactly to the calls sent, per tool and outcome,
// the histograms to the same counts, and the log must hold one line per call with the request id
// its result carried. Also: which endpoints need the token, and request ids over stdio.
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import {
  callTool,
  MODERN_REVISION,
  startHttpServer,
  stdioClient,
  type CallOut,
} from '../helpers/mcp.js'
import { httpRequest } from '../helpers/http-request.js'
import { parsePrometheus, samplesOf, sumOf, type Sample } from '../helpers/prometheus.js'

const BUILT = existsSync(fileURLToPath(new URL('../../dist/cli/main.cjs', import.meta.url)))
const TOKEN = 'e2e-observability-token-0123456789abcdef'
const BEARER = { authorization: `Bearer ${TOKEN}` }
const CLIENTS = 4
const ROUNDS = 25
const HELD = 4
const REFUSED = 3
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
}
const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('')

let root = ''

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'patchloom-serve-observe-'))
})
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

interface Sent {
  readonly tool: string
  readonly agent: string
  readonly out: CallOut
  /** The X-Request-Id this call was sent with, when the client sent one. */
  readonly sentId?: string
}

/** A client whose tool calls carry `x-request-id: <prefix>-<n>` when `prefix` is given. */
async function connect(
  url: string,
  agent: string,
  modern: boolean,
  prefix?: string,
): Promise<{ client: Client; nextId: () => string | undefined }> {
  let n = 0
  let current: string | undefined
  const fetchWithId = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers)
    if (current !== undefined && String(init?.body ?? '').includes('"tools/call"'))
      headers.set('x-request-id', current)
    return fetch(input, { ...init, headers })
  }
  const client = new Client(
    { name: 'observability-e2e', version: '1' },
    modern ? { versionNegotiation: { mode: { pin: MODERN_REVISION } } } : {},
  )
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { ...BEARER, 'x-patchloom-agent': agent } },
      fetch: fetchWithId,
    }),
  )
  return {
    client,
    nextId: () => (current = prefix === undefined ? undefined : `${prefix}-${n++}`),
  }
}

const readCall = (id: number): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'read_file', arguments: { path: 'f0.txt', limit: 1 } },
  })

/**
 * A read_file call held in flight: with `Expect: 100-continue` node:http answers 100 Continue just
 * before it calls the server's handler, which counts the request at once; the body's end is
 * sent by finish(), which resolves with the answer's body.
 */
async function holdOpen(
  url: string,
  id: string,
): Promise<{ id: string; finish(): Promise<string> }> {
  const { request } = await import('node:http')
  const body = readCall(1)
  const req = request(url, {
    method: 'POST',
    headers: {
      ...MCP_HEADERS,
      ...BEARER,
      'x-patchloom-agent': 'holder',
      'x-request-id': id,
      'content-length': String(Buffer.byteLength(body)),
      expect: '100-continue',
    },
  })
  const answered = new Promise<string>((resolve, reject) => {
    req.on('response', (res) => {
      let text = ''
      res.on('data', (c: Buffer) => (text += c.toString()))
      res.on('end', () => resolve(text))
    })
    req.once('error', reject)
  })
  const counted = new Promise<void>((resolve, reject) => {
    req.once('continue', resolve)
    req.once('error', reject)
  })
  req.write(body.slice(0, 10))
  await counted
  return {
    id,
    finish: () => {
      req.end(body.slice(10))
      return answered
    },
  }
}

async function scrape(base: string): Promise<Sample[]> {
  const answer = await httpRequest(`${base}/metrics`, { headers: BEARER })
  expect(answer.status).toBe(200)
  return parsePrometheus(answer.body)
}

describe.skipIf(!BUILT)('patchloom serve, observed (needs npm run build)', () => {
  it('counts every call it answered, by tool and outcome, and logs each with its request id', async () => {
    const dir = await mkdtemp(join(root, 'load-'))
    for (let k = 0; k < CLIENTS; k++) await writeFile(join(dir, `f${k}.txt`), lines(ROUNDS + 5))
    const server = await startHttpServer(
      ['--root', dir, '--durability', 'fast', '--max-in-flight', '4'],
      { PATCHLOOM_TOKEN: TOKEN },
    )
    const base = server.url.replace(/\/mcp$/, '')
    const sent: Sent[] = []
    const scrapes: number[] = []
    let tooMany = 0
    try {
      // Which endpoints need the token.
      expect((await httpRequest(`${base}/healthz`)).status).toBe(200)
      expect((await httpRequest(`${base}/readyz`)).body).toBe('{"status":"ready"}')
      expect((await httpRequest(`${base}/metrics`)).status).toBe(401)
      expect((await httpRequest(server.url, { body: '{}' })).status).toBe(401)

      const clients = await Promise.all(
        Array.from({ length: CLIENTS }, (_, k) =>
          // Client 0 brings its own request ids; client 3 speaks the 2026-07-28 protocol.
          connect(server.url, `agent-${k}`, k === 3, k === 0 ? 'client0' : undefined),
        ),
      )
      const send = async (k: number, tool: string, args: Record<string, unknown>) => {
        const { client, nextId } = clients[k] as (typeof clients)[number]
        const sentId = nextId()
        const out = await callTool(client, tool, args)
        sent.push({ tool, agent: `agent-${k}`, out, ...(sentId === undefined ? {} : { sentId }) })
        return out
      }
      let running = true
      const scraper = (async () => {
        while (running) {
          const s = await scrape(base)
          const total = sumOf(s, 'patchloom_tool_calls_total')
          // Never more than was sent (a call is counted before its answer leaves the server).
          expect(total).toBeLessThanOrEqual(sent.length + CLIENTS + HELD)
          if (scrapes.length > 0) expect(total).toBeGreaterThanOrEqual(scrapes.at(-1) as number)
          scrapes.push(total)
          await new Promise((r) => setTimeout(r, 15))
        }
      })()
      const agent = async (k: number) => {
        const path = `f${k}.txt`
        for (let r = 0; r < ROUNDS; r++) {
          const read = await send(k, 'read_file', { path })
          expect(read.isError).toBe(false)
          const hash = read.structured['content_hash'] as string
          const edit = await send(k, 'edit_file', {
            path,
            old_string: `line ${r + 1}\n`,
            new_string: `edited ${k} ${r}\n`,
            expected_hash: hash,
          })
          expect(edit.isError).toBe(false)
          const refused =
            r % 3 === 0
              ? await send(k, 'edit_file', {
                  path,
                  old_string: `line ${r + 2}\n`,
                  new_string: 'stale\n',
                  expected_hash: hash,
                })
              : r % 3 === 1
                ? await send(k, 'read_file', { path: `missing-${k}.txt` })
                : await send(k, 'read_file', { path: '../outside.txt' })
          expect(refused.structured['error']?.code).toBe(
            ['FILE_HASH_MISMATCH', 'FILE_NOT_FOUND', 'PATH_OUTSIDE_ROOT'][r % 3],
          )
        }
      }
      await Promise.all(Array.from({ length: CLIENTS }, (_, k) => agent(k)))
      // One client at its limit of 4 requests in flight (each held open mid-body, see
      // holdOpen): the next ones are refused with 429 before any tool runs.
      const held = await Promise.all(
        Array.from({ length: HELD }, (_, i) => holdOpen(server.url, `held-${i}`)),
      )
      for (let i = 0; i < REFUSED; i++) {
        const refused = await httpRequest(server.url, {
          headers: { ...MCP_HEADERS, ...BEARER, 'x-patchloom-agent': 'holder' },
          body: readCall(99),
        })
        expect(refused.status).toBe(429)
        tooMany++
      }
      for (const h of held) {
        const answer = JSON.parse(await h.finish()) as { result: Record<string, any> }
        const out: CallOut = {
          isError: answer.result['isError'] === true,
          structured: answer.result['structuredContent'],
          text: '',
        }
        sent.push({ tool: 'read_file', agent: 'holder', out, sentId: h.id })
      }
      running = false
      await scraper
      await Promise.all(clients.map((c) => c.client.close()))

      const s = await scrape(base)
      const tally = new Map<string, number>()
      for (const { tool, out } of sent) {
        const outcome = out.isError ? (out.structured['error']?.code as string) : 'ok'
        tally.set(`${tool} ${outcome}`, (tally.get(`${tool} ${outcome}`) ?? 0) + 1)
      }
      const counted = new Map(
        samplesOf(s, 'patchloom_tool_calls_total')
          .filter((x) => x.value > 0)
          .map((x) => [`${x.labels['tool']} ${x.labels['outcome']}`, x.value]),
      )
      expect(counted).toEqual(tally)
      expect(tally.get('edit_file ok')).toBe(CLIENTS * ROUNDS)
      expect(tally.get('edit_file FILE_HASH_MISMATCH')).toBe(CLIENTS * Math.ceil(ROUNDS / 3))
      for (const tool of ['read_file', 'edit_file']) {
        const count = [...tally].filter(([key]) => key.startsWith(`${tool} `))
        const n = count.reduce((sum, [, v]) => sum + v, 0)
        const h = 'patchloom_tool_call_duration_seconds'
        expect(sumOf(s, `${h}_count`, { tool })).toBe(n)
        expect(sumOf(s, `${h}_bucket`, { tool, le: '+Inf' })).toBe(n)
        const buckets = samplesOf(s, `${h}_bucket`, { tool }).map((b) => b.value)
        expect(buckets).toEqual([...buckets].sort((a, b) => a - b))
      }
      expect(tally.get('read_file SERVER_BUSY')).toBeUndefined()
      expect(sumOf(s, 'patchloom_busy_refusals_total', { limit: 'client' })).toBe(tooMany)
      expect(sumOf(s, 'patchloom_busy_refusals_total')).toBe(tooMany)
      expect(sumOf(s, 'patchloom_http_refusals_total', { status: '429' })).toBe(tooMany)
      expect(tooMany).toBe(REFUSED)
      expect(sent.length).toBe(CLIENTS * ROUNDS * 3 + HELD)
      // Every edit that resolved its path waited for the server's file lock once; each
      // successful edit is one committed transaction of the journal.
      const edits = CLIENTS * ROUNDS + (tally.get('edit_file FILE_HASH_MISMATCH') ?? 0)
      expect(sumOf(s, 'patchloom_lock_wait_seconds_count', { lock: 'server' })).toBe(edits)
      const committed = sumOf(s, 'patchloom_commit_transactions_total', { result: 'committed' })
      const refusedTx = sumOf(s, 'patchloom_commit_transactions_total', { result: 'refused' })
      expect(committed).toBe(CLIENTS * ROUNDS)
      expect(sumOf(s, 'patchloom_commit_batch_transactions_sum')).toBe(committed + refusedTx)
      const batches = sumOf(s, 'patchloom_commit_batch_transactions_count')
      expect(sumOf(s, 'patchloom_lock_wait_seconds_count', { lock: 'journal' })).toBe(batches)
      expect(sumOf(s, 'patchloom_commit_duration_seconds_count')).toBe(batches)
      expect(sumOf(s, 'patchloom_fsync_duration_seconds_count')).toBe(batches)
      expect(sumOf(s, 'patchloom_workspaces_open')).toBe(1)
      expect(sumOf(s, 'patchloom_requests_in_progress')).toBe(0)
      expect(sumOf(s, 'patchloom_worker_threads_max')).toBeGreaterThanOrEqual(1)
      expect(sumOf(s, 'patchloom_http_refusals_total', { status: '401' })).toBe(2)
      expect(scrapes.length).toBeGreaterThan(0)
    } finally {
      expect(await server.stop()).toBe(0)
    }

    const logged = server
      .stderr()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(logged[0]).toMatchObject({ level: 'info', event: 'workspace.recovered' })
    expect(logged.at(-1)).toMatchObject({ event: 'server.stopped', message: 'stopped' })
    const calls = new Map(
      logged.filter((l) => l['event'] === 'tool.call').map((l) => [l['request_id'], l]),
    )
    expect(calls.size).toBe(sent.length)
    for (const { tool, agent, out, sentId } of sent) {
      const id = out.structured['request_id'] as string
      if (sentId !== undefined) expect(id).toBe(sentId)
      else expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/)
      expect(calls.get(id)).toMatchObject({
        tool,
        agent,
        workspace: expect.any(String),
        outcome: out.isError ? out.structured['error'].code : 'ok',
        ms: expect.any(Number),
      })
    }
  })

  it("shows the language-server pool's servers once a call has started one", async () => {
    const dir = await mkdtemp(join(root, 'lsp-'))
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true } }),
    )
    await writeFile(join(dir, 'a.ts'), 'export const x: number = "one"\n')
    const server = await startHttpServer(['--root', dir, '--durability', 'fast'])
    const base = server.url.replace(/\/mcp$/, '')
    try {
      const before = parsePrometheus((await httpRequest(`${base}/metrics`)).body)
      expect(sumOf(before, 'patchloom_language_servers')).toBe(0)
      const client = await connect(server.url, 'lsp', false)
      const out = await callTool(client.client, 'diagnostics', { paths: ['a.ts'] })
      await client.client.close()
      expect(out.structured['diagnostics']).toMatchObject([{ path: 'a.ts', code: '2322' }])
      const after = parsePrometheus((await httpRequest(`${base}/metrics`)).body)
      expect(sumOf(after, 'patchloom_language_servers', { state: 'ready' })).toBe(1)
      expect(sumOf(after, 'patchloom_language_server_restarts_total')).toBe(0)
      expect(sumOf(after, 'patchloom_language_server_pools_unavailable')).toBe(0)
      expect((await httpRequest(`${base}/readyz`)).status).toBe(200)
    } finally {
      expect(await server.stop()).toBe(0)
    }
  }, 90_000)

  it('puts a request id in results over stdio too', async () => {
    const dir = await mkdtemp(join(root, 'stdio-'))
    await writeFile(join(dir, 'a.txt'), lines(3))
    const client = await stdioClient(['--root', dir])
    try {
      const ok = await callTool(client, 'read_file', { path: 'a.txt' })
      const refused = await callTool(client, 'read_file', { path: 'nope.txt' })
      expect(ok.structured['request_id']).toMatch(/^[0-9a-f]{8}-0$/)
      expect(refused.structured).toMatchObject({
        error: { code: 'FILE_NOT_FOUND' },
        request_id: expect.stringMatching(/^[0-9a-f]{8}-1$/),
      })
    } finally {
      await client.close()
    }
  })
})
