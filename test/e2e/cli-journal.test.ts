// The journal through the built CLI, as an agent or a person meets it: apply, then log, undo and
// recover, each a real child process on a real workspace. Interrupted transactions are made the
// realistic way: a child process running the built engine is SIGKILLed by a journal hook at an
// instrumented commit point, leaving exactly what a crash leaves. Needs `npm run build` first.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, copyFile, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { JournalPoint, TransactionInfo } from '../../src/journal/records.js'
import { jsonLine, runCli } from '../helpers/run-cli.js'
import { journalEntries, makeTempDir, snapshot, type TreeEntry } from '../helpers/tree.js'

const BUILT_ENGINE = pathToFileURL(
  fileURLToPath(new URL('../../dist/src/engine/engine.js', import.meta.url)),
).href

let ws = ''
beforeEach(async () => {
  ws = await makeTempDir('patchloom-e2e-journal-')
})
afterEach(async () => {
  await rm(ws, { recursive: true, force: true })
})

// Three steps in this order: a.sh is rewritten (step 0), new/b.txt created in a new directory
// (step 1), c.txt removed (step 2).
const PATCH = [
  '*** Begin Patch',
  '*** Update File: a.sh',
  '@@',
  ' #!/bin/sh',
  '-echo one',
  '+echo ONE',
  '*** Add File: new/b.txt',
  '+bee',
  '*** Delete File: c.txt',
  '*** End Patch',
  '',
].join('\n')

const A_BEFORE = '#!/bin/sh\r\necho one\r\necho two\r\n'
const A_AFTER = '#!/bin/sh\r\necho ONE\r\necho two\r\n'
const C_BEFORE = 'line one\r\nline two' // no final newline

/** a.sh (CRLF, mode 755), c.txt (mode 600), keep.txt (untouched, not UTF-8). */
async function plantWorkspace(): Promise<void> {
  await writeFile(join(ws, 'a.sh'), A_BEFORE)
  await chmod(join(ws, 'a.sh'), 0o755)
  await writeFile(join(ws, 'c.txt'), C_BEFORE)
  await chmod(join(ws, 'c.txt'), 0o600)
  await writeFile(join(ws, 'keep.txt'), Uint8Array.of(0xff, 0x00, 0x0d, 0x0a))
  await chmod(join(ws, 'keep.txt'), 0o644)
}

/** Every file's permission bits, by path: snapshot() only records the executable bit. */
async function modes(entries: readonly TreeEntry[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const e of entries)
    if (e.kind === 'file') out[e.path] = ((await stat(join(ws, e.path))).mode & 0o7777).toString(8)
  return out
}

async function applyJson(): Promise<string> {
  const run = await runCli(['apply', '--root', ws, '--json'], { stdin: PATCH })
  expect(run.code).toBe(0)
  const transaction = jsonLine(run)['transaction']
  expect(transaction).toMatch(/^\d{8}T\d{9}Z-[0-9a-z]{6}$/)
  return transaction as string
}

/**
 * Runs the built engine in a child process that applies PATCH to `ws` and SIGKILLs itself when
 * the journal reaches `point` for step `index`. Resolves with how the child ended.
 */
function crashDuringApply(point: JournalPoint, index: number): Promise<string> {
  const script = `
    import { createEngineWithInternals } from ${JSON.stringify(BUILT_ENGINE)}
    const at = (point, index) => {
      if (point === ${JSON.stringify(point)} && index === ${index}) process.kill(process.pid, 'SIGKILL')
    }
    const engine = createEngineWithInternals({ root: ${JSON.stringify(ws)}, workers: false },
      { journalHooks: { at } })
    await engine.apply(${JSON.stringify(PATCH)})
    await engine.close()
    process.stdout.write('committed\\n')
  `
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code, signal) => resolve(signal ?? `exit ${code ?? '?'}: ${output}`))
  })
}

describe('patchloom apply and log', () => {
  it('prints the transaction and the command that undoes it, and log lists it', async () => {
    await plantWorkspace()
    const human = await runCli(['apply', '--root', ws], { stdin: PATCH })
    expect(human.code).toBe(0)
    const match = /^transaction (\S+) \(undo: patchloom undo \1 --root (\S+)\)$/m.exec(human.stdout)
    expect(human.stdout).toBe(
      `M a.sh (+1 -1)\nA new/b.txt\nD c.txt\ntransaction ${match?.[1] ?? '?'} (undo: patchloom undo ${match?.[1] ?? '?'} --root ${ws})\n`,
    )
    const id = match?.[1] ?? ''

    const log = await runCli(['log', '--root', ws, '--json'])
    expect(log.code).toBe(0)
    const { transactions } = jsonLine(log) as { transactions: TransactionInfo[] }
    expect(transactions).toEqual([
      {
        id,
        status: 'committed',
        kind: 'apply',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        files: [
          { path: 'a.sh', op: 'update', additions: 1, deletions: 1 },
          { path: 'new/b.txt', op: 'add', additions: 1, deletions: 0 },
          { path: 'c.txt', op: 'delete', additions: 0, deletions: 2 },
        ],
        additions: 2,
        deletions: 3,
        undoable: true,
      },
    ])

    const humanLog = await runCli(['log'], { cwd: ws })
    expect(humanLog.code).toBe(0)
    expect(humanLog.stdout).toBe(
      [
        `${id}  ${transactions[0]?.createdAt ?? '?'}  committed  3 files  +2 -3`,
        '  update a.sh (+1 -1)',
        '  add new/b.txt (+1 -0)',
        '  delete c.txt (+0 -2)',
        '',
      ].join('\n'),
    )
  })

  it('shows the newest -n transactions and counts the older ones', async () => {
    await writeFile(join(ws, 'n.txt'), '0\n')
    for (let i = 0; i < 3; i++) {
      const edit = JSON.stringify({
        edits: [{ path: 'n.txt', old_string: `${i}\n`, new_string: `${i + 1}\n` }],
      })
      expect((await runCli(['apply', '--root', ws], { stdin: edit })).code).toBe(0)
    }
    const all = jsonLine(await runCli(['log', '--root', ws, '--json']))
    const ids = (all['transactions'] as TransactionInfo[]).map((t) => t.id)
    expect(ids).toHaveLength(3)
    expect([...ids].sort().reverse()).toEqual(ids)
    const two = await runCli(['log', '--root', ws, '--json', '-n', '2'])
    expect(jsonLine(two)).toMatchObject({ ok: true, omitted: 1 })
    expect((jsonLine(two)['transactions'] as TransactionInfo[]).map((t) => t.id)).toEqual(
      ids.slice(0, 2),
    )
    const one = await runCli(['log', '--root', ws, '--limit=1'])
    expect(one.stdout.split('\n').at(-2)).toBe('... 2 older transactions (see more with -n N)')
  })

  it('says so when the journal is empty, and writes nothing', async () => {
    const run = await runCli(['log', '--root', ws])
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('no transactions in the journal\n')
    expect(await readdir(ws)).toEqual([])
  })

  it('records --durability fast in the transaction, and refuses an unknown durability', async () => {
    await plantWorkspace()
    const run = await runCli(['apply', '--root', ws, '--json', '--durability', 'fast'], {
      stdin: PATCH,
    })
    expect(run.code).toBe(0)
    const id = jsonLine(run)['transaction'] as string
    expect(jsonLine(run)['undoCommand']).toBe(`patchloom undo ${id} --root ${ws}`)
    const manifest = JSON.parse(
      await readFile(join(ws, '.patchloom', 'journal', id, 'manifest.json'), 'utf8'),
    ) as { durability: string }
    expect(manifest.durability).toBe('fast')
    expect(await readFile(join(ws, 'a.sh'), 'utf8')).toBe(A_AFTER)

    const bad = await runCli(['apply', '--root', ws, '--durability', 'none', '--json'])
    expect(bad.code).toBe(64)
    expect(jsonLine(bad)).toMatchObject({
      ok: false,
      error: { code: 'USAGE_INVALID', message: "Unknown durability 'none'; use full or fast." },
    })
  })
})

describe('patchloom undo', () => {
  it('restores the exact bytes and modes, removes what the change created, and logs it', async () => {
    await plantWorkspace()
    const before = await snapshot(ws)
    const beforeModes = await modes(before)
    const id = await applyJson()
    expect(await readFile(join(ws, 'a.sh'), 'utf8')).toBe(A_AFTER)
    expect(existsSync(join(ws, 'c.txt'))).toBe(false)

    const run = await runCli(['undo', id, '--root', ws])
    expect(run.code).toBe(0)
    expect(run.stderr).toBe('')
    const undoId = /^undid \S+ \(as transaction (\S+)\)\n/.exec(run.stdout)?.[1] ?? '?'
    expect(run.stdout).toBe(
      `undid ${id} (as transaction ${undoId})\nrestored c.txt\nremoved new/b.txt\nrestored a.sh\n`,
    )
    // Byte for byte, CRLF and NUL included, with the emptied new/ directory gone.
    const after = await snapshot(ws)
    expect(after).toEqual(before)
    expect(await modes(after)).toEqual(beforeModes)
    expect(beforeModes).toEqual({ 'a.sh': '755', 'c.txt': '600', 'keep.txt': '644' })

    const log = jsonLine(await runCli(['log', '--root', ws, '--json']))
    const statuses = (log['transactions'] as TransactionInfo[]).map((t) => [
      t.id,
      t.kind,
      t.undoes,
      t.undoneBy,
    ])
    expect(statuses).toEqual([
      [undoId, 'undo', id, undefined],
      [id, 'apply', undefined, undoId],
    ])
    const human = await runCli(['log', '--root', ws])
    expect(human.stdout).toContain(`${undoId}  `)
    expect(human.stdout).toContain(
      [
        `  undo of ${id}  3 files  +3 -2`,
        '  update a.sh (+1 -1)',
        '  delete new/b.txt (+0 -1)',
        '  add c.txt (+2 -0)',
        '',
      ].join('\n'),
    )
    expect(human.stdout).toContain(`  undone by ${undoId}  3 files  +2 -3\n`)
  })

  it('undoes the newest change by default, as one JSON line', async () => {
    await plantWorkspace()
    const before = await snapshot(ws)
    const id = await applyJson()
    const run = await runCli(['undo', '--json'], { cwd: ws })
    expect(run.code).toBe(0)
    expect(jsonLine(run)).toEqual({
      ok: true,
      transaction: expect.stringMatching(/^\d{8}T\d{9}Z-[0-9a-z]{6}$/),
      undone: id,
      files: [
        { path: 'c.txt', op: 'restore', beforeHash: null, afterHash: expect.any(String) },
        { path: 'new/b.txt', op: 'remove', beforeHash: expect.any(String), afterHash: null },
        {
          path: 'a.sh',
          op: 'restore',
          beforeHash: expect.any(String),
          afterHash: expect.any(String),
        },
      ],
    })
    expect(await snapshot(ws)).toEqual(before)
  })

  it('refuses to undo twice: UNDO_UNAVAILABLE by id, UNDO_NOT_FOUND by default, exit 1', async () => {
    await plantWorkspace()
    const id = await applyJson()
    expect((await runCli(['undo', id, '--root', ws])).code).toBe(0)
    const state = await snapshot(ws, { includeState: true })

    const again = await runCli(['undo', id, '--root', ws])
    expect(again.code).toBe(1)
    expect(again.stdout).toBe('')
    expect(again.stderr).toMatch(
      new RegExp(
        `^error UNDO_UNAVAILABLE: Transaction ${id} was already undone by \\S+\\.\nhint: `,
      ),
    )
    const json = await runCli(['undo', id, '--root', ws, '--json'])
    expect(json.code).toBe(1)
    expect(jsonLine(json)).toMatchObject({
      ok: false,
      error: { code: 'UNDO_UNAVAILABLE', retryable: false },
    })
    const newest = await runCli(['undo', '--root', ws, '--json'])
    expect(newest.code).toBe(1)
    expect(jsonLine(newest)).toMatchObject({ ok: false, error: { code: 'UNDO_NOT_FOUND' } })
    const unknown = await runCli(['undo', '20000101T000000000Z-zzzzzz', '--root', ws])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^error UNDO_NOT_FOUND: No transaction 20000101T000000000Z/)
    expect(await snapshot(ws, { includeState: true })).toEqual(state)
  })

  it('refuses with UNDO_CONFLICT naming a file changed by hand, and writes nothing', async () => {
    await plantWorkspace()
    const id = await applyJson()
    await writeFile(join(ws, 'new', 'b.txt'), 'edited by hand\n')
    const state = await snapshot(ws, { includeState: true })

    const human = await runCli(['undo', id, '--root', ws])
    expect(human.code).toBe(1)
    expect(human.stdout).toBe('')
    expect(human.stderr).toMatch(
      new RegExp(
        `^error UNDO_CONFLICT: Cannot undo ${id}: a file has changed since it committed: new/b\\.txt \\(`,
      ),
    )
    expect(human.stderr).toContain('Nothing was written.\nhint: ')
    const json = await runCli(['undo', '--root', ws, '--json'])
    expect(json.code).toBe(1)
    expect(jsonLine(json)).toMatchObject({
      ok: false,
      error: { code: 'UNDO_CONFLICT', path: 'new/b.txt', retryable: false },
    })
    expect(await snapshot(ws, { includeState: true })).toEqual(state)
    expect(await readFile(join(ws, 'new', 'b.txt'), 'utf8')).toBe('edited by hand\n')
  })
})

describe('patchloom recover', () => {
  it('exits 0 on a clean workspace and creates nothing there', async () => {
    await plantWorkspace()
    const before = await snapshot(ws, { includeState: true })
    const run = await runCli(['recover', '--root', ws])
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('nothing to recover: no change was left half-done\n')
    const json = await runCli(['recover', '--json'], { cwd: ws })
    expect(json.code).toBe(0)
    expect(jsonLine(json)).toEqual({ ok: true, rolledBack: [], conflicted: [], conflicts: [] })
    expect(await snapshot(ws, { includeState: true })).toEqual(before)
  })

  it('leaves committed transactions alone', async () => {
    await plantWorkspace()
    await applyJson()
    const state = await snapshot(ws, { includeState: true })
    const run = await runCli(['recover', '--root', ws, '--json'])
    expect(run.code).toBe(0)
    expect(jsonLine(run)).toEqual({ ok: true, rolledBack: [], conflicted: [], conflicts: [] })
    expect(await snapshot(ws, { includeState: true })).toEqual(state)
  })

  const ROLLED_BACK: [JournalPoint, number][] = [
    ['staged', 0],
    ['prepared', 0],
    ['replaced', 0],
    ['replaced', 1],
    ['replaced', 2],
    ['synced', 0],
  ]
  it.each(ROLLED_BACK)(
    'rolls back a commit killed at %s %i and restores every byte and mode',
    async (point, index) => {
      await plantWorkspace()
      const before = await snapshot(ws)
      const beforeModes = await modes(before)
      expect(await crashDuringApply(point, index)).toBe('SIGKILL')
      const pending = await journalEntries(ws)
      expect(pending).toEqual([expect.stringMatching(/\.pending$/)])
      const id = pending[0]?.replace(/\.pending$/, '') ?? ''
      if (point === 'replaced') {
        // Torn on disk, as a crash leaves it: the first `index + 1` steps are done.
        expect(await readFile(join(ws, 'a.sh'), 'utf8')).toBe(A_AFTER)
        expect(existsSync(join(ws, 'new', 'b.txt'))).toBe(index >= 1)
        expect(existsSync(join(ws, 'c.txt'))).toBe(index < 2)
      }

      const run = await runCli(['recover', '--root', ws, '--json'])
      expect(run.code).toBe(0)
      // Interrupted before its manifest was written, a transaction touched nothing: its staging
      // is dropped without a rollback to report.
      const rolledBack = point === 'staged' ? [] : [id]
      expect(jsonLine(run)).toEqual({ ok: true, rolledBack, conflicted: [], conflicts: [] })
      const after = await snapshot(ws)
      expect(after).toEqual(before)
      expect(await modes(after)).toEqual(beforeModes)
      expect(await journalEntries(ws)).toEqual([])
      expect((await readdir(join(ws, '.patchloom'))).sort()).toEqual(['.gitignore', 'journal'])
    },
  )

  it('lists an interrupted transaction as pending, then reports its rollback for humans', async () => {
    await plantWorkspace()
    expect(await crashDuringApply('replaced', 0)).toBe('SIGKILL')
    const id = (await journalEntries(ws))[0]?.replace(/\.pending$/, '') ?? ''
    const log = await runCli(['log', '--root', ws])
    expect(log.code).toBe(0)
    expect(log.stdout.split('\n')[0]).toMatch(
      new RegExp(`^${id}  \\S+Z  pending  3 files  \\+2 -3$`),
    )
    const run = await runCli(['recover', '--root', ws])
    expect(run.code).toBe(0)
    expect(run.stdout).toBe(
      `rolled back ${id}: it was interrupted; its files are as they were before it\n`,
    )
    expect(await readFile(join(ws, 'a.sh'), 'utf8')).toBe(A_BEFORE)
  })

  it('finishes nothing and changes nothing for a commit killed after its mark', async () => {
    await plantWorkspace()
    expect(await crashDuringApply('marked', 0)).toBe('SIGKILL')
    const entries = await journalEntries(ws)
    expect(entries).toEqual([expect.stringMatching(/^\d{8}T\d{9}Z-[0-9a-z]{6}$/)])
    const run = await runCli(['recover', '--root', ws])
    expect(run.code).toBe(0)
    expect(await readFile(join(ws, 'a.sh'), 'utf8')).toBe(A_AFTER)
    expect(existsSync(join(ws, 'c.txt'))).toBe(false)
    const log = jsonLine(await runCli(['log', '--root', ws, '--json']))
    expect(log['transactions']).toMatchObject([{ id: entries[0], status: 'committed' }])
  })

  it('exits 1 naming a file changed after the crash, never overwrites it, then finishes', async () => {
    await plantWorkspace()
    expect(await crashDuringApply('replaced', 0)).toBe('SIGKILL')
    const id = (await journalEntries(ws))[0]?.replace(/\.pending$/, '') ?? ''
    // Someone edits the half-written file before recovery runs.
    await writeFile(join(ws, 'a.sh'), 'mine\n')

    const run = await runCli(['recover', '--root', ws, '--json'])
    expect(run.code).toBe(1)
    const report = jsonLine(run) as {
      conflicted: string[]
      conflicts: { transaction: string; path: string; reason: string; backup?: string }[]
    }
    expect(report).toMatchObject({ ok: true, rolledBack: [], conflicted: [id] })
    expect(report.conflicts).toEqual([
      {
        transaction: id,
        path: 'a.sh',
        reason: expect.stringContaining(`neither the state before nor after transaction ${id}`),
        backup: expect.any(String),
      },
    ])
    // The named backup exists and holds the content from before the change.
    const backup = report.conflicts[0]?.backup ?? ''
    expect(await readFile(backup, 'utf8')).toBe(A_BEFORE)
    expect(await readFile(join(ws, 'a.sh'), 'utf8')).toBe('mine\n')
    expect(await readFile(join(ws, 'c.txt'), 'utf8')).toBe(C_BEFORE)
    expect(existsSync(join(ws, 'new'))).toBe(false)
    expect(await journalEntries(ws)).toEqual([`${id}.conflict`])

    const human = await runCli(['recover', '--root', ws])
    expect(human.code).toBe(1)
    expect(human.stdout).toContain(`conflict in ${id}: a.sh: it has content sha256:`)
    expect(human.stdout).toContain(`\n  its content before the change: ${backup}\n`)
    expect(human.stdout).toContain('1 file left in conflict')
    expect(await readFile(join(ws, 'a.sh'), 'utf8')).toBe('mine\n')

    // Restoring the file by hand from the named copy lets recovery finish.
    await copyFile(backup, join(ws, 'a.sh'))
    const finished = await runCli(['recover', '--root', ws, '--json'])
    expect(finished.code).toBe(0)
    expect(jsonLine(finished)).toEqual({
      ok: true,
      rolledBack: [id],
      conflicted: [],
      conflicts: [],
    })
    expect(await journalEntries(ws)).toEqual([])
    expect(await readFile(join(ws, 'a.sh'), 'utf8')).toBe(A_BEFORE)
    expect(((await stat(join(ws, 'a.sh'))).mode & 0o777).toString(8)).toBe('755')
  })
})

describe('a forged journal in a checkout', () => {
  const FORGED = '20261130T120000000Z-forged'
  const HOOK = '#!/bin/sh\necho owned\n'

  /** What a malicious repository ships: a pending "removal" of a git hook, the hook as backup. */
  async function plantForgedHook(): Promise<void> {
    const { createHash } = await import('node:crypto')
    const { mkdir } = await import('node:fs/promises')
    const dir = join(ws, '.patchloom', 'journal', `${FORGED}.pending`)
    await mkdir(join(dir, 'old'), { recursive: true })
    await mkdir(join(ws, '.git'))
    await writeFile(join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n')
    const hash = 'sha256:' + createHash('sha256').update(HOOK).digest('hex')
    const step = {
      kind: 'remove',
      path: '.git/hooks/pre-commit',
      before: { hash, permissions: 0o755 },
      after: null,
      createdDirs: [],
    }
    const manifest = {
      version: 1,
      id: FORGED,
      createdAt: '2026-11-30T12:00:00.000Z',
      durability: 'full',
      summary: { kind: 'apply', files: [] },
      steps: [step],
    }
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest))
    await writeFile(join(dir, 'old', '0'), HOOK)
    await chmod(join(dir, 'old', '0'), 0o755)
  }

  const everything = () => snapshot(ws, { includeState: true })

  it('check writes nothing, recover refuses it (exit 1), apply of another file works', async () => {
    await plantWorkspace()
    await plantForgedHook()
    const before = await everything()

    const check = await runCli(['check', '--root', ws, '--json'], { stdin: PATCH })
    expect(check.code).toBe(0)
    expect(jsonLine(check)['warnings']).toContainEqual(
      expect.objectContaining({ code: 'journal.untrusted' }),
    )
    expect(await everything()).toEqual(before)

    const recover = await runCli(['recover', '--root', ws, '--json'])
    expect(recover.code).toBe(1)
    expect(jsonLine(recover)).toMatchObject({
      ok: true,
      rolledBack: [],
      conflicted: [FORGED],
      conflicts: [
        {
          transaction: FORGED,
          code: 'JOURNAL_UNTRUSTED',
          path: `.patchloom/journal/${FORGED}.pending`,
        },
      ],
    })
    const human = await runCli(['recover', '--root', ws])
    expect(human.code).toBe(1)
    expect(human.stdout).toContain(`not acted on: ${FORGED} (JOURNAL_UNTRUSTED)`)
    expect(human.stdout).toContain(`delete .patchloom/journal/${FORGED}.pending`)
    expect(await everything()).toEqual(before)

    const apply = await runCli(['apply', '--root', ws, '--json'], { stdin: PATCH })
    expect(apply.code).toBe(0)
    expect(await readFile(join(ws, 'a.sh'), 'utf8')).toBe(A_AFTER)
    expect(existsSync(join(ws, '.git', 'hooks'))).toBe(false)
    const id = jsonLine(apply)['transaction'] as string
    expect(await journalEntries(ws)).toEqual([id, `${FORGED}.pending`].sort())

    const undo = await runCli(['undo', FORGED, '--root', ws, '--json'])
    expect(undo.code).toBe(1)
    expect(jsonLine(undo)).toMatchObject({ ok: false, error: { code: 'JOURNAL_UNTRUSTED' } })
    expect(existsSync(join(ws, '.git', 'hooks'))).toBe(false)
  })
})
