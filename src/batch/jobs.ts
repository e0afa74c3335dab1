// A batch job's shape and its check: what applyMany and `patchloom batch` accept as one job, and
// the BATCH_JOB_INVALID failure, naming the field, for anything else. A field nobody reads is
// refused, not ignored: a misspelt `dryRun` must not turn a check into a write.
import { FORMAT_OPTIONS } from '../defaults.js'
import { errorData, type EditErrorData } from '../errors.js'
import type { ApplyOptions } from '../engine/api.js'
import type { AppliedResult, FailedResult } from '../render/result-line.js'
import type { FormatOption } from '../types.js'

/** A job's request options: those of Engine.apply but its format, which the job gives itself. */
export type BatchJobOptions = Omit<ApplyOptions, 'format'>

/** One patch for one workspace: an apply, or with `options.dryRun` a check. */
export interface BatchJob {
  /** The caller's name for the job, repeated on its result. */
  readonly id: string | number
  /** The workspace root (relative to the current directory, or absolute). */
  readonly root: string
  /** The patch, as text or as its bytes. */
  readonly patch: string | Uint8Array
  /** @default 'auto' */
  readonly format?: FormatOption
  readonly options?: BatchJobOptions
}

/**
 * A job's outcome: what `patchloom apply --json` prints for it (`ok: true` and the result, or
 * `ok: false` and the error), with the job's id first (null when the job had none to repeat).
 */
export type BatchResult = { readonly id: string | number | null } & (AppliedResult | FailedResult)

/** A job as checked: runnable, or refused with its reason (and its id, when it had a usable one). */
export type CheckedJob =
  | { readonly ok: true; readonly job: BatchJob }
  | { readonly ok: false; readonly id: string | number | null; readonly error: EditErrorData }

/** Where the job came from: JSON (a line of batch input) carries no functions, signals or bytes. */
export type JobSource = 'json' | 'library'

/** The default window: enough to overlap one workspace's commit with others' verification. */
export const DEFAULT_CONCURRENCY = 8

/** The largest window: each job in hand may hold its patch and its files. */
export const MAX_CONCURRENCY = 1024

const JOB_FIELDS = ['id', 'root', 'patch', 'patchBase64', 'format', 'options']

/** Standard base64 (RFC 4648 section 4), padded: what `patchBase64` must be. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Each request option a job may carry, and whether a value suits it. */
const OPTION_CHECKS: Readonly<Record<string, (v: unknown, from: JobSource) => boolean>> = {
  dryRun: (v) => typeof v === 'boolean',
  diffs: (v) => typeof v === 'boolean',
  diagnostics: (v) => typeof v === 'boolean',
  timeoutMs: (v) => typeof v === 'number' && Number.isFinite(v) && v > 0,
  binaryWithoutData: (v) => v === 'refuse' || v === 'skip',
  approve: (v, from) => from === 'library' && typeof v === 'function',
  signal: (v, from) => from === 'library' && v instanceof AbortSignal,
}

const OPTION_WORDS: Readonly<Record<string, string>> = {
  dryRun: 'true or false',
  diffs: 'true or false',
  diagnostics: 'true or false',
  timeoutMs: 'a positive number of milliseconds',
  binaryWithoutData: 'refuse or skip',
  approve: 'a function (in the library only)',
  signal: 'an AbortSignal (in the library only)',
}

/**
 * Checks that `value` is a batch job. The job returned is `value` itself, so nothing is copied,
 * except for a JSON job's `patchBase64`, which becomes the bytes of its `patch`; `prefix` starts
 * every message (`Line 7: `).
 */
export function checkJob(value: unknown, from: JobSource, prefix = ''): CheckedJob {
  const refuse = (id: string | number | null, message: string): CheckedJob => ({
    ok: false,
    id,
    error: errorData('BATCH_JOB_INVALID', `${prefix}${message}`),
  })
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return refuse(null, `A batch job is an object with id, root and patch; got ${kindOf(value)}.`)
  const job = value as {
    readonly [K in 'id' | 'root' | 'patch' | 'patchBase64' | 'format' | 'options']?: unknown
  }
  const { id } = job
  const usableId =
    typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null
  for (const key of Object.keys(job)) {
    if (!JOB_FIELDS.includes(key))
      return refuse(
        usableId,
        `Unknown field '${key}' in a batch job; its fields are ${JOB_FIELDS.join(', ')}.`,
      )
  }
  if (usableId === null)
    return refuse(null, `A batch job needs an id, a string or a number; got ${kindOf(id)}.`)
  if (typeof job.root !== 'string' || job.root === '')
    return refuse(
      usableId,
      `Job ${JSON.stringify(usableId)} needs a root directory; got ${kindOf(job.root)}.`,
    )
  // A JSON line cannot hold bytes that are not UTF-8 (a Latin-1 diff): `patchBase64` carries them.
  let bytes: Uint8Array | undefined
  if (job.patchBase64 !== undefined) {
    const where = `Job ${JSON.stringify(usableId)}`
    if (from !== 'json')
      return refuse(
        usableId,
        `${where} has patchBase64, which only JSON input takes; pass bytes as patch.`,
      )
    if (job.patch !== undefined)
      return refuse(usableId, `${where} has both patch and patchBase64; give one.`)
    if (typeof job.patchBase64 !== 'string' || !BASE64.test(job.patchBase64))
      return refuse(
        usableId,
        `${where} has a patchBase64 that is not padded standard base64; got ${kindOf(job.patchBase64)}.`,
      )
    bytes = Uint8Array.from(Buffer.from(job.patchBase64, 'base64'))
  }
  const patchOk =
    bytes !== undefined ||
    typeof job.patch === 'string' ||
    (from === 'library' && job.patch instanceof Uint8Array)
  if (!patchOk) {
    const what = from === 'library' ? 'a string or bytes' : 'a string (or patchBase64)'
    return refuse(
      usableId,
      `Job ${JSON.stringify(usableId)} needs a patch, ${what}; got ${kindOf(job.patch)}.`,
    )
  }
  if (job.format !== undefined && !FORMAT_OPTIONS.includes(job.format as FormatOption))
    return refuse(
      usableId,
      `Job ${JSON.stringify(usableId)} has an unknown format ${JSON.stringify(job.format)}; use ${FORMAT_OPTIONS.join(', ')}.`,
    )
  const options = job.options
  if (options !== undefined) {
    if (typeof options !== 'object' || options === null || Array.isArray(options))
      return refuse(
        usableId,
        `Job ${JSON.stringify(usableId)} has options that are not an object; got ${kindOf(options)}.`,
      )
    for (const [key, v] of Object.entries(options)) {
      const check = OPTION_CHECKS[key]
      if (check === undefined) {
        const where = key === 'format' ? ' (give format beside root and patch, not in options)' : ''
        return refuse(
          usableId,
          `Job ${JSON.stringify(usableId)} has an unknown option '${key}'${where}; the options are ${Object.keys(OPTION_CHECKS).join(', ')}.`,
        )
      }
      if (v !== undefined && !check(v, from))
        return refuse(
          usableId,
          `Job ${JSON.stringify(usableId)} has option ${key} ${kindOf(v)}; it takes ${OPTION_WORDS[key] ?? 'another value'}.`,
        )
    }
  }
  if (bytes === undefined) return { ok: true, job: value as BatchJob }
  const { patchBase64: _encoded, ...rest } = value as BatchJob & { readonly patchBase64: string }
  return { ok: true, job: { ...rest, patch: bytes } }
}

/** How a message names a value it refuses: its JSON for short scalars, else its kind. */
function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (value instanceof Uint8Array) return 'bytes'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'string') return value.length <= 40 ? JSON.stringify(value) : 'a string'
  return String(value)
}
