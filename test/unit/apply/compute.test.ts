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

  it('renders lone-CR files the way git splits them, so the diff replays', () => {
    const before = utf8('l\rm\rn\r')
    const out = compute(
      'codex',
      update([
        [' ', 'l'],
        ['-', 'm'],
        ['+', 'M'],
        [' ', 'n'],
      ]),
      before,
    )
    expect(Buffer.from(out.after as Uint8Array).toString('utf8')).toBe('l\rM\rn\r')
    expect(out).toMatchObject({ additions: 1, deletions: 1 })
    expect(gitReplay(before, out.diff)).toEqual(Buffer.from('l\rM\rn\r'))
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
})
