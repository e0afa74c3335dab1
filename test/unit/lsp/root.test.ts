// findProjectRoot over real temp trees: nearest marker wins, nested projects get their own root,
// the search never climbs above the workspace root, and marker directories count.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { findProjectRoot } from '../../../src/lsp/root.js'

let tmp: string
let ws: string

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'patchloom-root-'))
  ws = join(tmp, 'ws')
  mkdirSync(ws)
})

afterEach(() => {
  rmSync(tmp, { recursive: true, force: true })
})

function touch(...parts: string[]): void {
  const file = join(...parts)
  mkdirSync(join(file, '..'), { recursive: true })
  writeFileSync(file, '')
}

const TS = ['tsconfig.json', 'jsconfig.json', 'package.json']

describe('findProjectRoot', () => {
  it('returns the nearest ancestor holding any marker', () => {
    touch(ws, 'package.json')
    touch(ws, 'app', 'tsconfig.json')
    touch(ws, 'app', 'src', 'deep', 'a.ts')
    expect(findProjectRoot(join(ws, 'app', 'src', 'deep', 'a.ts'), TS, ws)).toBe(join(ws, 'app'))
  })

  it('gives nested projects their own root and siblings the outer one', () => {
    touch(ws, 'tsconfig.json')
    touch(ws, 'packages', 'inner', 'package.json')
    const inner = findProjectRoot(join(ws, 'packages', 'inner', 'src', 'x.ts'), TS, ws)
    const outer = findProjectRoot(join(ws, 'packages', 'other', 'y.ts'), TS, ws)
    expect(inner).toBe(join(ws, 'packages', 'inner'))
    expect(outer).toBe(ws)
  })

  it('counts a marker in the file’s own directory', () => {
    touch(ws, 'lib', 'Cargo.toml')
    expect(findProjectRoot(join(ws, 'lib', 'main.rs'), ['Cargo.toml'], ws)).toBe(join(ws, 'lib'))
  })

  it('falls back to the workspace root when no marker exists', () => {
    expect(findProjectRoot(join(ws, 'a', 'b', 'c.py'), ['pyproject.toml'], ws)).toBe(ws)
  })

  it('never climbs above the workspace root', () => {
    touch(tmp, 'package.json')
    expect(findProjectRoot(join(ws, 'src', 'a.ts'), TS, ws)).toBe(ws)
  })

  it('returns the workspace root for a file outside it', () => {
    touch(tmp, 'elsewhere', 'package.json')
    expect(findProjectRoot(join(tmp, 'elsewhere', 'a.ts'), TS, ws)).toBe(ws)
  })

  it('accepts a path relative to the workspace root', () => {
    touch(ws, 'svc', 'go.mod')
    expect(findProjectRoot(join('svc', 'cmd', 'main.go'), ['go.work', 'go.mod'], ws)).toBe(
      join(ws, 'svc'),
    )
  })

  it('treats a marker directory (.clangd) like a marker file', () => {
    mkdirSync(join(ws, 'native', '.clangd'), { recursive: true })
    const markers = ['compile_commands.json', 'compile_flags.txt', '.clangd']
    expect(findProjectRoot(join(ws, 'native', 'src', 'a.c'), markers, ws)).toBe(join(ws, 'native'))
  })

  it('normalises a workspace root given with a trailing separator or dot segments', () => {
    touch(ws, 'p', 'setup.py')
    const root = `${join(ws, 'p', '..')}/`
    expect(findProjectRoot(join(ws, 'p', 'm.py'), ['setup.py'], root)).toBe(join(ws, 'p'))
    expect(findProjectRoot(join(ws, 'q', 'm.py'), ['setup.py'], root)).toBe(ws)
  })
})
