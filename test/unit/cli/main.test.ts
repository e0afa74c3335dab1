import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { HELP_TEXT } from '../../../src/cli/args.js'
import { main, type CliDeps, type CliIo } from '../../../src/cli/main.js'
import type { ApplyOptions, Engine, EngineOptions } from '../../../src/coordinator/engine-types.js'
import { EditError } from '../../../src/errors.js'
import type { ApplyResult } from '../../../src/types.js'

interface Captured {
  io: CliIo
  out: () => string
  err: () => string
}

function capture(stdin = '', cwd = '/ws'): Captured {
  let out = ''
  let err = ''
  return {
    io: {
      stdin: () => Promise.resolve(stdin),
      stdout: (s) => (out += s),
      stderr: (s) => (err += s),
      cwd,
    },
    out: () => out,
    err: () => err,
  }
}

const RESULT: ApplyResult = {
  ok: true,
  format: 'codex',
  dryRun: false,
  files: [
    {
      path: 'a.txt',
      op: 'update',
      additions: 1,
      deletions: 1,
      beforeHash: 'sha256:1',
      afterHash: 'sha256:2',
      diff: '--- a/a.txt\n+++ b/a.txt\n',
    },
  ],
  warnings: [],
}

interface FakeEngine {
  deps: CliDeps
  calls: { method: 'apply' | 'check'; input: string; options: ApplyOptions | undefined }[]
  created: EngineOptions[]
  closed: () => number
}

/** An engine that records its calls and answers with `outcome` (a result, or a thrown value). */
function fakeEngine(
  outcome: (dryRun: boolean) => ApplyResult = (dryRun) => ({ ...RESULT, dryRun }),
): FakeEngine {
  const calls: FakeEngine['calls'] = []
  const created: EngineOptions[] = []
  let closed = 0
  const deps: CliDeps = {
    createEngine: (options) => {
      created.push(options)
      const engine: Engine = {
        root: options.root,
        apply: (input, opts) => {
          calls.push({ method: 'apply', input, options: opts })
          return Promise.resolve().then(() => outcome(opts?.dryRun === true))
        },
        diagnostics: () => Promise.reject(new Error('fake engine: diagnostics not scripted')),
        undo: () => Promise.reject(new Error('fake engine: undo not scripted')),
        recover: () => Promise.reject(new Error('fake engine: recover not scripted')),
        transactions: () => Promise.reject(new Error('fake engine: transactions not scripted')),
        check: (input, opts) => {
          calls.push({ method: 'check', input, options: opts })
          return Promise.resolve().then(() => outcome(true))
        },
        close: () => {
          closed++
          return Promise.resolve()
        },
      }
      return engine
    },
  }
  return { deps, calls, created, closed: () => closed }
}

const NO_ENGINE: CliDeps = {
  createEngine: () => {
    throw new Error('the engine must not be created here')
  },
}

describe('main', () => {
  it('prints help and exits 0', async () => {
    const c = capture()
    expect(await main(['--help'], c.io, NO_ENGINE)).toBe(0)
    expect(c.out()).toBe(HELP_TEXT)
  })

  it("prints the package's version", async () => {
    const c = capture()
    const pkgText = await readFile(new URL('../../../package.json', import.meta.url), 'utf8')
    const pkg = JSON.parse(pkgText) as { version: string }
    expect(await main(['--version'], c.io, NO_ENGINE)).toBe(0)
    expect(c.out()).toBe(`${pkg.version}\n`)
  })

  it('reports a usage error on stderr with exit 64', async () => {
    const c = capture()
    expect(await main(['apply', '--bogus'], c.io, NO_ENGINE)).toBe(64)
    expect(c.out()).toBe('')
    expect(c.err()).toMatch(/^error USAGE_INVALID: Unknown flag '--bogus'\.\nhint: /)
  })

  it('reports a usage error as one JSON line with --json', async () => {
    const c = capture()
    expect(await main(['apply', '--json', '--format', 'nope'], c.io, NO_ENGINE)).toBe(64)
    const lines = c.out().split('\n')
    expect(lines).toHaveLength(2)
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      ok: false,
      error: { code: 'USAGE_INVALID', retryable: false },
    })
    expect(c.err()).toBe('')
  })

  it('applies the patch from stdin with the root resolved against cwd', async () => {
    const fake = fakeEngine()
    const c = capture('PATCH', '/ws')
    expect(await main(['apply', '--root', 'sub', '--format', 'codex'], c.io, fake.deps)).toBe(0)
    expect(fake.created).toEqual([{ root: '/ws/sub' }])
    expect(fake.calls).toEqual([{ method: 'apply', input: 'PATCH', options: { format: 'codex' } }])
    expect(c.out()).toBe('M a.txt (+1 -1)\n')
    expect(fake.closed()).toBe(1)
  })

  it('turns off the worker pool with --no-workers', async () => {
    const fake = fakeEngine()
    await main(['apply', '-', '--no-workers'], capture('P').io, fake.deps)
    expect(fake.created).toEqual([{ root: '/ws', pool: false }])
  })

  it('prints the ApplyResult as one JSON line with --json', async () => {
    const fake = fakeEngine()
    const c = capture('P')
    expect(await main(['apply', '--json'], c.io, fake.deps)).toBe(0)
    expect(c.out().endsWith('\n')).toBe(true)
    expect(c.out().trimEnd()).not.toContain('\n')
    expect(JSON.parse(c.out())).toEqual(RESULT)
  })

  it('runs check and apply --dry-run as dry runs', async () => {
    for (const argv of [['check'], ['apply', '--dry-run']]) {
      const fake = fakeEngine()
      const c = capture('P')
      expect(await main(argv, c.io, fake.deps)).toBe(0)
      expect(fake.calls).toEqual([{ method: 'check', input: 'P', options: { format: 'auto' } }])
      expect(c.out()).toBe('M a.txt (+1 -1)\ndry run: nothing written\n')
    }
  })

  it('exits 1 on a rejection and prints the error with its hint and candidates', async () => {
    const fake = fakeEngine(() => {
      throw new EditError('MATCH_NOT_FOUND', 'a.txt: the chunk at patch line 3 was not found.', {
        path: 'a.txt',
        patchLine: 3,
        candidates: [{ fileLine: 7, score: 0.75, preview: 'old line' }],
      })
    })
    const c = capture('P')
    expect(await main(['apply'], c.io, fake.deps)).toBe(1)
    expect(c.out()).toBe('')
    expect(c.err()).toContain(
      'error MATCH_NOT_FOUND: a.txt: the chunk at patch line 3 was not found.\nhint: ',
    )
    expect(c.err()).toContain('  line 7 (score 0.75): old line\n')
    expect(fake.closed()).toBe(1)
  })

  it('exits 75 on a retryable error such as FILE_CHANGED', async () => {
    const fake = fakeEngine(() => {
      const details = { currentHash: 'sha256:9' }
      throw new EditError('FILE_CHANGED', 'a.txt changed since it was read.', details)
    })
    const c = capture('P')
    expect(await main(['apply', '--json'], c.io, fake.deps)).toBe(75)
    expect(JSON.parse(c.out())).toMatchObject({
      ok: false,
      error: { code: 'FILE_CHANGED', retryable: true, currentHash: 'sha256:9' },
    })
    expect(fake.closed()).toBe(1)
  })

  it('exits 70 on a plain Error, with INTERNAL JSON and the stack on stderr', async () => {
    const fake = fakeEngine(() => {
      throw new Error('engine: cannot commit after close')
    })
    const c = capture('P')
    expect(await main(['apply', '--json'], c.io, fake.deps)).toBe(70)
    expect(JSON.parse(c.out())).toEqual({
      ok: false,
      error: {
        code: 'INTERNAL',
        message: 'Internal error: engine: cannot commit after close',
        hint: 'Report a bug with the request that caused it.',
        retryable: false,
      },
    })
    expect(c.err()).toContain('Error: engine: cannot commit after close\n    at ')
    expect(fake.closed()).toBe(1)
  })

  it('exits 64 when the patch file cannot be read, without starting an engine', async () => {
    const c = capture('', tmpdir())
    expect(await main(['apply', 'no-such-file.patch'], c.io, NO_ENGINE)).toBe(64)
    expect(c.err()).toMatch(
      /^error USAGE_INVALID: Cannot read the patch file 'no-such-file\.patch' \(ENOENT\)\./,
    )
  })
})

describe('main check --parse-only', () => {
  const PATCH = [
    '*** Begin Patch',
    '*** Add File: new.txt',
    '+one',
    '+two',
    '*** Update File: old.txt',
    '*** Move to: moved.txt',
    '@@',
    ' keep',
    '-gone',
    '+here',
    '+also',
    '*** Delete File: dead.txt',
    '*** End Patch',
    '',
  ].join('\n')

  it('summarizes the patch without creating an engine', async () => {
    const c = capture(PATCH)
    expect(await main(['check', '--parse-only'], c.io, NO_ENGINE)).toBe(0)
    expect(c.out()).toBe(
      [
        'A new.txt',
        'R old.txt -> moved.txt (+2 -1)',
        'D dead.txt',
        'parse only (codex): no files read, nothing written',
        '',
      ].join('\n'),
    )
  })

  it('prints the summaries as one JSON line with --json', async () => {
    const c = capture(PATCH)
    expect(await main(['check', '--parse-only', '--json'], c.io, NO_ENGINE)).toBe(0)
    expect(JSON.parse(c.out())).toEqual({
      ok: true,
      format: 'codex',
      parseOnly: true,
      files: [
        { path: 'new.txt', op: 'add', additions: 2, deletions: 0 },
        { path: 'moved.txt', op: 'move', from: 'old.txt', additions: 2, deletions: 1 },
        { path: 'dead.txt', op: 'delete', additions: 0, deletions: null },
      ],
    })
  })

  it('exits 1 with the parse error when the patch does not parse', async () => {
    const c = capture('*** Begin Patch\n*** Frobnicate File: x\n*** End Patch\n')
    expect(await main(['check', '--parse-only', '--json'], c.io, NO_ENGINE)).toBe(1)
    const parsed = JSON.parse(c.out()) as { ok: boolean; error: { code: string } }
    expect(parsed.ok).toBe(false)
    expect(parsed.error.code).toMatch(/^PARSE_/)
  })
})

describe('main with the real engine (inline)', () => {
  let dir = ''
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'patchloom-cli-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  const UPDATE = '*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n'

  it('applies a patch read from a file relative to cwd', async () => {
    await writeFile(join(dir, 'a.txt'), 'one\ntwo\nthree\n')
    await writeFile(join(dir, 'fix.patch'), UPDATE)
    const c = capture('', dir)
    expect(await main(['apply', 'fix.patch', '--no-workers'], c.io)).toBe(0)
    expect(c.out()).toBe('M a.txt (+1 -1)\n')
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree\n')
  })

  it('leaves the file untouched on a dry run and on a rejection', async () => {
    await writeFile(join(dir, 'a.txt'), 'one\nthree\n')
    const rejected = capture(UPDATE, dir)
    expect(await main(['apply', '--no-workers', '--json'], rejected.io)).toBe(1)
    expect(JSON.parse(rejected.out())).toMatchObject({
      ok: false,
      error: { code: 'MATCH_NOT_FOUND', path: 'a.txt' },
    })
    await writeFile(join(dir, 'a.txt'), 'one\ntwo\n')
    const dry = capture(UPDATE, dir)
    expect(await main(['check', '--no-workers', '--json'], dry.io)).toBe(0)
    expect(JSON.parse(dry.out())).toMatchObject({
      ok: true,
      dryRun: true,
      files: [{ path: 'a.txt', op: 'update' }],
    })
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('one\ntwo\n')
  })
})
