// Unit tests for src/parse/unified.ts. Real `git diff` / `diff -ruN` output is produced in temp
// directories so the parser is checked against what the tools write today, not what we remember
// them writing; hand-written patches pin each leniency and error.
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { inflateSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { applyBinaryPatch } from '../../../src/apply/git-binary.js'
import { parseUnifiedDiff } from '../../../src/parse/unified.js'
import type { EditErrorData } from '../../../src/errors.js'
import type { BinaryPatch, EditPlan, FileOp, LineHunk } from '../../../src/types.js'
import { runParserContract } from '../../contract/parser.contract.js'
import { noise } from '../../helpers/noise.js'

const tempDirs: string[] = []
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
})

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
}

interface Repo {
  readonly dir: string
  write(path: string, content: string | Uint8Array): void
  remove(path: string): void
  git(...args: string[]): string
  /** Stages everything and returns `git diff --cached` with the given extra flags. */
  diff(...flags: string[]): string
}

function makeRepo(files: Record<string, string | Uint8Array>): Repo {
  const dir = mkdtempSync(join(tmpdir(), 'patchloom-unified-'))
  tempDirs.push(dir)
  const repo: Repo = {
    dir,
    write(path, content) {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), content)
    },
    remove(path) {
      rmSync(join(dir, path))
    },
    git(...args) {
      return execFileSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8' })
    },
    diff(...flags) {
      repo.git('add', '-A')
      return repo.git('-c', 'core.quotePath=true', 'diff', '--cached', ...flags)
    },
  }
  repo.git('init', '-q', '.')
  for (const [path, content] of Object.entries(files)) repo.write(path, content)
  repo.git('add', '-A')
  repo.git('commit', '-q', '--allow-empty', '-m', 'init')
  return repo
}

function parsed(text: string): EditPlan {
  const result = parseUnifiedDiff(text)
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`)
  return result.value
}

function parseError(text: string): EditErrorData {
  const result = parseUnifiedDiff(text)
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value)}`)
  return result.error
}

/** Line number (1-based) of the first line of `text` that equals `line`. */
function lineOf(text: string, line: string): number {
  const index = text.split('\n').indexOf(line)
  if (index === -1) throw new Error(`line ${JSON.stringify(line)} not in patch`)
  return index + 1
}

function hunk(
  patchLine: number,
  oldStartLine: number,
  body: string[],
  extra: Partial<LineHunk> = {},
): LineHunk {
  return {
    patchLine,
    hints: [],
    oldStartLine,
    endOfFile: false,
    lines: body.map((line) => ({ op: line[0] as ' ' | '-' | '+', text: line.slice(1) })),
    ...extra,
  }
}

function only(plan: EditPlan): FileOp {
  expect(plan.ops).toHaveLength(1)
  return plan.ops[0] as FileOp
}

function binaryOf(op: FileOp): BinaryPatch {
  if (op.kind === 'edits' || op.binary === undefined)
    throw new Error(`op ${op.kind} has no binary patch`)
  return op.binary
}

function applied(before: Uint8Array | null, patch: BinaryPatch): Uint8Array {
  const result = applyBinaryPatch(before, patch, (data) => inflateSync(data))
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
  return new Uint8Array(result.value)
}

const TWELVE = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve\n'

describe('parseUnifiedDiff on real git output', () => {
  it('parses a modification with several hunks and a section heading', () => {
    const repo = makeRepo({ 'multi.txt': TWELVE })
    repo.write('multi.txt', TWELVE.replace('two', 'TWO').replace('eleven', 'ELEVEN'))
    const patch = repo.diff()
    expect(parsed(patch)).toEqual({
      format: 'unified',
      ops: [
        {
          kind: 'update',
          path: 'multi.txt',
          patchLine: 1,
          hunks: [
            hunk(lineOf(patch, '@@ -1,5 +1,5 @@'), 1, [
              ' one',
              '-two',
              '+TWO',
              ' three',
              ' four',
              ' five',
            ]),
            {
              // git's function context, kept for history replay's Codex hints
              ...hunk(lineOf(patch, '@@ -8,5 +8,5 @@ seven'), 8, [
                ' eight',
                ' nine',
                ' ten',
                '-eleven',
                '+ELEVEN',
                ' twelve',
              ]),
              section: 'seven',
            },
          ],
          locate: 'near-line',
        },
      ],
    })
  })

  it('parses a rename with changes as an update with moveTo', () => {
    const repo = makeRepo({ 'moved.txt': 'a\nb\nc\nd\ne\nf\ng\nh\n' })
    repo.git('mv', 'moved.txt', 'renamed.txt')
    repo.write('renamed.txt', 'a\nb\nc\nD\ne\nf\ng\nh\n')
    const patch = repo.diff('-M')
    expect(patch).toContain('rename from moved.txt')
    expect(only(parsed(patch))).toEqual({
      kind: 'update',
      path: 'moved.txt',
      patchLine: 1,
      moveTo: 'renamed.txt',
      hunks: [
        hunk(lineOf(patch, '@@ -1,7 +1,7 @@'), 1, [' a', ' b', ' c', '-d', '+D', ' e', ' f', ' g']),
      ],
      locate: 'near-line',
    })
  })

  it('parses a pure rename as an update with no hunks', () => {
    const repo = makeRepo({ 'dir/old name.txt': 'same\n' })
    repo.git('mv', 'dir/old name.txt', 'dir/new name.txt')
    const patch = repo.diff('-M')
    expect(only(parsed(patch))).toEqual({
      kind: 'update',
      path: 'dir/old name.txt',
      patchLine: 1,
      moveTo: 'dir/new name.txt',
      hunks: [],
      locate: 'near-line',
    })
  })

  it('parses a copy found by --find-copies-harder as a copy op', () => {
    const numbers = Array.from({ length: 30 }, (_, i) => `${i + 1}\n`).join('')
    const repo = makeRepo({ 'src.txt': numbers })
    repo.write('copy.txt', `${numbers}31\n`)
    const patch = repo.diff('-C', '--find-copies-harder')
    expect(patch).toContain('copy from src.txt')
    expect(only(parsed(patch))).toEqual({
      kind: 'copy',
      from: 'src.txt',
      path: 'copy.txt',
      patchLine: 1,
      hunks: [hunk(lineOf(patch, '@@ -28,3 +28,4 @@'), 28, [' 28', ' 29', ' 30', '+31'])],
      locate: 'near-line',
    })
  })

  it('parses a mode change without content as an update with modes', () => {
    const repo = makeRepo({ 'run.sh': 'echo hi\n' })
    chmodSync(join(repo.dir, 'run.sh'), 0o755)
    const patch = repo.diff()
    expect(only(parsed(patch))).toEqual({
      kind: 'update',
      path: 'run.sh',
      patchLine: 1,
      hunks: [],
      locate: 'near-line',
      modeBefore: '100644',
      modeAfter: '100755',
    })
  })

  it('parses a mode change with content changes', () => {
    const repo = makeRepo({ 'run.sh': 'echo hi\n' })
    repo.write('run.sh', 'echo bye\n')
    chmodSync(join(repo.dir, 'run.sh'), 0o755)
    const patch = repo.diff()
    expect(only(parsed(patch))).toEqual({
      kind: 'update',
      path: 'run.sh',
      patchLine: 1,
      hunks: [hunk(lineOf(patch, '@@ -1 +1 @@'), 1, ['-echo hi', '+echo bye'])],
      locate: 'near-line',
      modeBefore: '100644',
      modeAfter: '100755',
    })
  })

  it('parses a new file as an add op with its content and mode', () => {
    const repo = makeRepo({})
    repo.write('dir/new.txt', 'new\nfile\n')
    expect(only(parsed(repo.diff()))).toEqual({
      kind: 'add',
      path: 'dir/new.txt',
      patchLine: 1,
      content: 'new\nfile\n',
      modeAfter: '100644',
      overwrite: false,
    })
  })

  it('parses a new executable file without a final newline', () => {
    const repo = makeRepo({})
    repo.write('tool', '#!/bin/sh\nexit 0')
    chmodSync(join(repo.dir, 'tool'), 0o755)
    expect(only(parsed(repo.diff()))).toEqual({
      kind: 'add',
      path: 'tool',
      patchLine: 1,
      content: '#!/bin/sh\nexit 0',
      modeAfter: '100755',
      overwrite: false,
    })
  })

  it('parses an empty new file, which has no hunks', () => {
    const repo = makeRepo({})
    repo.write('empty.txt', '')
    const patch = repo.diff()
    expect(patch).not.toContain('@@')
    expect(only(parsed(patch))).toEqual({
      kind: 'add',
      path: 'empty.txt',
      patchLine: 1,
      content: '',
      modeAfter: '100644',
      overwrite: false,
    })
  })

  it('parses a deleted file as a delete op whose hunk states the removed content', () => {
    const repo = makeRepo({ 'del.txt': 'gone\nbye\n' })
    repo.remove('del.txt')
    const patch = repo.diff()
    expect(only(parsed(patch))).toEqual({
      kind: 'delete',
      path: 'del.txt',
      patchLine: 1,
      hunks: [hunk(lineOf(patch, '@@ -1,2 +0,0 @@'), 1, ['-gone', '-bye'])],
      modeBefore: '100644',
    })
  })

  it('parses a deleted empty file, which has no hunks', () => {
    const repo = makeRepo({ 'empty.txt': '' })
    repo.remove('empty.txt')
    expect(only(parsed(repo.diff()))).toEqual({
      kind: 'delete',
      path: 'empty.txt',
      patchLine: 1,
      hunks: [],
      modeBefore: '100644',
    })
  })

  it('sets both no-newline flags when both sides lack a final newline', () => {
    const repo = makeRepo({ 'nonl.txt': 'x\ny' })
    repo.write('nonl.txt', 'x\nY')
    const patch = repo.diff()
    expect(only(parsed(patch))).toMatchObject({
      hunks: [
        hunk(lineOf(patch, '@@ -1,2 +1,2 @@'), 1, [' x', '-y', '+Y'], {
          oldNoNewlineAtEnd: true,
          newNoNewlineAtEnd: true,
        }),
      ],
    })
  })

  it('sets only the old flag when a final newline is added', () => {
    const repo = makeRepo({ 'f.txt': 'a\nb' })
    repo.write('f.txt', 'a\nb\n')
    const op = only(parsed(repo.diff()))
    expect(op.kind === 'update' && op.hunks[0]).toMatchObject({
      lines: [
        { op: ' ', text: 'a' },
        { op: '-', text: 'b' },
        { op: '+', text: 'b' },
      ],
      oldNoNewlineAtEnd: true,
    })
    expect(op.kind === 'update' && op.hunks[0]?.newNoNewlineAtEnd).toBeUndefined()
  })

  it('sets only the new flag when the final newline is removed', () => {
    const repo = makeRepo({ 'f.txt': 'a\nb\n' })
    repo.write('f.txt', 'a\nb')
    const op = only(parsed(repo.diff()))
    expect(op.kind === 'update' && op.hunks[0]?.newNoNewlineAtEnd).toBe(true)
    expect(op.kind === 'update' && op.hunks[0]?.oldNoNewlineAtEnd).toBeUndefined()
  })

  it('sets both flags from one marker after an unchanged last context line', () => {
    const repo = makeRepo({ 'f.txt': 'a\nb\nc\nd\nend' })
    repo.write('f.txt', 'A\nb\nc\nd\nend')
    const patch = repo.diff('-U4')
    expect(patch).toMatch(/ end\n\\ No newline at end of file\n$/)
    const op = only(parsed(patch))
    expect(op.kind === 'update' && op.hunks[0]).toMatchObject({
      oldNoNewlineAtEnd: true,
      newNoNewlineAtEnd: true,
    })
  })

  it('decodes quoted names with a tab, a space and UTF-8 octal escapes', () => {
    const name = 'sp ace\té.txt'
    const repo = makeRepo({ [name]: 'z\n' })
    repo.write(name, 'Z\n')
    const patch = repo.diff()
    expect(patch).toContain('"a/sp ace\\t\\303\\251.txt"')
    expect(only(parsed(patch))).toEqual({
      kind: 'update',
      path: name,
      patchLine: 1,
      hunks: [hunk(lineOf(patch, '@@ -1 +1 @@'), 1, ['-z', '+Z'])],
      locate: 'near-line',
    })
  })

  it('reads unquoted names with spaces from diff --git, ---/+++ and rename lines', () => {
    const repo = makeRepo({ 'a dir/b file.txt': 'x\n', 'plain name.txt': 'q\n' })
    repo.write('a dir/b file.txt', 'y\n')
    repo.git('mv', 'plain name.txt', 'other name.txt')
    const plan = parsed(repo.diff('-M'))
    expect(
      plan.ops.map((op) => [op.kind, op.path, op.kind === 'update' ? op.moveTo : undefined]),
    ).toEqual([
      ['update', 'a dir/b file.txt', undefined],
      ['update', 'plain name.txt', 'other name.txt'],
    ])
  })

  it("parses a binary literal for a new file and applies to git's bytes", () => {
    const repo = makeRepo({})
    const bytes = Uint8Array.from([1, 2, 0, 97, 98, 99, 0, 255])
    repo.write('new.bin', bytes)
    const op = only(parsed(repo.diff('--binary')))
    expect(op).toMatchObject({
      kind: 'add',
      path: 'new.bin',
      content: '',
      modeAfter: '100644',
      overwrite: false,
    })
    const binary = binaryOf(op)
    expect(binary.forward).toMatchObject({ method: 'literal', inflatedSize: 8 })
    expect(binary.reverse).toMatchObject({ method: 'literal', inflatedSize: 0 })
    expect(applied(null, binary)).toEqual(bytes)
  })

  it('parses a binary literal for a rewritten file and applies both directions', () => {
    const before = noise(200, 1)
    const after = noise(300, 2)
    const repo = makeRepo({ 'img.bin': before })
    repo.write('img.bin', after)
    const op = only(parsed(repo.diff('--binary')))
    expect(op).toMatchObject({ kind: 'update', path: 'img.bin', hunks: [], locate: 'near-line' })
    const binary = binaryOf(op)
    expect(binary.forward.method).toBe('literal')
    expect(applied(before, binary)).toEqual(after)
    const reverse = binary.reverse
    if (reverse === undefined) throw new Error('expected a reverse hunk')
    expect(applied(after, { forward: reverse })).toEqual(before)
  })

  it("parses a binary delta and reproduces git's result, in both directions", () => {
    const before = noise(6000, 7)
    before[100] = 0
    const after = Uint8Array.from(before)
    after[3000] = (after[3000] ?? 0) ^ 0xff
    after.set([1, 2, 3, 4], 5000)
    const repo = makeRepo({ 'data.bin': before })
    repo.write('data.bin', after)
    const op = only(parsed(repo.diff('--binary')))
    const binary = binaryOf(op)
    expect(binary.forward).toMatchObject({ method: 'delta', inflatedSize: expect.any(Number) })
    expect(binary.reverse?.method).toBe('delta')
    expect(applied(before, binary)).toEqual(after)
    expect(
      applied(after, { forward: binary.reverse as NonNullable<BinaryPatch['reverse']> }),
    ).toEqual(before)
  })

  it('parses a deleted binary file as a delete op with its binary patch', () => {
    const repo = makeRepo({ 'old.bin': Uint8Array.from([0, 1, 2, 3]) })
    repo.remove('old.bin')
    const op = only(parsed(repo.diff('--binary')))
    expect(op).toMatchObject({ kind: 'delete', path: 'old.bin', hunks: [], modeBefore: '100644' })
    expect(binaryOf(op).forward).toMatchObject({ method: 'literal', inflatedSize: 0 })
  })

  it('refuses `Binary files ... differ` without data, pointing at --binary', () => {
    const repo = makeRepo({ 'data.bin': Uint8Array.from([0, 1, 2]) })
    repo.write('data.bin', Uint8Array.from([0, 1, 3]))
    const patch = repo.diff()
    expect(patch).toContain('Binary files a/data.bin and b/data.bin differ')
    const error = parseError(patch)
    expect(error).toMatchObject({
      code: 'PARSE_BAD_BINARY',
      path: 'data.bin',
      patchLine: lineOf(patch, 'Binary files a/data.bin and b/data.bin differ'),
    })
    expect(error.hint).toContain('git diff --binary')
  })

  it('parses git format-patch output, ignoring the mail headers, message and signature', () => {
    const repo = makeRepo({ 'a.txt': 'one\n', 'b.txt': 'two\n' })
    repo.write('a.txt', 'ONE\n')
    repo.write('b.txt', 'TWO\n')
    repo.git('add', '-A')
    repo.git(
      'commit',
      '-q',
      '-m',
      'Change things\n\n--- not a header, just prose\n@@ neither is this',
    )
    const patch = repo.git('format-patch', '-1', '--stdout')
    expect(patch).toMatch(/^-- $/m)
    const plan = parsed(patch)
    expect(plan.ops.map((op) => op.path)).toEqual(['a.txt', 'b.txt'])
    const last = plan.ops[1]
    expect(last?.kind === 'update' && last.hunks[0]?.lines).toEqual([
      { op: '-', text: 'two' },
      { op: '+', text: 'TWO' },
    ])
  })

  it('parses a multi-file diff whose ops follow the patch order', () => {
    const repo = makeRepo({ 'keep.txt': 'k\n', 'gone.txt': 'g\n' })
    repo.write('keep.txt', 'K\n')
    repo.remove('gone.txt')
    repo.write('born.txt', 'b\n')
    const plan = parsed(repo.diff())
    expect(plan.ops.map((op) => `${op.kind}:${op.path}`)).toEqual([
      'add:born.txt',
      'delete:gone.txt',
      'update:keep.txt',
    ])
  })
})

describe('parseUnifiedDiff on real diff -ruN output', () => {
  it('strips the differing first component and reads epoch timestamps as creation and deletion', () => {
    const dir = mkdtempSync(join(tmpdir(), 'patchloom-diffu-'))
    tempDirs.push(dir)
    const put = (path: string, content: string): void => {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), content)
    }
    put('orig/src/x.c', 'a\nb\n')
    put('new/src/x.c', 'a\nB\n')
    put('new/src/added.c', 'n\n')
    put('orig/gone.txt', 'old\n')
    let patch = ''
    try {
      execFileSync('diff', ['-ruN', 'orig', 'new'], { cwd: dir, encoding: 'utf8' })
    } catch (error) {
      // diff exits 1 when the trees differ; its output is the patch.
      patch = String((error as { stdout: string }).stdout)
    }
    expect(parsed(patch).ops).toEqual([
      {
        kind: 'delete',
        path: 'gone.txt',
        patchLine: lineOf(patch, 'diff -ruN orig/gone.txt new/gone.txt') + 1,
        hunks: [hunk(lineOf(patch, '@@ -1 +0,0 @@'), 1, ['-old'])],
      },
      {
        kind: 'add',
        path: 'src/added.c',
        patchLine: lineOf(patch, 'diff -ruN orig/src/added.c new/src/added.c') + 1,
        content: 'n\n',
        overwrite: false,
      },
      {
        kind: 'update',
        path: 'src/x.c',
        patchLine: lineOf(patch, 'diff -ruN orig/src/x.c new/src/x.c') + 1,
        hunks: [hunk(lineOf(patch, '@@ -1,2 +1,2 @@'), 1, [' a', '-b', '+B'])],
        locate: 'near-line',
      },
    ])
  })
})

describe('parseUnifiedDiff leniencies', () => {
  it('recounts a hunk whose stated counts are too large', () => {
    const patch = '--- a/f.txt\n+++ b/f.txt\n@@ -1,9 +1,9 @@\n a\n-b\n+B\n c\n'
    expect(only(parsed(patch))).toEqual({
      kind: 'update',
      path: 'f.txt',
      patchLine: 1,
      hunks: [hunk(3, 1, [' a', '-b', '+B', ' c'])],
      locate: 'near-line',
    })
  })

  it('recounts a hunk whose stated counts are too small', () => {
    const patch = '--- a/f.txt\n+++ b/f.txt\n@@ -1,1 +1,1 @@\n a\n-b\n+B\n c\n'
    expect(only(parsed(patch))).toMatchObject({ hunks: [hunk(3, 1, [' a', '-b', '+B', ' c'])] })
  })

  it('ends a recounted hunk at the next @@, diff or ---/+++ line', () => {
    const patch = [
      '--- a/f.txt',
      '+++ b/f.txt',
      '@@ -1,7 +1,7 @@',
      '-a',
      '+A',
      '@@ -10,3 +10,3 @@',
      '-j',
      '+J',
      '--- a/g.txt',
      '+++ b/g.txt',
      '@@ -1,5 +1,5 @@',
      '-x',
      '+X',
      'diff -u a/h.txt b/h.txt',
      '--- a/h.txt',
      '+++ b/h.txt',
      '@@ -1 +1 @@',
      '-h',
      '+H',
      '',
    ].join('\n')
    const plan = parsed(patch)
    expect(
      plan.ops.map((op) =>
        op.kind === 'update' ? [op.path, op.hunks.map((h) => h.lines.length)] : null,
      ),
    ).toEqual([
      ['f.txt', [2, 2]],
      ['g.txt', [2]],
      ['h.txt', [2]],
    ])
  })

  it('ends a recounted hunk at a format-patch signature', () => {
    const patch = '--- a/f\n+++ b/f\n@@ -1,9 +1,9 @@\n-a\n+b\n-- \n2.39.5\n\n'
    expect(only(parsed(patch))).toMatchObject({ hunks: [hunk(3, 1, ['-a', '+b'])] })
  })

  it('accepts the rename old/new spelling of early git', () => {
    const patch = 'diff --git a/x b/y\nrename old x\nrename new y\n'
    expect(only(parsed(patch))).toMatchObject({ kind: 'update', path: 'x', moveTo: 'y', hunks: [] })
  })

  it('stops at the stated counts when the body agrees, leaving trailing lines as junk', () => {
    const patch = '--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n\n\nTrailing prose.\n'
    expect(only(parsed(patch))).toMatchObject({ hunks: [hunk(3, 1, [' a', '-b', '+B'])] })
  })

  it('reads an empty line inside a hunk as an empty context line', () => {
    const patch = '--- a/f.txt\n+++ b/f.txt\n@@ -1,4 +1,4 @@\n a\n\n-b\n+B\n c\n'
    expect(only(parsed(patch))).toMatchObject({
      hunks: [hunk(3, 1, [' a', ' ', '-b', '+B', ' c'])],
    })
  })

  it('keeps inner empty lines but drops trailing ones when it has to recount', () => {
    const patch = '--- a/f.txt\n+++ b/f.txt\n@@ -1,40 +1,40 @@\n a\n\n-b\n+B\n\n\n'
    expect(only(parsed(patch))).toMatchObject({ hunks: [hunk(3, 1, [' a', ' ', '-b', '+B'])] })
  })

  it('ignores trailing empty lines beyond the stated count at the end of the patch', () => {
    const patch = '--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-a\n+A\n x\n\n\n\n'
    expect(only(parsed(patch))).toMatchObject({ hunks: [hunk(3, 1, ['-a', '+A', ' x'])] })
  })

  it('strips the tab and timestamp from traditional headers', () => {
    const patch =
      '--- lib/util.py\t2024-03-01 10:00:00.000000000 +0100\n' +
      '+++ lib/util.py\t2024-03-02 11:00:00.000000000 +0100\n' +
      '@@ -3 +3 @@\n-x = 1\n+x = 2\n'
    expect(only(parsed(patch))).toEqual({
      kind: 'update',
      path: 'lib/util.py',
      patchLine: 1,
      hunks: [hunk(3, 3, ['-x = 1', '+x = 2'])],
      locate: 'near-line',
    })
  })

  it('prefers the new name when traditional names differ in more than the first component', () => {
    const patch = '--- util.py.orig\n+++ util.py\n@@ -1 +1 @@\n-a\n+b\n'
    expect(only(parsed(patch)).path).toBe('util.py')
  })

  it('strips the first component only when it is the sole difference', () => {
    const cases: [string, string, string][] = [
      ['orig/src/x.c', 'new/src/x.c', 'src/x.c'],
      ['a/x.c', 'b/x.c', 'x.c'],
      ['src/x.c', 'src/x.c', 'src/x.c'],
      ['x.c', 'x.c', 'x.c'],
      ['old/x.c', 'new/y.c', 'new/y.c'],
      ['one/a.c', 'two/b/a.c', 'two/b/a.c'],
    ]
    for (const [oldName, newName, expected] of cases) {
      const patch = `--- ${oldName}\n+++ ${newName}\n@@ -1 +1 @@\n-a\n+b\n`
      expect([oldName, newName, only(parsed(patch)).path]).toEqual([oldName, newName, expected])
    }
  })

  it('creates and deletes with /dev/null in traditional headers, stripping a/ and b/', () => {
    const patch = [
      '--- /dev/null',
      '+++ b/made.txt',
      '@@ -0,0 +1,2 @@',
      '+one',
      '+two',
      '\\ No newline at end of file',
      '--- a/dropped.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
    ].join('\n')
    expect(parsed(patch).ops).toEqual([
      { kind: 'add', path: 'made.txt', patchLine: 1, content: 'one\ntwo', overwrite: false },
      { kind: 'delete', path: 'dropped.txt', patchLine: 7, hunks: [hunk(9, 1, ['-bye'])] },
    ])
  })

  it('ignores junk before, between and after files', () => {
    const patch = [
      'From 1234 Mon Sep 17 00:00:00 2001',
      'Subject: [PATCH] fix',
      '',
      'Index: f.txt',
      '===================================================================',
      '--- f.txt\t(revision 1)',
      '+++ f.txt\t(working copy)',
      '@@ -1 +1 @@',
      '-a',
      '+b',
      'Only in new: other.txt',
      'diff -u g.txt g.txt',
      'Some words in between.',
      '--- g.txt',
      '+++ g.txt',
      '@@ -2 +2 @@',
      '-c',
      '+d',
      '',
      'Thanks!',
    ].join('\n')
    expect(parsed(patch).ops).toEqual([
      {
        kind: 'update',
        path: 'f.txt',
        patchLine: 6,
        hunks: [hunk(8, 1, ['-a', '+b'])],
        locate: 'near-line',
      },
      {
        kind: 'update',
        path: 'g.txt',
        patchLine: 14,
        hunks: [hunk(16, 2, ['-c', '+d'])],
        locate: 'near-line',
      },
    ])
  })

  it('reads CRLF patch text like LF text', () => {
    const lf =
      'diff --git a/f.txt b/f.txt\nindex 1..2 100644\n--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n'
    const crlf = lf.replace(/\n/g, '\r\n')
    expect(parsed(crlf)).toEqual(parsed(lf))
    expect(only(parsed(crlf))).toMatchObject({
      path: 'f.txt',
      hunks: [hunk(5, 1, [' a', '-b', '+B'])],
    })
  })

  it('accepts blank lines between the hunks of one file', () => {
    const patch = '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+A\n\n@@ -5 +5 @@\n-e\n+E\n'
    const op = only(parsed(patch))
    expect(op.kind === 'update' && op.hunks.map((h) => h.patchLine)).toEqual([3, 7])
  })

  it('accepts hunks directly after a diff --git line without ---/+++', () => {
    const patch = 'diff --git a/f.txt b/f.txt\n@@ -1 +1 @@\n-a\n+b\n'
    expect(only(parsed(patch))).toEqual({
      kind: 'update',
      path: 'f.txt',
      patchLine: 1,
      hunks: [hunk(2, 1, ['-a', '+b'])],
      locate: 'near-line',
    })
  })

  it('keeps a/ and b/ on diff --git names written with --no-prefix style mixed prefixes', () => {
    const patch =
      'diff --git src/f.txt src/f.txt\n--- src/f.txt\n+++ src/f.txt\n@@ -1 +1 @@\n-a\n+b\n'
    expect(only(parsed(patch)).path).toBe('src/f.txt')
  })

  it('treats a hunk header without counts as one line per side', () => {
    const patch = '--- a/f\n+++ b/f\n@@ -7 +7 @@\n-a\n+b\n'
    expect(only(parsed(patch))).toMatchObject({ hunks: [hunk(3, 7, ['-a', '+b'])] })
  })

  it('records an insertion-only hunk with its stated old start', () => {
    const patch = '--- a/f\n+++ b/f\n@@ -5,0 +6,2 @@\n+x\n+y\n'
    expect(only(parsed(patch))).toMatchObject({ hunks: [hunk(3, 5, ['+x', '+y'])] })
  })
})

describe('parseUnifiedDiff names', () => {
  it('decodes every C escape git writes in quoted names', () => {
    const patch =
      '--- "a/q\\a\\b\\f\\v\\r\\n\\"\\\\\\303\\251"\t2024-01-01\n+++ "b/q\\a\\b\\f\\v\\r\\n\\"\\\\\\303\\251"\n@@ -1 +1 @@\n-a\n+b\n'
    expect(only(parsed(patch)).path).toBe('q\x07\b\f\v\r\n"\\\u00e9')
  })

  it('splits diff --git names when only one of them is quoted', () => {
    const patch =
      'diff --git a/plain "b/tab\\there"\nsimilarity index 100%\nrename from plain\nrename to "tab\\there"\n'
    expect(only(parsed(patch))).toMatchObject({
      kind: 'update',
      path: 'plain',
      moveTo: 'tab\there',
    })
    const reversed =
      'diff --git "a/tab\\there" b/plain\nsimilarity index 100%\nrename from "tab\\there"\nrename to plain\n'
    expect(only(parsed(reversed))).toMatchObject({
      kind: 'update',
      path: 'tab\there',
      moveTo: 'plain',
    })
  })

  it('takes names from the diff --git line when a section has no other headers naming them', () => {
    const patch = 'diff --git a/dir/x y.txt b/dir/x y.txt\nold mode 100644\nnew mode 100755\n'
    expect(only(parsed(patch))).toMatchObject({
      path: 'dir/x y.txt',
      modeBefore: '100644',
      modeAfter: '100755',
    })
  })

  it('uses the old name for a deletion and the new name otherwise', () => {
    const patch =
      '--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+y\n'
    expect(parsed(patch).ops.map((op) => `${op.kind}:${op.path}`)).toEqual([
      'delete:old.txt',
      'add:new.txt',
    ])
  })
})

describe('parseUnifiedDiff on every prefix of a real patch', () => {
  it('never throws and never finds more ops than the whole patch', () => {
    const repo = makeRepo({
      'a.txt': TWELVE,
      'b.txt': 'b\n',
      'c.bin': noise(500, 3),
      'd.txt': 'd\n',
    })
    repo.write('a.txt', TWELVE.replace('one', 'ONE').replace('twelve', 'TWELVE'))
    repo.remove('b.txt')
    repo.write('c.bin', noise(500, 4))
    repo.git('mv', 'd.txt', 'e.txt')
    repo.write('new.txt', 'n\no newline')
    const patch = repo.diff('-M', '--binary')
    const full = parsed(patch).ops.length
    expect(full).toBe(5)
    const lines = patch.split('\n')
    for (let count = 0; count <= lines.length; count++) {
      const prefix = lines.slice(0, count).join('\n')
      const result = parseUnifiedDiff(prefix)
      expect(typeof result.ok).toBe('boolean')
      if (result.ok) expect(result.value.ops.length).toBeLessThanOrEqual(full)
    }
    for (let length = 0; length <= Math.min(patch.length, 2000); length++) {
      expect(() => parseUnifiedDiff(patch.slice(0, length))).not.toThrow()
    }
  })
})

describe('parseUnifiedDiff on output cut off mid-line', () => {
  const head = '--- a/f.py\n+++ b/f.py\n'

  it('refuses a hunk that stops mid-line short of its counts, naming the cut line', () => {
    const error = parseError(
      `${head}@@ -1,2 +1,4 @@\n def f():\n-    pass\n+    x = 1\n+    return fo`,
    )
    expect(error).toMatchObject({ code: 'PARSE_TRUNCATED', path: 'f.py', patchLine: 7 })
    expect(error.message).toContain('"+    return fo"')
    expect(error.message).toContain('hunk for f.py at patch line 3')
  })

  it('refuses a cut in a context or removed line, and in the second hunk of a file', () => {
    expect(parseError(`${head}@@ -1,3 +1,3 @@\n-a\n+b\n c`).code).toBe('PARSE_TRUNCATED')
    expect(parseError(`${head}@@ -1,3 +1,2 @@\n a\n-b\n-c`).code).toBe('PARSE_TRUNCATED')
    const twoHunks = `${head}@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -9,3 +9,3 @@\n x\n-y\n+Y`
    expect(parseError(twoHunks)).toMatchObject({ code: 'PARSE_TRUNCATED', patchLine: 10 })
  })

  it('refuses a CRLF patch cut mid-line', () => {
    const crlf = '--- a/f.py\r\n+++ b/f.py\r\n@@ -1,3 +1,3 @@\r\n-a\r\n+b\r\n c'
    expect(parseError(crlf).code).toBe('PARSE_TRUNCATED')
  })

  it('reads a hunk whose counts are met as whole when only the final newline is missing', () => {
    const plan = parsed(`${head}@@ -1,2 +1,2 @@\n a\n-b\n+B`)
    const hunk = (plan.ops[0] as Extract<FileOp, { kind: 'update' }>).hunks[0] as LineHunk
    expect(hunk.lines.map((l) => l.op + l.text)).toEqual([' a', '-b', '+B'])
  })

  it('keeps wrong counts lenient when every line is whole', () => {
    const plan = parsed(`${head}@@ -1,5 +1,5 @@\n a\n-b\n+B\n`)
    const hunk = (plan.ops[0] as Extract<FileOp, { kind: 'update' }>).hunks[0] as LineHunk
    expect(hunk.lines).toHaveLength(3)
  })
})

describe('parseUnifiedDiff errors', () => {
  it('refuses a --- line without +++', () => {
    expect(parseError('junk\n--- a/f.txt\n@@ -1 +1 @@\n-a\n+b\n')).toMatchObject({
      code: 'PARSE_BAD_HEADER',
      patchLine: 2,
    })
    // Without a hunk after it, a lone --- line is prose.
    expect(parseError('--- not a header\nprose\n')).toMatchObject({ code: 'PARSE_EMPTY_HUNK' })
  })

  it('refuses a --- line without +++ inside a git section', () => {
    expect(parseError('diff --git a/f b/f\n--- a/f\n@@ -1 +1 @@\n')).toMatchObject({
      code: 'PARSE_BAD_HEADER',
      path: 'f',
      patchLine: 2,
    })
  })

  it('refuses a malformed @@ header and names its line', () => {
    const error = parseError('--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,x @@\n-a\n+b\n')
    expect(error).toMatchObject({ code: 'PARSE_BAD_HEADER', path: 'f.txt', patchLine: 3 })
    expect(error.message).toContain('patch line 3')
    expect(parseError('--- a/f\n+++ b/f\n@@ one @@ two\n-a\n+b\n')).toMatchObject({
      code: 'PARSE_BAD_HEADER',
      patchLine: 3,
    })
  })

  it('reads headers without usable numbers as hunks placed by their lines alone', () => {
    for (const header of [
      '@@',
      '@@ ',
      '@@ ... @@',
      '@@ ... @@ def f():',
      '@@ @@',
      '@@ -24,6',
      '@@ -163,6 +1',
      '@@ -2 +2',
    ]) {
      const plan = parsed(`--- a/f\n+++ b/f\n${header}\n x\n-a\n+b\n`)
      const hunk = (plan.ops[0] as Extract<FileOp, { kind: 'update' }>).hunks[0] as LineHunk
      expect(hunk.oldStartLine, header).toBeUndefined()
      expect(hunk.section, header).toBeUndefined()
      expect(
        hunk.lines.map((l) => l.op + l.text),
        header,
      ).toEqual([' x', '-a', '+b'])
    }
  })

  it('refuses a hunk without numbers that stops mid-line on an added line', () => {
    expect(parseError('--- a/f\n+++ b/f\n@@\n x\n-a\n+b')).toMatchObject({
      code: 'PARSE_TRUNCATED',
      patchLine: 6,
    })
    // A cut context line is checked against the file when the hunk is placed.
    expect(parsed('--- a/f\n+++ b/f\n@@\n-a\n+b\n x').ops).toHaveLength(1)
  })

  it('refuses a hunk header with no file header before it', () => {
    expect(parseError('prose\n@@ -1 +1 @@\n-a\n+b\n')).toMatchObject({
      code: 'PARSE_BAD_HEADER',
      patchLine: 2,
    })
  })

  it('refuses a hunk with no body', () => {
    expect(parseError('--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n')).toMatchObject({
      code: 'PARSE_EMPTY_HUNK',
      path: 'f',
      patchLine: 3,
    })
    expect(parseError('--- a/f\n+++ b/f\n@@ -1 +1 @@\n@@ -3 +3 @@\n-c\n+C\n')).toMatchObject({
      code: 'PARSE_EMPTY_HUNK',
      patchLine: 3,
    })
  })

  it('refuses file headers with no hunks', () => {
    expect(parseError('--- a/f\n+++ b/f\nprose\n')).toMatchObject({
      code: 'PARSE_EMPTY_HUNK',
      path: 'f',
      patchLine: 1,
    })
  })

  it('refuses text with no file changes', () => {
    const error = parseError('Just a commit message.\n\nNothing else.\n')
    expect(error).toMatchObject({ code: 'PARSE_EMPTY_HUNK', patchLine: 1 })
    expect(error.message).toContain('No file changes found')
    expect(parseError('')).not.toHaveProperty('patchLine')
  })

  it('refuses a git section that changes nothing', () => {
    expect(parseError('diff --git a/f b/f\nindex 1..2 100644\n')).toMatchObject({
      code: 'PARSE_EMPTY_HUNK',
      path: 'f',
      patchLine: 1,
    })
  })

  it('refuses a creation whose hunk has context lines', () => {
    expect(parseError('--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n a\n+b\n')).toMatchObject({
      code: 'PARSE_BAD_LINE',
      path: 'f',
      patchLine: 3,
    })
  })

  it('refuses a no-newline marker followed by more lines on the same side', () => {
    expect(
      parseError('--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n\\ No newline at end of file\n-b\n+c\n'),
    ).toMatchObject({
      code: 'PARSE_BAD_LINE',
      patchLine: 6,
    })
    expect(
      parseError('--- a/f\n+++ b/f\n@@ -1 +1 @@\n\\ No newline at end of file\n-a\n+b\n'),
    ).toMatchObject({
      code: 'PARSE_BAD_LINE',
      patchLine: 4,
    })
  })

  it('refuses a badly quoted name', () => {
    expect(parseError('--- "a/f\\q"\n+++ "b/f"\n@@ -1 +1 @@\n-a\n+b\n')).toMatchObject({
      code: 'PARSE_BAD_HEADER',
      patchLine: 1,
    })
    expect(parseError('diff --git "a/unterminated b/x\n')).toMatchObject({
      code: 'PARSE_BAD_HEADER',
      patchLine: 1,
    })
  })

  it('refuses a git section that both creates and deletes, or names no file', () => {
    expect(
      parseError('diff --git a/f b/f\nnew file mode 100644\ndeleted file mode 100644\n'),
    ).toMatchObject({
      code: 'PARSE_INCONSISTENT_HEADER',
      path: 'f',
      patchLine: 3,
    })
    expect(
      parseError('diff --git a/f b/f\n--- /dev/null\n+++ /dev/null\n@@ -0,0 +0,0 @@\n+x\n'),
    ).toMatchObject({
      code: 'PARSE_BAD_HEADER',
      patchLine: 1,
    })
  })

  it('refuses a deletion whose hunk adds lines', () => {
    expect(parseError('--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n+b\n')).toMatchObject({
      code: 'PARSE_BAD_LINE',
      path: 'f',
      patchLine: 3,
    })
  })

  it('refuses a malformed mode line', () => {
    expect(parseError('diff --git a/f b/f\nold mode 10064x\nnew mode 100755\n')).toMatchObject({
      code: 'PARSE_BAD_HEADER',
      patchLine: 2,
    })
  })

  it('refuses bad base85 and bad line lengths in a binary patch', () => {
    const head = 'diff --git a/f.bin b/f.bin\nindex 1..2 100644\nGIT binary patch\n'
    expect(parseError(`${head}literal 6\nNcmZQ%Vn|F%1^@zJ0V)6"\n\n`)).toMatchObject({
      code: 'PARSE_BAD_BINARY',
      path: 'f.bin',
      patchLine: 5,
    })
    expect(parseError(`${head}literal 6\nZcmZQ%Vn|F%1^@zJ0V)6h\n\n`)).toMatchObject({
      code: 'PARSE_BAD_BINARY',
      patchLine: 5,
    })
    expect(parseError(`${head}literal x\nNcmZQ%Vn|F%1^@zJ0V)6h\n\n`)).toMatchObject({
      code: 'PARSE_BAD_BINARY',
      patchLine: 4,
    })
    expect(parseError(`${head}literal 6\n\n`)).toMatchObject({
      code: 'PARSE_BAD_BINARY',
      patchLine: 4,
    })
    expect(parseError(`${head}literal 6\nNcmZQ%Vn|F%1^@zJ0V)6h\n\ndelta 3\n\n`)).toMatchObject({
      code: 'PARSE_BAD_BINARY',
      patchLine: 7,
    })
  })

  it('refuses a plain `Binary files differ` line from diff -r', () => {
    expect(parseError('Binary files old/x.png and new/x.png differ\n')).toMatchObject({
      code: 'PARSE_BAD_BINARY',
      patchLine: 1,
    })
  })
})

runParserContract('unified', parseUnifiedDiff, {
  valid: [
    '--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n',
    'diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n',
    'diff --git a/new b/new\nnew file mode 100644\nindex 0000000..e69de29\n',
    '--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+n\n\\ No newline at end of file\n',
    'diff --git a/b.bin b/b.bin\nnew file mode 100644\nGIT binary patch\nliteral 6\nNcmZQ%Vn|F%1^@zJ0V)6h\n\nliteral 0\nHcmV?d00001\n\n',
    '--- missing.orig\n+++ missing\n@@ -0,0 +1 @@\n+a\n',
    'diff --git a/e b/e\nnew file mode 100644\n--- /dev/null\n+++ b/e\n',
  ],
  invalid: [
    '--- a/f\nno plus line\n',
    '--- a/f\n+++ b/f\n@@ bad @@\n',
    '--- a/f\n+++ b/f\n@@ -1 +1 @@\n',
    'no diff here\n',
    'diff --git a/f b/f\nBinary files a/f and b/f differ\n',
    'diff --git a/f b/f\nnew file mode 100644\n--- /dev/null\n+++ b/g\n@@ -0,0 +1 @@\n+1\n',
    'diff --git a/1 b/2\nnew file mode 100644\ncopy from 1\ncopy to 2\n',
    '--- a/f\n+++ b/f\n@@ -1 +1 @@\n f\n',
  ],
})

/** `diff -ruN old new` run in a temp dir holding both trees. */
function diffRuN(oldTree: Record<string, string>, newTree: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'patchloom-diffu-'))
  tempDirs.push(dir)
  for (const [side, tree] of [
    ['old', oldTree],
    ['new', newTree],
  ] as const) {
    mkdirSync(join(dir, side))
    for (const [path, content] of Object.entries(tree))
      writeFileSync(join(dir, side, path), content)
  }
  try {
    execFileSync('diff', ['-ruN', 'old', 'new'], { cwd: dir, encoding: 'utf8' })
  } catch (error) {
    // diff exits 1 when the trees differ; its output is the patch.
    return String((error as { stdout: string }).stdout)
  }
  throw new Error('diff found no differences')
}

/** The old and new text one whole-file hunk states (its lines joined, each with its ending). */
function sidesOf(op: FileOp): { old: string; new: string } {
  if (op.kind !== 'update') throw new Error(`expected an update, got ${op.kind}`)
  let before = ''
  let after = ''
  for (const h of op.hunks) {
    for (const line of h.lines) {
      const text = line.text + (line.eol ?? '\n')
      if (line.op !== '+') before += text
      if (line.op !== '-') after += text
    }
  }
  return { old: before, new: after }
}

// Files whose lines look like patch syntax once prefixed: a SQL comment, a Markdown rule, a
// signature-like `- ` line, and lines that read as `--- `/`+++ ` headers when removed or added.
const DASHED_OLD = 'select 1;\n-- comment\n---\n- \nselect 2;\n-- x\nend;\n'
const DASHED_NEW = 'select 1;\n++ y\n+++\nselect 2;\n++ z\nend;\n'

describe('parseUnifiedDiff on removed lines that look like headers', () => {
  it('reads `--- ` and `+++ ` lines as body while the stated counts run', () => {
    const patch =
      '--- a/s.sql\n+++ b/s.sql\n@@ -1,3 +1,3 @@\n select 1;\n--- comment\n+++ x\n select 2;\n'
    expect(only(parsed(patch))).toEqual({
      kind: 'update',
      path: 's.sql',
      patchLine: 1,
      hunks: [hunk(3, 1, [' select 1;', '--- comment', '+++ x', ' select 2;'])],
      locate: 'near-line',
    })
  })

  it('reads such lines from real git diff output', () => {
    const repo = makeRepo({ 's.sql': DASHED_OLD })
    repo.write('s.sql', DASHED_NEW)
    const patch = repo.diff()
    expect(patch).toContain('\n--- x\n+++ z\n')
    expect(sidesOf(only(parsed(patch)))).toEqual({ old: DASHED_OLD, new: DASHED_NEW })
  })

  it('reads such lines from real diff -ruN output, file after file', () => {
    const patch = diffRuN(
      { 'a.sql': DASHED_OLD, 'b.md': '# t\n---\nbody\n' },
      { 'a.sql': DASHED_NEW, 'b.md': '# t\n+++\nbody\n' },
    )
    expect(patch).toContain('\n--- x\n+++ z\n')
    const plan = parsed(patch)
    expect(plan.ops.map((op) => op.path)).toEqual(['a.sql', 'b.md'])
    expect(sidesOf(plan.ops[0] as FileOp)).toEqual({ old: DASHED_OLD, new: DASHED_NEW })
    expect(sidesOf(plan.ops[1] as FileOp)).toEqual({
      old: '# t\n---\nbody\n',
      new: '# t\n+++\nbody\n',
    })
  })

  it('ends the last hunk of format-patch output at the signature, after header-like body lines', () => {
    const repo = makeRepo({ 'a.txt': 'keep\n- \n-- x\n' })
    repo.write('a.txt', 'keep\n++ y\n')
    repo.git('add', '-A')
    repo.git('commit', '-q', '-m', 'Drop dashes')
    const patch = repo.git('format-patch', '-1', '--stdout')
    expect(patch).toContain('\n-- \n--- x\n+++ y\n-- \n')
    const op = only(parsed(patch))
    expect(op.kind === 'update' && op.hunks).toEqual([
      hunk(lineOf(patch, '@@ -1,3 +1,2 @@'), 1, [' keep', '-- ', '--- x', '+++ y']),
    ])
  })

  it('still recounts when counts one too large on each side would swallow the next file header', () => {
    const patch = [
      '--- a/f.txt',
      '+++ b/f.txt',
      '@@ -1,3 +1,3 @@',
      ' a',
      '-b',
      '+B',
      '--- a/g.txt',
      '+++ b/g.txt',
      '@@ -1 +1 @@',
      '-x',
      '+X',
      '',
    ].join('\n')
    const plan = parsed(patch)
    expect(plan.ops).toMatchObject([
      { path: 'f.txt', hunks: [hunk(3, 1, [' a', '-b', '+B'])] },
      { path: 'g.txt', hunks: [hunk(9, 1, ['-x', '+X'])] },
    ])
  })

  it('keeps a `--- `/`+++ ` pair that does not name one file as the last lines of a hunk', () => {
    const patch =
      '--- a/s.sql\n+++ b/s.sql\n@@ -1,2 +1,2 @@\n a\n--- x\n+++ y\n@@ -9 +9 @@\n-i\n+I\n'
    expect(only(parsed(patch))).toMatchObject({
      hunks: [hunk(3, 1, [' a', '--- x', '+++ y']), hunk(7, 9, ['-i', '+I'])],
    })
  })
})

describe('parseUnifiedDiff on CRLF line endings', () => {
  it('marks a body line that ends in CRLF in an LF patch with its ending', () => {
    const patch = '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-a\n+a\r\n b\n'
    expect(only(parsed(patch))).toEqual({
      kind: 'update',
      path: 'a.txt',
      patchLine: 1,
      hunks: [
        {
          ...hunk(3, 1, []),
          lines: [
            { op: '-', text: 'a' },
            { op: '+', text: 'a', eol: '\r\n' },
            { op: ' ', text: 'b' },
          ],
        },
      ],
      locate: 'near-line',
    })
  })

  it('states every line ending of real git diff output for a CRLF file', () => {
    const before = 'one\r\ntwo\r\nthree\nfour\r\n'
    const after = 'one\r\nTWO\r\nthree\r\nfour\r\nfive\n'
    const repo = makeRepo({ 'w.txt': before })
    repo.write('w.txt', after)
    const patch = repo.diff()
    expect(patch).toContain('+TWO\r\n')
    expect(sidesOf(only(parsed(patch)))).toEqual({ old: before, new: after })
  })

  it('drops one transit CR per line from a patch that is CRLF throughout, keeping a second as content', () => {
    const repo = makeRepo({ 'w.txt': 'a\r\nb\r\n' })
    repo.write('w.txt', 'a\r\nB\r\n')
    const lf = repo.diff()
    const converted = lf.replace(/\n/g, '\r\n')
    expect(parsed(converted)).toEqual(parsed(lf))
    expect(only(parsed(converted))).toMatchObject({
      hunks: [
        {
          lines: [
            { op: ' ', text: 'a', eol: '\r\n' },
            { op: '-', text: 'b', eol: '\r\n' },
            { op: '+', text: 'B', eol: '\r\n' },
          ],
        },
      ],
    })
  })

  it('keeps stated CRLF endings in the content of a created file', () => {
    const patch = '--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,3 @@\n+a\r\n+b\n+c\r\n'
    expect(only(parsed(patch))).toMatchObject({ kind: 'add', content: 'a\r\nb\nc\r\n' })
    const repo = makeRepo({})
    repo.write('m.txt', 'x\r\ny\r\nz')
    expect(only(parsed(repo.diff()))).toMatchObject({
      kind: 'add',
      path: 'm.txt',
      content: 'x\r\ny\r\nz',
    })
  })

  it('keeps the no-newline marker working after a line with a stated ending', () => {
    const patch =
      '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\n\\ No newline at end of file\n'
    expect(only(parsed(patch))).toMatchObject({
      hunks: [
        {
          lines: [
            { op: ' ', text: 'a', eol: '\r\n' },
            { op: '-', text: 'b', eol: '\r\n' },
            { op: '+', text: 'c' },
          ],
          newNoNewlineAtEnd: true,
        },
      ],
    })
  })
})

describe('parseUnifiedDiff on hunk lines that start with none of " -+\\"', () => {
  const BODY = ' one\n two\n-three\n+THREE\n four\n five\n+six\n'
  const HEAD = '--- a/f.txt\n+++ b/f.txt\n@@ -1,5 +1,6 @@\n'

  it('refuses a context line that lost its leading space while the counts run', () => {
    const patch = HEAD + BODY.replace(' four\n', 'four\n')
    expect(parseError(patch)).toMatchObject({
      code: 'PARSE_BAD_LINE',
      path: 'f.txt',
      patchLine: lineOf(patch, 'four'),
    })
  })

  it('refuses a tab-led line in real git output, as git apply does', () => {
    const repo = makeRepo({ 'f.txt': 'one\ntwo\nthree\nfour\nfive\n' })
    repo.write('f.txt', 'one\ntwo\nTHREE\nfour\nfive\nsix\n')
    const patch = repo.diff().replace('\n four\n', '\n\tfour\n')
    expect(parseError(patch)).toMatchObject({
      code: 'PARSE_BAD_LINE',
      patchLine: lineOf(patch, '\tfour'),
    })
  })

  it('refuses it even when the counts are too large', () => {
    const patch = HEAD.replace('-1,5 +1,6', '-1,9 +1,9') + BODY.replace(' four\n', 'four\n')
    expect(parseError(patch)).toMatchObject({ code: 'PARSE_BAD_LINE', patchLine: 8 })
  })

  it('still reads a truly empty line as blank context', () => {
    const patch = HEAD + BODY.replace(' four\n', '\n')
    expect(only(parsed(patch))).toMatchObject({
      hunks: [hunk(3, 1, [' one', ' two', '-three', '+THREE', ' ', ' five', '+six'])],
    })
  })

  it('takes a line after the used-up counts as junk, as git does', () => {
    const patch = HEAD.replace('-1,5 +1,6', '-1,4 +1,4') + BODY.replace(' five\n', 'five\n')
    expect(only(parsed(patch))).toMatchObject({
      hunks: [hunk(3, 1, [' one', ' two', '-three', '+THREE', ' four'])],
    })
  })

  it('lets a miscounted hunk end at the next hunk, the next file or an Index: line', () => {
    for (const next of ['@@ -9 +9 @@\n-x\n+y\n', 'diff -u a/g b/g\n', 'Index: g\n===\n']) {
      const patch = HEAD.replace('-1,5 +1,6', '-1,9 +1,9') + BODY + next
      const op = parsed(patch).ops[0]
      expect(op).toMatchObject({ path: 'f.txt' })
      expect(op?.kind === 'update' ? op.hunks[0]?.lines.length : 0).toBe(7)
    }
  })

  it('still names a malformed @@ line after a miscounted hunk as a bad header', () => {
    const patch = HEAD.replace('-1,5 +1,6', '-1,9 +1,9') + BODY + '@@ -x @@\n-a\n'
    expect(parseError(patch)).toMatchObject({ code: 'PARSE_BAD_HEADER', patchLine: 11 })
  })

  it('reads -U0 git output whose hunks end on the next diff --git line', () => {
    const repo = makeRepo({ 'a.txt': TWELVE, 'b.txt': TWELVE })
    repo.write('a.txt', TWELVE.replace('three\n', 'THREE\nextra\n').replace('ten\n', ''))
    repo.write('b.txt', TWELVE.replace('one\n', 'ONE\n'))
    const plan = parsed(repo.diff('-U0'))
    expect(plan.ops.map((op) => (op.kind === 'update' ? op.hunks.length : 0))).toEqual([2, 1])
  })
})

describe('parseUnifiedDiff on the index line of a binary patch', () => {
  // A NUL byte makes git treat the file as binary whatever the rest is.
  const binary = (length: number, seed: number) => Uint8Array.from([0, ...noise(length, seed)])

  it('keeps the blob ids git writes, for updates, creations and deletions', () => {
    const repo = makeRepo({ 'a.bin': binary(400, 11), 'gone.bin': binary(300, 12) })
    repo.write('a.bin', binary(400, 13))
    repo.write('new.bin', binary(200, 14))
    repo.remove('gone.bin')
    const plan = parsed(repo.diff('--binary'))
    const idsOf = (path: string) => {
      const op = plan.ops.find((o) => o.path === path)
      if (op === undefined) throw new Error(`no op for ${path}`)
      const { oldId, newId } = binaryOf(op)
      return { oldId, newId }
    }
    const blob = (path: string) => repo.git('rev-parse', `HEAD:${path}`).trim()
    const staged = (path: string) => repo.git('rev-parse', `:${path}`).trim()
    expect(idsOf('a.bin')).toEqual({ oldId: blob('a.bin'), newId: staged('a.bin') })
    expect(idsOf('new.bin')).toEqual({ oldId: '0'.repeat(40), newId: staged('new.bin') })
    expect(idsOf('gone.bin')).toEqual({ oldId: blob('gone.bin'), newId: '0'.repeat(40) })
  })

  it('reads abbreviated and upper-case ids with or without a mode, and skips a malformed line', () => {
    const repo = makeRepo({ x: binary(100, 15) })
    repo.write('x', binary(100, 16))
    const patch = repo.diff('--binary')
    const lines = ['index ABCDEF0..1234567 100644', 'index abcdef0..1234567', 'index nonsense']
    const ops = lines.map((line) => only(parsed(patch.replace(/^index .*$/m, line))))
    expect(binaryOf(ops[0] as FileOp)).toMatchObject({ oldId: 'abcdef0', newId: '1234567' })
    expect(binaryOf(ops[1] as FileOp)).toMatchObject({ oldId: 'abcdef0', newId: '1234567' })
    expect(binaryOf(ops[2] as FileOp).oldId).toBeUndefined()
  })
})

describe('parseUnifiedDiff on traditional headers as git reads them', () => {
  const update = (minus: string, plus: string) =>
    only(parsed(`--- ${minus}\n+++ ${plus}\n@@ -1 +1 @@\n-a\n+b\n`))

  it('finds the timestamp after a tab or after spaces, with any zone spelling', () => {
    const stamps = [
      '\t2024-03-01 10:00:00.000000000 +0100',
      ' 2024-03-01 10:00:00 +0100',
      '   2024-03-01 10:00:00.123 -0800',
      '  2024-03-01 10:00:00 +05:30',
      ' 2024-03-01 10:00:00',
      '\t2024-03-01',
      ' 24-03-01 10:00:00',
    ]
    for (const stamp of stamps) {
      expect(update(`a/my file.txt${stamp}`, `b/my file.txt${stamp}`).path).toBe('my file.txt')
    }
  })

  it('keeps tabs inside a name that a trailing timestamp ends', () => {
    const stamp = '\t2024-03-01 10:00:00.000000000 +0100'
    expect(update(`a/we\tird.txt${stamp}`, `b/we\tird.txt${stamp}`).path).toBe('we\tird.txt')
  })

  it('cuts the name at the first tab when what follows is no timestamp it knows', () => {
    const stamp = '\tThu Jan 25 10:00:00 2024'
    expect(update(`a/f.txt${stamp}`, `b/f.txt${stamp}`).path).toBe('f.txt')
    expect(update('a/f.txt\tnot a date', 'b/f.txt\tnot a date').path).toBe('f.txt')
  })

  it('keeps a name whose date-like tail has no separator or is not a full date', () => {
    expect(update('a/log-2024-03-01', 'b/log-2024-03-01').path).toBe('log-2024-03-01')
    expect(update('a/v 10:00:00', 'b/v 10:00:00').path).toBe('v 10:00:00')
  })

  it('does not strip timestamps from the ---/+++ lines of a git section', () => {
    const patch =
      'diff --git a/x b/x\n--- a/x 2024-03-01\n+++ b/x 2024-03-01\n@@ -1 +1 @@\n-a\n+b\n'
    expect(only(parsed(patch)).path).toBe('x 2024-03-01')
  })

  it('reads the epoch of diff -N in the zone it is written in, after a tab, as git does', () => {
    const created = (stamp: string) => {
      const op = only(
        parsed(`--- a/n.txt${stamp}\n+++ b/n.txt\t2024-03-01 10:00:00 +0100\n@@ -0,0 +1 @@\n+n\n`),
      )
      return op.kind === 'update' && op.createIfMissing === true ? 'add if missing' : op.kind
    }
    expect(created('\t1970-01-01 00:00:00.000000000 +0000')).toBe('add')
    expect(created('\t1969-12-31 16:00:00.000000000 -0800')).toBe('add')
    expect(created('\t1970-01-01 05:30:00 +05:30')).toBe('add')
    // No epoch to git (spaces before it, no zone, a ctime date, another instant): one hunk that
    // only adds then creates the file if it is missing (test/unit/parse/unified-as-git.test.ts).
    expect(created(' 1970-01-01 05:30:00 +05:30')).toBe('add if missing')
    expect(created('\t1970-01-01 00:00:00')).toBe('add if missing')
    expect(created('\tThu Jan  1 00:00:00 1970')).toBe('add if missing')
    expect(created('\t1970-01-01 10:00:00 +0000')).toBe('add if missing')
    expect(created('\t1970-01-01 00:00:00.5 +0000')).toBe('add if missing')
  })

  it('reads real diff -N output written in a zone west of UTC', () => {
    const dir = mkdtempSync(join(tmpdir(), 'patchloom-diffu-'))
    tempDirs.push(dir)
    mkdirSync(join(dir, 'old'))
    mkdirSync(join(dir, 'new'))
    writeFileSync(join(dir, 'new', 'n.txt'), 'n\n')
    let patch = ''
    try {
      execFileSync('diff', ['-ruN', 'old', 'new'], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, TZ: 'America/Los_Angeles' },
      })
    } catch (error) {
      patch = String((error as { stdout: string }).stdout)
    }
    expect(patch).toContain('1969-12-31 16:00:00')
    expect(only(parsed(patch))).toMatchObject({ kind: 'add', path: 'n.txt', content: 'n\n' })
  })
})

describe('parseUnifiedDiff and lone CRs', () => {
  it('reads a CR before a "\\ No newline" marker as content of the last line, from real git', () => {
    const repo = makeRepo({ 'end.txt': 'a\nlast\r' })
    repo.write('end.txt', 'a\nlast line\r')
    repo.write('new.txt', 'x\ry\r')
    const ops = parsed(repo.diff()).ops
    const update = ops.find((op) => op.path === 'end.txt')
    if (update?.kind !== 'update') throw new Error('expected an update of end.txt')
    expect(update.hunks[0]?.lines).toEqual([
      { op: ' ', text: 'a' },
      { op: '-', text: 'last\r' },
      { op: '+', text: 'last line\r' },
    ])
    expect(ops.find((op) => op.path === 'new.txt')).toMatchObject({
      kind: 'add',
      content: 'x\ry\r',
    })
  })

  it('keeps a mid-line CR in the line text and a CR before LF as its CRLF ending', () => {
    const text = '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\rb\r\n-c\n+c\rd\n'
    const [op] = parsed(text).ops
    if (op?.kind !== 'update') throw new Error('expected an update')
    expect(op.hunks[0]?.lines).toEqual([
      { op: ' ', text: 'a\rb', eol: '\r\n' },
      { op: '-', text: 'c' },
      { op: '+', text: 'c\rd' },
    ])
  })
})
