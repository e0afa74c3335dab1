// `patchloom` argv -> a plain command description, or a USAGE_INVALID failure: the main commands
// read MAIN_FLAGS (flag-table.ts), and `replay` goes to replay-args.ts (main.ts has already sent
// the server and queue commands elsewhere). No I/O and no defaults that need the environment:
// the root stays null here and main.ts resolves it against the caller's cwd. The journal
// commands (undo, log, recover) refuse flags that belong to apply, so `undo --dry-run` cannot
// silently undo for real.
import { ok, type Result } from '../result.js'
import type { FormatOption } from '../types.js'
import type { LimitOptions } from '../engine/api.js'
import type { Durability } from '../journal/records.js'
import { FORMAT_OPTIONS } from '../defaults.js'
import { BATCH_FLAGS, JOURNAL_FLAGS, KNOWN_FLAGS, MAIN_FLAGS } from './flag-table.js'
import {
  firstPositional,
  notValidWith,
  readFlags,
  unexpectedArgument,
  usageFailure,
} from './flags.js'
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
  // auto means this thread: a one-shot run verifies fastest there (DECISIONS.md D-074).
  /**
   * auto: this thread, where a one-shot run verifies fastest; always (--workers): on the worker
   * pool whatever the size; never (--no-workers): no pool at all.
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
  /** --binary-without-data, when given: refuse (the default) or skip binary entries without data. */
  readonly binaryWithoutData?: 'refuse' | 'skip'
}

/** `patchloom batch [FILE|-]`: one job a JSON line, one result line a job. */
export interface BatchCommand {
  readonly kind: 'batch'
  /** The file of JSON lines as given (relative to cwd), or null for stdin ('-' or absent). */
  readonly file: string | null
  /** --dry-run: every job is a check. */
  readonly dryRun: boolean
  readonly workers: 'auto' | 'always' | 'never'
  readonly deny: readonly string[]
  readonly limits: LimitOptions
  readonly durability: Durability
  /** --concurrency N: jobs in hand at most, or null for the library's default. */
  readonly concurrency: number | null
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
  | BatchCommand

/** Transactions `patchloom log` shows without -n. */
export const DEFAULT_LOG_LIMIT = 20

export const HELP_TEXT = `patchloom: verify and apply a patch to a workspace, all or nothing.

Usage:
  patchloom apply [FILE|-] [--root DIR] [--format FORMAT] [--dry-run] [--json] [--[no-]workers]
                  [--deny GLOB]... [--max-patch-bytes N] [--max-file-bytes N] [--max-files N]
                  [--durability full|fast] [--binary-without-data refuse|skip]
  patchloom check [FILE|-] [--root DIR] [--format FORMAT] [--parse-only] [--json] [--[no-]workers]
                  [--deny GLOB]... [--max-patch-bytes N] [--max-file-bytes N] [--max-files N]
                  [--binary-without-data refuse|skip]
  patchloom batch [FILE|-] [--dry-run] [--concurrency N] [--[no-]workers] [--deny GLOB]...
                  [--max-patch-bytes N] [--max-file-bytes N] [--max-files N]
                  [--durability full|fast]
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
  batch         Many patches in one process: FILE (or stdin) holds one job a line, as JSON:
                {"id": ..., "root": "DIR", "patch": "...", "format"?: F, "options"?:
                {"dryRun"?: true}}. Prints one JSON line a job, in input order: what
                apply --json prints, with the id first (a line that is no job: BATCH_JOB_INVALID
                with its "line"). One engine per root; a root's jobs run in order, other roots
                meanwhile. A summary line goes to stderr. Exit 0 if every job succeeded, 64 if
                a line was no job, else 1 if any job was refused (70, 75 as below).
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
  --concurrency N      (batch) Jobs in hand at most (default 8, at most 1024).
  --durability D       (apply, batch, undo) full (default): fsync the commit, so it survives a power
                       cut whole or not at all. fast: no fsync; still all or nothing if the
                       process is killed, but a power cut may lose or partly lose the last change.
  --binary-without-data B  (apply, check) refuse (default): a diff's "Binary files A and B
                       differ" entry without data is PARSE_BAD_BINARY. skip: skip such entries,
                       apply the rest and warn (parse.binary-skipped) for each.
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
  'batch',
  'undo',
  'log',
  'recover',
  'diagnostics',
  'demo',
  'help',
  'replay',
])
const COMMAND_LIST =
  'apply, check, batch, undo, log, recover, diagnostics, replay, mcp, serve, tools, demo or help'

function usage(message: string): Result<never> {
  return usageFailure(message)
}

/** Parses argv (without node and script). Never throws. */
export function parseArgs(argv: readonly string[]): Result<CliCommand> {
  const at = firstPositional(argv, MAIN_FLAGS)
  const word = at === -1 ? undefined : argv[at]
  if (word === 'replay') {
    // replay has flags of its own (replay-args.ts); the ones before the word are its too.
    return parseReplayArgs([...argv.slice(0, at), ...argv.slice(at + 1)])
  }
  const read = readFlags(argv, MAIN_FLAGS, {
    command: word !== undefined && COMMANDS.has(word) ? word : null,
    known: KNOWN_FLAGS,
    repeats: 'last',
    positional: (arg, index) => {
      if (index === 0)
        return COMMANDS.has(arg) ? undefined : `Unknown command '${arg}'; use ${COMMAND_LIST}.`
      if (word === 'diagnostics') return undefined
      if (word === 'undo')
        return index > 1 ? unexpectedArgument(arg, 'give at most one transaction id') : undefined
      if (word === 'batch')
        return index > 1 ? unexpectedArgument(arg, 'give at most one FILE of jobs') : undefined
      if (word === 'log' || word === 'recover')
        return unexpectedArgument(arg, `${word} takes no arguments`)
      return index > 1 ? unexpectedArgument(arg, 'give at most one patch FILE') : undefined
    },
  })
  if (!read.ok) return read
  const { values: flags, positionals, given } = read.value
  const [command, ...rest] = positionals
  if (flags['--workers'] && flags['--no-workers'])
    return usage('Flags --workers and --no-workers contradict each other; give one.')

  // --help wins over everything else on the line, as most CLIs do, so `apply --help` helps.
  if (flags['--help'] || flags['-h'] || command === 'help') return ok({ kind: 'help' })
  if (flags['--version']) return ok({ kind: 'version' })
  if (command === undefined) return usage(`No command given; use ${COMMAND_LIST}.`)
  if (flags['--limit'] !== undefined && command !== 'log')
    return usage(`Flag ${given.includes('-n') ? '-n' : '--limit'} is only valid with log.`)
  if (flags['--durability'] !== undefined && !['apply', 'undo', 'batch'].includes(command))
    return usage('--durability is only valid with apply, batch and undo.')
  if (flags['--concurrency'] !== undefined && command !== 'batch')
    return usage('--concurrency is only valid with batch.')
  const root = flags['--root'] ?? null
  const json = flags['--json']
  if (command === 'demo') return ok({ kind: 'demo' })
  if (command === 'diagnostics') {
    if (rest.length === 0) return usage('diagnostics needs at least one FILE.')
    return ok({ kind: 'diagnostics', files: rest, root, json })
  }
  const allowed = JOURNAL_FLAGS[command]
  if (allowed !== undefined) {
    const stray = given.find((f) => !allowed.includes(f))
    if (stray !== undefined) return usage(notValidWith(stray, command))
  }
  const durability = flags['--durability'] ?? 'full'
  if (command === 'batch') {
    const stray = given.find((f) => !BATCH_FLAGS.includes(f))
    if (stray !== undefined) return usage(notValidWith(stray, command))
    const file = rest[0] ?? '-'
    return ok({
      kind: 'batch',
      file: file === '-' ? null : file,
      dryRun: flags['--dry-run'],
      workers: flags['--workers'] ? 'always' : flags['--no-workers'] ? 'never' : 'auto',
      deny: flags['--deny'],
      limits: limitsOf(flags),
      durability,
      concurrency: flags['--concurrency'] ?? null,
    })
  }
  if (command === 'recover') return ok({ kind: 'recover', root, json })
  if (command === 'undo')
    return ok({ kind: 'undo', transaction: rest[0] ?? null, root, json, durability })
  if (command === 'log')
    return ok({ kind: 'log', root, json, limit: flags['--limit'] ?? DEFAULT_LOG_LIMIT })
  if (flags['--diagnostics'] && command !== 'apply')
    return usage('--diagnostics is only valid with apply.')
  if (flags['--parse-only'] && command !== 'check')
    return usage('--parse-only is only valid with check.')
  if (flags['--binary-without-data'] !== undefined && command !== 'apply' && command !== 'check')
    return usage('--binary-without-data is only valid with apply and check.')
  const limits = limitsOf(flags)
  const kind = command === 'check' ? 'check' : 'apply'
  const file = rest[0] ?? '-'
  return ok({
    kind,
    file: file === '-' ? null : file,
    root,
    format: flags['--format'] ?? 'auto',
    dryRun: flags['--dry-run'] || kind === 'check',
    json,
    workers: flags['--workers'] ? 'always' : flags['--no-workers'] ? 'never' : 'auto',
    parseOnly: flags['--parse-only'],
    deny: flags['--deny'],
    diagnostics: flags['--diagnostics'],
    limits,
    durability,
    ...(flags['--binary-without-data'] === undefined
      ? {}
      : { binaryWithoutData: flags['--binary-without-data'] }),
  })
}

/** --max-patch-bytes, --max-file-bytes and --max-files as given; absent ones stay absent. */
function limitsOf(flags: {
  readonly [F in (typeof LIMIT_FLAGS)[number][0]]: number | undefined
}): LimitOptions {
  const limits: { -readonly [K in keyof LimitOptions]: number } = {}
  for (const [flag, key] of LIMIT_FLAGS) {
    const value = flags[flag]
    if (value !== undefined) limits[key] = value
  }
  return limits
}

const LIMIT_FLAGS = [
  ['--max-patch-bytes', 'maxPatchBytes'],
  ['--max-file-bytes', 'maxFileBytes'],
  ['--max-files', 'maxFiles'],
] as const
