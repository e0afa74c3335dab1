// The sidecar pool through its real worker thread and comlink proxy (startLspClient), against the
// real TypeScript 7 (`tsc --lsp --stdio`, pull) and pyright (versioned push) servers on a temp
// project, plus the scripted fake server for crash and restart. Needs `npm run build` (the
// thread loads dist/src/lsp/host.js). Waits are on answers and process state, never sleeps.
import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Baseline, LspClient, SidecarPoolOptions } from '../../src/lsp/client-types.js'
import { startLspClient } from '../../src/lsp/client.js'
import type { FileDiagnostic } from '../../src/lsp/reports.js'

const DEADLINE_MS = 30_000
const FAKE_SERVER = fileURLToPath(new URL('../fixtures/fake-lsp-server.mjs', import.meta.url))

/** rust-analyzer cannot run here: the fake server stands in for it, in the given mode. */
function fakeRustAnalyzer(
  config: Record<string, unknown>,
): NonNullable<SidecarPoolOptions['commandOverrides']> {
  return {
    'rust-analyzer': { command: process.execPath, args: [FAKE_SERVER, JSON.stringify(config)] },
  }
}
const REPORT = { deadlineMs: DEADLINE_MS }

let root = ''
const clients: LspClient[] = []

function client(options: Omit<SidecarPoolOptions, 'workspaceRoot'> = {}): LspClient {
  const started = startLspClient({ workspaceRoot: root, ...options })
  clients.push(started)
  return started
}

function write(rel: string, text: string): string {
  const file = join(root, rel)
  writeFileSync(file, text)
  return file
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false
    throw error
  }
}

/** Polls a condition until it holds or the deadline passes (process exit has no event here). */
async function eventually(condition: () => boolean, deadlineMs = 10_000): Promise<void> {
  const until = Date.now() + deadlineMs
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition did not hold before the deadline')
    await new Promise((resolve) => setImmediate(resolve))
  }
}

const brief = (list: readonly FileDiagnostic[]): string[] =>
  list.map((d) => `${d.path}:${d.line} ${d.code ?? ''}`)

/** Baseline with `before`, write `after` as a commit would, then compare. */
async function change(
  lsp: LspClient,
  edits: readonly { file: string; before: string; after: string }[],
) {
  const baseline: Baseline = await lsp.baseline(
    edits.map((e) => ({ path: e.file, text: e.before })),
    REPORT,
  )
  for (const e of edits) writeFileSync(e.file, e.after)
  const changes = edits.map((e) => ({ path: e.file, before: e.before, after: e.after }))
  return { baseline, report: await lsp.afterChange(changes, baseline, REPORT) }
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'patchloom-lsp-pool-')))
  mkdirSync(join(root, 'web/src'), { recursive: true })
  mkdirSync(join(root, 'py'), { recursive: true })
  write('web/tsconfig.json', '{ "compilerOptions": { "strict": true, "noEmit": true } }\n')
  write('web/src/a.ts', 'export const n: number = 1\n')
  write('py/pyrightconfig.json', '{}\n')
  write('py/main.py', 'x: int = 1\n')
  mkdirSync(join(root, 'crate/src'), { recursive: true })
  write('crate/Cargo.toml', '[package]\nname = "demo"\n')
  write('crate/src/main.rs', 'fn main() {}\n')
})

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
})

afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

describe('startLspClient', () => {
  it('reports an introduced TypeScript error, then its fix as resolved', async () => {
    const lsp = client()
    const file = join(root, 'web/src/a.ts')
    const good = 'export const n: number = 1\n'
    const bad = 'export const n: number = "one"\n'

    const broke = await change(lsp, [{ file, before: good, after: bad }])
    expect(broke.baseline.byPath['web/src/a.ts']).toEqual([])
    expect(brief(broke.report.introduced)).toEqual(['web/src/a.ts:1 2322'])
    expect(broke.report.resolved).toEqual([])
    expect(broke.report.settled).toBe(true)
    expect(broke.report.servers).toEqual([
      expect.objectContaining({
        adapter: 'typescript',
        root: 'web',
        state: 'ready',
        signal: 'pull',
      }),
    ])

    const fixed = await change(lsp, [{ file, before: bad, after: good }])
    expect(fixed.report.introduced).toEqual([])
    expect(brief(fixed.report.resolved)).toEqual(['web/src/a.ts:1 2322'])
    expect(fixed.report.settled).toBe(true)
  })

  it('runs TypeScript and pyright side by side and leaves no process after close', async () => {
    const lsp = client()
    const ts = join(root, 'web/src/a.ts')
    const py = join(root, 'py/main.py')
    const { report } = await change(lsp, [
      { file: ts, before: 'export const n: number = 1\n', after: 'export const n: string = 2\n' },
      { file: py, before: 'x: int = 1\n', after: 'x: int = "one"\n' },
    ])
    expect(report.settled).toBe(true)
    expect(report.servers.map((s) => `${s.adapter}:${s.root}:${s.signal}`).sort()).toEqual([
      'pyright:py:versioned-push',
      'typescript:web:pull',
    ])
    expect(report.introduced.map((d) => d.path)).toEqual(['py/main.py', 'web/src/a.ts'])

    const status = await lsp.status()
    expect(status.servers.map((s) => s.state)).toEqual(['ready', 'ready'])
    const pids = status.servers.map((s) => s.pid as number)
    expect(pids.every((pid) => Number.isInteger(pid) && isAlive(pid))).toBe(true)

    await lsp.close()
    // The servers run in their own process groups: the group (any forked child) must be gone too.
    await eventually(() => pids.every((pid) => !isAlive(pid) && !isAlive(-pid)))
    write('web/src/a.ts', 'export const n: number = 1\n')
    write('py/main.py', 'x: int = 1\n')
  })

  it('reads files from disk for a standalone check: everything is remaining', async () => {
    const lsp = client({ adapters: ['typescript'] })
    const file = write('web/src/b.ts', 'export const s: string = 3\n')
    const report = await lsp.diagnostics([file, join(root, 'py/main.py')], REPORT)
    expect(report.introduced).toEqual([])
    expect(brief(report.remaining)).toEqual(['web/src/b.ts:1 2322'])
    // py/main.py is ignored: only the typescript adapter is enabled.
    expect(report.servers.map((s) => s.adapter)).toEqual(['typescript'])
    rmSync(file)
  })

  it('settles a fake server replaying rust-analyzer through the thread', async () => {
    const lsp = client({ commandOverrides: fakeRustAnalyzer({ mode: 'rust-analyzer' }) })
    const file = write('crate/src/main.rs', 'fn main() {}\nlet ERROR = 1;\n')
    const report = await lsp.diagnostics([file], REPORT)
    expect(report.settled).toBe(true)
    expect(report.remaining.map((d) => `${d.path}:${d.line}`)).toEqual(['crate/src/main.rs:2'])
    expect(report.servers).toEqual([
      expect.objectContaining({ adapter: 'rust-analyzer', root: 'crate', state: 'ready' }),
    ])
  })

  it('reports crashed when a fake server dies mid-request, then restarts it on next use', async () => {
    // 'silent' never publishes, so the request is still waiting when the server is killed.
    const lsp = client({ commandOverrides: fakeRustAnalyzer({ mode: 'silent' }) })
    const file = write('crate/src/main.rs', 'fn main() {}\n')
    const inFlight = lsp.diagnostics([file], REPORT)
    let pid: number | undefined
    while (pid === undefined) {
      const [server] = (await lsp.status()).servers
      if (server?.state === 'ready') pid = server.pid
      else await new Promise((resolve) => setImmediate(resolve))
    }
    process.kill(pid, 'SIGKILL')
    const crashed = await inFlight
    expect(crashed.settled).toBe(false)
    expect(crashed.servers).toEqual([
      expect.objectContaining({
        adapter: 'rust-analyzer',
        state: 'crashed',
        signal: 'unavailable',
      }),
    ])
    expect(crashed.servers[0]?.message).toMatch(/exited unexpectedly \(signal SIGKILL\)/)

    // The next request starts a fresh server; it stays silent, so the short deadline ends it.
    const next = await lsp.diagnostics([file], { deadlineMs: 300 })
    expect(next.servers).toEqual([
      expect.objectContaining({ state: 'ready', settled: false, signal: 'deadline' }),
    ])
    expect(next.servers[0]?.pending).toEqual(['crate/src/main.rs'])
    const [restarted] = (await lsp.status()).servers
    expect(restarted?.pid).not.toBe(pid)
    expect(isAlive(pid)).toBe(false)
  })

  it('rejects pending calls when the pool thread dies, and answers later calls with crashed', async () => {
    // A stand-in thread that dies on the first message it receives.
    const dying = new URL(
      'data:text/javascript,' +
        encodeURIComponent(
          "import { parentPort } from 'node:worker_threads'\n" +
            "parentPort.on('message', () => process.exit(3))\n",
        ),
    )
    const lsp = startLspClient({ workspaceRoot: root }, dying)
    clients.push(lsp)
    await expect(lsp.diagnostics([join(root, 'web/src/a.ts')])).rejects.toThrow(
      /pool thread exited \(code 3\)/,
    )
    const later = await lsp.diagnostics([join(root, 'web/src/a.ts')])
    expect(later.settled).toBe(false)
    expect(later.servers).toEqual([expect.objectContaining({ state: 'crashed', adapter: 'pool' })])
    expect((await lsp.status()).servers).toEqual([])
  })
})
