// The real patchloom MCP server as a test drives it: the built CLI in a child process, reached
// through the official SDK client over stdio or Streamable HTTP, in either protocol era.
import { spawn, type ChildProcess } from 'node:child_process'
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
} from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { CLI_BIN } from './run-cli.js'

export type Era = 'legacy' | 'modern'

/** The 2026-07-28 revision the modern era pins; the legacy era runs the 2025 `initialize`. */
export const MODERN_REVISION = '2026-07-28'

function clientFor(era: Era): Client {
  return new Client(
    { name: 'patchloom-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_REVISION } } } : {},
  )
}

/** A client connected to `patchloom mcp ...args` over stdio. */
export async function stdioClient(args: readonly string[], era: Era = 'legacy'): Promise<Client> {
  const client = clientFor(era)
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI_BIN, 'mcp', ...args],
      stderr: 'pipe',
      // The whole environment (the SDK passes only a safe subset by default): the journal's key
      // lives where PATCHLOOM_STATE_DIR says, as for every other process of the test.
      env: Object.fromEntries(
        Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
      ),
    }),
  )
  return client
}

export interface HttpServer {
  readonly url: string
  readonly child: ChildProcess
  /** Everything the server wrote to stderr so far. */
  stderr(): string
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>
}

/** Starts `patchloom serve --http 127.0.0.1:0 ...args` and waits for its URL. */
export async function startHttpServer(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<HttpServer> {
  const child = spawn(process.execPath, [CLI_BIN, 'serve', '--http', '127.0.0.1:0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  })
  let err = ''
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()))
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  )
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split('\n')[0]
      if (out.includes('\n') && line !== undefined) resolve(line.trim())
    })
    void exited.then((code) =>
      reject(new Error(`server exited (${code}) before listening:\n${err}`)),
    )
  })
  return {
    url,
    child,
    stderr: () => err,
    stop: async () => {
      // Once only: a second SIGTERM during the drain would kill the process outright.
      if (child.exitCode === null && child.signalCode === null && !child.killed)
        child.kill('SIGTERM')
      return exited
    },
  }
}

/** A client connected to the HTTP server, with extra request headers (agent, token). */
export async function httpClient(
  url: string,
  era: Era = 'legacy',
  headers: Readonly<Record<string, string>> = {},
): Promise<Client> {
  const client = clientFor(era)
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  )
  return client
}

/** A tool call's structured content and text, and whether it failed. */
export interface CallOut {
  readonly isError: boolean
  readonly structured: Record<string, any>
  readonly text: string
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallOut> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  const first = result.content[0]
  return {
    isError: result.isError === true,
    structured: (result.structuredContent ?? {}) as Record<string, any>,
    text: first?.type === 'text' ? first.text : '',
  }
}
