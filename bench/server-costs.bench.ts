// Where the MCP server's time per request goes (D-118), in one process, no network:
// 1. a `read_file` tools/call through the HTTP handler, in both protocol eras: the SDK's
//    createMcpHandler with a fresh McpServer per request (what the server did first) against
//    the server's reusing handler (src/server/instances.ts), the direct leg that 2025-era
//    tools/call takes over HTTP (src/server/direct.ts, D-121: one connected McpServer, no web
//    Request), and the edit service called directly, with no SDK at all, as the floor, beside
//    the same service observed as `serve` observes it (metrics and a JSON log line per call,
//    written to /dev/null);
// 2. the filesystem calls of one journal commit (a one-line JSON edit through a warm engine),
//    counted and timed per call by wrapping node:fs, on the filesystem of the temp directory
//    (not tmpfs: the server's workspaces are on disk), beside a bare mkdir/rmdir pair there.
// Run: npm run bench:server-costs, or npm run build && node dist/bench/server-costs.bench.js [--requests 1500] [--commits 400]
import fs from 'node:fs'
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createMcpHandler } from '@modelcontextprotocol/server'
import { createMcpServer } from '../src/server/mcp.js'
import { DirectLeg } from '../src/server/direct.js'
import { InstancePool, reusingHandler } from '../src/server/instances.js'
import { EditService } from '../src/server/service.js'
import { LineLog } from '../src/server/log-lines.js'
import { ServerMetrics } from '../src/server/metrics.js'
import { allOf } from '../src/server/observe.js'
import { loadLine, machineLine, markdownTable, median, ms } from './report.js'

const args = process.argv.slice(2)
const flag = (name: string, fallback: number): number => {
  const at = args.indexOf(name)
  return at === -1 ? fallback : Number(args[at + 1])
}
const REQUESTS = flag('--requests', 1500)
const COMMITS = flag('--commits', 400)
const ROUNDS = 3

type Era = 'legacy' | 'modern'
type Fetch = (request: Request) => Promise<Response>

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
}

function readRequest(id: number, era: Era): Request {
  const params = { name: 'read_file', arguments: { path: 'a.txt', limit: 2 } }
  const modern = era === 'modern'
  return new Request('http://localhost/mcp', {
    method: 'POST',
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: modern ? { ...params, _meta: META } : params,
    }),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': modern ? '2026-07-28' : '2025-11-25',
      ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': 'read_file' } : {}),
    },
  })
}

/** Median over rounds of the wall ms per request, after a warm-up. */
async function perRequest(era: Era, fetch: Fetch): Promise<number> {
  const first = await (await fetch(readRequest(0, era))).text()
  if (!first.includes('content_hash')) throw new Error(`${era}: unexpected answer ${first}`)
  for (let i = 0; i < 200; i++) await (await fetch(readRequest(i, era))).text()
  const rounds: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now()
    for (let i = 0; i < REQUESTS; i++) await (await fetch(readRequest(i, era))).text()
    rounds.push((performance.now() - start) / REQUESTS)
  }
  return median(rounds)
}

async function handlerCosts(root: string): Promise<string> {
  const service = await EditService.open({ workspaces: [{ root }], workers: false })
  const make = () =>
    createMcpServer({ service, version: 'bench', callerOf: () => ({ agent: 'b' }) })
  const fresh = createMcpHandler(make, { legacy: 'stateless' })
  const pool = new InstancePool(make)
  const reusing = reusingHandler(pool, { maxRequestBodySize: 4 * 1024 * 1024 })
  const rows: string[][] = []
  for (const era of ['legacy', 'modern'] as const) {
    const before = await perRequest(era, (r) => fresh.fetch(r))
    const after = await perRequest(era, (r) => reusing.fetch(r))
    rows.push([era, ms(before), ms(after)])
  }
  const leg = await DirectLeg.connect(make())
  const auth = { token: '', clientId: 'b', scopes: [] }
  const call = (id: number) => ({
    jsonrpc: '2.0' as const,
    id,
    method: 'tools/call',
    params: { name: 'read_file', arguments: { path: 'a.txt', limit: 2 } },
  })
  const legFirst = JSON.stringify(await leg.exchange(call(0), auth))
  if (!legFirst.includes('content_hash')) throw new Error(`direct leg: unexpected ${legFirst}`)
  const devNull = openSync('/dev/null', 'w')
  const metrics = new ServerMetrics()
  const observedService = await EditService.open({
    workspaces: [{ root }],
    workers: false,
    observer: allOf(metrics, new LineLog('json', (text) => writeSync(devNull, text))),
  })
  const viaLeg: number[] = []
  const direct: number[] = []
  const observed: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    let start = performance.now()
    for (let i = 0; i < REQUESTS; i++) await leg.exchange(call(i), auth)
    viaLeg.push((performance.now() - start) / REQUESTS)
    for (const [into, target] of [
      [direct, service],
      [observed, observedService],
    ] as const) {
      start = performance.now()
      for (let i = 0; i < REQUESTS; i++) {
        await target.call('read_file', { path: 'a.txt', limit: 2 }, { agent: 'b' })
      }
      into.push((performance.now() - start) / REQUESTS)
    }
  }
  if (!(await metrics.text()).includes('patchloom_tool_calls_total{tool="read_file",outcome="ok"}'))
    throw new Error('observed service: no read_file count in the metrics')
  await Promise.all([fresh.close(), reusing.close(), leg.close()])
  await Promise.all([service.close(), observedService.close()])
  closeSync(devNull)
  return [
    `### read_file per request, in-process (${REQUESTS} requests x ${ROUNDS} rounds, median)`,
    '',
    markdownTable(['era', 'fresh McpServer per request ms', 'reused instances ms'], rows),
    '',
    `A 2025-era tools/call through the direct leg (one connected McpServer): ${ms(median(viaLeg))} ms. The edit service alone (no SDK): ${ms(median(direct))} ms per read_file; observed as \`serve\` observes it (metrics, a JSON log line per call to /dev/null): ${ms(median(observed))} ms. Instances made by the reusing handler: ${pool.made}.`,
  ].join('\n')
}

const FS_CALLS = [
  'mkdirSync',
  'rmdirSync',
  'unlinkSync',
  'renameSync',
  'openSync',
  'readdirSync',
  'linkSync',
] as const

async function commitCosts(root: string): Promise<string> {
  const timing = new Map<string, { n: number; total: number }>()
  const real = fs as unknown as Record<string, (...a: unknown[]) => unknown>
  const originals = FS_CALLS.map((name) => [name, real[name]] as const)
  for (const [name, original] of originals) {
    real[name] = function (this: unknown, ...a: unknown[]) {
      const start = performance.now()
      try {
        return (original as (...x: unknown[]) => unknown).apply(this, a)
      } finally {
        const t = timing.get(name) ?? { n: 0, total: 0 }
        t.n++
        t.total += performance.now() - start
        timing.set(name, t)
      }
    }
  }
  syncBuiltinESMExports()
  const { createEngine } = await import('../src/index.js')
  const engine = createEngine({ root, workers: false, durability: 'fast' })
  const edit = (from: string, to: string): string =>
    JSON.stringify({ edits: [{ path: 'a.txt', old_string: from, new_string: to }] })
  for (let i = 0; i < 40; i++)
    await engine.apply(edit(i % 2 ? 'line 1 x\n' : 'line 1\n', i % 2 ? 'line 1\n' : 'line 1 x\n'), {
      format: 'edits',
    })
  timing.clear()
  for (let i = 0; i < COMMITS; i++)
    await engine.apply(edit(i % 2 ? 'line 1 x\n' : 'line 1\n', i % 2 ? 'line 1\n' : 'line 1 x\n'), {
      format: 'edits',
    })
  await engine.close()
  for (const [name, original] of originals) if (original !== undefined) real[name] = original
  syncBuiltinESMExports()

  const bare: number[] = []
  const dir = path.join(root, 'bare')
  fs.mkdirSync(dir)
  for (let i = 0; i < 300; i++) {
    fs.mkdirSync(path.join(dir, String(i)))
    const start = performance.now()
    fs.rmdirSync(path.join(dir, String(i)))
    bare.push(performance.now() - start)
  }
  const rows = [...timing].map(([name, t]) => [
    name.replace(/Sync$/, ''),
    (t.n / COMMITS).toFixed(1),
    ms(t.total / t.n),
    ms(t.total / COMMITS),
  ])
  return [
    `### journal filesystem calls per commit (${COMMITS} one-line edits, durability fast, ${root})`,
    '',
    markdownTable(['call', 'per commit', 'ms per call', 'ms per commit'], rows),
    '',
    `A bare rmdir of an empty directory there: ${ms(median(bare))} ms (median of 300).`,
  ].join('\n')
}

const root = mkdtempSync(path.join(tmpdir(), 'patchloom-server-costs-'))
try {
  writeFileSync(
    path.join(root, 'a.txt'),
    Array.from({ length: 50 }, (_, i) => `line ${i + 1}\n`).join(''),
  )
  console.log(`## server-costs.bench\n\n${machineLine()}\n`)
  console.log(await handlerCosts(root))
  console.log(`\n${await commitCosts(root)}\n\n${loadLine()}`)
} finally {
  rmSync(root, { recursive: true, force: true })
}
