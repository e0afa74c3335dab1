// Engine options checked and resolved against the defaults (src/defaults.ts) into the
// ResolvedConfig the engine runs with. Bad options throw EditError CONFIG_INVALID at
// createEngine(), before any request runs.
import { EditError } from '../errors.js'
import type { EngineOptions, JournalOptions, LimitOptions, WorkerOptions } from './api.js'
import {
  DEFAULT_DENY_GLOBS,
  DEFAULT_INLINE_MAX_BYTES,
  DEFAULT_JOURNAL,
  DEFAULT_LIMITS,
  FORMAT_OPTIONS,
} from '../defaults.js'
import type { Durability } from '../journal/records.js'
import type { FormatOption } from '../types.js'

export interface ResolvedConfig {
  readonly root: string
  readonly durability: Durability
  readonly journal: Required<JournalOptions>
  readonly denyGlobs: readonly string[]
  readonly limits: Required<LimitOptions>
  readonly workers: (WorkerOptions & { readonly inlineMaxBytes: number }) | false
  readonly blockingReads: boolean
}

export function resolveConfig(options: EngineOptions): ResolvedConfig {
  if (typeof options !== 'object' || options === null)
    invalid('options must be an object with at least { root }')
  if (typeof options.root !== 'string' || options.root === '')
    invalid('root must be a non-empty string')
  const denyGlobs = options.denyGlobs ?? DEFAULT_DENY_GLOBS
  if (!Array.isArray(denyGlobs) || !denyGlobs.every((g) => typeof g === 'string' && g !== '')) {
    invalid('denyGlobs must be an array of non-empty strings')
  }
  renamed(options, 'pool', 'workers')
  const workers = options.workers
  if (workers !== undefined && workers !== false) {
    for (const key of ['minThreads', 'maxThreads', 'inlineMaxBytes'] as const) {
      const value = workers[key]
      if (value !== undefined && (!Number.isInteger(value) || value < 0))
        invalid(`workers.${key} must be a non-negative integer`)
    }
    if (workers.maxThreads === 0)
      invalid('workers.maxThreads must be at least 1 (use workers: false for inline only)')
  }
  if (options.approve !== undefined && typeof options.approve !== 'function')
    invalid('approve must be a function')
  const diagnostics = options.diagnostics
  if (
    diagnostics !== undefined &&
    typeof diagnostics !== 'boolean' &&
    (typeof diagnostics !== 'object' || diagnostics === null)
  ) {
    invalid('diagnostics must be true, false or an options object')
  }
  if (typeof diagnostics === 'object') {
    renamed(diagnostics, 'pool', 'servers', 'diagnostics.')
    const { deadlineMs, maxPerFile, minSeverity } = diagnostics
    if (deadlineMs !== undefined && (!Number.isInteger(deadlineMs) || deadlineMs <= 0))
      invalid('diagnostics.deadlineMs must be a positive integer')
    if (maxPerFile !== undefined && (!Number.isInteger(maxPerFile) || maxPerFile <= 0))
      invalid('diagnostics.maxPerFile must be a positive integer')
    if (
      minSeverity !== undefined &&
      !['error', 'warning', 'information', 'hint'].includes(minSeverity)
    ) {
      invalid('diagnostics.minSeverity must be error, warning, information or hint')
    }
  }
  const logger = options.logger
  if (
    logger !== undefined &&
    (typeof logger.debug !== 'function' || typeof logger.warn !== 'function')
  ) {
    invalid('logger must have debug and warn methods')
  }
  const blockingReads = options.blockingReads ?? false
  if (typeof blockingReads !== 'boolean') invalid('blockingReads must be true or false')
  const durability = options.durability ?? 'full'
  if (durability !== 'full' && durability !== 'fast')
    invalid(`durability must be full or fast; got ${JSON.stringify(durability)}`)
  return {
    root: options.root,
    durability,
    journal: resolveJournal(options.journal),
    denyGlobs,
    limits: resolveLimits(options.limits),
    workers:
      workers === false
        ? false
        : {
            ...workers,
            inlineMaxBytes: workers?.inlineMaxBytes ?? DEFAULT_INLINE_MAX_BYTES,
          },
    blockingReads,
  }
}

// An option that was renamed is refused rather than ignored (DECISIONS.md D-103): ignoring
// `pool: false` would silently start worker threads, and ignoring `diagnostics.pool` would drop
// its server settings.
function renamed(group: object, old: string, now: string, prefix = ''): void {
  if (Object.hasOwn(group, old)) invalid(`${prefix}${old} was renamed to ${prefix}${now}`)
}

/** An options group must be a plain object with only the keys its defaults name. */
function checkGroup(name: string, value: object, defaults: object): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    invalid(`${name} must be an object`)
  const known = Object.keys(defaults)
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) invalid(`${name}.${key} is unknown; use ${known.join(', ')}`)
  }
}

function resolveLimits(limits: LimitOptions | undefined): Required<LimitOptions> {
  if (limits === undefined) return DEFAULT_LIMITS
  checkGroup('limits', limits, DEFAULT_LIMITS)
  const resolved = { ...DEFAULT_LIMITS }
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof LimitOptions)[]) {
    const value = limits[key]
    if (value === undefined) continue
    if (!Number.isSafeInteger(value) || value <= 0)
      invalid(`limits.${key} must be a positive integer; got ${String(value)}`)
    resolved[key] = value
  }
  return resolved
}

function resolveJournal(journal: JournalOptions | undefined): Required<JournalOptions> {
  if (journal === undefined) return DEFAULT_JOURNAL
  checkGroup('journal', journal, DEFAULT_JOURNAL)
  const { keep = DEFAULT_JOURNAL.keep, lockTimeoutMs = DEFAULT_JOURNAL.lockTimeoutMs } = journal
  if (!Number.isSafeInteger(keep) || keep < 0)
    invalid(`journal.keep must be a non-negative integer; got ${String(keep)}`)
  if (!Number.isSafeInteger(lockTimeoutMs) || lockTimeoutMs < 0)
    invalid(`journal.lockTimeoutMs must be a non-negative integer; got ${String(lockTimeoutMs)}`)
  return { keep, lockTimeoutMs }
}

export function checkFormat(format: unknown): FormatOption {
  if (format === undefined) return 'auto'
  if (typeof format === 'string' && (FORMAT_OPTIONS as readonly string[]).includes(format))
    return format as FormatOption
  invalid(`format must be one of ${FORMAT_OPTIONS.join(', ')}; got ${JSON.stringify(format)}`)
}

function invalid(message: string): never {
  throw new EditError('CONFIG_INVALID', `Invalid option: ${message}.`)
}
