import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_DENY_GLOBS } from '../../../src/defaults.js'
import { EditError } from '../../../src/errors.js'
import { compileGlobs, globToRegExp } from '../../../src/workspace/glob.js'
import {
  checkSymlinkTarget,
  NAME_MAX_BYTES,
  PATH_MAX_BYTES,
  resolveWorkspacePath,
  symlinkedDirectoryOf,
  type PathContext,
} from '../../../src/workspace/paths.js'
import {
  detectCaseInsensitive,
  pathKey,
  type CaseProbeFs,
} from '../../../src/workspace/case-fold.js'

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

async function rejectionOf(input: string, patchLine: number): Promise<EditError> {
  return resolveWorkspacePath(ctx, input, patchLine).then(
    () => {
      throw new Error(`${input} resolved`)
    },
    (e: unknown) => e as EditError,
  )
}

describe('resolveWorkspacePath', () => {
  it('resolves a relative path and reports it relative to the root', async () => {
    const r = await resolveWorkspacePath(ctx, 'src/../src/./a.ts', 1)
    expect(r.rel).toBe('src/a.ts')
    expect(r.abs).toBe(path.join(ctx.root, 'src/a.ts'))
  })

  // Plain names take a short cut past path.resolve; it must give what path.resolve gives,
  // for names that only look like dots and for paths that need normalising.
  it.each([
    ['src/a.ts', 'src/a.ts'],
    ['.hidden/x', '.hidden/x'],
    ['src/..b', 'src/..b'],
    ['src/b..', 'src/b..'],
    ['...', '...'],
    [' src/a.ts', ' src/a.ts'],
    ['./src/a.ts', 'src/a.ts'],
    ['src//a.ts', 'src/a.ts'],
    ['src/./a.ts', 'src/a.ts'],
    ['src/x/../a.ts', 'src/a.ts'],
  ])('resolves %j lexically as path.resolve does, to %j', async (input, rel) => {
    const resolved = await resolveWorkspacePath(ctx, input, 1)
    expect(resolved.rel).toBe(rel)
    expect(resolved.abs).toBe(path.resolve(ctx.rootReal, rel))
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

  it('refuses the .patchloom journal directory and the name itself by default', async () => {
    expect(await codeOf('.patchloom')).toBe('PATH_DENIED')
    expect(await codeOf('.patchloom/journal/t1/manifest.json')).toBe('PATH_DENIED')
    expect(await codeOf('src/../.patchloom/lock')).toBe('PATH_DENIED')
    expect(await codeOf('.patchloomish/notes.txt')).toBe('resolved')
  })

  it('refuses a name component over NAME_MAX bytes before touching the filesystem', async () => {
    expect(await codeOf(`src/${'n'.repeat(NAME_MAX_BYTES)}`)).toBe('resolved')
    const error = await rejectionOf(`src/${'n'.repeat(NAME_MAX_BYTES + 1)}`, 4)
    expect(error).toMatchObject({ code: 'PATH_INVALID', patchLine: 4 })
    expect(error.message).toMatch(/name of 256 bytes.*at most 255/)
    // Bytes, not characters: 86 three-byte characters are 258 bytes.
    expect(await codeOf('日'.repeat(85))).toBe('resolved')
    expect(await codeOf('日'.repeat(86))).toBe('PATH_INVALID')
  })

  it('refuses a path longer than PATH_MAX bytes once joined to the root', async () => {
    const prefixBytes = Buffer.byteLength(ctx.rootReal) + 1
    const fits = 'a/'.repeat((PATH_MAX_BYTES - prefixBytes - 1) >> 1) + 'b'
    expect(Buffer.byteLength(path.join(ctx.rootReal, fits))).toBeLessThanOrEqual(PATH_MAX_BYTES)
    expect(await codeOf(fits)).toBe('resolved')
    const error = await rejectionOf('a/'.repeat(2100) + 'b', 1)
    expect(error).toMatchObject({ code: 'PATH_INVALID' })
    expect(error.message).toMatch(/paths may be at most 4095/)
    expect(error.message.length).toBeLessThan(300)
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

/** A fake filesystem: names map to identities; lookups are exact (case-sensitive) strings. */
function fakeFs(entries: Record<string, string>, listing: readonly string[]): CaseProbeFs {
  return {
    readdir: () => Promise.resolve([...listing]),
    identity: (p) => Promise.resolve(entries[p] ?? null),
  }
}

describe('detectCaseInsensitive', () => {
  it('reports folding when the case-swapped name reaches the same entry', async () => {
    const fs = fakeFs({ '/ws/README.md': '1:10', '/ws/readme.MD': '1:10' }, ['README.md'])
    expect(await detectCaseInsensitive('/ws', fs, 'linux')).toBe(true)
  })

  it('reports no folding when the swapped name is missing or a different file', async () => {
    const missing = fakeFs({ '/ws/README.md': '1:10' }, ['README.md'])
    expect(await detectCaseInsensitive('/ws', missing, 'darwin')).toBe(false)
    const distinct = fakeFs({ '/ws/a': '1:10', '/ws/A': '1:11' }, ['a', 'A'])
    expect(await detectCaseInsensitive('/ws', distinct, 'darwin')).toBe(false)
  })

  it('skips names without letters and falls back to the root name itself', async () => {
    const fs = fakeFs({ '/Work/123': '1:5', '/Work': '1:2', '/wORK': '1:2' }, ['123', '-_'])
    expect(await detectCaseInsensitive('/Work', fs, 'linux')).toBe(true)
  })

  it('probes a .git or .patchloom entry without listing the root', async () => {
    const listed: string[] = []
    const probe = (entries: Record<string, string>): CaseProbeFs => ({
      readdir: (dir) => {
        listed.push(dir)
        return Promise.resolve(Object.keys(entries).map((p) => path.basename(p)))
      },
      identity: (p) => Promise.resolve(entries[p] ?? null),
    })
    expect(
      await detectCaseInsensitive('/ws', probe({ '/ws/.git': '1:3', '/ws/.GIT': '1:3' })),
    ).toBe(true)
    expect(await detectCaseInsensitive('/ws', probe({ '/ws/.patchloom': '1:4' }), 'darwin')).toBe(
      false,
    )
    expect(listed).toEqual([])
    // Neither there: the root is listed as before.
    expect(await detectCaseInsensitive('/ws', probe({ '/ws/a': '1:5', '/ws/A': '1:5' }))).toBe(true)
    expect(listed).toEqual(['/ws'])
  })

  it('assumes the platform default when nothing can be probed', async () => {
    const empty = fakeFs({}, [])
    expect(await detectCaseInsensitive('/', empty, 'darwin')).toBe(true)
    expect(await detectCaseInsensitive('/', empty, 'win32')).toBe(true)
    expect(await detectCaseInsensitive('/', empty, 'linux')).toBe(false)
  })

  it('agrees with what the filesystem under the temp directory actually does', async () => {
    await writeFile(path.join(ctx.rootReal, 'Probe.txt'), 'p\n')
    const folds = existsSync(path.join(ctx.rootReal, 'pROBE.TXT'))
    expect(await detectCaseInsensitive(ctx.rootReal)).toBe(folds)
  })
})

describe('pathKey', () => {
  it('folds case (and Unicode normalisation) only for a case-insensitive filesystem', () => {
    expect(pathKey('/ws/Readme.md', true)).toBe(pathKey('/ws/README.MD', true))
    expect(pathKey('/ws/Caf\u00e9', true)).toBe(pathKey('/ws/CAFE\u0301', true))
    expect(pathKey('/ws/Readme.md', false)).not.toBe(pathKey('/ws/README.MD', false))
  })
})

describe('symlinks as links', () => {
  it('resolves the link itself with followLast: false, even one leading out or dangling', async () => {
    for (const name of ['in-link', 'out-file', 'dangling-out']) {
      const r = await resolveWorkspacePath(ctx, name, 1, { followLast: false })
      expect(r.abs).toBe(path.join(ctx.rootReal, name))
      expect(r.beyondSymlink).toBeUndefined()
    }
  })

  it('still refuses a link path whose directory leads out', async () => {
    const error = await resolveWorkspacePath(ctx, 'out-dir/secret.txt', 4, {
      followLast: false,
    }).catch((e: unknown) => e as EditError)
    expect(error).toMatchObject({ code: 'PATH_OUTSIDE_ROOT', patchLine: 4 })
  })

  it('records the first symlinked directory a path goes through', async () => {
    await symlink('src', path.join(ctx.rootReal, 'alias-src'))
    const r = await resolveWorkspacePath(ctx, 'alias-src/a.ts', 1)
    expect(r).toMatchObject({
      abs: path.join(ctx.rootReal, 'src/a.ts'),
      beyondSymlink: 'alias-src',
    })
    expect((await resolveWorkspacePath(ctx, 'src/a.ts', 1)).beyondSymlink).toBeUndefined()
    // A link as the last component is the file, not a directory on the way.
    expect((await resolveWorkspacePath(ctx, 'in-link', 1)).beyondSymlink).toBeUndefined()
    expect(await symlinkedDirectoryOf(ctx, 'alias-src/new/deeper.ts')).toBe('alias-src')
    expect(await symlinkedDirectoryOf(ctx, 'missing/alias-src/x')).toBeUndefined()
  })

  it('accepts link targets inside the root and refuses ones leading out', async () => {
    const where = { path: 'l', patchLine: 2 }
    const enc = (t: string) => new TextEncoder().encode(t)
    const link = path.join(ctx.rootReal, 'src/l')
    for (const target of ['a.ts', '../in-link', 'not-yet/there', path.join(ctx.rootReal, 'src')])
      await expect(checkSymlinkTarget(ctx, link, enc(target), where)).resolves.toBeUndefined()
    for (const target of ['../../outside', '../out-dir/x', '/etc/passwd', '../dangling-out']) {
      const error = await checkSymlinkTarget(ctx, link, enc(target), where).catch(
        (e: unknown) => e as EditError,
      )
      expect(error).toMatchObject({ code: 'PATH_OUTSIDE_ROOT', path: 'l', patchLine: 2 })
    }
    for (const bad of [enc(''), enc('a\0b'), new Uint8Array([0xff, 0x41])]) {
      const error = await checkSymlinkTarget(ctx, link, bad, where).catch(
        (e: unknown) => e as EditError,
      )
      expect(error).toMatchObject({ code: 'PATH_INVALID' })
    }
  })
})
