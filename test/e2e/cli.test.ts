// The built CLI as an agent runs it: a child process, the patch on stdin or as a file, exit
// status, one JSON line, and the tree on disk afterwards. Needs `npm run build` first.
// Scenario directories run through the CLI in ./cli-scenarios.test.ts.
import { spawnSync } from 'node:child_process'
import { chmod, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_INLINE_MAX_BYTES } from '../../src/defaults.js'
import { COLD_POOL_FACTOR, MIN_POOL_FILES } from '../../src/engine/route.js'
import { CLI_BIN, jsonLine, runCli } from '../helpers/run-cli.js'
import { makeTempDir, snapshot } from '../helpers/tree.js'

let ws = ''
beforeEach(async () => {
  ws = await makeTempDir('patchloom-e2e-')
})
afterEach(async () => {
  await rm(ws, { recursive: true, force: true })
})

const CODEX_UPDATE = [
  '*** Begin Patch',
  '*** Update File: greet.txt',
  '@@',
  ' hello',
  '-world',
  '+there',
  '*** Add File: notes/new.md',
  '+# New',
  '*** End Patch',
  '',
].join('\n')

describe('patchloom CLI', () => {
  it('prints help and exits 0', async () => {
    const run = await runCli(['--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^patchloom: /)
    expect(run.stdout).toContain('patchloom apply [FILE|-]')
    expect(run.stderr).toBe('')
  })

  it('exits 64 on a usage error, as JSON with --json', async () => {
    const human = await runCli(['apply', '--frobnicate'])
    expect(human.code).toBe(64)
    expect(human.stderr).toMatch(/^error USAGE_INVALID: Unknown flag '--frobnicate'\.\nhint: /)
    const json = await runCli(['aply', '--json'])
    expect(json.code).toBe(64)
    expect(jsonLine(json)).toMatchObject({
      ok: false,
      error: { code: 'USAGE_INVALID', retryable: false },
    })
  })

  it('applies a patch from stdin and prints the ApplyResult as one JSON line', async () => {
    await writeFile(join(ws, 'greet.txt'), 'hello\nworld\n')
    const run = await runCli(['apply', '--root', ws, '--json'], { stdin: CODEX_UPDATE })
    expect(run.code).toBe(0)
    const result = jsonLine(run)
    expect(result).toMatchObject({ ok: true, format: 'codex', dryRun: false, warnings: [] })
    expect(result['files']).toEqual([
      {
        path: 'greet.txt',
        op: 'update',
        additions: 1,
        deletions: 1,
        beforeHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        afterHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        diff: expect.stringContaining('-world\n+there\n'),
      },
      {
        path: 'notes/new.md',
        op: 'add',
        additions: 1,
        deletions: 0,
        beforeHash: null,
        afterHash: expect.stringMatching(/^sha256:/),
        diff: expect.stringContaining('+# New'),
      },
    ])
    expect(await readFile(join(ws, 'greet.txt'), 'utf8')).toBe('hello\nthere\n')
    expect(await readFile(join(ws, 'notes/new.md'), 'utf8')).toBe('# New\n')
  })

  it('reads the patch from a FILE relative to cwd, and from - as stdin', async () => {
    await writeFile(join(ws, 'greet.txt'), 'hello\nworld\n')
    await writeFile(join(ws, 'change.patch'), CODEX_UPDATE)
    const fromFile = await runCli(['check', 'change.patch', '--json'], { cwd: ws })
    expect(fromFile.code).toBe(0)
    expect(jsonLine(fromFile)).toMatchObject({ ok: true, dryRun: true })
    const fromDash = await runCli(['check', '-', '--root', ws, '--json'], { stdin: CODEX_UPDATE })
    expect(fromDash.code).toBe(0)
    expect(jsonLine(fromDash)['files']).toEqual(jsonLine(fromFile)['files'])
  })

  it('prints one human line per file by default', async () => {
    await writeFile(join(ws, 'greet.txt'), 'hello\nworld\n')
    const run = await runCli(['apply', '--root', ws], { stdin: CODEX_UPDATE })
    expect(run.code).toBe(0)
    // The last line names the journal transaction and how to undo it (cli-journal.test.ts).
    expect(run.stdout).toMatch(
      /^M greet\.txt \(\+1 -1\)\nA notes\/new\.md\ntransaction (\S+) \(undo: patchloom undo \1 --root \S+\)\n$/,
    )
    expect(run.stderr).toBe('')
  })

  it('writes nothing on a dry run, and says so', async () => {
    await writeFile(join(ws, 'greet.txt'), 'hello\nworld\n')
    const before = await snapshot(ws)
    for (const args of [['apply', '--dry-run'], ['check']]) {
      const run = await runCli([...args, '--root', ws], { stdin: CODEX_UPDATE })
      expect(run.code).toBe(0)
      expect(run.stdout).toBe('M greet.txt (+1 -1)\nA notes/new.md\ndry run: nothing written\n')
    }
    expect(await snapshot(ws)).toEqual(before)
  })

  it('keeps its exit status when the reader of its output goes away (no EPIPE crash)', async () => {
    await writeFile(join(ws, 'greet.txt'), 'hello\nplanet\n')
    // `patchloom ... | head -c 0`: stdout is a pipe whose reader has exited.
    const status = spawnSync(
      'bash',
      [
        '-c',
        `printf '%s' "$PATCH" | "${process.execPath}" "${CLI_BIN}" check --root "${ws}" --json | head -c 0; echo "\${PIPESTATUS[1]}"`,
      ],
      { encoding: 'utf8', env: { ...process.env, PATCH: CODEX_UPDATE } },
    )
    expect(status.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/)
    expect(status.stdout.trim()).toBe('1') // the check's own rejection (world is not there)
  })

  it('exits 1 on a rejection and leaves the tree unchanged', async () => {
    await writeFile(join(ws, 'greet.txt'), 'hello\nplanet\n')
    await writeFile(join(ws, 'other.txt'), 'x\n')
    await chmod(join(ws, 'other.txt'), 0o755)
    const before = await snapshot(ws)
    const run = await runCli(['apply', '--root', ws, '--json'], { stdin: CODEX_UPDATE })
    expect(run.code).toBe(1)
    expect(jsonLine(run)).toMatchObject({
      ok: false,
      error: { code: 'MATCH_NOT_FOUND', path: 'greet.txt', retryable: false },
    })
    expect(await snapshot(ws)).toEqual(before)
  })

  it('prints a rejection for humans on stderr with hint and candidates', async () => {
    await writeFile(join(ws, 'greet.txt'), 'hello\nworlds\n')
    const run = await runCli(['apply', '--root', ws, '--no-workers'], { stdin: CODEX_UPDATE })
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    const lines = run.stderr.split('\n')
    expect(lines[0]).toMatch(/^error MATCH_NOT_FOUND: .*greet\.txt/)
    expect(lines[1]).toMatch(/^hint: /)
    expect(lines[2]).toMatch(/^ {2}line 1 \(score \d\.\d\d\): hello/)
  })

  it('reports check --parse-only per file like git apply --numstat --summary', async () => {
    const diff = [
      'diff --git a/run.sh b/run.sh',
      'old mode 100644',
      'new mode 100755',
      'diff --git a/old.txt b/new.txt',
      'similarity index 80%',
      'rename from old.txt',
      'rename to new.txt',
      '--- a/old.txt',
      '+++ b/new.txt',
      '@@ -1,2 +1,2 @@',
      ' keep',
      '-drop',
      '+add',
      'diff --git a/gone.txt b/gone.txt',
      'deleted file mode 100644',
      '--- a/gone.txt',
      '+++ /dev/null',
      '@@ -1,2 +0,0 @@',
      '-a',
      '-b',
      '',
    ].join('\n')
    // The root does not exist: parse-only must not look at the workspace at all.
    const root = join(ws, 'missing')
    const human = await runCli(['check', '--parse-only', '--root', root], { stdin: diff })
    expect(human.code).toBe(0)
    expect(human.stdout).toBe(
      [
        'M run.sh (+0 -0) mode 100644 -> 100755',
        'R old.txt -> new.txt (+1 -1)',
        'D gone.txt',
        'parse only (unified): no files read, nothing written',
        '',
      ].join('\n'),
    )
    const json = await runCli(['check', '--parse-only', '--json'], { stdin: diff })
    expect(jsonLine(json)).toEqual({
      ok: true,
      format: 'unified',
      parseOnly: true,
      files: [
        {
          path: 'run.sh',
          op: 'update',
          additions: 0,
          deletions: 0,
          modeBefore: '100644',
          modeAfter: '100755',
        },
        { path: 'new.txt', op: 'move', from: 'old.txt', additions: 1, deletions: 1 },
        { path: 'gone.txt', op: 'delete', additions: 0, deletions: 2, modeBefore: '100644' },
      ],
    })
  })

  it('gives the same result with --no-workers', async () => {
    await writeFile(join(ws, 'greet.txt'), 'hello\nworld\n')
    const args = ['check', '--root', ws, '--json']
    const pooled = jsonLine(await runCli(args, { stdin: CODEX_UPDATE }))
    const inline = jsonLine(await runCli([...args, '--no-workers'], { stdin: CODEX_UPDATE }))
    expect(inline).toEqual(pooled)
  })
})

// bin/patchloom.js loads the esbuild bundle in dist/cli/ (D-090). Code moved into the bundle finds
// the files it loads by filename relative to the bundle, not to dist/src/: these prove it still
// does. The language-server host is covered by test/e2e/diagnostics.test.ts, which runs the
// `diagnostics` command and `apply --diagnostics` through this CLI against a real server.
describe('the bundled CLI', () => {
  it('compiles the bundle from the code cache the build wrote (V8 accepts it)', () => {
    // Compiled the way bin/patchloom.js compiles it, in a fresh node with default flags.
    const bundle = join(CLI_BIN, '..', '..', 'dist', 'cli', 'main.cjs')
    const probe = [
      "const { readFileSync } = require('node:fs')",
      "const { wrap } = require('node:module')",
      "const vm = require('node:vm')",
      `const file = ${JSON.stringify(bundle)}`,
      "const cachedData = readFileSync(file + '.cache')",
      "const script = new vm.Script(wrap(readFileSync(file, 'utf8')), { filename: file, cachedData })",
      'process.stdout.write(String(script.cachedDataRejected))',
    ].join('\n')
    const child = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' })
    expect(child.stderr).toBe('')
    expect(child.stdout).toBe('false')
  })

  it('finds the engine worker from the bundle with --workers; on its own it stays in this thread', async () => {
    // Past every routing threshold a long-lived engine has (src/engine/route.ts).
    const files = MIN_POOL_FILES + 8
    const bytes = 1.2 * DEFAULT_INLINE_MAX_BYTES * COLD_POOL_FACTOR
    const line = '+' + 'x'.repeat(63)
    const lines = Array<string>(Math.ceil(bytes / files / (line.length + 1))).fill(line)
    const patch = ['*** Begin Patch']
    for (let i = 0; i < files; i++) patch.push(`*** Add File: big/${i}.txt`, ...lines)
    patch.push('*** End Patch', '')
    const check = (extra: string[]) =>
      runCli(['check', '--root', ws, '--json', ...extra], {
        stdin: patch.join('\n'),
        env: { NODE_DEBUG: 'worker' },
      })
    const pooled = await check(['--workers'])
    expect(pooled.code, pooled.stderr.slice(-2000)).toBe(0)
    expect(jsonLine(pooled)).toMatchObject({ ok: true, dryRun: true })
    // NODE_DEBUG=worker logs each thread node starts: the pool really ran.
    expect(pooled.stderr).toMatch(/^WORKER \d+: \[0\] create new worker/m)
    // A one-shot run does not start the pool by itself (D-074), however large the request.
    const alone = await check([])
    expect(alone.code, alone.stderr.slice(-2000)).toBe(0)
    expect(jsonLine(alone)).toMatchObject({ ok: true, dryRun: true })
    expect(alone.stderr).not.toMatch(/create new worker/)
  })
})
