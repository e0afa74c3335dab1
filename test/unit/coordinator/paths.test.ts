import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_DENY_GLOBS } from '../../../src/config.js'
import { EditError } from '../../../src/errors.js'
import { compileGlobs, globToRegExp } from '../../../src/coordinator/glob.js'
import { resolveWorkspacePath, type PathContext } from '../../../src/coordinator/paths.js'

let base: string
let ctx: PathContext
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'patchloom-paths-'))
  const root = path.join(base, 'root')
  await mkdir(path.join(root, 'src'), { recursive: true })
  await mkdir(path.join(base, 'outside'))
  await writeFile(path.join(root, 'src/a.ts'), 'a\n')
  await writeFile(path.join(base, 'outside/secret.txt'), 'secret\n')
  await symlink(path.join(base, 'outside'), path.join(root, 'out-dir'))
  await symlink(path.join(base, 'outside/secret.txt'), path.join(root, 'out-file'))
  await symlink('src/a.ts', path.join(root, 'in-link'))
  await symlink(path.join(base, 'outside/not-yet.txt'), path.join(root, 'dangling-out'))
  await symlink('loop-b', path.join(root, 'loop-a'))
  await symlink('loop-a', path.join(root, 'loop-b'))
  ctx = { root, rootReal: root, isDenied: compileGlobs(DEFAULT_DENY_GLOBS) }
})
afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

async function codeOf(input: string): Promise<string> {
  const error = await resolveWorkspacePath(ctx, input, 3).then(
    () => 'resolved',
    (e: unknown) => (e instanceof EditError ? e.code : String(e)),
  )
  return error
}

describe('resolveWorkspacePath', () => {
  it('resolves a relative path and reports it relative to the root', async () => {
    const r = await resolveWorkspacePath(ctx, 'src/../src/./a.ts', 1)
    expect(r.rel).toBe('src/a.ts')
    expect(r.abs).toBe(path.join(ctx.root, 'src/a.ts'))
  })

  it('accepts an absolute path inside the root and a path that does not exist yet', async () => {
    expect((await resolveWorkspacePath(ctx, path.join(ctx.root, 'src/a.ts'), 1)).rel).toBe(
      'src/a.ts',
    )
    expect((await resolveWorkspacePath(ctx, 'new/dir/file.ts', 1)).abs).toBe(
      path.join(ctx.root, 'new/dir/file.ts'),
    )
  })

  it('follows a symlink that stays inside the root to its target', async () => {
    expect((await resolveWorkspacePath(ctx, 'in-link', 1)).abs).toBe(
      path.join(ctx.root, 'src/a.ts'),
    )
  })

  it('refuses .. escapes, absolute paths outside and symlinks leading out', async () => {
    expect(await codeOf('../outside/secret.txt')).toBe('PATH_OUTSIDE_ROOT')
    expect(await codeOf('src/../../x')).toBe('PATH_OUTSIDE_ROOT')
    expect(await codeOf('/etc/passwd')).toBe('PATH_OUTSIDE_ROOT')
    expect(await codeOf('out-dir/secret.txt')).toBe('PATH_OUTSIDE_ROOT')
    expect(await codeOf('out-dir/new-file.txt')).toBe('PATH_OUTSIDE_ROOT')
    expect(await codeOf('out-file')).toBe('PATH_OUTSIDE_ROOT')
    expect(await codeOf('dangling-out')).toBe('PATH_OUTSIDE_ROOT')
  })

  it('refuses empty paths, NUL bytes, the root itself, loops and file parents', async () => {
    expect(await codeOf('')).toBe('PATH_INVALID')
    expect(await codeOf('a\0b')).toBe('PATH_INVALID')
    expect(await codeOf('.')).toBe('PATH_INVALID')
    expect(await codeOf('loop-a')).toBe('PATH_INVALID')
    expect(await codeOf('src/a.ts/child')).toBe('PATH_INVALID')
    expect(await codeOf('src/a.ts/')).toBe('PATH_INVALID')
  })

  it('refuses .git paths by default, including nested repositories', async () => {
    expect(await codeOf('.git/config')).toBe('PATH_DENIED')
    expect(await codeOf('.git')).toBe('PATH_DENIED')
    expect(await codeOf('vendor/lib/.git/HEAD')).toBe('PATH_DENIED')
    expect(await codeOf('.GIT/config')).toBe('PATH_DENIED')
    expect(await codeOf('.github/workflows/ci.yml')).toBe('resolved')
  })

  it('carries path and patchLine on errors', async () => {
    const error = await resolveWorkspacePath(ctx, '../x', 7).catch((e: unknown) => e as EditError)
    expect(error).toMatchObject({ code: 'PATH_OUTSIDE_ROOT', patchLine: 7, path: '../x' })
  })
})

describe('globToRegExp', () => {
  it('matches ** across segments and * within one', () => {
    expect(globToRegExp('**/*.lock').test('a/b/c.lock')).toBe(true)
    expect(globToRegExp('**/*.lock').test('c.lock')).toBe(true)
    expect(globToRegExp('*.lock').test('a/c.lock')).toBe(false)
    expect(globToRegExp('secrets/**').test('secrets/a/b')).toBe(true)
    expect(globToRegExp('file?.txt').test('file1.txt')).toBe(true)
    expect(globToRegExp('a.b').test('axb')).toBe(false)
  })
})
