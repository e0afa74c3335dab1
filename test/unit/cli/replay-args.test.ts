// `patchloom replay`'s own flags: what they parse to, and a usage error for everything
// else, naming the flag; flags before the word `replay` belong to it too.
import { describe, expect, it } from 'vitest'
import { parseArgs } from '../../../src/cli/args.js'

const parsed = (...argv: string[]) => {
  const result = parseArgs(argv)
  return result.ok ? result.value : `${result.error.code}: ${result.error.message}`
}

describe('replay arguments', () => {
  it('parses REPO and every flag', () => {
    expect(parsed('replay', '.')).toEqual({
      kind: 'replay',
      repo: '.',
      range: null,
      via: 'unified',
      maxCommits: null,
      workers: 0,
      out: null,
      json: false,
    })
    expect(
      parsed(
        '--json',
        'replay',
        'r',
        '--range=a..b',
        '--first-parent',
        '--via',
        'unified',
        '--max-commits',
        '5',
        '--out',
        'o',
      ),
    ).toEqual({
      kind: 'replay',
      repo: 'r',
      range: 'a..b',
      via: 'unified',
      maxCommits: 5,
      workers: 0,
      out: 'o',
      json: true,
    })
    expect(parsed('replay', '--help')).toEqual({ kind: 'help' })
    for (const via of ['codex', 'search-replace'])
      expect(parsed('replay', 'r', `--via=${via}`)).toMatchObject({ kind: 'replay', via })
    expect(parsed('replay', 'r', '--workers', '2')).toMatchObject({ workers: 2 })
    expect(parsed('replay', 'r', '--workers', '65')).toMatch(/--workers needs a whole number/)
    expect(parsed('replay', 'r', '--workers=x')).toMatch(/--workers needs a whole number/)
  })

  it('refuses what it cannot do, with a usage error that says why', () => {
    expect(parsed('replay')).toMatch(/^USAGE_INVALID: replay needs a REPO/)
    expect(parsed('replay', 'a', 'b')).toMatch(/^USAGE_INVALID: Unexpected argument 'b'/)
    expect(parsed('replay', '.', '--via', 'svn')).toMatch(/^USAGE_INVALID: Unknown --via 'svn'/)
    expect(parsed('replay', '.', '--max-commits', '0')).toMatch(/needs a positive whole number/)
    expect(parsed('replay', '.', '--range')).toMatch(/^USAGE_INVALID: Flag --range needs a value/)
    expect(parsed('replay', '.', '--root', 'x')).toMatch(
      /^USAGE_INVALID: Flag --root is not valid with replay/,
    )
    expect(parsed('replay', '.', '--json=yes')).toMatch(
      /^USAGE_INVALID: Flag --json takes no value/,
    )
  })
})
