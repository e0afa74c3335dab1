// Turns an adapter's CommandSource list into one runnable command, or a message naming every
// command it looked for. 'npm' sources resolve a bin of a dependency of patchloom itself and run
// JS bins with process.execPath (no shell, no PATH); 'path' sources search the project's
// node_modules/.bin (nearest ancestor first, as npm puts hoisted bins at the monorepo root) and
// then each absolute PATH directory. It only looks at the file system: it never spawns a server
// to probe it, so a file that is executable but broken (a rustup proxy without the component)
// resolves here and fails later in the session with LSP_START_FAILED.
import {
  accessSync,
  closeSync,
  constants,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { delimiter, dirname, extname, isAbsolute, join, resolve } from 'node:path'
import type { CommandCondition, CommandSource, LspAdapter } from './adapter.js'
import type { ServerCommand } from './session-types.js'

export interface ResolveCommandOptions {
  /** Absolute project root: where node_modules/.bin and project packages are looked for. */
  readonly projectRoot: string
  /** Environment whose PATH (and PATHEXT on Windows) is searched. @default process.env */
  readonly env?: NodeJS.ProcessEnv
}

export type ResolvedCommand =
  | {
      readonly ok: true
      readonly command: ServerCommand
      /** The adapter's entry that resolved, so callers can tell the servers of one adapter apart. */
      readonly source: CommandSource
    }
  | {
      readonly ok: false
      /** One entry per command looked for, e.g. `'rust-analyzer' on PATH`. */
      readonly lookedFor: readonly string[]
      /** One sentence naming the server and every command looked for. */
      readonly message: string
    }

const requireFromHere = createRequire(import.meta.url)
const JS_EXTENSIONS = new Set(['.js', '.mjs', '.cjs'])

/**
 * The first of `adapter.commands` that exists here, as a command to spawn without a shell.
 * @example
 * const found = resolveCommand(pyrightAdapter, { projectRoot: '/repo' })
 * if (found.ok) spawn(found.command.command, [...found.command.args])
 */
export function resolveCommand(adapter: LspAdapter, opts: ResolveCommandOptions): ResolvedCommand {
  const env = opts.env ?? process.env
  const projectRoot = resolve(opts.projectRoot)
  const lookedFor: string[] = []
  const skipped: string[] = []
  for (const source of adapter.commands) {
    if (source.when !== undefined && !conditionHolds(source.when, projectRoot)) {
      skipped.push(`${describeSource(source)} (${describeCondition(source.when)} does not hold)`)
      continue
    }
    lookedFor.push(describeSource(source))
    const command =
      source.kind === 'npm' ? resolveNpmBin(source) : resolvePathCommand(source, projectRoot, env)
    if (command !== undefined) return { ok: true, command, source }
  }
  const tail = skipped.length === 0 ? '' : `; skipped ${skipped.join('; ')}`
  const looked =
    lookedFor.length === 0 ? 'no command applies' : `looked for ${lookedFor.join('; ')}`
  return {
    ok: false,
    lookedFor,
    message: `No ${adapter.name} language server was found: ${looked}${tail}.`,
  }
}

/**
 * How to run a bin file: JS files (by extension or a node shebang) through this Node, so that
 * neither a shell nor `node` on PATH is needed; anything else directly.
 */
export function binCommand(file: string, args: readonly string[]): ServerCommand {
  return isJsFile(file)
    ? { command: process.execPath, args: [file, ...args] }
    : { command: file, args: [...args] }
}

function describeSource(source: CommandSource): string {
  if (source.kind === 'npm') return `'${source.bin}' from npm package '${source.packageName}'`
  const where = source.projectBin === true ? "the project's node_modules/.bin, then PATH" : 'PATH'
  return `'${source.command}' on ${where}`
}

function describeCondition(condition: CommandCondition): string {
  return `project's own ${condition.packageName} below major ${condition.majorBelow}`
}

function resolveNpmBin(source: Extract<CommandSource, { kind: 'npm' }>): ServerCommand | undefined {
  let manifestPath: string
  try {
    manifestPath = requireFromHere.resolve(`${source.packageName}/package.json`)
  } catch {
    return undefined
  }
  const manifest = readJson(manifestPath)
  const binField = manifest?.['bin']
  const rel =
    typeof binField === 'string'
      ? binField
      : typeof binField === 'object' && binField !== null
        ? (binField as Record<string, unknown>)[source.bin]
        : undefined
  if (typeof rel !== 'string') return undefined
  const file = resolve(dirname(manifestPath), rel)
  if (!isFile(file)) return undefined
  // A JS bin runs through process.execPath; anything else must be executable itself.
  if (!isJsFile(file) && !isExecutableFile(file)) return undefined
  return binCommand(file, source.args)
}

function resolvePathCommand(
  source: Extract<CommandSource, { kind: 'path' }>,
  projectRoot: string,
  env: NodeJS.ProcessEnv,
): ServerCommand | undefined {
  const dirs = [
    ...(source.projectBin === true
      ? ancestors(projectRoot).map((d) => join(d, 'node_modules', '.bin'))
      : []),
    ...pathDirectories(env),
  ]
  const names = candidateNames(source.command, env)
  for (const dir of dirs) {
    for (const name of names) {
      const file = join(dir, name)
      if (isExecutableFile(file)) return binCommand(file, source.args)
    }
  }
  return undefined
}

/** Absolute PATH entries only: an empty or relative entry would depend on the current directory. */
function pathDirectories(env: NodeJS.ProcessEnv): string[] {
  const raw = env['PATH'] ?? env['Path'] ?? ''
  return raw.split(delimiter).filter((d) => d.length > 0 && isAbsolute(d))
}

function candidateNames(command: string, env: NodeJS.ProcessEnv): string[] {
  if (process.platform !== 'win32') return [command]
  const exts = (env['PATHEXT'] ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((e) => e.length > 0)
  return [command, ...exts.map((e) => command + e.toLowerCase())]
}

function conditionHolds(condition: CommandCondition, projectRoot: string): boolean {
  for (const dir of ancestors(projectRoot)) {
    const manifest = readJson(join(dir, 'node_modules', condition.packageName, 'package.json'))
    if (manifest === undefined) continue
    // The nearest copy is the one the project's own tools load; it decides, even if unreadable.
    const version = manifest['version']
    const major = typeof version === 'string' ? Number.parseInt(version, 10) : Number.NaN
    return Number.isInteger(major) && major < condition.majorBelow
  }
  return false
}

/** `dir` and each parent up to the file-system root, nearest first. */
function ancestors(dir: string): string[] {
  const out: string[] = []
  for (let d = resolve(dir); ; d = dirname(d)) {
    out.push(d)
    if (dirname(d) === d) return out
  }
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'))
    return typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile()
  } catch {
    return false
  }
}

function isExecutableFile(file: string): boolean {
  if (!isFile(file)) return false
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function isJsFile(file: string): boolean {
  if (JS_EXTENSIONS.has(extname(file).toLowerCase())) return true
  // npm bins are often extension-less scripts (node_modules/typescript/bin/tsc): read the shebang.
  let fd: number | undefined
  try {
    fd = openSync(file, 'r')
    const head = Buffer.alloc(128)
    const n = readSync(fd, head, 0, head.length, 0)
    const firstLine = head.subarray(0, n).toString('utf8').split('\n', 1)[0] ?? ''
    return firstLine.startsWith('#!') && /\bnode\b/.test(firstLine)
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
