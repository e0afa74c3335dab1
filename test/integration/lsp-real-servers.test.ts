// LspSession against the real servers patchloom ships with, in temp projects: TypeScript 7's
// `tsc --lsp --stdio` (pull diagnostics) and pyright-langserver (versioned push). They run for
// real in CI, so deadlines are generous and every wait is on an answer or an exit, never a sleep.
// Both bins are resolved from their packages' own package.json and run with this Node.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { LspAdapter } from '../../src/lsp/adapter.js'
import type { RawDiagnostic } from '../../src/lsp/session-types.js'
import { LspSession } from '../../src/lsp/session.js'

const DEADLINE_MS = 30_000
const require = createRequire(import.meta.url)

/** Absolute path of `bin` declared in `packageName`'s package.json. */
function binOf(packageName: string, bin: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`)
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    bin: string | Record<string, string>
  }
  const relative = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[bin]
  if (relative === undefined) throw new Error(`${packageName} has no bin ${bin}`)
  return resolve(dirname(manifestPath), relative)
}

const TYPESCRIPT: LspAdapter = {
  id: 'typescript',
  name: 'TypeScript',
  languageIds: { '.ts': 'typescript' },
  rootMarkers: ['tsconfig.json'],
  commands: [],
  settle: {
    pull: true,
    versionedPush: false,
    progress: false,
    quiescent: false,
    diagnosticsOnSave: false,
  },
}

const PYRIGHT: LspAdapter = {
  id: 'pyright',
  name: 'Pyright',
  languageIds: { '.py': 'python' },
  rootMarkers: ['pyrightconfig.json'],
  commands: [],
  settle: {
    pull: false,
    versionedPush: true,
    progress: true,
    quiescent: false,
    diagnosticsOnSave: false,
  },
}

let root = ''
const sessions: LspSession[] = []

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'patchloom-lsp-real-'))
})

afterEach(async () => {
  await Promise.all(sessions.map((session) => session.stop()))
  sessions.length = 0
})

afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

function project(name: string, files: Record<string, string>): string {
  const dir = join(root, name)
  mkdirSync(dir, { recursive: true })
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(dir, rel), text)
  return dir
}

function session(adapter: LspAdapter, dir: string, args: string[]): LspSession {
  const created = new LspSession({
    adapter,
    root: dir,
    command: { command: process.execPath, args },
    initializeTimeoutMs: DEADLINE_MS,
  })
  sessions.push(created)
  return created
}

/** No process with this pid, and none left in its process group (a shim's forked server). */
function isGone(pid: number): boolean {
  for (const target of [pid, -pid]) {
    try {
      process.kill(target, 0)
      return false
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') return false
    }
  }
  return true
}

function codes(items: readonly RawDiagnostic[] | undefined): string[] {
  return (items ?? [])
    .filter((d) => (d.severity ?? 1) === 1)
    .map((d) => `${d.range.start.line + 1}:${d.code}`)
}

describe('LspSession (real servers)', () => {
  it('gets a type error from tsc --lsp by pull for the edited version, and none after the fix', async () => {
    const dir = project('ts', {
      'package.json': '{ "type": "module" }\n',
      'tsconfig.json':
        '{ "compilerOptions": { "strict": true, "module": "nodenext", "noEmit": true } }\n',
      'a.ts': 'export const value: number = 1\n',
      'b.ts': "import { value } from './a.js'\nexport const doubled: number = value * 2\n",
    })
    const a = join(dir, 'a.ts')
    const b = join(dir, 'b.ts')
    const ts = session(TYPESCRIPT, dir, [binOf('typescript', 'tsc'), '--lsp', '--stdio'])
    await ts.start()
    expect(ts.capabilities?.diagnosticProvider).toBeDefined()

    ts.sync([
      { path: a, text: readFileSync(a, 'utf8') },
      { path: b, text: readFileSync(b, 'utf8') },
    ])
    const clean = await ts.diagnostics([a], DEADLINE_MS)
    expect(clean).toMatchObject({ settled: true, signal: 'pull', pending: [] })
    expect(codes(clean.byPath.get(a))).toEqual([])

    // The edit breaks a itself, and b through its import (tsc declares interFileDependencies).
    ts.sync([{ path: a, text: "export const value: number = 'one'\n" }])
    const broken = await ts.diagnostics([a], DEADLINE_MS)
    expect(broken).toMatchObject({ settled: true, signal: 'pull' })
    expect(codes(broken.byPath.get(a))).toEqual(['1:2322'])

    ts.sync([{ path: a, text: 'export const value: number = 1\n' }])
    const fixed = await ts.diagnostics([a], DEADLINE_MS)
    expect(fixed).toMatchObject({ settled: true, signal: 'pull' })
    expect(codes(fixed.byPath.get(a))).toEqual([])
    expect(codes(fixed.byPath.get(b))).toEqual([])

    ts.sync([{ path: a, text: "export const value: string = 'one'\n" }])
    const importer = await ts.diagnostics([a], DEADLINE_MS)
    expect(codes(importer.byPath.get(a))).toEqual([])
    expect(codes(importer.byPath.get(b))).toEqual(['2:2362'])

    const pid = ts.pid ?? -1
    expect(await ts.rssBytes()).toBeGreaterThan(1024 * 1024)
    await ts.stop()
    expect(isGone(pid)).toBe(true)
  })

  it('gets a Python type error from pyright by versioned push, and clears it after the fix', async () => {
    const dir = project('py', {
      'pyrightconfig.json': '{ "typeCheckingMode": "standard" }\n',
      'main.py': 'count: int = 1\n',
    })
    const main = join(dir, 'main.py')
    const py = session(PYRIGHT, dir, [binOf('pyright', 'pyright-langserver'), '--stdio'])
    await py.start()

    py.sync([{ path: main, text: 'count: int = "one"\n' }])
    const broken = await py.diagnostics([main], DEADLINE_MS)
    expect(broken).toMatchObject({ settled: true, signal: 'versioned-push', pending: [] })
    expect(codes(broken.byPath.get(main))).toEqual(['1:reportAssignmentType'])

    py.sync([{ path: main, text: 'count: int = 1\n' }])
    const fixed = await py.diagnostics([main], DEADLINE_MS)
    expect(fixed).toMatchObject({ settled: true, signal: 'versioned-push' })
    expect(codes(fixed.byPath.get(main))).toEqual([])

    const pid = py.pid ?? -1
    await py.stop()
    expect(isGone(pid)).toBe(true)
  })
})
