// What one server session has said about its documents, and the wait for an answer that
// reflects their current versions: pushed diagnostics settled by settle.ts's tracker, or
// textDocument/diagnostic pulls (retried while the server says its answer went stale). Both end
// in SettledDiagnostics with LSP's 0-based positions kept. Which of the two to use, and the
// documents and process themselves, are the session's (session.ts, documents.ts).

import { performance } from 'node:perf_hooks'
import type { MessageConnection } from 'vscode-jsonrpc/node'
import {
  CancellationTokenSource,
  DocumentDiagnosticRequest,
  LSPErrorCodes,
  ResponseError,
  type Diagnostic,
  type DocumentDiagnosticReport,
} from 'vscode-languageserver-protocol'
import type { SettleFacts } from './adapter.js'
import { uriOf } from './documents.js'
import { delay } from './process-group.js'
import type { RawDiagnostic, SessionExit, SettledDiagnostics } from './session-types.js'
import { SettleTracker, type SettleEvent } from './settle.js'

/** What the wait needs from its session. */
export interface WaitChannel {
  readonly connection: () => MessageConnection | undefined
  /** The process's exit, once it has gone. */
  readonly exit: () => SessionExit | undefined
  /** Settles when the process exits; only asked for once the process runs. */
  readonly exited: () => Promise<SessionExit>
  readonly openPaths: () => readonly string[]
  readonly isDeleted: (path: string) => boolean
}

interface PulledResult {
  readonly resultId: string | undefined
  readonly items: readonly RawDiagnostic[]
}

/** Published and pulled diagnostics of one session, and the waits on them. */
export class DiagnosticsWait {
  readonly #channel: WaitChannel
  readonly #tracker: SettleTracker
  readonly #published = new Map<string, readonly RawDiagnostic[]>()
  readonly #pulled = new Map<string, PulledResult>()
  /** Re-evaluate waiting diagnostics() calls; called after every tracked event and on exit. */
  readonly #wakers = new Set<() => void>()

  constructor(settle: SettleFacts, channel: WaitChannel) {
    this.#channel = channel
    this.#tracker = new SettleTracker(settle)
  }

  /** The quiet window this server has earned so far (see settle.ts). */
  get quietWindowMs(): number {
    return this.#tracker.quietWindowMs
  }

  record(event: SettleEvent): void {
    this.#tracker.record(event, performance.now())
    this.wake()
  }

  /** Lets every waiting call look again (after an event, or the process's exit). */
  wake(): void {
    for (const wake of [...this.#wakers]) wake()
  }

  /** textDocument/publishDiagnostics for an absolute path. */
  publish(path: string, diagnostics: readonly Diagnostic[], version: number | undefined): void {
    this.#published.set(path, diagnostics.map(toRaw))
    this.record({
      kind: 'publish',
      path,
      ...(typeof version === 'number' ? { version } : {}),
    })
  }

  /** Drops what the server said about a deleted document. */
  forget(path: string): void {
    this.#published.delete(path)
    this.#pulled.delete(path)
  }

  waitForPush(
    paths: readonly string[],
    startMs: number,
    deadlineMs: number,
  ): Promise<SettledDiagnostics> {
    return new Promise((resolve) => {
      let wakeTimer: NodeJS.Timeout | undefined
      const finish = (result: SettledDiagnostics): void => {
        clearTimeout(wakeTimer)
        clearTimeout(deadlineTimer)
        this.#wakers.delete(wake)
        resolve(result)
      }
      const evaluate = (atDeadline = false): void => {
        const now = performance.now()
        if (this.#channel.exit() !== undefined) {
          finish(unavailable(paths, now - startMs))
          return
        }
        const check = this.#tracker.check(paths, now)
        if (check.settled) {
          // Other open documents (importers of the edited ones) come along with what the server
          // last published for them: push servers re-publish them within the quiet window.
          const others = this.#channel
            .openPaths()
            .filter((path) => !paths.includes(path) && this.#published.has(path))
            .map((path) => [path, this.#published.get(path) ?? []] as const)
          finish({
            byPath: new Map([
              ...paths.map((path) => [path, this.#published.get(path) ?? []] as const),
              ...others,
            ]),
            settled: true,
            waitedMs: Math.round(now - startMs),
            signal: check.signal,
            pending: [],
          })
          return
        }
        clearTimeout(wakeTimer)
        wakeTimer =
          check.wakeAtMs === undefined
            ? undefined
            : setTimeout(evaluate, Math.max(0, Math.ceil(check.wakeAtMs - now)))
        // The deadline timer forces the answer: timers may fire a fraction early by this clock.
        if (atDeadline || now - startMs >= deadlineMs) {
          finish({
            byPath: new Map(
              paths.flatMap((path) => {
                const items = this.#published.get(path)
                return items === undefined ? [] : [[path, items] as const]
              }),
            ),
            settled: false,
            waitedMs: Math.round(now - startMs),
            signal: 'deadline',
            pending: check.pending,
          })
        }
      }
      const deadlineTimer = setTimeout(() => evaluate(true), Math.max(0, deadlineMs))
      const wake = (): void => evaluate()
      this.#wakers.add(wake)
      evaluate()
    })
  }

  async pull(
    paths: readonly string[],
    others: readonly string[],
    identifier: string | undefined,
    startMs: number,
    deadlineMs: number,
  ): Promise<SettledDiagnostics> {
    const cancel = new CancellationTokenSource()
    const deadline = delay(deadlineMs, 'deadline' as const)
    const all = [...paths, ...others]
    const answers = await Promise.all(
      all.map(async (path) => {
        if (this.#channel.isDeleted(path)) return [path, [] as readonly RawDiagnostic[]] as const
        const answer = await Promise.race([
          this.#pullOne(path, identifier, cancel, startMs + deadlineMs),
          deadline,
          this.#channel.exited().then(() => 'exit' as const),
        ])
        return [path, answer] as const
      }),
    )
    cancel.cancel()
    cancel.dispose()
    const byPath = new Map<string, readonly RawDiagnostic[]>()
    const pending: string[] = []
    let timedOut = false
    for (const [path, answer] of answers) {
      if (Array.isArray(answer)) {
        byPath.set(path, answer)
        continue
      }
      if (answer === 'deadline') timedOut = true
      // Importers that could not be checked are not what was asked about; leave them out.
      if (paths.includes(path) || answer === 'deadline') pending.push(path)
    }
    const waitedMs = Math.round(performance.now() - startMs)
    if (this.#channel.exit() !== undefined) return unavailable(paths, waitedMs)
    return {
      byPath,
      settled: pending.length === 0,
      waitedMs,
      signal: timedOut ? 'deadline' : 'pull',
      pending,
    }
  }

  /** One textDocument/diagnostic, retried while the server says its answer went stale. */
  async #pullOne(
    path: string,
    identifier: string | undefined,
    cancel: CancellationTokenSource,
    deadlineAtMs: number,
  ): Promise<readonly RawDiagnostic[] | 'failed'> {
    const connection = this.#channel.connection()
    if (connection === undefined) return 'failed'
    while (!cancel.token.isCancellationRequested && performance.now() < deadlineAtMs) {
      const previous = this.#pulled.get(path)
      let report: DocumentDiagnosticReport
      try {
        report = await connection.sendRequest(
          DocumentDiagnosticRequest.type,
          {
            textDocument: { uri: uriOf(path) },
            ...(identifier === undefined ? {} : { identifier }),
            ...(previous?.resultId === undefined ? {} : { previousResultId: previous.resultId }),
          },
          cancel.token,
        )
      } catch (error) {
        if (isRetriggerable(error)) continue
        return 'failed'
      }
      if (report.kind === 'unchanged') {
        if (previous !== undefined) return previous.items
        // Unchanged against nothing we hold: ask again without a previous result.
        this.#pulled.delete(path)
        continue
      }
      const items = report.items.map(toRaw)
      this.#pulled.set(path, { resultId: report.resultId, items })
      return items
    }
    return 'failed'
  }
}

/** The answer when the server is not running: nothing known, everything pending. */
export function unavailable(paths: readonly string[], waitedMs: number): SettledDiagnostics {
  return { byPath: new Map(), settled: false, waitedMs, signal: 'unavailable', pending: paths }
}

function isRetriggerable(error: unknown): boolean {
  if (!(error instanceof ResponseError)) return false
  if (error.code === LSPErrorCodes.ContentModified) return true
  if (error.code !== LSPErrorCodes.ServerCancelled) return false
  const data = error.data as { retriggerRequest?: unknown } | undefined
  return data?.retriggerRequest !== false
}

function toRaw(diagnostic: Diagnostic): RawDiagnostic {
  const severity = diagnostic.severity
  return {
    range: {
      start: { line: diagnostic.range.start.line, character: diagnostic.range.start.character },
      end: { line: diagnostic.range.end.line, character: diagnostic.range.end.character },
    },
    ...(severity === 1 || severity === 2 || severity === 3 || severity === 4 ? { severity } : {}),
    ...(diagnostic.code === undefined ? {} : { code: diagnostic.code }),
    ...(diagnostic.source === undefined ? {} : { source: diagnostic.source }),
    // LSP 3.18 allows markup here; agents get its text.
    message: typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value,
  }
}
