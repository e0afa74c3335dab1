// The MCP server as agents reach it: the built CLI in a child process, driven by the
// official SDK client over stdio and over Streamable HTTP, in both protocol eras (the 2025
// `initialize` handshake and stateless 2026-07-28), plus raw HTTP for the security checks and
// the MCP Inspector's command-line mode. Needs `npm run build`.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Client } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toolJson } from '../../src/server/tool-json.js'
import {
  callTool,
  httpClient,
  startHttpServer,
  stdioClient,
  type Era,
  type HttpServer,
} from '../helpers/mcp.js'
import { runCli } from '../helpers/run-cli.js'
import { makeTempDir } from '../helpers/tree.js'

const BUILT = existsSync(fileURLToPath(new URL('../../dist/cli/main.cjs', import.meta.url)))
const INSPECTOR = fileURLToPath(new URL('../../node_modules/.bin/mcp-inspector', import.meta.url))
const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('')
const ERAS: Era[] = ['legacy', 'modern']

let root = ''
beforeAll(async () => {
  root = await makeTempDir('patchloom-mcp-')
})
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

/** A fresh workspace directory under the suite's temp dir. */
async function workspace(name: string): Promise<string> {
  const dir = join(root, name)
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'a.txt'), lines(20))
  return dir
}

/** Every tool's success and error path, through one connected client. */
async function exerciseTools(client: Client, dir: string): Promise<void> {
  const listed = await client.listTools()
  const reference = toolJson().mcp
  expect(listed.tools.map((t) => t.name)).toEqual(reference.map((t) => t['name']))
  for (const tool of listed.tools) {
    const ref = reference.find((t) => t['name'] === tool.name) as Record<string, unknown>
    expect(tool.inputSchema).toEqual(ref['inputSchema'])
    expect(tool.outputSchema).toEqual(ref['outputSchema'])
    expect(tool.annotations).toEqual(ref['annotations'])
  }

  // read_file
  expect((await callTool(client, 'read_file', { path: 'missing.txt' })).structured).toMatchObject({
    error: { code: 'FILE_NOT_FOUND', retryable: false },
  })
  const read = await callTool(client, 'read_file', { path: 'a.txt', offset: 3, limit: 2 })
  expect(read.isError).toBe(false)
  expect(read.structured).toMatchObject({ content: '3\tline 3\n4\tline 4', total_lines: 20 })
  const hash = read.structured['content_hash'] as string

  // edit_file: an input the schema refuses, a refused edit with candidates, a good edit
  const invalid = await callTool(client, 'edit_file', { path: 'a.txt', bogus: 1 })
  expect(invalid.isError).toBe(true)
  const missing = await callTool(client, 'edit_file', {
    path: 'a.txt',
    old_string: 'line 5 of nothing\n',
    new_string: 'x\n',
  })
  expect(missing.structured['error']).toMatchObject({ code: 'MATCH_NOT_FOUND' })
  expect(missing.structured['error'].candidates.length).toBeGreaterThan(0)
  expect(missing.text).toMatch(/^MATCH_NOT_FOUND: /)
  const edited = await callTool(client, 'edit_file', {
    path: 'a.txt',
    old_string: 'line 5\n',
    new_string: 'five\n',
    expected_hash: hash,
  })
  expect(edited.isError).toBe(false)
  expect(edited.structured['files'][0]).toMatchObject({ path: 'a.txt', previous_hash: hash })
  expect(edited.structured['transaction']).toMatch(/\S/)

  // multi_edit
  await writeFile(join(dir, 'b.txt'), 'b\n')
  const stale = await callTool(client, 'multi_edit', {
    edits: [{ path: 'b.txt', old_string: 'b\n', new_string: 'B\n' }],
  })
  expect(stale.structured['error']).toMatchObject({ code: 'FILE_STALE_READ' })
  expect(stale.structured['error'].current_hash).toMatch(/^sha256:/)
  await callTool(client, 'read_file', { path: 'b.txt' })
  const multi = await callTool(client, 'multi_edit', {
    edits: [
      { path: 'a.txt', old_string: 'line 6\n', new_string: 'six\n' },
      { path: 'b.txt', old_string: 'b\n', new_string: 'B\n' },
    ],
  })
  expect(multi.structured['summary']).toBe('M a.txt (+1 -1)\nM b.txt (+1 -1)')

  // apply_patch
  const bad = await callTool(client, 'apply_patch', { patch: 'not a patch at all' })
  expect(bad.structured['error']).toMatchObject({ code: 'PARSE_UNKNOWN_FORMAT' })
  const patched = await callTool(client, 'apply_patch', {
    patch: '*** Begin Patch\n*** Add File: c.txt\n+new\n*** End Patch\n',
  })
  expect(patched.structured['files'][0]).toMatchObject({ path: 'c.txt', op: 'add' })

  // write_file
  const wrongHash = `sha256:${'0'.repeat(64)}`
  const refused = await callTool(client, 'write_file', {
    path: 'a.txt',
    content: 'x\n',
    expected_hash: wrongHash,
  })
  expect(refused.structured['error']).toMatchObject({ code: 'FILE_HASH_MISMATCH' })
  // The refusal shows the file as it is now, as read_file lists it, in both forms.
  expect(refused.structured['error'].current).toMatchObject({
    path: 'a.txt',
    content_hash: refused.structured['error'].current_hash,
    total_lines: 20,
    more: false,
  })
  expect(refused.structured['error'].current.content).toMatch(/^1\tline 1\n[^]*\n5\tfive\n/)
  expect(refused.text).toContain('current content: a.txt lines 1-20 of 20')
  const written = await callTool(client, 'write_file', { path: 'd/e.txt', content: 'e\n' })
  expect(written.structured['files'][0]).toMatchObject({ path: 'd/e.txt', op: 'add' })
  expect(await readFile(join(dir, 'd/e.txt'), 'utf8')).toBe('e\n')

  // undo: the last change (the write), then a transaction by name
  const undone = await callTool(client, 'undo', {})
  expect(undone.structured['files']).toEqual([
    expect.objectContaining({ path: 'd/e.txt', op: 'remove' }),
  ])
  const byName = await callTool(client, 'undo', { transaction: edited.structured['transaction'] })
  expect(byName.isError).toBe(true) // a.txt changed since (multi_edit): refused, nothing lost
  expect(byName.structured['error']).toMatchObject({ code: 'UNDO_CONFLICT' })
  expect(
    (await callTool(client, 'undo', { transaction: 'no-such-transaction' })).structured['error'],
  ).toMatchObject({ code: 'UNDO_NOT_FOUND' })

  // outside the root
  const outside = await callTool(client, 'read_file', { path: '../../etc/passwd' })
  expect(outside.structured['error']).toMatchObject({ code: 'PATH_OUTSIDE_ROOT' })
  const outsideWrite = await callTool(client, 'write_file', { path: '/tmp/x.txt', content: 'x' })
  expect(outsideWrite.structured['error']).toMatchObject({ code: 'PATH_OUTSIDE_ROOT' })

  // diagnostics: a path outside the root (its success path is the real-tsc test below)
  const diag = await callTool(client, 'diagnostics', { paths: ['../x.ts'] })
  expect(diag.structured['error']).toMatchObject({ code: 'PATH_OUTSIDE_ROOT' })
}

describe.skipIf(!BUILT)('MCP over stdio (needs npm run build)', () => {
  it.each(ERAS)('serves every tool in the %s era', async (era) => {
    const dir = await workspace(`stdio-${era}`)
    const client = await stdioClient(['--root', dir], era)
    try {
      expect(client.getProtocolEra()).toBe(era)
      await exerciseTools(client, dir)
    } finally {
      await client.close()
    }
  })

  it('keeps updates across two server processes on one workspace', async () => {
    const dir = await workspace('two-processes')
    const [a, b] = await Promise.all([
      stdioClient(['--root', dir, '--agent', 'a']),
      stdioClient(['--root', dir, '--agent', 'b']),
    ])
    try {
      const hashA = (await callTool(a, 'read_file', { path: 'a.txt' })).structured['content_hash']
      await callTool(b, 'read_file', { path: 'a.txt' })
      // Same line, at once: exactly one lands, the other is refused with the new hash.
      const same = await Promise.all([
        callTool(a, 'edit_file', {
          path: 'a.txt',
          old_string: 'line 10\n',
          new_string: 'A\n',
          expected_hash: hashA,
        }),
        callTool(b, 'edit_file', { path: 'a.txt', old_string: 'line 10\n', new_string: 'B\n' }),
      ])
      expect(same.filter((r) => !r.isError)).toHaveLength(1)
      const text = await readFile(join(dir, 'a.txt'), 'utf8')
      const winner = same[0]?.isError === true ? 'B' : 'A'
      expect(text).toBe(lines(20).replace('line 10\n', `${winner}\n`))
      // Top and bottom, at once, each against the version it read: both land (one rebased).
      await callTool(a, 'read_file', { path: 'a.txt' })
      await callTool(b, 'read_file', { path: 'a.txt' })
      const apart = await Promise.all([
        callTool(a, 'edit_file', { path: 'a.txt', old_string: 'line 1\n', new_string: 'TOP\n' }),
        callTool(b, 'edit_file', { path: 'a.txt', old_string: 'line 20\n', new_string: 'END\n' }),
      ])
      expect(apart.map((r) => r.isError)).toEqual([false, false])
      expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe(
        lines(20)
          .replace('line 10\n', `${winner}\n`)
          .replace('line 1\n', 'TOP\n')
          .replace('line 20\n', 'END\n'),
      )
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it("reports the errors a write introduced, and a file's diagnostics, from the real tsc server", async () => {
    const dir = await workspace('diagnostics')
    await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n')
    await writeFile(
      join(dir, 'tsconfig.json'),
      '{ "compilerOptions": { "strict": true, "module": "nodenext", "noEmit": true } }\n',
    )
    await writeFile(join(dir, 'a.ts'), 'export const value: number = 1\n')
    const client = await stdioClient(['--root', dir])
    try {
      await callTool(client, 'read_file', { path: 'a.ts' })
      const broke = await callTool(client, 'edit_file', {
        path: 'a.ts',
        old_string: '= 1',
        new_string: "= 'one'",
        diagnostics: true,
      })
      expect(broke.isError, broke.text).toBe(false)
      expect(broke.structured['diagnostics']).toMatchObject({ settled: true })
      expect(broke.structured['diagnostics'].introduced).toEqual([
        expect.objectContaining({ path: 'a.ts', line: 1, severity: 'error', code: '2322' }),
      ])
      expect(broke.text).toMatch(/introduced a\.ts:1:\d+ error/)
      const now = await callTool(client, 'diagnostics', { paths: ['a.ts'] })
      expect(now.structured['diagnostics']).toEqual([
        expect.objectContaining({ path: 'a.ts', line: 1, code: '2322' }),
      ])
    } finally {
      await client.close()
    }
  })

  it('prints the tool definitions with tools --json', async () => {
    const run = await runCli(['tools', '--json'])
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual(JSON.parse(JSON.stringify(toolJson())))
  })

  it('rolls back a commit a crash interrupted before it serves the workspace', async () => {
    const dir = await workspace('recovery')
    // A process killed (SIGKILL) in the middle of a commit, after a.txt was replaced: the
    // transaction is left pending, the file holds the new content.
    const engineJs = fileURLToPath(new URL('../../dist/src/engine/engine.js', import.meta.url))
    const script = `
      const { createEngineWithInternals } = await import(${JSON.stringify(engineJs)})
      const engine = createEngineWithInternals({ root: ${JSON.stringify(dir)}, workers: false }, {
        journalHooks: { at: (point) => { if (point === 'replaced') process.kill(process.pid, 'SIGKILL') } },
      })
      await engine.apply(JSON.stringify({ edits: [{ path: 'a.txt', old_string: 'line 3\\n', new_string: 'torn\\n' }] }), { format: 'edits' })
    `
    const killed = await new Promise<string | null>((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: 'ignore',
      })
      child.once('exit', (_code, signal) => resolve(signal))
    })
    expect(killed).toBe('SIGKILL')
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toContain('torn')
    // A server with another journal key (another user's state) must not act on it, and says so.
    // (stdin ends at once, so the stdio server stops right after opening the workspace.)
    const stranger = await runCli(['mcp', '--root', dir], {
      stdin: '',
      env: { PATCHLOOM_STATE_DIR: join(root, 'other-state') },
    })
    expect(stranger.stderr).toMatch(/not recovered \(JOURNAL_UNTRUSTED/)
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toContain('torn')
    const client = await stdioClient(['--root', dir])
    try {
      const read = await callTool(client, 'read_file', { path: 'a.txt' })
      expect(read.structured['content']).toContain('3\tline 3')
      expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe(lines(20))
    } finally {
      await client.close()
    }
  })

  it('answers the MCP Inspector in its command-line mode', async () => {
    const dir = await workspace('inspector')
    const home = join(root, 'inspector-home')
    await mkdir(home, { recursive: true })
    const run = (args: string[]): Promise<{ code: number | null; out: string; err: string }> =>
      new Promise((resolve) => {
        const child = spawn(
          INSPECTOR,
          [
            '--cli',
            process.execPath,
            fileURLToPath(new URL('../../bin/patchloom.js', import.meta.url)),
            'mcp',
            '--root',
            dir,
            ...args,
          ],
          { env: { ...process.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] },
        )
        let out = ''
        let err = ''
        child.stdout.on('data', (c: Buffer) => (out += c.toString()))
        child.stderr.on('data', (c: Buffer) => (err += c.toString()))
        child.once('exit', (code) => resolve({ code, out, err }))
      })
    const list = await run(['--method', 'tools/list'])
    expect(list.code, list.err).toBe(0)
    expect(
      (JSON.parse(list.out) as { tools: { name: string }[] }).tools.map((t) => t.name),
    ).toContain('edit_file')
    const read = await run([
      '--method',
      'tools/call',
      '--tool-name',
      'read_file',
      '--tool-arg',
      'path=a.txt',
    ])
    expect(read.code, read.err).toBe(0)
    expect(JSON.parse(read.out).structuredContent).toMatchObject({ path: 'a.txt', total_lines: 20 })
  })
})

describe.skipIf(!BUILT)('MCP over Streamable HTTP (needs npm run build)', () => {
  let server: HttpServer
  let dir = ''
  beforeAll(async () => {
    dir = await workspace('http')
    server = await startHttpServer(['--root', dir])
  })
  afterAll(async () => {
    await server?.stop()
  })

  it.each(ERAS)('serves every tool in the %s era', async (era) => {
    await writeFile(join(dir, 'a.txt'), lines(20))
    await rm(join(dir, 'b.txt'), { force: true })
    await rm(join(dir, 'c.txt'), { force: true })
    const client = await httpClient(server.url, era, { 'x-patchloom-agent': `agent-${era}` })
    try {
      expect(client.getProtocolEra()).toBe(era)
      await exerciseTools(client, dir)
    } finally {
      await client.close()
    }
  })

  it('keeps read-before-write per agent, named by X-Patchloom-Agent', async () => {
    await writeFile(join(dir, 'shared.txt'), 'one\ntwo\n')
    const reader = await httpClient(server.url, 'modern', { 'x-patchloom-agent': 'reader' })
    const other = await httpClient(server.url, 'modern', { 'x-patchloom-agent': 'other' })
    try {
      await callTool(reader, 'read_file', { path: 'shared.txt' })
      const refused = await callTool(other, 'edit_file', {
        path: 'shared.txt',
        old_string: 'one\n',
        new_string: '1\n',
      })
      expect(refused.structured['error']).toMatchObject({ code: 'FILE_STALE_READ' })
      const landed = await callTool(reader, 'edit_file', {
        path: 'shared.txt',
        old_string: 'one\n',
        new_string: '1\n',
      })
      expect(landed.isError).toBe(false)
    } finally {
      await Promise.all([reader.close(), other.close()])
    }
  })

  it.each(ERAS)(
    'answers many requests at once in the %s era, each with its own result',
    async (era) => {
      const names = Array.from({ length: 24 }, (_, i) => `par-${i}.txt`)
      await Promise.all(names.map((n, i) => writeFile(join(dir, n), `file ${i}\n`)))
      const clients = await Promise.all(
        [0, 1, 2, 3].map((k) =>
          httpClient(server.url, era, { 'x-patchloom-agent': `par-${era}-${k}` }),
        ),
      )
      try {
        const reads = await Promise.all(
          names.map((n, i) => callTool(clients[i % 4] as Client, 'read_file', { path: n })),
        )
        expect(reads.map((r) => r.structured['content'])).toEqual(
          names.map((_, i) => `1\tfile ${i}`),
        )
      } finally {
        await Promise.all(clients.map((c) => c.close()))
      }
    },
  )

  it('refuses a forged Host or Origin (DNS rebinding) and an unknown path', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    }
    const { port } = new URL(server.url)
    const forged = await rawPost(server.url, body, { ...headers, host: `evil.example:${port}` })
    expect(forged.status).toBe(403)
    expect(forged.body).toMatch(/Host/)
    const origin = await rawPost(server.url, body, { ...headers, origin: 'http://evil.example' })
    expect(origin.status).toBe(403)
    const good = await rawPost(server.url, body, { ...headers, origin: 'http://localhost:3000' })
    expect(good.status).toBe(200)
    const elsewhere = await rawPost(server.url.replace('/mcp', '/other'), body, headers)
    expect(elsewhere.status).toBe(404)
  })

  it('serves 2025-era tools/call directly and leaves every other request to the SDK', async () => {
    await writeFile(join(dir, 'direct.txt'), 'alpha\nbeta\n')
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    }
    const post = (message: unknown) => rawPost(server.url, JSON.stringify(message), headers)
    const read = {
      jsonrpc: '2.0',
      id: 'r1',
      method: 'tools/call',
      params: { name: 'read_file', arguments: { path: 'direct.txt' } },
    }
    const direct = await post(read)
    expect(direct.status).toBe(200)
    expect(JSON.parse(direct.body)).toMatchObject({
      id: 'r1',
      result: { structuredContent: { path: 'direct.txt' } },
    })
    // The SDK's own answers: a listing, a notification, a body that is not JSON.
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })
    expect(list.status).toBe(200)
    expect(list.body).toContain('"edit_file"')
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' })
    expect(note.status).toBe(202)
    const broken = await rawPost(server.url, '{"jsonrpc":', headers)
    expect(broken.status).toBe(400)
    expect(JSON.parse(broken.body)).toMatchObject({ error: { code: -32700 } })
    // Without an Accept for SSE the SDK refuses it (406), direct leg or not.
    const accept = await rawPost(server.url, JSON.stringify(read), {
      ...headers,
      accept: 'application/json',
    })
    expect(accept.status).toBe(406)
  })

  it('answers 429 past the requests in flight allowed per client', async () => {
    const limited = await startHttpServer(['--root', dir, '--max-in-flight', '1'])
    try {
      const { request } = await import('node:http')
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-patchloom-agent': 'busy-agent',
        'content-length': String(Buffer.byteLength(body)),
      }
      // The first request is in flight until its body is finished. With `Expect: 100-continue`
      // its headers go out at once and node:http answers 100 Continue just before it calls the
      // server's handler, which counts the request synchronously: once the client sees the 100,
      // any later request is handled after that count.
      let firstStatus = 0
      const first = request(limited.url, {
        method: 'POST',
        headers: { ...headers, expect: '100-continue' },
      })
      const answered = new Promise<void>((resolve) =>
        first.on('response', (res) => {
          firstStatus = res.statusCode ?? 0
          res.resume()
          res.on('end', resolve)
        }),
      )
      const counted = new Promise<void>((resolve, reject) => {
        first.once('continue', resolve)
        first.once('error', reject)
      })
      first.write(body.slice(0, 10))
      await counted
      const second = await rawPost(limited.url, body, headers)
      expect(second.status).toBe(429)
      const other = await rawPost(limited.url, body, { ...headers, 'x-patchloom-agent': 'another' })
      expect(other.status).toBe(200)
      first.end(body.slice(10))
      await answered
      expect(firstStatus).toBe(200)
    } finally {
      await limited.stop()
    }
  })

  it('refuses a body over the size limit', async () => {
    const small = await startHttpServer(['--root', dir, '--max-body-bytes', '1000'])
    try {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { pad: 'x'.repeat(2000) },
      })
      const res = await rawPost(small.url, body, {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      })
      expect(res.status).toBe(413)
    } finally {
      await small.stop()
    }
  })
})

describe.skipIf(!BUILT)('HTTP bearer tokens (needs npm run build)', () => {
  it('requires the token, and binds a token to its agent and workspace', async () => {
    const app = await workspace('token-app')
    const other = await workspace('token-other')
    const tokens = join(root, 'tokens')
    await writeFile(
      tokens,
      '# test tokens\nfarm-token-0123456789 agent=farm workspace=app\nadmin-token-0123456789\n',
    )
    const server = await startHttpServer([
      '--workspace',
      `app=${app}`,
      '--workspace',
      `other=${other}`,
      '--token-file',
      tokens,
    ])
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      }
      const none = await rawPost(server.url, body, headers)
      expect(none.status).toBe(401)
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/)
      const wrong = await rawPost(server.url, body, {
        ...headers,
        authorization: 'Bearer nope-nope-nope-nope',
      })
      expect(wrong.status).toBe(401)

      const farm = await httpClient(server.url, 'modern', {
        authorization: 'Bearer farm-token-0123456789',
      })
      const admin = await httpClient(server.url, 'legacy', {
        authorization: 'Bearer admin-token-0123456789',
      })
      try {
        // Bound to app: no workspace argument needed, and other is off limits.
        const read = await callTool(farm, 'read_file', { path: 'a.txt' })
        expect(read.isError).toBe(false)
        const denied = await callTool(farm, 'read_file', { path: 'a.txt', workspace: 'other' })
        expect(denied.structured['error']).toMatchObject({ code: 'SERVER_WORKSPACE_UNKNOWN' })
        // Unbound: must name one of the two.
        const unnamed = await callTool(admin, 'read_file', { path: 'a.txt' })
        expect(unnamed.structured['error']).toMatchObject({ code: 'SERVER_WORKSPACE_UNKNOWN' })
        const named = await callTool(admin, 'read_file', { path: 'a.txt', workspace: 'other' })
        expect(named.isError).toBe(false)
      } finally {
        await Promise.all([farm.close(), admin.close()])
      }
    } finally {
      await server.stop()
    }
  })

  it('will not bind beyond loopback without a token', async () => {
    const dir = await workspace('no-token')
    const run = await runCli(['serve', '--http', '0.0.0.0:0', '--root', dir], {
      env: { PATCHLOOM_TOKEN: '' },
    })
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/CONFIG_INVALID.*needs a bearer token/s)
  })
})

describe.skipIf(!BUILT)('shutdown (needs npm run build)', () => {
  it('drains the request in flight on SIGTERM, then exits 0', async () => {
    const dir = await workspace('drain')
    const server = await startHttpServer(['--root', dir])
    const client = await httpClient(server.url, 'legacy', { 'x-patchloom-agent': 'drain' })
    await callTool(client, 'read_file', { path: 'a.txt' })
    const edit = callTool(client, 'edit_file', {
      path: 'a.txt',
      old_string: 'line 1\n',
      new_string: 'A\n',
    })
    // The request is on its way; stop the server while it is served.
    await new Promise((r) => setTimeout(r, 5))
    server.child.kill('SIGTERM')
    const out = await edit.catch((error: unknown) => ({
      isError: true,
      structured: {},
      text: String(error),
    }))
    const code = await server.stop()
    expect(code).toBe(0)
    expect(server.stderr()).toMatch(/SIGTERM: draining/)
    // Either it was served before the stop (and is on disk) or refused whole: never half-written.
    const text = await readFile(join(dir, 'a.txt'), 'utf8')
    if (out.isError) expect(text).toBe(lines(20))
    else expect(text).toBe(lines(20).replace('line 1\n', 'A\n'))
    await client.close().catch(() => undefined)
  })
})

async function rawPost(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{
  status: number
  body: string
  headers: Record<string, string | string[] | undefined>
}> {
  const { request } = await import('node:http')
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = ''
        res.on('data', (c: Buffer) => (text += c.toString()))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }),
        )
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}
