// patchloom/openai through the Responses API's own client: `new OpenAI({ fetch })` with a
// scripted fetch for the model. The harness loop below is what a user writes: create a
// response, apply its apply_patch_call items with applyPatchCalls, send the outputs back. The
// scripted model checks the exact outputs in the next request's input; the test checks disk.
import OpenAI from 'openai'
import type { ResponseApplyPatchToolCall } from 'openai/resources/responses/responses'
import { afterEach, describe, expect, it } from 'vitest'
import { applyPatchCalls, type ApplyPatchCallOutput } from '../../../src/adapters/openai.js'
import type { Engine } from '../../../src/index.js'
import {
  CASES,
  caseOutputs,
  expectedState,
  hashOf,
  lastTransaction,
  message,
  scriptedFetch,
  stateAfter,
  workspace,
  type ScriptStep,
  type TestWorkspace,
} from './openai-fixture.js'

type Operation = ResponseApplyPatchToolCall['operation']

function call(id: string, operation: Operation): ResponseApplyPatchToolCall {
  return { type: 'apply_patch_call', id: `apc_${id}`, call_id: id, status: 'completed', operation }
}

/** The harness: apply each response's apply_patch calls and send the outputs back. */
async function harness(
  client: OpenAI,
  engine: Engine,
  options: { atomic?: boolean } = {},
): Promise<string> {
  const tools = [{ type: 'apply_patch' as const }]
  let response = await client.responses.create({ model: 'gpt-5.1', input: 'Edit.', tools })
  for (let turn = 0; turn < 5; turn++) {
    const calls = response.output.filter((item) => item.type === 'apply_patch_call')
    if (calls.length === 0) return response.output_text
    const outputs = await applyPatchCalls(engine, calls, options)
    response = await client.responses.create({
      model: 'gpt-5.1',
      previous_response_id: response.id,
      input: outputs,
      tools,
    })
  }
  throw new Error('the loop did not end')
}

let ws: TestWorkspace | undefined
afterEach(async () => {
  await ws?.close()
  ws = undefined
})

/**
 * One response with `calls`, then a final message; `expected` gives the outputs the model must
 * receive (called once the calls have run, so it can read the journal).
 */
async function turn(
  files: Record<string, string>,
  calls: ResponseApplyPatchToolCall[],
  expected: (w: TestWorkspace) => Promise<ApplyPatchCallOutput[]>,
  options: { atomic?: boolean } = {},
): Promise<TestWorkspace> {
  ws = await workspace(files)
  const w = ws
  const steps: ScriptStep[] = [
    { expectInput: () => 'Edit.', output: calls },
    { expectInput: () => expected(w), output: [message('done')] },
  ]
  const { fetch, requests, mismatches } = scriptedFetch(steps)
  const client = new OpenAI({ apiKey: 'test', fetch, maxRetries: 0 })
  const ended = await harness(client, w.engine, options).catch((e: unknown) => e)
  for (const m of mismatches) expect(m.received).toEqual(m.expected)
  expect(ended).toBe('done')
  expect(requests).toHaveLength(2)
  return w
}

function output(id: string, status: 'completed' | 'failed', output: string): ApplyPatchCallOutput {
  return { type: 'apply_patch_call_output', call_id: id, status, output }
}
const completed = (id: string, text: string) => output(id, 'completed', text)
const failed = (id: string, text: string) => output(id, 'failed', text)

describe('the Responses API loop with applyPatchCalls', () => {
  for (const c of Object.values(CASES)) {
    it(c.title, async () => {
      const w = await turn(
        c.files,
        c.calls.map((k) => call(k.id, k.operation)),
        (w) => caseOutputs(w.engine, c.calls, output),
      )
      expect(await stateAfter(w, c)).toEqual(expectedState(c))
    })
  }
})

describe('the Responses API loop with atomic applyPatchCalls', () => {
  it('keeps missing final newlines in one transaction, where the diffs reach the last lines', async () => {
    const w = await turn(
      { 'a.txt': 'a\nb', 'z.txt': 'y\r\nz' },
      [
        call('c1', { type: 'update_file', path: 'a.txt', diff: ' a\n-b\n+B\n*** End of File\n' }),
        call('c2', { type: 'update_file', path: 'z.txt', diff: ' z\n+after\n' }),
      ],
      async (w) => {
        const tx = await lastTransaction(w.engine)
        const shared = `transaction ${tx} (one transaction for the 2 calls of this response: c1, c2)`
        return [
          completed(
            'c1',
            [
              'M a.txt (+1 -1)',
              `content_hash a.txt: ${hashOf('a\nB')}`,
              shared,
              '',
              'diff --git a/a.txt b/a.txt',
              '--- a/a.txt',
              '+++ b/a.txt',
              '@@ -1,2 +1,2 @@',
              ' a',
              '-b',
              '\\ No newline at end of file',
              '+B',
              '\\ No newline at end of file',
            ].join('\n'),
          ),
          completed(
            'c2',
            [
              'M z.txt (+2 -1)',
              `content_hash z.txt: ${hashOf('y\r\nz\r\nafter')}`,
              shared,
              '',
              'diff --git a/z.txt b/z.txt',
              '--- a/z.txt',
              '+++ b/z.txt',
              '@@ -1,2 +1,3 @@',
              ' y\r',
              '-z',
              '\\ No newline at end of file',
              '+z\r',
              '+after',
              '\\ No newline at end of file',
            ].join('\n'),
          ),
        ]
      },
      { atomic: true },
    )
    expect([await w.read('a.txt'), await w.read('z.txt')]).toEqual(['a\nB', 'y\r\nz\r\nafter'])
  })

  it('lands every call of a response in one transaction', async () => {
    const w = await turn(
      { 'a.txt': 'a\n', 'gone.txt': 'g\n' },
      [
        call('c1', { type: 'update_file', path: 'a.txt', diff: '-a\n+A\n' }),
        call('c2', { type: 'create_file', path: 'n.txt', diff: '+n' }),
        call('c3', { type: 'delete_file', path: 'gone.txt' }),
      ],
      async (w) => {
        const tx = await lastTransaction(w.engine)
        const shared = `transaction ${tx} (one transaction for the 3 calls of this response: c1, c2, c3)`
        return [
          completed(
            'c1',
            [
              'M a.txt (+1 -1)',
              `content_hash a.txt: ${hashOf('A\n')}`,
              shared,
              '',
              'diff --git a/a.txt b/a.txt',
              '--- a/a.txt',
              '+++ b/a.txt',
              '@@ -1 +1 @@',
              '-a',
              '+A',
            ].join('\n'),
          ),
          completed(
            'c2',
            [
              'A n.txt',
              `content_hash n.txt: ${hashOf('n\n')}`,
              shared,
              '',
              'diff --git a/n.txt b/n.txt',
              'new file mode 100644',
              '--- /dev/null',
              '+++ b/n.txt',
              '@@ -0,0 +1 @@',
              '+n',
            ].join('\n'),
          ),
          completed(
            'c3',
            [
              'D gone.txt',
              shared,
              '',
              'diff --git a/gone.txt b/gone.txt',
              'deleted file mode 100644',
              '--- a/gone.txt',
              '+++ /dev/null',
              '@@ -1 +0,0 @@',
              '-g',
            ].join('\n'),
          ),
        ]
      },
      { atomic: true },
    )
    const txs = await w.engine.transactions()
    expect(txs).toHaveLength(1)
    expect(txs[0]?.files.map((f) => [f.path, f.op])).toEqual([
      ['a.txt', 'update'],
      ['n.txt', 'add'],
      ['gone.txt', 'delete'],
    ])
    expect([await w.read('a.txt'), await w.read('n.txt'), await w.read('gone.txt')]).toEqual([
      'A\n',
      'n\n',
      null,
    ])
    // One undo reverts the whole response.
    await w.engine.undo(txs[0]?.id)
    expect([await w.read('a.txt'), await w.read('n.txt'), await w.read('gone.txt')]).toEqual([
      'a\n',
      null,
      'g\n',
    ])
  })

  it('lands none when one call fails: the culprit has the error, the other says why not', async () => {
    const w = await turn(
      { 'a.txt': 'a\n', 'b.txt': 'b\n' },
      [
        call('c1', { type: 'update_file', path: 'a.txt', diff: '-a\n+A\n' }),
        call('c2', { type: 'update_file', path: 'b.txt', diff: '-x\n+X\n' }),
      ],
      async () => [
        failed(
          'c1',
          'not applied: call c2 failed, and the calls of this response are applied together or not at all (atomic); nothing was written.',
        ),
        failed(
          'c2',
          [
            'MATCH_NOT_FOUND: Could not find its lines for the hunk at patch line 6 in b.txt (first line "x").',
            'hint: Copy the context exactly from the file; the nearest candidates are listed with their line numbers.',
            'note: the diff was applied as the body of a Codex patch, in which its line 1 is patch line 6',
          ].join('\n'),
        ),
      ],
      { atomic: true },
    )
    expect([await w.read('a.txt'), await w.read('b.txt')]).toEqual(['a\n', 'b\n'])
    expect(await w.engine.transactions()).toEqual([])
  })
})
