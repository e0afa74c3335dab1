// patchloom/ai-sdk through the AI SDK's own loop: generateText (and streamText) with ai/test's
// MockLanguageModelV3 scripted to call the tools over several steps. Each test checks the files
// on disk and the exact tool-result parts the SDK sends back to the model in the next step.
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Tool, ToolSet } from 'ai'
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest'
import {
  engineWithReport,
  introducedReport,
  typeError,
} from '../../helpers/scripted-diagnostics.js'
import { patchloomTools, type ToolInput, type ToolOutput } from '../../../src/adapters/ai-sdk.js'
import type { Engine } from '../../../src/index.js'
import { TOOLS } from '../../../src/server/tools.js'
import { toolJson } from '../../../src/server/tool-json.js'
import { errorResult, loop, streamLoop, textResult, toolMessage } from './ai-sdk-fixture.js'
import { hashOf, workspace, type TestWorkspace } from './openai-fixture.js'

let ws: TestWorkspace | undefined
afterEach(async () => {
  await ws?.close()
  ws = undefined
})

async function open(files: Record<string, string>): Promise<TestWorkspace> {
  ws = await workspace(files)
  return ws
}

/** The transaction id of the write a step's only tool call made. */
function transactionOf(
  result: Awaited<ReturnType<typeof loop>>['result'],
  step: number,
  call = 0,
): string {
  const output = result.steps[step]?.toolResults[call]?.output as ToolOutput | undefined
  const id = output?.structured['transaction']
  if (typeof id !== 'string') throw new Error(`step ${step} made no transaction`)
  return id
}

/** What read_file shows the model. */
function readText(rel: string, text: string): string {
  const lines = text.replace(/\r?\n$/, '').split(/\r?\n/)
  return [
    `${rel} lines 1-${lines.length} of ${lines.length} (content_hash ${hashOf(text)})`,
    ...lines.map((line, i) => `${i + 1}\t${line}`),
  ].join('\n')
}

/** What a committed write of one file shows the model. */
function writeText(
  summary: string,
  rel: string,
  after: string,
  transaction: string,
  diff: string,
  extra: string[] = [],
): string {
  return [
    summary,
    `content_hash ${rel}: ${hashOf(after)}`,
    ...extra,
    `transaction ${transaction}`,
    '',
    diff,
  ].join('\n')
}

const TWO_FUNCTIONS = 'function a() {\n  return 1\n}\n\nfunction b() {\n  return 1\n}\n'

describe('the tools', () => {
  it("are the MCP server's: names, descriptions and JSON schemas, less workspace", async () => {
    const w = await open({})
    const { model } = await loop(patchloomTools(w.engine), [])
    const sent = model.doGenerateCalls[0]?.tools
    const mcp = toolJson().mcp.map((t) => {
      const schema = t['inputSchema'] as {
        $schema?: string
        properties: Record<string, unknown>
        required?: string[]
      }
      const { workspace: _workspace, ...properties } = schema.properties
      const { $schema: _dialect, ...rest } = { ...schema, properties }
      return { name: t['name'], description: t['description'], inputSchema: rest }
    })
    expect(
      sent?.map((t) => {
        const { $schema: _dialect, ...inputSchema } = (t as { inputSchema: { $schema?: string } })
          .inputSchema
        return {
          name: t.name,
          description: (t as { description: string }).description,
          inputSchema,
        }
      }),
    ).toEqual(mcp)
    expect(sent?.map((t) => t.type)).toEqual(TOOLS.map(() => 'function'))
    // No schema names the workspace, and none of them lost its descriptions.
    expect(JSON.stringify(sent)).not.toContain('"workspace"')
    expect(JSON.stringify(sent)).toContain('File path, relative to the workspace root')
  })

  it('keep their titles, and `only` picks some of them', async () => {
    const w = await open({})
    const all = patchloomTools(w.engine)
    expect(Object.keys(all)).toEqual(TOOLS.map((t) => t.name))
    expect(Object.values(all).map((t) => t.title)).toEqual(TOOLS.map((t) => t.title))
    const some = patchloomTools(w.engine, { only: ['read_file', 'edit_file'] })
    expect(Object.keys(some)).toEqual(['read_file', 'edit_file'])
  })

  it("type as AI SDK tools with the MCP tools' inputs", () => {
    type Tools = ReturnType<typeof patchloomTools>
    expectTypeOf<Tools>().toExtend<ToolSet>()
    expectTypeOf<Tools['edit_file']>().toEqualTypeOf<Tool<ToolInput<'edit_file'>, ToolOutput>>()
    expectTypeOf<ToolInput<'read_file'>>().toEqualTypeOf<{
      path: string
      offset?: number | undefined
      limit?: number | undefined
    }>()
    const some = (engine: Engine) => patchloomTools(engine, { only: ['undo'] })
    expectTypeOf<keyof ReturnType<typeof some>>().toEqualTypeOf<'undo'>()
  })

  it('come from a module that exports two functions and imports no SDK at run time', async () => {
    const module = await import('../../../src/adapters/ai-sdk.js')
    expect(Object.keys(module).sort()).toEqual(['applyPatchExecute', 'patchloomTools'])
    const source = await readFile(
      new URL('../../../src/adapters/ai-sdk.ts', import.meta.url),
      'utf8',
    )
    const runtime = [...source.matchAll(/^import (?!type )[^;]*? from '([^']+)'/gms)].map(
      (m) => m[1],
    )
    expect(runtime).toContain('./session.js')
    expect(runtime.filter((specifier) => !specifier?.startsWith('.'))).toEqual([])
  })

  it('throw TypeError for a first argument that is not an engine, and for an unknown tool', async () => {
    const w = await open({})
    expect(() => patchloomTools({} as never)).toThrow(TypeError)
    expect(() => patchloomTools(w.engine, { only: ['read_file', 'edit' as never] })).toThrow(
      'patchloom: no tool named "edit"; the tools are read_file, edit_file, multi_edit, apply_patch, write_file, undo, diagnostics.',
    )
  })
})

describe('edits through generateText', () => {
  it('reads, then edits: the edit lands and the model reads the new content hash', async () => {
    const w = await open({ 'a.txt': 'one\ntwo\n' })
    const { result, sent } = await loop(patchloomTools(w.engine), [
      [{ id: 'c1', tool: 'read_file', input: { path: 'a.txt' } }],
      [
        {
          id: 'c2',
          tool: 'edit_file',
          input: { path: 'a.txt', old_string: 'two', new_string: 'TWO' },
        },
      ],
    ])
    expect(await w.read('a.txt')).toBe('one\nTWO\n')
    expect(sent(0)).toEqual(
      toolMessage(textResult('c1', 'read_file', readText('a.txt', 'one\ntwo\n'))),
    )
    expect(sent(1)).toEqual(
      toolMessage(
        textResult(
          'c2',
          'edit_file',
          writeText(
            'M a.txt (+1 -1)',
            'a.txt',
            'one\nTWO\n',
            transactionOf(result, 1),
            'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO',
          ),
        ),
      ),
    )
    expect(result.text).toBe('done')
    // The harness gets the structured outcome as the tool's output.
    expect(result.steps[1]?.toolResults[0]?.output).toMatchObject({
      ok: true,
      structured: { files: [{ path: 'a.txt', op: 'update', content_hash: hashOf('one\nTWO\n') }] },
    })
  })

  it('refuses an edit of a file the model has not read; the model reads why, reads and edits', async () => {
    const w = await open({ 'a.txt': 'one\ntwo\n' })
    const edit = { path: 'a.txt', old_string: 'two', new_string: 'TWO' }
    const { result, sent } = await loop(patchloomTools(w.engine), [
      [{ id: 'c1', tool: 'edit_file', input: edit }],
      [{ id: 'c2', tool: 'read_file', input: { path: 'a.txt' } }],
      [{ id: 'c3', tool: 'edit_file', input: edit }],
    ])
    const hash = hashOf('one\ntwo\n')
    expect(sent(0)).toEqual(
      toolMessage(
        errorResult(
          'c1',
          'edit_file',
          `FILE_STALE_READ: a.txt exists and this agent has not read it; read it first, or send its hash ${hash} as expected_hash.\n` +
            'hint: Read the file first (read_file), or send its current hash (in currentHash) as expected_hash.\n' +
            `current_hash: ${hash}`,
        ),
      ),
    )
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({
      ok: false,
      structured: { error: { code: 'FILE_STALE_READ', path: 'a.txt', current_hash: hash } },
    })
    expect(sent(2)).toMatchObject(
      toolMessage({
        output: { type: 'text', value: expect.stringMatching(/^M a\.txt \(\+1 -1\)/) },
      }),
    )
    expect(await w.read('a.txt')).toBe('one\nTWO\n')
  })

  it('refuses an ambiguous match with the candidates, and writes nothing', async () => {
    const w = await open({ 'b.ts': TWO_FUNCTIONS })
    const { sent } = await loop(patchloomTools(w.engine), [
      [{ id: 'c1', tool: 'read_file', input: { path: 'b.ts' } }],
      [
        {
          id: 'c2',
          tool: 'edit_file',
          input: { path: 'b.ts', old_string: '  return 1', new_string: '  return 2' },
        },
      ],
    ])
    expect(sent(1)).toEqual(
      toolMessage(
        errorResult(
          'c2',
          'edit_file',
          'MATCH_AMBIGUOUS: Edit 1: old_string matches 2 places in b.ts (lines 2, 6).\n' +
            'hint: Add surrounding lines (or an @@ hint) until it is unique, or set replace_all / expected_matches.\n' +
            'candidate at line 2 (100%): return 1\n' +
            'candidate at line 6 (100%): return 1',
        ),
      ),
    )
    expect(await w.read('b.ts')).toBe(TWO_FUNCTIONS)
  })

  it('multi_edit lands all or nothing: one edit fails, no file changes', async () => {
    const w = await open({ 'a.txt': 'one\ntwo\n', 'b.ts': TWO_FUNCTIONS })
    const { sent } = await loop(patchloomTools(w.engine), [
      [
        { id: 'r1', tool: 'read_file', input: { path: 'a.txt' } },
        { id: 'r2', tool: 'read_file', input: { path: 'b.ts' } },
      ],
      [
        {
          id: 'c1',
          tool: 'multi_edit',
          input: {
            edits: [
              { path: 'a.txt', old_string: 'one', new_string: 'ONE' },
              { path: 'b.ts', old_string: 'function c() {', new_string: 'function C() {' },
            ],
          },
        },
      ],
    ])
    expect(sent(1)).toEqual(
      toolMessage(
        errorResult(
          'c1',
          'multi_edit',
          'MATCH_NOT_FOUND: Edit 2: old_string was not found in b.ts.\n' +
            'hint: Copy the context exactly from the file; the nearest candidates are listed with their line numbers.\n' +
            'candidate at line 1 (85%): function a() {\n' +
            'candidate at line 5 (85%): function b() {',
        ),
      ),
    )
    expect(await w.read('a.txt')).toBe('one\ntwo\n')
    expect(await w.read('b.ts')).toBe(TWO_FUNCTIONS)
    expect(await w.engine.transactions()).toEqual([])
  })

  it('applies a Codex patch and a unified diff without an earlier read', async () => {
    const w = await open({ 'a.txt': 'one\ntwo\n', 'b.ts': TWO_FUNCTIONS })
    const codex =
      '*** Begin Patch\n*** Update File: b.ts\n@@ function b() {\n-  return 1\n+  return 3\n*** End Patch\n'
    const unified = '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+uno\n two\n'
    const { result, sent } = await loop(patchloomTools(w.engine), [
      [{ id: 'p1', tool: 'apply_patch', input: { patch: codex } }],
      [{ id: 'p2', tool: 'apply_patch', input: { patch: unified, format: 'unified' } }],
    ])
    const after = 'function a() {\n  return 1\n}\n\nfunction b() {\n  return 3\n}\n'
    expect(await w.read('b.ts')).toBe(after)
    expect(await w.read('a.txt')).toBe('uno\ntwo\n')
    expect(sent(0)).toEqual(
      toolMessage(
        textResult(
          'p1',
          'apply_patch',
          writeText(
            'M b.ts (+1 -1)',
            'b.ts',
            after,
            transactionOf(result, 0),
            'diff --git a/b.ts b/b.ts\n--- a/b.ts\n+++ b/b.ts\n@@ -3,5 +3,5 @@\n }\n \n function b() {\n-  return 1\n+  return 3\n }',
          ),
        ),
      ),
    )
    expect(sent(1)).toEqual(
      toolMessage(
        textResult(
          'p2',
          'apply_patch',
          writeText(
            'M a.txt (+1 -1)',
            'a.txt',
            'uno\ntwo\n',
            transactionOf(result, 1),
            'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+uno\n two',
          ),
        ),
      ),
    )
  })

  it('write_file creates a file byte for byte, and will not overwrite one unread', async () => {
    const w = await open({ 'a.txt': 'one\n' })
    const content = 'line 1\r\nline 2'
    const { result, sent } = await loop(patchloomTools(w.engine), [
      [{ id: 'w1', tool: 'write_file', input: { path: 'new/d.txt', content } }],
      [{ id: 'w2', tool: 'write_file', input: { path: 'a.txt', content: 'gone\n' } }],
    ])
    expect(await w.read('new/d.txt')).toBe(content)
    expect(await w.read('a.txt')).toBe('one\n')
    expect(sent(0)).toEqual(
      toolMessage(
        textResult(
          'w1',
          'write_file',
          writeText(
            'A new/d.txt',
            'new/d.txt',
            content,
            transactionOf(result, 0),
            'diff --git a/new/d.txt b/new/d.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new/d.txt\n@@ -0,0 +1,2 @@\n+line 1\r\n+line 2\n\\ No newline at end of file',
          ),
        ),
      ),
    )
    expect(sent(1)).toMatchObject(
      toolMessage(
        errorResult('w2', 'write_file', expect.stringMatching(/^FILE_STALE_READ: a\.txt exists/)),
      ),
    )
  })

  it("undo reverts the agent's last change, and the model reads the restored hash", async () => {
    const w = await open({ 'a.txt': 'one\ntwo\n' })
    const { result, sent } = await loop(patchloomTools(w.engine), [
      [{ id: 'r1', tool: 'read_file', input: { path: 'a.txt' } }],
      [
        {
          id: 'e1',
          tool: 'edit_file',
          input: { path: 'a.txt', old_string: 'two', new_string: '2' },
        },
      ],
      [{ id: 'u1', tool: 'undo', input: {} }],
      [{ id: 'u2', tool: 'undo', input: {} }],
    ])
    expect(await w.read('a.txt')).toBe('one\ntwo\n')
    const undone = transactionOf(result, 1)
    const undoTransaction = transactionOf(result, 2)
    expect(sent(2)).toEqual(
      toolMessage(
        textResult(
          'u1',
          'undo',
          `undid ${undone} (as transaction ${undoTransaction})\nM a.txt (restore)\ncontent_hash a.txt: ${hashOf('one\ntwo\n')}`,
        ),
      ),
    )
    expect(sent(3)).toEqual(
      toolMessage(
        errorResult(
          'u2',
          'undo',
          'UNDO_NOT_FOUND: This agent has no change left to undo in this workspace.\n' +
            `hint: ${(result.steps[3]?.toolResults[0]?.output as ToolOutput).text.split('hint: ')[1]}`,
        ),
      ),
    )
  })

  it('refuses a path outside the workspace, relative or absolute', async () => {
    const w = await open({ 'a.txt': 'one\n' })
    const outside = path.join(path.dirname(w.root), 'elsewhere.txt')
    const { sent } = await loop(patchloomTools(w.engine), [
      [{ id: 'r1', tool: 'read_file', input: { path: '../elsewhere.txt' } }],
      [{ id: 'w1', tool: 'write_file', input: { path: outside, content: 'x\n' } }],
    ])
    expect(sent(0)).toEqual(
      toolMessage(
        errorResult(
          'r1',
          'read_file',
          'PATH_OUTSIDE_ROOT: ../elsewhere.txt is outside the workspace root.\n' +
            'hint: Use paths relative to the workspace root that stay inside it.',
        ),
      ),
    )
    expect(sent(1)).toMatchObject(
      toolMessage(errorResult('w1', 'write_file', expect.stringMatching(/^PATH_OUTSIDE_ROOT: /))),
    )
    expect(await w.read(path.relative(w.root, outside))).toBeNull()
  })

  it("keeps a CRLF file's line endings and a missing final newline", async () => {
    const w = await open({ 'c.txt': 'x\r\ny\r\nlast' })
    await loop(patchloomTools(w.engine), [
      [{ id: 'r1', tool: 'read_file', input: { path: 'c.txt' } }],
      [
        {
          id: 'e1',
          tool: 'edit_file',
          input: { path: 'c.txt', old_string: 'y\n', new_string: 'y\nnew line\n' },
        },
      ],
    ])
    expect(await w.read('c.txt')).toBe('x\r\ny\r\nnew line\r\nlast')
  })

  it('rebases an edit of a file someone changed since the model read it, and says so', async () => {
    const w = await open({ 'a.txt': 'one\ntwo\nthree\n' })
    const { result, sent } = await loop(
      patchloomTools(w.engine),
      [
        [{ id: 'r1', tool: 'read_file', input: { path: 'a.txt' } }],
        [
          {
            id: 'e1',
            tool: 'edit_file',
            input: { path: 'a.txt', old_string: 'one', new_string: '1' },
          },
        ],
        [
          {
            id: 'e2',
            tool: 'edit_file',
            input: {
              path: 'a.txt',
              old_string: 'two',
              new_string: '2',
              expected_hash: hashOf('one\ntwo\nthree\n'),
            },
          },
        ],
      ],
      // Someone else changes the last line between the model's read and its edit.
      async (step) => {
        if (step === 1) await writeFile(path.join(w.root, 'a.txt'), 'one\ntwo\nTHREE\n')
      },
    )
    expect(await w.read('a.txt')).toBe('1\ntwo\nTHREE\n')
    expect(sent(1)).toEqual(
      toolMessage(
        textResult(
          'e1',
          'edit_file',
          writeText(
            'M a.txt (+1 -1)',
            'a.txt',
            '1\ntwo\nTHREE\n',
            transactionOf(result, 1),
            'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n-one\n+1\n two\n THREE',
            ['rebased: a.txt had changed since it was read; the edit still applied cleanly'],
          ),
        ),
      ),
    )
    expect(result.steps[1]?.toolResults[0]?.output).toMatchObject({
      structured: { files: [{ rebased_from: hashOf('one\ntwo\nthree\n') }] },
    })
    // An explicit expected_hash without rebase is refused with the hash the file has now, and
    // the model reads the file as it is now in the refusal.
    expect(sent(2)).toMatchObject(
      toolMessage(
        errorResult(
          'e2',
          'edit_file',
          expect.stringMatching(
            new RegExp(
              `^FILE_HASH_MISMATCH: [^]*\ncurrent_hash: ${hashOf('1\ntwo\nTHREE\n')}\n\ncurrent content: a.txt lines 1-3 of 3 [^]*\n1\t1\n2\ttwo\n3\tTHREE$`,
            ),
          ),
        ),
      ),
    )
  })

  it('rejects input its schema does not admit: the SDK sends the model the validation error, execute never runs', async () => {
    const w = await open({ 'a.txt': 'one\n' })
    const input = { path: 'a.txt', old_string: 'one', new_string: '1', workspace: 'main' }
    const { result, sent } = await loop(patchloomTools(w.engine), [
      [
        { id: 'r1', tool: 'read_file', input: { path: 'a.txt' } },
        { id: 'e1', tool: 'edit_file', input },
        { id: 'e2', tool: 'edit_file', input: '{"path": "a.txt", "old_string": ' },
      ],
    ])
    expect(await w.read('a.txt')).toBe('one\n')
    const message = sent(0) as { content: { toolCallId: string; output: unknown }[] }
    expect(message.content.find((p) => p.toolCallId === 'e1')).toEqual(
      errorResult(
        'e1',
        'edit_file',
        `Invalid input for tool edit_file: Type validation failed: Value: ${JSON.stringify(input)}.\n` +
          `Error message: ${JSON.stringify([{ code: 'unrecognized_keys', keys: ['workspace'], path: [], message: 'Unrecognized key: "workspace"' }])}`,
      ),
    )
    expect(message.content.find((p) => p.toolCallId === 'e2')).toMatchObject(
      errorResult(
        'e2',
        'edit_file',
        expect.stringMatching(/^Invalid input for tool edit_file: JSON parsing failed/),
      ),
    )
    expect(result.steps[0]?.content.filter((p) => p.type === 'tool-error')).toHaveLength(2)
  })
})

describe('calls of one step', () => {
  it('run in the order the model made them, though the SDK starts them at once', async () => {
    const w = await open({ 'a.txt': 'one\n', 'c.txt': 'three\n' })
    const { sent } = await loop(patchloomTools(w.engine), [
      [{ id: 'r0', tool: 'read_file', input: { path: 'c.txt' } }],
      [
        { id: 'r1', tool: 'read_file', input: { path: 'a.txt' } },
        {
          id: 'e1',
          tool: 'edit_file',
          input: { path: 'a.txt', old_string: 'one', new_string: '1' },
        },
        { id: 'w1', tool: 'write_file', input: { path: 'b.txt', content: 'two\n' } },
        {
          id: 'e2',
          tool: 'edit_file',
          input: { path: 'b.txt', old_string: 'two', new_string: '2' },
        },
        {
          id: 'e3',
          tool: 'edit_file',
          input: { path: 'b.txt', old_string: '2', new_string: 'II' },
        },
        // Made after this edit, the read shows the edited file.
        {
          id: 'e4',
          tool: 'edit_file',
          input: { path: 'c.txt', old_string: 'three', new_string: '3' },
        },
        { id: 'r2', tool: 'read_file', input: { path: 'c.txt' } },
      ],
    ])
    expect(await w.read('a.txt')).toBe('1\n')
    expect(await w.read('b.txt')).toBe('II\n')
    const message = sent(1) as { content: { toolCallId: string; output: { type: string } }[] }
    expect(message.content.map((p) => [p.toolCallId, p.output.type])).toEqual([
      ['r1', 'text'],
      ['e1', 'text'],
      ['w1', 'text'],
      ['e2', 'text'],
      ['e3', 'text'],
      ['e4', 'text'],
      ['r2', 'text'],
    ])
    expect(message.content.at(-1)).toEqual(textResult('r2', 'read_file', readText('c.txt', '3\n')))
  })
})

describe('options', () => {
  it('agents sharing an engine each need their own read', async () => {
    const w = await open({ 'a.txt': 'one\n' })
    const edit = { path: 'a.txt', old_string: 'one', new_string: '1' }
    await loop(patchloomTools(w.engine, { agent: 'reader' }), [
      [{ id: 'r1', tool: 'read_file', input: { path: 'a.txt' } }],
    ])
    const { sent } = await loop(patchloomTools(w.engine, { agent: 'other' }), [
      [{ id: 'e1', tool: 'edit_file', input: edit }],
    ])
    expect(sent(0)).toMatchObject(
      toolMessage(errorResult('e1', 'edit_file', expect.stringMatching(/^FILE_STALE_READ: /))),
    )
    const again = await loop(patchloomTools(w.engine, { agent: 'reader' }), [
      [{ id: 'e2', tool: 'edit_file', input: edit }],
    ])
    expect(again.sent(0)).toMatchObject(
      toolMessage(textResult('e2', 'edit_file', expect.stringMatching(/^M a\.txt/))),
    )
    expect(await w.read('a.txt')).toBe('1\n')
  })

  it('readBeforeWrite: false lets an unread file be edited', async () => {
    const w = await open({ 'a.txt': 'one\n' })
    await loop(patchloomTools(w.engine, { readBeforeWrite: false }), [
      [
        {
          id: 'e1',
          tool: 'edit_file',
          input: { path: 'a.txt', old_string: 'one', new_string: '1' },
        },
      ],
    ])
    expect(await w.read('a.txt')).toBe('1\n')
  })
})

describe('streamText', () => {
  it('runs the same tools in a streamed loop', async () => {
    const w = await open({ 'a.txt': 'one\ntwo\n' })
    const { text, sent } = await streamLoop(patchloomTools(w.engine), [
      [{ id: 'c1', tool: 'read_file', input: { path: 'a.txt' } }],
      [
        {
          id: 'c2',
          tool: 'edit_file',
          input: { path: 'a.txt', old_string: 'two', new_string: 'TWO' },
        },
      ],
    ])
    expect(text).toBe('done')
    expect(sent(0)).toEqual(
      toolMessage(textResult('c1', 'read_file', readText('a.txt', 'one\ntwo\n'))),
    )
    expect(sent(1)).toMatchObject(
      toolMessage(textResult('c2', 'edit_file', expect.stringMatching(/^M a\.txt \(\+1 -1\)\n/))),
    )
    expect(await w.read('a.txt')).toBe('one\nTWO\n')
  })
})

describe('diagnostics (a scripted language-server client)', () => {
  it('the diagnostics tool reports them, and a write with diagnostics on appends them', async () => {
    const w = await open({ 'a.ts': 'const x: number = 1\n' })
    const engine = engineWithReport(w.root, introducedReport([typeError('a.ts')], 12))
    try {
      const { result, sent } = await loop(patchloomTools(engine, { diagnostics: true }), [
        [{ id: 'd1', tool: 'diagnostics', input: { paths: ['a.ts'] } }],
        [{ id: 'r1', tool: 'read_file', input: { path: 'a.ts' } }],
        [
          {
            id: 'e1',
            tool: 'edit_file',
            input: { path: 'a.ts', old_string: '= 1', new_string: '= "1"' },
          },
        ],
      ])
      const line = "a.ts:1:7 error: Type 'string' is not assignable to type 'number'."
      expect(sent(0)).toEqual(toolMessage(textResult('d1', 'diagnostics', line)))
      expect(result.steps[0]?.toolResults[0]?.output).toEqual({
        ok: true,
        text: line,
        structured: {
          diagnostics: [
            {
              path: 'a.ts',
              line: 1,
              column: 7,
              severity: 'error',
              message: "Type 'string' is not assignable to type 'number'.",
              source: 'ts',
              code: '2322',
            },
          ],
          settled: true,
          waited_ms: 12,
        },
      })
      expect(sent(2)).toEqual(
        toolMessage(
          textResult(
            'e1',
            'edit_file',
            [
              'M a.ts (+1 -1)',
              `content_hash a.ts: ${hashOf('const x: number = "1"\n')}`,
              `transaction ${transactionOf(result, 2)}`,
              `introduced ${line}`,
              '',
              'diff --git a/a.ts b/a.ts\n--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-const x: number = 1\n+const x: number = "1"',
            ].join('\n'),
          ),
        ),
      )
    } finally {
      await engine.close()
    }
  })
})
