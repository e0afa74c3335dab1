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
  hashOf,
  lastTransaction,
  message,
  scriptedFetch,
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

const TWO_FUNCTIONS = 'function a() {\n  return 1\n}\n\nfunction b() {\n  return 1\n}\n'

function completed(id: string, output: string): ApplyPatchCallOutput {
  return { type: 'apply_patch_call_output', call_id: id, status: 'completed', output }
}
function failed(id: string, output: string): ApplyPatchCallOutput {
  return { type: 'apply_patch_call_output', call_id: id, status: 'failed', output }
}

describe('the Responses API loop with applyPatchCalls', () => {
  it('creates a file from its + lines, each a whole line', async () => {
    const w = await turn(
      {},
      [
        call('c1', {
          type: 'create_file',
          path: 'src/new.ts',
          diff: '+export const a = 1\n+\n+export const b = 2',
        }),
      ],
      async (w) => [
        completed(
          'c1',
          [
            'A src/new.ts',
            `content_hash src/new.ts: ${hashOf('export const a = 1\n\nexport const b = 2\n')}`,
            `transaction ${await lastTransaction(w.engine)}`,
            '',
            'diff --git a/src/new.ts b/src/new.ts',
            'new file mode 100644',
            '--- /dev/null',
            '+++ b/src/new.ts',
            '@@ -0,0 +1,3 @@',
            '+export const a = 1',
            '+',
            '+export const b = 2',
          ].join('\n'),
        ),
      ],
    )
    expect(await w.read('src/new.ts')).toBe('export const a = 1\n\nexport const b = 2\n')
  })

  it('updates a file without a hint: the context places the hunk', async () => {
    const w = await turn(
      { 'f.ts': TWO_FUNCTIONS },
      [
        call('c1', {
          type: 'update_file',
          path: 'f.ts',
          diff: ' function a() {\n-  return 1\n+  return 10\n }\n',
        }),
      ],
      async (w) => [
        completed(
          'c1',
          [
            'M f.ts (+1 -1)',
            `content_hash f.ts: ${hashOf(TWO_FUNCTIONS.replace('return 1', 'return 10'))}`,
            `transaction ${await lastTransaction(w.engine)}`,
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
      ],
    )
    expect(await w.read('f.ts')).toBe(TWO_FUNCTIONS.replace('return 1', 'return 10'))
  })

  it('updates a file with an @@ hint: the hint picks the second function', async () => {
    const after = 'function a() {\n  return 1\n}\n\nfunction b() {\n  return 2\n}\n'
    const w = await turn(
      { 'f.ts': TWO_FUNCTIONS },
      [
        call('c1', {
          type: 'update_file',
          path: 'f.ts',
          diff: '@@ function b() {\n-  return 1\n+  return 2\n }\n',
        }),
      ],
      async (w) => [
        completed(
          'c1',
          [
            'M f.ts (+1 -1)',
            `content_hash f.ts: ${hashOf(after)}`,
            `transaction ${await lastTransaction(w.engine)}`,
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
      ],
    )
    expect(await w.read('f.ts')).toBe(after)
  })

  it('deletes a file', async () => {
    const w = await turn(
      { 'old.txt': 'bye\n', 'keep.txt': 'stay\n' },
      [call('c1', { type: 'delete_file', path: 'old.txt' })],
      async (w) => [
        completed(
          'c1',
          [
            'D old.txt',
            `transaction ${await lastTransaction(w.engine)}`,
            '',
            'diff --git a/old.txt b/old.txt',
            'deleted file mode 100644',
            '--- a/old.txt',
            '+++ /dev/null',
            '@@ -1 +0,0 @@',
            '-bye',
          ].join('\n'),
        ),
      ],
    )
    expect(await w.read('old.txt')).toBeNull()
    expect(await w.read('keep.txt')).toBe('stay\n')
  })

  it('moves a file as a create_file and a delete_file in one response, each its own transaction', async () => {
    let txs: string[] = []
    const w = await turn(
      { 'a/old.md': '# Title\nbody\n' },
      [
        call('c1', { type: 'create_file', path: 'b/new.md', diff: '+# Title\n+body\n' }),
        call('c2', { type: 'delete_file', path: 'a/old.md' }),
      ],
      async (w) => {
        txs = (await w.engine.transactions()).map((t) => t.id)
        return [
          completed(
            'c1',
            [
              'A b/new.md',
              `content_hash b/new.md: ${hashOf('# Title\nbody\n')}`,
              `transaction ${txs[1]}`,
              '',
              'diff --git a/b/new.md b/b/new.md',
              'new file mode 100644',
              '--- /dev/null',
              '+++ b/b/new.md',
              '@@ -0,0 +1,2 @@',
              '+# Title',
              '+body',
            ].join('\n'),
          ),
          completed(
            'c2',
            [
              'D a/old.md',
              `transaction ${txs[0]}`,
              '',
              'diff --git a/a/old.md b/a/old.md',
              'deleted file mode 100644',
              '--- a/a/old.md',
              '+++ /dev/null',
              '@@ -1,2 +0,0 @@',
              '-# Title',
              '-body',
            ].join('\n'),
          ),
        ]
      },
    )
    expect(txs).toHaveLength(2)
    expect(await w.read('b/new.md')).toBe('# Title\nbody\n')
    expect(await w.read('a/old.md')).toBeNull()
  })

  it('refuses an ambiguous update with the candidates, and writes nothing', async () => {
    const w = await turn(
      { 'f.ts': TWO_FUNCTIONS },
      [call('c1', { type: 'update_file', path: 'f.ts', diff: '-  return 1\n+  return 3\n }\n' })],
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
      ],
    )
    expect(await w.read('f.ts')).toBe(TWO_FUNCTIONS)
    expect(await w.engine.transactions()).toEqual([])
  })

  it('fails a hunk that does not match, and leaves the file byte for byte', async () => {
    const before = 'alpha\r\nbeta\r\ngamma'
    const w = await turn(
      { 'g.txt': before },
      [call('c1', { type: 'update_file', path: 'g.txt', diff: ' alpha\n-delta\n+DELTA\n' })],
      async () => [
        failed(
          'c1',
          [
            'MATCH_NOT_FOUND: Could not find its lines for the hunk at patch line 3 in g.txt (first line "alpha").',
            'hint: Copy the context exactly from the file; the nearest candidates are listed with their line numbers.',
            'candidate at line 1 (64%): alpha',
            'note: the diff was applied as the body of a Codex patch, in which its line 1 is patch line 3',
          ].join('\n'),
        ),
      ],
    )
    expect(await w.read('g.txt')).toBe(before)
  })

  it("keeps a CRLF file's endings and a file's missing final newline", async () => {
    const crlf = 'one\r\ntwo\r\nthree\r\n'
    const bare = 'first\nsecond\nlast'
    const w = await turn(
      { 'crlf.txt': crlf, 'bare.txt': bare },
      [
        call('c1', { type: 'update_file', path: 'crlf.txt', diff: ' one\n-two\n+TWO\n three\n' }),
        // Its hunk reaches the last line (as context): the file still ends without a newline.
        call('c2', {
          type: 'update_file',
          path: 'bare.txt',
          diff: '-first\n+FIRST\n second\n last\n',
        }),
      ],
      async (w) => {
        const [t2, t1] = (await w.engine.transactions()).map((t) => t.id)
        return [
          completed(
            'c1',
            [
              'M crlf.txt (+1 -1)',
              `content_hash crlf.txt: ${hashOf('one\r\nTWO\r\nthree\r\n')}`,
              `transaction ${t1}`,
              '',
              'diff --git a/crlf.txt b/crlf.txt',
              '--- a/crlf.txt',
              '+++ b/crlf.txt',
              '@@ -1,3 +1,3 @@',
              ' one\r',
              '-two\r',
              '+TWO\r',
              ' three\r',
            ].join('\n'),
          ),
          completed(
            'c2',
            [
              'M bare.txt (+1 -1)',
              `content_hash bare.txt: ${hashOf('FIRST\nsecond\nlast')}`,
              `transaction ${t2}`,
              '',
              'diff --git a/bare.txt b/bare.txt',
              '--- a/bare.txt',
              '+++ b/bare.txt',
              '@@ -1,3 +1,3 @@',
              '-first',
              '+FIRST',
              ' second',
              ' last',
              '\\ No newline at end of file',
            ].join('\n'),
          ),
        ]
      },
    )
    expect(await w.read('crlf.txt')).toBe('one\r\nTWO\r\nthree\r\n')
    expect(await w.read('bare.txt')).toBe('FIRST\nsecond\nlast')
  })

  it('refuses a path outside the workspace', async () => {
    const w = await turn(
      { 'in.txt': 'x\n' },
      [
        call('c1', { type: 'create_file', path: '../outside.txt', diff: '+x\n' }),
        call('c2', { type: 'update_file', path: '/etc/hostname', diff: '-x\n+y\n' }),
      ],
      async () => [
        failed(
          'c1',
          'PATH_OUTSIDE_ROOT: ../outside.txt is outside the workspace root.\nhint: Use paths relative to the workspace root that stay inside it.',
        ),
        failed(
          'c2',
          'PATH_OUTSIDE_ROOT: /etc/hostname is outside the workspace root.\nhint: Use paths relative to the workspace root that stay inside it.',
        ),
      ],
    )
    expect(await w.engine.transactions()).toEqual([])
  })

  it('refuses a diff that carries an envelope or another file operation, writing nothing', async () => {
    const w = await turn(
      { 'a.txt': 'a\n' },
      [
        call('c1', {
          type: 'update_file',
          path: 'a.txt',
          diff: '*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n*** End Patch\n',
        }),
        call('c2', {
          type: 'update_file',
          path: 'a.txt',
          diff: '-a\n+b\n*** Add File: evil.sh\n+rm -rf ~\n',
        }),
        call('c3', { type: 'delete_file', path: 'a.txt\n*** Delete File: b.txt' }),
      ],
      async () => [
        failed(
          'c1',
          [
            `PARSE_BAD_HEADER: Line 1 of the update_file diff of a.txt is "*** Begin Patch": the diff carries a patch envelope of its own. Send only the diff (its @@, ' ', '-' and '+' lines); the envelope and the file header come from the operation.`,
            'hint: Send the diff of this one file only, with no *** line but *** End of File; make each other file change a call of its own.',
          ].join('\n'),
        ),
        failed(
          'c2',
          [
            `PARSE_BAD_HEADER: Line 3 of the update_file diff of a.txt is "*** Add File: evil.sh", a *** directive: it would start another file operation. A V4A diff holds @@ lines, ' ', '-' and '+' lines and *** End of File only.`,
            'hint: Send the diff of this one file only, with no *** line but *** End of File; make each other file change a call of its own.',
          ].join('\n'),
        ),
        failed(
          'c3',
          [
            'PATH_INVALID: The path "a.txt\\n*** Delete File: b.txt" holds a line break; a path is one line.',
            'hint: Use a relative path to a file inside the workspace, with names the filesystem can hold.',
          ].join('\n'),
        ),
      ],
    )
    expect(await w.read('a.txt')).toBe('a\n')
    expect(await w.read('evil.sh')).toBeNull()
    expect(await w.engine.transactions()).toEqual([])
  })
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
