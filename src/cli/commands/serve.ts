// `patchloom mcp`, `patchloom serve --http` and `patchloom tools` (#11): argv -> a running
// server. Loaded by the CLI only for these commands, so one-shot commands never load the SDK.
//
//   patchloom mcp [--root DIR]... [--workspace NAME=DIR]... [--agent NAME] [SERVER FLAGS]
//   patchloom serve --http [HOST:]PORT [--root DIR]... [--workspace NAME=DIR]...
//                   [--token-file FILE] [--allow-host NAME]... [--max-body-bytes N]
//                   [--max-in-flight N] [SERVER FLAGS]
//   patchloom tools [--json]
//   SERVER FLAGS: [--no-read-before-write] [--durability full|fast] [--diagnostics]
import { resolve } from 'node:path'
import { EditError, errorData } from '../../errors.js'
import type { Durability } from '../../journal/records.js'
import { fail, ok, type Result } from '../../result.js'
import { AGENT_NAME, loadTokenFile, singleToken, type TokenTable } from '../../server/auth.js'
import { startHttp } from '../../server/http.js'
import { createMcpServer, type CallerOf } from '../../server/mcp.js'
import { EditService, type ServiceOptions } from '../../server/service.js'
import { toolJson } from '../../server/tool-json.js'
import { TOOLS } from '../../server/tools.js'

export interface ServerIo {
  readonly stdout: (s: string) => void
  readonly stderr: (s: string) => void
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
}

interface ServerCommand {
  readonly kind: 'mcp' | 'serve' | 'tools'
  readonly roots: { root: string; name?: string }[]
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
    return fail(errorData('USAGE_INVALID', `Unknown server command ${String(kind)}.`))
  }
  const command = {
    kind,
    roots: [] as { root: string; name?: string }[],
    allowHosts: [] as string[],
    readBeforeWrite: true,
    durability: 'full' as Durability,
    diagnostics: false,
    json: false,
  } as { -readonly [K in keyof ServerCommand]: ServerCommand[K] }
  const usage = (message: string): Result<never> =>
    fail(errorData('USAGE_INVALID', `${message}\nUsage:\n${SERVER_USAGE}`))
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined]
    const value = (): string | undefined => inline ?? rest[++i]
    const allowed = (...kinds: ServerCommand['kind'][]): boolean => kinds.includes(kind)
    switch (flag) {
      case '--root': {
        const v = value()
        if (v === undefined || !allowed('mcp', 'serve'))
          return usage(`${flag} needs a directory (mcp, serve).`)
        command.roots.push({ root: v })
        break
      }
      case '--workspace': {
        const v = value()
        const eq = v?.indexOf('=') ?? -1
        if (v === undefined || eq <= 0 || !allowed('mcp', 'serve'))
          return usage('--workspace takes NAME=DIR.')
        command.roots.push({ name: v.slice(0, eq), root: v.slice(eq + 1) })
        break
      }
      case '--agent': {
        const v = value()
        if (v === undefined || !AGENT_NAME.test(v) || !allowed('mcp'))
          return usage('--agent takes a name of letters, digits and . _ : @ / - (mcp only).')
        command.agent = v
        break
      }
      case '--http': {
        const v = value()
        const m = v === undefined ? null : /^(?:(.+):)?(\d{1,5})$/.exec(v)
        if (m === null || !allowed('serve')) return usage('--http takes [HOST:]PORT (serve only).')
        const port = Number(m[2])
        if (port > 65535) return usage(`--http: port ${port} is out of range.`)
        const host = (m[1] ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1')
        command.http = { host, port }
        break
      }
      case '--token-file': {
        const v = value()
        if (v === undefined || !allowed('serve'))
          return usage('--token-file takes a file (serve only).')
        command.tokenFile = v
        break
      }
      case '--allow-host': {
        const v = value()
        if (v === undefined || !allowed('serve'))
          return usage('--allow-host takes a host name (serve only).')
        command.allowHosts.push(v)
        break
      }
      case '--max-body-bytes': {
        const v = Number(value())
        if (!Number.isInteger(v) || v <= 0 || !allowed('serve'))
          return usage('--max-body-bytes takes a positive integer (serve only).')
        command.maxBodyBytes = v
        break
      }
      case '--max-in-flight': {
        const v = Number(value())
        if (!Number.isInteger(v) || v <= 0 || !allowed('serve'))
          return usage('--max-in-flight takes a positive integer (serve only).')
        command.maxInFlight = v
        break
      }
      case '--no-read-before-write':
        if (!allowed('mcp', 'serve')) return usage(`${flag} applies to mcp and serve.`)
        command.readBeforeWrite = false
        break
      case '--durability': {
        const v = value()
        if ((v !== 'full' && v !== 'fast') || !allowed('mcp', 'serve'))
          return usage('--durability takes full or fast.')
        command.durability = v
        break
      }
      case '--diagnostics':
        if (!allowed('mcp', 'serve')) return usage(`${flag} applies to mcp and serve.`)
        command.diagnostics = true
        break
      case '--json':
        if (!allowed('tools')) return usage('--json applies to tools.')
        command.json = true
        break
      default:
        return usage(`Unknown argument ${JSON.stringify(arg)}.`)
    }
  }
  if (kind === 'serve' && command.http === undefined)
    return usage('serve needs --http [HOST:]PORT.')
  return ok(command)
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
