// patchloom/openai's createEditor through the Agents SDK's own Runner: an Agent with
// applyPatchTool({ editor: createEditor(engine) }) and a scripted Model that emits
// apply_patch_call items and checks the apply_patch_call_output items the Runner sends back on
// the next turn. The test checks the files on disk and the journal.
import {
  Agent,
  applyPatchTool,
  Runner,
  Usage,
  type AgentInputItem,
  type AgentOutputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from '@openai/agents'
import { isDeepStrictEqual } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { createEditor } from '../../../src/adapters/openai.js'
import {
  CASES,
  caseOutputs,
  expectedState,
  hashOf,
  lastTransaction,
  oneTurn,
  stateAfter,
  workspace,
  type PatchCase,
  type TestWorkspace,
} from './openai-fixture.js'

type Operation = Extract<AgentOutputItem, { type: 'apply_patch_call' }>['operation']

interface Turn {
  /** The apply_patch_call_output items this turn must receive (called when it arrives). */
  readonly expect?: () => Promise<unknown[]>
  readonly output: AgentOutputItem[]
}

/** A Model that plays `turns` and records each request whose outputs were not the expected. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = []
  readonly mismatches: { expected: unknown; received: unknown }[] = []
  constructor(private readonly turns: readonly Turn[]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request)
    const turn = this.turns[this.requests.length - 1]
    if (turn === undefined) throw new Error(`unscripted turn ${this.requests.length}`)
    if (turn.expect !== undefined) {
      const expected = await turn.expect()
      const received = outputsOf(request.input)
      if (!isDeepStrictEqual(received, expected)) this.mismatches.push({ expected, received })
    }
    return { usage: new Usage(), output: turn.output, responseId: `resp_${this.requests.length}` }
  }

  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted model does not stream')
  }
}

/** The apply_patch_call_output items of a request's input (the runs here have one turn of calls). */
function outputsOf(input: string | AgentInputItem[]): unknown[] {
  if (typeof input === 'string') return []
  return input.filter((item) => item.type === 'apply_patch_call_output')
}

function call(id: string, operation: Operation): AgentOutputItem {
  return { type: 'apply_patch_call', callId: id, status: 'completed', operation }
}

function done(): AgentOutputItem {
  return {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'done' }],
  }
}

function output(
  id: string,
  status: 'completed' | 'failed',
  output: string,
): Record<string, unknown> {
  return { type: 'apply_patch_call_output', callId: id, status, output }
}

let ws: TestWorkspace | undefined
afterEach(async () => {
  await ws?.close()
  ws = undefined
})

/** Runs an agent whose model emits `calls` in one turn and expects `expected` back. */
async function agentTurn(
  files: Record<string, string>,
  calls: AgentOutputItem[],
  expected: (w: TestWorkspace) => Promise<unknown[]>,
): Promise<TestWorkspace> {
  ws = await workspace(files)
  const w = ws
  const model = new ScriptedModel([
    { output: calls },
    { expect: () => expected(w), output: [done()] },
  ])
  const agent = new Agent({
    name: 'editor',
    instructions: 'Edit the files.',
    model,
    tools: [applyPatchTool({ editor: createEditor(w.engine) })],
  })
  const result = await new Runner({ tracingDisabled: true }).run(agent, 'Edit.', { maxTurns: 4 })
  for (const m of model.mismatches) expect(m.received).toEqual(m.expected)
  expect(model.mismatches).toEqual([])
  expect(result.finalOutput).toBe('done')
  expect(model.requests).toHaveLength(2)
  return w
}

/** Runs a case in one turn: its calls, the exact outputs sent back, the files and the journal after. */
async function runCase(c: PatchCase): Promise<void> {
  const w = await agentTurn(
    c.files,
    c.calls.map((k) => call(k.id, k.operation)),
    (w) => caseOutputs(w.engine, c.calls, output),
  )
  expect(await stateAfter(w, c)).toEqual(expectedState(c))
}

describe('the Agents SDK Runner with createEditor', () => {
  it('creates, updates (with and without an @@ hint) and deletes, each its own transaction', () =>
    runCase(oneTurn(CASES.create, CASES.update, CASES.hint, CASES.delete)))

  it('moves a file as a create_file and a delete_file', () => runCase(CASES.move))

  it('moves a file with update_file and moveTo, as the SDK sandbox tool sends it', async () => {
    ws = await workspace({ 'src/a.ts': 'export const a = 1\n' })
    const editor = createEditor(ws.engine)
    const out = await editor.updateFile({
      type: 'update_file',
      path: 'src/a.ts',
      diff: '-export const a = 1\n+export const a = 2\n',
      moveTo: 'lib/a.ts',
    })
    expect(out).toEqual({
      status: 'completed',
      output: [
        'R src/a.ts -> lib/a.ts (+1 -1)',
        `content_hash lib/a.ts: ${hashOf('export const a = 2\n')}`,
        `transaction ${await lastTransaction(ws.engine)}`,
        '',
        'diff --git a/src/a.ts b/lib/a.ts',
        'rename from src/a.ts',
        'rename to lib/a.ts',
        '--- a/src/a.ts',
        '+++ b/lib/a.ts',
        '@@ -1 +1 @@',
        '-export const a = 1',
        '+export const a = 2',
      ].join('\n'),
    })
    expect([await ws.read('src/a.ts'), await ws.read('lib/a.ts')]).toEqual([
      null,
      'export const a = 2\n',
    ])
  })

  it('fails an ambiguous update (with candidates), a hunk that does not match, a path outside and an injected operation, writing nothing', () =>
    runCase(oneTurn(CASES.ambiguous, CASES.notFound, CASES.outside, CASES.envelope)))

  it("keeps a CRLF file's endings and a missing final newline, also where the diff reaches it", () =>
    runCase(CASES.endings))
})
