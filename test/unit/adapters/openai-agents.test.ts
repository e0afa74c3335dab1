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
import { hashOf, lastTransaction, workspace, type TestWorkspace } from './openai-fixture.js'

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

function completed(id: string, output: string): Record<string, unknown> {
  return { type: 'apply_patch_call_output', callId: id, status: 'completed', output }
}
function failed(id: string, output: string): Record<string, unknown> {
  return { type: 'apply_patch_call_output', callId: id, status: 'failed', output }
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

const TWO_FUNCTIONS = 'function a() {\n  return 1\n}\n\nfunction b() {\n  return 1\n}\n'

describe('the Agents SDK Runner with createEditor', () => {
  it('creates, updates (with and without an @@ hint) and deletes, each its own transaction', async () => {
    const after = 'function a() {\n  return 10\n}\n\nfunction b() {\n  return 2\n}\n'
    const w = await agentTurn(
      { 'f.ts': TWO_FUNCTIONS, 'old.txt': 'bye\n' },
      [
        call('c1', { type: 'create_file', path: 'n.txt', diff: '+new\n' }),
        call('c2', {
          type: 'update_file',
          path: 'f.ts',
          diff: ' function a() {\n-  return 1\n+  return 10\n',
        }),
        call('c3', {
          type: 'update_file',
          path: 'f.ts',
          diff: '@@ function b() {\n-  return 1\n+  return 2\n',
        }),
        call('c4', { type: 'delete_file', path: 'old.txt' }),
      ],
      async (w) => {
        const [t4, t3, t2, t1] = (await w.engine.transactions()).map((t) => t.id)
        return [
          completed(
            'c1',
            [
              'A n.txt',
              `content_hash n.txt: ${hashOf('new\n')}`,
              `transaction ${t1}`,
              '',
              'diff --git a/n.txt b/n.txt',
              'new file mode 100644',
              '--- /dev/null',
              '+++ b/n.txt',
              '@@ -0,0 +1 @@',
              '+new',
            ].join('\n'),
          ),
          completed(
            'c2',
            [
              'M f.ts (+1 -1)',
              `content_hash f.ts: ${hashOf(TWO_FUNCTIONS.replace('return 1', 'return 10'))}`,
              `transaction ${t2}`,
              '',
              'diff --git a/f.ts b/f.ts',
              '--- a/f.ts',
              '+++ b/f.ts',
              '@@ -1,5 +1,5 @@',
              ' function a() {',
              '-  return 1',
              '+  return 10',
              ' }',
              ' ',
              ' function b() {',
            ].join('\n'),
          ),
          completed(
            'c3',
            [
              'M f.ts (+1 -1)',
              `content_hash f.ts: ${hashOf(after)}`,
              `transaction ${t3}`,
              '',
              'diff --git a/f.ts b/f.ts',
              '--- a/f.ts',
              '+++ b/f.ts',
              '@@ -3,5 +3,5 @@',
              ' }',
              ' ',
              ' function b() {',
              '-  return 1',
              '+  return 2',
              ' }',
            ].join('\n'),
          ),
          completed(
            'c4',
            [
              'D old.txt',
              `transaction ${t4}`,
              '',
              'diff --git a/old.txt b/old.txt',
              'deleted file mode 100644',
              '--- a/old.txt',
              '+++ /dev/null',
              '@@ -1 +0,0 @@',
              '-bye',
            ].join('\n'),
          ),
        ]
      },
    )
    expect(await w.read('n.txt')).toBe('new\n')
    expect(await w.read('f.ts')).toBe(after)
    expect(await w.read('old.txt')).toBeNull()
    expect(await w.engine.transactions()).toHaveLength(4)
  })

  it('moves a file as a create_file and a delete_file', async () => {
    const w = await agentTurn(
      { 'a/old.md': '# Title\n' },
      [
        call('c1', { type: 'create_file', path: 'b/new.md', diff: '+# Title' }),
        call('c2', { type: 'delete_file', path: 'a/old.md' }),
      ],
      async (w) => {
        const [t2, t1] = (await w.engine.transactions()).map((t) => t.id)
        return [
          completed(
            'c1',
            [
              'A b/new.md',
              `content_hash b/new.md: ${hashOf('# Title\n')}`,
              `transaction ${t1}`,
              '',
              'diff --git a/b/new.md b/b/new.md',
              'new file mode 100644',
              '--- /dev/null',
              '+++ b/b/new.md',
              '@@ -0,0 +1 @@',
              '+# Title',
            ].join('\n'),
          ),
          completed(
            'c2',
            [
              'D a/old.md',
              `transaction ${t2}`,
              '',
              'diff --git a/a/old.md b/a/old.md',
              'deleted file mode 100644',
              '--- a/a/old.md',
              '+++ /dev/null',
              '@@ -1 +0,0 @@',
              '-# Title',
            ].join('\n'),
          ),
        ]
      },
    )
    expect([await w.read('b/new.md'), await w.read('a/old.md')]).toEqual(['# Title\n', null])
  })

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

  it('fails an ambiguous update (with candidates), a hunk that does not match, a path outside and an injected operation, writing nothing', async () => {
    const crlf = 'x\r\ny\r\nz'
    const w = await agentTurn(
      { 'f.ts': TWO_FUNCTIONS, 'g.txt': crlf },
      [
        call('c1', { type: 'update_file', path: 'f.ts', diff: '-  return 1\n+  return 3\n' }),
        call('c2', { type: 'update_file', path: 'g.txt', diff: ' x\n-q\n+Q\n' }),
        call('c3', { type: 'delete_file', path: '../../etc/passwd' }),
        call('c4', {
          type: 'update_file',
          path: 'g.txt',
          diff: ' x\n-y\n+Y\n*** Delete File: f.ts\n',
        }),
      ],
      async () => [
        failed(
          'c1',
          [
            'MATCH_AMBIGUOUS: The hunk at patch line 3 matches in f.ts at lines 2, 6; add context to make it unique.',
            'hint: Add surrounding lines (or an @@ hint) until it is unique, or set replace_all / expected_matches.',
            'candidate at line 2 (100%): return 1',
            'candidate at line 6 (100%): return 1',
            'note: the diff was applied as the body of a Codex patch, in which its line 1 is patch line 3',
          ].join('\n'),
        ),
        failed(
          'c2',
          [
            'MATCH_NOT_FOUND: Could not find its lines for the hunk at patch line 3 in g.txt (first line "x").',
            'hint: Copy the context exactly from the file; the nearest candidates are listed with their line numbers.',
            'candidate at line 1 (50%): x',
            'note: the diff was applied as the body of a Codex patch, in which its line 1 is patch line 3',
          ].join('\n'),
        ),
        failed(
          'c3',
          'PATH_OUTSIDE_ROOT: ../../etc/passwd is outside the workspace root.\nhint: Use paths relative to the workspace root that stay inside it.',
        ),
        failed(
          'c4',
          [
            `PARSE_BAD_HEADER: Line 4 of the update_file diff of g.txt is "*** Delete File: f.ts", a *** directive: it would start another file operation. A V4A diff holds @@ lines, ' ', '-' and '+' lines and *** End of File only.`,
            'hint: Send the diff of this one file only, with no *** line but *** End of File; make each other file change a call of its own.',
          ].join('\n'),
        ),
      ],
    )
    expect([await w.read('f.ts'), await w.read('g.txt')]).toEqual([TWO_FUNCTIONS, crlf])
    expect(await w.engine.transactions()).toEqual([])
  })

  it("keeps a CRLF file's endings and a missing final newline, also where the diff reaches it", async () => {
    const w = await agentTurn(
      { 'w.txt': 'a\r\nb\r\nc\r\nd\r\ne\r\nf', 'v.txt': 'a\r\nb\r\nc' },
      [
        call('c1', { type: 'update_file', path: 'w.txt', diff: ' a\n-b\n+B\n c\n' }),
        // A hunk that reaches the last line keeps the missing newline, as agents-core's applier does.
        call('c2', {
          type: 'update_file',
          path: 'v.txt',
          diff: ' a\n-b\n+B\n c\n*** End of File\n',
        }),
      ],
      async (w) => {
        const [t2, t1] = (await w.engine.transactions()).map((t) => t.id)
        return [
          completed(
            'c1',
            [
              'M w.txt (+1 -1)',
              `content_hash w.txt: ${hashOf('a\r\nB\r\nc\r\nd\r\ne\r\nf')}`,
              `transaction ${t1}`,
              '',
              'diff --git a/w.txt b/w.txt',
              '--- a/w.txt',
              '+++ b/w.txt',
              '@@ -1,5 +1,5 @@',
              ' a\r',
              '-b\r',
              '+B\r',
              ' c\r',
              ' d\r',
              ' e\r',
            ].join('\n'),
          ),
          completed(
            'c2',
            [
              'M v.txt (+1 -1)',
              `content_hash v.txt: ${hashOf('a\r\nB\r\nc')}`,
              `transaction ${t2}`,
              '',
              'diff --git a/v.txt b/v.txt',
              '--- a/v.txt',
              '+++ b/v.txt',
              '@@ -1,3 +1,3 @@',
              ' a\r',
              '-b\r',
              '+B\r',
              ' c',
              '\\ No newline at end of file',
            ].join('\n'),
          ),
        ]
      },
    )
    expect(await w.read('w.txt')).toBe('a\r\nB\r\nc\r\nd\r\ne\r\nf')
    expect(await w.read('v.txt')).toBe('a\r\nB\r\nc')
  })
})
