// One language server process: spawn (no shell, own process group), initialize, keep documents
// in sync (didOpen, versioned didChange, didSave, didClose, watched-file events), and wait until
// its diagnostics reflect the current versions: pull where the server offers it, else push
// settled by src/lsp/settle.ts. LSP's 0-based positions stay in RawDiagnostic; the pool turns them
// into 1-based FileDiagnostics. The pool decides which server serves which file, when to start
// and when to stop; this module never fails an edit: it throws EditError only from start().
// Servers run in their own process group because some start commands are shims that fork the
// real server (typescript@7's bin/tsc under Node 20), and stop() must leave no process behind.

import { spawn, type ChildProcess } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { basename, resolve as resolvePath } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL } from 'node:url'
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node'
import {
  CancellationTokenSource,
  ConfigurationRequest,
  DiagnosticRefreshRequest,
  DidChangeTextDocumentNotification,
  DidChangeWatchedFilesNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DidSaveTextDocumentNotification,
  DocumentDiagnosticRequest,
  ExitNotification,
  FileChangeType,
  InitializedNotification,
  InitializeRequest,
  LSPErrorCodes,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ResponseError,
  ShowMessageRequest,
  ShutdownRequest,
  TextDocumentSyncKind,
  UnregistrationRequest,
  WorkDoneProgressCreateRequest,
  WorkspaceFoldersRequest,
  type ClientCapabilities,
  type Diagnostic,
  type DocumentDiagnosticReport,
  type FileEvent,
  type InitializeParams,
  type ServerCapabilities,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol'
import { EditError } from '../errors.js'
import { languageIdFor, type LspAdapter } from './adapter.js'
import type {
  RawDiagnostic,
  Session,
  SessionExit,
  SessionOptions,
  SettledDiagnostics,
} from './session-types.js'
import { SettleTracker, type SettleEvent } from './settle.js'

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

/** The one range edit that turns `oldText` into `newText`, in LSP (UTF-16) positions. */
export function incrementalChange(
  oldText: string,
  newText: string,
): { range: { start: Position; end: Position }; text: string } {
  const maxPrefix = Math.min(oldText.length, newText.length)
  let prefix = 0
  while (prefix < maxPrefix && oldText.charCodeAt(prefix) === newText.charCodeAt(prefix)) prefix++
  // Never split a surrogate pair or a CRLF: servers count both as one unit of position.
  while (prefix > 0 && isPairBoundary(oldText, prefix)) prefix--
  const maxSuffix = Math.min(oldText.length, newText.length) - prefix
  let suffix = 0
  while (
    suffix < maxSuffix &&
    oldText.charCodeAt(oldText.length - 1 - suffix) ===
      newText.charCodeAt(newText.length - 1 - suffix)
  ) {
    suffix++
  }
  while (suffix > 0 && isPairBoundary(oldText, oldText.length - suffix)) suffix--
  return {
    range: {
      start: positionAt(oldText, prefix),
      end: positionAt(oldText, oldText.length - suffix),
    },
    text: newText.slice(prefix, newText.length - suffix),
  }
}

interface Position {
  line: number
  character: number
}

/** True when `index` falls inside a surrogate pair or between the \r and \n of a CRLF. */
function isPairBoundary(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return false
  const before = text.charCodeAt(index - 1)
  const after = text.charCodeAt(index)
  if (before === 0x0d && after === 0x0a) return true
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff
}

/** LSP position of a UTF-16 offset; \n, \r\n and a lone \r each end a line. */
function positionAt(text: string, offset: number): Position {
  let line = 0
  let lineStart = 0
  for (let index = 0; index < offset; index++) {
    const code = text.charCodeAt(index)
    if (code === 0x0a || (code === 0x0d && text.charCodeAt(index + 1) !== 0x0a)) {
      line++
      lineStart = index + 1
    }
  }
  return { line, character: offset - lineStart }
}

interface DocState {
  text: string
  version: number
  open: boolean
  lastTouchedMs: number
}

interface PulledResult {
  readonly resultId: string | undefined
  readonly items: readonly RawDiagnostic[]
}

type ServerSyncOptions = {
  readonly change: TextDocumentSyncKind
  readonly save: false | { readonly includeText: boolean }
}

/** One language server process speaking LSP over stdio. */
export class LspSession implements Session {
  readonly adapter: LspAdapter
  readonly root: string
  readonly #options: SessionOptions
  readonly #tracker: SettleTracker
  readonly #docs = new Map<string, DocState>()
  /** Last version per path, kept across close/reopen so versions only ever grow. */
  readonly #versions = new Map<string, number>()
  readonly #deleted = new Set<string>()
  readonly #published = new Map<string, readonly RawDiagnostic[]>()
  readonly #pulled = new Map<string, PulledResult>()
  /** Re-evaluate waiting diagnostics() calls; called after every tracked event and on exit. */
  readonly #wakers = new Set<() => void>()
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
    this.#tracker = new SettleTracker(options.adapter.settle)
  }

  get pid(): number | undefined {
    return this.#child?.pid
  }

  /** The quiet window this server has earned so far (see settle.ts). */
  get quietWindowMs(): number {
    return this.#tracker.quietWindowMs
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
      connection.sendRequest(InitializeRequest.type, this.#initializeParams()),
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

  sync(
    docs: readonly {
      readonly path: string
      readonly text: string | null
      readonly created?: boolean
    }[],
  ): void {
    const now = performance.now()
    const watched: FileEvent[] = []
    for (const doc of docs) {
      const path = resolvePath(doc.path)
      const uri = uriOf(path)
      const state = this.#docs.get(path)
      if (doc.text === null) {
        if (state?.open === true) {
          this.#notify(DidCloseTextDocumentNotification.type.method, { textDocument: { uri } })
        }
        this.#docs.delete(path)
        this.#deleted.add(path)
        this.#published.delete(path)
        this.#pulled.delete(path)
        watched.push({ uri, type: FileChangeType.Deleted })
        this.#record({ kind: 'delete', path })
        continue
      }
      if (doc.created === true || this.#deleted.has(path)) {
        watched.push({ uri, type: FileChangeType.Created })
      }
      this.#deleted.delete(path)
      if (state === undefined || !state.open) {
        const version = this.#nextVersion(path)
        this.#docs.set(path, { text: doc.text, version, open: true, lastTouchedMs: now })
        this.#notify(DidOpenTextDocumentNotification.type.method, {
          textDocument: {
            uri,
            languageId: languageIdFor(this.adapter, path) ?? 'plaintext',
            version,
            text: doc.text,
          },
        })
        this.#record({ kind: 'sync', path, version })
        continue
      }
      state.lastTouchedMs = now
      if (state.text === doc.text) continue
      const version = this.#nextVersion(path)
      const change: TextDocumentContentChangeEvent =
        this.#syncOptions().change === TextDocumentSyncKind.Incremental
          ? incrementalChange(state.text, doc.text)
          : { text: doc.text }
      state.text = doc.text
      state.version = version
      this.#notify(DidChangeTextDocumentNotification.type.method, {
        textDocument: { uri, version },
        contentChanges: [change],
      })
      this.#record({ kind: 'sync', path, version })
    }
    if (watched.length > 0) {
      this.#notify(DidChangeWatchedFilesNotification.type.method, { changes: watched })
    }
  }

  save(paths: readonly string[]): void {
    const save = this.#syncOptions().save
    if (save === false) return
    const now = performance.now()
    for (const raw of paths) {
      const path = resolvePath(raw)
      const state = this.#docs.get(path)
      if (state === undefined || !state.open) continue
      state.lastTouchedMs = now
      this.#notify(DidSaveTextDocumentNotification.type.method, {
        textDocument: { uri: uriOf(path) },
        ...(save.includeText ? { text: state.text } : {}),
      })
      this.#record({ kind: 'save', path })
    }
  }

  async diagnostics(paths: readonly string[], deadlineMs: number): Promise<SettledDiagnostics> {
    const startMs = performance.now()
    const absolute = [...new Set(paths.map((path) => resolvePath(path)))]
    for (const path of absolute) {
      const state = this.#docs.get(path)
      if (state !== undefined) state.lastTouchedMs = startMs
    }
    if (this.#exit !== undefined || this.#connection === undefined) {
      return unavailable(absolute, 0)
    }
    const provider = this.#capabilities?.diagnosticProvider
    if (this.adapter.settle.pull && provider !== undefined) {
      const identifier = 'identifier' in provider ? provider.identifier : undefined
      const others = provider.interFileDependencies
        ? [...this.#docs].filter(([path, doc]) => doc.open && !absolute.includes(path))
        : []
      return this.#pull(
        absolute,
        others.map(([path]) => path),
        identifier,
        startMs,
        deadlineMs,
      )
    }
    return this.#waitForPush(absolute, startMs, deadlineMs)
  }

  closeIdle(idleMs: number): void {
    const now = performance.now()
    for (const [path, state] of this.#docs) {
      if (!state.open || now - state.lastTouchedMs < idleMs) continue
      state.open = false
      this.#notify(DidCloseTextDocumentNotification.type.method, {
        textDocument: { uri: uriOf(path) },
      })
    }
  }

  async rssBytes(): Promise<number | undefined> {
    const pid = this.#child?.pid
    if (pid === undefined || this.#exit !== undefined) return undefined
    // The whole process group: a shim's forked server is where the memory is.
    const members = await processGroupMembers(pid)
    let total = 0
    let known = false
    for (const member of members.length > 0 ? members : [pid]) {
      const rss = await readRssBytes(member)
      if (rss !== undefined) {
        total += rss
        known = true
      }
    }
    return known ? total : undefined
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
            for (const wake of [...this.#wakers]) wake()
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
      this.#published.set(path, params.diagnostics.map(toRaw))
      this.#record({
        kind: 'publish',
        path,
        ...(typeof params.version === 'number' ? { version: params.version } : {}),
      })
    })
    connection.onUnhandledProgress((params) => {
      const value = params.value as { kind?: unknown } | null
      const token = String(params.token)
      if (value?.kind === 'begin') this.#record({ kind: 'progress-begin', token })
      else if (value?.kind === 'end') this.#record({ kind: 'progress-end', token })
    })
    connection.onNotification('experimental/serverStatus', (params: unknown) => {
      if (typeof params !== 'object' || params === null) return
      const status = params as { quiescent?: unknown; health?: unknown }
      if (typeof status.quiescent !== 'boolean') return
      this.#record({
        kind: 'server-status',
        quiescent: status.quiescent,
        ...(typeof status.health === 'string' ? { health: status.health } : {}),
      })
    })
    connection.onRequest(ConfigurationRequest.type, (params) =>
      params.items.map((item) => this.#setting(item.section)),
    )
    connection.onRequest(WorkspaceFoldersRequest.type, () => [this.#workspaceFolder()])
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

  #initializeParams(): InitializeParams {
    const capabilities: ClientCapabilities = {
      general: { positionEncodings: ['utf-16'] },
      window: { workDoneProgress: true },
      workspace: {
        configuration: true,
        workspaceFolders: true,
        // Servers register their watchers dynamically (pyright, tsc); declaring it keeps them
        // from starting file watchers of their own inside the server process.
        didChangeWatchedFiles: { dynamicRegistration: true, relativePatternSupport: false },
      },
      textDocument: {
        synchronization: { dynamicRegistration: false, didSave: true },
        publishDiagnostics: { versionSupport: true },
        // Declared only when the adapter wants pull: servers that see it may stop pushing.
        ...(this.adapter.settle.pull
          ? { diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false } }
          : {}),
      },
      ...(this.adapter.settle.quiescent
        ? { experimental: { serverStatusNotification: true } }
        : {}),
    }
    const rootUri = uriOf(this.root)
    return {
      processId: process.pid,
      clientInfo: { name: 'patchloom' },
      rootUri,
      rootPath: this.root,
      workspaceFolders: [this.#workspaceFolder()],
      capabilities,
      ...(this.adapter.initializationOptions === undefined
        ? {}
        : { initializationOptions: this.adapter.initializationOptions }),
    }
  }

  #workspaceFolder(): { uri: string; name: string } {
    return { uri: uriOf(this.root), name: basename(this.root) || this.root }
  }

  /** workspace/configuration: the exact section, else a dotted path into a broader one. */
  #setting(section: string | undefined): unknown {
    const settings = this.adapter.settings
    if (settings === undefined) return null
    const key = section ?? ''
    if (Object.hasOwn(settings, key)) return settings[key] ?? null
    const parts = key.split('.')
    for (let cut = parts.length - 1; cut >= 0; cut--) {
      const base = parts.slice(0, cut).join('.')
      if (!Object.hasOwn(settings, base)) continue
      let value: unknown = settings[base]
      for (const part of parts.slice(cut)) {
        if (typeof value !== 'object' || value === null) return null
        value = (value as Record<string, unknown>)[part]
      }
      return value ?? null
    }
    return null
  }

  #syncOptions(): ServerSyncOptions {
    const sync = this.#capabilities?.textDocumentSync
    // A bare kind means open/close and change of that kind, and didSave without text: the
    // reading vscode-languageclient gives it.
    if (sync === undefined) return { change: TextDocumentSyncKind.Full, save: false }
    if (typeof sync === 'number') return { change: sync, save: { includeText: false } }
    const save = sync.save
    return {
      change: sync.change ?? TextDocumentSyncKind.None,
      save:
        save === undefined || save === false
          ? false
          : { includeText: typeof save === 'object' && save.includeText === true },
    }
  }

  #nextVersion(path: string): number {
    const version = (this.#versions.get(path) ?? 0) + 1
    this.#versions.set(path, version)
    return version
  }

  #record(event: SettleEvent): void {
    this.#tracker.record(event, performance.now())
    for (const wake of [...this.#wakers]) wake()
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

  #waitForPush(
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
        if (this.#exit !== undefined) {
          finish(unavailable(paths, now - startMs))
          return
        }
        const check = this.#tracker.check(paths, now)
        if (check.settled) {
          // Other open documents (importers of the edited ones) come along with what the server
          // last published for them: push servers re-publish them within the quiet window.
          const others = [...this.#docs]
            .filter(([path, doc]) => doc.open && !paths.includes(path) && this.#published.has(path))
            .map(([path]) => [path, this.#published.get(path) ?? []] as const)
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

  async #pull(
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
        if (this.#deleted.has(path)) return [path, [] as readonly RawDiagnostic[]] as const
        const answer = await Promise.race([
          this.#pullOne(path, identifier, cancel, startMs + deadlineMs),
          deadline,
          this.#exited!.then(() => 'exit' as const),
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
    if (this.#exit !== undefined) return unavailable(paths, waitedMs)
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
    const connection = this.#connection
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

const SILENT_LOGGER = {
  error: () => {},
  warn: () => {},
  info: () => {},
  log: () => {},
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

function unavailable(paths: readonly string[], waitedMs: number): SettledDiagnostics {
  return { byPath: new Map(), settled: false, waitedMs, signal: 'unavailable', pending: paths }
}

function uriOf(path: string): string {
  return pathToFileURL(path).href
}

function pathOf(uri: string): string | undefined {
  try {
    return resolvePath(fileURLToPath(uri))
  } catch {
    return undefined
  }
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

type InitializeOutcome =
  | { readonly kind: 'ok'; readonly result: { readonly capabilities: ServerCapabilities } }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'exit'; readonly exit: SessionExit }
  | { readonly kind: 'error'; readonly message: string }

async function raceInitialize(
  request: Promise<{ capabilities: ServerCapabilities }>,
  exited: Promise<SessionExit>,
  timeoutMs: number,
): Promise<InitializeOutcome> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      request.then(
        (result): InitializeOutcome => ({ kind: 'ok', result }),
        (error: unknown): InitializeOutcome => ({
          kind: 'error',
          message: error instanceof Error ? error.message : String(error),
        }),
      ),
      exited.then((exit): InitializeOutcome => ({ kind: 'exit', exit })),
      new Promise<InitializeOutcome>((resolve) => {
        timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

function delay<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(value), ms)
    timer.unref()
  })
}

/** The promise's value, or undefined when it has not settled within `ms`. */
async function waitFor<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([promise, delay(ms, undefined)])
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  const pid = child.pid
  if (pid === undefined) return
  try {
    // The server leads its own group (detached): a negative pid reaches every process in it.
    if (process.platform !== 'win32') process.kill(-pid, signal)
    else child.kill(signal)
  } catch {
    // ESRCH: the group is already gone.
  }
}

async function readRssBytes(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024
  } catch {
    return undefined
  }
}

/** Pids whose process group is `pgid` (Linux /proc), or [] when /proc cannot be read. */
async function processGroupMembers(pgid: number): Promise<number[]> {
  let entries: string[]
  try {
    entries = await readdir('/proc')
  } catch {
    return []
  }
  const members: number[] = []
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (entry) => {
        try {
          const stat = await readFile(`/proc/${entry}/stat`, 'utf8')
          // Fields after the parenthesised command name: state ppid pgrp ...
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
          if (Number(fields[2]) === pgid) members.push(Number(entry))
        } catch {
          // The process exited while we looked.
        }
      }),
  )
  return members
}
