// Loads the scenario directories under test/scenarios/ (format: test/scenarios/README.md) into
// plain data. Shared by the in-process runner (test/scenarios.test.ts) and the built-CLI runner
// (test/e2e), so it has no vitest imports and judges nothing itself: runners compare with
// comparableError() and the tree helpers in ./tree.ts. A malformed scenario directory throws a
// plain Error at load time, so a typo cannot silently turn a scenario into a no-op.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Candidate, EditErrorData, ErrorCode } from '../../src/errors.js'
import type { FormatOption, PatchFormat } from '../../src/types.js'

export const SCENARIOS_DIR = fileURLToPath(new URL('../scenarios/', import.meta.url))

/** The patch file names a scenario may hold, and the format each implies. */
export const PATCH_FILES: Readonly<Record<string, PatchFormat>> = {
  'patch.txt': 'codex',
  'patch.diff': 'unified',
  'patch.sr': 'search-replace',
  'patch.json': 'edits',
}

/** A subset of EditErrorData; candidates are compared as a prefix of the actual list. */
export interface ExpectedError {
  readonly code: ErrorCode
  readonly path?: string
  readonly patchLine?: number
  readonly retryable?: boolean
  readonly currentHash?: string
  readonly candidates?: readonly Partial<Candidate>[]
}

/** The createEngine options a scenario may set (the CLI runner maps each to its flag). */
export interface ScenarioEngineOptions {
  readonly denyGlobs?: readonly string[]
  readonly limits?: {
    readonly maxPatchBytes?: number
    readonly maxFileBytes?: number
    readonly maxFiles?: number
  }
}

export interface ScenarioOptions {
  /** Extra createEngine options (the root is always the scenario's temp workspace). */
  readonly engine: ScenarioEngineOptions
  /** A subset of the ApplyResult, compared with toMatchObject (arrays must match in length). */
  readonly expectResult?: Readonly<Record<string, unknown>>
  /** Request options for check and apply (the CLI runner passes them as flags). */
  readonly request?: ScenarioRequestOptions
}

/** The request options a scenario may set: scenario.json "request". */
export interface ScenarioRequestOptions {
  readonly binaryWithoutData?: 'refuse' | 'skip'
}

export interface Scenario {
  /** The directory name, e.g. '014_ambiguous_context_is_rejected'. */
  readonly name: string
  readonly dir: string
  /** The starting tree; null means an empty workspace. */
  readonly inputDir: string | null
  /** Absolute path of the patch file. */
  readonly patchFile: string
  /**
   * The patch file's bytes, exactly as stored: runners pass these, never a decoded string, so
   * Latin-1 and invalid-UTF-8 fixtures reach the engine as they are.
   */
  readonly patchBytes: Uint8Array
  /** The format the patch file's name implies; auto-detection must agree on success. */
  readonly patchFormat: PatchFormat
  /** What to pass as ApplyOptions.format (scenario.json "format", default 'auto'). */
  readonly format: FormatOption
  readonly expectedDir?: string
  readonly expectedError?: ExpectedError
  readonly options: ScenarioOptions
  /**
   * Unified diffs only: why patchloom's outcome differs from a plain `git apply` on purpose
   * (scenario.json "git", one sentence). test/e2e/git-agreement.test.ts asserts that git agrees
   * with every other patch.diff scenario, and that git really does disagree with these.
   */
  readonly git?: string
  /**
   * A known defect the scenario pins, not yet fixed (scenario.json "skip", one sentence): the
   * runners list the scenario as skipped with this reason instead of running it.
   */
  readonly skip?: string
}

const SCENARIO_NAME = /^\d{3}_[a-z0-9_]+$/
const KNOWN_ENTRIES = new Set([
  'input',
  'expected',
  'expected-error.json',
  'scenario.json',
  ...Object.keys(PATCH_FILES),
])
const SCENARIO_JSON_KEYS = new Set(['format', 'engine', 'request', 'expectResult', 'git', 'skip'])
const EXPECTED_ERROR_KEYS = new Set([
  'code',
  'path',
  'patchLine',
  'retryable',
  'currentHash',
  'candidates',
])

/** Every scenario under `root`, sorted by name. */
export function loadScenarios(root: string = SCENARIOS_DIR): Scenario[] {
  return readdirSync(root)
    .filter((name) => statSync(join(root, name)).isDirectory())
    .sort()
    .map((name) => loadScenario(join(root, name), name))
}

export function loadScenario(dir: string, name: string): Scenario {
  const where = `scenario ${name}`
  if (!SCENARIO_NAME.test(name))
    throw new Error(`${where}: name must look like NNN_outcome_in_words`)
  const entries = readdirSync(dir)
  for (const entry of entries) {
    if (!KNOWN_ENTRIES.has(entry)) throw new Error(`${where}: unexpected entry ${entry}`)
  }
  const patchNames = entries.filter((entry) => entry in PATCH_FILES)
  const patchName = patchNames[0]
  if (patchName === undefined || patchNames.length > 1) {
    throw new Error(`${where}: needs exactly one of ${Object.keys(PATCH_FILES).join(', ')}`)
  }
  const hasExpected = entries.includes('expected')
  const hasError = entries.includes('expected-error.json')
  if (hasExpected === hasError) {
    throw new Error(`${where}: needs exactly one of expected/ and expected-error.json`)
  }
  const patchFile = join(dir, patchName)
  const settings = entries.includes('scenario.json') ? readScenarioJson(dir, where) : {}
  if (settings.git !== undefined && PATCH_FILES[patchName] !== 'unified') {
    throw new Error(`${where}: scenario.json "git" is only for patch.diff scenarios`)
  }
  return {
    name,
    dir,
    inputDir: existsSync(join(dir, 'input')) ? join(dir, 'input') : null,
    patchFile,
    patchBytes: new Uint8Array(readFileSync(patchFile)),
    patchFormat: PATCH_FILES[patchName] as PatchFormat,
    format: settings.format ?? 'auto',
    ...(hasExpected ? { expectedDir: join(dir, 'expected') } : {}),
    ...(hasError ? { expectedError: readExpectedError(dir, where) } : {}),
    options: {
      engine: settings.engine ?? {},
      ...(settings.expectResult === undefined ? {} : { expectResult: settings.expectResult }),
      ...(settings.request === undefined ? {} : { request: settings.request }),
    },
    ...(settings.git === undefined ? {} : { git: settings.git }),
    ...(settings.skip === undefined ? {} : { skip: settings.skip }),
  }
}

interface ScenarioJson {
  // Not validated against FormatOption on purpose: a bad value is how CONFIG_INVALID is tested.
  readonly format?: FormatOption
  readonly engine?: ScenarioEngineOptions
  readonly request?: ScenarioRequestOptions
  readonly expectResult?: Record<string, unknown>
  readonly git?: string
  readonly skip?: string
}

function readScenarioJson(dir: string, where: string): ScenarioJson {
  const raw = readJsonObject(join(dir, 'scenario.json'), where)
  for (const key of Object.keys(raw)) {
    if (!SCENARIO_JSON_KEYS.has(key)) throw new Error(`${where}: unknown scenario.json key ${key}`)
  }
  const git = raw['git']
  if (git !== undefined && (typeof git !== 'string' || git.trim() === '')) {
    throw new Error(`${where}: scenario.json "git" must be a sentence saying why git differs`)
  }
  const skip = raw['skip']
  if (skip !== undefined && (typeof skip !== 'string' || skip.trim() === '')) {
    throw new Error(`${where}: scenario.json "skip" must be a sentence naming the known defect`)
  }
  return raw as ScenarioJson
}

function readExpectedError(dir: string, where: string): ExpectedError {
  const raw = readJsonObject(join(dir, 'expected-error.json'), where)
  for (const key of Object.keys(raw)) {
    if (!EXPECTED_ERROR_KEYS.has(key))
      throw new Error(`${where}: unknown expected-error.json key ${key}`)
  }
  if (typeof raw['code'] !== 'string') throw new Error(`${where}: expected-error.json needs a code`)
  return raw as unknown as ExpectedError
}

function readJsonObject(file: string, where: string): Record<string, unknown> {
  const value: unknown = JSON.parse(readFileSync(file, 'utf8'))
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${where}: ${file} must hold a JSON object`)
  }
  return value as Record<string, unknown>
}

/**
 * The part of `actual` that `expected` talks about, shaped like `expected`, so a runner can
 * compare the two with one deep equality. Candidates compare as a prefix: the first
 * expected.candidates.length actual candidates, each reduced to the keys the expectation gives.
 */
export function comparableError(actual: EditErrorData, expected: ExpectedError): ExpectedError {
  const picked: Record<string, unknown> = { code: actual.code }
  if (expected.path !== undefined) picked['path'] = actual.path
  if (expected.patchLine !== undefined) picked['patchLine'] = actual.patchLine
  if (expected.retryable !== undefined) picked['retryable'] = actual.retryable
  if (expected.currentHash !== undefined) picked['currentHash'] = actual.currentHash
  if (expected.candidates !== undefined) {
    const actualCandidates = actual.candidates ?? []
    picked['candidates'] = expected.candidates.map((want, i) => {
      const got = actualCandidates[i]
      if (got === undefined) return null
      const reduced: Record<string, unknown> = {}
      for (const key of Object.keys(want)) reduced[key] = got[key as keyof Candidate]
      return reduced
    })
  }
  return picked as unknown as ExpectedError
}
