// Pure rendering for the CLI: results, parse-only summaries, journal reports (undo, log,
// recover) and errors as human text or as the one JSON line agents read, plus the exit status
// each outcome maps to. No I/O here: main.ts and the commands decide where the strings go
// (stdout for results, stderr for human errors).
import type { EditErrorData } from '../errors.js'
import {
  undoCommandFor,
  type AppliedResult as CliApplyResult,
  type FailedResult,
} from '../render/result-line.js'
import type {
  RecoveryReport,
  TransactionFile,
  TransactionInfo,
  UndoResult,
} from '../journal/records.js'
import type { PatchFileSummary } from '../parse/summary.js'
import type { DiagnosticsReport, FileDiagnostic } from '../lsp/reports.js'
import type { ApplyResult, PatchFormat, Warning } from '../types.js'
import { renderFileLine } from '../render/file-line.js'

export {
  failedResult,
  internalErrorData,
  shellQuote,
  undoCommandFor,
  withUndoCommand,
} from '../render/result-line.js'
export type { CliApplyResult, FailedResult }

/** Exit statuses (sysexits.h where one fits). */
export const EXIT = {
  OK: 0,
  REJECTED: 1,
  USAGE: 64,
  INTERNAL: 70,
  RETRYABLE: 75,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** Maps a failure to its exit status: usage 64, internal 70, retryable 75, anything else 1. */
export function exitCodeFor(error: EditErrorData): ExitCode {
  if (error.code === 'USAGE_INVALID') return EXIT.USAGE
  if (error.code === 'INTERNAL') return EXIT.INTERNAL
  return error.retryable ? EXIT.RETRYABLE : EXIT.REJECTED
}

export interface ParseOnlyResult {
  readonly ok: true
  readonly format: PatchFormat
  readonly parseOnly: true
  readonly files: readonly PatchFileSummary[]
  readonly warnings?: readonly Warning[]
}

/** `patchloom recover --json`: the engine's RecoveryReport, flat. */
export interface RecoverResult extends RecoveryReport {
  readonly ok: true
}

/** `patchloom undo --json`: the engine's UndoResult, flat. */
export interface UndoOutput extends UndoResult {
  readonly ok: true
}

/** `patchloom log --json`: newest first; `omitted` counts older ones left out by the limit. */
export interface LogResult {
  readonly ok: true
  readonly transactions: readonly TransactionInfo[]
  readonly omitted?: number
}

export type CliJsonResult =
  CliApplyResult | FailedResult | ParseOnlyResult | RecoverResult | UndoOutput | LogResult

/** Exactly one line of JSON, newline-terminated. */
export function renderJsonLine(value: CliJsonResult): string {
  return `${JSON.stringify(value)}\n`
}

export function parseOnlyResult(
  format: PatchFormat,
  files: readonly PatchFileSummary[],
  warnings: readonly Warning[] = [],
): ParseOnlyResult {
  const result = { ok: true, format, parseOnly: true, files } as const
  return warnings.length === 0 ? result : { ...result, warnings }
}

/** Human report of an apply or dry run, for stdout. */
export function renderApplyHuman(result: ApplyResult & { readonly undoCommand?: string }): string {
  const lines = result.files.map((file) => renderFileLine(file))
  // Warning messages name their path and patch line themselves (house style), so no suffix.
  for (const warning of result.warnings) lines.push(`warning ${warning.code}: ${warning.message}`)
  if (result.files.length === 0) lines.unshift('no changes')
  if (result.dryRun) lines.push('dry run: nothing written')
  if (result.transaction !== undefined) {
    const undo = result.undoCommand ?? undoCommandFor(result.transaction, null)
    lines.push(`transaction ${result.transaction} (undo: ${undo})`)
  }
  if (result.diagnostics !== undefined)
    lines.push(...diagnosticsLines(result.diagnostics, 'change'))
  return `${lines.join('\n')}\n`
}

/** `path:line:col severity code: message`, the shape compilers print. */
export function formatDiagnostic(d: FileDiagnostic): string {
  const code = d.code === undefined ? '' : ` ${d.source === 'ts' ? 'TS' : ''}${d.code}`
  return `${d.path}:${d.line}:${d.column} ${d.severity}${code}: ${d.message.split('\n')[0] ?? ''}`
}

/** Human block for `apply --diagnostics` (kind 'change') and `patchloom diagnostics` ('files'). */
export function renderDiagnosticsHuman(report: DiagnosticsReport): string {
  return `${diagnosticsLines(report, 'files').join('\n')}\n`
}

function diagnosticsLines(report: DiagnosticsReport, kind: 'change' | 'files'): string[] {
  const servers = report.servers
    .map((s) => {
      const how = s.settled
        ? `settled in ${s.waitedMs} ms via ${s.signal}`
        : s.state === 'ready'
          ? `NOT settled after ${s.waitedMs} ms`
          : s.state
      return `${s.adapter}${s.root === '.' ? '' : ` (${s.root})`}: ${how}`
    })
    .join('; ')
  const lines = [
    `diagnostics${servers === '' ? ': no language server for these files' : ` (${servers})`}:`,
  ]
  if (kind === 'change') {
    for (const d of report.introduced) lines.push(`  + ${formatDiagnostic(d)}`)
    for (const d of report.resolved) lines.push(`  - ${formatDiagnostic(d)} (resolved)`)
    if (report.remaining.length > 0)
      lines.push(`  ${report.remaining.length} already present before the change`)
    if (report.introduced.length === 0 && report.resolved.length === 0 && report.settled)
      lines.push('  no new errors')
  } else {
    for (const d of report.remaining) lines.push(`  ${formatDiagnostic(d)}`)
    if (report.remaining.length === 0 && report.settled) lines.push('  no errors')
  }
  for (const [path, count] of Object.entries(report.omitted ?? {}))
    lines.push(`  ... and ${count} more in ${path}`)
  for (const s of report.servers)
    if (s.message !== undefined) {
      lines.push(`  ${s.adapter}: ${s.code === undefined ? '' : `${s.code} `}${s.message}`)
    }
  if (!report.settled)
    lines.push(
      '  warning: not every server settled; these lists may be incomplete (not a clean result)',
    )
  return lines
}

/** Human report of `check --parse-only`, for stdout. Unknown counts print as '?'. */
export function renderParseOnlyHuman(result: ParseOnlyResult): string {
  const lines = result.files.map((file) => renderFileLine(file))
  if (result.files.length === 0) lines.push('no changes')
  for (const warning of result.warnings ?? [])
    lines.push(`warning ${warning.code}: ${warning.message}`)
  lines.push(`parse only (${result.format}): no files read, nothing written`)
  return `${lines.join('\n')}\n`
}

/** Human report of a failure, for stderr: the error, its hint, and any near-miss candidates. */
export function renderErrorHuman(error: EditErrorData): string {
  const lines = [`error ${error.code}: ${error.message}`, `hint: ${error.hint}`]
  for (const candidate of error.candidates ?? []) {
    const preview = candidate.preview.replace(/\r?\n|\r/g, '\\n')
    lines.push(`  line ${candidate.fileLine} (score ${candidate.score.toFixed(2)}): ${preview}`)
  }
  return `${lines.join('\n')}\n`
}

/** Human report of `patchloom recover`, for stdout (conflicts included: they are the report). */
export function renderRecoverHuman(report: RecoveryReport): string {
  const lines: string[] = []
  for (const id of report.rolledBack)
    lines.push(`rolled back ${id}: it was interrupted; its files are as they were before it`)
  // A transaction refused as a whole carries a code; its reason says how to clear it.
  const refused = report.conflicts.filter((c) => c.code !== undefined)
  const fileConflicts = report.conflicts.filter((c) => c.code === undefined)
  for (const c of refused) lines.push(`not acted on: ${c.transaction} (${c.code}): ${c.reason}`)
  for (const c of fileConflicts) {
    lines.push(`conflict in ${c.transaction}: ${c.path}: ${c.reason}`)
    if (c.backup !== undefined) lines.push(`  its content before the change: ${c.backup}`)
  }
  if (fileConflicts.length > 0) {
    const files = fileConflicts.length === 1 ? '1 file' : `${fileConflicts.length} files`
    lines.push(
      `${files} left in conflict: put each back as you want it (the copies above hold the content before the change), then run \`patchloom recover\` again.`,
    )
  }
  // A rollback that finished but whose directory syncs failed (`journal.not-durable`).
  for (const warning of report.warnings ?? [])
    lines.push(`warning ${warning.code}: ${warning.message}`)
  if (lines.length === 0) lines.push('nothing to recover: no change was left half-done')
  return `${lines.join('\n')}\n`
}

/** Human report of `patchloom undo`, for stdout. */
export function renderUndoHuman(result: UndoResult): string {
  const lines = [`undid ${result.undone} (as transaction ${result.transaction})`]
  for (const file of result.files)
    lines.push(`${file.op === 'restore' ? 'restored' : 'removed'} ${file.path}`)
  // Printed as `apply` prints them: an undo that is not known to be durable says so.
  for (const warning of result.warnings ?? [])
    lines.push(`warning ${warning.code}: ${warning.message}`)
  return `${lines.join('\n')}\n`
}

/** What a log line says about a transaction's state: committed, undone by X, undo of X, ... */
export function transactionStatus(info: TransactionInfo): string {
  // Not written by this workspace's engine: what its manifest claims is not shown.
  if (info.untrusted === true) return `${info.status}, untrusted (never acted on)`
  if (info.status !== 'committed') return info.status
  const parts: string[] = []
  if (info.undoes !== undefined) parts.push(`undo of ${info.undoes}`)
  if (info.undoneBy !== undefined) parts.push(`undone by ${info.undoneBy}`)
  return parts.length === 0 ? 'committed' : parts.join(', ')
}

function transactionFileLine(file: TransactionFile): string {
  const target = file.from === undefined ? file.path : `${file.from} -> ${file.path}`
  return `  ${file.op} ${target} (+${file.additions} -${file.deletions})`
}

/**
 * Human `patchloom log`, for stdout: one line per transaction (id, ISO time in UTC, status,
 * files, +/- lines), its files indented below.
 */
export function renderLogHuman(result: LogResult): string {
  const lines: string[] = []
  for (const info of result.transactions) {
    const files = info.files.length === 1 ? '1 file' : `${info.files.length} files`
    const time = info.createdAt === '' ? 'unknown time' : info.createdAt
    const status = transactionStatus(info)
    lines.push(`${info.id}  ${time}  ${status}  ${files}  +${info.additions} -${info.deletions}`)
    for (const file of info.files) lines.push(transactionFileLine(file))
  }
  if (result.transactions.length === 0) lines.push('no transactions in the journal')
  const omitted = result.omitted ?? 0
  if (omitted > 0)
    lines.push(`... ${omitted} older transaction${omitted === 1 ? '' : 's'} (see more with -n N)`)
  return `${lines.join('\n')}\n`
}
