import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { computeFile } from '../../../src/apply/compute.js'
import type { FileOp, PatchFormat } from '../../../src/types.js'

const bytes = (s: string) => Uint8Array.from(Buffer.from(s, 'latin1'))
const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'))

function compute(format: PatchFormat, op: FileOp, source: Uint8Array | null) {
  const outcome = computeFile({ format, op, source })
  if (!outcome.ok) throw new Error(outcome.error.message)
  return outcome.value
}

const update = (lines: [' ' | '-' | '+', string][]): FileOp => ({
  kind: 'update',
  path: 'f.txt',
  patchLine: 1,
  locate: 'cursor',
  hunks: [
    { patchLine: 2, hints: [], endOfFile: false, lines: lines.map(([op, text]) => ({ op, text })) },
  ],
})

/** Replays a rendered diff with real git apply and returns the file's bytes afterwards. */
function gitReplay(before: Uint8Array, diff: string): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchloom-compute-'))
  try {
    writeFileSync(path.join(dir, 'f.txt'), before)
    writeFileSync(path.join(dir, 'change.diff'), Buffer.from(diff, 'latin1'))
    execFileSync('git', ['apply', 'change.diff'], { cwd: dir, stdio: 'pipe' })
    return readFileSync(path.join(dir, 'f.txt'))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('computeFile', () => {
  it('keeps a BOM and renders a diff git apply replays on the BOM file', () => {
    const before = utf8('\ufeffa\r\nb\r\n')
    const out = compute(
      'codex',
      update([
        ['-', 'a'],
        ['+', 'x'],
        [' ', 'b'],
      ]),
      before,
    )
    expect(Buffer.from(out.after as Uint8Array).toString('utf8')).toBe('\ufeffx\r\nb\r\n')
    expect(gitReplay(before, Buffer.from(out.diff, 'utf8').toString('latin1'))).toEqual(
      Buffer.from(out.after as Uint8Array),
    )
  })

  it('renders files with lone CRs as git does (a CR is content), so the diff replays', () => {
    const before = utf8('k\nl\rm\rn\r\nend\r')
    const out = compute(
      'codex',
      update([
        [' ', 'k'],
        ['-', 'l\rm\rn'],
        ['+', 'l\rM\rn'],
        ['-', 'end\r'],
        ['+', 'end\rx'],
      ]),
      before,
    )
    const after = 'k\nl\rM\rn\nend\rx\n'
    expect(Buffer.from(out.after as Uint8Array).toString('utf8')).toBe(after)
    expect(out).toMatchObject({ additions: 2, deletions: 2 })
    expect(gitReplay(before, out.diff)).toEqual(Buffer.from(after))
  })

  it("keeps the file's final-newline state when asked, in Codex's lone-CR model too", () => {
    const text = (out: { after: Uint8Array | null }) =>
      Buffer.from(out.after as Uint8Array).toString('utf8')
    const run = (job: Parameters<typeof computeFile>[0]) => {
      const outcome = computeFile(job)
      if (!outcome.ok) throw new Error(outcome.error.message)
      return outcome.value
    }
    const op = update([
      [' ', 'k'],
      ['-', 'l'],
      ['+', 'L'],
    ])
    // A lone CR is a line end for Codex; the file ends in no ending at all, and keeps none.
    const source = utf8('k\rl')
    expect(text(run({ format: 'codex', op, source }))).toBe('k\rL\r')
    const kept = run({ format: 'codex', op, source, keepFinalNewline: true })
    expect(text(kept)).toBe('k\rL')
    expect(kept).toMatchObject({ additions: 1, deletions: 1 })
    // One that ends in a lone CR keeps it.
    expect(text(run({ format: 'codex', op, source: utf8('k\rl\r'), keepFinalNewline: true }))).toBe(
      'k\rL\r',
    )
    // A unified diff's marker yields to the file's state, also where only counts are wanted.
    const hunk = {
      patchLine: 2,
      hints: [],
      endOfFile: false,
      oldStartLine: 1,
      newNoNewlineAtEnd: true,
      lines: [
        { op: ' ' as const, text: 'k' },
        { op: '-' as const, text: 'l' },
        { op: '+' as const, text: 'L' },
      ],
    }
    const unified: FileOp = {
      kind: 'update',
      path: 'f.txt',
      patchLine: 1,
      locate: 'near-line',
      hunks: [hunk],
    }
    const lf = utf8('k\nl\n')
    const counted = { countOnly: true, sourceIsUtf8: true, sourceHasNoCrOrNul: true } as const
    expect(text(run({ format: 'unified', op: unified, source: lf, ...counted }))).toBe('k\nL')
    const keptLf = run({
      format: 'unified',
      op: unified,
      source: lf,
      ...counted,
      keepFinalNewline: true,
    })
    expect(text(keptLf)).toBe('k\nL\n')
    expect(keptLf).toMatchObject({ additions: 1, deletions: 1, diff: '' })
  })

  it('diffs non-UTF-8 text line by line, as git does, and keeps its bytes', () => {
    const before = bytes('caf\xe9\nline2\nline3\n')
    const out = compute(
      'codex',
      update([
        ['-', 'line3'],
        ['+', 'line three'],
      ]),
      before,
    )
    expect(Buffer.from(out.after as Uint8Array)).toEqual(
      Buffer.from('caf\xe9\nline2\nline three\n', 'latin1'),
    )
    expect(out).toMatchObject({ additions: 1, deletions: 1 })
    expect(out.diff).not.toContain('Binary files')
    expect(gitReplay(before, out.diff)).toEqual(Buffer.from(out.after as Uint8Array))
  })

  it('reports a file with NUL bytes as binary', () => {
    const before = bytes('a\0\nkeep\n')
    const out = compute(
      'codex',
      update([
        ['-', 'keep'],
        ['+', 'kept'],
      ]),
      before,
    )
    expect(out.diff).toContain('Binary files a/f.txt and b/f.txt differ')
    expect(Buffer.from(out.after as Uint8Array)).toEqual(Buffer.from('a\0\nkept\n', 'latin1'))
  })

  it('renders an unchanged pure rename as headers only', () => {
    const op: FileOp = {
      kind: 'update',
      path: 'a.txt',
      moveTo: 'b.txt',
      patchLine: 1,
      locate: 'cursor',
      hunks: [],
    }
    expect(compute('codex', op, utf8('x\n'))).toMatchObject({
      additions: 0,
      deletions: 0,
      diff: 'diff --git a/a.txt b/b.txt\nrename from a.txt\nrename to b.txt\n',
    })
  })

  it("deletes by a diff's hunkless deletion only an empty file, as git does", () => {
    // `deleted file mode` with no hunk is git's deletion of an empty file; git apply refuses it
    // for a file with content ("removal patch leaves file contents"). A Codex Delete File states
    // no content at all.
    const op: FileOp = { kind: 'delete', path: 'f.txt', patchLine: 1, hunks: [] }
    expect(compute('unified', op, utf8('')).after).toBeNull()
    const refused = computeFile({ format: 'unified', op, source: utf8('x\n') })
    expect(refused).toMatchObject({ ok: false, error: { code: 'MATCH_NOT_FOUND', path: 'f.txt' } })
    expect(compute('codex', op, utf8('x\n')).after).toBeNull()
  })
})

describe('computeFile with bytesOnly (history replay)', () => {
  it('gives the same bytes with no diff and no counts', () => {
    const op = update([
      [' ', 'a'],
      ['-', 'b'],
      ['+', 'B'],
    ])
    const full = compute('codex', op, utf8('a\nb\nc\n'))
    const bytes = computeFile({ format: 'codex', op, source: utf8('a\nb\nc\n'), bytesOnly: true })
    expect(full).toMatchObject({ additions: 1, deletions: 1 })
    expect(bytes).toEqual({
      ok: true,
      value: { after: full.after, additions: 0, deletions: 0, diff: '', warnings: [] },
    })
  })
})

describe('computeFile with rawBytes (a patch that is not UTF-8)', () => {
  const RAW_E9 = '\udce9'
  const raw = (op: FileOp, source: Uint8Array | null) =>
    computeFile({ format: 'codex', op, source, rawBytes: true })

  it('writes raw bytes as they are into a UTF-8 file, BOM and UTF-8 lines kept', () => {
    const source = utf8('\ufeffnaïve\nx\n')
    const outcome = raw(
      update([
        [' ', 'naïve'],
        ['-', 'x'],
        ['+', `caf${RAW_E9}`],
      ]),
      source,
    )
    expect(outcome.ok).toBe(true)
    if (outcome.ok) {
      const want = Buffer.concat([Buffer.from('\ufeffnaïve\n', 'utf8'), bytes('caf\xe9\n')])
      expect(Buffer.from(outcome.value.after ?? [])).toEqual(want)
    }
  })

  it('refuses a lenient match on a UTF-8 file with MATCH_NOT_EXACT, on a Latin-1 file with FILE_NOT_TEXT', () => {
    const op = update([
      [' ', 'tea'],
      ['+', `caf${RAW_E9}`],
    ])
    const onUtf8 = raw(op, utf8('tea  \n'))
    expect(onUtf8.ok).toBe(false)
    if (!onUtf8.ok) {
      expect(onUtf8.error).toMatchObject({ code: 'MATCH_NOT_EXACT', path: 'f.txt', patchLine: 2 })
      expect(onUtf8.error.message).toContain('not UTF-8')
    }
    const onLatin1 = raw(op, bytes('tea  \n\xe9\n'))
    expect(onLatin1.ok).toBe(false)
    if (!onLatin1.ok) expect(onLatin1.error.code).toBe('FILE_NOT_TEXT')
  })

  it('says that the patch is not UTF-8 when its lines are not found', () => {
    const outcome = raw(update([['-', `caf${RAW_E9}`]]), utf8('café\n'))
    expect(outcome.ok).toBe(false)
    if (!outcome.ok) {
      expect(outcome.error.code).toBe('MATCH_NOT_FOUND')
      expect(outcome.error.hint).toContain('not UTF-8')
    }
  })

  it('creates an added file from the raw bytes', () => {
    const add: FileOp = {
      kind: 'add',
      path: 'f.txt',
      patchLine: 1,
      content: `é${RAW_E9}\n`,
      overwrite: true,
    }
    const outcome = raw(add, null)
    expect(outcome.ok && Buffer.from(outcome.value.after ?? [])).toEqual(
      Buffer.from([0xc3, 0xa9, 0xe9, 0x0a]),
    )
  })
})
