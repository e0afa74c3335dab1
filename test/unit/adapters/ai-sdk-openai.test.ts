// applyPatchExecute through @ai-sdk/openai's own apply_patch provider tool: generateText with the
// real Responses provider over a scripted fetch, which answers with apply_patch_call items and
// checks the exact apply_patch_call_output items the provider sends back in the next request.
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs, type ToolSet } from 'ai'
import { afterEach, describe, expect, it } from 'vitest'
import { applyPatchExecute, patchloomTools } from '../../../src/adapters/ai-sdk.js'
import type { Engine } from '../../../src/index.js'
import {
  hashOf,
  lastTransaction,
  message,
  scriptedFetch,
  workspace,
  type TestWorkspace,
} from './openai-fixture.js'

let ws: TestWorkspace | undefined
afterEach(async () => {
  await ws?.close()
  ws = undefined
})

const USER = { role: 'user', content: [{ type: 'input_text', text: 'Edit.' }] }

type Operation =
  | { type: 'create_file'; path: string; diff: string }
  | { type: 'update_file'; path: string; diff: string }
  | { type: 'delete_file'; path: string }

/**
 * The provider tool over `engine`. Here @ai-sdk/openai and ai resolve two copies of
 * @ai-sdk/provider-utils (4.0.66 and 4.0.67), whose Tool types tsc does not unify within a
 * ToolSet; at run time the tool is one plain object either way.
 */
function applyPatchTool(openai: ReturnType<typeof createOpenAI>, engine: Engine): ToolSet[string] {
  return openai.tools.applyPatch({
    execute: applyPatchExecute(engine),
  }) as unknown as ToolSet[string]
}

function call(id: string, operation: Operation): Record<string, unknown> {
  return { type: 'apply_patch_call', id: `apc_${id}`, call_id: id, status: 'completed', operation }
}

/**
 * One response with `calls`, then a final message; the next request must carry `outputs` (called
 * once the calls have run, so it can read the journal) after the calls' item references.
 */
async function turn(
  files: Record<string, string>,
  calls: Record<string, unknown>[],
  outputs: (w: TestWorkspace) => Promise<unknown[]>,
): Promise<TestWorkspace> {
  ws = await workspace(files)
  const w = ws
  const { fetch, requests, mismatches } = scriptedFetch([
    { expectInput: () => [USER], output: calls },
    {
      expectInput: async () => [
        USER,
        ...calls.map((c) => ({ type: 'item_reference', id: c['id'] })),
        ...(await outputs(w)),
      ],
      output: [message('done')],
    },
  ])
  const openai = createOpenAI({ apiKey: 'test', fetch })
  const result = await generateText({
    model: openai.responses('gpt-5.1'),
    tools: { apply_patch: applyPatchTool(openai, w.engine) },
    prompt: 'Edit.',
    stopWhen: stepCountIs(3),
  }).catch((e: unknown) => e)
  for (const m of mismatches) expect(m.received).toEqual(m.expected)
  expect((result as { text?: string }).text).toBe('done')
  expect(requests).toHaveLength(2)
  expect(requests[0]?.['tools']).toEqual([{ type: 'apply_patch' }])
  return w
}

function output(id: string, status: 'completed' | 'failed', text: string): unknown {
  return { type: 'apply_patch_call_output', call_id: id, status, output: text }
}

describe("@ai-sdk/openai's apply_patch tool with applyPatchExecute", () => {
  it('updates a file through the Codex matcher and sends the outcome back', async () => {
    const w = await turn(
      { 'a.txt': 'one\ntwo\n' },
      [call('c1', { type: 'update_file', path: 'a.txt', diff: ' one\n-two\n+TWO\n' })],
      async (w) => [
        output(
          'c1',
          'completed',
          `M a.txt (+1 -1)\ncontent_hash a.txt: ${hashOf('one\nTWO\n')}\ntransaction ${await lastTransaction(w.engine)}\n\n` +
            'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO',
        ),
      ],
    )
    expect(await w.read('a.txt')).toBe('one\nTWO\n')
  })

  it('creates and deletes files, each call its own transaction', async () => {
    const w = await turn(
      { 'old.txt': 'bye\n' },
      [
        call('c1', { type: 'create_file', path: 'src/new.txt', diff: '+hello\n+world\n' }),
        call('c2', { type: 'delete_file', path: 'old.txt' }),
      ],
      async (w) => {
        const [second, first] = await w.engine.transactions()
        const byPath = (rel: string) =>
          [first, second].find((t) => t?.files.some((f) => f.path === rel))?.id
        return [
          output(
            'c1',
            'completed',
            `A src/new.txt\ncontent_hash src/new.txt: ${hashOf('hello\nworld\n')}\ntransaction ${byPath('src/new.txt')}\n\n` +
              'diff --git a/src/new.txt b/src/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/src/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world',
          ),
          output(
            'c2',
            'completed',
            `D old.txt\ntransaction ${byPath('old.txt')}\n\n` +
              'diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye',
          ),
        ]
      },
    )
    expect(await w.read('src/new.txt')).toBe('hello\nworld\n')
    expect(await w.read('old.txt')).toBeNull()
    expect(await w.engine.transactions()).toHaveLength(2)
  })

  it("applies one response's calls in their order, a later one building on an earlier one", async () => {
    const w = await turn(
      { 'a.txt': 'one\ntwo\n' },
      [
        call('c1', { type: 'update_file', path: 'a.txt', diff: ' one\n-two\n+TWO\n' }),
        call('c2', { type: 'update_file', path: 'a.txt', diff: ' one\n-TWO\n+2\n' }),
      ],
      async (w) => {
        const [second, first] = await w.engine.transactions()
        const text = (after: string, id: string | undefined, from: string, to: string) =>
          `M a.txt (+1 -1)\ncontent_hash a.txt: ${hashOf(after)}\ntransaction ${id}\n\n` +
          `diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-${from}\n+${to}`
        return [
          output('c1', 'completed', text('one\nTWO\n', first?.id, 'two', 'TWO')),
          output('c2', 'completed', text('one\n2\n', second?.id, 'TWO', '2')),
        ]
      },
    )
    expect(await w.read('a.txt')).toBe('one\n2\n')
  })

  it('sends a hunk that does not match back as failed, and leaves the file untouched', async () => {
    const w = await turn(
      { 'a.txt': 'one\ntwo\n' },
      [call('c1', { type: 'update_file', path: 'a.txt', diff: ' one\n-three\n+3\n' })],
      async () => [
        output(
          'c1',
          'failed',
          'MATCH_NOT_FOUND: Could not find its lines for the hunk at patch line 3 in a.txt (first line "one").\n' +
            'hint: Copy the context exactly from the file; the nearest candidates are listed with their line numbers.\n' +
            'candidate at line 1 (50%): one\n' +
            'note: the diff was applied as the body of a Codex patch, in which its line 1 is patch line 3',
        ),
      ],
    )
    expect(await w.read('a.txt')).toBe('one\ntwo\n')
  })

  it('refuses a path outside the workspace', async () => {
    const w = await turn(
      {},
      [call('c1', { type: 'create_file', path: '../escape.txt', diff: '+x\n' })],
      async () => [
        output(
          'c1',
          'failed',
          'PATH_OUTSIDE_ROOT: ../escape.txt is outside the workspace root.\n' +
            'hint: Use paths relative to the workspace root that stay inside it.',
        ),
      ],
    )
    expect(await w.read('../escape.txt')).toBeNull()
  })

  it("shares the engine's memory with patchloomTools in one tool set", async () => {
    ws = await workspace({ 'a.txt': 'one\n' })
    const w = ws
    const { fetch, requests } = scriptedFetch([
      { output: [call('c1', { type: 'update_file', path: 'a.txt', diff: '-one\n+1\n' })] },
      {
        output: [
          {
            type: 'function_call',
            id: 'fc_1',
            call_id: 'c2',
            name: 'edit_file',
            arguments: JSON.stringify({ path: 'a.txt', old_string: '1', new_string: 'uno' }),
            status: 'completed',
          },
        ],
      },
      { output: [message('done')] },
    ])
    const openai = createOpenAI({ apiKey: 'test', fetch })
    const result = await generateText({
      model: openai.responses('gpt-5.1'),
      tools: {
        ...patchloomTools(w.engine, { only: ['read_file', 'edit_file'] }),
        apply_patch: applyPatchTool(openai, w.engine),
      },
      prompt: 'Edit.',
      stopWhen: stepCountIs(4),
    })
    expect(result.text).toBe('done')
    // The file the patch wrote counts as read: edit_file may change it without a read_file.
    expect(await w.read('a.txt')).toBe('uno\n')
    const sent = (requests[2]?.['input'] as Record<string, unknown>[]).at(-1)
    expect(sent).toMatchObject({
      type: 'function_call_output',
      call_id: 'c2',
      output: expect.stringMatching(/^M a\.txt \(\+1 -1\)\n/),
    })
    expect(
      (requests[0]?.['tools'] as { type: string; name?: string }[]).map((t) => t.name ?? t.type),
    ).toEqual(['read_file', 'edit_file', 'apply_patch'])
  })
})
