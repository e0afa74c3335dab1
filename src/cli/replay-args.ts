// `patchloom replay REPO [--range A..B] [--first-parent] [--via unified|codex|search-replace]
// [--workers N] [--max-commits N] [--out DIR] [--json]`: its own flags (REPLAY_FLAGS in
// flag-table.ts), read apart from apply's. args.ts hands over the whole argv without the word
// `replay`, so flags may come before or after it. Never throws.
import type { ReplayVia } from '../replay/commit.js'
import { ok, type Result } from '../result.js'
import { KNOWN_FLAGS, REPLAY_FLAGS } from './flag-table.js'
import { readFlags, unexpectedArgument, usageFailure } from './flags.js'

export interface ReplayCommand {
  readonly kind: 'replay'
  readonly repo: string
  /** `A..B`, or one revision; null for HEAD. */
  readonly range: string | null
  readonly via: ReplayVia
  readonly maxCommits: number | null
  /** Pool workers computing commits; 0 for the calling thread. */
  readonly workers: number
  /** Where to write the final tree; null for nowhere. */
  readonly out: string | null
  readonly json: boolean
}

/** Parses replay's argv (without the word `replay`). Never throws. */
export function parseReplayArgs(
  argv: readonly string[],
): Result<ReplayCommand | { readonly kind: 'help' }> {
  const read = readFlags(argv, REPLAY_FLAGS, {
    command: 'replay',
    known: KNOWN_FLAGS,
    repeats: 'last',
    positional: (arg, index) =>
      index > 0 ? unexpectedArgument(arg, 'replay takes one REPO') : undefined,
  })
  if (!read.ok) return read
  const { values: flags, positionals } = read.value
  if (flags['--help'] || flags['-h']) return ok({ kind: 'help' })
  const [repo] = positionals
  if (repo === undefined)
    return usageFailure('replay needs a REPO: a directory inside a git repository.')
  return ok({
    kind: 'replay',
    repo,
    range: flags['--range'] ?? null,
    via: flags['--via'] ?? 'unified',
    maxCommits: flags['--max-commits'] ?? null,
    workers: flags['--workers'] ?? 0,
    out: flags['--out'] ?? null,
    json: flags['--json'],
  })
}
