// Hand-written argv parsing for the `patchloom` command: argv in, a plain command description
// (or a USAGE_INVALID failure) out. No I/O and no defaults that need the environment: the root
// stays null here and main.ts resolves it against the caller's cwd. Accepts `--flag value` and
// `--flag=value`; `--` ends the flags.
import { errorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import type { FormatOption } from '../types.js'
import type { LimitOptions } from '../coordinator/engine-types.js'
import { FORMAT_OPTIONS } from '../config.js'

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
  /** false with --no-workers: verify everything inline in this thread. */
  readonly workers: boolean
  /** `check --parse-only`: parse and summarize, read no workspace files. */
  readonly parseOnly: boolean
  /** --deny GLOB (repeatable): extra paths to refuse, on top of the default .git rules. */
  readonly deny: readonly string[]
  /** apply --diagnostics: language-server diagnostics for the applied change. */
  readonly diagnostics: boolean
  /** --max-patch-bytes, --max-file-bytes, --max-files; absent keys keep the engine defaults. */
  readonly limits: LimitOptions
}

/** `patchloom diagnostics FILE...`: a standalone language-server check. */
export interface DiagnosticsCommand {
  readonly kind: 'diagnostics'
  readonly files: readonly string[]
  readonly root: string | null
  readonly json: boolean
}

export type CliCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'demo' }
  | DiagnosticsCommand
  | RunCommand

export const HELP_TEXT = `patchloom: verify and apply a patch to a workspace, all or nothing.

Usage:
  patchloom apply [FILE|-] [--root DIR] [--format FORMAT] [--dry-run] [--json] [--no-workers]
                  [--deny GLOB]... [--max-patch-bytes N] [--max-file-bytes N] [--max-files N]
  patchloom check [FILE|-] [--root DIR] [--format FORMAT] [--parse-only] [--json] [--no-workers]
                  [--deny GLOB]... [--max-patch-bytes N] [--max-file-bytes N] [--max-files N]
  patchloom diagnostics FILE... [--root DIR] [--json]
  patchloom demo
  patchloom help | --help | -h
  patchloom --version

Commands:
  apply         Parse, verify and write the change (nothing is written if any part fails).
  check         Same as apply --dry-run: verify and report, write nothing.
  diagnostics   Language-server errors in FILE... as they are on disk.
  demo          Apply one change per format to a scratch workspace in the temp directory.

Options:
  FILE          Patch file; '-' or absent reads the patch from stdin.
  --root DIR    Workspace root every path must stay inside (default: current directory).
  --format F    auto (default), codex, unified, search-replace or edits.
  --dry-run     Verify and report what would change; write nothing.
  --parse-only  (check) Report from the patch alone what it would do; read no files.
  --json        Print exactly one JSON line on stdout.
  --no-workers  Verify in this thread instead of the worker pool.
  --diagnostics (apply) Report the errors the change introduced and fixed, from language servers.
  --deny GLOB   Also refuse paths matching GLOB (repeatable; .git/ and .patchloom/ are always
                refused).
  --max-patch-bytes N  Refuse a patch over N bytes (default 33554432, 32 MiB).
  --max-file-bytes N   Refuse to read or produce a file over N bytes (default 67108864, 64 MiB).
  --max-files N        Refuse a change to more than N files (default 10000).

Exit status: 0 applied (or would apply), 1 rejected, 64 usage, 70 internal error,
75 retryable (resend unchanged).
`

const COMMANDS = new Set(['apply', 'check', 'diagnostics', 'demo', 'help'])

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
  let root: string | null = null
  let format: FormatOption = 'auto'
  let dryRun = false
  let json = false
  let workers = true
  let parseOnly = false
  let help = false
  let version = false
  let flagsDone = false
  let diagnostics = false
  const deny: string[] = []
  const files: string[] = []
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
        name === '--root' || name === '--format' || name === '--deny' || name in LIMIT_FLAGS
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
        case '--no-workers':
          workers = false
          break
        case '--parse-only':
          parseOnly = true
          break
        case '--max-patch-bytes':
        case '--max-file-bytes':
        case '--max-files': {
          const count = value === null || !/^[1-9][0-9]*$/.test(value) ? NaN : Number(value)
          if (!Number.isSafeInteger(count))
            return usage(`Flag ${name} needs a positive whole number; got '${value ?? ''}'.`)
          limits[LIMIT_FLAGS[name] as keyof LimitOptions] = count
          break
        }
        default:
          return usage(`Unknown flag '${name}'.`)
      }
      continue
    }
    if (command === null) {
      if (!COMMANDS.has(arg))
        return usage(`Unknown command '${arg}'; use apply, check, diagnostics, demo or help.`)
      command = arg
      continue
    }
    if (command === 'diagnostics') {
      files.push(arg)
      continue
    }
    if (fileSeen) return usage(`Unexpected argument '${arg}'; give at most one patch FILE.`)
    fileSeen = true
    file = arg === '-' ? null : arg
  }

  // --help wins over everything else on the line, as most CLIs do, so `apply --help` helps.
  if (help || command === 'help') return ok({ kind: 'help' })
  if (version) return ok({ kind: 'version' })
  if (command === null)
    return usage('No command given; use apply, check, diagnostics, demo or help.')
  if (command === 'demo') return ok({ kind: 'demo' })
  if (command === 'diagnostics') {
    if (files.length === 0) return usage('diagnostics needs at least one FILE.')
    return ok({ kind: 'diagnostics', files, root, json })
  }
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
  })
}
