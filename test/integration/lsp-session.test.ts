// One LspSession against the scripted fake server (test/fixtures/fake-lsp-server.mjs), a real
// child process over stdio: initialize, document sync as the server sees it, each settle path,
// the deadline, crash and shutdown. rust-analyzer cannot run on this machine, so its tests use
// the fake server replaying rust-analyzer's message sequence and say so in their names.
// Waits are on answers, exits and conditions, never on sleeps.
import { mkdtempSync, rmSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { LspAdapter, SettleFacts } from '../../src/lsp/adapter.js'
import type { RawDiagnostic, SessionExit } from '../../src/lsp/session-types.js'
import { incrementalChange, LspSession } from '../../src/lsp/session.js'
import { EditError } from '../../src/errors.js'

const FAKE_SERVER = fileURLToPath(new URL('../fixtures/fake-lsp-server.mjs', import.meta.url))
const DEADLINE_MS = 20_000

const PUSH_FACTS: SettleFacts = {
  pull: false,
  versionedPush: true,
  progress: true,
  quiescent: false,
  diagnosticsOnSave: false,
}
const RUST_FACTS: SettleFacts = {
  pull: false,
  versionedPush: true,
  progress: true,
  quiescent: true,
  diagnosticsOnSave: true,
}
const PULL_FACTS: SettleFacts = { ...PUSH_FACTS, pull: true }

function adapter(settle: SettleFacts, extra: Partial<LspAdapter> = {}): LspAdapter {
  return {
    id: 'fake',
    name: 'Fake server',
    languageIds: { '.fk': 'fake', '.rs': 'rust' },
    rootMarkers: [],
    commands: [],
    settle,
    ...extra,
  }
}

interface Received {
  readonly method: string
  readonly params: Record<string, unknown> & { textDocument?: { uri: string; version?: number } }
}

let root = ''
const sessions: LspSession[] = []

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'patchloom-lsp-session-'))
})

afterEach(async () => {
  await Promise.all(sessions.map((session) => session.stop(500)))
  sessions.length = 0
})

afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

function fake(
  config: Record<string, unknown>,
  settle: SettleFacts = PUSH_FACTS,
  extra: {
    adapter?: Partial<LspAdapter>
    onExit?: (exit: SessionExit) => void
    initializeTimeoutMs?: number
    command?: string
  } = {},
): LspSession {
  const session = new LspSession({
    adapter: adapter(settle, extra.adapter),
    root,
    command: {
      command: extra.command ?? process.execPath,
      args: [FAKE_SERVER, JSON.stringify(config)],
    },
    ...(extra.onExit === undefined ? {} : { onExit: extra.onExit }),
    ...(extra.initializeTimeoutMs === undefined
      ? {}
      : { initializeTimeoutMs: extra.initializeTimeoutMs }),
  })
  sessions.push(session)
  return session
}

function file(name: string): string {
  return join(root, name)
}

function uri(path: string): string {
  return pathToFileURL(path).href
}

async function received(session: LspSession, method?: string): Promise<Received[]> {
  return session.request<Received[]>('test/received', method === undefined ? {} : { method })
}

async function serverDocuments(
  session: LspSession,
): Promise<Record<string, { text: string; version: number; languageId: string; open: boolean }>> {
  return session.request('test/documents')
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

/** "line:message" for each diagnostic, 1-based lines for readability. */
function brief(items: readonly RawDiagnostic[] | undefined): string[] {
  return (items ?? []).map((d) => `${d.range.start.line + 1}:${d.message}`)
}

describe('incrementalChange', () => {
  function apply(text: string, change: ReturnType<typeof incrementalChange>): string {
    const starts = [0]
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index)
      if (code === 0x0a) starts.push(index + 1)
      else if (code === 0x0d) {
        if (text.charCodeAt(index + 1) === 0x0a) index++
        starts.push(index + 1)
      }
    }
    const offset = (p: { line: number; character: number }): number =>
      (starts[p.line] ?? NaN) + p.character
    return (
      text.slice(0, offset(change.range.start)) + change.text + text.slice(offset(change.range.end))
    )
  }

  it('covers only the changed span, in UTF-16 positions', () => {
    expect(incrementalChange('const a = 1\nconst b = 2\n', 'const a = 1\nconst b = 3\n')).toEqual({
      range: { start: { line: 1, character: 10 }, end: { line: 1, character: 11 } },
      text: '3',
    })
    // The emoji is two UTF-16 code units; the edit after it is counted that way.
    expect(incrementalChange('x = "😀a"\n', 'x = "😀b"\n').range.start).toEqual({
      line: 0,
      character: 7,
    })
  })

  it('never splits a surrogate pair or a CRLF', () => {
    const pair = incrementalChange('😀', '😃')
    expect(pair.range.start).toEqual({ line: 0, character: 0 })
    expect(pair.text).toBe('😃')
    const crlf = incrementalChange('a\r\nb', 'a\nb')
    expect(crlf.range.start.line).toBe(0)
    expect(apply('a\r\nb', crlf)).toBe('a\nb')
  })

  it('turns any old text into the new text when applied', () => {
    const alphabet = fc.constantFrom('a', 'b', '\n', '\r', '\r\n', '😀', 'é', ' ')
    const text = fc.array(alphabet, { maxLength: 30 }).map((parts) => parts.join(''))
    fc.assert(
      fc.property(text, text, (before, after) => {
        expect(apply(before, incrementalChange(before, after))).toBe(after)
      }),
      { numRuns: 500 },
    )
  })
})

describe('LspSession (fake server)', () => {
  it('starts and initializes with the declared client capabilities', async () => {
    const session = fake({}, PUSH_FACTS, { adapter: { initializationOptions: { answer: 42 } } })
    await session.start()
    expect(session.pid).toBeTypeOf('number')
    const [initialize] = await received(session, 'initialize')
    const params = initialize?.params as unknown as {
      processId: number
      rootUri: string
      workspaceFolders: { uri: string }[]
      initializationOptions: unknown
      capabilities: {
        textDocument: Record<string, unknown>
        window: Record<string, unknown>
        workspace: Record<string, unknown>
      }
    }
    expect(params.processId).toBe(process.pid)
    expect(params.rootUri).toBe(uri(root))
    expect(params.workspaceFolders).toEqual([expect.objectContaining({ uri: uri(root) })])
    expect(params.initializationOptions).toEqual({ answer: 42 })
    expect(params.capabilities.textDocument).toMatchObject({
      synchronization: { didSave: true },
      publishDiagnostics: { versionSupport: true },
    })
    // Pull is declared only for adapters that use it: servers that see it may stop pushing.
    expect(params.capabilities.textDocument['diagnostic']).toBeUndefined()
    expect(params.capabilities.window).toMatchObject({ workDoneProgress: true })
    expect(params.capabilities.workspace).toMatchObject({
      configuration: true,
      workspaceFolders: true,
      didChangeWatchedFiles: expect.any(Object),
    })
    expect((await received(session, 'initialized')).length).toBe(1)
  })

  it('declares pull diagnostics for pull adapters', async () => {
    const session = fake({ mode: 'pull' }, PULL_FACTS)
    await session.start()
    const [initialize] = await received(session, 'initialize')
    expect(initialize?.params).toMatchObject({
      capabilities: {
        textDocument: { diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false } },
      },
    })
  })

  it('answers workspace/configuration from the adapter settings, null for unknown sections', async () => {
    const settings = { python: { analysis: { typeCheckingMode: 'strict' } }, '': { all: true } }
    const session = fake({}, PUSH_FACTS, { adapter: { settings } })
    await session.start()
    const answer = await session.request('test/askConfiguration', {
      items: [
        { section: 'python' },
        { section: 'python.analysis.typeCheckingMode' },
        { section: 'ruby' },
        {},
      ],
    })
    expect(answer).toEqual([
      { analysis: { typeCheckingMode: 'strict' } },
      'strict',
      null,
      { all: true },
    ])
  })

  it('opens with full text, then sends incremental changes the server applies to the same text', async () => {
    const session = fake({ mode: 'silent' })
    await session.start()
    const path = file('edit.fk')
    const versions = [
      'first line\nsecond line\n',
      'first line\nsecond LINE\nthird\n',
      'zero\nfirst line\nsecond LINE\nthird\n',
      'zero\r\nfirst 😀 line\r\nthird\r\n',
      'zero\r\nfirst 😃 line\r\nthird',
      '',
      'all new\n',
    ]
    for (const text of versions) session.sync([{ path, text }])
    const documents = await serverDocuments(session)
    expect(documents[uri(path)]).toEqual({
      text: 'all new\n',
      version: versions.length,
      languageId: 'fake',
      open: true,
    })
    expect(await session.request('test/problems')).toEqual([])
    const [open] = await received(session, 'textDocument/didOpen')
    expect(open?.params).toMatchObject({ textDocument: { version: 1, text: versions[0] } })
    const changes = await received(session, 'textDocument/didChange')
    expect(changes.map((c) => c.params.textDocument?.version)).toEqual([2, 3, 4, 5, 6, 7])
    expect(changes[0]?.params['contentChanges']).toEqual([
      {
        range: { start: { line: 1, character: 7 }, end: { line: 1, character: 11 } },
        text: 'LINE\nthird',
      },
    ])
  })

  it('sends the full text when the server does not take incremental changes', async () => {
    const session = fake({
      mode: 'silent',
      capabilities: { textDocumentSync: { openClose: true, change: 1 } },
    })
    await session.start()
    const path = file('full.fk')
    session.sync([{ path, text: 'one\n' }])
    session.sync([{ path, text: 'two\n' }])
    // Unchanged text sends nothing.
    session.sync([{ path, text: 'two\n' }])
    const changes = await received(session, 'textDocument/didChange')
    expect(changes.map((c) => c.params['contentChanges'])).toEqual([[{ text: 'two\n' }]])
  })

  it('sends didSave with text when asked, didClose and watched-file events for created and deleted files', async () => {
    const session = fake({
      mode: 'silent',
      capabilities: {
        textDocumentSync: { openClose: true, change: 2, save: { includeText: true } },
      },
    })
    await session.start()
    const created = file('new.fk')
    const gone = file('gone.fk')
    session.sync([
      { path: created, text: 'fresh\n', created: true },
      { path: gone, text: 'old\n' },
    ])
    session.save([created])
    session.sync([{ path: gone, text: null }])
    // Coming back after a deletion is a creation too.
    session.sync([{ path: gone, text: 'back\n' }])
    const saves = await received(session, 'textDocument/didSave')
    expect(saves.map((s) => s.params)).toEqual([
      { textDocument: { uri: uri(created) }, text: 'fresh\n' },
    ])
    const closes = await received(session, 'textDocument/didClose')
    expect(closes.map((c) => c.params)).toEqual([{ textDocument: { uri: uri(gone) } }])
    const watched = await received(session, 'workspace/didChangeWatchedFiles')
    expect(watched.map((w) => w.params['changes'])).toEqual([
      [{ uri: uri(created), type: 1 }],
      [{ uri: uri(gone), type: 3 }],
      [{ uri: uri(gone), type: 1 }],
    ])
    const opens = await received(session, 'textDocument/didOpen')
    expect(opens.map((o) => o.params.textDocument?.version)).toEqual([1, 1, 2])
  })

  it('does not send didSave to a server that did not ask for it', async () => {
    const session = fake({
      mode: 'silent',
      capabilities: { textDocumentSync: { openClose: true, change: 2 } },
    })
    await session.start()
    const path = file('nosave.fk')
    session.sync([{ path, text: 'x\n' }])
    session.save([path])
    expect(await received(session, 'textDocument/didSave')).toEqual([])
  })

  it('closes documents left idle', async () => {
    const session = fake({ mode: 'silent' })
    await session.start()
    const path = file('idle.fk')
    session.sync([{ path, text: 'x\n' }])
    session.closeIdle(60_000)
    expect(await received(session, 'textDocument/didClose')).toEqual([])
    session.closeIdle(0)
    expect((await received(session, 'textDocument/didClose')).map((c) => c.params)).toEqual([
      { textDocument: { uri: uri(path) } },
    ])
    // Touching it again reopens it with full text and a higher version.
    session.sync([{ path, text: 'y\n' }])
    const opens = await received(session, 'textDocument/didOpen')
    expect(
      opens.map((o) => [
        o.params.textDocument?.version,
        (o.params.textDocument as { text?: string }).text,
      ]),
    ).toEqual([
      [1, 'x\n'],
      [2, 'y\n'],
    ])
  })

  it('settles on a versioned push for the edited version, ignoring a stale publish', async () => {
    const session = fake({ mode: 'versioned-push', stalePublish: true, publishDelayMs: 30 })
    await session.start()
    const path = file('versioned.fk')
    session.sync([{ path, text: 'ok\nERROR here\n' }])
    const before = await session.diagnostics([path], DEADLINE_MS)
    expect(before).toMatchObject({ settled: true, signal: 'versioned-push', pending: [] })
    expect(brief(before.byPath.get(path))).toEqual(['2:ERROR on line 2'])
    // The fix: the server first re-publishes version 1 (with the error), then version 2.
    session.sync([{ path, text: 'ok\nfine here\n' }])
    const after = await session.diagnostics([path], DEADLINE_MS)
    expect(after).toMatchObject({ settled: true, signal: 'versioned-push' })
    expect(brief(after.byPath.get(path))).toEqual([])
    expect(after.waitedMs).toBeGreaterThan(0)
  })

  it('settles a server without versions on the first publish after the change', async () => {
    const session = fake({ mode: 'versionless-push' }, { ...PUSH_FACTS, versionedPush: false })
    await session.start()
    const path = file('versionless.fk')
    session.sync([{ path, text: 'ERROR\n' }])
    const first = await session.diagnostics([path], DEADLINE_MS)
    expect(first).toMatchObject({ settled: true, signal: 'first-push' })
    expect(brief(first.byPath.get(path))).toEqual(['1:ERROR on line 1'])
    session.sync([{ path, text: 'fine\n' }])
    const second = await session.diagnostics([path], DEADLINE_MS)
    expect(second).toMatchObject({ settled: true, signal: 'first-push' })
    expect(brief(second.byPath.get(path))).toEqual([])
  })

  it('learns a longer quiet window from follow-up publishes and then catches them', async () => {
    const session = fake({ mode: 'versioned-push', followUpDelayMs: 200 })
    await session.start()
    const path = file('follow.fk')
    session.sync([{ path, text: 'LATE\n' }])
    await session.diagnostics([path], DEADLINE_MS)
    // The follow-up for version 1 arrives 200 ms after the first publish; wait for it to be seen.
    await vi.waitFor(() => expect(session.quietWindowMs).toBeGreaterThanOrEqual(250), {
      timeout: DEADLINE_MS,
      interval: 20,
    })
    session.sync([{ path, text: 'x\nLATE\n' }])
    const second = await session.diagnostics([path], DEADLINE_MS)
    expect(second).toMatchObject({ settled: true, signal: 'versioned-push' })
    expect(brief(second.byPath.get(path))).toEqual(['2:LATE on line 2'])
  })

  it('waits for progress in flight before settling a push', async () => {
    const session = fake({ mode: 'versioned-push' })
    await session.start()
    const path = file('progress.fk')
    session.sync([{ path, text: 'ERROR\n' }])
    await session.diagnostics([path], DEADLINE_MS)
    // Work begins; the answer must wait until the server says it has ended.
    await session.request('test/notify', {
      steps: [
        { method: 'window/workDoneProgress/create', params: { token: 't1' }, request: true },
        {
          method: '$/progress',
          params: { token: 't1', value: { kind: 'begin', title: 'Analyzing' } },
        },
      ],
    })
    const waiting = session.diagnostics([path], DEADLINE_MS)
    const ended = session.request('test/notify', {
      steps: [
        { delayMs: 100, method: '$/progress', params: { token: 't1', value: { kind: 'end' } } },
      ],
    })
    const result = await waiting
    await ended
    expect(result).toMatchObject({ settled: true, signal: 'versioned-push' })
    expect(result.waitedMs).toBeGreaterThanOrEqual(100)
  })

  it('does not trust quiescent before the workspace loaded (fake server replaying rust-analyzer)', async () => {
    const session = fake({ mode: 'rust-analyzer', fetchDelayMs: 200, loadDelayMs: 200 }, RUST_FACTS)
    await session.start()
    const [initialize] = await received(session, 'initialize')
    expect(initialize?.params).toMatchObject({
      capabilities: { experimental: { serverStatusNotification: true } },
    })
    const path = file('main.rs')
    // Opened while rust-analyzer is "quiescent" but has loaded nothing: it publishes [] for
    // version 1 at once, and the real diagnostics only after Loading.
    session.sync([{ path, text: 'fn main() {}\nlet ERROR = 1;\n' }])
    const result = await session.diagnostics([path], DEADLINE_MS)
    expect(result).toMatchObject({ settled: true, signal: 'quiescent' })
    expect(brief(result.byPath.get(path))).toEqual(['2:ERROR on line 2'])
    expect(result.waitedMs).toBeGreaterThanOrEqual(200)
  })

  it('waits for cargo check after didSave (fake server replaying rust-analyzer)', async () => {
    const session = fake(
      {
        mode: 'rust-analyzer',
        fetchDelayMs: 10,
        loadDelayMs: 30,
        checkStartDelayMs: 300,
        checkDelayMs: 100,
      },
      RUST_FACTS,
    )
    await session.start()
    const path = file('lib.rs')
    session.sync([{ path, text: 'fn a() {}\n' }])
    expect(await session.diagnostics([path], DEADLINE_MS)).toMatchObject({ settled: true })
    // The native publish for version 2 comes at once; cargo check starts 300 ms later and is the
    // only source of the CHECK error.
    session.sync([{ path, text: 'fn a() {}\nlet CHECK = 1;\n' }])
    session.save([path])
    const result = await session.diagnostics([path], DEADLINE_MS)
    expect(result).toMatchObject({ settled: true, signal: 'quiescent' })
    expect(result.byPath.get(path)).toEqual([
      expect.objectContaining({ source: 'rustc', message: 'CHECK on line 2' }),
    ])
  })

  it('pulls diagnostics, including open importers, and reuses unchanged results', async () => {
    const session = fake({ mode: 'pull' }, PULL_FACTS)
    await session.start()
    const a = file('a.fk')
    const b = file('b.fk')
    session.sync([
      { path: a, text: 'ERROR\n' },
      { path: b, text: 'ok\nERROR\n' },
    ])
    const first = await session.diagnostics([a], DEADLINE_MS)
    expect(first).toMatchObject({ settled: true, signal: 'pull', pending: [] })
    expect(brief(first.byPath.get(a))).toEqual(['1:ERROR on line 1'])
    // b may import a (interFileDependencies): it is reported too.
    expect(brief(first.byPath.get(b))).toEqual(['2:ERROR on line 2'])

    session.sync([{ path: a, text: 'fixed\n' }])
    const second = await session.diagnostics([a], DEADLINE_MS)
    expect(brief(second.byPath.get(a))).toEqual([])
    // b did not change: the server said "unchanged" and the earlier items are reused.
    expect(brief(second.byPath.get(b))).toEqual(['2:ERROR on line 2'])
    const pulls = await received(session, 'textDocument/diagnostic')
    const forB = pulls.filter((p) => p.params.textDocument?.uri === uri(b))
    expect(forB.map((p) => p.params['previousResultId'])).toEqual([undefined, 'v1'])
    expect(forB[0]?.params['identifier']).toBe('fake')
  })

  it('retries a pull the server cancelled for a newer state', async () => {
    const session = fake({ mode: 'pull' }, PULL_FACTS)
    await session.start()
    await session.request('test/setScript', {
      responses: {
        'textDocument/diagnostic': {
          error: { code: -32802, message: 'cancelled', data: { retriggerRequest: true } },
          times: 1,
        },
      },
    })
    const path = file('retry.fk')
    session.sync([{ path, text: 'ERROR\n' }])
    const result = await session.diagnostics([path], DEADLINE_MS)
    expect(result).toMatchObject({ settled: true, signal: 'pull' })
    expect(brief(result.byPath.get(path))).toEqual(['1:ERROR on line 1'])
    expect(await received(session, 'textDocument/diagnostic')).toHaveLength(2)
  })

  it('reports a push server that never publishes as unsettled at the deadline, never as clean', async () => {
    const session = fake({ mode: 'silent' })
    await session.start()
    const path = file('silent.fk')
    session.sync([{ path, text: 'ERROR\n' }])
    const result = await session.diagnostics([path], 300)
    expect(result).toMatchObject({ settled: false, signal: 'deadline', pending: [path] })
    expect(result.byPath.has(path)).toBe(false)
    expect(result.waitedMs).toBeGreaterThanOrEqual(299)
  })

  it('reports a pull that does not answer in time as unsettled at the deadline', async () => {
    const session = fake({ mode: 'pull', pullDelayMs: 10_000 }, PULL_FACTS)
    await session.start()
    const path = file('slow.fk')
    session.sync([{ path, text: 'x\n' }])
    const result = await session.diagnostics([path], 300)
    expect(result).toMatchObject({ settled: false, signal: 'deadline', pending: [path] })
  })

  it('reports a crash through onExit and answers later calls as unavailable', async () => {
    let onExit: (exit: SessionExit) => void = () => {}
    const exited = new Promise<SessionExit>((resolve) => (onExit = resolve))
    const session = fake({ mode: 'silent' }, PUSH_FACTS, { onExit })
    await session.start()
    const path = file('crash.fk')
    session.sync([{ path, text: 'x\n' }])
    const waiting = session.diagnostics([path], DEADLINE_MS)
    session.request('test/crash', { code: 3 }).catch(() => {})
    const exit = await exited
    expect(exit.code).toBe(3)
    expect(exit.stderrTail).toContain('fake-lsp-server: crashing on request')
    expect(await waiting).toMatchObject({ settled: false, signal: 'unavailable', pending: [path] })
    expect(await session.diagnostics([path], DEADLINE_MS)).toMatchObject({
      settled: false,
      signal: 'unavailable',
    })
    expect(isAlive(session.pid ?? -1)).toBe(false)
  })

  it('stops with shutdown and exit, leaves no process, and may be stopped twice', async () => {
    const onExit = vi.fn()
    const session = fake({ mode: 'silent' }, PUSH_FACTS, { onExit })
    await session.start()
    const pid = session.pid ?? -1
    expect(isAlive(pid)).toBe(true)
    const startedMs = performance.now()
    await Promise.all([session.stop(10_000), session.stop(10_000)])
    await session.stop()
    // Well inside the grace period: the server obeyed shutdown/exit, no signal was needed.
    expect(performance.now() - startedMs).toBeLessThan(10_000)
    expect(isAlive(pid)).toBe(false)
    await expect(received(session, 'shutdown')).rejects.toThrow(/not running/)
    expect(onExit).not.toHaveBeenCalled()
    expect(await session.rssBytes()).toBeUndefined()
  })

  it('kills a server that ignores shutdown and SIGTERM', async () => {
    const session = fake({ mode: 'silent', ignoreSigterm: true })
    await session.start()
    const pid = session.pid ?? -1
    // The fake reads this before stop's shutdown request and answers nothing from then on.
    session.request('test/hang', { ignoreSigterm: true }).catch(() => {})
    await session.stop(200)
    expect(isAlive(pid)).toBe(false)
  })

  it('reads the server RSS from /proc', async () => {
    const session = fake({ mode: 'silent' })
    await session.start()
    const rss = await session.rssBytes()
    expect(rss).toBeGreaterThan(1024 * 1024)
  })

  it('fails to start with LSP_START_FAILED when the command does not exist', async () => {
    const session = fake({}, PUSH_FACTS, { command: join(root, 'no-such-server') })
    const failure = await session.start().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(EditError)
    expect(failure).toMatchObject({ code: 'LSP_START_FAILED', retryable: true })
    expect((failure as Error).message).toMatch(/no-such-server was not found/)
    expect(session.pid).toBeUndefined()
  })

  it('fails to start with the stderr tail when initialize is not answered in time', async () => {
    const session = fake({ hangInitialize: true, stderrBanner: 'banner: warming up' }, PUSH_FACTS, {
      initializeTimeoutMs: 300,
    })
    const failure = await session.start().catch((error: unknown) => error)
    expect(failure).toMatchObject({ code: 'LSP_START_FAILED' })
    expect((failure as Error).message).toMatch(/did not answer initialize within 300 ms/)
    expect((failure as Error).message).toContain('banner: warming up')
    expect(isAlive(session.pid ?? -1)).toBe(false)
  })
})
