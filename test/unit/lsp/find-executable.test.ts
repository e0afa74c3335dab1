// resolveCommand against real temp directories: fake executables, PATH order, the project's
// node_modules/.bin, the TypeScript-5 condition, and patchloom's own npm bins (typescript,
// pyright). Nothing is spawned, matching the module's promise never to probe by running.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, relative } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CommandSource, LspAdapter } from '../../../src/lsp/adapter.js'
import { binCommand, resolveCommand } from '../../../src/lsp/find-executable.js'

const posixOnly = process.platform === 'win32' ? it.skip : it

let tmp: string

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'patchloom-find-exec-'))
})

afterEach(() => {
  rmSync(tmp, { recursive: true, force: true })
})

function adapterWith(commands: readonly CommandSource[]): LspAdapter {
  return {
    id: 'fake',
    name: 'Fake',
    languageIds: { '.fake': 'fake' },
    rootMarkers: ['fake.json'],
    commands,
    settle: {
      pull: false,
      versionedPush: true,
      progress: false,
      quiescent: false,
      diagnosticsOnSave: false,
    },
  }
}

/** Writes a file (creating its folder) with the given mode; returns its path. */
function put(path: string, text: string, mode = 0o755): string {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, text)
  chmodSync(path, mode)
  return path
}

const sh = '#!/bin/sh\nexit 0\n'
const pathEnv = (...dirs: string[]) => ({ PATH: dirs.join(delimiter) })

describe('resolveCommand', () => {
  posixOnly('finds a command in the first PATH directory that has it', () => {
    const a = join(tmp, 'a')
    const b = join(tmp, 'b')
    mkdirSync(a)
    const second = put(join(b, 'fake-ls'), sh)
    put(join(tmp, 'c', 'fake-ls'), sh)
    const adapter = adapterWith([{ kind: 'path', command: 'fake-ls', args: ['--stdio'] }])
    const found = resolveCommand(adapter, { projectRoot: tmp, env: pathEnv(a, b, join(tmp, 'c')) })
    expect(found).toEqual({
      ok: true,
      command: { command: second, args: ['--stdio'] },
      source: adapter.commands[0],
    })
  })

  posixOnly('skips files without an execute bit and directories of the same name', () => {
    put(join(tmp, 'plain', 'fake-ls'), sh, 0o644)
    mkdirSync(join(tmp, 'dir', 'fake-ls'), { recursive: true })
    const good = put(join(tmp, 'good', 'fake-ls'), sh)
    const env = pathEnv(join(tmp, 'plain'), join(tmp, 'dir'), join(tmp, 'good'))
    const found = resolveCommand(adapterWith([{ kind: 'path', command: 'fake-ls', args: [] }]), {
      projectRoot: tmp,
      env,
    })
    expect(found.ok && found.command.command).toBe(good)
  })

  posixOnly('ignores empty and relative PATH entries', () => {
    put(join(tmp, 'fake-ls'), sh)
    // The relative entry does name tmp from the test's working directory: it must still be ignored.
    const env = { PATH: ['', '.', relative(process.cwd(), tmp)].join(delimiter) }
    const found = resolveCommand(adapterWith([{ kind: 'path', command: 'fake-ls', args: [] }]), {
      projectRoot: tmp,
      env,
    })
    expect(found.ok).toBe(false)
  })

  posixOnly("prefers the project's node_modules/.bin when projectBin is true", () => {
    const project = join(tmp, 'project')
    const local = put(join(project, 'node_modules', '.bin', 'fake-ls'), sh)
    const global = put(join(tmp, 'bin', 'fake-ls'), sh)
    const env = pathEnv(join(tmp, 'bin'))
    const withBin = adapterWith([{ kind: 'path', command: 'fake-ls', args: [], projectBin: true }])
    const without = adapterWith([{ kind: 'path', command: 'fake-ls', args: [] }])
    const a = resolveCommand(withBin, { projectRoot: project, env })
    const b = resolveCommand(without, { projectRoot: project, env })
    expect(a.ok && a.command.command).toBe(local)
    expect(b.ok && b.command.command).toBe(global)
  })

  posixOnly('finds a hoisted bin in an ancestor node_modules/.bin (monorepo root)', () => {
    const hoisted = put(join(tmp, 'node_modules', '.bin', 'fake-ls'), sh)
    const pkg = join(tmp, 'packages', 'app')
    mkdirSync(pkg, { recursive: true })
    const adapter = adapterWith([{ kind: 'path', command: 'fake-ls', args: [], projectBin: true }])
    const found = resolveCommand(adapter, { projectRoot: pkg, env: pathEnv() })
    expect(found.ok && found.command.command).toBe(hoisted)
  })

  posixOnly('runs a node-shebang script through this Node, with no shell or PATH lookup', () => {
    const script = put(join(tmp, 'bin', 'js-ls'), '#!/usr/bin/env node\nconsole.log(1)\n')
    const adapter = adapterWith([{ kind: 'path', command: 'js-ls', args: ['--stdio'] }])
    const found = resolveCommand(adapter, { projectRoot: tmp, env: pathEnv(join(tmp, 'bin')) })
    expect(found.ok && found.command).toEqual({
      command: process.execPath,
      args: [script, '--stdio'],
    })
  })

  it('resolves the typescript npm bin to this Node running bin/tsc', () => {
    const adapter = adapterWith([
      { kind: 'npm', packageName: 'typescript', bin: 'tsc', args: ['--lsp', '--stdio'] },
    ])
    const found = resolveCommand(adapter, { projectRoot: tmp, env: pathEnv() })
    expect(found.ok).toBe(true)
    if (!found.ok) return
    expect(found.command.command).toBe(process.execPath)
    const [script, ...rest] = found.command.args
    expect(script).toMatch(/node_modules[\\/]typescript[\\/]bin[\\/]tsc$/)
    expect(existsSync(script ?? '')).toBe(true)
    expect(rest).toEqual(['--lsp', '--stdio'])
  })

  it('resolves the pyright-langserver npm bin from its bin map', () => {
    const adapter = adapterWith([
      { kind: 'npm', packageName: 'pyright', bin: 'pyright-langserver', args: ['--stdio'] },
    ])
    const found = resolveCommand(adapter, { projectRoot: tmp, env: pathEnv() })
    expect(found.ok && found.command.args[0]).toMatch(/pyright[\\/]langserver\.index\.js$/)
  })

  it('fails for an npm package that is not a dependency, or a bin it does not ship', () => {
    const adapter = adapterWith([
      { kind: 'npm', packageName: 'no-such-package-patchloom', bin: 'x', args: [] },
      { kind: 'npm', packageName: 'pyright', bin: 'no-such-bin', args: [] },
    ])
    const found = resolveCommand(adapter, { projectRoot: tmp, env: pathEnv() })
    expect(found).toEqual({
      ok: false,
      lookedFor: [
        "'x' from npm package 'no-such-package-patchloom'",
        "'no-such-bin' from npm package 'pyright'",
      ],
      message:
        "No Fake language server was found: looked for 'x' from npm package " +
        "'no-such-package-patchloom'; 'no-such-bin' from npm package 'pyright'.",
    })
  })

  it('names every command it looked for when none is found', () => {
    const adapter = adapterWith([
      { kind: 'path', command: 'first-ls', args: [], projectBin: true },
      { kind: 'path', command: 'second-ls', args: ['serve'] },
    ])
    const found = resolveCommand(adapter, { projectRoot: tmp, env: pathEnv(tmp) })
    expect(found.ok).toBe(false)
    if (found.ok) return
    expect(found.lookedFor).toEqual([
      "'first-ls' on the project's node_modules/.bin, then PATH",
      "'second-ls' on PATH",
    ])
    expect(found.message).toContain('first-ls')
    expect(found.message).toContain('second-ls')
    expect(found.message).toMatch(/^No Fake language server was found: .*\.$/)
  })

  describe('with a project-package condition', () => {
    const conditional: CommandSource = {
      kind: 'path',
      command: 'old-ls',
      args: ['--stdio'],
      projectBin: true,
      when: { kind: 'project-package', packageName: 'typescript', majorBelow: 7 },
    }
    const fallback: CommandSource = { kind: 'path', command: 'new-ls', args: [] }
    let project: string
    let env: { PATH: string }

    beforeEach(() => {
      project = join(tmp, 'project')
      put(join(project, 'node_modules', '.bin', 'old-ls'), sh)
      put(join(tmp, 'bin', 'new-ls'), sh)
      env = pathEnv(join(tmp, 'bin'))
    })

    const withTypescript = (version: string, dir = project) =>
      put(
        join(dir, 'node_modules', 'typescript', 'package.json'),
        JSON.stringify({ name: 'typescript', version }),
        0o644,
      )

    posixOnly('uses the command when the project brings an older major', () => {
      withTypescript('5.4.5')
      const found = resolveCommand(adapterWith([conditional, fallback]), {
        projectRoot: project,
        env,
      })
      expect(found.ok && found.source).toBe(conditional)
    })

    posixOnly('skips the command for a newer major or when the package is absent', () => {
      const adapter = adapterWith([conditional, fallback])
      const absent = resolveCommand(adapter, { projectRoot: project, env })
      withTypescript('7.0.2')
      const newer = resolveCommand(adapter, { projectRoot: project, env })
      expect(absent.ok && absent.source).toBe(fallback)
      expect(newer.ok && newer.source).toBe(fallback)
    })

    posixOnly('lets the nearest copy decide, as Node resolution would', () => {
      withTypescript('5.0.0', tmp)
      withTypescript('7.1.0')
      const adapter = adapterWith([conditional, fallback])
      const nested = resolveCommand(adapter, { projectRoot: project, env })
      expect(nested.ok && nested.source).toBe(fallback)
      rmSync(join(project, 'node_modules', 'typescript'), { recursive: true })
      const hoisted = resolveCommand(adapter, { projectRoot: project, env })
      expect(hoisted.ok && hoisted.source).toBe(conditional)
    })

    posixOnly('mentions a skipped command in the failure message', () => {
      const found = resolveCommand(adapterWith([conditional]), { projectRoot: project, env })
      expect(found.ok).toBe(false)
      if (found.ok) return
      expect(found.lookedFor).toEqual([])
      expect(found.message).toContain("skipped 'old-ls'")
      expect(found.message).toContain('typescript below major 7')
    })
  })
})

describe('binCommand', () => {
  it('runs .js, .mjs and .cjs files through this Node', () => {
    for (const ext of ['.js', '.mjs', '.cjs']) {
      const file = put(join(tmp, `server${ext}`), 'console.log(1)\n', 0o644)
      expect(binCommand(file, ['--stdio'])).toEqual({
        command: process.execPath,
        args: [file, '--stdio'],
      })
    }
  })

  posixOnly('runs other files directly', () => {
    const file = put(join(tmp, 'native-ls'), sh)
    expect(binCommand(file, ['a'])).toEqual({ command: file, args: ['a'] })
  })
})
