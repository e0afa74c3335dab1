// The servers' log lines: JSON objects (one per line) or `patchloom: ...` sentences, call lines
// written together at most 20 ms after the first (or once 16 KiB wait), other events at once
// after them.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { LineLog } from '../../../src/server/log-lines.js'
import type { ToolCallRecord } from '../../../src/server/observe.js'

const call: ToolCallRecord = {
  tool: 'edit_file',
  outcome: 'FILE_HASH_MISMATCH',
  ms: 1.23456,
  requestId: 'abcd1234-7',
  workspace: 'app',
  agent: 'agent-a',
}

/** Past the wait of a call's line. */
const later = (): void => void vi.advanceTimersByTime(20)

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('LineLog', () => {
  it('writes one JSON object per line, events with their sentence and fields', () => {
    const writes: string[] = []
    const log = new LineLog('json', (s) => writes.push(s))
    log.event('warn', 'workspace.not_recovered', 'app: transaction t1 not recovered', {
      workspace: 'app',
    })
    expect(writes).toHaveLength(1)
    expect(writes[0]).toMatch(/\n$/)
    expect(JSON.parse(writes[0] as string)).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: 'warn',
      event: 'workspace.not_recovered',
      message: 'app: transaction t1 not recovered',
      workspace: 'app',
    })
  })

  it('writes the calls of 20 ms in one write, each a line with its request id', () => {
    const writes: string[] = []
    const log = new LineLog('json', (s) => writes.push(s))
    log.toolCall(call)
    log.toolCall({ ...call, outcome: 'ok', requestId: 'abcd1234-8', workspace: undefined })
    log.toolCall({ ...call, outcome: 'INTERNAL', requestId: 'abcd1234-9' })
    vi.advanceTimersByTime(19)
    expect(writes).toEqual([])
    vi.advanceTimersByTime(1)
    expect(writes).toHaveLength(1)
    const lines = (writes[0] as string)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines).toEqual([
      {
        time: expect.any(String),
        level: 'info',
        event: 'tool.call',
        request_id: 'abcd1234-7',
        tool: 'edit_file',
        workspace: 'app',
        agent: 'agent-a',
        outcome: 'FILE_HASH_MISMATCH',
        ms: 1.23,
      },
      expect.objectContaining({ request_id: 'abcd1234-8', outcome: 'ok', workspace: null }),
      expect.objectContaining({ request_id: 'abcd1234-9', level: 'error', outcome: 'INTERNAL' }),
    ])
    later()
    expect(writes).toHaveLength(1)
  })

  it('keeps each line valid JSON whatever a workspace or agent is called', () => {
    const writes: string[] = []
    const log = new LineLog('json', (s) => writes.push(s))
    log.toolCall({ ...call, workspace: 'we "quote"\nand break', agent: 'tab\there' })
    later()
    expect(JSON.parse(writes[0] as string)).toMatchObject({
      workspace: 'we "quote"\nand break',
      agent: 'tab\there',
    })
  })

  it('writes at once when 16 KiB of lines wait', () => {
    const writes: string[] = []
    const log = new LineLog('json', (s) => writes.push(s))
    const line = () => log.toolCall(call)
    while (writes.length === 0) line()
    expect((writes[0] as string).length).toBeGreaterThanOrEqual(16 * 1024)
    expect((writes[0] as string).length).toBeLessThan(17 * 1024)
  })

  it('writes waiting call lines before an event, so the stop line comes last', () => {
    const writes: string[] = []
    const log = new LineLog('json', (s) => writes.push(s))
    log.toolCall(call)
    log.event('info', 'server.stopped', 'stopped')
    expect(writes).toHaveLength(1)
    const events = (writes[0] as string)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).event)
    expect(events).toEqual(['tool.call', 'server.stopped'])
  })

  it('writes the sentences in the text format', () => {
    const writes: string[] = []
    const log = new LineLog('text', (s) => writes.push(s))
    log.event('info', 'server.draining', 'SIGTERM: draining requests in flight, then stopping')
    log.toolCall(call)
    later()
    expect(writes.join('')).toBe(
      'patchloom: SIGTERM: draining requests in flight, then stopping\n' +
        'patchloom: edit_file FILE_HASH_MISMATCH in 1.23 ms (request abcd1234-7, workspace app, agent agent-a)\n',
    )
  })
})
