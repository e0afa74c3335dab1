// `patchloom mcp`, `patchloom serve --http` and `patchloom tools`: argv, read against
// SERVER_FLAGS (flag-table.ts), -> a running server or the tool list; SERVER_USAGE below is the
// accepted syntax. Loaded by the CLI only for these commands, so one-shot commands never load the
// SDK; the one file of cli/ that imports server/. Servers log to stderr, one line per event
// (log-lines.ts); `serve` also counts what /metrics serves (metrics.ts).
import { resolve } from 'node:path'
import { EditError } from '../../errors.js'
import type { Durability } from '../../journal/records.js'
import { ok, type Result } from '../../result.js'
import { AGENT_NAME, loadTokenFile, singleToken, type TokenTable } from '../../server/auth.js'
import { startHttp } from '../../server/http.js'
import { LineLog, type LogFormat } from '../../server/log-lines.js'
import { createMcpServer, type CallerOf } from '../../server/mcp.js'
import { ServerMetrics } from '../../server/metrics.js'
import { allOf } from '../../server/observe.js'
import { EditService, type ServiceOptions } from '../../server/service.js'
import { toolJson } from '../../server/tool-json.js'
import { TOOLS } from '../../server/tools.js'
import { KNOWN_FLAGS, SERVER_FLAGS, type RootFlag } from '../flag-table.js'
import { needs, readFlags, unexpectedArgument, usageFailure, type FlagValues } from '../flags.js'

export interface ServerIo {
  readonly stdout: (s: string) => void
  readonly stderr: (s: string) => void
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
}

interface ServerCommand {
  readonly kind: 'mcp' | 'serve' | 'tools'
  readonly roots: RootFlag[]
  readonly agent?: string
  readonly http?: { host: string; port: number }
  readonly tokenFile?: string
  readonly allowHosts: string[]
  readonly maxBodyBytes?: number
  readonly maxInFlight?: number
  readonly readBeforeWrite: boolean
  readonly durability: Durability
  readonly diagnostics: boolean
  readonly json: boolean
  readonly logFormat: LogFormat
}

export const SERVER_USAGE = `  patchloom mcp [--root DIR]... [--workspace NAME=DIR]... [--agent NAME] [SERVER FLAGS]
  patchloom serve --http [HOST:]PORT [--root DIR]... [--workspace NAME=DIR]...
                  [--token-file FILE] [--allow-host NAME]... [--max-body-bytes N]
                  [--max-in-flight N] [SERVER FLAGS]
  patchloom tools [--json]
  SERVER FLAGS: [--no-read-before-write] [--durability full|fast] [--diagnostics]
                [--log-format json|text]`

export function parseServerArgs(argv: readonly string[]): Result<ServerCommand> {
  const [kind, ...rest] = argv
  if (kind !== 'mcp' && kind !== 'serve' && kind !== 'tools') {
    return usageFailure(`Unknown server command ${String(kind)}.`)
  }
  const usage = `Usage:\n${SERVER_USAGE}`
  const read = readFlags(rest, SERVER_FLAGS[kind], {
    command: kind,
    known: KNOWN_FLAGS,
    repeats: 'last',
    positional: (arg) => unexpectedArgument(arg, `${kind} takes no arguments`),
    usage,
  })
  if (!read.ok) return read
  // One table per command; the fields a command does not have read as absent.
  const flags: Partial<FlagValues<(typeof SERVER_FLAGS)['mcp']>> &
    Partial<FlagValues<(typeof SERVER_FLAGS)['serve']>> &
    Partial<FlagValues<(typeof SERVER_FLAGS)['tools']>> = read.value.values
  const agent = flags['--agent']
  if (agent !== undefined && !AGENT_NAME.test(agent))
    return usageFailure(needs('--agent', 'a name of letters, digits and . _ : @ / -', agent), usage)
  if (kind === 'serve' && flags['--http'] === undefined)
    return usageFailure('serve needs --http [HOST:]PORT.', usage)
  return ok({
    kind,
    roots: [...(flags['--root'] ?? [])],
    ...(agent === undefined ? {} : { agent }),
    ...(flags['--http'] === undefined ? {} : { http: flags['--http'] }),
    ...(flags['--token-file'] === undefined ? {} : { tokenFile: flags['--token-file'] }),
    allowHosts: [...(flags['--allow-host'] ?? [])],
    ...(flags['--max-body-bytes'] === undefined ? {} : { maxBodyBytes: flags['--max-body-bytes'] }),
    ...(flags['--max-in-flight'] === undefined ? {} : { maxInFlight: flags['--max-in-flight'] }),
    readBeforeWrite: flags['--no-read-before-write'] !== true,
    durability: flags['--durability'] ?? 'full',
    diagnostics: flags['--diagnostics'] === true,
    json: flags['--json'] === true,
    logFormat: flags['--log-format'] ?? 'json',
  })
}

/** Runs a server command; resolves with the exit status once the server has stopped. */
export async function runServerCommand(
  argv: readonly string[],
  io: ServerIo,
  version: string,
): Promise<number> {
  const parsed = parseServerArgs(argv)
  if (!parsed.ok) throw EditError.fromData(parsed.error)
  const command = parsed.value
  if (command.kind === 'tools') {
    if (command.json) io.stdout(`${JSON.stringify(toolJson(), null, 2)}\n`)
    else for (const tool of TOOLS) io.stdout(`${tool.name}: ${tool.description}\n`)
    return 0
  }
  const roots = command.roots.length > 0 ? command.roots : [{ root: io.cwd }]
  const lines = new LineLog(command.logFormat, io.stderr)
  const metrics = command.kind === 'serve' ? new ServerMetrics() : undefined
  const options: ServiceOptions = {
    workspaces: roots.map((r) => ({ ...r, root: resolve(io.cwd, r.root) })),
    readBeforeWrite: command.readBeforeWrite,
    durability: command.durability,
    diagnostics: command.diagnostics,
    observer: metrics === undefined ? lines : allOf(metrics, lines),
  }
  const tokens = await tokensOf(command, io)
  const service = await EditService.open(options)
  metrics?.watch(() => service.snapshot())
  const names = service.workspaces.map((w) => `${w.name}=${w.root}`).join(', ')
  for (const w of service.workspaces) {
    const { rolledBack, conflicts } = w.recovery
    lines.event(
      'info',
      'workspace.recovered',
      rolledBack.length > 0
        ? `${w.name}: rolled back interrupted transactions ${rolledBack.join(', ')}`
        : `${w.name}: opened ${w.root}, nothing to recover`,
      { workspace: w.name, root: w.root, rolled_back: rolledBack, conflicts: conflicts.length },
    )
    // Refused (not written here, untrusted) or left in conflict: `patchloom recover` explains.
    for (const c of conflicts) {
      lines.event(
        'warn',
        'workspace.not_recovered',
        `${w.name}: transaction ${c.transaction} not recovered (${c.code ?? 'conflict'}, ${c.path}): ${c.reason}`,
        { workspace: w.name, transaction: c.transaction, code: c.code ?? 'conflict' },
      )
    }
  }
  const onError = (error: Error): void =>
    lines.event('error', 'server.error', `error: ${error.message}`)
  let stop: () => Promise<void>
  let stopped: Promise<void>
  if (command.kind === 'mcp') {
    const agent = command.agent ?? 'stdio'
    const callerOf: CallerOf = () => ({ agent })
    const { serveStdio } = await import('@modelcontextprotocol/server/stdio')
    let ended!: () => void
    stopped = new Promise((r) => (ended = r))
    const handle = serveStdio(() => createMcpServer({ service, version, callerOf }), {
      onerror: onError,
    })
    process.stdin.once('end', () => ended())
    process.stdin.once('close', () => ended())
    stop = async () => {
      await handle.close()
    }
    lines.event('info', 'server.started', `serving MCP on stdio (workspaces: ${names})`, {
      transport: 'stdio',
      workspaces: service.workspaces.map((w) => w.name),
    })
  } else {
    const http = command.http as { host: string; port: number }
    const callerOf: CallerOf = (extra) => ({
      agent: typeof extra?.['agent'] === 'string' ? extra['agent'] : 'anonymous',
      ...(typeof extra?.['workspace'] === 'string' ? { workspace: extra['workspace'] } : {}),
      ...(typeof extra?.['requestId'] === 'string' ? { requestId: extra['requestId'] } : {}),
    })
    const running = await startHttp({
      host: http.host,
      port: http.port,
      ...(tokens === undefined ? {} : { tokens }),
      allowedHosts: command.allowHosts,
      ...(command.maxBodyBytes === undefined ? {} : { maxBodyBytes: command.maxBodyBytes }),
      ...(command.maxInFlight === undefined ? {} : { maxInFlightPerClient: command.maxInFlight }),
      factory: () => createMcpServer({ service, version, callerOf }),
      onError,
      ...(metrics === undefined ? {} : { metrics }),
      readiness: () => service.readiness(),
    }).catch(async (error: unknown) => {
      await service.close()
      throw error
    })
    stopped = new Promise(() => undefined)
    stop = () => running.close(() => service.close())
    // The URL on its own line, so scripts (and tests) can read where the server is.
    io.stdout(`${running.url}\n`)
    lines.event(
      'info',
      'server.started',
      `serving MCP over HTTP at ${running.url} (workspaces: ${names}${tokens === undefined ? '' : '; bearer token required'})`,
      {
        transport: 'http',
        url: running.url,
        workspaces: service.workspaces.map((w) => w.name),
        token: tokens !== undefined,
      },
    )
  }
  const signalled = new Promise<string>((resolveSignal) => {
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => resolveSignal(sig))
  })
  const why = await Promise.race([signalled, stopped.then(() => 'end of input')])
  lines.event('info', 'server.draining', `${why}: draining requests in flight, then stopping`, {
    reason: why,
  })
  await stop()
  await service.close()
  lines.event('info', 'server.stopped', 'stopped')
  return 0
}

async function tokensOf(command: ServerCommand, io: ServerIo): Promise<TokenTable | undefined> {
  if (command.tokenFile !== undefined) return loadTokenFile(resolve(io.cwd, command.tokenFile))
  const env = io.env['PATCHLOOM_TOKEN']
  return env === undefined || env === '' ? undefined : singleToken(env)
}
