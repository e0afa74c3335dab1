import { mkdtemp, readdir, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EditError } from '../../../src/errors.js'
import {
  commitSteps,
  nodeCommitFs,
  type CommitFs,
  type CommitStep,
} from '../../../src/journal/commit.js'
import { hashBytes } from '../../../src/journal/hash.js'

const enc = (s: string) => new TextEncoder().encode(s)

let root: string
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'patchloom-commit-'))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

async function tree(dir: string, prefix = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix + entry.name
    if (entry.isDirectory()) {
      out[rel + '/'] = ''
      Object.assign(out, await tree(path.join(dir, entry.name), rel + '/'))
    } else out[rel] = await readFile(path.join(dir, entry.name), 'utf8')
  }
  return out
}

function writeStep(
  rel: string,
  text: string,
  before: string | null,
  permissions = 0o644,
): CommitStep {
  return {
    kind: 'write',
    abs: path.join(root, rel),
    rel,
    bytes: enc(text),
    permissions,
    expectHash: before === null ? null : hashBytes(enc(before)),
    previous: before === null ? null : { bytes: enc(before), permissions: 0o644 },
  }
}

function removeStep(rel: string, before: string): CommitStep {
  return {
    kind: 'remove',
    abs: path.join(root, rel),
    rel,
    expectHash: hashBytes(enc(before)),
    previous: { bytes: enc(before), permissions: 0o644 },
  }
}

/** A CommitFs that fails the nth call of one method with an errno code. */
function failingFs(method: keyof CommitFs, nth: number, code: string): CommitFs {
  let calls = 0
  return new Proxy(nodeCommitFs, {
    get(target, prop: keyof CommitFs) {
      const fn = target[prop] as (...args: unknown[]) => Promise<unknown>
      if (prop !== method) return fn
      return async (...args: unknown[]) => {
        calls++
        if (calls === nth) throw Object.assign(new Error(`${code}: injected`), { code })
        return fn(...args)
      }
    },
  })
}

describe('commitSteps', () => {
  it('writes, creates parent directories and removes in order', async () => {
    await writeFile(path.join(root, 'a.txt'), 'old a\n')
    await writeFile(path.join(root, 'gone.txt'), 'bye\n')
    await commitSteps([
      writeStep('a.txt', 'new a\n', 'old a\n'),
      writeStep('deep/er/b.txt', 'b\n', null),
      removeStep('gone.txt', 'bye\n'),
    ])
    expect(await tree(root)).toEqual({
      'a.txt': 'new a\n',
      'deep/': '',
      'deep/er/': '',
      'deep/er/b.txt': 'b\n',
    })
  })

  it('prunes directories a removal leaves empty, up to the root, and restores them on rollback', async () => {
    await mkdir(path.join(root, 'a/b'), { recursive: true })
    await writeFile(path.join(root, 'a/b/only.txt'), 'x\n')
    await writeFile(path.join(root, 'keep.txt'), 'k\n')
    const step: CommitStep = { ...removeStep('a/b/only.txt', 'x\n'), pruneUpTo: root } as CommitStep
    await commitSteps([step])
    expect(await tree(root)).toEqual({ 'keep.txt': 'k\n' })

    await mkdir(path.join(root, 'a/b'), { recursive: true })
    await writeFile(path.join(root, 'a/b/only.txt'), 'x\n')
    const before = await tree(root)
    const error = await commitSteps(
      [step, writeStep('z.txt', 'z\n', null)],
      failingFs('writeFile', 1, 'EROFS'),
    ).catch((e: unknown) => e)
    expect((error as EditError).code).toBe('JOURNAL_COMMIT_FAILED')
    expect(await tree(root)).toEqual(before)
  })

  it('writes a file whose name is close to the 255-byte limit (temp names do not embed it)', async () => {
    const name = 'A'.repeat(250)
    await commitSteps([writeStep(name, 'x\n', null)])
    expect(await readFile(path.join(root, name), 'utf8')).toBe('x\n')
  })

  it('stages 100 rewrites, and on a failed replace restores the ones done and removes every temp file', async () => {
    const names = Array.from({ length: 100 }, (_, i) => `f${String(i).padStart(3, '0')}.txt`)
    for (const name of names) await writeFile(path.join(root, name), `old ${name}\n`)
    const before = await tree(root)
    const steps = names.map((name) => writeStep(name, `new ${name}\n`, `old ${name}\n`))
    const error = await commitSteps(steps, failingFs('rename', 50, 'EIO')).catch((e: unknown) => e)
    expect((error as EditError).code).toBe('JOURNAL_COMMIT_FAILED')
    expect((error as EditError).message).toMatch(/f049\.txt failed \(EIO\); restored 49 files/)
    expect(await tree(root)).toEqual(before)
    await commitSteps(steps)
    expect((await tree(root))['f099.txt']).toBe('new f099.txt\n')
  })

  it('sets exact permission bits regardless of the umask', async () => {
    await commitSteps([writeStep('run.sh', '#!/bin/sh\n', null, 0o755)])
    expect((await stat(path.join(root, 'run.sh'))).mode & 0o777).toBe(0o755)
  })

  it('restores every file already written when a later write fails (ENOSPC)', async () => {
    await writeFile(path.join(root, 'a.txt'), 'A\n')
    await writeFile(path.join(root, 'c.txt'), 'C\n')
    const before = await tree(root)
    const steps = [
      writeStep('a.txt', 'A2\n', 'A\n'),
      writeStep('new/b.txt', 'B\n', null),
      removeStep('c.txt', 'C\n'),
      writeStep('d.txt', 'D\n', null),
    ]
    // writeFile calls: #1 a.txt, #2 new/b.txt, (the removal writes nothing), #3 d.txt fails.
    const error = await commitSteps(steps, failingFs('writeFile', 3, 'ENOSPC')).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(EditError)
    expect((error as EditError).code).toBe('JOURNAL_COMMIT_FAILED')
    expect((error as EditError).retryable).toBe(true)
    expect((error as EditError).message).toMatch(/d\.txt.*ENOSPC.*restored 3 files/)
    expect(await tree(root)).toEqual(before)
  })

  it('restores when a rename fails and leaves no temp files behind', async () => {
    await writeFile(path.join(root, 'a.txt'), 'A\n')
    const before = await tree(root)
    const error = await commitSteps(
      [writeStep('a.txt', 'A2\n', 'A\n'), writeStep('b.txt', 'B\n', null)],
      failingFs('rename', 2, 'EACCES'),
    ).catch((e: unknown) => e)
    expect((error as EditError).code).toBe('JOURNAL_COMMIT_FAILED')
    expect(await tree(root)).toEqual(before)
  })

  it('refuses with FILE_CHANGED when a target changed after verification, writing nothing', async () => {
    await writeFile(path.join(root, 'a.txt'), 'A\n')
    await writeFile(path.join(root, 'b.txt'), 'changed by someone else\n')
    const error = await commitSteps([
      writeStep('a.txt', 'A2\n', 'A\n'),
      writeStep('b.txt', 'B2\n', 'B\n'),
    ]).catch((e: unknown) => e)
    expect((error as EditError).code).toBe('FILE_CHANGED')
    expect((error as EditError).retryable).toBe(true)
    expect((error as EditError).currentHash).toBe(hashBytes(enc('changed by someone else\n')))
    expect(await tree(root)).toEqual({ 'a.txt': 'A\n', 'b.txt': 'changed by someone else\n' })
  })

  it('refuses to create a file that appeared after verification', async () => {
    await writeFile(path.join(root, 'new.txt'), 'surprise\n')
    const error = await commitSteps([writeStep('new.txt', 'mine\n', null)]).catch((e: unknown) => e)
    expect((error as EditError).code).toBe('FILE_CHANGED')
    expect(await readFile(path.join(root, 'new.txt'), 'utf8')).toBe('surprise\n')
  })

  it('reports FILE_CHANGED when a target became a directory', async () => {
    await mkdir(path.join(root, 'a.txt'))
    const error = await commitSteps([writeStep('a.txt', 'x\n', 'A\n')]).catch((e: unknown) => e)
    expect((error as EditError).code).toBe('FILE_CHANGED')
  })

  it('names the files it could not restore when rollback fails too', async () => {
    await writeFile(path.join(root, 'a.txt'), 'A\n')
    // writeFile #1 = a.txt, #2 = b.txt (fails), #3 = restoring a.txt (fails too).
    let calls = 0
    const fs: CommitFs = {
      ...nodeCommitFs,
      writeFile: async (p, data, options) => {
        calls++
        if (calls >= 2) throw Object.assign(new Error('EIO'), { code: 'EIO' })
        return nodeCommitFs.writeFile(p, data, options)
      },
    }
    const error = await commitSteps(
      [writeStep('a.txt', 'A2\n', 'A\n'), writeStep('b.txt', 'B\n', null)],
      fs,
    ).catch((e: unknown) => e)
    expect((error as EditError).code).toBe('JOURNAL_COMMIT_FAILED')
    expect((error as EditError).message).toMatch(/could NOT restore: a\.txt/)
  })
})
