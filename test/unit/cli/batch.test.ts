// `patchloom batch` in-process: its command line, its JSON lines in and out (stdin and FILE), a
// malformed line in the middle reported with its number while the run goes on, the exit status
// (0, 1, 64), the summary and progress on stderr, --dry-run, and the line splitter's limit.
import { readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { HELP_TEXT, parseArgs } from '../../../src/cli/args.js'
import { splitLines } from '../../../src/cli/commands/batch.js'
import type { CliIo } from '../../../src/cli/io.js'
import { main } from '../../../src/cli/main.js'
import { makeTempDir } from '../../helpers/tree.js'

const dirs: string[] = []
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function workspace(text = 'one\n'): Promise<string> {
  const root = await makeTempDir('patchloom-batch-')
  dirs.push(root)
  await writeFile(path.join(root, 'a.txt'), text)
  return root
}

function change(from: string, to: string): string {
  return `--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-${from}\n+${to}\n`
}

const job = (id: string | number, root: string, patch: string, extra: object = {}): string =>
  JSON.stringify({ id, root, patch, ...extra })

/** A result line as read back: the fields these tests look at. */
interface Line {
  readonly id?: unknown
  readonly ok?: boolean
  readonly line?: number
  readonly dryRun?: boolean
  readonly transaction?: string
  readonly undoCommand?: string
  readonly [field: string]: unknown
}

interface Run {
  code: number
  out: Line[]
  err: string
  drains: number
}

async function batch(argv: string[], stdin: string, opts: Partial<CliIo> = {}): Promise<Run> {
  let out = ''
  let err = ''
  let drains = 0
  const bytes = Buffer.from(stdin)
  const code = await main(['batch', ...argv], {
    // In uneven chunks, as a pipe delivers them: lines are split across chunks.
    stdin: () => {
      const chunks: Buffer[] = []
      for (let at = 0; at < bytes.length; at += 7) chunks.push(bytes.subarray(at, at + 7))
      return chunks
    },
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    cwd: opts.cwd ?? '/',
    drained: () => {
      drains++
      return Promise.resolve()
    },
    ...opts,
  })
  const lines = out === '' ? [] : out.replace(/\n$/, '').split('\n')
  return { code, out: lines.map((l) => JSON.parse(l) as Line), err, drains }
}

describe('patchloom batch', () => {
  it('applies every job from stdin, answers one line each in input order, and exits 0', async () => {
    const a = await workspace()
    const b = await workspace()
    const input = [
      job('a1', a, change('one', 'two')),
      job('b1', b, change('one', 'uno')),
      job('a2', a, change('two', 'three')),
    ].join('\n')
    const run = await batch(['--durability', 'fast', '--no-workers'], `${input}\n`)
    expect(run.code).toBe(0)
    expect(run.out.map((r) => [r.id, r.ok])).toEqual([
      ['a1', true],
      ['b1', true],
      ['a2', true],
    ])
    expect(run.out[0]).toMatchObject({
      format: 'unified',
      dryRun: false,
      files: [{ path: 'a.txt' }],
    })
    expect(run.out[0]?.undoCommand).toBe(
      `patchloom undo ${String(run.out[0]?.transaction)} --root ${a}`,
    )
    expect(await readFile(path.join(a, 'a.txt'), 'utf8')).toBe('three\n')
    expect(await readFile(path.join(b, 'a.txt'), 'utf8')).toBe('uno\n')
    expect(run.err).toMatch(
      /^batch: 3 jobs: 3 applied, 0 checked, 0 refused, 0 malformed lines \(\d+\.\d s\)\n$/,
    )
    expect(run.drains).toBe(3)
  })

  it('reports a malformed line in the middle with its number, runs the rest, and exits 64', async () => {
    const root = await workspace()
    const input = [
      job(1, root, change('one', 'two')),
      '{"id": 2, "root": ',
      job(3, root, change('two', 'three')),
      JSON.stringify({ id: 4, patch: 'x' }),
      job(5, root, change('three', 'four')),
    ].join('\n')
    const run = await batch(['--no-workers'], input)
    expect(run.code).toBe(64)
    expect(run.out.map((r) => [r.id, r.ok, r.line])).toEqual([
      [1, true, undefined],
      [null, false, 2],
      [3, true, undefined],
      [4, false, 4],
      [5, true, undefined],
    ])
    const bad = run.out[1] as { error: { code: string; message: string; hint: string } }
    expect(bad.error.code).toBe('BATCH_JOB_INVALID')
    expect(bad.error.message).toMatch(/^Line 2 is not JSON \(.+\)\.$/)
    expect(bad.error.hint).toContain('"root"')
    expect((run.out[3] as { error: { message: string } }).error.message).toBe(
      'Line 4: Job 4 needs a root directory; got nothing.',
    )
    expect(Object.keys(run.out[1] ?? {})).toEqual(['id', 'line', 'ok', 'error'])
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('four\n')
    expect(run.err).toContain('3 applied, 0 checked, 0 refused, 2 malformed lines')
  })

  it('exits 1 when a job is refused, the others applied', async () => {
    const root = await workspace()
    const input = [job('x', root, change('missing', 'y')), job('ok', root, change('one', 'two'))]
    const run = await batch(['--no-workers'], input.join('\n'))
    expect(run.code).toBe(1)
    expect(run.out.map((r) => r.ok)).toEqual([false, true])
    expect((run.out[0] as { error: { code: string } }).error.code).toMatch(/^MATCH_/)
    expect(run.err).toContain('1 applied, 0 checked, 1 refused, 0 malformed lines')
  })

  it('reads a FILE of jobs relative to the cwd; blank and CRLF-ended lines are fine', async () => {
    const root = await workspace()
    const dir = await makeTempDir('patchloom-batch-file-')
    dirs.push(dir)
    await writeFile(
      path.join(dir, 'jobs.jsonl'),
      `\n${job(1, path.relative(dir, root), change('one', 'two'))}\r\n\n  \n`,
    )
    const run = await batch(['jobs.jsonl', '--no-workers'], '', { cwd: dir })
    expect(run.code).toBe(0)
    expect(run.out.map((r) => r.id)).toEqual([1])
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('two\n')
  })

  it('refuses a FILE that cannot be read, as a usage error', async () => {
    const run = await batch(['no-such.jsonl', '--json'], '', { cwd: '/nonexistent-dir' })
    expect(run.code).toBe(64)
    expect(run.out).toEqual([
      expect.objectContaining({
        ok: false,
        error: expect.objectContaining({ code: 'USAGE_INVALID' }),
      }),
    ])
  })

  it('checks every job with --dry-run, whatever the job says, and writes nothing', async () => {
    const root = await workspace()
    const input = job(1, root, change('one', 'two'), { options: { dryRun: false } })
    const run = await batch(['--dry-run', '--no-workers'], input)
    expect(run.code).toBe(0)
    expect(run.out).toEqual([expect.objectContaining({ id: 1, ok: true, dryRun: true })])
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('one\n')
    expect(run.err).toContain('0 applied, 1 checked')
  })

  it('checks a job whose options say dryRun, and applies the next one', async () => {
    const root = await workspace()
    const input = [
      job('c', root, change('one', 'two'), { options: { dryRun: true } }),
      job('a', root, change('one', 'three'), { format: 'unified' }),
    ]
    const run = await batch(['--no-workers'], input.join('\n'))
    expect(run.out.map((r) => [r.id, r.dryRun])).toEqual([
      ['c', true],
      ['a', false],
    ])
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('three\n')
  })

  it('draws a progress line only on a terminal, and prints nothing but JSON lines on stdout', async () => {
    const root = await workspace()
    const input = job(1, root, change('one', 'two'))
    const plain = await batch(['--no-workers'], input)
    expect(plain.err).not.toContain('\r')
    const root2 = await workspace()
    const tty = await batch(['--no-workers'], job(1, root2, change('one', 'two')), {
      stderrIsTTY: true,
    })
    expect(tty.err).toMatch(
      /^\r\x1b\[Kbatch: 1 job done, 0 not applied, \d+\/s\r\x1b\[Kbatch: 1 job:/,
    )
    expect(tty.out).toHaveLength(1)
  })

  it('answers empty input with no lines and exit 0', async () => {
    const run = await batch([], '')
    expect(run).toMatchObject({ code: 0, out: [] })
    expect(run.err).toContain('batch: 0 jobs')
  })

  it('refuses a line that is not UTF-8 by its number', async () => {
    const root = await workspace()
    let out = ''
    const code = await main(['batch', '--no-workers'], {
      stdin: () => [
        Buffer.from([0x7b, 0xff, 0x7d, 0x0a]),
        Buffer.from(job(2, root, change('one', 'two'))),
      ],
      stdout: (s) => (out += s),
      stderr: () => undefined,
      cwd: '/',
    })
    expect(code).toBe(64)
    const [first, second] = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(first).toMatchObject({
      id: null,
      line: 1,
      error: {
        code: 'BATCH_JOB_INVALID',
        message: 'Line 1 is not UTF-8; JSON lines are UTF-8 text.',
      },
    })
    expect(second).toMatchObject({ id: 2, ok: true })
  })
})

describe('batch line splitting', () => {
  async function lines(chunks: (string | Uint8Array)[], max: number) {
    const out: { line: number; text: string | null }[] = []
    for await (const l of splitLines(chunks, max))
      out.push({ line: l.line, text: l.bytes === null ? null : Buffer.from(l.bytes).toString() })
    return out
  }

  it('splits at LF across chunks, keeps a last line without LF, and numbers every line', async () => {
    expect(await lines(['ab', 'c\nd', 'e\n\nf'], 100)).toEqual([
      { line: 1, text: 'abc' },
      { line: 2, text: 'de' },
      { line: 3, text: '' },
      { line: 4, text: 'f' },
    ])
  })

  it('drops a line over the limit as it arrives, and goes on with the next', async () => {
    expect(await lines(['12345', '678\nok\n', '123456789'], 5)).toEqual([
      { line: 1, text: null },
      { line: 2, text: 'ok' },
      { line: 3, text: null },
    ])
  })
})

describe('batch command line', () => {
  it('reads batch with its flags', () => {
    expect(
      parseArgs([
        'batch',
        'jobs.jsonl',
        '--concurrency=3',
        '--durability',
        'fast',
        '--workers',
        '--dry-run',
        '--max-files',
        '9',
      ]),
    ).toEqual({
      ok: true,
      value: {
        kind: 'batch',
        file: 'jobs.jsonl',
        dryRun: true,
        workers: 'always',
        deny: [],
        limits: { maxFiles: 9 },
        durability: 'fast',
        concurrency: 3,
      },
    })
    expect(parseArgs(['batch', '-'])).toMatchObject({
      ok: true,
      value: { file: null, concurrency: null },
    })
  })

  it('refuses the flags each job gives itself, and --concurrency elsewhere', () => {
    const message = (argv: string[]): string => {
      const parsed = parseArgs(argv)
      if (parsed.ok) throw new Error(`expected a usage error for ${argv.join(' ')}`)
      expect(parsed.error.code).toBe('USAGE_INVALID')
      return parsed.error.message
    }
    expect(message(['batch', '--root', 'x'])).toBe('Flag --root is not valid with batch.')
    expect(message(['batch', '--format', 'unified'])).toBe('Flag --format is not valid with batch.')
    expect(message(['batch', 'a', 'b'])).toBe(
      "Unexpected argument 'b'; give at most one FILE of jobs.",
    )
    expect(message(['apply', '--concurrency', '2'])).toBe('--concurrency is only valid with batch.')
    expect(message(['batch', '--concurrency', '0'])).toBe(
      "Flag --concurrency needs a whole number from 1 to 1024; got '0'.",
    )
    expect(message(['check', '--durability', 'fast'])).toBe(
      '--durability is only valid with apply, batch and undo.',
    )
  })

  it('lists batch in the help', () => {
    expect(HELP_TEXT).toContain('patchloom batch [FILE|-]')
    expect(HELP_TEXT).toMatch(/^ {2}batch {9}Many patches in one process/m)
    expect(HELP_TEXT).toContain('--concurrency N')
  })
})
