// Every scenario directory (test/scenarios/, loaded by test/helpers/scenarios.ts) through the
// built CLI: the patch file's bytes on stdin, as an agent pipes them (bytes, not text),
// `--root` a fresh copy of input/, `--json`. Asserts the
// exit status, the JSON line and the final tree, as test/scenarios.test.ts does in process.
// One CLI-edge difference: a format the CLI cannot name is a usage error (64) rather than
// CONFIG_INVALID. Engine deny globs become --deny flags (which add to the .git defaults), and
// engine limits the --max-* flags.
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FORMAT_OPTIONS } from '../../src/cli/args.js'
import { ERROR_CODES, type EditErrorData } from '../../src/errors.js'
import { jsonLine, runCli } from '../helpers/run-cli.js'
import { comparableError, loadScenarios, type Scenario } from '../helpers/scenarios.js'
import { copyTree, makeTempDir, readableTree, snapshot } from '../helpers/tree.js'

const scenarios = loadScenarios()
let scratch = ''

beforeAll(async () => {
  scratch = await makeTempDir('patchloom-cli-scenarios-')
})
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true })
})

async function runScenario(scenario: Scenario): Promise<void> {
  const ws = join(scratch, scenario.name)
  if (scenario.inputDir !== null) await copyTree(scenario.inputDir, ws)
  else await mkdir(ws)
  const before = await snapshot(ws)
  const deny = (scenario.options.engine.denyGlobs ?? []).flatMap((glob) => ['--deny', glob])
  const { maxPatchBytes, maxFileBytes, maxFiles } = scenario.options.engine.limits ?? {}
  const limits = [
    ...(maxPatchBytes === undefined ? [] : [`--max-patch-bytes=${maxPatchBytes}`]),
    ...(maxFileBytes === undefined ? [] : [`--max-file-bytes=${maxFileBytes}`]),
    ...(maxFiles === undefined ? [] : [`--max-files=${maxFiles}`]),
  ]
  const args = [
    'apply',
    '-',
    '--root',
    ws,
    '--json',
    '--format',
    scenario.format,
    ...deny,
    ...limits,
    ...Object.entries(scenario.options.request ?? {}).map(
      ([key, value]) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}=${String(value)}`,
    ),
  ]
  const run = await runCli(args, { stdin: scenario.patchBytes })
  const result = jsonLine(run)
  const context = `${scenario.name}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`

  if (!FORMAT_OPTIONS.includes(scenario.format)) {
    // The engine would say CONFIG_INVALID; the CLI refuses the flag before any engine exists.
    expect(run.code, context).toBe(64)
    expect(result, context).toMatchObject({ ok: false, error: { code: 'USAGE_INVALID' } })
  } else if (scenario.expectedError !== undefined) {
    const expected = scenario.expectedError
    expect(result['ok'], context).toBe(false)
    const actual = result['error'] as EditErrorData
    expect(comparableError(actual, expected), context).toEqual(expected)
    expect(run.code, context).toBe(ERROR_CODES[expected.code].retryable ? 75 : 1)
  } else {
    expect(run.code, context).toBe(0)
    expect(result, context).toMatchObject({ ok: true, format: scenario.patchFormat, dryRun: false })
    if (scenario.options.expectResult !== undefined) {
      expect(result, context).toMatchObject(scenario.options.expectResult)
    }
  }
  const after = await snapshot(ws)
  const wanted = scenario.expectedDir === undefined ? before : await snapshot(scenario.expectedDir)
  expect(readableTree(after), scenario.name).toEqual(readableTree(wanted))
}

describe('scenarios through the built CLI', () => {
  it('finds scenarios to run', () => {
    expect(scenarios.length).toBeGreaterThan(0)
  })

  for (const scenario of scenarios) {
    if (scenario.skip !== undefined) {
      it.skip(`${scenario.name} (skipped, a known defect: ${scenario.skip})`, () => {})
      continue
    }
    it.concurrent(scenario.name, () => runScenario(scenario))
  }
})
