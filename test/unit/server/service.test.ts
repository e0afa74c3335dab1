// The edit service behind the MCP server, in-process on real files (no worker threads):
// read-before-write, optimistic concurrency, rebasing over another agent's change, undo, the
// sandbox, workspaces, back-pressure and shutdown. The transports are tested in
// test/e2e/mcp-server.test.ts.
import { execFileSync } from 'node:child_process'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EditService, type Caller, type ServiceOptions } from '../../../src/server/service.js'
import type { ToolName } from '../../../src/server/tools.js'
import { MAX_RESULT_DIFF_BYTES } from '../../../src/server/format.js'
import { makeTempDir } from '../../helpers/tree.js'

const A: Caller = { agent: 'agent-a' }
const B: Caller = { agent: 'agent-b' }
const C: Caller = { agent: 'agent-c' }
const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('')

let root = ''
let service: EditService

async function open(options: Partial<ServiceOptions> = {}): Promise<EditService> {
  service = await EditService.open({
    workspaces: [{ root }],
    workers: false,
    durability: 'fast',
    ...options,
  })
  return service
}

type Out = { ok: boolean; structured: Record<string, any>; text: string }

async function call(tool: ToolName, args: Record<string, unknown>, caller = A): Promise<Out> {
  return (await service.call(tool, args, caller)) as Out
}

async function ok(tool: ToolName, args: Record<string, unknown>, caller = A): Promise<Out> {
  const out = await call(tool, args, caller)
  if (!out.ok) throw new Error(`${tool} failed: ${out.text}`)
  return out
}

function codeOf(out: Out): string {
  expect(out.ok).toBe(false)
  return out.structured['error'].code
}

const disk = (name: string): Promise<string> => readFile(join(root, name), 'utf8')

beforeEach(async () => {
  root = await makeTempDir('patchloom-service-')
  await writeFile(join(root, 'a.txt'), lines(30))
})
afterEach(async () => {
  await service?.close()
  await rm(root, { recursive: true, force: true })
})

describe('read_file', () => {
  it('lists numbered lines with the hash, and windows them with offset and limit', async () => {
    await writeFile(join(root, 'crlf.txt'), 'one\r\ntwo\r\nthree\r\n')
    await open()
    const out = await ok('read_file', { path: 'crlf.txt', offset: 2, limit: 1 })
    expect(out.structured).toMatchObject({
      path: 'crlf.txt',
      content: '2\ttwo',
      start_line: 2,
      end_line: 2,
      total_lines: 3,
      more: true,
    })
    expect(out.structured['content_hash']).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(out.text).toContain('content_hash sha256:')
  })

  it('refuses binary files, missing files and paths outside the root', async () => {
    await writeFile(join(root, 'bin.dat'), Buffer.from([1, 0, 2]))
    await open()
    expect(codeOf(await call('read_file', { path: 'bin.dat' }))).toBe('FILE_NOT_TEXT')
    expect(codeOf(await call('read_file', { path: 'nope.txt' }))).toBe('FILE_NOT_FOUND')
    expect(codeOf(await call('read_file', { path: '../outside.txt' }))).toBe('PATH_OUTSIDE_ROOT')
    expect(codeOf(await call('read_file', { path: '/etc/passwd' }))).toBe('PATH_OUTSIDE_ROOT')
  })

  it('refuses a directory and a FIFO without blocking on it (reads are synchronous)', async () => {
    await mkdir(join(root, 'sub'))
    execFileSync('mkfifo', [join(root, 'pipe')])
    await open()
    expect(codeOf(await call('read_file', { path: 'sub' }))).toBe('FILE_IS_DIRECTORY')
    expect(codeOf(await call('read_file', { path: 'pipe' }))).toBe('FILE_NOT_REGULAR')
  })
})

describe('read-before-write', () => {
  it('refuses an edit of a file the agent has not read, naming its current hash', async () => {
    await open()
    const out = await call('edit_file', {
      path: 'a.txt',
      old_string: 'line 3\n',
      new_string: 'x\n',
    })
    expect(codeOf(out)).toBe('FILE_STALE_READ')
    const read = await ok('read_file', { path: 'a.txt' }, B)
    expect(out.structured['error'].current_hash).toBe(read.structured['content_hash'])
    expect(await disk('a.txt')).toBe(lines(30))
  })

  it('lets the edit through once read, and returns the new hash', async () => {
    await open()
    await ok('read_file', { path: 'a.txt' })
    const out = await ok('edit_file', { path: 'a.txt', old_string: 'line 3\n', new_string: 'x\n' })
    const file = out.structured['files'][0]
    expect(file).toMatchObject({ path: 'a.txt', op: 'update', additions: 1, deletions: 1 })
    expect(file.diff).toContain('-line 3\n+x\n')
    expect(out.structured['summary']).toBe('M a.txt (+1 -1)')
    const again = await ok('read_file', { path: 'a.txt' })
    expect(file.content_hash).toBe(again.structured['content_hash'])
  })

  it('accepts an expected_hash instead of a read, and may be turned off', async () => {
    await open()
    const hash = (await ok('read_file', { path: 'a.txt' }, B)).structured['content_hash']
    await ok('edit_file', {
      path: 'a.txt',
      old_string: 'line 3\n',
      new_string: 'x\n',
      expected_hash: hash,
    })
    await service.close()
    await open({ readBeforeWrite: false })
    await ok('edit_file', { path: 'a.txt', old_string: 'line 4\n', new_string: 'y\n' })
    expect(await disk('a.txt')).toContain('x\ny\nline 5\n')
  })

  it('lets write_file create a new file, but not overwrite an unread one', async () => {
    await open()
    await ok('write_file', { path: 'new/b.txt', content: 'hello\n' })
    expect(await disk('new/b.txt')).toBe('hello\n')
    expect(codeOf(await call('write_file', { path: 'a.txt', content: 'gone\n' }))).toBe(
      'FILE_STALE_READ',
    )
    // Its own write counts as seen: the agent may overwrite what it wrote.
    await ok('write_file', { path: 'new/b.txt', content: 'again\n' })
    expect(await disk('new/b.txt')).toBe('again\n')
  })
})

describe('concurrent agents on one file', () => {
  it('refuses a stale expected_hash with the new hash (optimistic concurrency)', async () => {
    await open()
    const hash = (await ok('read_file', { path: 'a.txt' })).structured['content_hash']
    await ok('read_file', { path: 'a.txt' }, B)
    const b = await ok(
      'edit_file',
      { path: 'a.txt', old_string: 'line 29\n', new_string: 'B\n' },
      B,
    )
    const out = await call('edit_file', {
      path: 'a.txt',
      old_string: 'line 2\n',
      new_string: 'A\n',
      expected_hash: hash,
    })
    expect(codeOf(out)).toBe('FILE_HASH_MISMATCH')
    expect(out.structured['error'].current_hash).toBe(b.structured['files'][0].content_hash)
  })

  it('rebases a top edit over a bottom edit made since the read, and says so', async () => {
    await open()
    const read = await ok('read_file', { path: 'a.txt' })
    await ok('read_file', { path: 'a.txt' }, B)
    await ok('edit_file', { path: 'a.txt', old_string: 'line 29\n', new_string: 'B\n' }, B)
    const out = await ok('edit_file', { path: 'a.txt', old_string: 'line 2\n', new_string: 'A\n' })
    expect(out.structured['files'][0].rebased_from).toBe(read.structured['content_hash'])
    expect(out.text).toContain('rebased')
    expect(await disk('a.txt')).toBe(
      lines(30).replace('line 2\n', 'A\n').replace('line 29\n', 'B\n'),
    )
  })

  it('rebases with expected_hash only when rebase: true is given', async () => {
    await open()
    const hash = (await ok('read_file', { path: 'a.txt' })).structured['content_hash']
    await ok('read_file', { path: 'a.txt' }, B)
    await ok('edit_file', { path: 'a.txt', old_string: 'line 29\n', new_string: 'B\n' }, B)
    const args = { path: 'a.txt', old_string: 'line 2\n', new_string: 'A\n', expected_hash: hash }
    expect(codeOf(await call('edit_file', args))).toBe('FILE_HASH_MISMATCH')
    const out = await ok('edit_file', { ...args, rebase: true })
    expect(out.structured['files'][0].rebased_from).toBe(hash)
  })

  it('refuses an edit of the line the other agent changed; the file keeps the other change', async () => {
    await open()
    await ok('read_file', { path: 'a.txt' })
    await ok('read_file', { path: 'a.txt' }, C)
    await ok('read_file', { path: 'a.txt' }, B)
    await ok('edit_file', { path: 'a.txt', old_string: 'line 10\n', new_string: 'B\n' }, B)
    // The old text is gone: refused as changed, not as a plain miss.
    const gone = await call('edit_file', {
      path: 'a.txt',
      old_string: 'line 10\n',
      new_string: 'A\n',
    })
    expect(codeOf(gone)).toBe('FILE_HASH_MISMATCH')
    // Next to it: still refused, since the two changes touch (C, which has not seen B's change:
    // A's refusal showed A the file, so A's next edit is made against B's version).
    const next = await call(
      'edit_file',
      { path: 'a.txt', old_string: 'line 11\n', new_string: 'A\n' },
      C,
    )
    expect(codeOf(next)).toBe('FILE_HASH_MISMATCH')
    expect(next.structured['error'].message).toMatch(/touched the lines/)
    expect(await disk('a.txt')).toBe(lines(30).replace('line 10\n', 'B\n'))
  })

  it('does not rebase line-number edits or replace_all', async () => {
    await open()
    await ok('read_file', { path: 'a.txt' })
    await ok('read_file', { path: 'a.txt' }, C)
    await ok('read_file', { path: 'a.txt' }, B)
    await ok('edit_file', { path: 'a.txt', old_string: 'line 29\n', new_string: 'B\n' }, B)
    const range = await call('edit_file', {
      path: 'a.txt',
      mode: 'replace_range',
      start_line: 2,
      end_line: 2,
      new_string: 'A\n',
    })
    expect(codeOf(range)).toBe('FILE_HASH_MISMATCH')
    const all = await call(
      'edit_file',
      { path: 'a.txt', old_string: 'line 2\n', new_string: 'A\n', replace_all: true },
      C,
    )
    expect(codeOf(all)).toBe('FILE_HASH_MISMATCH')
  })

  it('lands both of two simultaneous edits to the top and bottom', async () => {
    await open()
    await ok('read_file', { path: 'a.txt' })
    await ok('read_file', { path: 'a.txt' }, B)
    const [a, b] = await Promise.all([
      call('edit_file', { path: 'a.txt', old_string: 'line 2\n', new_string: 'A\n' }),
      call('edit_file', { path: 'a.txt', old_string: 'line 29\n', new_string: 'B\n' }, B),
    ])
    expect([a.ok, b.ok]).toEqual([true, true])
    expect(await disk('a.txt')).toBe(
      lines(30).replace('line 2\n', 'A\n').replace('line 29\n', 'B\n'),
    )
  })

  it('with expected_hash, lands one of two simultaneous top/bottom edits and refuses the other with the new hash', async () => {
    await open()
    const hash = (await ok('read_file', { path: 'a.txt' })).structured['content_hash']
    const [a, b] = await Promise.all([
      call('edit_file', {
        path: 'a.txt',
        old_string: 'line 2\n',
        new_string: 'A\n',
        expected_hash: hash,
      }),
      call(
        'edit_file',
        { path: 'a.txt', old_string: 'line 29\n', new_string: 'B\n', expected_hash: hash },
        B,
      ),
    ])
    const [won, lost] = a.ok ? [a, b] : [b, a]
    expect(won.ok).toBe(true)
    expect(codeOf(lost)).toBe('FILE_HASH_MISMATCH')
    expect(lost.structured['error'].current_hash).toBe(won.structured['files'][0].content_hash)
    // The loser re-reads and lands: both edits are in the file.
    const caller = won === a ? B : A
    const fresh = (await ok('read_file', { path: 'a.txt' }, caller)).structured['content_hash']
    const retry =
      won === a
        ? { path: 'a.txt', old_string: 'line 29\n', new_string: 'B\n', expected_hash: fresh }
        : { path: 'a.txt', old_string: 'line 2\n', new_string: 'A\n', expected_hash: fresh }
    await ok('edit_file', retry, caller)
    expect(await disk('a.txt')).toBe(
      lines(30).replace('line 2\n', 'A\n').replace('line 29\n', 'B\n'),
    )
  })

  it('lands exactly one of two simultaneous edits to the same line', async () => {
    await open()
    const hash = (await ok('read_file', { path: 'a.txt' })).structured['content_hash']
    await ok('read_file', { path: 'a.txt' }, B)
    const [a, b] = await Promise.all([
      call('edit_file', {
        path: 'a.txt',
        old_string: 'line 7\n',
        new_string: 'A\n',
        expected_hash: hash,
      }),
      call('edit_file', { path: 'a.txt', old_string: 'line 7\n', new_string: 'B\n' }, B),
    ])
    expect([a.ok, b.ok].filter(Boolean)).toHaveLength(1)
    const text = await disk('a.txt')
    expect(
      text === lines(30).replace('line 7\n', 'A\n') ||
        text === lines(30).replace('line 7\n', 'B\n'),
    ).toBe(true)
  })
})

describe('two servers on one workspace, agents that never read the file', () => {
  /** A second service on the same root: its own engine and lock, so commits really race. */
  async function openTwo(): Promise<EditService> {
    await open({ readBeforeWrite: false })
    return EditService.open({
      workspaces: [{ root }],
      workers: false,
      durability: 'fast',
      readBeforeWrite: false,
    })
  }

  it('lands both of two edits to different lines at once (the engine verifies again)', async () => {
    const other = await openTwo()
    try {
      for (let round = 0; round < 5; round++) {
        await writeFile(join(root, 'a.txt'), lines(30))
        const [a, b] = (await Promise.all([
          call(
            'edit_file',
            { path: 'a.txt', old_string: 'line 2\n', new_string: 'A\n' },
            { agent: `a${round}` },
          ),
          other.call(
            'edit_file',
            { path: 'a.txt', old_string: 'line 29\n', new_string: 'B\n' },
            { agent: `b${round}` },
          ),
        ])) as [Out, Out]
        expect([a.ok, b.ok], `${a.text} ${b.text}`).toEqual([true, true])
        expect(await disk('a.txt')).toBe(
          lines(30).replace('line 2\n', 'A\n').replace('line 29\n', 'B\n'),
        )
      }
    } finally {
      await other.close()
    }
  })
})

describe('edit modes through the server', () => {
  it('takes occurrence, regex with flags, and refuses a no-op and a rewrite', async () => {
    await writeFile(join(root, 'r.txt'), 'x = 1\nx = 2\nx = 3\n')
    await open()
    await ok('read_file', { path: 'r.txt' })
    await ok('edit_file', { path: 'r.txt', old_string: 'x = ', new_string: 'y = ', occurrence: -1 })
    await ok('edit_file', {
      path: 'r.txt',
      old_string: '^x = (\\d)$',
      new_string: 'z = $1',
      regex: true,
      flags: 'm',
      occurrence: 1,
    })
    expect(await disk('r.txt')).toBe('z = 1\nx = 2\ny = 3\n')
    expect(
      codeOf(await call('edit_file', { path: 'r.txt', old_string: 'x = 2', new_string: 'x = 2' })),
    ).toBe('EDIT_NO_OP')
    expect(
      codeOf(
        await call(
          'edit_file',
          {
            path: 'a.txt',
            old_string: 'line 1\n',
            new_string: lines(30).replace('line 5\n', 'five\n'),
          },
          B,
        ),
      ),
    ).toBe('FILE_STALE_READ')
    await ok('read_file', { path: 'a.txt' }, B)
    const rewrite = {
      path: 'a.txt',
      old_string: 'line 1\n',
      new_string: lines(30).replace('line 5\n', 'five\n'),
    }
    expect(codeOf(await call('edit_file', rewrite, B))).toBe('EDIT_REWRITE_BLOCKED')
    await ok('edit_file', { ...rewrite, allow_rewrite: true }, B)
  })

  it("rebases a regex edit over another agent's change elsewhere", async () => {
    await open()
    await ok('read_file', { path: 'a.txt' })
    await ok('read_file', { path: 'a.txt' }, B)
    await ok('edit_file', { path: 'a.txt', old_string: 'line 29\n', new_string: 'B\n' }, B)
    const out = await ok('edit_file', {
      path: 'a.txt',
      old_string: 'line (2)\\n',
      new_string: 'L$1!\n',
      regex: true,
    })
    expect(out.structured['files'][0].rebased_from).toMatch(/^sha256:/)
    expect(await disk('a.txt')).toBe(
      lines(30).replace('line 2\n', 'L2!\n').replace('line 29\n', 'B\n'),
    )
  })
})

describe('diffs in write results', () => {
  it('renders none for a patch over the budget, and keeps every count and hash', async () => {
    const count = 120
    const body = (i: number) => `${'x'.repeat(2000)} ${i}\n`
    const sections: string[] = []
    for (let i = 0; i < count; i++) {
      await writeFile(join(root, `f${i}.txt`), `a\n${body(i)}c\n`)
      sections.push(
        `--- a/f${i}.txt\n+++ b/f${i}.txt\n@@ -1,3 +1,3 @@\n a\n-${body(i)}+${body(i).replace('x', 'y')} c\n`,
      )
    }
    const patch = sections.join('')
    expect(patch.length).toBeGreaterThan(MAX_RESULT_DIFF_BYTES)
    await open()
    const out = await ok('apply_patch', { patch })
    expect(out.structured['diffs_omitted']).toBe(count)
    const files = out.structured['files'] as Array<Record<string, unknown>>
    expect(files).toHaveLength(count)
    expect(
      files.every((f) => f['diff'] === '' && f['additions'] === 1 && f['deletions'] === 1),
    ).toBe(true)
    expect(out.text).toContain(`diffs omitted for ${count} files (the patch is over 256 KiB)`)
    expect(await disk('f7.txt')).toBe(`a\n${body(7).replace('x', 'y')}c\n`)
    // A small patch still gets its diff.
    const small = await ok('apply_patch', {
      patch: '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-line 1\n+LINE 1\n line 2\n',
    })
    expect(small.structured['diffs_omitted']).toBeUndefined()
    expect(small.structured['files'][0].diff).toContain('+LINE 1')
  })

  it('leaves out a diff past the budget that a small edit made', async () => {
    const line = 'x'.repeat(40) + '\n'
    await writeFile(join(root, 'big.txt'), line + 'tail\n' + line.repeat(7_000))
    await open()
    await ok('read_file', { path: 'big.txt' })
    // One line becomes 7,000: the edit is small, its diff about 290 KB.
    const out = await ok('edit_file', {
      path: 'big.txt',
      old_string: 'tail\n',
      new_string: 'z'.repeat(40).concat('\n').repeat(7_000),
    })
    expect(out.structured['diffs_omitted']).toBe(1)
    expect(out.structured['files'][0].diff).toBe('')
    expect(out.structured['files'][0].additions).toBe(7_000)
    expect(out.text).toContain('diffs omitted for 1 file (the diffs past the first 256 KiB)')
    expect(await disk('big.txt')).toBe(
      line + 'z'.repeat(40).concat('\n').repeat(7_000) + line.repeat(7_000),
    )
  })
})

describe('transactions', () => {
  it('multi_edit writes all files or none', async () => {
    await writeFile(join(root, 'b.txt'), 'b1\nb2\n')
    await open()
    await ok('read_file', { path: 'a.txt' })
    await ok('read_file', { path: 'b.txt' })
    const bad = await call('multi_edit', {
      edits: [
        { path: 'a.txt', old_string: 'line 1\n', new_string: 'A\n' },
        { path: 'b.txt', old_string: 'missing\n', new_string: 'B\n' },
      ],
    })
    expect(codeOf(bad)).toBe('MATCH_NOT_FOUND')
    expect(await disk('a.txt')).toBe(lines(30))
    const good = await ok('multi_edit', {
      edits: [
        { path: 'a.txt', old_string: 'line 1\n', new_string: 'A\n' },
        { path: 'b.txt', old_string: 'b2\n', new_string: 'B\n' },
      ],
    })
    expect(good.structured['summary']).toBe('M a.txt (+1 -1)\nM b.txt (+1 -1)')
  })

  it('dry_run reports the diff and writes nothing', async () => {
    await open()
    await ok('read_file', { path: 'a.txt' })
    const out = await ok('edit_file', {
      path: 'a.txt',
      old_string: 'line 1\n',
      new_string: 'A\n',
      dry_run: true,
    })
    expect(out.structured['dry_run']).toBe(true)
    expect(out.structured['files'][0].diff).toContain('+A')
    expect(await disk('a.txt')).toBe(lines(30))
  })

  it("undoes this agent's last change, not another agent's", async () => {
    await open()
    await ok('read_file', { path: 'a.txt' })
    await ok('edit_file', { path: 'a.txt', old_string: 'line 1\n', new_string: 'A\n' })
    await ok('write_file', { path: 'b.txt', content: 'by b\n' }, B)
    const out = await ok('undo', {})
    expect(out.structured['files']).toEqual([
      expect.objectContaining({ path: 'a.txt', op: 'restore' }),
    ])
    expect(await disk('a.txt')).toBe(lines(30))
    expect(await disk('b.txt')).toBe('by b\n')
    expect(codeOf(await call('undo', {}))).toBe('UNDO_NOT_FOUND')
  })

  it('applies a patch without a read, but not a Codex Add File over or Delete File of an unread file', async () => {
    await open()
    const diff = '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-line 1\n+ONE\n line 2\n'
    const out = await ok('apply_patch', { patch: diff })
    expect(out.structured['files'][0]).toMatchObject({ path: 'a.txt', op: 'update' })
    const codex = '*** Begin Patch\n*** Add File: a.txt\n+replaced\n*** End Patch\n'
    expect(codeOf(await call('apply_patch', { patch: codex }, B))).toBe('FILE_STALE_READ')
    await ok('read_file', { path: 'a.txt' }, B)
    await ok('apply_patch', { patch: codex }, B)
    expect(await disk('a.txt')).toBe('replaced\n')
    // A Codex deletion states nothing of the file: it needs a read of the version it deletes.
    const del = '*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n'
    expect(codeOf(await call('apply_patch', { patch: del }))).toBe('FILE_STALE_READ')
    await ok('read_file', { path: 'a.txt' })
    await ok('apply_patch', { patch: del })
  })

  it('needs a read for a unified deletion that states no content, and none for one that does', async () => {
    await writeFile(join(root, 'empty.txt'), '')
    await writeFile(join(root, 'b.txt'), 'b1\n')
    await open()
    const empty =
      'diff --git a/empty.txt b/empty.txt\ndeleted file mode 100644\nindex e69de29..0000000\n'
    expect(codeOf(await call('apply_patch', { patch: empty }))).toBe('FILE_STALE_READ')
    await ok('read_file', { path: 'empty.txt' })
    await ok('apply_patch', { patch: empty })
    const stated = '--- a/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-b1\n'
    await ok('apply_patch', { patch: stated }, B)
    expect(await readFile(join(root, 'a.txt'), 'utf8')).toBe(lines(30))
  })

  it('reads a patch that ends in a model stop token as the engine does, for the read check too', async () => {
    await open()
    const codex = '*** Begin Patch\n*** Add File: a.txt\n+replaced\n*** End Patch<|im_end|>'
    expect(codeOf(await call('apply_patch', { patch: codex }))).toBe('FILE_STALE_READ')
    await ok('read_file', { path: 'a.txt' })
    const out = await ok('apply_patch', { patch: codex })
    expect(out.structured['warnings']).toEqual([
      expect.objectContaining({ code: 'parse.stop-token' }),
    ])
    expect(await disk('a.txt')).toBe('replaced\n')
  })
})

describe('workspaces and limits', () => {
  it('needs a workspace name when it serves several, and keeps a bound caller in its own', async () => {
    const other = await makeTempDir('patchloom-service-other-')
    try {
      await open({ workspaces: [{ root }, { root: other, name: 'other' }] })
      expect(service.workspaces.map((w) => w.name)).toHaveLength(2)
      expect(codeOf(await call('read_file', { path: 'a.txt' }))).toBe('SERVER_WORKSPACE_UNKNOWN')
      const name = service.workspaces[0]?.name as string
      await ok('read_file', { path: 'a.txt', workspace: name })
      expect(codeOf(await call('read_file', { path: 'a.txt', workspace: 'nope' }))).toBe(
        'SERVER_WORKSPACE_UNKNOWN',
      )
      const bound: Caller = { agent: 'c', workspace: 'other' }
      expect(codeOf(await call('read_file', { path: 'a.txt', workspace: name }, bound))).toBe(
        'SERVER_WORKSPACE_UNKNOWN',
      )
      expect(codeOf(await call('read_file', { path: 'a.txt' }, bound))).toBe('FILE_NOT_FOUND')
    } finally {
      await service.close()
      await rm(other, { recursive: true, force: true })
    }
  })

  it('answers SERVER_BUSY past the per-agent limit instead of queueing without bound', async () => {
    await open({ queue: { perAgent: 1 } })
    const [first, second] = await Promise.all([
      call('read_file', { path: 'a.txt' }),
      call('read_file', { path: 'a.txt' }),
    ])
    expect(first.ok).toBe(true)
    expect(codeOf(second)).toBe('SERVER_BUSY')
    expect(second.structured['error'].retryable).toBe(true)
    expect((await call('read_file', { path: 'a.txt' })).ok).toBe(true)
  })

  it('finishes requests in flight on close, then refuses new ones', async () => {
    await open()
    await ok('read_file', { path: 'a.txt' })
    const inFlight = call('edit_file', { path: 'a.txt', old_string: 'line 1\n', new_string: 'A\n' })
    await service.close()
    expect((await inFlight).ok).toBe(true)
    expect(await disk('a.txt')).toContain('A\nline 2\n')
    expect(codeOf(await call('read_file', { path: 'a.txt' }))).toBe('SERVER_CLOSING')
  })
})
