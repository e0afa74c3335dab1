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
        workers: false,
        parseOnly: false,
        deny: [],
        diagnostics: false,
        limits: {},
      },
    })
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
        workers: true,
        parseOnly: false,
        deny: [],
        diagnostics: false,
        limits: {},
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
    expect(HELP_TEXT).toContain('32 MiB')
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
      "Unknown command 'aply'; use apply, check, diagnostics, demo or help.",
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
})
