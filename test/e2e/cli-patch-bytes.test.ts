// The built CLI reading the patch as bytes: stdin is a stream that stops at
// --max-patch-bytes, and a patch that is not UTF-8 (a real `git diff` of a Latin-1 file) applies
// byte for byte from stdin and from a FILE. Needs `npm run build` first.
import { spawn } from 'node:child_process'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CLI_BIN, jsonLine, runCli } from '../helpers/run-cli.js'
import { makeTempDir } from '../helpers/tree.js'

const LATIN1_SCENARIO = fileURLToPath(
  new URL('../scenarios/960_latin1_git_diff_applies_byte_exactly_issue_8/', import.meta.url),
)

let ws = ''
beforeEach(async () => {
  ws = await makeTempDir('patchloom-e2e-bytes-')
})
afterEach(async () => {
  await rm(ws, { recursive: true, force: true })
})

describe('patchloom CLI: the patch is bytes', () => {
  it('stops reading stdin at --max-patch-bytes with LIMIT_PATCH_TOO_LARGE', async () => {
    // 4 MiB against a 1000-byte limit: the CLI must answer without reading it all.
    const run = await runCli(['apply', '--root', ws, '--json', '--max-patch-bytes', '1000'], {
      stdin: Buffer.alloc(4 * 1024 * 1024, 0x2b),
    })
    expect(run.code).toBe(1)
    const result = jsonLine(run)
    expect(result).toMatchObject({ ok: false, error: { code: 'LIMIT_PATCH_TOO_LARGE' } })
    const { message } = result['error'] as { message: string }
    expect(message).toContain('1000-byte')
    expect(message).toContain('--max-patch-bytes')
  })

  it('answers while the writer is still writing: the stream is not read to its end', async () => {
    const child = spawn(
      process.execPath,
      [CLI_BIN, 'apply', '--root', ws, '--json', '--max-patch-bytes', '1000'],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    )
    const out: Buffer[] = []
    child.stdout.on('data', (c: Buffer) => out.push(c))
    child.stdin.on('error', () => undefined)
    // A writer that never ends on its own: only the CLI's exit (EPIPE) stops it.
    const chunk = Buffer.alloc(64 * 1024, 0x2b)
    let writing = true
    const pump = (): void => {
      while (writing && child.stdin.write(chunk));
      if (writing) child.stdin.once('drain', pump)
    }
    pump()
    // A CLI that reads to the end never exits here; kill it rather than leave it eating memory.
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    clearTimeout(killer)
    writing = false
    expect(code).toBe(1)
    const line = Buffer.concat(out).toString('utf8')
    expect(JSON.parse(line)).toMatchObject({ error: { code: 'LIMIT_PATCH_TOO_LARGE' } })
  })

  it('applies a git diff of a Latin-1 file byte for byte, from stdin and from FILE', async () => {
    const patch = await readFile(join(LATIN1_SCENARIO, 'patch.diff'))
    const input = await readFile(join(LATIN1_SCENARIO, 'input/menu.txt'))
    const expected = await readFile(join(LATIN1_SCENARIO, 'expected/menu.txt'))

    await writeFile(join(ws, 'menu.txt'), input)
    const piped = await runCli(['apply', '--root', ws, '--json'], { stdin: patch })
    expect(piped.code, piped.stdout).toBe(0)
    expect(await readFile(join(ws, 'menu.txt'))).toEqual(expected)

    await writeFile(join(ws, 'menu.txt'), input)
    await writeFile(join(ws, 'latin1.diff'), patch)
    const fromFile = await runCli(['apply', 'latin1.diff', '--root', '.', '--json'], { cwd: ws })
    expect(fromFile.code, fromFile.stdout).toBe(0)
    expect(await readFile(join(ws, 'menu.txt'))).toEqual(expected)
  })

  it('check --parse-only reads a Latin-1 patch and refuses a non-UTF-8 JSON edit list', async () => {
    const patch = await readFile(join(LATIN1_SCENARIO, 'patch.diff'))
    const summary = await runCli(['check', '--parse-only', '--json'], { stdin: patch })
    expect(summary.code, summary.stdout).toBe(0)
    expect(jsonLine(summary)).toMatchObject({ ok: true, format: 'unified' })

    const json = Buffer.from(
      '{"edits":[{"path":"a","old_string":"x","new_string":"\xe9"}]}',
      'latin1',
    )
    const refused = await runCli(['check', '--parse-only', '--json'], { stdin: json })
    expect(refused.code).toBe(1)
    expect(jsonLine(refused)).toMatchObject({ ok: false, error: { code: 'PARSE_BAD_ENCODING' } })
  })
})
