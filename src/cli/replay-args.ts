// `patchloom replay REPO [--range A..B] [--first-parent] [--via unified|codex|search-replace]
// [--workers N] [--max-commits N] [--out DIR] [--json]` (#10): its own flags, parsed apart from
// apply's. args.ts hands over the whole argv without the word `replay`, so flags may come before
// or after it. Never throws.
import { errorData } from '../errors.js'
import { MAX_REPLAY_WORKERS, REPLAY_VIAS, type ReplayVia } from '../replay/commit.js'
import { fail, ok, type Result } from '../result.js'

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

const VALUE_FLAGS = new Set(['--range', '--via', '--max-commits', '--out', '--workers'])

export function parseReplayArgs(
  argv: readonly string[],
): Result<ReplayCommand | { readonly kind: 'help' }> {
  let repo: string | null = null
  let range: string | null = null
  let maxCommits: number | null = null
  let out: string | null = null
  let json = false
  let via: ReplayVia = 'unified'
  let workers = 0
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? ''
    if (!arg.startsWith('-') || arg === '-') {
      if (repo !== null) return usage(`Unexpected argument '${arg}'; replay takes one REPO.`)
      repo = arg
      continue
    }
    const eq = arg.indexOf('=')
    const name = arg.startsWith('--') && eq !== -1 ? arg.slice(0, eq) : arg
    let value: string | null = arg.startsWith('--') && eq !== -1 ? arg.slice(eq + 1) : null
    if (VALUE_FLAGS.has(name) && value === null) {
      const next = argv[index + 1]
      if (next === undefined || next.startsWith('-')) return usage(`Flag ${name} needs a value.`)
      value = next
      index++
    } else if (!VALUE_FLAGS.has(name) && value !== null) {
      return usage(`Flag ${name} takes no value.`)
    }
    switch (name) {
      case '--help':
      case '-h':
        return ok({ kind: 'help' })
      case '--json':
        json = true
        break
      case '--first-parent':
        break // the only traversal replay makes: the first-parent line, merges included
      case '--range':
        if (value === '' || value === null) return usage('Flag --range needs A..B or a revision.')
        range = value
        break
      case '--via': {
        const chosen = REPLAY_VIAS.find((v) => v === value)
        if (chosen === undefined)
          return usage(`Unknown --via '${value ?? ''}'; use unified, codex or search-replace.`)
        via = chosen
        break
      }
      case '--max-commits': {
        const n = /^[1-9][0-9]{0,8}$/.test(value ?? '') ? Number(value) : null
        if (n === null)
          return usage(`Flag --max-commits needs a positive whole number; got '${value ?? ''}'.`)
        maxCommits = n
        break
      }
      case '--workers': {
        const n = /^[0-9]{1,2}$/.test(value ?? '') ? Number(value) : null
        if (n === null || n > MAX_REPLAY_WORKERS)
          return usage(
            `Flag --workers needs a whole number from 0 to ${MAX_REPLAY_WORKERS}; got '${value ?? ''}'.`,
          )
        workers = n
        break
      }
      case '--out':
        if (value === '' || value === null) return usage('Flag --out needs a directory.')
        out = value
        break
      default:
        return usage(`Flag ${name} is not valid with replay.`)
    }
  }
  if (repo === null) return usage('replay needs a REPO: a directory inside a git repository.')
  return ok({ kind: 'replay', repo, range, via, maxCommits, workers, out, json })
}

function usage(message: string): Result<never> {
  return fail(errorData('USAGE_INVALID', message))
}
