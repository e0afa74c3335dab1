import { describe, expect, it } from 'vitest'
import { HELP_TEXT, parseArgs } from '../../../src/cli/args.js'

function usageMessage(argv: string[]): string {
  const parsed = parseArgs(argv)
  if (parsed.ok) throw new Error(`expected a usage error for ${argv.join(' ')}`)
  expect(parsed.error.code).toBe('USAGE_INVALID')
  return parsed.error.message
}

describe('parseArgs', () => {
  it('reads apply with every flag in both spellings', () => {
    const parsed = parseArgs([
      'apply',
      'fix.patch',
      '--root',
      'ws',
      '--format=unified',
      '--dry-run',
      '--json',
      '--no-workers',
      '--durability=fast',
    ])
    expect(parsed).toEqual({
      ok: true,
      value: {
        kind: 'apply',
        file: 'fix.patch',
        root: 'ws',
        format: 'unified',
        dryRun: true,
        json: true,
        workers: 'never',
        parseOnly: false,
        deny: [],
        diagnostics: false,
        limits: {},
        durability: 'fast',
      },
    })
  })

  it('reads --workers as always and refuses it together with --no-workers', () => {
    const parsed = parseArgs(['check', '--workers'])
    expect(parsed.ok && parsed.value.kind === 'check' && parsed.value.workers).toBe('always')
    expect(usageMessage(['check', '--workers', '--no-workers'])).toBe(
      'Flags --workers and --no-workers contradict each other; give one.',
    )
  })

  it('reads --binary-without-data for apply and check, and refuses it elsewhere', () => {
    const apply = parseArgs(['apply', '--binary-without-data', 'skip'])
    expect(apply.ok && apply.value.kind === 'apply' && apply.value.binaryWithoutData).toBe('skip')
    const check = parseArgs(['check', '--binary-without-data=refuse'])
    expect(check.ok && check.value.kind === 'check' && check.value.binaryWithoutData).toBe('refuse')
    const undo = parseArgs(['undo', '--binary-without-data', 'skip'])
    expect(undo.ok ? undefined : undo.error.code).toBe('USAGE_INVALID')
    const bad = parseArgs(['apply', '--binary-without-data', 'drop'])
    expect(bad.ok ? '' : bad.error.message).toMatch(/--binary-without-data/)
  })

  it('defaults to stdin, the cwd root, auto format and workers on', () => {
    expect(parseArgs(['apply'])).toEqual({
      ok: true,
      value: {
        kind: 'apply',
        file: null,
        root: null,
        format: 'auto',
        dryRun: false,
        json: false,
        workers: 'auto',
        parseOnly: false,
        deny: [],
        diagnostics: false,
        limits: {},
        durability: 'full',
      },
    })
  })

  it("treats '-' as stdin", () => {
    const parsed = parseArgs(['apply', '-', '--root=/tmp/x'])
    expect(parsed.ok && parsed.value.kind === 'apply' && parsed.value.file).toBe(null)
  })

  it('makes check a dry run and accepts --parse-only there', () => {
    const parsed = parseArgs(['check', '--parse-only', '--format', 'codex'])
    expect(parsed.ok && parsed.value).toMatchObject({
      kind: 'check',
      dryRun: true,
      parseOnly: true,
      format: 'codex',
    })
  })

  it('accepts flags before the command', () => {
    const parsed = parseArgs(['--json', 'check', 'p.diff'])
    expect(parsed.ok && parsed.value).toMatchObject({ kind: 'check', json: true, file: 'p.diff' })
  })

  it('reads a FILE that looks like a flag after --', () => {
    const parsed = parseArgs(['apply', '--', '--odd-name.patch'])
    expect(parsed.ok && parsed.value).toMatchObject({ file: '--odd-name.patch' })
  })

  it('recognises help in all its spellings, even after a command', () => {
    for (const argv of [['--help'], ['-h'], ['help'], ['apply', '--help'], ['help', 'apply']]) {
      expect(parseArgs(argv)).toEqual({ ok: true, value: { kind: 'help' } })
    }
  })

  it('recognises --version', () => {
    expect(parseArgs(['--version'])).toEqual({ ok: true, value: { kind: 'version' } })
  })

  it('rejects a missing command', () => {
    expect(usageMessage([])).toMatch(/No command/)
  })

  it('collects repeated --deny globs', () => {
    const parsed = parseArgs(['apply', '--deny', 'secrets/**', '--deny=*.pem'])
    expect(parsed.ok && parsed.value).toMatchObject({
      kind: 'apply',
      deny: ['secrets/**', '*.pem'],
    })
    expect(parseArgs(['apply', '--deny']).ok).toBe(false)
  })

  it('reads the limit flags in both spellings, for apply and check', () => {
    const parsed = parseArgs([
      'apply',
      '--max-patch-bytes',
      '1024',
      '--max-file-bytes=2048',
      '--max-files',
      '3',
    ])
    expect(parsed.ok && parsed.value).toMatchObject({
      limits: { maxPatchBytes: 1024, maxFileBytes: 2048, maxFiles: 3 },
    })
    const check = parseArgs(['check', '--max-files=7'])
    expect(check.ok && check.value).toMatchObject({ kind: 'check', limits: { maxFiles: 7 } })
  })

  it('documents the limit flags and their defaults in the help text', () => {
    for (const flag of ['--max-patch-bytes', '--max-file-bytes', '--max-files']) {
      expect(HELP_TEXT).toContain(flag)
    }
    expect(HELP_TEXT).toContain('256 MiB')
  })

  it('rejects a limit that is not a positive whole number', () => {
    for (const bad of ['0', '-1', '1.5', '1e6', 'lots', '', '99999999999999999999']) {
      expect(usageMessage(['apply', `--max-files=${bad}`])).toContain('--max-files')
    }
    expect(usageMessage(['apply', '--max-patch-bytes'])).toContain('needs a value')
  })

  it('parses apply --diagnostics and the diagnostics command with several files', () => {
    const apply = parseArgs(['apply', 'fix.patch', '--diagnostics'])
    expect(apply.ok && apply.value).toMatchObject({ kind: 'apply', diagnostics: true })
    const diag = parseArgs(['diagnostics', 'src/a.ts', 'src/b.py', '--root', 'ws', '--json'])
    expect(diag.ok && diag.value).toEqual({
      kind: 'diagnostics',
      files: ['src/a.ts', 'src/b.py'],
      root: 'ws',
      json: true,
    })
    expect(parseArgs(['diagnostics']).ok).toBe(false)
    expect(parseArgs(['check', '--diagnostics']).ok).toBe(false)
  })

  it('parses the demo command', () => {
    const parsed = parseArgs(['demo'])
    expect(parsed.ok && parsed.value).toEqual({ kind: 'demo' })
  })

  it('rejects an unknown command', () => {
    expect(usageMessage(['aply'])).toBe(
      "Unknown command 'aply'; use apply, check, batch, undo, log, recover, diagnostics, replay, mcp, serve, tools, demo or help.",
    )
  })

  it('rejects an unknown flag', () => {
    expect(usageMessage(['apply', '--force'])).toBe("Unknown flag '--force'.")
  })

  it('rejects a flag without its value', () => {
    expect(usageMessage(['apply', '--root'])).toMatch(/--root needs a value/)
    expect(usageMessage(['apply', '--format', '--json'])).toMatch(/--format needs a value/)
    expect(usageMessage(['apply', '--root='])).toMatch(/--root needs a directory/)
  })

  it('rejects a value on a boolean flag', () => {
    expect(usageMessage(['apply', '--json=yes'])).toMatch(/--json takes no value/)
  })

  it('rejects an unknown format, naming the allowed ones', () => {
    expect(usageMessage(['apply', '--format', 'patch'])).toBe(
      "Unknown format 'patch'; use one of auto, codex, unified, search-replace, edits.",
    )
  })

  it('rejects a second FILE', () => {
    expect(usageMessage(['apply', 'a.patch', 'b.patch'])).toMatch(/at most one patch FILE/)
  })

  it('rejects --parse-only outside check', () => {
    expect(usageMessage(['apply', '--parse-only'])).toMatch(/only valid with check/)
  })

  it('rejects --durability outside apply and undo, and an unknown durability', () => {
    expect(usageMessage(['check', '--durability', 'fast'])).toBe(
      '--durability is only valid with apply, batch and undo.',
    )
    expect(usageMessage(['recover', '--durability=full'])).toMatch(/only valid with apply/)
    expect(usageMessage(['apply', '--durability', 'paranoid'])).toBe(
      "Unknown durability 'paranoid'; use full or fast.",
    )
    expect(usageMessage(['apply', '--durability'])).toMatch(/--durability needs a value/)
  })

  it('documents the journal commands and their flags in the help text', () => {
    for (const text of [
      'patchloom undo [TXN]',
      'patchloom log [--root DIR] [--json] [-n N | --limit N]',
      'patchloom recover [--root DIR] [--json]',
      '--durability full|fast',
      '-n, --limit N',
    ]) {
      expect(HELP_TEXT).toContain(text)
    }
  })
})

describe('parseArgs journal commands', () => {
  it('parses undo with a transaction id and every flag it takes', () => {
    const parsed = parseArgs([
      'undo',
      '20261130T143109123Z-k3x9q2',
      '--root=ws',
      '--json',
      '--durability',
      'fast',
    ])
    expect(parsed).toEqual({
      ok: true,
      value: {
        kind: 'undo',
        transaction: '20261130T143109123Z-k3x9q2',
        root: 'ws',
        json: true,
        durability: 'fast',
      },
    })
  })

  it('defaults undo to the newest change, the cwd root and full durability', () => {
    expect(parseArgs(['undo'])).toEqual({
      ok: true,
      value: { kind: 'undo', transaction: null, root: null, json: false, durability: 'full' },
    })
  })

  it('parses log with its default limit of 20, and -n / --limit in every spelling', () => {
    expect(parseArgs(['log'])).toEqual({
      ok: true,
      value: { kind: 'log', root: null, json: false, limit: 20 },
    })
    for (const argv of [
      ['log', '-n', '5'],
      ['log', '--limit', '5'],
      ['log', '--limit=5'],
      ['-n', '5', 'log'],
    ]) {
      expect(parseArgs(argv)).toEqual({
        ok: true,
        value: { kind: 'log', root: null, json: false, limit: 5 },
      })
    }
    const json = parseArgs(['log', '--json', '--root', 'ws'])
    expect(json.ok && json.value).toEqual({ kind: 'log', root: 'ws', json: true, limit: 20 })
  })

  it('parses recover with --root and --json', () => {
    expect(parseArgs(['recover', '--root', 'ws', '--json'])).toEqual({
      ok: true,
      value: { kind: 'recover', root: 'ws', json: true },
    })
    expect(parseArgs(['recover'])).toEqual({
      ok: true,
      value: { kind: 'recover', root: null, json: false },
    })
  })

  it('rejects a limit that is not a positive whole number, or -n outside log', () => {
    for (const bad of ['0', '-1', '2.5', 'all', '']) {
      expect(usageMessage(['log', `--limit=${bad}`])).toBe(
        `Flag --limit needs a positive whole number; got '${bad}'.`,
      )
    }
    expect(usageMessage(['log', '-n'])).toBe('Flag -n needs a value.')
    expect(usageMessage(['log', '-n', 'x'])).toMatch(/-n needs a positive whole number/)
    expect(usageMessage(['apply', '-n', '3'])).toBe('Flag -n is only valid with log.')
    expect(usageMessage(['undo', '--limit', '3'])).toBe('Flag --limit is only valid with log.')
  })

  it("refuses apply's flags on the journal commands, so undo --dry-run cannot undo", () => {
    expect(usageMessage(['undo', '--dry-run'])).toBe('Flag --dry-run is not valid with undo.')
    expect(usageMessage(['log', '--format', 'codex'])).toBe('Flag --format is not valid with log.')
    expect(usageMessage(['recover', '--no-workers'])).toBe(
      'Flag --no-workers is not valid with recover.',
    )
    expect(usageMessage(['undo', '--max-files=3'])).toBe('Flag --max-files is not valid with undo.')
  })

  it('rejects extra arguments: a second transaction id, or any for log and recover', () => {
    expect(usageMessage(['undo', 'a', 'b'])).toBe(
      "Unexpected argument 'b'; give at most one transaction id.",
    )
    expect(usageMessage(['log', 'x'])).toBe("Unexpected argument 'x'; log takes no arguments.")
    expect(usageMessage(['recover', 'x'])).toBe(
      "Unexpected argument 'x'; recover takes no arguments.",
    )
  })

  it('still gives help for a journal command with --help', () => {
    for (const cmd of ['undo', 'log', 'recover'])
      expect(parseArgs([cmd, '--help'])).toEqual({ ok: true, value: { kind: 'help' } })
  })
})
