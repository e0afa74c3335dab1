// `patchloom mcp`, `patchloom serve --http` and `patchloom tools`: argv, read against
// SERVER_FLAGS (flag-table.ts), -> a running server or the tool list; SERVER_USAGE below is the
// accepted syntax. Loaded by the CLI only for these commands, so one-shot commands never load the
// SDK; the one file of cli/ that imports server/.
import { resolve } from 'node:path'
import { EditError } from '../../errors.js'
import type { Durability } from '../../journal/records.js'
import { ok, type Result } from '../../result.js'
import { AGENT_NAME, loadTokenFile, singleToken, type TokenTable } from '../../server/auth.js'
import { startHttp } from '../../server/http.js'
import { createMcpServer, type CallerOf } from '../../server/mcp.js'
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
}

export const SERVER_USAGE = `  patchloom mcp [--root DIR]... [--workspace NAME=DIR]... [--agent NAME] [SERVER FLAGS]
  patchloom serve --http [HOST:]PORT [--root DIR]... [--workspace NAME=DIR]...
                  [--token-file FILE] [--allow-host NAME]... [--max-body-bytes N]
                  [--max-in-flight N] [SERVER FLAGS]
  patchloom tools [--json]
  SERVER FLAGS: [--no-read-before-write] [--durability full|fast] [--diagnostics]`

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
  const options: ServiceOptions = {
    workspaces: roots.map((r) => ({ ...r, root: resolve(io.cwd, r.root) })),
    readBeforeWrite: command.readBeforeWrite,
    durability: command.durability,
    diagnostics: command.diagnostics,
  }
  const tokens = await tokensOf(command, io)
  const service = await EditService.open(options)
  const names = service.workspaces.map((w) => `${w.name}=${w.root}`).join(', ')
  const log = (message: string): void => io.stderr(`patchloom: ${message}\n`)
  for (const w of service.workspaces) {
    const { rolledBack, conflicts } = w.recovery
    if (rolledBack.length > 0)
      log(`${w.name}: rolled back interrupted transactions ${rolledBack.join(', ')}`)
    // Refused (not written here, untrusted) or left in conflict: `patchloom recover` explains.
    for (const c of conflicts) {
      log(
        `${w.name}: transaction ${c.transaction} not recovered (${c.code ?? 'conflict'}, ${c.path}): ${c.reason}`,
      )
    }
  }
  const onError = (error: Error): void => log(`error: ${error.message}`)
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
    log(`serving MCP on stdio (workspaces: ${names})`)
  } else {
    const http = command.http as { host: string; port: number }
    const callerOf: CallerOf = (extra) => ({
      agent: typeof extra?.['agent'] === 'string' ? extra['agent'] : 'anonymous',
      ...(typeof extra?.['workspace'] === 'string' ? { workspace: extra['workspace'] } : {}),
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
    }).catch(async (error: unknown) => {
      await service.close()
      throw error
    })
    stopped = new Promise(() => undefined)
    stop = () => running.close(() => service.close())
    // The URL on its own line, so scripts (and tests) can read where the server is.
    io.stdout(`${running.url}\n`)
    log(
      `serving MCP over HTTP at ${running.url} (workspaces: ${names}${tokens === undefined ? '' : '; bearer token required'})`,
    )
  }
  const signalled = new Promise<string>((resolveSignal) => {
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => resolveSignal(sig))
  })
  const why = await Promise.race([signalled, stopped.then(() => 'end of input')])
  log(`${why}: draining requests in flight, then stopping`)
  await stop()
  await service.close()
  log('stopped')
  return 0
}

async function tokensOf(command: ServerCommand, io: ServerIo): Promise<TokenTable | undefined> {
  if (command.tokenFile !== undefined) return loadTokenFile(resolve(io.cwd, command.tokenFile))
  const env = io.env['PATCHLOOM_TOKEN']
  return env === undefined || env === '' ? undefined : singleToken(env)
}
