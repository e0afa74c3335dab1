// SidecarPool's lifecycle against scripted in-memory sessions: no processes, a controllable clock
// and sessions whose start, diagnostics, memory and crashes each test scripts. The session
// reports an error for every line containing "bad", so baseline comparisons are real.
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { LspAdapter } from '../../../src/lsp/adapter.js'
import type { SidecarPoolOptions } from '../../../src/lsp/client-types.js'
import { EditError } from '../../../src/errors.js'
import { BACKOFF_START_MS } from '../../../src/lsp/sidecar-health.js'
import {
  SidecarPool,
  defaultMaxServers,
  type CommandResolution,
  type PoolDeps,
} from '../../../src/lsp/sidecar-pool.js'
import type {
  RawDiagnostic,
  ServerCommand,
  Session,
  SessionExit,
  SessionOptions,
  SettledDiagnostics,
} from '../../../src/lsp/session-types.js'

const settle = { pull: true, versionedPush: false, progress: false, quiescent: false }
const alpha: LspAdapter = {
  id: 'alpha',
  name: 'Alpha server',
  languageIds: { '.a': 'alpha' },
  rootMarkers: ['alpha.json'],
  commands: [{ kind: 'path', command: 'alpha-ls', args: [] }],
  settle: { ...settle, diagnosticsOnSave: false },
}
const beta: LspAdapter = { ...alpha, id: 'beta', name: 'Beta server', languageIds: { '.b': 'b' } }

interface Deferred<T> {
  readonly promise: Promise<T>
  resolve(value: T): void
}
function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => undefined
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

/** A Session whose behaviour each test scripts; it keeps the texts it was sent. */
class ScriptedSession implements Session {
  static nextPid = 1000
  readonly adapter: LspAdapter
  readonly root: string
  readonly command: ServerCommand
  readonly pid = ScriptedSession.nextPid++
  readonly texts = new Map<string, string>()
  readonly saved: string[] = []
  readonly created: string[] = []
  readonly closeIdleCalls: number[] = []
  readonly #onExit: ((exit: SessionExit) => void) | undefined
  startResult: 'ok' | Error = 'ok'
  rss: number | undefined = 10_000_000
  /** When set, diagnostics() waits for it before answering. */
  gate: Promise<void> | undefined
  /** Settle facts to answer with (pending paths are reported as still waiting). */
  unsettled = false
  /** Pull servers answer for every open document, not only the requested ones. */
  answerAllOpen = false
  started = false
  stopped = false

  constructor(options: SessionOptions) {
    this.adapter = options.adapter
    this.root = options.root
    this.command = options.command
    this.#onExit = options.onExit
  }

  async start(): Promise<void> {
    if (this.startResult !== 'ok') throw this.startResult
    this.started = true
  }

  sync(
    docs: readonly { readonly path: string; readonly text: string | null; created?: boolean }[],
  ): void {
    for (const doc of docs) {
      if (doc.created === true) this.created.push(doc.path)
      if (doc.text === null) this.texts.delete(doc.path)
      else this.texts.set(doc.path, doc.text)
    }
  }

  save(paths: readonly string[]): void {
    this.saved.push(...paths)
  }

  async diagnostics(paths: readonly string[]): Promise<SettledDiagnostics> {
    if (this.gate !== undefined) await this.gate
    const answered = this.answerAllOpen ? [...this.texts.keys()] : paths
    const byPath = new Map(answered.map((p) => [p, badLines(this.texts.get(p) ?? '')]))
    return {
      byPath,
      settled: !this.unsettled,
      waitedMs: 7,
      signal: this.unsettled ? 'deadline' : 'pull',
      pending: this.unsettled ? [...paths] : [],
    }
  }

  closeIdle(idleMs: number): void {
    this.closeIdleCalls.push(idleMs)
  }

  async rssBytes(): Promise<number | undefined> {
    return this.rss
  }

  async stop(): Promise<void> {
    this.stopped = true
  }

  crash(exit: SessionExit): void {
    this.#onExit?.(exit)
  }
}

function badLines(text: string): RawDiagnostic[] {
  return text.split('\n').flatMap((line, index) =>
    line.includes('bad')
      ? [
          {
            range: { start: { line: index, character: 0 }, end: { line: index, character: 3 } },
            severity: 1 as const,
            code: 'X1',
            source: 'scripted',
            message: `bad value: ${line.trim()}`,
          },
        ]
      : [],
  )
}

interface Harness {
  readonly pool: SidecarPool
  readonly sessions: ScriptedSession[]
  readonly resolved: string[]
  clock: number
  /** Applied to each session as it is created. */
  prepare: (session: ScriptedSession) => void
  resolution: CommandResolution
}

const pools: SidecarPool[] = []

function harness(options: Partial<SidecarPoolOptions> = {}, deps: Partial<PoolDeps> = {}): Harness {
  const h: Omit<Harness, 'pool'> & { pool?: SidecarPool } = {
    sessions: [],
    resolved: [],
    clock: 1_000_000,
    prepare: () => undefined,
    resolution: { ok: true, command: { command: 'alpha-ls', args: ['--stdio'] } },
  }
  const pool = new SidecarPool(
    { workspaceRoot: '/ws', maxServers: 8, ...options },
    {
      adapters: [alpha, beta],
      createSession: (sessionOptions) => {
        const session = new ScriptedSession(sessionOptions)
        h.sessions.push(session)
        h.prepare(session)
        return session
      },
      resolveCommand: (adapter) => {
        h.resolved.push(adapter.id)
        return h.resolution
      },
      // Project roots are the first directory under /ws (/ws/p1/x.a -> /ws/p1), else /ws.
      findProjectRoot: (file) => /^\/ws\/[^/]+(?=\/)/.exec(file)?.[0] ?? '/ws',
      readText: async (path) => (path.includes('missing') ? null : `ok\nbad ${path}\n`),
      now: () => h.clock,
      ...deps,
    },
  )
  pools.push(pool)
  h.pool = pool
  return h as Harness
}

afterEach(async () => {
  vi.useRealTimers()
  await Promise.all(pools.splice(0).map((pool) => pool.close()))
})

describe('SidecarPool', () => {
  it('starts a server on first use and reuses it while it is warm', async () => {
    const h = harness()
    const first = await h.pool.diagnostics(['/ws/p1/x.a'])
    const second = await h.pool.diagnostics(['/ws/p1/y.a'])
    expect(h.sessions).toHaveLength(1)
    expect(h.sessions[0]?.started).toBe(true)
    expect(first.servers).toEqual([
      { adapter: 'alpha', root: 'p1', state: 'ready', settled: true, waitedMs: 7, signal: 'pull' },
    ])
    expect(second.remaining.map((d) => d.path)).toEqual(['p1/y.a'])
    const status = await h.pool.status()
    expect(status.servers).toEqual([
      expect.objectContaining({
        adapter: 'alpha',
        root: 'p1',
        state: 'ready',
        pid: h.sessions[0]?.pid,
        openDocuments: 2,
        rssBytes: 10_000_000,
      }),
    ])
  })

  it('runs one server per adapter and project root, and ignores files no adapter serves', async () => {
    const h = harness()
    const report = await h.pool.diagnostics([
      '/ws/p1/x.a',
      '/ws/p1/deep/y.a',
      '/ws/p2/z.a',
      '/ws/p1/w.b',
      '/ws/README.md',
    ])
    const keys = h.sessions.map((s) => `${s.adapter.id}:${s.root}`).sort()
    expect(keys).toEqual(['alpha:/ws/p1', 'alpha:/ws/p2', 'beta:/ws/p1'])
    expect(report.servers.map((s) => `${s.adapter}:${s.root}`).sort()).toEqual([
      'alpha:p1',
      'alpha:p2',
      'beta:p1',
    ])
    expect(report.remaining.map((d) => d.path)).toEqual([
      'p1/deep/y.a',
      'p1/w.b',
      'p1/x.a',
      'p2/z.a',
    ])
    expect(report.settled).toBe(true)
  })

  it('reports settled with no servers when no file has a server', async () => {
    const h = harness()
    const report = await h.pool.diagnostics(['/ws/notes.txt'])
    expect(report).toEqual({
      introduced: [],
      resolved: [],
      remaining: [],
      settled: true,
      waitedMs: 0,
      servers: [],
    })
    expect(h.sessions).toHaveLength(0)
  })

  it('shares one start between concurrent requests for the same server', async () => {
    const h = harness()
    await Promise.all([h.pool.diagnostics(['/ws/p1/x.a']), h.pool.diagnostics(['/ws/p1/y.a'])])
    expect(h.sessions).toHaveLength(1)
  })

  it('stops the least-recently-used idle server when a new one would exceed the cap', async () => {
    const h = harness({ maxServers: 2 })
    await h.pool.diagnostics(['/ws/p1/x.a'])
    h.clock += 10
    await h.pool.diagnostics(['/ws/p2/x.a'])
    h.clock += 10
    await h.pool.diagnostics(['/ws/p1/x.a']) // p1 is now the most recently used
    h.clock += 10
    await h.pool.diagnostics(['/ws/p3/x.a'])
    const [p1, p2, p3] = h.sessions
    expect(h.sessions).toHaveLength(3)
    expect([p1?.stopped, p2?.stopped, p3?.stopped]).toEqual([false, true, false])
    const roots = (await h.pool.status()).servers.map((s) => s.root).sort()
    expect(roots).toEqual(['p1', 'p3'])
  })

  it('queues a new server behind a busy one instead of evicting it', async () => {
    const h = harness({ maxServers: 1 })
    const gate = deferred<void>()
    h.prepare = (s) => (s.gate = gate.promise)
    const busy = h.pool.diagnostics(['/ws/p1/x.a'])
    await vi.waitFor(() => expect(h.sessions[0]?.started).toBe(true))
    h.prepare = () => undefined
    const queued = h.pool.diagnostics(['/ws/p2/x.a'])
    // Let the queued request run as far as it can: it must not stop the busy server.
    for (let i = 0; i < 20; i += 1) await Promise.resolve()
    expect(h.sessions).toHaveLength(1)
    expect(h.sessions[0]?.stopped).toBe(false)
    gate.resolve()
    const [first, second] = await Promise.all([busy, queued])
    expect(first.servers[0]?.state).toBe('ready')
    expect(second.servers[0]?.state).toBe('ready')
    expect(h.sessions).toHaveLength(2)
    expect(h.sessions[0]?.stopped).toBe(true)
  })

  it('does not deadlock a request spanning two languages under a cap of one', async () => {
    const h = harness({ maxServers: 1 })
    const report = await h.pool.diagnostics(['/ws/p1/x.a', '/ws/p1/y.b'])
    expect(report.servers.map((s) => s.state)).toEqual(['ready', 'ready'])
    expect(report.remaining).toHaveLength(2)
    expect(h.sessions.filter((s) => !s.stopped)).toHaveLength(1)
  })

  it('stops servers idle past idleTimeoutMs and closes idle documents', async () => {
    vi.useFakeTimers()
    const h = harness({ idleTimeoutMs: 1_000, documentIdleMs: 400 }, { now: () => Date.now() })
    await h.pool.diagnostics(['/ws/p1/x.a'])
    const session = h.sessions[0] as ScriptedSession
    await vi.advanceTimersByTimeAsync(600)
    expect(session.closeIdleCalls).toContain(400)
    expect(session.stopped).toBe(false)
    expect((await h.pool.status()).servers[0]?.openDocuments).toBe(0)
    await vi.advanceTimersByTimeAsync(1_000)
    expect(session.stopped).toBe(true)
    expect((await h.pool.status()).servers).toEqual([])
    await h.pool.diagnostics(['/ws/p1/x.a'])
    expect(h.sessions).toHaveLength(2)
    // Stopping an idle server and starting it again on demand is no restart.
    expect((await h.pool.status()).restarts).toEqual({ crash: 0, memory: 0 })
  })

  it('reports crashed for a request in flight when its server exits, and restarts on next use', async () => {
    const h = harness()
    const gate = deferred<void>()
    h.prepare = (s) => (s.gate = gate.promise)
    const inFlight = h.pool.diagnostics(['/ws/p1/x.a'])
    await vi.waitFor(() => expect(h.sessions[0]?.started).toBe(true))
    h.sessions[0]?.crash({ code: 1, signal: null, stderrTail: 'panic: out of cheese\n' })
    const report = await inFlight
    expect(report.settled).toBe(false)
    expect(report.servers).toEqual([
      {
        adapter: 'alpha',
        root: 'p1',
        state: 'crashed',
        code: 'LSP_CRASHED',
        settled: false,
        waitedMs: expect.any(Number),
        signal: 'unavailable',
        message:
          'Alpha server for p1 exited unexpectedly (code 1): panic: out of cheese while ' +
          'diagnostics were pending; it restarts on next use.',
      },
    ])
    expect(await h.pool.status()).toEqual({ servers: [], restarts: { crash: 1, memory: 0 } })
    h.prepare = () => undefined
    const next = await h.pool.diagnostics(['/ws/p1/x.a'])
    expect(next.servers[0]?.state).toBe('ready')
    expect(h.sessions).toHaveLength(2)
  })

  it('restarts a server whose memory exceeds memoryLimitBytes after a request', async () => {
    const h = harness({ memoryLimitBytes: 1024 ** 3 })
    h.prepare = (s) => (s.rss = 3 * 1024 ** 3)
    const report = await h.pool.diagnostics(['/ws/p1/x.a'])
    expect(report.servers[0]?.state).toBe('ready') // the answer still counts
    await vi.waitFor(() => expect(h.sessions[0]?.stopped).toBe(true))
    h.prepare = () => undefined
    await h.pool.diagnostics(['/ws/p1/x.a'])
    await h.pool.diagnostics(['/ws/p1/x.a'])
    expect(h.sessions).toHaveLength(2)
    expect(h.sessions[1]?.stopped).toBe(false)
    expect((await h.pool.status()).restarts).toEqual({ crash: 0, memory: 1 })
  })

  it('marks a server broken after repeated failed starts and retries only after backoff', async () => {
    const h = harness()
    const failure = new EditError('LSP_START_FAILED', 'Alpha server did not answer initialize.')
    h.prepare = (s) => (s.startResult = failure)
    const states: string[] = []
    for (let i = 0; i < 5; i += 1) {
      const report = await h.pool.diagnostics(['/ws/p1/x.a'])
      states.push(report.servers[0]?.state ?? '')
      expect(report.settled).toBe(false)
    }
    expect(states).toEqual(['start-failed', 'start-failed', 'broken', 'broken', 'broken'])
    expect(h.sessions).toHaveLength(3) // not retried on every call
    expect(h.sessions.every((s) => s.stopped)).toBe(true)
    const [broken] = (await h.pool.status()).servers
    expect(broken).toMatchObject({ adapter: 'alpha', root: 'p1', state: 'broken' })
    expect(broken?.message).toContain('after 3 failed starts in a row')
    expect(broken?.message).toContain('did not answer initialize')
    expect(broken?.retryInMs).toBe(BACKOFF_START_MS)

    h.clock += BACKOFF_START_MS // the retry fails again: the backoff doubles
    expect((await h.pool.diagnostics(['/ws/p1/x.a'])).servers[0]?.state).toBe('broken')
    expect(h.sessions).toHaveLength(4)
    expect((await h.pool.status()).servers[0]?.retryInMs).toBe(2 * BACKOFF_START_MS)

    h.clock += 2 * BACKOFF_START_MS
    h.prepare = () => undefined
    const recovered = await h.pool.diagnostics(['/ws/p1/x.a'])
    expect(recovered.servers[0]?.state).toBe('ready')
    expect((await h.pool.status()).servers).toEqual([
      expect.objectContaining({ state: 'ready', root: 'p1' }),
    ])
  })

  it('reports not-installed with the commands looked for, and re-checks only after backoff', async () => {
    const h = harness()
    h.resolution = {
      ok: false,
      lookedFor: ["'alpha-ls' on PATH"],
      message: "Alpha server is not installed: looked for 'alpha-ls' on PATH.",
    }
    const first = await h.pool.diagnostics(['/ws/p1/x.a'])
    expect(first.servers).toEqual([
      {
        adapter: 'alpha',
        root: 'p1',
        state: 'not-installed',
        code: 'LSP_NOT_INSTALLED',
        settled: false,
        waitedMs: 0,
        signal: 'unavailable',
        message: "Alpha server is not installed: looked for 'alpha-ls' on PATH.",
      },
    ])
    const second = await h.pool.diagnostics(['/ws/p1/x.a'])
    expect(second.servers[0]?.state).toBe('not-installed')
    expect(second.servers[0]?.message).toContain("'alpha-ls' on PATH")
    expect(h.resolved).toEqual(['alpha'])
    expect(h.sessions).toHaveLength(0)
    h.clock += BACKOFF_START_MS
    await h.pool.diagnostics(['/ws/p1/x.a'])
    expect(h.resolved).toEqual(['alpha', 'alpha'])
  })

  it('starts commandOverrides without resolving the adapter command', async () => {
    const h = harness({ commandOverrides: { alpha: { command: '/bin/fake', args: ['--x'] } } })
    await h.pool.baseline([{ path: '/ws/x.a', text: 'ok' }])
    expect(h.sessions.map((s) => s.command)).toEqual([{ command: '/bin/fake', args: ['--x'] }])
    expect(h.resolved).toEqual([])
  })

  it('compares the after-state with the baseline: introduced, resolved and old noise', async () => {
    const h = harness()
    const baseline = await h.pool.baseline([
      { path: '/ws/p1/x.a', text: 'ok\nbad old\n' },
      { path: '/ws/p1/gone.a', text: 'bad doomed\n' },
      { path: '/ws/p1/new.a', text: null },
    ])
    expect(Object.keys(baseline.byPath).sort()).toEqual(['p1/gone.a', 'p1/new.a', 'p1/x.a'])
    expect(baseline.byPath['p1/new.a']).toEqual([])
    expect(baseline.byPath['p1/x.a']).toEqual([
      {
        path: 'p1/x.a',
        line: 2,
        column: 1,
        endLine: 2,
        endColumn: 4,
        severity: 'error',
        code: 'X1',
        source: 'scripted',
        message: 'bad value: bad old',
      },
    ])
    const report = await h.pool.afterChange(
      [
        { path: '/ws/p1/x.a', before: 'ok\nbad old\n', after: 'inserted\nok\nbad old\nbad new\n' },
        { path: '/ws/p1/gone.a', before: 'bad doomed\n', after: null },
        { path: '/ws/p1/new.a', before: null, after: 'bad fresh\n' },
      ],
      baseline,
    )
    const brief = (list: readonly { path: string; line: number; message: string }[]) =>
      list.map((d) => `${d.path}:${d.line} ${d.message}`)
    expect(brief(report.introduced)).toEqual([
      'p1/new.a:1 bad value: bad fresh',
      'p1/x.a:4 bad value: bad new',
    ])
    expect(brief(report.resolved)).toEqual(['p1/gone.a:1 bad value: bad doomed'])
    expect(brief(report.remaining)).toEqual(['p1/x.a:3 bad value: bad old'])
    expect(report.settled).toBe(true)
    expect(h.sessions[0]?.saved.sort()).toEqual(['/ws/p1/new.a', '/ws/p1/x.a'])
    expect(h.sessions[0]?.texts.has('/ws/p1/gone.a')).toBe(false)
  })

  it('reports a touched file with no known before-state as remaining, not introduced', async () => {
    const h = harness()
    const report = await h.pool.afterChange(
      [
        { path: '/ws/p1/x.a', before: 'bad old\n', after: 'bad old\nbad new\n' },
        { path: '/ws/p1/y.a', before: null, after: 'bad fresh\n' },
      ],
      { byPath: {}, servers: [] },
    )
    expect(report.introduced.map((d) => `${d.path}:${d.line}`)).toEqual(['p1/y.a:1'])
    expect(report.remaining.map((d) => `${d.path}:${d.line}`)).toEqual(['p1/x.a:1', 'p1/x.a:2'])
    expect(h.sessions[0]?.created).toEqual(['/ws/p1/y.a'])
  })

  it('compares other open documents a server re-checked against what it last saw settle', async () => {
    const h = harness()
    h.prepare = (s) => (s.answerAllOpen = true)
    // b.a is opened by an earlier request, so the pool remembers its settled state.
    await h.pool.diagnostics(['/ws/p1/b.a'])
    const baseline = await h.pool.baseline([{ path: '/ws/p1/a.a', text: 'ok\n' }])
    // The scripted server now reports b.a with a new error, as an importer would break.
    h.sessions[0]?.texts.set('/ws/p1/b.a', 'ok\nbad /ws/p1/b.a\nbad importer\n')
    const report = await h.pool.afterChange(
      [{ path: '/ws/p1/a.a', before: 'ok\n', after: 'ok\nchanged\n' }],
      baseline,
    )
    expect(report.introduced.map((d) => `${d.path}:${d.line}`)).toEqual(['p1/b.a:3'])
    expect(report.remaining.map((d) => `${d.path}:${d.line}`)).toEqual(['p1/b.a:2'])
  })

  it('keeps filtering and capping options in the standalone report', async () => {
    const h = harness()
    h.prepare = (s) => (s.unsettled = true)
    const report = await h.pool.diagnostics(['/ws/p1/x.a', '/ws/p1/missing.a'], { maxPerFile: 0 })
    expect(report.remaining).toEqual([])
    expect(report.omitted).toEqual({ 'p1/x.a': 1 })
    expect(report.settled).toBe(false)
    expect(report.servers).toEqual([
      {
        adapter: 'alpha',
        root: 'p1',
        state: 'ready',
        code: 'LSP_TIMEOUT',
        settled: false,
        waitedMs: 7,
        signal: 'deadline',
        pending: ['p1/x.a'],
        message:
          'Alpha server for p1 did not settle within 7 ms; diagnostics may be incomplete for p1/x.a.',
      },
    ])
  })

  it('stops every server on close and refuses requests afterwards', async () => {
    const h = harness()
    await h.pool.diagnostics(['/ws/p1/x.a', '/ws/p2/x.b'])
    await h.pool.close()
    expect(h.sessions.map((s) => s.stopped)).toEqual([true, true])
    await expect(h.pool.diagnostics(['/ws/p1/x.a'])).rejects.toThrow(/after close/)
  })

  it('derives a default cap of at least one and at most sixteen servers', () => {
    expect(defaultMaxServers()).toBeGreaterThanOrEqual(1)
    expect(defaultMaxServers()).toBeLessThanOrEqual(16)
  })
})
