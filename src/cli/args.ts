// Hand-written argv parsing for the `patchloom` command: argv in, a plain command description
// (or a USAGE_INVALID failure) out. No I/O and no defaults that need the environment: the root
// stays null here and main.ts resolves it against the caller's cwd. Accepts `--flag value` and
// `--flag=value`; `--` ends the flags. The journal commands (undo, log, recover) refuse flags
// that belong to apply, so `undo --dry-run` cannot silently undo for real.
import { errorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import type { FormatOption } from '../types.js'
import type { LimitOptions } from '../engine/api.js'
import type { Durability } from '../journal/records.js'
import { FORMAT_OPTIONS } from '../defaults.js'
import { parseReplayArgs, type ReplayCommand } from './replay-args.js'

export { FORMAT_OPTIONS }

export interface RunCommand {
  readonly kind: 'apply' | 'check'
  /** Patch file path as given (relative to cwd), or null for stdin ('-' or absent). */
  readonly file: string | null
  /** --root as given, or null for the cwd. */
  readonly root: string | null
  readonly format: FormatOption
  /** Always true for `check`. */
  readonly dryRun: boolean
  readonly json: boolean
  /**
   * auto: this thread, as a one-shot run verifies fastest (D-074); always (--workers): on the
   * worker pool whatever the size; never (--no-workers): no pool at all.
   */
  readonly workers: 'auto' | 'always' | 'never'
  /** `check --parse-only`: parse and summarize, read no workspace files. */
  readonly parseOnly: boolean
  /** --deny GLOB (repeatable): extra paths to refuse, on top of the default .git rules. */
  readonly deny: readonly string[]
  /** apply --diagnostics: language-server diagnostics for the applied change. */
  readonly diagnostics: boolean
  /** --max-patch-bytes, --max-file-bytes, --max-files; absent keys keep the engine defaults. */
  readonly limits: LimitOptions
  /** --durability: whether the commit fsyncs (full, the default) or not (fast). */
  readonly durability: Durability
}

/** `patchloom recover`: roll back interrupted transactions, retry earlier conflicts. */
export interface RecoverCommand {
  readonly kind: 'recover'
  readonly root: string | null
  readonly json: boolean
}

/** `patchloom undo [TXN]`: restore a committed transaction's before state. */
export interface UndoCommand {
  readonly kind: 'undo'
  /** The transaction id as given, or null for the newest change not yet undone. */
  readonly transaction: string | null
  readonly root: string | null
  readonly json: boolean
  readonly durability: Durability
}

/** `patchloom log`: the workspace journal, newest first. */
export interface LogCommand {
  readonly kind: 'log'
  readonly root: string | null
  readonly json: boolean
  /** -n / --limit: at most this many transactions. */
  readonly limit: number
}

/** `patchloom diagnostics FILE...`: a standalone language-server check. */
export interface DiagnosticsCommand {
  readonly kind: 'diagnostics'
  readonly files: readonly string[]
  readonly root: string | null
  readonly json: boolean
}

export type CliCommand =
  | ReplayCommand
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'demo' }
  | DiagnosticsCommand
  | RecoverCommand
  | UndoCommand
  | LogCommand
  | RunCommand

/** Transactions `patchloom log` shows without -n. */
export const DEFAULT_LOG_LIMIT = 20

export const HELP_TEXT = `patchloom: verify and apply a patch to a workspace, all or nothing.

Usage:
  patchloom apply [FILE|-] [--root DIR] [--format FORMAT] [--dry-run] [--json] [--[no-]workers]
                  [--deny GLOB]... [--max-patch-bytes N] [--max-file-bytes N] [--max-files N]
                  [--durability full|fast]
  patchloom check [FILE|-] [--root DIR] [--format FORMAT] [--parse-only] [--json] [--[no-]workers]
                  [--deny GLOB]... [--max-patch-bytes N] [--max-file-bytes N] [--max-files N]
  patchloom undo [TXN] [--root DIR] [--json] [--durability full|fast]
  patchloom log [--root DIR] [--json] [-n N | --limit N]
  patchloom recover [--root DIR] [--json]
  patchloom diagnostics FILE... [--root DIR] [--json]
  patchloom replay REPO [--range A..B] [--first-parent] [--via unified|codex|search-replace]
                   [--workers N] [--max-commits N] [--out DIR] [--json]
  patchloom replay --queue URL REPO... [--split commits=N] [--range A..B] [--via V]
                   [--attempts N] [--cache DIR] [--run ID] [--timeout SECONDS] [--json]
  patchloom worker --queue URL [--concurrency K] [--name NAME] [--lock-ms MS] [--cache DIR]
  patchloom queue status --queue URL [--json]
  patchloom queue clean --queue URL [--run ID [--cancel]]
  patchloom mcp [--root DIR]... [--workspace NAME=DIR]... [--agent NAME] [SERVER FLAGS]
  patchloom serve --http [HOST:]PORT [--root DIR]... [--workspace NAME=DIR]...
                  [--token-file FILE] [--allow-host NAME]... [--max-body-bytes N] [SERVER FLAGS]
  patchloom tools [--json]
  patchloom demo
  patchloom help | --help | -h
  patchloom --version

Commands:
  apply         Parse, verify and write the change (nothing is written if any part fails).
  check         Same as apply --dry-run: verify and report, write nothing.
  undo          Put back the files a committed change touched (TXN, default: the newest change
                not yet undone), as a change of its own. Refused with UNDO_CONFLICT, writing
                nothing, if any of them has changed since.
  log           Recent changes in the workspace journal (.patchloom/journal), newest first: id,
                time, status, files and +/- lines.
  recover       Roll back changes a crash interrupted (also done automatically before apply and
                undo; check only reports them) and retry earlier conflicts. Transactions this
                workspace did not write are never acted on. Exit 1 while a file is left in
                conflict or a transaction is not acted on.
  diagnostics   Language-server errors in FILE... as they are on disk.
  worker        Take replay ranges from a BullMQ queue on Redis (replay --queue enqueues them,
                split into ranges of about N commits) and replay them; SIGTERM stops it after
                the jobs in hand. URL: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]. A REPO
                given to replay --queue is a path every worker can read, or a file, git,
                http(s) or ssh URL that each worker mirrors into --cache DIR (default
                ~/.cache/patchloom/repos). --timeout S: stop waiting after S seconds (exit 75;
                the run stays queued, and --run ID waits for it again). queue clean --run ID
                removes a finished run; --cancel stops one still going.
  replay        Re-apply a repository's first-parent history (default: HEAD from its root
                commit; --range A..B: the commits after A up to B) through the engine, in
                memory, checking every touched file against git's blob ids and modes. Writes
                nothing to REPO; --out DIR writes the final tree. --via codex|search-replace
                rewrites each diff in that format first and reports refused and misplaced
                hunks. Exit 1 if any file differs or any hunk is misplaced.
  mcp           Serve the edit tools (read_file, edit_file, multi_edit, apply_patch, write_file,
                undo, diagnostics) over MCP on stdin/stdout, for the roots given (default: the
                current directory). See README, "Use it from your agent".
  serve         The same tools over MCP Streamable HTTP at http://HOST:PORT/mcp (HOST defaults
                to 127.0.0.1; any other address needs --token-file or PATCHLOOM_TOKEN).
  tools         List the tools; --json prints their schemas in the MCP, OpenAI and Anthropic
                function-calling shapes.
  demo          Apply one change per format to a scratch workspace in the temp directory.

Options:
  FILE          Patch file; '-' or absent reads the patch from stdin.
  --root DIR    Workspace root every path must stay inside (default: current directory).
  --format F    auto (default), codex, unified, search-replace or edits.
  --dry-run     Verify and report what would change; write nothing.
  --parse-only  (check) Report from the patch alone what it would do; read no files.
  --json        Print exactly one JSON line on stdout.
  --workers     Verify on the worker pool (two threads here) even where this thread is faster:
                a one-shot run of up to 30,000 files measured no faster on the pool, for more CPU.
  --no-workers  Verify in this thread, with no worker pool at all.
  --diagnostics (apply) Report the errors the change introduced and fixed, from language servers.
  --deny GLOB   Also refuse paths matching GLOB (repeatable; .git/ and .patchloom/ are always
                refused).
  --max-patch-bytes N  Refuse a patch over N bytes (default 268435456, 256 MiB).
  --max-file-bytes N   Refuse to read or produce a file over N bytes (default 67108864, 64 MiB).
  --max-files N        Refuse a change to more than N files (default 100000).
  --durability D       (apply, undo) full (default): fsync the commit, so it survives a power
                       cut whole or not at all. fast: no fsync; still all or nothing if the
                       process is killed, but a power cut may lose or partly lose the last change.
  TXN           (undo) A transaction id as printed by apply and log.
  -n, --limit N (log) Show at most N transactions (default 20).
  --max-commits N      (replay) Stop after the first N commits of the range.
  --via V              (replay) unified (default: git's own diff), codex or search-replace.
  --workers N          (replay) Compute commits on N pool workers (default 0: this thread).
  --out DIR            (replay) Write the tree after the last commit into DIR (new or empty).
  --workspace NAME=DIR (mcp, serve) Serve DIR as workspace NAME (repeatable; --root DIR names it
                       after its directory).
  --agent NAME         (mcp) This client's agent name (default stdio).
  --token-file FILE    (serve) Bearer tokens, one per line: TOKEN [agent=NAME] [workspace=NAME].
  --allow-host NAME    (serve) Also accept this Host / Origin name (DNS rebinding protection
                       accepts only loopback names and the bound address otherwise).
  --max-body-bytes N   (serve) Refuse request bodies over N bytes (default 4194304, 4 MiB).
  --max-in-flight N    (serve) Requests in flight per client (token agent, X-Patchloom-Agent or
                       address) before 429 (default 64).
  --no-read-before-write (mcp, serve) Let agents change files they have not read.

Exit status: 0 applied (or would apply; undone; recovered), 1 rejected (or a recover conflict
remains), 64 usage, 70 internal error, 75 retryable (resend unchanged).
`

const COMMANDS = new Set([
  'apply',
  'check',
  'undo',
  'log',
  'recover',
  'diagnostics',
  'demo',
  'help',
  'replay',
])
const COMMAND_LIST =
  'apply, check, undo, log, recover, diagnostics, replay, mcp, serve, tools, demo or help'

/** Flags each journal command accepts; any other flag is a usage error there. */
const JOURNAL_FLAGS: Readonly<Record<string, ReadonlySet<string>>> = {
  undo: new Set(['--root', '--json', '--durability']),
  log: new Set(['--root', '--json', '-n', '--limit']),
  recover: new Set(['--root', '--json']),
}

const DURABILITIES: readonly Durability[] = ['full', 'fast']

const LIMIT_FLAGS: Readonly<Record<string, keyof LimitOptions>> = {
  '--max-patch-bytes': 'maxPatchBytes',
  '--max-file-bytes': 'maxFileBytes',
  '--max-files': 'maxFiles',
}

function usage(message: string): Result<CliCommand> {
  return fail(errorData('USAGE_INVALID', message))
}

/** Parses argv (without node and script). Never throws. */
export function parseArgs(argv: readonly string[]): Result<CliCommand> {
  let command: string | null = null
  let file: string | null = null
  let fileSeen = false
  let transaction: string | null = null
  let root: string | null = null
  let format: FormatOption = 'auto'
  let dryRun = false
  let json = false
  let workers: RunCommand['workers'] = 'auto'
  let parseOnly = false
  let help = false
  let version = false
  let flagsDone = false
  let diagnostics = false
  let durability: Durability | null = null
  let limit: number | null = null
  const deny: string[] = []
  const files: string[] = []
  const flags: string[] = []
  const limits: { -readonly [K in keyof LimitOptions]: number } = {}

  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? ''
    if (!flagsDone && arg === '--') {
      flagsDone = true
      continue
    }
    if (!flagsDone && arg.startsWith('-') && arg !== '-') {
      const eq = arg.indexOf('=')
      const name = arg.startsWith('--') && eq !== -1 ? arg.slice(0, eq) : arg
      const inline = arg.startsWith('--') && eq !== -1 ? arg.slice(eq + 1) : null
      const takesValue =
        name === '--root' ||
        name === '--format' ||
        name === '--deny' ||
        name === '--durability' ||
        name === '--limit' ||
        name === '-n' ||
        name in LIMIT_FLAGS
      if (!takesValue && inline !== null) return usage(`Flag ${name} takes no value.`)
      let value = inline
      if (takesValue && value === null) {
        const next = argv[index + 1]
        if (next === undefined || (next.startsWith('-') && next !== '-')) {
          return usage(`Flag ${name} needs a value.`)
        }
        value = next
        index++
      }
      flags.push(name)
      switch (name) {
        case '--help':
        case '-h':
          help = true
          break
        case '--version':
          version = true
          break
        case '--root':
          if (value === '' || value === null) return usage('Flag --root needs a directory.')
          root = value
          break
        case '--format': {
          const match = FORMAT_OPTIONS.find((f) => f === value)
          if (match === undefined) {
            const allowed = FORMAT_OPTIONS.join(', ')
            return usage(`Unknown format '${value ?? ''}'; use one of ${allowed}.`)
          }
          format = match
          break
        }
        case '--durability': {
          const match = DURABILITIES.find((d) => d === value)
          if (match === undefined)
            return usage(`Unknown durability '${value ?? ''}'; use full or fast.`)
          durability = match
          break
        }
        case '--deny':
          if (value === '' || value === null) return usage('Flag --deny needs a glob.')
          deny.push(value)
          break
        case '--dry-run':
          dryRun = true
          break
        case '--diagnostics':
          diagnostics = true
          break
        case '--json':
          json = true
          break
        case '--workers':
        case '--no-workers': {
          const wanted = name === '--workers' ? 'always' : 'never'
          if (workers !== 'auto' && workers !== wanted)
            return usage('Flags --workers and --no-workers contradict each other; give one.')
          workers = wanted
          break
        }
        case '--parse-only':
          parseOnly = true
          break
        case '-n':
        case '--limit': {
          const count = positiveCount(value)
          if (count === null)
            return usage(`Flag ${name} needs a positive whole number; got '${value ?? ''}'.`)
          limit = count
          break
        }
        case '--max-patch-bytes':
        case '--max-file-bytes':
        case '--max-files': {
          const count = positiveCount(value)
          if (count === null)
            return usage(`Flag ${name} needs a positive whole number; got '${value ?? ''}'.`)
          limits[LIMIT_FLAGS[name] as keyof LimitOptions] = count
          break
        }
        default:
          return usage(`Unknown flag '${name}'.`)
      }
      continue
    }
    if (command === null && arg === 'replay') {
      // replay has flags of its own (replay-args.ts); the ones before the word are its too.
      return parseReplayArgs([...argv.slice(0, index), ...argv.slice(index + 1)])
    }
    if (command === null) {
      if (!COMMANDS.has(arg)) return usage(`Unknown command '${arg}'; use ${COMMAND_LIST}.`)
      command = arg
      continue
    }
    if (command === 'diagnostics') {
      files.push(arg)
      continue
    }
    if (command === 'undo') {
      if (transaction !== null)
        return usage(`Unexpected argument '${arg}'; give at most one transaction id.`)
      transaction = arg
      continue
    }
    if (command === 'log' || command === 'recover')
      return usage(`Unexpected argument '${arg}'; ${command} takes no arguments.`)
    if (fileSeen) return usage(`Unexpected argument '${arg}'; give at most one patch FILE.`)
    fileSeen = true
    file = arg === '-' ? null : arg
  }

  // --help wins over everything else on the line, as most CLIs do, so `apply --help` helps.
  if (help || command === 'help') return ok({ kind: 'help' })
  if (version) return ok({ kind: 'version' })
  if (command === null) return usage(`No command given; use ${COMMAND_LIST}.`)
  if (limit !== null && command !== 'log')
    return usage(`Flag ${flags.includes('-n') ? '-n' : '--limit'} is only valid with log.`)
  if (durability !== null && command !== 'apply' && command !== 'undo')
    return usage('--durability is only valid with apply and undo.')
  if (command === 'demo') return ok({ kind: 'demo' })
  if (command === 'diagnostics') {
    if (files.length === 0) return usage('diagnostics needs at least one FILE.')
    return ok({ kind: 'diagnostics', files, root, json })
  }
  const allowed = JOURNAL_FLAGS[command]
  if (allowed !== undefined) {
    const stray = flags.find((f) => !allowed.has(f))
    if (stray !== undefined) return usage(`Flag ${stray} is not valid with ${command}.`)
  }
  if (command === 'recover') return ok({ kind: 'recover', root, json })
  if (command === 'undo')
    return ok({ kind: 'undo', transaction, root, json, durability: durability ?? 'full' })
  if (command === 'log') return ok({ kind: 'log', root, json, limit: limit ?? DEFAULT_LOG_LIMIT })
  if (diagnostics && command !== 'apply') return usage('--diagnostics is only valid with apply.')
  if (parseOnly && command !== 'check') return usage('--parse-only is only valid with check.')
  const kind = command === 'check' ? 'check' : 'apply'
  return ok({
    kind,
    file,
    root,
    format,
    dryRun: dryRun || kind === 'check',
    json,
    workers,
    parseOnly,
    deny,
    diagnostics,
    limits,
    durability: durability ?? 'full',
  })
}

/** A positive whole number from a flag value, or null. */
function positiveCount(value: string | null): number | null {
  const count = value === null || !/^[1-9][0-9]*$/.test(value) ? NaN : Number(value)
  return Number.isSafeInteger(count) ? count : null
}
