// Hostile paths through the whole engine: each is refused with its own code, and
// nothing is opened for writing. Two witnesses: a spy on the commit filesystem (the only code
// that writes) and a before/after listing of every inode, mtime and size around the workspace.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { lstat, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEngineWithInternals } from '../../../src/engine/engine.js'
import type { Engine } from '../../../src/engine/api.js'
import { EditError, type ErrorCode } from '../../../src/errors.js'
import { nodeJournalFs, type JournalFs } from '../../../src/journal/fs.js'

let base: string
let root: string
let engine: Engine
let writes: string[]

const READ_ONLY: readonly (keyof JournalFs)[] = ['readFile', 'readdir', 'lstat']

/** Every journal filesystem call that can change something, recorded before it runs. */
function spyFs(): JournalFs {
  return new Proxy(nodeJournalFs, {
    get(target, prop: keyof JournalFs) {
      const fn = target[prop] as (...args: unknown[]) => unknown
      return (...args: unknown[]) => {
        if (!READ_ONLY.includes(prop)) writes.push(`${prop} ${String(args[0])}`)
        return fn(...args)
      }
    },
  })
}

/** kind, inode, mtime and size of every entry under dir, symlinks not followed. */
async function listing(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  const walk = async (d: string): Promise<void> => {
    for (const name of (await readdir(d)).sort()) {
      const p = path.join(d, name)
      const st = await lstat(p)
      const kind = st.isFIFO() ? 'fifo' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other'
      out[path.relative(base, p)] = `${kind} ${st.ino} ${st.mtimeMs} ${st.size}`
      if (st.isDirectory()) await walk(p)
    }
  }
  await walk(dir)
  return out
}

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'patchloom-hostile-'))
  root = path.join(base, 'root')
  await mkdir(path.join(root, 'src'), { recursive: true })
  await mkdir(path.join(root, '.git'))
  await mkdir(path.join(root, '.patchloom/journal/t1'), { recursive: true })
  await mkdir(path.join(base, 'outside'))
  await writeFile(path.join(root, 'src/a.txt'), 'one\ntwo\n')
  await writeFile(path.join(root, '.git/config'), '[core]\n')
  await writeFile(path.join(root, '.patchloom/journal/t1/manifest.json'), '{}\n')
  await writeFile(path.join(base, 'outside/secret.txt'), 'one\ntwo\n')
  await symlink(path.join(base, 'outside'), path.join(root, 'out-dir'))
  await symlink(path.join(base, 'outside/secret.txt'), path.join(root, 'out-file'))
  execFileSync('mkfifo', [path.join(root, 'pipe')])
  writes = []
  engine = createEngineWithInternals({ root, workers: false }, { journalFs: spyFs() })
})
afterEach(async () => {
  await engine.close()
  await rm(base, { recursive: true, force: true })
})

const update = (p: string) =>
  `*** Begin Patch\n*** Update File: ${p}\n@@\n-one\n+ONE\n*** End Patch\n`
const addFile = (p: string) => `*** Begin Patch\n*** Add File: ${p}\n+new\n*** End Patch\n`

async function expectRefused(patch: string, code: ErrorCode): Promise<EditError> {
  const before = await listing(base)
  const error = await engine.apply(patch).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(EditError)
  expect((error as EditError).code).toBe(code)
  expect(writes).toEqual([])
  expect(await listing(base)).toEqual(before)
  return error as EditError
}

describe('hostile paths through the engine', () => {
  it('refuses .. segments, absolute paths and symlinks leading out, writing nothing', async () => {
    await expectRefused(update('../outside/secret.txt'), 'PATH_OUTSIDE_ROOT')
    await expectRefused(update('src/../../outside/secret.txt'), 'PATH_OUTSIDE_ROOT')
    await expectRefused(update(path.join(base, 'outside/secret.txt')), 'PATH_OUTSIDE_ROOT')
    await expectRefused(update('out-dir/secret.txt'), 'PATH_OUTSIDE_ROOT')
    await expectRefused(addFile('out-dir/planted.txt'), 'PATH_OUTSIDE_ROOT')
    await expectRefused(update('out-file'), 'PATH_OUTSIDE_ROOT')
    expect(existsSync(path.join(base, 'outside/planted.txt'))).toBe(false)
  })

  it('refuses NUL bytes and over-long names with PATH_INVALID', async () => {
    const nul = JSON.stringify([{ path: 'src/a\u0000.txt', mode: 'write', content: 'x\n' }])
    await expectRefused(nul, 'PATH_INVALID')
    const long = await expectRefused(addFile(`src/${'x'.repeat(300)}.txt`), 'PATH_INVALID')
    expect(long.message).toMatch(/name of 304 bytes/)
    await expectRefused(addFile(`${'deep/'.repeat(900)}f.txt`), 'PATH_INVALID')
  })

  it('refuses .git/ and .patchloom/ themselves', async () => {
    await expectRefused(addFile('.git/hooks/pre-commit'), 'PATH_DENIED')
    await expectRefused(addFile('.patchloom'), 'PATH_DENIED')
    await expectRefused(
      `*** Begin Patch\n*** Delete File: .patchloom/journal/t1/manifest.json\n*** End Patch\n`,
      'PATH_DENIED',
    )
  })

  it('never opens a FIFO: update, delete, overwrite, move onto and JSON write all refuse', async () => {
    await expectRefused(update('pipe'), 'FILE_NOT_REGULAR')
    await expectRefused(
      `*** Begin Patch\n*** Delete File: pipe\n*** End Patch\n`,
      'FILE_NOT_REGULAR',
    )
    await expectRefused(addFile('pipe'), 'FILE_NOT_REGULAR')
    await expectRefused(
      `*** Begin Patch\n*** Update File: src/a.txt\n*** Move to: pipe\n@@\n-one\n+ONE\n*** End Patch\n`,
      'FILE_NOT_REGULAR',
    )
    const error = await expectRefused(
      JSON.stringify([{ path: 'pipe', mode: 'write', content: 'x\n' }]),
      'FILE_NOT_REGULAR',
    )
    expect(error).toMatchObject({ path: 'pipe', retryable: false })
    expect(error.message).toContain('FIFO')
  })

  it('keeps FILE_IS_DIRECTORY for directories', async () => {
    await expectRefused(update('src'), 'FILE_IS_DIRECTORY')
  })

  it('never opens a device node inside the workspace', async (ctx) => {
    try {
      execFileSync('mknod', [path.join(root, 'null-dev'), 'c', '1', '3'], { stdio: 'ignore' })
    } catch {
      ctx.skip('mknod needs privileges this environment lacks')
    }
    await expectRefused(update('null-dev'), 'FILE_NOT_REGULAR')
    await expectRefused(addFile('null-dev'), 'FILE_NOT_REGULAR')
  })

  it('treats names that differ only in case as this filesystem does', async () => {
    await writeFile(path.join(root, 'Probe'), '')
    const folds = existsSync(path.join(root, 'pROBE'))
    const patch = `*** Begin Patch\n*** Add File: Notes.txt\n+a\n*** Add File: NOTES.txt\n+b\n*** End Patch\n`
    if (folds) {
      await expectRefused(patch, 'PATH_DUPLICATE')
    } else {
      // Linux and most CI: two distinct files, both written.
      const result = await engine.apply(patch)
      expect(result.files.map((f) => f.path)).toEqual(['Notes.txt', 'NOTES.txt'])
      expect((await readdir(root)).filter((n) => n.toLowerCase() === 'notes.txt').sort()).toEqual([
        'NOTES.txt',
        'Notes.txt',
      ])
    }
  })
})
