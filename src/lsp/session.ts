// One language server process: spawn (no shell, own process group), initialize, listen, and stop.
// Document sync lives in documents.ts, the wait for diagnostics that reflect the current versions
// (pull where the server offers it, else push settled by settle.ts) in diagnostics-wait.ts,
// process-group kill and memory in process-group.ts, the initialize handshake in initialize.ts.
// LSP's 0-based positions stay in RawDiagnostic; the pool turns them into 1-based FileDiagnostics.
// The pool decides which server serves which file, when to start and when to stop; this module
// never fails an edit: it throws EditError only from start(). stop() must leave no process behind,
// shims' forked servers included.

import { spawn, type ChildProcess } from 'node:child_process'
import { resolve as resolvePath } from 'node:path'
import { performance } from 'node:perf_hooks'
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node'
import {
  ConfigurationRequest,
  DiagnosticRefreshRequest,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ResponseError,
  ShowMessageRequest,
  ShutdownRequest,
  UnregistrationRequest,
  WorkDoneProgressCreateRequest,
  WorkspaceFoldersRequest,
  type ServerCapabilities,
} from 'vscode-languageserver-protocol'
import { EditError } from '../errors.js'
import type { LspAdapter } from './adapter.js'
import { DiagnosticsWait, unavailable } from './diagnostics-wait.js'
import { OpenDocuments, pathOf, syncOptionsOf } from './documents.js'
import { initializeParams, raceInitialize, settingFor, workspaceFolder } from './initialize.js'
import { delay, groupRssBytes, killGroup, waitFor } from './process-group.js'
import type { Session, SessionExit, SessionOptions, SettledDiagnostics } from './session-types.js'

// Moved to documents.ts; still importable from here (tests and bench use it).
export { incrementalChange } from './documents.js'

/** @default for SessionOptions.initializeTimeoutMs */
export const INITIALIZE_TIMEOUT_MS = 30_000
/** @default for stop(graceMs) */
export const STOP_GRACE_MS = 2000
/** How much of the server's stderr is kept for crash and start-failure messages. */
export const STDERR_TAIL_CHARS = 4096

/** Creates a session; nothing runs until start(). */
export function createSession(options: SessionOptions): Session {
  return new LspSession(options)
}

/** One language server process speaking LSP over stdio. */
export class LspSession implements Session {
  readonly adapter: LspAdapter
  readonly root: string
  readonly #options: SessionOptions
  readonly #documents: OpenDocuments
  readonly #diagnostics: DiagnosticsWait
  #child: ChildProcess | undefined
  #connection: MessageConnection | undefined
  #capabilities: ServerCapabilities | undefined
  #stderrTail = ''
  #exit: SessionExit | undefined
  #exited: Promise<SessionExit> | undefined
  #stopping: Promise<void> | undefined
  #started = false

  constructor(options: SessionOptions) {
    this.#options = options
    this.adapter = options.adapter
    this.root = options.root
    this.#diagnostics = new DiagnosticsWait(options.adapter.settle, {
      connection: () => this.#connection,
      exit: () => this.#exit,
      exited: () => this.#exited!,
      openPaths: () => this.#documents.openPaths(),
      isDeleted: (path) => this.#documents.isDeleted(path),
    })
    this.#documents = new OpenDocuments({
      adapter: options.adapter,
      syncOptions: () => syncOptionsOf(this.#capabilities),
      notify: (method, params) => this.#notify(method, params),
      forget: (path) => this.#diagnostics.forget(path),
      record: (event) => this.#diagnostics.record(event),
    })
  }

  get pid(): number | undefined {
    return this.#child?.pid
  }

  /** The quiet window this server has earned so far (see settle.ts). */
  get quietWindowMs(): number {
    return this.#diagnostics.quietWindowMs
  }

  /** What the server declared in its initialize answer (undefined before start). */
  get capabilities(): ServerCapabilities | undefined {
    return this.#capabilities
  }

  /** True once the process has exited, expectedly or not. */
  get exited(): boolean {
    return this.#exit !== undefined
  }

  /**
   * Sends a request the Session interface does not cover (a server's own extensions, the fake
   * server's test/* controls). Rejects when the server is not running or answers with an error.
   */
  request<R>(method: string, params?: unknown): Promise<R> {
    const connection = this.#connection
    if (connection === undefined || this.#exit !== undefined) {
      return Promise.reject(new Error(`LspSession: cannot send ${method} when not running`))
    }
    // As in #notify: no params must mean none on the wire, not `[null]`.
    return params === undefined
      ? connection.sendRequest<R>(method)
      : connection.sendRequest<R>(method, params)
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('LspSession: cannot start twice')
    this.#started = true
    const { command, args } = this.#options.command
    const child = await this.#spawn(command, args)
    const connection = createMessageConnection(
      new StreamMessageReader(child.stdout!),
      new StreamMessageWriter(child.stdin!),
      SILENT_LOGGER,
    )
    this.#connection = connection
    this.#listen(connection)
    connection.listen()

    const timeoutMs = this.#options.initializeTimeoutMs ?? INITIALIZE_TIMEOUT_MS
    const outcome = await raceInitialize(
      connection.sendRequest(InitializeRequest.type, initializeParams(this.adapter, this.root)),
      this.#exited!,
      timeoutMs,
    )
    if (outcome.kind !== 'ok') {
      await this.stop(200)
      const reason =
        outcome.kind === 'timeout'
          ? `did not answer initialize within ${timeoutMs} ms`
          : outcome.kind === 'exit'
            ? `exited during initialize (${describeExit(outcome.exit)})`
            : `rejected initialize: ${outcome.message}`
      throw new EditError(
        'LSP_START_FAILED',
        `${this.adapter.name} (${command}) ${reason}${tailSuffix(this.#stderrTail)}`,
      )
    }
    this.#capabilities = outcome.result.capabilities
    this.#notify(InitializedNotification.type.method, {})
  }

  sync(docs: Parameters<Session['sync']>[0]): void {
    this.#documents.sync(docs)
  }

  save(paths: readonly string[]): void {
    this.#documents.save(paths)
  }

  async diagnostics(paths: readonly string[], deadlineMs: number): Promise<SettledDiagnostics> {
    const startMs = performance.now()
    const absolute = [...new Set(paths.map((path) => resolvePath(path)))]
    this.#documents.touch(absolute, startMs)
    if (this.#exit !== undefined || this.#connection === undefined) {
      return unavailable(absolute, 0)
    }
    const provider = this.#capabilities?.diagnosticProvider
    if (this.adapter.settle.pull && provider !== undefined) {
      const identifier = 'identifier' in provider ? provider.identifier : undefined
      const others = provider.interFileDependencies
        ? this.#documents.openPaths().filter((path) => !absolute.includes(path))
        : []
      return this.#diagnostics.pull(absolute, others, identifier, startMs, deadlineMs)
    }
    return this.#diagnostics.waitForPush(absolute, startMs, deadlineMs)
  }

  closeIdle(idleMs: number): void {
    this.#documents.closeIdle(idleMs)
  }

  async rssBytes(): Promise<number | undefined> {
    const pid = this.#child?.pid
    if (pid === undefined || this.#exit !== undefined) return undefined
    return groupRssBytes(pid)
  }

  stop(graceMs: number = STOP_GRACE_MS): Promise<void> {
    this.#stopping ??= this.#stopNow(graceMs)
    return this.#stopping
  }

  async #stopNow(graceMs: number): Promise<void> {
    const child = this.#child
    const connection = this.#connection
    if (child === undefined || this.#exited === undefined) {
      connection?.dispose()
      return
    }
    if (this.#exit === undefined && connection !== undefined) {
      const shutdown = connection.sendRequest(ShutdownRequest.type).then(
        () => 'done' as const,
        () => 'failed' as const,
      )
      await Promise.race([shutdown, delay(graceMs, 'timeout' as const)])
      // exit even when shutdown failed or hung: a server that still reads stdin may yet obey it.
      this.#notify(ExitNotification.type.method, undefined)
    }
    if ((await waitFor(this.#exited, graceMs)) === undefined) {
      killGroup(child, 'SIGTERM')
      if ((await waitFor(this.#exited, graceMs)) === undefined) {
        killGroup(child, 'SIGKILL')
        await this.#exited
      }
    }
    connection?.dispose()
  }

  #spawn(command: string, args: readonly string[]): Promise<ChildProcess> {
    return new Promise((resolve, reject) => {
      let child: ChildProcess
      try {
        child = spawn(command, [...args], {
          cwd: this.root,
          stdio: ['pipe', 'pipe', 'pipe'],
          detached: process.platform !== 'win32',
          windowsHide: true,
        })
      } catch (error) {
        reject(startFailed(this.adapter, command, error))
        return
      }
      // Kept after spawn too: an 'error' without a listener (a failed kill) would throw.
      child.on('error', (error) => reject(startFailed(this.adapter, command, error)))
      child.once('spawn', () => {
        this.#child = child
        this.#exited = new Promise((done) => {
          child.once('exit', (code, signal) => {
            const exit: SessionExit = { code, signal, stderrTail: this.#stderrTail }
            this.#exit = exit
            // Leftovers of the group (a shim's server) go with the leader.
            killGroup(child, 'SIGKILL')
            this.#connection?.dispose()
            this.#diagnostics.wake()
            if (this.#stopping === undefined && this.#capabilities !== undefined) {
              this.#options.onExit?.(exit)
            }
            done(exit)
          })
        })
        // Writes after the server died fail with EPIPE; the exit handler reports the death.
        child.stdin?.on('error', () => {})
        child.stderr?.setEncoding('utf8')
        child.stderr?.on('data', (chunk: string) => {
          this.#stderrTail = (this.#stderrTail + chunk).slice(-STDERR_TAIL_CHARS)
        })
        resolve(child)
      })
    })
  }

  #listen(connection: MessageConnection): void {
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      const path = pathOf(params.uri)
      if (path === undefined) return
      this.#diagnostics.publish(path, params.diagnostics, params.version)
    })
    connection.onUnhandledProgress((params) => {
      const value = params.value as { kind?: unknown } | null
      const token = String(params.token)
      if (value?.kind === 'begin') this.#diagnostics.record({ kind: 'progress-begin', token })
      else if (value?.kind === 'end') this.#diagnostics.record({ kind: 'progress-end', token })
    })
    connection.onNotification('experimental/serverStatus', (params: unknown) => {
      if (typeof params !== 'object' || params === null) return
      const status = params as { quiescent?: unknown; health?: unknown }
      if (typeof status.quiescent !== 'boolean') return
      this.#diagnostics.record({
        kind: 'server-status',
        quiescent: status.quiescent,
        ...(typeof status.health === 'string' ? { health: status.health } : {}),
      })
    })
    connection.onRequest(ConfigurationRequest.type, (params) =>
      params.items.map((item) => settingFor(this.adapter, item.section)),
    )
    connection.onRequest(WorkspaceFoldersRequest.type, () => [workspaceFolder(this.root)])
    connection.onRequest(WorkDoneProgressCreateRequest.type, () => undefined)
    connection.onRequest(RegistrationRequest.type, () => undefined)
    connection.onRequest(UnregistrationRequest.type, () => undefined)
    connection.onRequest(ShowMessageRequest.type, () => null)
    connection.onRequest(DiagnosticRefreshRequest.type, () => undefined)
    // (vscode-jsonrpc sends an undefined result as `result: null`.) Other */refresh requests
    // (semantic tokens, inlay hints, code lenses) ask an editor to redraw; there is nothing to
    // redraw. Anything else is genuinely unsupported.
    connection.onRequest((method) => {
      if (method.endsWith('/refresh')) return null
      return new ResponseError(-32601, `patchloom does not handle ${method}`)
    })
    // window/logMessage, telemetry/event, window/showMessage and the like are ignored on purpose.
    connection.onNotification(() => {})
    connection.onError(() => {})
    connection.onClose(() => {})
  }

  #notify(method: string, params: unknown): void {
    const connection = this.#connection
    if (connection === undefined || this.#exit !== undefined) return
    // No params means none on the wire: vscode-jsonrpc sends an explicit undefined as
    // `"params": [null]`, and tsc --lsp then ignores `exit` and keeps running.
    const sent =
      params === undefined
        ? connection.sendNotification(method)
        : connection.sendNotification(method, params)
    // A failed write means the server is gone; the exit handler reports that.
    sent.catch(() => {})
  }
}

const SILENT_LOGGER = {
  error: () => {},
  warn: () => {},
  info: () => {},
  log: () => {},
}

function startFailed(adapter: LspAdapter, command: string, error: unknown): EditError {
  const code = (error as { code?: unknown } | null)?.code
  const reason =
    code === 'ENOENT'
      ? 'was not found'
      : code === 'EACCES'
        ? 'is not executable'
        : `could not be started (${error instanceof Error ? error.message : String(error)})`
  return new EditError('LSP_START_FAILED', `${adapter.name} server command ${command} ${reason}.`, {
    cause: error,
  })
}

function tailSuffix(stderrTail: string): string {
  const tail = stderrTail.trim()
  return tail === '' ? '.' : `; stderr: ${tail.slice(-1000)}`
}

function describeExit(exit: SessionExit): string {
  return exit.signal === null ? `code ${exit.code ?? 'unknown'}` : `signal ${exit.signal}`
}
