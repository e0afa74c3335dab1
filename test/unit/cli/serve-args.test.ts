import { describe, expect, it } from 'vitest'
import { parseServerArgs } from '../../../src/cli/commands/serve.js'

describe('parseServerArgs', () => {
  it('reads mcp roots, named workspaces, the agent and the server flags', () => {
    const parsed = parseServerArgs([
      'mcp',
      '--root',
      'a',
      '--workspace=app=/srv/app',
      '--agent',
      'ci-7',
      '--no-read-before-write',
      '--durability',
      'fast',
    ])
    expect(parsed.ok && parsed.value).toMatchObject({
      kind: 'mcp',
      roots: [{ root: 'a' }, { name: 'app', root: '/srv/app' }],
      agent: 'ci-7',
      readBeforeWrite: false,
      durability: 'fast',
    })
  })

  it('reads serve --http with and without a host', () => {
    const a = parseServerArgs(['serve', '--http', '8080'])
    expect(a.ok && a.value.http).toEqual({ host: '127.0.0.1', port: 8080 })
    const b = parseServerArgs(['serve', '--http', '0.0.0.0:9', '--token-file', 't'])
    expect(b.ok && b.value).toMatchObject({ http: { host: '0.0.0.0', port: 9 }, tokenFile: 't' })
    const d = parseServerArgs([
      'serve',
      '--http',
      '9',
      '--max-in-flight',
      '2',
      '--max-body-bytes=10',
    ])
    expect(d.ok && d.value).toMatchObject({ maxInFlight: 2, maxBodyBytes: 10 })
    const c = parseServerArgs(['serve', '--http', '[::1]:9'])
    expect(c.ok && c.value.http).toEqual({ host: '::1', port: 9 })
  })

  it.each([
    [['serve'], /serve needs --http/],
    [['serve', '--http', 'nope'], /Flag --http needs \[HOST:\]PORT; got 'nope'/],
    [['serve', '--http', '70000'], /Flag --http needs a port from 0 to 65535; got '70000'/],
    [['mcp', '--http', '80'], /Flag --http is not valid with mcp\./],
    [['mcp', '--token-file', 'x'], /Flag --token-file is not valid with mcp\./],
    [['serve', '--http', '1', '--agent', 'x'], /Flag --agent is not valid with serve\./],
    [['mcp', '--agent', 'has space'], /Flag --agent needs a name of letters/],
    [['mcp', '--workspace', 'noequals'], /NAME=DIR/],
    [['mcp', '--durability', 'slow'], /full or fast/],
    [['tools', '--root', 'x'], /Flag --root is not valid with tools\./],
    [['mcp', '--bogus'], /Unknown flag '--bogus'\./],
    [
      ['serve', '--http', '1', '--max-in-flight', '0'],
      /Flag --max-in-flight needs a positive whole number; got '0'/,
    ],
  ])('refuses %j', (argv, message) => {
    const parsed = parseServerArgs(argv)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) {
      expect(parsed.error.code).toBe('USAGE_INVALID')
      expect(parsed.error.message).toMatch(message)
    }
  })
})
