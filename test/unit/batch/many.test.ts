// applyMany and the runner under `patchloom batch`: results in input order whatever finishes
// first, a failure kept to its job, one engine per root with that root's jobs one after another,
// other roots meanwhile, checks apart from applies, bad jobs refused by name, and a window that
// never holds more than `concurrency` jobs however many come (counted, not timed).
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { applyMany, runMany, type ManyInternals } from '../../../src/batch/many.js'
import { checkJob, type BatchJob, type BatchResult } from '../../../src/batch/jobs.js'
import {
  createEngineWithInternals as createReal,
  type InternalEngine,
} from '../../../src/engine/engine.js'
import { EditError } from '../../../src/errors.js'
import type { ApplyResult } from '../../../src/types.js'
import { fuzzRuns } from '../../helpers/test-mode.js'
import { makeTempDir } from '../../helpers/tree.js'

const dirs: string[] = []
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function workspace(files: Record<string, string> = { 'a.txt': 'one\n' }): Promise<string> {
  const root = await makeTempDir('patchloom-many-')
  dirs.push(root)
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(root, name), text)
  return root
}

function change(file: string, from: string, to: string): string {
  return `--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-${from}\n+${to}\n`
}

async function collect<T>(results: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const r of results) out.push(r)
  return out
}

const FAST = { workers: false, durability: 'fast' } as const

describe('applyMany on real workspaces', () => {
  it('applies each job on its own root and answers in input order, with the apply --json object', async () => {
    const a = await workspace()
    const b = await workspace()
    const results = await collect(
      applyMany(
        [
          { id: 'a', root: a, patch: change('a.txt', 'one', 'two') },
          { id: 2, root: b, patch: change('a.txt', 'one', 'three'), format: 'unified' },
        ],
        FAST,
      ),
    )
    expect(results.map((r) => [r.id, r.ok])).toEqual([
      ['a', true],
      [2, true],
    ])
    expect(await readFile(path.join(a, 'a.txt'), 'utf8')).toBe('two\n')
    expect(await readFile(path.join(b, 'a.txt'), 'utf8')).toBe('three\n')
    const first = results[0] as BatchResult & { ok: true }
    expect(Object.keys(first).slice(0, 2)).toEqual(['id', 'ok'])
    expect(first).toMatchObject({ format: 'unified', dryRun: false, files: [{ path: 'a.txt' }] })
    expect(first.undoCommand).toBe(`patchloom undo ${first.transaction} --root ${a}`)
  })

  it('runs one root’s jobs one after another in input order: the second patch sees the first', async () => {
    const root = await workspace()
    const results = await collect(
      applyMany(
        [
          { id: 1, root, patch: change('a.txt', 'one', 'two') },
          { id: 2, root, patch: change('a.txt', 'two', 'three') },
          { id: 3, root, patch: change('a.txt', 'three', 'four') },
        ],
        { ...FAST, concurrency: 3 },
      ),
    )
    expect(results.map((r) => r.ok)).toEqual([true, true, true])
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('four\n')
  })

  it('keeps a failure to its own job: the error data as apply --json has it, and the rest go on', async () => {
    const root = await workspace()
    const results = await collect(
      applyMany(
        [
          { id: 'bad', root, patch: change('a.txt', 'missing', 'x') },
          { id: 'garbage', root, patch: 'not a patch at all\n' },
          { id: 'good', root, patch: change('a.txt', 'one', 'two') },
        ],
        FAST,
      ),
    )
    expect(results.map((r) => [r.id, r.ok])).toEqual([
      ['bad', false],
      ['garbage', false],
      ['good', true],
    ])
    const bad = results[0] as BatchResult & { ok: false }
    expect(bad.error.code).toMatch(/^MATCH_/)
    expect(bad.error).toHaveProperty('hint')
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('two\n')
  })

  it('checks a job with options.dryRun and writes nothing for it', async () => {
    const root = await workspace()
    const [checked, applied] = await collect(
      applyMany(
        [
          { id: 'c', root, patch: change('a.txt', 'one', 'two'), options: { dryRun: true } },
          { id: 'a', root, patch: change('a.txt', 'one', 'three') },
        ],
        FAST,
      ),
    )
    expect(checked).toMatchObject({ id: 'c', ok: true, dryRun: true })
    expect(checked).not.toHaveProperty('transaction')
    expect(applied).toMatchObject({ id: 'a', ok: true, dryRun: false })
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('three\n')
  })

  it('passes binaryWithoutData to its job: skipped with a warning there, refused elsewhere', async () => {
    const root = await workspace()
    const junk = 'Binary files /dev/null and b/.coverage differ\n'
    const [skipped, refused] = await collect(
      applyMany(
        [
          {
            id: 's',
            root,
            patch: change('a.txt', 'one', 'two') + junk,
            options: { binaryWithoutData: 'skip' },
          },
          { id: 'r', root, patch: change('a.txt', 'two', 'three') + junk },
        ],
        FAST,
      ),
    )
    expect(skipped).toMatchObject({
      id: 's',
      ok: true,
      warnings: [{ code: 'parse.binary-skipped', path: '.coverage' }],
    })
    expect(refused).toMatchObject({ id: 'r', ok: false, error: { code: 'PARSE_BAD_BINARY' } })
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('two\n')
  })

  it('treats two spellings of one root (a symlink, a relative path) as one workspace', async () => {
    const root = await workspace()
    const parent = await makeTempDir('patchloom-many-link-')
    dirs.push(parent)
    await symlink(root, path.join(parent, 'link'))
    const created: string[] = []
    const results = await collect(
      runMany(
        [
          {
            checked: checkJob({ id: 1, root, patch: change('a.txt', 'one', 'two') }, 'library'),
            meta: 0,
          },
          {
            checked: checkJob(
              { id: 2, root: 'link', patch: change('a.txt', 'two', 'three') },
              'library',
            ),
            meta: 1,
          },
        ],
        FAST,
        { cwd: parent, createEngine: countingFactory(created) },
      ),
    )
    expect(results.map((r) => r.result.ok)).toEqual([true, true])
    expect(created).toHaveLength(1)
    // The undo command names the root as the job gave it.
    expect((results[1]?.result as { undoCommand?: string }).undoCommand).toMatch(/--root link$/)
  })

  it('refuses a job that is not one, by field, with its id when it had one, and runs the others', async () => {
    const root = await workspace()
    const jobs = [
      null,
      { root, patch: 'x' },
      { id: 'r', patch: 'x' },
      { id: 'p', root, patch: 42 },
      { id: 'f', root, patch: 'x', format: 'git' },
      { id: 'o', root, patch: 'x', options: { dry_run: true } },
      { id: 'of', root, patch: 'x', options: { format: 'unified' } },
      { id: 'ot', root, patch: 'x', options: { dryRun: 'yes' } },
      { id: 'k', root, patch: 'x', extra: 1 },
      { id: 'ok', root, patch: change('a.txt', 'one', 'two') },
    ] as unknown as BatchJob[]
    const results = await collect(applyMany(jobs, FAST))
    const refused = results.slice(0, -1) as (BatchResult & { ok: false })[]
    expect(refused.map((r) => [r.id, r.error.code])).toEqual([
      [null, 'BATCH_JOB_INVALID'],
      [null, 'BATCH_JOB_INVALID'],
      ['r', 'BATCH_JOB_INVALID'],
      ['p', 'BATCH_JOB_INVALID'],
      ['f', 'BATCH_JOB_INVALID'],
      ['o', 'BATCH_JOB_INVALID'],
      ['of', 'BATCH_JOB_INVALID'],
      ['ot', 'BATCH_JOB_INVALID'],
      ['k', 'BATCH_JOB_INVALID'],
    ])
    expect(refused.map((r) => r.error.message)).toEqual([
      'A batch job is an object with id, root and patch; got null.',
      'A batch job needs an id, a string or a number; got nothing.',
      'Job "r" needs a root directory; got nothing.',
      'Job "p" needs a patch, a string or bytes; got 42.',
      'Job "f" has an unknown format "git"; use auto, codex, unified, search-replace, edits.',
      'Job "o" has an unknown option \'dry_run\'; the options are dryRun, diffs, diagnostics, timeoutMs, binaryWithoutData, approve, signal.',
      'Job "of" has an unknown option \'format\' (give format beside root and patch, not in options); the options are dryRun, diffs, diagnostics, timeoutMs, binaryWithoutData, approve, signal.',
      'Job "ot" has option dryRun "yes"; it takes true or false.',
      "Unknown field 'extra' in a batch job; its fields are id, root, patch, patchBase64, format, options.",
    ])
    expect(results.at(-1)).toMatchObject({ id: 'ok', ok: true })
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('two\n')
  })

  it('refuses bytes, functions and signals in a job read from JSON', () => {
    const refused = checkJob({ id: 1, root: '/r', patch: new Uint8Array(1) }, 'json', 'Line 3: ')
    expect(refused).toMatchObject({
      ok: false,
      id: 1,
      error: {
        code: 'BATCH_JOB_INVALID',
        message: 'Line 3: Job 1 needs a patch, a string (or patchBase64); got bytes.',
      },
    })
    expect(checkJob({ id: 1, root: '/r', patch: new Uint8Array(1) }, 'library').ok).toBe(true)
  })

  it('takes a JSON job’s patch as bytes from patchBase64, and refuses it beside patch or malformed', () => {
    const latin1 = Uint8Array.from([0x2d, 0x63, 0x61, 0x66, 0xe9, 0x0a]) // "-café\n" in Latin-1
    const encoded = Buffer.from(latin1).toString('base64')
    const taken = checkJob({ id: 'j', root: '/r', patchBase64: encoded }, 'json')
    if (!taken.ok) throw new Error(taken.error.message)
    expect(taken.job.patch).toEqual(latin1)
    expect('patchBase64' in taken.job).toBe(false)
    const message = (v: unknown, from: 'json' | 'library' = 'json') => {
      const out = checkJob(v, from)
      return out.ok ? 'accepted' : out.error.message
    }
    expect(message({ id: 1, root: '/r', patch: 'x', patchBase64: encoded })).toBe(
      'Job 1 has both patch and patchBase64; give one.',
    )
    for (const bad of ['not base64!', 'YWJj=', 'YW', 7]) {
      expect(message({ id: 1, root: '/r', patchBase64: bad })).toMatch(
        /^Job 1 has a patchBase64 that is not padded standard base64; got /,
      )
    }
    expect(message({ id: 1, root: '/r', patchBase64: encoded }, 'library')).toMatch(
      /only JSON input takes/,
    )
  })

  it('gives a missing root its engine error as the job result', async () => {
    const parent = await makeTempDir('patchloom-many-missing-')
    dirs.push(parent)
    const [r] = await collect(
      applyMany(
        [{ id: 'x', root: path.join(parent, 'nope'), patch: change('a.txt', 'a', 'b') }],
        FAST,
      ),
    )
    expect(r).toMatchObject({ id: 'x', ok: false })
  })

  it('refuses a window outside 1..1024 with CONFIG_INVALID before reading any job', async () => {
    let read = 0
    function* jobs(): Generator<BatchJob> {
      read++
      yield { id: 1, root: '/r', patch: '' }
    }
    for (const concurrency of [0, 1.5, 1025]) {
      await expect(collect(applyMany(jobs(), { ...FAST, concurrency }))).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
      })
    }
    expect(read).toBe(0)
  })
})

/** An engine factory that counts what it makes and hands back real engines. */
function countingFactory(created: string[]): NonNullable<ManyInternals['createEngine']> {
  return (options, internals) => {
    created.push(options.root)
    return createReal(options, internals)
  }
}

const RESULT: ApplyResult = { format: 'unified', dryRun: false, files: [], warnings: [] }

interface Script {
  /** Per root, how many turns of the event loop a job takes. */
  readonly delay?: (root: string, input: string) => number
  /** A job whose patch is this text fails with MATCH_NOT_FOUND. */
  readonly failOn?: string
}

/** Fake engines that record what runs when: in flight per root and overall, opened and closed. */
function fakes(script: Script = {}) {
  const state = {
    created: 0,
    closed: 0,
    inFlight: 0,
    maxInFlight: 0,
    maxOpen: 0,
    perRoot: new Map<string, number>(),
    maxPerRoot: 0,
    calls: [] as string[],
  }
  const createEngine: NonNullable<ManyInternals['createEngine']> = (options) => {
    state.created++
    state.maxOpen = Math.max(state.maxOpen, state.created - state.closed)
    const root = options.root
    const run = async (input: string | Uint8Array, dryRun: boolean): Promise<ApplyResult> => {
      const text = String(input)
      state.calls.push(`${path.basename(root)}:${text}`)
      state.inFlight++
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight)
      const here = (state.perRoot.get(root) ?? 0) + 1
      state.perRoot.set(root, here)
      state.maxPerRoot = Math.max(state.maxPerRoot, here)
      try {
        for (let i = script.delay?.(root, text) ?? 1; i > 0; i--) await new Promise(setImmediate)
        if (text === script.failOn) throw new EditError('MATCH_NOT_FOUND', `no match for ${text}`)
        return { ...RESULT, dryRun }
      } finally {
        state.inFlight--
        state.perRoot.set(root, (state.perRoot.get(root) ?? 1) - 1)
      }
    }
    const engine: InternalEngine = {
      root,
      apply: (input, o) => run(input, o?.dryRun === true),
      check: (input) => run(input, true),
      diagnostics: () => Promise.reject(new Error('not scripted')),
      undo: () => Promise.reject(new Error('not scripted')),
      recover: () => Promise.reject(new Error('not scripted')),
      transactions: () => Promise.reject(new Error('not scripted')),
      close: () => {
        state.closed++
        return Promise.resolve()
      },
    }
    return engine
  }
  return { state, internals: { createEngine, cwd: '/' } satisfies ManyInternals }
}

function items(jobs: Iterable<BatchJob>) {
  return (function* () {
    for (const job of jobs) yield { checked: checkJob(job, 'library'), meta: job.id }
  })()
}

describe('runMany scheduling (fake engines)', () => {
  it('answers in input order even when later jobs finish first', async () => {
    const { state, internals } = fakes({ delay: (root) => (root === '/slow' ? 50 : 1) })
    const jobs: BatchJob[] = [
      { id: 0, root: '/slow', patch: 'p0' },
      { id: 1, root: '/fast', patch: 'p1' },
      { id: 2, root: '/fast', patch: 'p2' },
      { id: 3, root: '/slow', patch: 'p3' },
    ]
    const out = await collect(runMany(items(jobs), { workers: false }, internals))
    expect(out.map((o) => [o.meta, o.result.id])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
    ])
    // /fast's jobs ran while /slow's first was still running.
    expect(state.calls.indexOf('fast:p2')).toBeLessThan(state.calls.indexOf('slow:p3'))
    expect(state.maxInFlight).toBe(2)
  })

  it('never runs two jobs of one root at once, and keeps their input order', async () => {
    const { state, internals } = fakes({ delay: (_root, text) => (text.endsWith('0') ? 20 : 1) })
    const jobs: BatchJob[] = []
    for (let i = 0; i < 40; i++) jobs.push({ id: i, root: `/r${i % 2}`, patch: `p${i}` })
    const out = await collect(runMany(items(jobs), { workers: false, concurrency: 8 }, internals))
    expect(out.map((o) => o.result.id)).toEqual(jobs.map((j) => j.id))
    expect(state.maxPerRoot).toBe(1)
    expect(state.maxInFlight).toBe(2)
    const r0 = state.calls.filter((c) => c.startsWith('r0:'))
    expect(r0).toEqual(jobs.filter((j) => j.root === '/r0').map((j) => `r0:${String(j.patch)}`))
    expect(state.created).toBe(2)
    expect(state.closed).toBe(2)
  })

  it('keeps one job’s failure in its result and runs the rest', async () => {
    const { internals } = fakes({ failOn: 'p1' })
    const jobs: BatchJob[] = [0, 1, 2].map((i) => ({ id: i, root: '/r', patch: `p${i}` }))
    const out = await collect(runMany(items(jobs), { workers: false }, internals))
    expect(out.map((o) => o.result.ok)).toEqual([true, false, true])
    expect(out[1]?.result).toEqual({
      id: 1,
      ok: false,
      error: expect.objectContaining({ code: 'MATCH_NOT_FOUND', message: 'no match for p1' }),
    })
  })

  it('reports a plain exception from a job as INTERNAL for that job only', async () => {
    const { internals } = fakes()
    const broken: ManyInternals = {
      ...internals,
      createEngine: (options, more) => {
        const engine = internals.createEngine(options, more)
        return options.root === '/bug'
          ? { ...engine, apply: () => Promise.reject(new Error('boom')) }
          : engine
      },
    }
    const jobs: BatchJob[] = [
      { id: 'a', root: '/bug', patch: 'p' },
      { id: 'b', root: '/ok', patch: 'p' },
    ]
    const out = await collect(runMany(items(jobs), { workers: false }, broken))
    expect(out.map((o) => o.result)).toEqual([
      {
        id: 'a',
        ok: false,
        error: expect.objectContaining({ code: 'INTERNAL', message: 'Internal error: boom' }),
      },
      expect.objectContaining({ id: 'b', ok: true }),
    ])
  })

  it('holds at most `concurrency` jobs of 20,000 at any time, and at most twice that many engines', async () => {
    const { state, internals } = fakes({ delay: (root) => (root.endsWith('7') ? 3 : 1) })
    let pulled = 0
    let received = 0
    let maxHeld = 0
    const concurrency = 6
    async function* many(): AsyncGenerator<{ checked: ReturnType<typeof checkJob>; meta: number }> {
      for (let i = 0; i < 20_000; i++) {
        pulled++
        maxHeld = Math.max(maxHeld, pulled - received)
        // 5 roots most of the time, and now and then a root of its own (the engine cache must not grow).
        const root = i % 97 === 0 ? `/once${i}` : `/r${i % 5}`
        yield { checked: checkJob({ id: i, root, patch: `p${i}` }, 'library'), meta: i }
      }
    }
    let inOrder = true
    for await (const o of runMany(many(), { workers: false, concurrency }, internals)) {
      if (o.meta !== received) inOrder = false
      received++
    }
    expect(received).toBe(20_000)
    expect(inOrder).toBe(true)
    // The job just pulled counts as held before the runner has taken it in.
    expect(maxHeld).toBeLessThanOrEqual(concurrency + 1)
    expect(maxHeld).toBeGreaterThan(1)
    expect(state.maxInFlight).toBeLessThanOrEqual(concurrency)
    expect(state.maxOpen).toBeLessThanOrEqual(2 * concurrency)
    expect(state.closed).toBe(state.created)
  })

  it('keeps input order, one job a root at a time and the window, for any mix of roots, delays, failures and windows', async () => {
    const job = fc.record({
      root: fc.integer({ min: 0, max: 5 }),
      delay: fc.integer({ min: 0, max: 6 }),
      fails: fc.boolean(),
    })
    await fc.assert(
      fc.asyncProperty(
        fc.array(job, { maxLength: 60 }),
        fc.integer({ min: 1, max: 10 }),
        async (spec, concurrency) => {
          const { state, internals } = fakes({
            delay: (_root, text) => spec[Number(text.slice(1))]?.delay ?? 0,
            failOn: 'never',
          })
          const failing: ManyInternals = {
            ...internals,
            createEngine: (options, more) => {
              const engine = internals.createEngine(options, more)
              return {
                ...engine,
                apply: async (input, o) => {
                  const result = await engine.apply(input, o)
                  if (spec[Number(String(input).slice(1))]?.fails === true)
                    throw new EditError('MATCH_NOT_FOUND', `refused ${String(input)}`)
                  return result
                },
              }
            },
          }
          let pulled = 0
          let received = 0
          let maxHeld = 0
          async function* source() {
            for (const [i, s] of spec.entries()) {
              pulled++
              maxHeld = Math.max(maxHeld, pulled - received)
              yield {
                checked: checkJob({ id: i, root: `/r${s.root}`, patch: `p${i}` }, 'library'),
                meta: i,
              }
            }
          }
          const out: number[] = []
          for await (const o of runMany(source(), { workers: false, concurrency }, failing)) {
            expect(o.result.ok).toBe(spec[o.meta]?.fails !== true)
            out.push(o.meta)
            received++
          }
          expect(out).toEqual(spec.map((_s, i) => i))
          expect(maxHeld).toBeLessThanOrEqual(concurrency + 1)
          expect(state.maxPerRoot).toBeLessThanOrEqual(1)
          expect(state.maxInFlight).toBeLessThanOrEqual(concurrency)
          expect(state.maxOpen).toBeLessThanOrEqual(2 * concurrency)
          expect(state.closed).toBe(state.created)
          // Each root saw its jobs in input order.
          for (let r = 0; r <= 5; r++) {
            const mine = spec.flatMap((s, i) => (s.root === r ? [`r${r}:p${i}`] : []))
            expect(state.calls.filter((c) => c.startsWith(`r${r}:`))).toEqual(mine)
          }
        },
      ),
      { numRuns: fuzzRuns(200) },
    )
  })

  it('passes a finished result on while the next job has not arrived', async () => {
    const { internals } = fakes()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    async function* slowSource() {
      yield { checked: checkJob({ id: 1, root: '/r', patch: 'p' }, 'library'), meta: 1 }
      await gate
      yield { checked: checkJob({ id: 2, root: '/r', patch: 'p' }, 'library'), meta: 2 }
    }
    const run = runMany(slowSource(), { workers: false }, internals)
    const first = await run.next()
    expect(first.value).toMatchObject({ meta: 1 })
    release()
    expect((await run.next()).value).toMatchObject({ meta: 2 })
    expect((await run.next()).done).toBe(true)
  })

  it('closes every engine when the caller stops early, after the jobs in hand finish', async () => {
    const { state, internals } = fakes()
    const jobs: BatchJob[] = []
    for (let i = 0; i < 100; i++) jobs.push({ id: i, root: `/r${i % 3}`, patch: `p${i}` })
    for await (const o of runMany(items(jobs), { workers: false, concurrency: 4 }, internals)) {
      if (o.meta === 5) break
    }
    expect(state.inFlight).toBe(0)
    expect(state.closed).toBe(state.created)
    expect(state.calls.length).toBeLessThanOrEqual(6 + 4)
  })

  it('rejects when the jobs themselves throw, after closing the engines', async () => {
    const { state, internals } = fakes()
    async function* failing() {
      yield { checked: checkJob({ id: 1, root: '/r', patch: 'p' }, 'library'), meta: 1 }
      throw new Error('input broke')
    }
    const seen: unknown[] = []
    await expect(
      (async () => {
        for await (const o of runMany(failing(), { workers: false }, internals)) seen.push(o.meta)
      })(),
    ).rejects.toThrow('input broke')
    expect(state.closed).toBe(state.created)
    expect(state.inFlight).toBe(0)
  })

  it('makes a job on a directory that is a file fail alone', async () => {
    const root = await workspace()
    await mkdir(path.join(root, 'sub'))
    const out = await collect(
      applyMany(
        [
          { id: 'file', root: path.join(root, 'a.txt'), patch: change('a.txt', 'one', 'two') },
          { id: 'dir', root, patch: change('a.txt', 'one', 'two') },
        ],
        FAST,
      ),
    )
    expect(out.map((r) => [r.id, r.ok])).toEqual([
      ['file', false],
      ['dir', true],
    ])
  })
})
