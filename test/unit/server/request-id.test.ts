// Request ids: a client's X-Request-Id is taken only when it is a short safe token; the ids a
// server makes are unique to it and differ between servers.
import { describe, expect, it } from 'vitest'
import { acceptedRequestId, requestIdSource } from '../../../src/server/request-id.js'

describe('acceptedRequestId', () => {
  it('takes short tokens of letters, digits and . _ : -', () => {
    expect(acceptedRequestId('req-42')).toBe('req-42')
    expect(acceptedRequestId('a.b_c:D-9')).toBe('a.b_c:D-9')
    expect(acceptedRequestId('x'.repeat(64))).toBe('x'.repeat(64))
  })

  it('refuses anything else, so a log line cannot be forged through it', () => {
    for (const bad of ['', 'x'.repeat(65), 'has space', 'line\nbreak', '"quoted"', 'a/b', 'é']) {
      expect(acceptedRequestId(bad)).toBeUndefined()
    }
    expect(acceptedRequestId(undefined)).toBeUndefined()
    expect(acceptedRequestId(['a', 'b'])).toBeUndefined()
  })
})

describe('requestIdSource', () => {
  it('makes ids unique to the source, each a safe token itself', () => {
    const next = requestIdSource()
    const ids = Array.from({ length: 1000 }, () => next())
    expect(new Set(ids).size).toBe(1000)
    for (const id of ids) expect(acceptedRequestId(id)).toBe(id)
    expect(ids[0]).toMatch(/^[0-9a-f]{8}-0$/)
    expect(ids[36]).toMatch(/^[0-9a-f]{8}-10$/)
    const other = requestIdSource()()
    expect(other.slice(0, 8)).not.toBe((ids[0] as string).slice(0, 8))
  })
})
