// The documents one server session holds: text, version and open state per absolute path, and
// the notifications that keep the server's view in step (didOpen, versioned didChange, didSave,
// didClose, watched-file Created/Deleted). Versions only ever grow, across close and reopen.
// Also the pure `incrementalChange` (one UTF-16 range edit) and the file URI helpers. Sending
// on the wire and settling are the session's (session.ts) and settle.ts's; what the server
// published about a document is diagnostics-wait.ts's.

import { resolve as resolvePath } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL } from 'node:url'
import {
  DidChangeTextDocumentNotification,
  DidChangeWatchedFilesNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DidSaveTextDocumentNotification,
  FileChangeType,
  TextDocumentSyncKind,
  type FileEvent,
  type ServerCapabilities,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol'
import { languageIdFor, type LspAdapter } from './adapter.js'
import type { Session } from './session-types.js'
import type { SettleEvent } from './settle.js'

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

export function uriOf(path: string): string {
  return pathToFileURL(path).href
}

export function pathOf(uri: string): string | undefined {
  try {
    return resolvePath(fileURLToPath(uri))
  } catch {
    return undefined
  }
}

export type ServerSyncOptions = {
  readonly change: TextDocumentSyncKind
  readonly save: false | { readonly includeText: boolean }
}

/** How the server wants documents synced, read from its initialize answer. */
export function syncOptionsOf(capabilities: ServerCapabilities | undefined): ServerSyncOptions {
  const sync = capabilities?.textDocumentSync
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

/** What the documents need from their session. */
export interface DocumentChannel {
  readonly adapter: LspAdapter
  readonly syncOptions: () => ServerSyncOptions
  /** Sends a notification; a no-op once the server is gone. */
  readonly notify: (method: string, params: unknown) => void
  /** Drops what the server said about a deleted document, before its delete is recorded. */
  readonly forget: (path: string) => void
  readonly record: (event: SettleEvent) => void
}

interface DocState {
  text: string
  version: number
  open: boolean
  lastTouchedMs: number
}

/** Per-document state of one session; paths are absolute. */
export class OpenDocuments {
  readonly #channel: DocumentChannel
  readonly #docs = new Map<string, DocState>()
  /** Last version per path, kept across close/reopen so versions only ever grow. */
  readonly #versions = new Map<string, number>()
  readonly #deleted = new Set<string>()

  constructor(channel: DocumentChannel) {
    this.#channel = channel
  }

  sync(docs: Parameters<Session['sync']>[0]): void {
    const channel = this.#channel
    const now = performance.now()
    const watched: FileEvent[] = []
    for (const doc of docs) {
      const path = resolvePath(doc.path)
      const uri = uriOf(path)
      const state = this.#docs.get(path)
      if (doc.text === null) {
        if (state?.open === true) {
          channel.notify(DidCloseTextDocumentNotification.type.method, { textDocument: { uri } })
        }
        this.#docs.delete(path)
        this.#deleted.add(path)
        channel.forget(path)
        watched.push({ uri, type: FileChangeType.Deleted })
        channel.record({ kind: 'delete', path })
        continue
      }
      if (doc.created === true || this.#deleted.has(path)) {
        watched.push({ uri, type: FileChangeType.Created })
      }
      this.#deleted.delete(path)
      if (state === undefined || !state.open) {
        const version = this.#nextVersion(path)
        this.#docs.set(path, { text: doc.text, version, open: true, lastTouchedMs: now })
        channel.notify(DidOpenTextDocumentNotification.type.method, {
          textDocument: {
            uri,
            languageId: languageIdFor(channel.adapter, path) ?? 'plaintext',
            version,
            text: doc.text,
          },
        })
        channel.record({ kind: 'sync', path, version })
        continue
      }
      state.lastTouchedMs = now
      if (state.text === doc.text) continue
      const version = this.#nextVersion(path)
      const change: TextDocumentContentChangeEvent =
        channel.syncOptions().change === TextDocumentSyncKind.Incremental
          ? incrementalChange(state.text, doc.text)
          : { text: doc.text }
      state.text = doc.text
      state.version = version
      channel.notify(DidChangeTextDocumentNotification.type.method, {
        textDocument: { uri, version },
        contentChanges: [change],
      })
      channel.record({ kind: 'sync', path, version })
    }
    if (watched.length > 0) {
      channel.notify(DidChangeWatchedFilesNotification.type.method, { changes: watched })
    }
  }

  save(paths: readonly string[]): void {
    const save = this.#channel.syncOptions().save
    if (save === false) return
    const now = performance.now()
    for (const raw of paths) {
      const path = resolvePath(raw)
      const state = this.#docs.get(path)
      if (state === undefined || !state.open) continue
      state.lastTouchedMs = now
      this.#channel.notify(DidSaveTextDocumentNotification.type.method, {
        textDocument: { uri: uriOf(path) },
        ...(save.includeText ? { text: state.text } : {}),
      })
      this.#channel.record({ kind: 'save', path })
    }
  }

  /** Marks these (absolute) paths as just used, so closeIdle keeps them open. */
  touch(paths: readonly string[], nowMs: number): void {
    for (const path of paths) {
      const state = this.#docs.get(path)
      if (state !== undefined) state.lastTouchedMs = nowMs
    }
  }

  closeIdle(idleMs: number): void {
    const now = performance.now()
    for (const [path, state] of this.#docs) {
      if (!state.open || now - state.lastTouchedMs < idleMs) continue
      state.open = false
      this.#channel.notify(DidCloseTextDocumentNotification.type.method, {
        textDocument: { uri: uriOf(path) },
      })
    }
  }

  /** Open documents, in the order their entries were created. */
  openPaths(): string[] {
    return [...this.#docs].filter(([, doc]) => doc.open).map(([path]) => path)
  }

  isDeleted(path: string): boolean {
    return this.#deleted.has(path)
  }

  #nextVersion(path: string): number {
    const version = (this.#versions.get(path) ?? 0) + 1
    this.#versions.set(path, version)
    return version
  }
}
