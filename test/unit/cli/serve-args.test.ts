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
    [['serve', '--http', 'nope'], /--http takes/],
    [['serve', '--http', '70000'], /out of range/],
    [['mcp', '--http', '80'], /serve only/],
    [['mcp', '--token-file', 'x'], /serve only/],
    [['serve', '--http', '1', '--agent', 'x'], /mcp only/],
    [['mcp', '--agent', 'has space'], /--agent takes/],
    [['mcp', '--workspace', 'noequals'], /NAME=DIR/],
    [['mcp', '--durability', 'slow'], /full or fast/],
    [['tools', '--root', 'x'], /mcp, serve/],
    [['mcp', '--bogus'], /Unknown argument "--bogus"/],
    [['serve', '--http', '1', '--max-in-flight', '0'], /--max-in-flight takes/],
  ])('refuses %j', (argv, message) => {
    const parsed = parseServerArgs(argv)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) {
      expect(parsed.error.code).toBe('USAGE_INVALID')
      expect(parsed.error.message).toMatch(message)
    }
  })
})
