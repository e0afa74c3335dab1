// The plain-data reports the pool returns: one ServerReport per (adapter, root) a request
// touched (ready and settled, timed out, unavailable, crashed) and the DiagnosticsReport that
// joins the compared diagnostics with them. Paths become workspace-relative here. Deciding a
// server's state is the pool's (sidecar-pool.ts, sidecar-health.ts); comparing is diagnostics.ts's.

import type { LspAdapter } from './adapter.js'
import { workspaceRelativePath } from './diagnostics.js'
import type { SessionExit, SettledDiagnostics } from './session-types.js'
import type { DiagnosticsReport, ServerReport, ServerState } from './reports.js'

const STDERR_IN_MESSAGE_CHARS = 400

/** The error code each unavailable state reports (ERRORS.md). */
const UNAVAILABLE_CODES: Record<
  Exclude<ServerState, 'ready'>,
  NonNullable<ServerReport['code']>
> = {
  'not-installed': 'LSP_NOT_INSTALLED',
  'start-failed': 'LSP_START_FAILED',
  broken: 'LSP_START_FAILED',
  crashed: 'LSP_CRASHED',
}

/** Which server a report is about: an adapter and its absolute project root. */
export interface ServerPlace {
  readonly adapter: LspAdapter
  readonly root: string
}

/** One group's result: its server's report, and what it settled on when it was ready. */
export interface GroupOutcome {
  readonly report: ServerReport
  readonly result?: SettledDiagnostics
}

export function unavailableReport(
  workspaceRoot: string,
  where: ServerPlace,
  state: Exclude<ServerState, 'ready'>,
  message: string,
  waitedMs = 0,
): ServerReport {
  return {
    adapter: where.adapter.id,
    root: workspaceRelativePath(where.root, workspaceRoot),
    state,
    code: UNAVAILABLE_CODES[state],
    settled: false,
    waitedMs: Math.round(waitedMs),
    signal: 'unavailable',
    message,
  }
}

export function crashedReport(
  workspaceRoot: string,
  server: ServerPlace,
  exit: SessionExit,
  waitedMs: number,
): ServerReport {
  const message =
    `${server.adapter.name} for ${workspaceRelativePath(server.root, workspaceRoot)} ` +
    `${exitSentence(exit)} while diagnostics were pending; it restarts on next use.`
  return unavailableReport(workspaceRoot, server, 'crashed', message, waitedMs)
}

export function settledReport(
  workspaceRoot: string,
  group: ServerPlace,
  result: SettledDiagnostics,
): ServerReport {
  const rel = (abs: string): string => workspaceRelativePath(abs, workspaceRoot)
  const pending = result.pending.map(rel)
  return {
    adapter: group.adapter.id,
    root: rel(group.root),
    state: 'ready',
    settled: result.settled,
    waitedMs: result.waitedMs,
    signal: result.signal,
    ...(pending.length === 0 ? {} : { pending }),
    ...(result.settled
      ? {}
      : {
          code: 'LSP_TIMEOUT' as const,
          message:
            `${group.adapter.name} for ${rel(group.root)} did not settle within ` +
            `${result.waitedMs} ms; diagnostics may be incomplete` +
            (pending.length === 0 ? '.' : ` for ${pending.join(', ')}.`),
        }),
  }
}

export function reportOf(
  compared: Pick<DiagnosticsReport, 'introduced' | 'resolved' | 'remaining' | 'omitted'>,
  outcomes: readonly GroupOutcome[],
): DiagnosticsReport {
  const servers = outcomes.map((o) => o.report)
  return {
    introduced: compared.introduced,
    resolved: compared.resolved,
    remaining: compared.remaining,
    settled: servers.every((s) => s.settled),
    waitedMs: Math.max(0, ...servers.map((s) => s.waitedMs)),
    servers,
    ...(compared.omitted === undefined ? {} : { omitted: compared.omitted }),
  }
}

export function exitSentence(exit: SessionExit): string {
  const how = exit.signal === null ? `code ${String(exit.code)}` : `signal ${exit.signal}`
  const tail = exit.stderrTail.trim().slice(-STDERR_IN_MESSAGE_CHARS)
  return `exited unexpectedly (${how})${tail === '' ? '' : `: ${tail}`}`
}
