// A unified plan that names one path in several sections (src/engine/sequence.ts), through
// the in-process engine on real files: what git applies in sequence lands, and what would leave a
// result the sections do not describe is refused with nothing written and no transaction pending.
// The scenarios (test/scenarios/3xx_*_issue_22) hold git's own cases; these pin the refusals and
// the one case a scenario cannot hold (a symlink to the workspace's absolute path).
import { lstat, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createEngine } from '../../../src/engine/engine.js'
import type { Engine } from '../../../src/engine/api.js'
import { isEditError, type EditError } from '../../../src/errors.js'
import { journalEntries, makeTempDir, readableTree, snapshot } from '../../helpers/tree.js'

const engines: Engine[] = []
const roots: string[] = []
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()))
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true })
})

async function workspace(files: Record<string, string>): Promise<{ root: string; engine: Engine }> {
  const parent = await makeTempDir('patchloom-sequence-')
  roots.push(parent)
  const root = path.join(parent, 'ws')
  await writeFile(path.join(parent, 'outside.txt'), 'outside\n').catch(() => undefined)
  const { mkdir } = await import('node:fs/promises')
  await mkdir(root)
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true })
    await writeFile(path.join(root, rel), text)
  }
  const engine = createEngine({ root, workers: false })
  engines.push(engine)
  return { root, engine }
}

const modify = (file: string, from: string, to: string) =>
  `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1,3 +1,3 @@\n a\n-${from}\n+${to}\n c\n`
const remove = (file: string, body: string[]) =>
  `diff --git a/${file} b/${file}\ndeleted file mode 100644\n--- a/${file}\n+++ /dev/null\n@@ -1,${body.length} +0,0 @@\n${body.map((l) => `-${l}\n`).join('')}`
const create = (file: string, body: string[], mode = '100644') =>
  `diff --git a/${file} b/${file}\nnew file mode ${mode}\n--- /dev/null\n+++ b/${file}\n@@ -0,0 +1,${body.length} @@\n${body.map((l) => `+${l}\n`).join('')}`
const link = (file: string, target: string) =>
  `${create(file, [target], '120000')}\\ No newline at end of file\n`

async function refusal(engine: Engine, patch: string): Promise<EditError> {
  const error = await engine.apply(patch).then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!isEditError(error)) throw new Error(`expected an EditError, got ${String(error)}`)
  return error
}

/** Refused, with the tree and the journal as they were. */
async function expectRefused(root: string, engine: Engine, patch: string): Promise<EditError> {
  const before = readableTree(await snapshot(root))
  const error = await refusal(engine, patch)
  expect(readableTree(await snapshot(root))).toEqual(before)
  expect(await journalEntries(root)).toEqual([])
  return error
}

describe('sections that name one path', () => {
  it('apply a second section to what the first left, reported as one change', async () => {
    const { root, engine } = await workspace({ f: 'a\nb\nc\n' })
    const result = await engine.apply(modify('f', 'b', 'B') + modify('f', 'B', 'C'))
    expect(await readFile(path.join(root, 'f'), 'utf8')).toBe('a\nC\nc\n')
    expect(result.files).toEqual([
      expect.objectContaining({ path: 'f', op: 'update', additions: 2, deletions: 2 }),
    ])
    // Undone in one step, back to the file before both sections.
    await engine.undo(result.transaction)
    expect(await readFile(path.join(root, 'f'), 'utf8')).toBe('a\nb\nc\n')
  })

  it('commit nothing when the sections put the file back as it was', async () => {
    const { root, engine } = await workspace({ f: 'a\nb\nc\n' })
    const result = await engine.apply(modify('f', 'b', 'B') + modify('f', 'B', 'b'))
    expect(result.transaction).toBeUndefined()
    expect(await readFile(path.join(root, 'f'), 'utf8')).toBe('a\nb\nc\n')
  })

  it('refuse a deletion of what an earlier section wrote (git would keep the file)', async () => {
    const { root, engine } = await workspace({ f: 'a\nb\nc\n' })
    const error = await expectRefused(
      root,
      engine,
      modify('f', 'b', 'B') + remove('f', ['a', 'B', 'c']),
    )
    expect(error).toMatchObject({ code: 'PATH_DUPLICATE', path: 'f', patchLine: 9 })
    expect(error.message).toContain('git apply would keep the written file')
  })

  it('refuse a second section for a file an earlier one deleted', async () => {
    const { root, engine } = await workspace({ f: 'a\nb\nc\n' })
    const error = await expectRefused(
      root,
      engine,
      remove('f', ['a', 'b', 'c']) + modify('f', 'b', 'B'),
    )
    expect(error).toMatchObject({ code: 'FILE_NOT_FOUND', path: 'f' })
    expect(error.message).toContain('was deleted by the section at patch line 1')
  })

  it('refuse two creations of one path', async () => {
    const { root, engine } = await workspace({ keep: 'k\n' })
    const error = await expectRefused(root, engine, create('n', ['x']) + create('n', ['y']))
    expect(error).toMatchObject({ code: 'PATH_DUPLICATE', path: 'n', patchLine: 7 })
  })

  it('refuse a rename of a file an earlier section changed in place', async () => {
    const { root, engine } = await workspace({ f: 'a\nb\nc\n' })
    const rename = 'diff --git a/f b/g\nsimilarity index 100%\nrename from f\nrename to g\n'
    const error = await expectRefused(root, engine, modify('f', 'b', 'B') + rename)
    expect(error).toMatchObject({ code: 'PATH_DUPLICATE', path: 'f' })
  })

  it('copy a file as the patch found it, though an earlier section changes it', async () => {
    const { root, engine } = await workspace({ f: 'a\nb\nc\n' })
    const copy = 'diff --git a/f b/g\nsimilarity index 100%\ncopy from f\ncopy to g\n'
    await engine.apply(modify('f', 'b', 'B') + copy)
    expect(await readFile(path.join(root, 'f'), 'utf8')).toBe('a\nB\nc\n')
    expect(await readFile(path.join(root, 'g'), 'utf8')).toBe('a\nb\nc\n')
  })

  it('refuse a file below a file the same patch writes', async () => {
    const { root, engine } = await workspace({ keep: 'k\n' })
    const error = await expectRefused(root, engine, create('d', ['x']) + create('d/e', ['y']))
    expect(error).toMatchObject({ code: 'PATH_INVALID', path: 'd/e' })
  })

  it('refuse a file below a symlink the patch creates to the workspace itself', async () => {
    // git's t4139 "symlink escape via absolute path": the link is inside the root, but a file
    // written through it is beyond a symbolic link, and nothing (no link either) is left behind.
    const { root, engine } = await workspace({ keep: 'k\n' })
    const error = await expectRefused(root, engine, link('tmp', root) + create('tmp/foo', ['evil']))
    expect(error).toMatchObject({ code: 'PATH_BEYOND_SYMLINK', path: 'tmp/foo' })
    await expect(lstat(path.join(root, 'tmp'))).rejects.toThrow()
    expect(await readdir(path.dirname(root))).toEqual(['outside.txt', 'ws'])
  })
})
