// What the client tells a server when the session starts, and the answers it gives to the
// server's own questions: initialize params and client capabilities, the workspace folder,
// workspace/configuration values from the adapter's settings, and the race of the initialize
// answer against the process's exit and a timeout. Sending them and handling the outcome are
// the session's (session.ts).

import { basename } from 'node:path'
import type {
  ClientCapabilities,
  InitializeParams,
  ServerCapabilities,
} from 'vscode-languageserver-protocol'
import type { LspAdapter } from './adapter.js'
import { uriOf } from './documents.js'
import type { SessionExit } from './session-types.js'

export function initializeParams(adapter: LspAdapter, root: string): InitializeParams {
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
      ...(adapter.settle.pull
        ? { diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false } }
        : {}),
    },
    ...(adapter.settle.quiescent ? { experimental: { serverStatusNotification: true } } : {}),
  }
  const rootUri = uriOf(root)
  return {
    processId: process.pid,
    clientInfo: { name: 'patchloom' },
    rootUri,
    rootPath: root,
    workspaceFolders: [workspaceFolder(root)],
    capabilities,
    ...(adapter.initializationOptions === undefined
      ? {}
      : { initializationOptions: adapter.initializationOptions }),
  }
}

export function workspaceFolder(root: string): { uri: string; name: string } {
  return { uri: uriOf(root), name: basename(root) || root }
}

/** workspace/configuration: the exact section, else a dotted path into a broader one. */
export function settingFor(adapter: LspAdapter, section: string | undefined): unknown {
  const settings = adapter.settings
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

export type InitializeOutcome =
  | { readonly kind: 'ok'; readonly result: { readonly capabilities: ServerCapabilities } }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'exit'; readonly exit: SessionExit }
  | { readonly kind: 'error'; readonly message: string }

export async function raceInitialize(
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
