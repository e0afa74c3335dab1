// Property tests of the whole engine: valid patches in every format against
// random workspaces, then mutated ones (see ./arbitraries.ts). Whatever the input, the engine
// answers with a result or an EditError (any other throw is a bug), a rejected or dry-run request
// leaves the tree byte-identical, nothing appears outside the root (the workspace sits beside an
// empty sentinel directory in a private temp dir), and a success writes exactly its afterHash.
// Seeds are fixed so a failure reproduces; the pool route gets a few runs when dist/ is built
// (the `pool` vitest project). The fast loop runs a tenth of the iterations (helpers/test-mode.ts).
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngineWithInternals, type InternalEngine } from '../../src/engine/engine.js'
import { ERROR_CODES, isEditError } from '../../src/errors.js'
import type { ApplyResult, PatchFormat } from '../../src/types.js'
import { fuzzRuns, TEST_ROUTES } from '../helpers/test-mode.js'
import { emptyDir, makeTempDir, snapshot, type TreeEntry } from '../helpers/tree.js'
import {
  FORMATS,
  hostilePaths,
  mutate,
  mutationArb,
  opArb,
  renderPatch,
  workspaceArb,
  type Workspace,
} from './arbitraries.js'

const WORKER_FILE = fileURLToPath(new URL('../../dist/workers/engine.worker.js', import.meta.url))
const POOL_BUILT = existsSync(WORKER_FILE)

const RUNS_PER_FORMAT = fuzzRuns(200)
const HOSTILE_RUNS = fuzzRuns(250)
const POOL_RUNS = fuzzRuns(25, 5)
// The `unit` vitest project registers the inline suites, `pool` the pool one: a suite for
// another project's route is not registered at all, so the only skip left is a pool run without
// a build, and its name says so.
const INLINE_SUITE = TEST_ROUTES.includes('inline')
const POOL_SUITE = TEST_ROUTES.includes('pool')
const POOL_SKIP = POOL_BUILT ? '' : ' (skipped: run `npm run build` first)'
const TIMEOUT_MS = 60_000

let base = ''
let root = ''
let sentinel = ''
let inline: InternalEngine | undefined

beforeAll(async () => {
  base = await makeTempDir('patchloom-fuzz-')
  root = join(base, 'root')
  sentinel = join(base, 'sentinel')
  await mkdir(root)
  await mkdir(sentinel)
  inline = createEngineWithInternals({ root, workers: false })
})

afterAll(async () => {
  await inline?.close()
  if (base !== '') await rm(base, { recursive: true, force: true })
})

async function materialise(ws: Workspace): Promise<void> {
  await emptyDir(root)
  await mkdir(join(root, '.git'))
  await writeFile(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n')
  for (const file of ws.files) {
    const abs = join(root, file.path)
    await mkdir(dirname(abs), { recursive: true })
    await writeFile(abs, file.lines.map((l) => l + file.eol).join(''))
    await chmod(abs, file.executable ? 0o755 : 0o644)
  }
  if (ws.escapeLink) await symlink('../sentinel', join(root, 'out'))
}

function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}

function byPath(entries: readonly TreeEntry[]): Map<string, TreeEntry> {
  return new Map(entries.map((e) => [e.path, e]))
}

type Stats = { applied: number; rejected: number }

/** Runs one request and checks every invariant; throws (failing the property) on a violation. */
async function judge(
  engine: InternalEngine,
  text: string,
  format: PatchFormat | 'auto',
  dryRun: boolean,
  route: 'inline' | 'pool',
  stats: Stats,
): Promise<void> {
  const before = await snapshot(root)
  let result: ApplyResult | undefined
  try {
    result = await engine.apply(text, { format, dryRun, route })
  } catch (error) {
    if (!isEditError(error)) throw error
    expect(Object.keys(ERROR_CODES)).toContain(error.code)
    expect(error.message.length).toBeGreaterThan(0)
  }
  const after = await snapshot(root)
  // Nothing beside the workspace, and the sentinel stays empty.
  expect(await readdir(base)).toEqual(['root', 'sentinel'])
  expect(await snapshot(sentinel)).toEqual([])
  if (result === undefined || dryRun) {
    if (result === undefined) stats.rejected++
    expect(after, 'a rejected or dry-run request changed the tree').toEqual(before)
    return
  }
  stats.applied++
  const touched = new Set<string>()
  for (const file of result.files) {
    touched.add(file.path)
    if (file.from !== undefined) touched.add(file.from)
    const abs = join(root, file.path)
    if (file.afterHash === null) {
      await expect(lstat(abs), `${file.path} should be gone`).rejects.toThrow()
    } else {
      expect(sha256(await readFile(abs)), `afterHash of ${file.path}`).toBe(file.afterHash)
    }
  }
  // Every file and link the result does not name is untouched.
  const afterMap = byPath(after)
  for (const entry of before) {
    if (entry.kind === 'dir' || touched.has(entry.path)) continue
    expect(afterMap.get(entry.path), `untouched ${entry.path}`).toEqual(entry)
  }
}

const caseArb = fc.record({
  ws: workspaceArb,
  ops: fc.array(opArb, { minLength: 1, maxLength: 3 }),
  mutations: fc.array(mutationArb, { maxLength: 3 }),
  explicitFormat: fc.boolean(),
  // Mostly real applies: they are what can write.
  dryRun: fc.constantFrom(false, false, false, true),
})

if (INLINE_SUITE)
  describe('engine under random and mutated patches', () => {
    for (const [n, format] of FORMATS.entries()) {
      it(
        `answers ${format} patches with a result or an EditError and writes nothing on rejection`,
        async () => {
          const engine = inline as InternalEngine
          const stats: Stats = { applied: 0, rejected: 0 }
          await fc.assert(
            fc.asyncProperty(caseArb, async (c) => {
              await materialise(c.ws)
              const { text, paths } = renderPatch(format, c.ws, c.ops)
              const patch = mutate(format, text, paths, c.mutations, hostilePaths(sentinel))
              await judge(
                engine,
                patch,
                c.explicitFormat ? format : 'auto',
                c.dryRun,
                'inline',
                stats,
              )
            }),
            { seed: 0x9a7c4 + n, numRuns: RUNS_PER_FORMAT },
          )
          // The generator must reach both outcomes, or the properties above test little.
          expect(stats.applied).toBeGreaterThan(RUNS_PER_FORMAT / 10)
          expect(stats.rejected).toBeGreaterThan(RUNS_PER_FORMAT / 10)
        },
        TIMEOUT_MS,
      )
    }

    it(
      'refuses every hostile path in every format without touching anything',
      async () => {
        const engine = inline as InternalEngine
        const stats: Stats = { applied: 0, rejected: 0 }
        const hostile = hostilePaths(sentinel)
        await fc.assert(
          fc.asyncProperty(
            workspaceArb,
            fc.array(opArb, { minLength: 1, maxLength: 2 }),
            fc.constantFrom(...FORMATS),
            fc.nat(),
            async (ws, ops, format, pick) => {
              await materialise(ws)
              const { text, paths } = renderPatch(format, ws, ops)
              const patch = mutate(
                format,
                text,
                paths,
                [{ kind: 'path', which: 0, hostile: pick }],
                [...hostile],
              )
              await judge(engine, patch, format, false, 'inline', stats)
            },
          ),
          { seed: 0x60a7, numRuns: HOSTILE_RUNS },
        )
      },
      TIMEOUT_MS,
    )
  })

if (POOL_SUITE)
  describe.skipIf(!POOL_BUILT)(
    `engine under mutated patches via the pool route${POOL_SKIP}`,
    () => {
      let pooled: InternalEngine | undefined
      afterAll(async () => {
        await pooled?.close()
      })

      it(
        'keeps the same guarantees when verification runs in worker threads',
        async () => {
          pooled = createEngineWithInternals({ root, workers: { minThreads: 1, maxThreads: 1 } })
          const engine = pooled
          const stats: Stats = { applied: 0, rejected: 0 }
          await fc.assert(
            fc.asyncProperty(caseArb, fc.constantFrom(...FORMATS), async (c, format) => {
              await materialise(c.ws)
              const { text, paths } = renderPatch(format, c.ws, c.ops)
              const patch = mutate(format, text, paths, c.mutations, hostilePaths(sentinel))
              await judge(engine, patch, 'auto', c.dryRun, 'pool', stats)
            }),
            { seed: 0x9001, numRuns: POOL_RUNS },
          )
        },
        TIMEOUT_MS,
      )
    },
  )
