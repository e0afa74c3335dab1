// The server commands' log on stderr: one line per event, as a JSON object (the default) or as
// the human-readable `patchloom: ...` sentence. Events are the server's start, workspaces'
// recovery, errors, the drain and the stop, each with a `message`, and one `tool.call` line per
// tool call with its request id, tool, workspace, agent, outcome and milliseconds. Call lines are
// written together, at most FLUSH_MS after the first of them (or once 16 KiB wait): one write
// for many calls, not one each; every other event writes at once, with anything waiting first.
import type { BusyLimit, ServerObserver, ToolCallRecord } from './observe.js'
import type { CommitBatchStats } from '../journal/records.js'

export type LogFormat = 'json' | 'text'
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text']

export type LogLevel = 'info' | 'warn' | 'error'

type Fields = Readonly<Record<string, unknown>>

/** How long a call's line may wait to be written with others. */
const FLUSH_MS = 20
const FLUSH_BYTES = 16 * 1024

export class LineLog implements ServerObserver {
  readonly #format: LogFormat
  readonly #write: (text: string) => void
  #pending = ''
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(format: LogFormat, write: (text: string) => void) {
    this.#format = format
    this.#write = write
  }

  /** One event: `message` is the sentence the text format prints; `fields` go in the JSON. */
  event(level: LogLevel, event: string, message: string, fields: Fields = {}): void {
    this.#pending +=
      this.#format === 'json'
        ? `${JSON.stringify({ time: new Date().toISOString(), level, event, message, ...fields })}\n`
        : `patchloom: ${message}\n`
    this.flush()
  }

  // PERF: on every call (bench/server-costs.bench.ts, the observed service row): the line is
  // put together by hand, each string through JSON.stringify only when it is not plain.
  toolCall(call: ToolCallRecord): void {
    const ms = Math.round(call.ms * 100) / 100
    const level: LogLevel = call.outcome === 'INTERNAL' ? 'error' : 'info'
    if (this.#format === 'json') {
      const workspace = call.workspace === undefined ? 'null' : quoted(call.workspace)
      this.#pending += `{"time":"${new Date().toISOString()}","level":"${level}","event":"tool.call","request_id":${quoted(call.requestId)},"tool":${quoted(call.tool)},"workspace":${workspace},"agent":${quoted(call.agent)},"outcome":${quoted(call.outcome)},"ms":${ms}}\n`
    } else {
      this.#pending += `patchloom: ${call.tool} ${call.outcome} in ${ms} ms (request ${call.requestId}, workspace ${call.workspace ?? '-'}, agent ${call.agent})\n`
    }
    if (this.#pending.length >= FLUSH_BYTES) this.flush()
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.flush(), FLUSH_MS)
      // Waiting lines never keep the process alive; the last event (the stop) writes them.
      this.#timer.unref()
    }
  }

  busy(_limit: BusyLimit): void {}

  serverLockWait(_ms: number): void {}

  commitBatch(_workspace: string, _stats: CommitBatchStats): void {}

  /** Writes every line waiting. */
  flush(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#pending === '') return
    const text = this.#pending
    this.#pending = ''
    this.#write(text)
  }
}

/** Characters a JSON string holds as they are: what names, codes and ids are made of. */
const PLAIN = /^[A-Za-z0-9._:@/ -]*$/

function quoted(text: string): string {
  return PLAIN.test(text) ? `"${text}"` : JSON.stringify(text)
}
