// Every scenario directory under test/scenarios/ through the in-process engine, once per route
// ('inline' verifies in this thread, 'pool' in worker threads loaded from dist/, so it needs
// `npm run build`); the `unit` vitest project runs the inline route, `pool` the other. Each run
// starts from a fresh copy of input/, dry-runs the patch (nothing may change), applies it, and
// compares the whole tree with expected/, or the error with expected-error.json plus a
// byte-identical tree. The workspace sits one level below a private temp dir, so a write that
// escapes the root is caught too. The format is in test/scenarios/README.md; the built-CLI
// runner in test/e2e reuses the same loader.
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { lstat, mkdir, readdir, readFile, readlink, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../src/engine/engine.js'
import type { Engine, EngineOptions } from '../src/engine/api.js'
import { isEditError } from '../src/errors.js'
import type { ApplyResult } from '../src/types.js'
import { comparableError, loadScenarios, type Scenario } from './helpers/scenarios.js'
import { QUICK, TEST_ROUTES } from './helpers/test-mode.js'
import {
  copyTree,
  journalEntries,
  emptyDir,
  makeTempDir,
  readableTree,
  snapshot,
} from './helpers/tree.js'

type Route = 'inline' | 'pool'

const SCENARIOS = loadScenarios()
const WORKER_FILE = fileURLToPath(new URL('../dist/workers/engine.worker.js', import.meta.url))
const POOL_BUILT = existsSync(WORKER_FILE)
/**
 * Files that scenarios 602, 603, 616 and 641 would create or touch outside the root if paths
 * escaped.
 */
const ESCAPE_PROBES = [
  '/tmp/patchloom-scenario-602-escape.txt',
  '/etc/patchloom-scenario-603-probe',
  '/etc/patchloom-scenario-616-absent',
  '/tmp/patchloom-scenario-641-escape.txt',
]

type Outcome = { ok: true; result: ApplyResult } | { ok: false; error: unknown }

async function attempt(run: () => Promise<ApplyResult>): Promise<Outcome> {
  try {
    return { ok: true, result: await run() }
  } catch (error) {
    return { ok: false, error }
  }
}

function describeFailure(outcome: Outcome): string {
  if (outcome.ok) return 'the patch applied'
  const { error } = outcome
  if (isEditError(error)) return `${error.code}: ${error.message}`
  return error instanceof Error ? (error.stack ?? error.message) : String(error)
}

function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}

async function runScenario(
  scenario: Scenario,
  engine: Engine,
  root: string,
  route: Route,
): Promise<void> {
  await emptyDir(root)
  if (scenario.inputDir !== null) await copyTree(scenario.inputDir, root)
  const before = readableTree(await snapshot(root))
  const journalBefore = await journalEntries(root)
  const applyOptions = { format: scenario.format, route, ...scenario.options.request }

  // A dry run must reach the same verdict and write nothing.
  const checked = await attempt(() => engine.check(scenario.patchBytes, applyOptions))
  expect(readableTree(await snapshot(root)), 'check() changed the tree').toEqual(before)

  const outcome = await attempt(() => engine.apply(scenario.patchBytes, applyOptions))
  expect(checked.ok, `check() and apply() disagree: ${describeFailure(checked)}`).toBe(outcome.ok)

  if (scenario.expectedDir !== undefined) {
    if (!outcome.ok) expect.fail(`expected success, got ${describeFailure(outcome)}`)
    const { result } = outcome
    expect(readableTree(await snapshot(root))).toEqual(
      readableTree(await snapshot(scenario.expectedDir)),
    )
    expect(result.dryRun).toBe(false)
    if (scenario.format === 'auto') expect(result.format).toBe(scenario.patchFormat)
    if (scenario.options.expectResult !== undefined)
      expect(result).toMatchObject(scenario.options.expectResult)
    if (checked.ok) expect(checked.result.files).toEqual(result.files)
    // One committed transaction per change that wrote something; nothing pending left behind.
    const added = result.transaction === undefined ? [] : [result.transaction]
    expect(await journalEntries(root), 'journal after commit').toEqual(
      [...journalBefore, ...added].sort(),
    )
    for (const file of result.files) {
      if (file.afterHash === null) continue
      const at = join(root, file.path)
      // A link the change wrote hashes its target string (git's blob); an edit through a link
      // reports the file it points to.
      const hashes = [sha256(await readFile(at).catch(() => new Uint8Array()))]
      if ((await lstat(at)).isSymbolicLink()) hashes.push(sha256(await readlink(at, 'buffer')))
      expect(hashes, `afterHash of ${file.path}`).toContain(file.afterHash)
    }
  } else {
    const expected = scenario.expectedError
    if (expected === undefined) throw new Error(`scenario ${scenario.name} has no expectation`)
    if (outcome.ok) expect.fail(`expected ${expected.code}, but the patch applied`)
    const { error } = outcome
    if (!isEditError(error)) expect.fail(`expected an EditError, got ${describeFailure(outcome)}`)
    expect(comparableError(error.toData(), expected), error.message).toEqual(expected)
    expect(error.message.length).toBeGreaterThan(0)
    if (!checked.ok && isEditError(checked.error)) expect(checked.error.code).toBe(error.code)
    expect(readableTree(await snapshot(root)), 'a failed patch changed the tree').toEqual(before)
    expect(await journalEntries(root), 'a failed patch left journal entries').toEqual(journalBefore)
  }
}

for (const route of TEST_ROUTES) {
  const skipReason = route === 'pool' && !POOL_BUILT ? ' (skipped: run `npm run build` first)' : ''
  describe.skipIf(skipReason !== '')(`scenarios via the ${route} route${skipReason}`, () => {
    let base = ''
    let root = ''
    let shared: Engine | undefined
    const workers: EngineOptions['workers'] =
      route === 'pool' ? { minThreads: 1, maxThreads: 2 } : false
    // The fast loop skips fsync (seconds of waiting on a virtual disk); `npm test` keeps the
    // default, 'full', so every scenario still commits the way a user's does there.
    const durability: EngineOptions['durability'] = QUICK ? 'fast' : 'full'

    beforeAll(async () => {
      base = await makeTempDir('patchloom-scenarios-')
      root = join(base, 'root')
      await mkdir(root)
      shared = createEngine({ root, workers, durability })
    })

    afterAll(async () => {
      await shared?.close()
      if (base !== '') await rm(base, { recursive: true, force: true })
    })

    for (const scenario of SCENARIOS) {
      if (scenario.skip !== undefined) {
        it.skip(`${scenario.name} (skipped, a known defect: ${scenario.skip})`, () => {})
        continue
      }
      it(scenario.name, async () => {
        const custom = Object.keys(scenario.options.engine).length > 0
        const engine = custom
          ? createEngine({ root, workers, durability, ...scenario.options.engine })
          : shared
        if (engine === undefined) throw new Error('scenarios: engine not created')
        try {
          await runScenario(scenario, engine, root, route)
        } finally {
          if (custom) await engine.close()
        }
        // Nothing may land beside the workspace (escapes through '..' or symlinks).
        expect(await readdir(base)).toEqual(['root'])
        for (const probe of ESCAPE_PROBES) expect(existsSync(probe), probe).toBe(false)
      })
    }
  })
}
