// `patchloom batch [FILE|-]`: one job a line, as JSON ({"id", "root", "patch", "format"?,
// "options"?}), through the library's runner (src/batch/many.ts), and one JSON result line a job
// on stdout, in input order: what `apply --json` prints, with the id first. A line that is no job
// gets a result line of its own (BATCH_JOB_INVALID, with its line number) and the run goes on.
// Lines are read as they come and results written as they are ready, so memory holds the window
// of jobs in hand and one line, not the file. Stderr: a progress line on a terminal, and always a
// summary line at the end.
import { open } from 'node:fs/promises'
import { resolve } from 'node:path'
import { DEFAULT_DENY_GLOBS, DEFAULT_LIMITS } from '../../defaults.js'
import { EditError, errorData } from '../../errors.js'
import { checkJob, type BatchResult, type CheckedJob } from '../../batch/jobs.js'
import { runMany, type ApplyManyOptions, type ManyItem } from '../../batch/many.js'
import type { BatchCommand } from '../args.js'
import type { CliDeps, CliIo } from '../io.js'
import { EXIT } from '../render.js'

/** What the JSON around a patch may add to a line, over the patch size limit. */
export const LINE_SLACK_BYTES = 1024 * 1024

/** Where a job came from: its line number in the input. */
interface LineMeta {
  readonly line: number
}

interface Tally {
  jobs: number
  applied: number
  checked: number
  refused: number
  malformed: number
  internal: number
  retryable: number
}

/** Runs the batch and returns the exit status: 64 if any line was malformed, 70 if any job met a bug, 1 if any was refused, 75 if only retryable ones failed, else 0. */
export async function runBatch(cmd: BatchCommand, io: CliIo, deps: CliDeps): Promise<number> {
  const maxLineBytes = (cmd.limits.maxPatchBytes ?? DEFAULT_LIMITS.maxPatchBytes) + LINE_SLACK_BYTES
  const chunks = cmd.file === null ? io.stdin() : await fileChunks(cmd.file, io.cwd)
  const options: ApplyManyOptions = {
    ...(cmd.workers === 'never' ? { workers: false as const } : {}),
    // One process that serves nothing else, as apply: inline requests read synchronously.
    blockingReads: true,
    ...(cmd.deny.length === 0 ? {} : { denyGlobs: [...DEFAULT_DENY_GLOBS, ...cmd.deny] }),
    ...(Object.keys(cmd.limits).length === 0 ? {} : { limits: cmd.limits }),
    durability: cmd.durability,
    ...(cmd.concurrency === null ? {} : { concurrency: cmd.concurrency }),
  }
  const tally: Tally = {
    jobs: 0,
    applied: 0,
    checked: 0,
    refused: 0,
    malformed: 0,
    internal: 0,
    retryable: 0,
  }
  const progress = io.stderrIsTTY === true
  const started = performance.now()
  let drawn = 0
  const run = runMany(jobItems(splitLines(chunks, maxLineBytes), cmd.dryRun), options, {
    createEngine: deps.createEngine,
    cwd: io.cwd,
    ...(cmd.workers === 'always' ? { route: 'pool' as const } : {}),
  })
  for await (const { result, meta } of run) {
    count(tally, result)
    io.stdout(resultLine(result, meta))
    const now = performance.now()
    if (progress && now - drawn > 100) {
      drawn = now
      io.stderr(`\r\x1b[K${progressLine(tally, now - started)}`)
    }
    // A slow reader of stdout holds the run back rather than filling memory with its lines.
    if (io.drained !== undefined) await io.drained()
  }
  if (progress) io.stderr('\r\x1b[K')
  io.stderr(`${summaryLine(tally, performance.now() - started)}\n`)
  if (tally.malformed > 0) return EXIT.USAGE
  if (tally.internal > 0) return EXIT.INTERNAL
  if (tally.refused > tally.retryable) return EXIT.REJECTED
  return tally.retryable > 0 ? EXIT.RETRYABLE : EXIT.OK
}

/** A result line: the id, the line number when the line was no job, then the result. */
function resultLine(result: BatchResult, meta: LineMeta): string {
  if (result.ok || result.error.code !== 'BATCH_JOB_INVALID') return `${JSON.stringify(result)}\n`
  const { id, ...rest } = result
  return `${JSON.stringify({ id, line: meta.line, ...rest })}\n`
}

function count(tally: Tally, result: BatchResult): void {
  tally.jobs++
  if (result.ok) {
    if (result.dryRun) tally.checked++
    else tally.applied++
    return
  }
  if (result.error.code === 'BATCH_JOB_INVALID') tally.malformed++
  else tally.refused++
  if (result.error.code === 'INTERNAL') tally.internal++
  else if (result.error.retryable) tally.retryable++
}

function summaryLine(tally: Tally, elapsedMs: number): string {
  const lines = tally.malformed === 1 ? 'line' : 'lines'
  return `batch: ${jobs(tally.jobs)}: ${tally.applied} applied, ${tally.checked} checked, ${tally.refused} refused, ${tally.malformed} malformed ${lines} (${(elapsedMs / 1000).toFixed(1)} s)`
}

function jobs(n: number): string {
  return n === 1 ? '1 job' : `${n} jobs`
}

function progressLine(tally: Tally, elapsedMs: number): string {
  const rate = tally.jobs / Math.max(elapsedMs / 1000, 1e-3)
  return `batch: ${jobs(tally.jobs)} done, ${tally.refused + tally.malformed} not applied, ${rate.toFixed(0)}/s`
}

/** FILE's bytes as a stream of chunks; a file that cannot be opened is a usage error. */
async function fileChunks(file: string, cwd: string): Promise<AsyncIterable<Uint8Array>> {
  try {
    const handle = await open(resolve(cwd, file), 'r')
    return handle.createReadStream({ highWaterMark: 256 * 1024 })
  } catch (err) {
    const reason = err instanceof Error && 'code' in err ? String(err.code) : String(err)
    throw new EditError('USAGE_INVALID', `Cannot read the batch file '${file}' (${reason}).`, {
      hint: 'Give an existing file of JSON lines, or pipe them on stdin.',
      cause: err,
    })
  }
}

/** A line's bytes (without its newline), or null when it ran past the limit (then not kept). */
interface RawLine {
  readonly line: number
  readonly bytes: Uint8Array | null
}

/** Splits `chunks` at LF, holding one line at a time; a line over `maxLineBytes` is dropped as it comes. */
export async function* splitLines(
  chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  maxLineBytes: number,
): AsyncGenerator<RawLine> {
  let parts: Uint8Array[] = []
  let size = 0
  let tooLong = false
  let line = 0
  const take = (piece: Uint8Array): void => {
    if (tooLong || piece.length === 0) return
    size += piece.length
    if (size > maxLineBytes) {
      tooLong = true
      parts = []
    } else parts.push(piece)
  }
  const finish = (): RawLine => {
    line++
    const bytes = tooLong
      ? null
      : parts.length === 1
        ? (parts[0] as Uint8Array)
        : Buffer.concat(parts, size)
    parts = []
    size = 0
    tooLong = false
    return { line, bytes }
  }
  for await (const chunk of chunks) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    for (let at = 0; at < bytes.length;) {
      const lf = bytes.indexOf(0x0a, at)
      if (lf === -1) {
        take(bytes.subarray(at))
        break
      }
      take(bytes.subarray(at, lf))
      yield finish()
      at = lf + 1
    }
  }
  if (size > 0 || tooLong) yield finish()
}

const UTF8 = new TextDecoder('utf-8', { fatal: true })

/** Each line as a job or its refusal; a blank line is no job and gets no result. */
async function* jobItems(
  lines: AsyncIterable<RawLine>,
  dryRun: boolean,
): AsyncGenerator<ManyItem<LineMeta>> {
  for await (const { line, bytes } of lines) {
    const checked = lineJob(line, bytes)
    if (checked === null) continue
    yield { checked: dryRun && checked.ok ? asCheck(checked) : checked, meta: { line } }
  }
}

function lineJob(line: number, bytes: Uint8Array | null): CheckedJob | null {
  const refuse = (message: string): CheckedJob => ({
    ok: false,
    id: null,
    error: errorData('BATCH_JOB_INVALID', `Line ${line} ${message}`),
  })
  if (bytes === null)
    return refuse(
      'is over the line limit (the patch size limit plus 1 MiB of JSON); raise it with --max-patch-bytes N.',
    )
  let text: string
  try {
    text = UTF8.decode(bytes)
  } catch {
    return refuse('is not UTF-8; JSON lines are UTF-8 text.')
  }
  if (text.trim() === '') return null
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    return refuse(`is not JSON (${err instanceof Error ? err.message : String(err)}).`)
  }
  return checkJob(value, 'json', `Line ${line}: `)
}

/** --dry-run: every job is a check, whatever its own options say. */
function asCheck(checked: CheckedJob & { ok: true }): CheckedJob {
  const { job } = checked
  return { ok: true, job: { ...job, options: { ...job.options, dryRun: true } } }
}
