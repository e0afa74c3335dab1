// patchloom/openai called directly: programming errors thrown, every other failure an output;
// create_file over an existing file, read-before-write when asked for, calls that build on each
// other, atomic refusals (one path twice, several failing calls), the caller passed through,
// and the hints and line notes in the model's text. The SDK loops are in openai-responses and
// openai-agents.test.ts.
import { rm } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import {
  engineWithReport,
  introducedReport,
  typeError,
} from '../../helpers/scripted-diagnostics.js'
import {
  applyPatchCall,
  applyPatchCalls,
  createEditor,
  type ApplyPatchCall,
  type ApplyPatchOperation,
} from '../../../src/adapters/openai.js'
import { callTool, openSession } from '../../../src/adapters/session.js'
import { createEngine, type Engine } from '../../../src/index.js'
import { hashOf, lastTransaction, workspace, type TestWorkspace } from './openai-fixture.js'

function call(id: string, operation: ApplyPatchOperation): ApplyPatchCall {
  return { type: 'apply_patch_call', call_id: id, status: 'completed', operation }
}

let ws: TestWorkspace | undefined
afterEach(async () => {
  await ws?.close()
  ws = undefined
})

async function open(files: Record<string, string>): Promise<TestWorkspace> {
  ws = await workspace(files)
  return ws
}

describe('programming errors', () => {
  it('are thrown: not an engine, not an apply_patch_call item', async () => {
    const w = await open({})
    const notEngine = {} as Engine
    await expect(
      applyPatchCall(notEngine, call('c', { type: 'delete_file', path: 'a' })),
    ).rejects.toThrow(TypeError)
    expect(() => createEditor(notEngine)).toThrow(TypeError)
    const message = { type: 'message', role: 'assistant' } as unknown as ApplyPatchCall
    await expect(applyPatchCalls(w.engine, [message])).rejects.toThrow(
      'patchloom: applyPatchCalls takes apply_patch_call items (with a call_id); got an item of type "message".',
    )
    expect(await applyPatchCalls(w.engine, [])).toEqual([])
  })
})

describe('applyPatchCall', () => {
  it('passes the call_id and caller through', async () => {
    const w = await open({ 'a.txt': 'a\n' })
    const out = await applyPatchCall(w.engine, {
      ...call('c1', { type: 'update_file', path: 'a.txt', diff: '-a\n+b\n' }),
      id: 'apc_1',
      caller: { type: 'program', caller_id: 'prog_1' },
    })
    expect(out).toMatchObject({
      type: 'apply_patch_call_output',
      call_id: 'c1',
      status: 'completed',
      caller: { type: 'program', caller_id: 'prog_1' },
    })
    expect(Object.keys(out)).toEqual(['type', 'call_id', 'status', 'output', 'caller'])
  })

  it('refuses create_file over an existing file, leaving it as it was', async () => {
    const w = await open({ 'a.txt': 'mine\n' })
    const out = await applyPatchCall(
      w.engine,
      call('c1', { type: 'create_file', path: './a.txt', diff: '+theirs\n' }),
    )
    expect(out).toEqual({
      type: 'apply_patch_call_output',
      call_id: 'c1',
      status: 'failed',
      output: [
        'FILE_EXISTS: create_file names a.txt, which already exists; create_file makes a new file and does not replace one.',
        'hint: Change the file with update_file, or remove it with delete_file in an earlier call.',
      ].join('\n'),
    })
    expect(await w.read('a.txt')).toBe('mine\n')
  })

  it("words a missing file's hint for this tool", async () => {
    const w = await open({})
    const out = await applyPatchCall(
      w.engine,
      call('c1', { type: 'update_file', path: 'nope.txt', diff: '-a\n+b\n' }),
    )
    expect(out.output).toBe(
      'FILE_NOT_FOUND: nope.txt does not exist.\nhint: Check the path; create a new file with create_file.',
    )
  })

  it("tells which patch line the diff starts on when the Codex parser's error counts lines", async () => {
    const w = await open({ 'a.txt': 'a\n' })
    const out = await applyPatchCall(
      w.engine,
      call('c1', { type: 'update_file', path: 'a.txt', diff: '-a\n?b\n' }),
    )
    expect(out.status).toBe('failed')
    expect(out.output).toBe(
      [
        `PARSE_BAD_LINE: Line 4 ("?b") in the update of a.txt must start with ' ' (context), '-' (remove) or '+' (add).`,
        'hint: Prefix every hunk line with " " (context), "-" (remove) or "+" (add).',
        'note: the diff was applied as the body of a Codex patch, in which its line 1 is patch line 3',
      ].join('\n'),
    )
  })

  it('applies without a read by default, and asks for one with readBeforeWrite', async () => {
    const w = await open({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
    const strict = await applyPatchCall(
      w.engine,
      call('c1', { type: 'delete_file', path: 'a.txt' }),
      { readBeforeWrite: true },
    )
    expect(strict.status).toBe('failed')
    expect(strict.output).toMatch(
      /^FILE_STALE_READ: The patch deletes a\.txt without stating its content, and this agent has not read it as it is now \(sha256:[0-9a-f]{64}\)\./,
    )
    expect(await w.read('a.txt')).toBe('a\n')
    // Read through the server's tool (as another adapter on this engine would): now it may.
    const session = await openSession(w.engine, {}, true)
    expect((await callTool(session, 'read_file', { path: 'a.txt' })).ok).toBe(true)
    const read = await applyPatchCall(
      w.engine,
      call('c2', { type: 'delete_file', path: 'a.txt' }),
      { readBeforeWrite: true },
    )
    expect(read.status).toBe('completed')
    const loose = await applyPatchCall(w.engine, call('c3', { type: 'delete_file', path: 'b.txt' }))
    expect(loose.status).toBe('completed')
    expect([await w.read('a.txt'), await w.read('b.txt')]).toEqual([null, null])
  })

  it('fails every call, without throwing, when the workspace root is gone', async () => {
    const w = await open({})
    const engine = createEngine({ root: `${w.root}/missing`, workers: false, durability: 'fast' })
    try {
      const outs = await applyPatchCalls(engine, [
        call('c1', { type: 'delete_file', path: 'a' }),
        call('c2', { type: 'delete_file', path: 'b' }),
      ])
      expect(outs.map((o) => o.status)).toEqual(['failed', 'failed'])
      expect(outs[0]?.output).toMatch(/^CONFIG_INVALID: /)
      const editor = createEditor(engine)
      expect(await editor.deleteFile({ type: 'delete_file', path: 'a' })).toMatchObject({
        status: 'failed',
      })
    } finally {
      await engine.close()
    }
  })
})

describe('applyPatchCalls without atomic', () => {
  it('runs the calls in order, so a later one may change the file an earlier one made', async () => {
    const w = await open({})
    const outs = await applyPatchCalls(w.engine, [
      call('c1', { type: 'create_file', path: 'n.txt', diff: '+one\n+two\n' }),
      call('c2', { type: 'update_file', path: 'n.txt', diff: ' one\n-two\n+TWO\n' }),
      call('c3', { type: 'update_file', path: 'n.txt', diff: '-missing\n+x\n' }),
    ])
    expect(outs.map((o) => o.status)).toEqual(['completed', 'completed', 'failed'])
    expect(await w.read('n.txt')).toBe('one\nTWO\n')
    expect(await w.engine.transactions()).toHaveLength(2)
  })
})

describe('applyPatchCalls with atomic', () => {
  it('refuses two calls on one path, naming both, and writes nothing', async () => {
    const w = await open({ 'a.txt': 'a\nb\n' })
    const outs = await applyPatchCalls(
      w.engine,
      [
        call('c1', { type: 'update_file', path: 'a.txt', diff: '-a\n+A\n' }),
        call('c2', { type: 'update_file', path: './a.txt', diff: '-b\n+B\n' }),
      ],
      { atomic: true },
    )
    expect(outs.map((o) => [o.status, o.output])).toEqual([
      [
        'failed',
        'not applied: call c2 failed, and the calls of this response are applied together or not at all (atomic); nothing was written.',
      ],
      [
        'failed',
        [
          'PATH_DUPLICATE: Calls c1 and c2 both change a.txt. With atomic, the calls of one response are applied as one patch, which changes each path once.',
          'hint: Merge the two changes of that file into one update_file call, or apply the calls without atomic (each in turn).',
        ].join('\n'),
      ],
    ])
    expect(await w.read('a.txt')).toBe('a\nb\n')
    expect(await w.engine.transactions()).toEqual([])
  })

  it('gives each refused call its own error, and the rest the names of the failed ones', async () => {
    const w = await open({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
    const outs = await applyPatchCalls(
      w.engine,
      [
        call('c1', { type: 'create_file', path: 'b.txt', diff: '+b\n' }),
        call('c2', { type: 'update_file', path: 'a.txt', diff: '-a\n+A\n' }),
        call('c3', { type: 'delete_file', path: '../x' }),
      ],
      { atomic: true },
    )
    expect(outs.map((o) => o.status)).toEqual(['failed', 'failed', 'failed'])
    expect(outs[0]?.output).toMatch(/^FILE_EXISTS: /)
    expect(outs[1]?.output).toBe(
      'not applied: calls c1, c3 failed, and the calls of this response are applied together or not at all (atomic); nothing was written.',
    )
    expect(outs[2]?.output).toMatch(/^PATH_OUTSIDE_ROOT: /)
    expect(await w.engine.transactions()).toEqual([])
  })

  it("finds the failing call of the combined patch by the Codex parser's line", async () => {
    const w = await open({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
    const outs = await applyPatchCalls(
      w.engine,
      [
        call('c1', { type: 'update_file', path: 'a.txt', diff: '-a\n+A\n' }),
        call('c2', { type: 'update_file', path: 'b.txt', diff: '-b\n?B\n' }),
      ],
      { atomic: true },
    )
    expect(outs[0]?.output).toBe(
      'not applied: call c2 failed, and the calls of this response are applied together or not at all (atomic); nothing was written.',
    )
    expect(outs[1]?.output).toBe(
      [
        `PARSE_BAD_LINE: Line 7 ("?B") in the update of b.txt must start with ' ' (context), '-' (remove) or '+' (add).`,
        'hint: Prefix every hunk line with " " (context), "-" (remove) or "+" (add).',
        'note: the diff was applied as the body of a Codex patch, in which its line 1 is patch line 6',
      ].join('\n'),
    )
    expect([await w.read('a.txt'), await w.read('b.txt')]).toEqual(['a\n', 'b\n'])
  })

  it("gives each call its own file's diagnostics, with a scripted language server", async () => {
    const w = await open({ 'a.ts': 'const a: number = 1\n', 'b.ts': 'const b: number = 1\n' })
    const engine = engineWithReport(
      w.root,
      introducedReport([typeError('a.ts'), typeError('b.ts')]),
    )
    try {
      const outs = await applyPatchCalls(
        engine,
        [
          call('c1', {
            type: 'update_file',
            path: 'a.ts',
            diff: "-const a: number = 1\n+const a: number = 'one'\n",
          }),
          call('c2', {
            type: 'update_file',
            path: 'b.ts',
            diff: "-const b: number = 1\n+const b: number = 'one'\n",
          }),
        ],
        { atomic: true, diagnostics: true },
      )
      const tx = await lastTransaction(engine)
      const part = (path: string, letter: string) =>
        [
          `M ${path} (+1 -1)`,
          `content_hash ${path}: ${hashOf(`const ${letter}: number = 'one'\n`)}`,
          `transaction ${tx} (one transaction for the 2 calls of this response: c1, c2)`,
          `introduced ${path}:1:7 error: Type 'string' is not assignable to type 'number'.`,
          '',
          `diff --git a/${path} b/${path}`,
          `--- a/${path}`,
          `+++ b/${path}`,
          '@@ -1 +1 @@',
          `-const ${letter}: number = 1`,
          `+const ${letter}: number = 'one'`,
        ].join('\n')
      expect(outs.map((o) => o.output)).toEqual([part('a.ts', 'a'), part('b.ts', 'b')])
    } finally {
      await engine.close()
    }
  })

  it("gives one call the server's text as it is", async () => {
    const w = await open({ 'a.txt': 'a\n' })
    const [out] = await applyPatchCalls(
      w.engine,
      [call('c1', { type: 'update_file', path: 'a.txt', diff: '-a\n+A\n' })],
      { atomic: true },
    )
    expect(out?.output.split('\n').slice(0, 3)).toEqual([
      'M a.txt (+1 -1)',
      `content_hash a.txt: ${hashOf('A\n')}`,
      `transaction ${await lastTransaction(w.engine)}`,
    ])
  })
})

describe('createEditor', () => {
  it('returns failed results, never rejects, and applies each operation on its own', async () => {
    const w = await open({ 'a.txt': 'a\n' })
    const editor = createEditor(w.engine)
    expect(await editor.createFile({ type: 'create_file', path: 'a.txt', diff: '+x' })).toEqual({
      status: 'failed',
      output: [
        'FILE_EXISTS: create_file names a.txt, which already exists; create_file makes a new file and does not replace one.',
        'hint: Change the file with update_file, or remove it with delete_file in an earlier call.',
      ].join('\n'),
    })
    const bad = await editor.updateFile({ type: 'update_file', path: 'a.txt', diff: 7 as never })
    expect(bad).toEqual({
      status: 'failed',
      output: [
        'PARSE_BAD_HEADER: The update_file operation on a.txt has no diff (a string).',
        'hint: Send the operation as the apply_patch tool defines it: type, path, and a diff for create_file and update_file.',
      ].join('\n'),
    })
    expect((await editor.deleteFile({ type: 'delete_file', path: 'a.txt' })).status).toBe(
      'completed',
    )
    await rm(w.root, { recursive: true, force: true })
    expect((await editor.deleteFile({ type: 'delete_file', path: 'a.txt' })).status).toBe('failed')
  })
})
