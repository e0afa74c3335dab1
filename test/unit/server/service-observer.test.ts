// What the edit service tells its observer and its callers about each call, in-process on real
// files (no worker threads): the request id in every outcome (made, or the caller's), one record
// per call with its outcome code, the limit behind each SERVER_BUSY, the server's lock waits and
// the journal's commit batches, and the snapshot and readiness that /metrics and /readyz read.
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CommitBatchStats } from '../../../src/journal/records.js'
import type { BusyLimit, ServerObserver, ToolCallRecord } from '../../../src/server/observe.js'
import { EditService, type Caller, type ServiceOptions } from '../../../src/server/service.js'
import { makeTempDir } from '../../helpers/tree.js'

const A: Caller = { agent: 'agent-a' }

class Recorder implements ServerObserver {
  readonly calls: ToolCallRecord[] = []
  readonly busies: BusyLimit[] = []
  readonly lockWaits: number[] = []
  readonly batches: [string, CommitBatchStats][] = []
  toolCall(call: ToolCallRecord): void {
    this.calls.push(call)
  }
  busy(limit: BusyLimit): void {
    this.busies.push(limit)
  }
  serverLockWait(ms: number): void {
    this.lockWaits.push(ms)
  }
  commitBatch(workspace: string, stats: CommitBatchStats): void {
    this.batches.push([workspace, stats])
  }
}

let root = ''
let service: EditService
let seen: Recorder

async function open(options: Partial<ServiceOptions> = {}): Promise<EditService> {
  seen = new Recorder()
  service = await EditService.open({
    workspaces: [{ root, name: 'app' }],
    workers: false,
    durability: 'fast',
    observer: seen,
    ...options,
  })
  return service
}

type Out = { ok: boolean; structured: Record<string, any> }
const call = (tool: Parameters<EditService['call']>[0], args: object, caller = A): Promise<Out> =>
  service.call(tool, args as Record<string, unknown>, caller) as Promise<Out>

beforeEach(async () => {
  root = await makeTempDir('patchloom-observer-')
  await writeFile(join(root, 'a.txt'), 'one\ntwo\n')
})
afterEach(async () => {
  await service?.close()
  await rm(root, { recursive: true, force: true })
})

describe('EditService request ids', () => {
  it('puts a request id in every outcome, success or refusal, unique per call', async () => {
    await open()
    const outs = [
      await call('read_file', { path: 'a.txt' }),
      await call('read_file', { path: 'nope.txt' }),
      await call('read_file', { path: 'a.txt', workspace: 'elsewhere' }),
    ]
    expect(outs.map((o) => o.ok)).toEqual([true, false, false])
    const ids = outs.map((o) => o.structured['request_id'])
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/)
    expect(new Set(ids).size).toBe(3)
    expect(seen.calls.map((c) => c.requestId)).toEqual(ids)
  })

  it("uses the caller's request id when it brings one, and says it when closing", async () => {
    await open()
    const out = await call('read_file', { path: 'a.txt' }, { ...A, requestId: 'harness-7' })
    expect(out.structured['request_id']).toBe('harness-7')
    await service.close()
    const late = await call('read_file', { path: 'a.txt' }, { ...A, requestId: 'harness-8' })
    expect(late.structured).toMatchObject({
      error: { code: 'SERVER_CLOSING' },
      request_id: 'harness-8',
    })
    expect(seen.calls.at(-1)).toMatchObject({
      outcome: 'SERVER_CLOSING',
      workspace: undefined,
      requestId: 'harness-8',
    })
  })
})

describe('EditService observer', () => {
  it('records each call with its tool, outcome code, workspace, agent and time', async () => {
    await open()
    const read = await call('read_file', { path: 'a.txt' })
    await call('edit_file', {
      path: 'a.txt',
      old_string: 'two\n',
      new_string: '2\n',
      expected_hash: read.structured['content_hash'],
    })
    await call('edit_file', {
      path: 'a.txt',
      old_string: 'one\n',
      new_string: '1\n',
      expected_hash: read.structured['content_hash'],
    })
    await call('read_file', { path: '../outside.txt' })
    expect(seen.calls.map((c) => [c.tool, c.outcome, c.workspace, c.agent])).toEqual([
      ['read_file', 'ok', 'app', 'agent-a'],
      ['edit_file', 'ok', 'app', 'agent-a'],
      ['edit_file', 'FILE_HASH_MISMATCH', 'app', 'agent-a'],
      ['read_file', 'PATH_OUTSIDE_ROOT', 'app', 'agent-a'],
    ])
    for (const c of seen.calls) expect(c.ms).toBeGreaterThanOrEqual(0)
    // Both edits waited for the server's file lock; reads take none.
    expect(seen.lockWaits).toHaveLength(2)
    // One commit, a batch of one transaction, in workspace app.
    expect(seen.batches).toEqual([
      ['app', expect.objectContaining({ transactions: 1, refused: 0, syncs: 0 })],
    ])
  })

  it('names the limit behind each SERVER_BUSY', async () => {
    await open({ queue: { perAgent: 1 } })
    const [first, second] = await Promise.all([
      call('read_file', { path: 'a.txt' }),
      call('read_file', { path: 'a.txt' }),
    ])
    expect(first?.ok).toBe(true)
    expect(second?.structured['error'].code).toBe('SERVER_BUSY')
    expect(seen.busies).toEqual(['agent'])
    await service.close()
    await open({ queue: { total: 1 } })
    await Promise.all([
      call('read_file', { path: 'a.txt' }),
      call('read_file', { path: 'a.txt' }, { agent: 'agent-b' }),
    ])
    expect(seen.busies).toEqual(['total'])
    expect(seen.calls.map((c) => c.outcome).sort()).toEqual(['SERVER_BUSY', 'ok'])
  })
})

describe('EditService snapshot and readiness', () => {
  it('counts the calls in progress by workspace, and the workspaces open', async () => {
    await open()
    const running = call('read_file', { path: 'a.txt' })
    const during = await service.snapshot()
    await running
    const after = await service.snapshot()
    expect(during.inProgress).toEqual(new Map([['app', 1]]))
    expect(after).toEqual({
      closing: false,
      recovered: true,
      workspacesOpen: 1,
      inProgress: new Map(),
      workers: undefined,
      languageServers: {
        starting: 0,
        ready: 0,
        broken: 0,
        restarts: { crash: 0, memory: 0 },
        poolsUnavailable: 0,
      },
    })
    expect(await service.readiness()).toEqual({ ready: true })
    await service.close()
    expect(await service.readiness()).toEqual({ ready: false, reason: 'draining' })
    expect((await service.snapshot()).workspacesOpen).toBe(0)
  })
})
