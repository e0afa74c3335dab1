// The servers' log lines: JSON objects (one per line) or `patchloom: ...` sentences, call lines
// written together once per turn of the event loop, other events at once after them.
import { describe, expect, it } from 'vitest'
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

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

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

  it('writes the calls of one event-loop turn in one write, each a line with its request id', async () => {
    const writes: string[] = []
    const log = new LineLog('json', (s) => writes.push(s))
    log.toolCall(call)
    log.toolCall({ ...call, outcome: 'ok', requestId: 'abcd1234-8', workspace: undefined })
    log.toolCall({ ...call, outcome: 'INTERNAL', requestId: 'abcd1234-9' })
    expect(writes).toEqual([])
    await nextTurn()
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
    await nextTurn()
    expect(writes).toHaveLength(1)
  })

  it('keeps each line valid JSON whatever a workspace or agent is called', async () => {
    const writes: string[] = []
    const log = new LineLog('json', (s) => writes.push(s))
    log.toolCall({ ...call, workspace: 'we "quote"\nand break', agent: 'tab\there' })
    await nextTurn()
    expect(JSON.parse(writes[0] as string)).toMatchObject({
      workspace: 'we "quote"\nand break',
      agent: 'tab\there',
    })
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

  it('writes the sentences in the text format', async () => {
    const writes: string[] = []
    const log = new LineLog('text', (s) => writes.push(s))
    log.event('info', 'server.draining', 'SIGTERM: draining requests in flight, then stopping')
    log.toolCall(call)
    await nextTurn()
    expect(writes.join('')).toBe(
      'patchloom: SIGTERM: draining requests in flight, then stopping\n' +
        'patchloom: edit_file FILE_HASH_MISMATCH in 1.23 ms (request abcd1234-7, workspace app, agent agent-a)\n',
    )
  })
})
