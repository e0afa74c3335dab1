// Every `patchloom` command's flags, in one table that flags.ts reads: what each flag takes and
// which commands have it. args.ts, replay-args.ts, commands/serve.ts and commands/queue.ts parse
// their argv against these entries, so a flag given to the wrong command says so the same way
// everywhere. Plain data and light imports: it is loaded for every command.
import { FORMAT_OPTIONS } from '../defaults.js'
import type { Durability } from '../journal/records.js'
import { MAX_CONCURRENCY } from '../batch/jobs.js'
import { RUN_ID } from '../queue/job.js'
import { MAX_REPLAY_WORKERS, REPLAY_VIAS } from '../replay/commit.js'
import {
  between,
  mapped,
  needs,
  oneOf,
  positive,
  shaped,
  text,
  type Converted,
  type FlagTable,
} from './flags.js'

const DURABILITIES: readonly Durability[] = ['full', 'fast']

const durability = { value: oneOf(DURABILITIES, 'durability') }

/** What apply and check do with a diff's binary entries that carry no data. */
const BINARY_WITHOUT_DATA: readonly ('refuse' | 'skip')[] = ['refuse', 'skip']

/** apply, check, batch, undo, log, recover, diagnostics, demo and help share one table: their flags may
 * come before the command word, so they are read before the command is known. */
export const MAIN_FLAGS = {
  '--help': {},
  '-h': {},
  '--version': {},
  '--root': { value: text('a directory') },
  '--format': {
    value: oneOf(FORMAT_OPTIONS, 'format', `one of ${FORMAT_OPTIONS.join(', ')}`),
  },
  '--durability': durability,
  '--binary-without-data': { value: oneOf(BINARY_WITHOUT_DATA, '--binary-without-data value') },
  '--deny': { value: text('a glob'), list: true },
  '--dry-run': {},
  '--diagnostics': {},
  '--json': {},
  '--workers': {},
  '--no-workers': {},
  '--parse-only': {},
  '--limit': { value: positive },
  '-n': { alias: '--limit' },
  '--max-patch-bytes': { value: positive },
  '--max-file-bytes': { value: positive },
  '--max-files': { value: positive },
  '--concurrency': { value: between(1, MAX_CONCURRENCY) },
} as const satisfies FlagTable

/** The journal commands take only these of MAIN_FLAGS, so `undo --dry-run` cannot undo. */
export const JOURNAL_FLAGS: Readonly<Record<string, readonly string[]>> = {
  undo: ['--root', '--json', '--durability'],
  log: ['--root', '--json', '-n', '--limit'],
  recover: ['--root', '--json'],
}

/** batch takes only these of MAIN_FLAGS: each job names its own root and format. */
export const BATCH_FLAGS: readonly string[] = [
  '--json',
  '--dry-run',
  '--workers',
  '--no-workers',
  '--deny',
  '--max-patch-bytes',
  '--max-file-bytes',
  '--max-files',
  '--durability',
  '--concurrency',
]

export const REPLAY_FLAGS = {
  '--help': {},
  '-h': {},
  '--json': {},
  // The only traversal replay makes: the first-parent line, merges included.
  '--first-parent': {},
  '--range': { value: text('A..B or a revision') },
  '--via': { value: oneOf(REPLAY_VIAS, '--via') },
  '--max-commits': { value: positive },
  '--workers': { value: between(0, MAX_REPLAY_WORKERS) },
  '--out': { value: text('a directory') },
} as const satisfies FlagTable

/** `patchloom worker --concurrency K` at most. */
export const MAX_QUEUE_CONCURRENCY = 64

const queueUrl = { value: text('a URL') }
const cache = { value: text('a directory') }

/** The queue commands; a value flag given twice is refused there. */
export const QUEUE_FLAGS = {
  'replay --queue': {
    '--queue': queueUrl,
    '--split': {
      value: shaped('commits=N (N >= 1)', (v) =>
        /^commits=[0-9]{1,7}$/.test(v) && Number(v.slice(8)) >= 1 ? Number(v.slice(8)) : undefined,
      ),
    },
    '--range': { value: text('A..B or a revision') },
    '--via': { value: oneOf(REPLAY_VIAS, '--via') },
    '--attempts': { value: between(1, 100) },
    '--json': {},
    '--cache': cache,
    '--run': {
      value: shaped('a run id (lower-case letters, digits and dashes)', (v) =>
        RUN_ID.test(v) ? v : undefined,
      ),
    },
    '--timeout': { value: between(1, 30 * 24 * 3600) },
  },
  worker: {
    '--queue': queueUrl,
    '--concurrency': { value: between(1, MAX_QUEUE_CONCURRENCY) },
    '--name': { value: text('a name') },
    // How long a job stays with a worker that stopped renewing its lock (died) before another
    // worker takes it again: BullMQ's lockDuration, 30 s by default.
    '--lock-ms': { value: between(1000, 3_600_000) },
    '--cache': cache,
  },
  'queue status': { '--queue': queueUrl, '--json': {} },
  'queue clean': { '--queue': queueUrl, '--run': { value: text('a run id') }, '--cancel': {} },
} as const satisfies Record<string, FlagTable>

/** One root to serve: `--root DIR` (named after its directory) or `--workspace NAME=DIR`. */
export interface RootFlag {
  readonly root: string
  readonly name?: string
}

const SERVED = {
  '--root': { value: mapped(text('a directory'), (root): RootFlag => ({ root })), list: true },
  '--workspace': {
    alias: '--root',
    value: shaped<RootFlag>('NAME=DIR', (v) => {
      const eq = v.indexOf('=')
      return eq <= 0 ? undefined : { name: v.slice(0, eq), root: v.slice(eq + 1) }
    }),
  },
  '--no-read-before-write': {},
  '--durability': durability,
  '--diagnostics': {},
  '--log-format': { value: oneOf(['json', 'text'] as const, 'log format') },
} as const satisfies FlagTable

export const SERVER_FLAGS = {
  mcp: {
    ...SERVED,
    // Checked against the server's agent-name pattern by commands/serve.ts.
    '--agent': { value: text('a name') },
  },
  serve: {
    ...SERVED,
    '--http': { value: hostPort },
    '--token-file': { value: text('a file') },
    '--allow-host': { value: text('a host name'), list: true },
    '--max-body-bytes': { value: positive },
    '--max-in-flight': { value: positive },
  },
  tools: { '--json': {} },
} as const satisfies Record<string, FlagTable>

/** `--http [HOST:]PORT`; an IPv6 HOST may be bracketed; HOST defaults to 127.0.0.1. */
function hostPort(value: string, flag: string): Converted<{ host: string; port: number }> {
  const m = /^(?:(.+):)?(\d{1,5})$/.exec(value)
  if (m === null) return { ok: false, message: needs(flag, '[HOST:]PORT', value) }
  const port = Number(m[2])
  if (port > 65535) return { ok: false, message: needs(flag, 'a port from 0 to 65535', value) }
  return { ok: true, value: { host: (m[1] ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1'), port } }
}

/** Every flag some command has. */
export const KNOWN_FLAGS: ReadonlySet<string> = new Set(
  [MAIN_FLAGS, REPLAY_FLAGS, ...Object.values(QUEUE_FLAGS), ...Object.values(SERVER_FLAGS)].flatMap(
    (table) => Object.keys(table),
  ),
)
