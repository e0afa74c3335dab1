import { describe, expect, it } from 'vitest'
import { JOB_PROTOCOL } from '../../../src/threads/jobs.js'
import { errorData } from '../../../src/errors.js'
import { fail, ok } from '../../../src/result.js'
import { replyTo } from '../../../workers/reply.js'

describe('replyTo', () => {
  it('carries the Result of the pure function, success or failure', () => {
    expect(replyTo(JOB_PROTOCOL, () => ok(3))).toEqual({ kind: 'result', result: ok(3) })
    const failure = fail(errorData('MATCH_OVERLAP', 'two hunks overlap'))
    expect(replyTo(JOB_PROTOCOL, () => failure)).toEqual({ kind: 'result', result: failure })
  })

  it('answers a job for another protocol with a typed mismatch, without running it', () => {
    let ran = false
    const reply = replyTo(JOB_PROTOCOL + 1, () => {
      ran = true
      return ok(null)
    })
    expect(reply).toEqual({
      kind: 'protocol-mismatch',
      jobProtocol: JOB_PROTOCOL + 1,
      workerProtocol: JOB_PROTOCOL,
    })
    expect(ran).toBe(false)
  })

  it('turns an exception into data with its name, message and stack', () => {
    const reply = replyTo(JOB_PROTOCOL, () => {
      throw new RangeError('index 7 past the end')
    })
    expect(reply).toMatchObject({
      kind: 'threw',
      name: 'RangeError',
      message: 'index 7 past the end',
    })
    expect(reply.kind === 'threw' ? reply.stack : '').toContain('RangeError: index 7 past the end')
    // Survives the thread boundary unchanged.
    expect(structuredClone(reply)).toEqual(reply)
  })

  it('reports a thrown non-Error by its string form', () => {
    const reply = replyTo(JOB_PROTOCOL, () => {
      // What a buggy dependency may do.
      throw 'plain string'
    })
    expect(reply).toEqual({ kind: 'threw', name: 'Error', message: 'plain string' })
  })
})
