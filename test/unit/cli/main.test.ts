import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { HELP_TEXT } from '../../../src/cli/args.js'
import { main } from '../../../src/cli/main.js'
import type { CliDeps, CliIo } from '../../../src/cli/io.js'
import type { InternalApplyOptions, InternalEngine } from '../../../src/engine/engine.js'
import type { EngineOptions } from '../../../src/engine/api.js'
import { EditError } from '../../../src/errors.js'
import type { RecoveryReport, TransactionInfo, UndoResult } from '../../../src/journal/records.js'
import type { ApplyResult } from '../../../src/types.js'

interface Captured {
  io: CliIo
  out: () => string
  err: () => string
}

function capture(stdin: string | Uint8Array = '', cwd = '/ws'): Captured {
  let out = ''
  let err = ''
  return {
    io: {
      // Two chunks, as a pipe delivers them; the CLI must join them byte for byte.
      stdin: () => {
        const bytes = Buffer.from(stdin)
        const half = Math.floor(bytes.length / 2)
        return [bytes.subarray(0, half), bytes.subarray(half)]
      },
      stdout: (s) => (out += s),
      stderr: (s) => (err += s),
      cwd,
    },
    out: () => out,
    err: () => err,
  }
}

const RESULT: ApplyResult = {
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
  calls: {
    method: 'apply' | 'check'
    input: string | Uint8Array
    options: InternalApplyOptions | undefined
  }[]
  /** Journal calls: ['undo', id] / ['recover'] / ['transactions']. */
  journalCalls: unknown[][]
  created: EngineOptions[]
  closed: () => number
}

/** Scripted answers for the journal methods; a missing one rejects as unscripted. */
interface JournalScript {
  undo?: (id: string | undefined) => UndoResult
  recover?: () => RecoveryReport
  transactions?: () => TransactionInfo[]
}

/** An engine that records its calls and answers with `outcome` (a result, or a thrown value). */
function fakeEngine(
  outcome: (dryRun: boolean) => ApplyResult = (dryRun) => ({ ...RESULT, dryRun }),
  script: JournalScript = {},
): FakeEngine {
  const calls: FakeEngine['calls'] = []
  const journalCalls: unknown[][] = []
  const created: EngineOptions[] = []
  let closed = 0
  const deps: CliDeps = {
    createEngine: (options) => {
      created.push(options)
      const engine: InternalEngine = {
        root: options.root,
        apply: (input, opts) => {
          calls.push({ method: 'apply', input, options: opts })
          return Promise.resolve().then(() => outcome(opts?.dryRun === true))
        },
        diagnostics: () => Promise.reject(new Error('fake engine: diagnostics not scripted')),
        undo: (id) => {
          journalCalls.push(['undo', id])
          const run = script.undo
          if (run === undefined) return Promise.reject(new Error('fake engine: undo not scripted'))
          return Promise.resolve().then(() => run(id))
        },
        recover: () => {
          journalCalls.push(['recover'])
          const run = script.recover
          if (run === undefined)
            return Promise.reject(new Error('fake engine: recover not scripted'))
          return Promise.resolve().then(run)
        },
        transactions: () => {
          journalCalls.push(['transactions'])
          const run = script.transactions
          if (run === undefined)
            return Promise.reject(new Error('fake engine: transactions not scripted'))
          return Promise.resolve().then(run)
        },
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
  return { deps, calls, journalCalls, created, closed: () => closed }
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
    expect(fake.created).toEqual([{ root: '/ws/sub', blockingReads: true, durability: 'full' }])
    expect(fake.calls).toEqual([
      // The human summary shows no diffs, so none are asked for.
      { method: 'apply', input: Buffer.from('PATCH'), options: { format: 'codex', diffs: false } },
    ])
    expect(c.out()).toBe('M a.txt (+1 -1)\n')
    expect(fake.closed()).toBe(1)
  })

  it('passes the patch to the engine as the bytes read, never decoded', async () => {
    const fake = fakeEngine()
    // Latin-1 "café" and a lone 0xff: not UTF-8, so a decode would have turned them into U+FFFD.
    const bytes = Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0xff, 0x0a])
    expect(await main(['apply'], capture(bytes).io, fake.deps)).toBe(0)
    expect(fake.calls[0]?.input).toEqual(Buffer.from(bytes))
  })

  it('turns off the worker pool with --no-workers', async () => {
    const fake = fakeEngine()
    await main(['apply', '-', '--no-workers'], capture('P').io, fake.deps)
    expect(fake.created).toEqual([
      { root: '/ws', workers: false, blockingReads: true, durability: 'full' },
    ])
  })

  it('sends the change to the worker pool with --workers', async () => {
    const fake = fakeEngine()
    await main(['check', '-', '--workers'], capture('P').io, fake.deps)
    expect(fake.created).toEqual([{ root: '/ws', blockingReads: true, durability: 'full' }])
    expect(fake.calls.map((c) => c.options)).toEqual([
      { format: 'auto', diffs: false, route: 'pool' },
    ])
  })

  it('prints the ApplyResult as one JSON line with --json', async () => {
    const fake = fakeEngine()
    const c = capture('P')
    expect(await main(['apply', '--json'], c.io, fake.deps)).toBe(0)
    expect(c.out().endsWith('\n')).toBe(true)
    expect(c.out().trimEnd()).not.toContain('\n')
    expect(JSON.parse(c.out())).toEqual({ ok: true, ...RESULT })
    expect(fake.calls[0]?.options).toMatchObject({ diffs: true })
  })

  it('runs check and apply --dry-run as dry runs', async () => {
    for (const argv of [['check'], ['apply', '--dry-run']]) {
      const fake = fakeEngine()
      const c = capture('P')
      expect(await main(argv, c.io, fake.deps)).toBe(0)
      expect(fake.calls).toEqual([
        { method: 'check', input: Buffer.from('P'), options: { format: 'auto', diffs: false } },
      ])
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

  it('shows the warning for model stop tokens cut from the end of the patch', async () => {
    const c = capture(`${PATCH}<|endoftext|>`)
    expect(await main(['check', '--parse-only'], c.io, NO_ENGINE)).toBe(0)
    expect(c.out()).toMatch(
      /^D dead\.txt\nwarning parse\.stop-token: .*<\|endoftext\|> at line 14.*\nparse only \(codex\)/m,
    )
    const j = capture(`${PATCH}<|endoftext|>`)
    expect(await main(['check', '--parse-only', '--json'], j.io, NO_ENGINE)).toBe(0)
    expect(JSON.parse(j.out()).warnings).toEqual([
      { code: 'parse.stop-token', message: expect.any(String), patchLine: 14 },
    ])
  })

  it('skips binary entries without data with --binary-without-data skip, as apply does', async () => {
    const diff = [
      'diff --git a/.coverage b/.coverage',
      'new file mode 100644',
      'index 0000000..1b2c3d4',
      'Binary files /dev/null and b/.coverage differ',
      'diff --git a/x.txt b/x.txt',
      '--- a/x.txt',
      '+++ b/x.txt',
      '@@ -1 +1 @@',
      '-old',
      '+new',
      '',
    ].join('\n')
    const refused = capture(diff)
    expect(await main(['check', '--parse-only', '--json'], refused.io, NO_ENGINE)).toBe(1)
    expect(JSON.parse(refused.out()).error.code).toBe('PARSE_BAD_BINARY')
    const c = capture(diff)
    const args = ['check', '--parse-only', '--json', '--binary-without-data', 'skip']
    expect(await main(args, c.io, NO_ENGINE)).toBe(0)
    const out = JSON.parse(c.out())
    expect(out.files).toEqual([{ path: 'x.txt', op: 'update', additions: 1, deletions: 1 }])
    expect(out.warnings).toEqual([
      {
        code: 'parse.binary-skipped',
        message: expect.any(String),
        path: '.coverage',
        patchLine: 4,
      },
    ])
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
    expect(c.out()).toMatch(
      /^M a\.txt \(\+1 -1\)\ntransaction (\S+) \(undo: patchloom undo \1\)\n$/,
    )
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

describe('main journal commands', () => {
  const TXN = '20261130T143109123Z-k3x9q2'
  const UNDO_TXN = '20261130T150000000Z-aaaaaa'
  const UNDONE: UndoResult = {
    transaction: UNDO_TXN,
    undone: TXN,
    files: [
      { path: 'new.txt', op: 'remove', beforeHash: 'sha256:2', afterHash: null },
      { path: 'a.txt', op: 'restore', beforeHash: 'sha256:2', afterHash: 'sha256:1' },
    ],
  }
  const INFO: TransactionInfo = {
    id: TXN,
    status: 'committed',
    kind: 'apply',
    createdAt: '2026-11-30T14:31:09.123Z',
    files: [{ path: 'a.txt', op: 'update', additions: 1, deletions: 1 }],
    additions: 1,
    deletions: 1,
    undoable: true,
  }

  it('passes --durability to the engine and prints the undo command with the root', async () => {
    const fake = fakeEngine(() => ({ ...RESULT, transaction: TXN }))
    const human = capture('P')
    const argv = ['apply', '--durability', 'fast', '--root', 'my ws']
    expect(await main(argv, human.io, fake.deps)).toBe(0)
    expect(fake.created).toEqual([{ root: '/ws/my ws', blockingReads: true, durability: 'fast' }])
    expect(human.out()).toBe(
      `M a.txt (+1 -1)\ntransaction ${TXN} (undo: patchloom undo ${TXN} --root 'my ws')\n`,
    )
    const json = capture('P')
    expect(await main(['apply', '--json'], json.io, fake.deps)).toBe(0)
    expect(JSON.parse(json.out())).toEqual({
      ok: true,
      ...RESULT,
      transaction: TXN,
      undoCommand: `patchloom undo ${TXN}`,
    })
  })

  it('undoes the given transaction on an engine without workers and lists each file', async () => {
    const fake = fakeEngine(undefined, { undo: () => UNDONE })
    const c = capture()
    expect(await main(['undo', TXN, '--root', 'sub'], c.io, fake.deps)).toBe(0)
    expect(fake.created).toEqual([{ root: '/ws/sub', workers: false, durability: 'full' }])
    expect(fake.journalCalls).toEqual([['undo', TXN]])
    expect(c.out()).toBe(
      `undid ${TXN} (as transaction ${UNDO_TXN})\nremoved new.txt\nrestored a.txt\n`,
    )
    expect(c.err()).toBe('')
    expect(fake.closed()).toBe(1)
  })

  it('undoes the newest change when no id is given, as one JSON line', async () => {
    const fake = fakeEngine(undefined, { undo: () => UNDONE })
    const c = capture()
    expect(await main(['undo', '--json', '--durability=fast'], c.io, fake.deps)).toBe(0)
    expect(fake.journalCalls).toEqual([['undo', undefined]])
    expect(fake.created[0]).toMatchObject({ durability: 'fast' })
    expect(c.out().split('\n')).toHaveLength(2)
    expect(JSON.parse(c.out())).toEqual({ ok: true, ...UNDONE })
  })

  it('prints an undo refusal like an apply error, with its exit status', async () => {
    const conflict = fakeEngine(undefined, {
      undo: () => {
        throw new EditError('UNDO_CONFLICT', `Cannot undo ${TXN}: a file has changed since.`, {
          path: 'a.txt',
        })
      },
    })
    const human = capture()
    expect(await main(['undo', TXN], human.io, conflict.deps)).toBe(1)
    expect(human.out()).toBe('')
    expect(human.err()).toBe(
      `error UNDO_CONFLICT: Cannot undo ${TXN}: a file has changed since.\n` +
        'hint: Undo the later changes first, or restore those files by hand.\n',
    )
    expect(conflict.closed()).toBe(1)
    const locked = fakeEngine(undefined, {
      undo: () => {
        throw new EditError('JOURNAL_LOCKED', 'The workspace lock is held by pid 1.')
      },
    })
    const json = capture()
    expect(await main(['undo', '--json'], json.io, locked.deps)).toBe(75)
    expect(JSON.parse(json.out())).toMatchObject({
      ok: false,
      error: { code: 'JOURNAL_LOCKED', retryable: true },
    })
  })

  it('lists at most --limit transactions and counts the rest', async () => {
    const infos = [
      { ...INFO, id: '20261130T143109125Z-cccccc' },
      { ...INFO, id: '20261130T143109124Z-bbbbbb' },
      INFO,
    ]
    const fake = fakeEngine(undefined, { transactions: () => infos })
    const c = capture()
    expect(await main(['log', '-n', '2', '--json'], c.io, fake.deps)).toBe(0)
    expect(fake.created).toEqual([{ root: '/ws', workers: false }])
    expect(JSON.parse(c.out())).toEqual({ ok: true, transactions: infos.slice(0, 2), omitted: 1 })
    const all = capture()
    expect(await main(['log', '--json'], all.io, fake.deps)).toBe(0)
    expect(JSON.parse(all.out())).toEqual({ ok: true, transactions: infos })
    const human = capture()
    expect(await main(['log', '--limit=1'], human.io, fake.deps)).toBe(0)
    expect(human.out()).toBe(
      [
        '20261130T143109125Z-cccccc  2026-11-30T14:31:09.123Z  committed  1 file  +1 -1',
        '  update a.txt (+1 -1)',
        '... 2 older transactions (see more with -n N)',
        '',
      ].join('\n'),
    )
    expect(fake.closed()).toBe(3)
  })

  it('exits 0 from recover when everything was rolled back', async () => {
    const fake = fakeEngine(undefined, {
      recover: () => ({ rolledBack: [TXN], conflicted: [], conflicts: [] }),
    })
    const c = capture()
    expect(await main(['recover', '--root', '/abs'], c.io, fake.deps)).toBe(0)
    expect(fake.created).toEqual([{ root: '/abs', workers: false }])
    expect(c.out()).toBe(
      `rolled back ${TXN}: it was interrupted; its files are as they were before it\n`,
    )
    const json = capture()
    expect(await main(['recover', '--json'], json.io, fake.deps)).toBe(0)
    expect(JSON.parse(json.out())).toEqual({
      ok: true,
      rolledBack: [TXN],
      conflicted: [],
      conflicts: [],
    })
  })

  it('exits 1 from recover while a conflict remains, and reports it on stdout', async () => {
    const report: RecoveryReport = {
      rolledBack: [],
      conflicted: [TXN],
      conflicts: [
        {
          transaction: TXN,
          path: 'a.txt',
          reason: 'it has content sha256:9… and mode 644, neither the state before nor after.',
          backup: `/ws/.patchloom/journal/${TXN}.conflict/old/0`,
        },
      ],
    }
    const fake = fakeEngine(undefined, { recover: () => report })
    const c = capture()
    expect(await main(['recover'], c.io, fake.deps)).toBe(1)
    expect(c.out()).toContain(`conflict in ${TXN}: a.txt: it has content sha256:9…`)
    expect(c.out()).toContain(`  its content before the change: /ws/.patchloom/journal/${TXN}`)
    expect(c.err()).toBe('')
    const json = capture()
    expect(await main(['recover', '--json'], json.io, fake.deps)).toBe(1)
    expect(JSON.parse(json.out())).toEqual({ ok: true, ...report })
  })
})

describe('main journal commands with the real engine', () => {
  let dir = ''
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'patchloom-cli-journal-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('applies, logs, undoes and logs again in one workspace', async () => {
    await writeFile(join(dir, 'a.txt'), 'one\ntwo\n')
    const patch = '*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n'
    const applied = capture(patch, dir)
    expect(await main(['apply', '--no-workers', '--json'], applied.io)).toBe(0)
    const { transaction } = JSON.parse(applied.out()) as { transaction: string }
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('one\nTWO\n')

    const undone = capture('', dir)
    expect(await main(['undo'], undone.io)).toBe(0)
    expect(undone.out()).toMatch(new RegExp(`^undid ${transaction} \\(as transaction \\S+\\)\n`))
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('one\ntwo\n')

    const log = capture('', dir)
    expect(await main(['log', '--json'], log.io)).toBe(0)
    const { transactions } = JSON.parse(log.out()) as { transactions: TransactionInfo[] }
    expect(transactions.map((t) => [t.kind, t.status, t.undoes, t.undoneBy])).toEqual([
      ['undo', 'committed', transaction, undefined],
      ['apply', 'committed', undefined, transactions[0]?.id],
    ])

    const recovered = capture('', dir)
    expect(await main(['recover'], recovered.io)).toBe(0)
    expect(recovered.out()).toBe('nothing to recover: no change was left half-done\n')
  })
})
