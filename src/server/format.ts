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

export function writeOutcome(
  result: ApplyResult,
  rebased: ReadonlyMap<string, string>,
): ToolOutcome {
  const summary =
    result.files.length === 0 ? 'no changes' : result.files.map(renderFileLine).join('\n')
  const structured = {
    dry_run: result.dryRun,
    summary,
    ...(result.transaction === undefined ? {} : { transaction: result.transaction }),
    files: result.files.map((f) => {
      const from = rebased.get(f.path)
      return {
        path: f.path,
        op: f.op,
        ...(f.from === undefined ? {} : { from: f.from }),
        content_hash: f.afterHash,
        previous_hash: f.beforeHash,
        additions: f.additions,
        deletions: f.deletions,
        diff: f.diff,
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
  const diffs = result.files.map((f) => f.diff).filter((d) => d !== '')
  if (diffs.length > 0) lines.push('', ...diffs.map((d) => d.replace(/\n$/, '')))
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
