// What the edit service tells its observers (the serve command's metrics and log lines): each
// tool call as it ends, each admission refusal, each wait for the server's per-file lock and each
// lock turn of a workspace journal's commit. Plain data, called synchronously on the request's
// path, so an observer must be cheap and must not throw. The service works without one.
import type { CommitBatchStats } from '../journal/records.js'
import type { ToolName } from './tools.js'

/** One finished tool call. */
export interface ToolCallRecord {
  readonly tool: ToolName
  /** 'ok', or the error code of the refusal. */
  readonly outcome: string
  /** Wall time from the service taking the call to its outcome, admission included. */
  readonly ms: number
  readonly requestId: string
  /** The workspace it ran on; undefined when the call named none the caller may use. */
  readonly workspace: string | undefined
  readonly agent: string
}

/** Which limit refused a call: the service's queues (SERVER_BUSY) or HTTP's per-client limit (429). */
export type BusyLimit = 'total' | 'workspace' | 'agent' | 'client'

export interface ServerObserver {
  toolCall(call: ToolCallRecord): void
  busy(limit: BusyLimit): void
  /** A JSON-edit transaction's wait for the server's per-file lock (Workspace.lock). */
  serverLockWait(ms: number): void
  /** One lock turn of a workspace journal's commit. */
  commitBatch(workspace: string, stats: CommitBatchStats): void
}

/** One observer telling each of `observers` in turn. */
export function allOf(...observers: readonly ServerObserver[]): ServerObserver {
  return {
    toolCall: (call) => {
      for (const o of observers) o.toolCall(call)
    },
    busy: (limit) => {
      for (const o of observers) o.busy(limit)
    },
    serverLockWait: (ms) => {
      for (const o of observers) o.serverLockWait(ms)
    },
    commitBatch: (workspace, stats) => {
      for (const o of observers) o.commitBatch(workspace, stats)
    },
  }
}
