// The --queue URL: what a user can write, and a clear CONFIG_INVALID, with the password
// redacted, for everything else.
import { describe, expect, it } from 'vitest'
import { parseQueueUrl, redact } from '../../../src/queue/url.js'
import { EditError } from '../../../src/errors.js'

function refusal(text: string): EditError {
  try {
    parseQueueUrl(text)
  } catch (error) {
    if (error instanceof EditError) return error
    throw error
  }
  throw new Error(`accepted ${text}`)
}

describe('parseQueueUrl', () => {
  it.each([
    ['redis://127.0.0.1', { host: '127.0.0.1', port: 6379, db: 0 }],
    ['redis://queue.internal:6380/3', { host: 'queue.internal', port: 6380, db: 3 }],
    [
      'redis://:s3cr%40t@10.0.0.5:6379/0',
      { host: '10.0.0.5', port: 6379, db: 0, password: 's3cr@t' },
    ],
    [
      'redis://replay:pw@10.0.0.5',
      { host: '10.0.0.5', port: 6379, db: 0, username: 'replay', password: 'pw' },
    ],
    ['rediss://cache.example:6390', { host: 'cache.example', port: 6390, db: 0, tls: {} }],
    ['redis://[::1]:7000/1', { host: '::1', port: 7000, db: 1 }],
  ])('reads %s', (text, expected) => {
    expect(parseQueueUrl(text)).toEqual(expected)
  })

  it.each([
    ['localhost:6379', 'scheme localhost is not redis or rediss'],
    ['redis://', 'no host'],
    ['http://localhost:6379', 'scheme http is not redis or rediss'],
    ['redis://localhost/x', 'database "x" is not a number'],
    ['redis://localhost/-1', 'is not a number'],
    ['redis://localhost/01', 'is not a number'],
    ['redis://localhost?db=2', 'query strings'],
    ['redis://localhost:99999', 'not a URL'],
  ])('refuses %s (%s)', (text, why) => {
    const error = refusal(text)
    expect(error.code).toBe('CONFIG_INVALID')
    expect(error.message).toContain(why)
    expect(error.message).toContain('redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]')
  })

  it('never puts the password in its message', () => {
    const error = refusal('redis://:hunter2@localhost/x')
    expect(error.message).not.toContain('hunter2')
    expect(error.message).toContain('redis://:***@localhost/x')
  })
})

describe('redact', () => {
  it('hides a password and leaves a URL without one alone', () => {
    expect(redact('redis://user:pw@h:1/2')).toBe('redis://user:***@h:1/2')
    expect(redact('rediss://:pw@h')).toBe('rediss://:***@h')
    expect(redact('redis://h:1/2')).toBe('redis://h:1/2')
  })
})
