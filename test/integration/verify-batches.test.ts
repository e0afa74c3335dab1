// Verification on real worker threads, split into batches: the automatic route's choice (read
// from the request's log line), the error a request gets when its failures sit in different
// batches (the same as inline: the earliest phase, then plan order), and a git type change whose
// deletion and re-creation fall into different runs of the patch. Needs `npm run build`.
import { lstat, mkdir, readFile, readlink, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createEngineWithInternals, type InternalEngine } from '../../src/engine/engine.js'
import { isEditError } from '../../src/errors.js'
import { makeTempDir } from '../helpers/tree.js'

const engines: InternalEngine[] = []
const roots: string[] = []
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()))
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true })
})

function engineFor(root: string, extra: { inlineMaxBytes?: number; routes?: string[] } = {}) {
  const logger = {
    debug: (_event: string, fields?: Record<string, unknown>) => {
      if (fields?.['route'] !== undefined) extra.routes?.push(String(fields['route']))
    },
    warn: () => undefined,
  }
  const engine = createEngineWithInternals({
    root,
    durability: 'fast',
    workers: {
      minThreads: 2,
      maxThreads: 2,
      ...(extra.inlineMaxBytes === undefined ? {} : { inlineMaxBytes: extra.inlineMaxBytes }),
    },
    logger,
  })
  engines.push(engine)
  return engine
}

const name = (i: number) => `f${String(i).padStart(2, '0')}.txt`

function section(file: string, from: string, to: string): string {
  return `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1,3 +1,3 @@\n a\n-${from}\n+${to}\n c\n`
}

async function workspace(count: number): Promise<string> {
  const root = await makeTempDir('patchloom-batches-')
  roots.push(root)
  for (let i = 0; i < count; i++) await writeFile(path.join(root, name(i)), `a\nb${i}\nc\n`)
  return root
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  return isEditError(error) ? error.code : `not an EditError: ${String(error)}`
}

describe('verification batches on worker threads', () => {
  it('routes a large many-file diff to the workers and a small one inline', async () => {
    const root = await workspace(40)
    const routes: string[] = []
    const engine = engineFor(root, { inlineMaxBytes: 100, routes })
    const patch = (n: number) =>
      Array.from({ length: n }, (_, i) => section(name(i), `b${i}`, `B${i}`)).join('')
    await engine.check(patch(40))
    await engine.check(patch(4))
    // A unified diff goes to the pool as runs of its text; other formats as the parsed plan.
    const codex =
      '*** Begin Patch\n' +
      Array.from(
        { length: 40 },
        (_, i) => `*** Update File: ${name(i)}\n@@\n a\n-b${i}\n+B${i}\n`,
      ).join('') +
      '*** End Patch\n'
    await engine.check(codex)
    expect(routes).toEqual(['pool-runs', 'inline', 'pool'])
    const result = await engine.apply(patch(40))
    expect(result.files).toHaveLength(40)
    expect(await readFile(path.join(root, name(39)), 'utf8')).toBe('a\nB39\nc\n')
  })

  it('reports the earliest phase first, then plan order, whichever batch holds it', async () => {
    const root = await workspace(16)
    const sections = Array.from({ length: 16 }, (_, i) => section(name(i), `b${i}`, `B${i}`))
    const mismatch = sections.slice()
    mismatch[3] = section(name(3), 'not there', 'x')
    const outside = mismatch.slice()
    outside[12] = section('../outside.txt', 'b', 'B')
    // Two creations of one path, in different batches (two sections of one file would apply in
    // sequence, as git applies them).
    const creation =
      'diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\n'
    const duplicate = mismatch.slice()
    duplicate[1] = creation
    duplicate[14] = creation
    for (const route of ['inline', 'pool'] as const) {
      const engine = engineFor(root)
      expect(await codeOf(engine.check(mismatch.join(''), { route }))).toBe('MATCH_NOT_FOUND')
      expect(await codeOf(engine.check(outside.join(''), { route }))).toBe('PATH_OUTSIDE_ROOT')
      expect(await codeOf(engine.check(duplicate.join(''), { route }))).toBe('PATH_DUPLICATE')
    }
  })

  it('pairs a type change whose deletion and creation fall into different runs', async () => {
    const root = await workspace(40)
    await mkdir(path.join(root, 'sub'))
    await writeFile(path.join(root, 'sub', 'target.txt'), 'target\n')
    await writeFile(path.join(root, 'x'), 'hello\n')
    const sections = Array.from({ length: 40 }, (_, i) => section(name(i), `b${i}`, `B${i}`))
    // 42 sections on 2 threads make 8 runs of 6: the deletion ends run 1, the creation starts run 2.
    sections.splice(
      5,
      0,
      'diff --git a/x b/x\ndeleted file mode 100644\n--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-hello\n',
      'diff --git a/x b/x\nnew file mode 120000\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+sub/target.txt\n\\ No newline at end of file\n',
    )
    const routes: string[] = []
    const engine = engineFor(root, { inlineMaxBytes: 100, routes })
    const result = await engine.apply(sections.join(''))
    expect(routes).toEqual(['pool-runs'])
    expect(result.files).toHaveLength(42)
    expect((await lstat(path.join(root, 'x'))).isSymbolicLink()).toBe(true)
    expect(await readlink(path.join(root, 'x'))).toBe('sub/target.txt')
    expect(await readFile(path.join(root, name(39)), 'utf8')).toBe('a\nB39\nc\n')
  })
})
