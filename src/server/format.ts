// Tool results: each outcome as `structuredContent` for the harness and as short text for
// the model. Errors carry the engine's code, message, hint, retryable flag, current hash and
// candidates in both; a stale hash's refusal also the file as it is now, as read_file lists it.
import type { EditErrorData } from '../errors.js'
import type { UndoResult } from '../journal/records.js'
import type { DiagnosticsReport, FileDiagnostic } from '../lsp/reports.js'
import { renderFileLine } from '../render/file-line.js'
import type { ApplyResult } from '../types.js'

/** What a tool handler produces; mcp.ts turns it into a CallToolResult. */
export type ToolOutcome =
  | { readonly ok: true; readonly structured: Record<string, unknown>; readonly text: string }
  | { readonly ok: false; readonly structured: Record<string, unknown>; readonly text: string }

/**
 * What a FILE_HASH_MISMATCH refusal adds for a retry without a second read: the file as
 * read_file lists it now, and whether the same edits may be resent with `rebase: true`.
 */
export interface StaleExtras {
  readonly current?: { readonly structured: Record<string, unknown>; readonly text: string }
  readonly rebasePossible: boolean
}

export function errorOutcome(error: EditErrorData, stale?: StaleExtras): ToolOutcome {
  const structured = {
    error: {
      code: error.code,
      message: error.message,
      hint: error.hint,
      retryable: error.retryable,
      ...(error.path === undefined ? {} : { path: error.path }),
      ...(error.currentHash === undefined ? {} : { current_hash: error.currentHash }),
      ...(error.candidates === undefined
        ? {}
        : {
            candidates: error.candidates.map((c) => ({
              line: c.fileLine,
              score: Math.round(c.score * 100) / 100,
              preview: c.preview,
            })),
          }),
      ...(stale === undefined ? {} : { rebase_possible: stale.rebasePossible }),
      ...(stale?.current === undefined ? {} : { current: stale.current.structured }),
    },
  }
  const lines = [`${error.code}: ${error.message}`, `hint: ${error.hint}`]
  if (error.currentHash !== undefined) lines.push(`current_hash: ${error.currentHash}`)
  for (const c of error.candidates ?? []) {
    lines.push(`candidate at line ${c.fileLine} (${Math.round(c.score * 100)}%): ${c.preview}`)
  }
  if (error.retryable) lines.push('retryable: resending the same request may succeed')
  if (stale?.current !== undefined) lines.push('', `current content: ${stale.current.text}`)
  return { ok: false, structured, text: lines.join('\n') }
}

// The measurement: DECISIONS.md D-200.
/**
 * Diff text a write's result carries at most: a model reads the result, and past this it learns
 * nothing more from diffs than from the counts, while rendering, cloning, validating and sending
 * them took most of a large patch's time through the server. The files past the budget keep
 * their counts and hashes; `diffs_omitted` says how many lost their diff.
 */
export const MAX_RESULT_DIFF_BYTES = 256 * 1024

/**
 * `diffsRendered` false: the engine was asked for no diffs (a patch longer than the budget), so
 * every file's diff is omitted. Otherwise diffs go in, in order, while they fit.
 */
export function writeOutcome(
  result: ApplyResult,
  rebased: ReadonlyMap<string, string>,
  diffsRendered = true,
): ToolOutcome {
  const summary =
    result.files.length === 0 ? 'no changes' : result.files.map(renderFileLine).join('\n')
  let budget = MAX_RESULT_DIFF_BYTES
  let omitted = diffsRendered ? 0 : result.files.length
  const diffs: string[] = []
  for (const f of result.files) {
    if (!diffsRendered || f.diff === '') {
      diffs.push('')
      continue
    }
    // A string's UTF-8 length is at least its length: only a diff that may fit is measured.
    const bytes = f.diff.length <= budget ? Buffer.byteLength(f.diff) : Infinity
    if (bytes <= budget) {
      budget -= bytes
      diffs.push(f.diff)
    } else {
      omitted++
      budget = 0 // in order: no later, smaller diff slips in after a gap
      diffs.push('')
    }
  }
  const structured = {
    dry_run: result.dryRun,
    summary,
    ...(result.transaction === undefined ? {} : { transaction: result.transaction }),
    ...(omitted === 0 ? {} : { diffs_omitted: omitted }),
    files: result.files.map((f, i) => {
      const from = rebased.get(f.path)
      return {
        path: f.path,
        op: f.op,
        ...(f.from === undefined ? {} : { from: f.from }),
        content_hash: f.afterHash,
        previous_hash: f.beforeHash,
        additions: f.additions,
        deletions: f.deletions,
        diff: diffs[i] as string,
        ...(from === undefined ? {} : { rebased_from: from }),
      }
    }),
    warnings: result.warnings.map((w) => ({
      code: w.code,
      message: w.message,
      ...(w.path === undefined ? {} : { path: w.path }),
    })),
    ...(result.diagnostics === undefined ? {} : { diagnostics: reportOf(result.diagnostics) }),
  }
  const lines = [summary]
  for (const f of result.files) {
    if (f.afterHash !== null) lines.push(`content_hash ${f.path}: ${f.afterHash}`)
    if (rebased.has(f.path)) {
      lines.push(`rebased: ${f.path} had changed since it was read; the edit still applied cleanly`)
    }
  }
  for (const w of result.warnings) lines.push(`warning ${w.code}: ${w.message}`)
  if (result.dryRun) lines.push('dry run: nothing written')
  if (result.transaction !== undefined) lines.push(`transaction ${result.transaction}`)
  if (result.diagnostics !== undefined) lines.push(...diagnosticLines(result.diagnostics))
  if (omitted > 0) {
    const why = diffsRendered
      ? `the diffs past the first ${MAX_RESULT_DIFF_BYTES / 1024} KiB`
      : `the patch is over ${MAX_RESULT_DIFF_BYTES / 1024} KiB`
    lines.push(
      `diffs omitted for ${omitted} file${omitted === 1 ? '' : 's'} (${why}); the counts and hashes above are complete`,
    )
  }
  const shown = diffs.filter((d) => d !== '')
  if (shown.length > 0) lines.push('', ...shown.map((d) => d.replace(/\n$/, '')))
  return { ok: true, structured, text: lines.join('\n') }
}

export function undoOutcome(result: UndoResult): ToolOutcome {
  const summary = result.files
    .map((f) => `${f.op === 'remove' ? 'D' : 'M'} ${f.path} (${f.op})`)
    .join('\n')
  const structured = {
    transaction: result.transaction,
    undone: result.undone,
    summary,
    files: result.files.map((f) => ({
      path: f.path,
      op: f.op,
      content_hash: f.afterHash,
      previous_hash: f.beforeHash,
    })),
  }
  const lines = [`undid ${result.undone} (as transaction ${result.transaction})`, summary]
  for (const f of result.files) {
    if (f.afterHash !== null) lines.push(`content_hash ${f.path}: ${f.afterHash}`)
  }
  return { ok: true, structured, text: lines.join('\n') }
}

export function diagnosticsOutcome(report: DiagnosticsReport): ToolOutcome {
  // The standalone report lists every current diagnostic as `introduced` (none before).
  const all = [...report.introduced, ...report.remaining]
  const structured = {
    diagnostics: all.map(diagnosticOf),
    settled: report.settled,
    waited_ms: report.waitedMs,
  }
  const lines = all.map(diagnosticLine)
  if (lines.length === 0)
    lines.push(report.settled ? 'no diagnostics' : 'no diagnostics (servers did not settle)')
  return { ok: true, structured, text: lines.join('\n') }
}

function reportOf(report: DiagnosticsReport): Record<string, unknown> {
  return {
    introduced: report.introduced.map(diagnosticOf),
    resolved: report.resolved.map(diagnosticOf),
    settled: report.settled,
    waited_ms: report.waitedMs,
  }
}

function diagnosticOf(d: FileDiagnostic): Record<string, unknown> {
  return {
    path: d.path,
    line: d.line,
    column: d.column,
    severity: d.severity,
    message: d.message,
    ...(d.source === undefined ? {} : { source: d.source }),
    ...(d.code === undefined ? {} : { code: d.code }),
  }
}

function diagnosticLine(d: FileDiagnostic): string {
  return `${d.path}:${d.line}:${d.column} ${d.severity}: ${d.message}`
}

function diagnosticLines(report: DiagnosticsReport): string[] {
  const lines = [
    ...report.introduced.map((d) => `introduced ${diagnosticLine(d)}`),
    ...report.resolved.map((d) => `resolved ${diagnosticLine(d)}`),
  ]
  if (!report.settled) lines.push('diagnostics: not every language server settled')
  return lines
}
