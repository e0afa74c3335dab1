// A FILE_HASH_MISMATCH refusal carries what a client needs to retry at once: the file as
// read_file would list it now (up to the size cap, as text and in structuredContent), counted as
// the agent's read, and whether the same edit may be resent with rebase: true. In-process on
// real files, through the edit service.
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { REFUSAL_CONTENT_BYTES } from '../../../src/server/json-edits.js'
import { EditService, type Caller, type ServiceOptions } from '../../../src/server/service.js'
import type { ToolName } from '../../../src/server/tools.js'
import { makeTempDir } from '../../helpers/tree.js'

const A: Caller = { agent: 'agent-a' }
const B: Caller = { agent: 'agent-b' }
const C: Caller = { agent: 'agent-c' }
const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('')

type Out = { ok: boolean; structured: Record<string, any>; text: string }

let root = ''
let service: EditService

async function open(options: Partial<ServiceOptions> = {}): Promise<void> {
  service = await EditService.open({
    workspaces: [{ root }],
    workers: false,
    durability: 'fast',
    ...options,
  })
}

const call = async (tool: ToolName, args: Record<string, unknown>, caller = A) =>
  (await service.call(tool, args, caller)) as Out

async function ok(tool: ToolName, args: Record<string, unknown>, caller = A): Promise<Out> {
  const out = await call(tool, args, caller)
  if (!out.ok) throw new Error(`${tool} failed: ${out.text}`)
  return out
}

/** read_file's structured result, as the refusal's `current` should be (no request id). */
async function listing(path: string, caller: Caller): Promise<Record<string, unknown>> {
  const { request_id: _id, ...rest } = (await ok('read_file', { path }, caller)).structured
  return rest
}

/** A reads a.txt, then B changes its last line: A's hash is stale. Returns A's hash. */
async function staleForA(): Promise<string> {
  const hash = (await ok('read_file', { path: 'a.txt' })).structured['content_hash']
  await ok('read_file', { path: 'a.txt' }, B)
  await ok('edit_file', { path: 'a.txt', old_string: 'line 30\n', new_string: 'B\n' }, B)
  return hash
}

beforeEach(async () => {
  root = await makeTempDir('patchloom-stale-refusal-')
  await writeFile(join(root, 'a.txt'), lines(30))
})
afterEach(async () => {
  await service?.close()
  await rm(root, { recursive: true, force: true })
})

describe('a stale expected_hash refusal', () => {
  it('returns the file as read_file lists it now, in structuredContent and the text, and says it may be rebased', async () => {
    await open()
    const hash = await staleForA()
    const out = await call('edit_file', {
      path: 'a.txt',
      old_string: 'line 2\n',
      new_string: 'A\n',
      expected_hash: hash,
    })
    expect(out.ok).toBe(false)
    const error = out.structured['error']
    expect(error).toMatchObject({ code: 'FILE_HASH_MISMATCH', retryable: false, path: 'a.txt' })
    expect(error.current).toEqual(await listing('a.txt', C))
    expect(error.current_hash).toBe(error.current.content_hash)
    expect(error.current.content.split('\n').at(-1)).toBe('30\tB')
    expect(error.rebase_possible).toBe(true)
    expect(error.hint).toMatch(/rebase: true/)
    expect(out.text).toContain(`current_hash: ${error.current_hash}`)
    expect(out.text).toContain(
      `current content: a.txt lines 1-30 of 30 (content_hash ${error.current_hash})`,
    )
    expect(out.text).toContain('\n2\tline 2\n')
    expect(out.text).toContain('\n30\tB')
  })

  it('lets the edit land at once from what it returned: with its hash, or resent with rebase: true', async () => {
    await open()
    const hash = await staleForA()
    const args = { path: 'a.txt', old_string: 'line 2\n', new_string: 'A\n', expected_hash: hash }
    const refused = (await call('edit_file', args)).structured['error']
    const again = await ok('edit_file', { ...args, expected_hash: refused.current_hash })
    expect(again.structured['files'][0].previous_hash).toBe(refused.current_hash)
    expect(again.structured['files'][0].rebased_from).toBeUndefined()

    // The same stale edit from another agent, resent unchanged with rebase: true.
    const staleForC = (await ok('read_file', { path: 'a.txt' }, C)).structured['content_hash']
    await ok('edit_file', { path: 'a.txt', old_string: 'line 29\n', new_string: 'B2\n' }, B)
    const cArgs = {
      path: 'a.txt',
      old_string: 'line 5\n',
      new_string: 'C\n',
      expected_hash: staleForC,
    }
    expect((await call('edit_file', cArgs, C)).structured['error'].rebase_possible).toBe(true)
    const merged = await ok('edit_file', { ...cArgs, rebase: true }, C)
    expect(merged.structured['files'][0].rebased_from).toBe(staleForC)
  })

  it("counts as the agent's read: its next edit without expected_hash is made against that version", async () => {
    await open()
    // C never read the file, and is handed A's (now stale) hash.
    const hash = await staleForA()
    const refused = await call(
      'edit_file',
      { path: 'a.txt', old_string: 'line 2\n', new_string: 'C\n', expected_hash: hash },
      C,
    )
    const shown = refused.structured['error'].current_hash
    // B changes the file again; C's next edit, with no expected_hash, is rebased from what the
    // refusal showed it, not refused as unread.
    await ok('edit_file', { path: 'a.txt', old_string: 'line 29\n', new_string: 'B2\n' }, B)
    const out = await ok(
      'edit_file',
      { path: 'a.txt', old_string: 'line 2\n', new_string: 'C\n' },
      C,
    )
    expect(out.structured['files'][0].rebased_from).toBe(shown)
  })

  it('does not offer rebase for edits by line number, and still shows the file', async () => {
    await open()
    const hash = await staleForA()
    const out = await call('edit_file', {
      path: 'a.txt',
      mode: 'replace_range',
      start_line: 2,
      end_line: 2,
      new_string: 'A\n',
      expected_hash: hash,
    })
    const error = out.structured['error']
    expect(error.rebase_possible).toBe(false)
    expect(error.hint).not.toMatch(/rebase: true/)
    expect(error.current.total_lines).toBe(30)
  })

  it('does not offer rebase when the version the edit was made against is forgotten', async () => {
    await writeFile(join(root, 'a.txt'), lines(300))
    // Room for no version of the file: nothing to rebase from.
    await open({ memory: { versionBytes: 64 } })
    const hash = (await ok('read_file', { path: 'a.txt' })).structured['content_hash']
    await ok('read_file', { path: 'a.txt' }, B)
    await ok('edit_file', { path: 'a.txt', old_string: 'line 300\n', new_string: 'B\n' }, B)
    const out = await call('edit_file', {
      path: 'a.txt',
      old_string: 'line 2\n',
      new_string: 'A\n',
      expected_hash: hash,
    })
    expect(out.structured['error'].rebase_possible).toBe(false)
    expect(out.structured['error'].current.total_lines).toBe(300)
  })

  it('shows a stale write_file the file, without offering rebase', async () => {
    await open()
    const hash = await staleForA()
    const out = await call('write_file', { path: 'a.txt', content: 'new\n', expected_hash: hash })
    const error = out.structured['error']
    expect(error.code).toBe('FILE_HASH_MISMATCH')
    expect(error.rebase_possible).toBe(false)
    expect(error.current.content).toContain('30\tB')
  })

  it('names the stale file of a multi_edit and shows that file', async () => {
    await writeFile(join(root, 'b.txt'), 'bee\n')
    await open()
    const hash = await staleForA()
    const bHash = (await ok('read_file', { path: 'b.txt' })).structured['content_hash']
    const out = await call('multi_edit', {
      edits: [
        { path: 'b.txt', old_string: 'bee', new_string: 'BEE', expected_hash: bHash },
        { path: 'a.txt', old_string: 'line 2\n', new_string: 'A\n', expected_hash: hash },
      ],
    })
    const error = out.structured['error']
    expect(error.path).toBe('a.txt')
    expect(error.current.path).toBe('a.txt')
    expect(error.current.total_lines).toBe(30)
  })

  it('shows no content beyond the cap: the hash and a hint to read it, and it is not a read', async () => {
    const big = 'x'.repeat(100) + '\n'
    const count = Math.ceil(REFUSAL_CONTENT_BYTES / big.length) + 1
    await writeFile(join(root, 'big.txt'), big.repeat(count))
    await open()
    const hash = (await ok('read_file', { path: 'big.txt' })).structured['content_hash']
    await ok('read_file', { path: 'big.txt' }, B)
    await ok(
      'edit_file',
      { path: 'big.txt', old_string: 'x\n', new_string: 'x\ny\n', occurrence: -1 },
      B,
    )
    const out = await call(
      'edit_file',
      {
        path: 'big.txt',
        old_string: 'x\n',
        new_string: 'x\nz\n',
        occurrence: 1,
        expected_hash: hash,
      },
      C,
    )
    const error = out.structured['error']
    expect(error.code).toBe('FILE_HASH_MISMATCH')
    expect(error.current).toBeUndefined()
    expect(error.current_hash).toMatch(/^sha256:/)
    expect(error.hint).toMatch(/read_file/)
    expect(out.text).not.toContain('current content')
    // Not shown, so not read: C still has to read it.
    const unread = await call(
      'edit_file',
      { path: 'big.txt', old_string: 'y\n', new_string: 'w\n' },
      C,
    )
    expect(unread.structured['error'].code).toBe('FILE_STALE_READ')
  })

  it('shows no content of a file with more lines than read_file lists at once', async () => {
    await writeFile(join(root, 'long.txt'), lines(2001))
    await open()
    const hash = (await ok('read_file', { path: 'long.txt' })).structured['content_hash']
    await ok('read_file', { path: 'long.txt' }, B)
    await ok('edit_file', { path: 'long.txt', old_string: 'line 2001\n', new_string: 'B\n' }, B)
    const out = await call('edit_file', {
      path: 'long.txt',
      old_string: 'line 2\n',
      new_string: 'A\n',
      expected_hash: hash,
    })
    expect(out.structured['error'].current).toBeUndefined()
    expect(out.structured['error'].rebase_possible).toBe(true)
  })

  it('shows no content of a file that is no longer text', async () => {
    await open()
    const hash = (await ok('read_file', { path: 'a.txt' })).structured['content_hash']
    await writeFile(join(root, 'a.txt'), Buffer.from([0x61, 0, 0x62]))
    const out = await call('edit_file', {
      path: 'a.txt',
      old_string: 'line 2\n',
      new_string: 'A\n',
      expected_hash: hash,
    })
    expect(out.structured['error'].code).toBe('FILE_HASH_MISMATCH')
    expect(out.structured['error'].current).toBeUndefined()
  })
})

describe('a refused rebase', () => {
  it('shows the file as it is now, and does not offer the rebase it just refused', async () => {
    await open()
    await ok('read_file', { path: 'a.txt' })
    await ok('read_file', { path: 'a.txt' }, B)
    await ok('edit_file', { path: 'a.txt', old_string: 'line 10\n', new_string: 'B\n' }, B)
    const out = await call('edit_file', {
      path: 'a.txt',
      old_string: 'line 11\n',
      new_string: 'A\n',
    })
    const error = out.structured['error']
    expect(error.code).toBe('FILE_HASH_MISMATCH')
    expect(error.message).toMatch(/touched the lines/)
    expect(error.rebase_possible).toBe(false)
    expect(error.current).toEqual(await listing('a.txt', C))
    // Counted as read: the same edit made again against what it was shown lands.
    const again = await ok('edit_file', {
      path: 'a.txt',
      old_string: 'line 11\n',
      new_string: 'A\n',
      expected_hash: error.current_hash,
    })
    expect(again.structured['files'][0].previous_hash).toBe(error.current_hash)
  })
})
