// Language-server diagnostics end to end with the real TypeScript 7 server (`tsc --lsp`):
// through the engine (no child process survives close()) and through the built CLI.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine/engine.js'
import { runCli } from '../helpers/run-cli.js'

let root: string
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'patchloom-diag-e2e-'))
  await writeFile(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }),
  )
  await writeFile(path.join(root, 'a.ts'), 'export const x: number = 1\nconst old: string = 2\n')
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const BREAK =
  '*** Begin Patch\n*** Update File: a.ts\n@@\n-export const x: number = 1\n+export const x: number = "one"\n*** End Patch\n'

/** Pids of this process's children (the pool's servers are spawned from its worker thread). */
function childPids(): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === process.pid) pids.push(Number(entry))
    } catch {
      // the process exited while we looked
    }
  }
  return pids
}

describe('diagnostics with the real TypeScript server', () => {
  it('reports the error a change introduces, not the old one, and leaves no process after close()', async () => {
    const before = new Set(childPids())
    const engine = createEngine({ root, workers: false, diagnostics: { deadlineMs: 30_000 } })
    try {
      const result = await engine.apply(BREAK)
      const report = result.diagnostics
      expect(report?.settled).toBe(true)
      expect(report?.servers).toMatchObject([
        { adapter: 'typescript', state: 'ready', settled: true, signal: 'pull' },
      ])
      expect(report?.introduced).toMatchObject([
        { path: 'a.ts', line: 1, severity: 'error', code: '2322' },
      ])
      // The pre-existing error on line 2 is old noise, not blamed on this change.
      expect(report?.remaining).toMatchObject([{ path: 'a.ts', line: 2, code: '2322' }])
      expect(childPids().filter((p) => !before.has(p)).length).toBeGreaterThan(0)
    } finally {
      await engine.close()
    }
    expect(childPids().filter((p) => !before.has(p))).toEqual([])
  }, 90_000)

  it('prints diagnostics from the CLI: apply --diagnostics and the diagnostics command', async () => {
    await writeFile(path.join(root, 'fix.patch'), BREAK)
    const applied = await runCli(['apply', 'fix.patch', '--diagnostics', '--json'], { cwd: root })
    expect(applied.code).toBe(0)
    const json = JSON.parse(applied.stdout) as {
      diagnostics: { introduced: { path: string; line: number }[] }
    }
    expect(json.diagnostics.introduced).toMatchObject([{ path: 'a.ts', line: 1 }])

    const checked = await runCli(['diagnostics', 'a.ts'], { cwd: root })
    expect(checked.code).toBe(1)
    expect(checked.stdout).toMatch(/typescript: settled in \d+ ms via pull/)
    expect(checked.stdout).toContain(
      "a.ts:1:14 error TS2322: Type 'string' is not assignable to type 'number'.",
    )
  }, 90_000)
})

describe('diagnostics with the real pyright server', () => {
  it('reports an error introduced in an open importer by a change to the file it imports (push server)', async () => {
    await writeFile(
      path.join(root, 'pyproject.toml'),
      '[tool.pyright]\ntypeCheckingMode = "standard"\n',
    )
    await writeFile(path.join(root, 'a.py'), 'def f(x: int) -> int:\n    return x\n')
    await writeFile(path.join(root, 'b.py'), 'from a import f\n\nr: int = f(1)\n')
    const engine = createEngine({
      root,
      workers: false,
      diagnostics: { deadlineMs: 30_000, servers: { adapters: ['pyright'] } },
    })
    try {
      // Opens the importer, as an agent's earlier edits or checks would have.
      const before = await engine.diagnostics(['b.py', 'a.py'])
      expect(before).toMatchObject({ settled: true, remaining: [] })
      const edit = {
        edits: [{ path: 'a.py', old_string: 'def f(x: int)', new_string: 'def f(x: int, y: int)' }],
      }
      const result = await engine.apply(JSON.stringify(edit))
      expect(result.diagnostics?.settled).toBe(true)
      expect(result.diagnostics?.servers).toMatchObject([
        { adapter: 'pyright', signal: 'versioned-push' },
      ])
      expect(result.diagnostics?.introduced).toMatchObject([
        { path: 'b.py', line: 3, severity: 'error' },
      ])
    } finally {
      await engine.close()
    }
  }, 90_000)
})

const clangdOnPath = (process.env['PATH'] ?? '')
  .split(path.delimiter)
  .some((dir) => dir !== '' && existsSync(path.join(dir, 'clangd')))

describe('diagnostics with the real clangd server', () => {
  // clangd is a Debian package (.ci/run installs it); elsewhere the adapter reports it missing.
  it.skipIf(!clangdOnPath)(
    'reports a C++ error a change introduces (skipped when clangd is not on PATH)',
    async () => {
      await writeFile(path.join(root, 'compile_flags.txt'), '-std=c++17\n')
      await writeFile(path.join(root, 'a.cpp'), 'int f() { return 1; }\n')
      const engine = createEngine({
        root,
        workers: false,
        diagnostics: { deadlineMs: 30_000, servers: { adapters: ['clangd'] } },
      })
      try {
        const patch =
          '*** Begin Patch\n*** Update File: a.cpp\n@@\n-int f() { return 1; }\n+int f() { return "s"; }\n*** End Patch\n'
        const result = await engine.apply(patch)
        expect(result.diagnostics?.servers).toMatchObject([
          { adapter: 'clangd', state: 'ready', settled: true },
        ])
        expect(result.diagnostics?.introduced).toMatchObject([
          { path: 'a.cpp', line: 1, severity: 'error', source: 'clang' },
        ])
      } finally {
        await engine.close()
      }
    },
    90_000,
  )
})
