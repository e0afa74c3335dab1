// parseUnifiedDiff against the real `git apply`: each case runs git apply in a fresh
// repository and pins what git does (the tree it leaves, or the words it refuses with), then pins
// what the parser makes of the same patch. Where patchloom departs from git on purpose, the case
// says so. Header rules: src/parse/unified-git-header.ts; traditional sections: unified.ts.
import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { canonicalMode } from '../../../src/parse/unified-git-header.js'
import { hasEpochTimestamp } from '../../../src/parse/unified-names.js'
import { parseUnifiedDiff } from '../../../src/parse/unified.js'
import type { EditErrorData } from '../../../src/errors.js'
import type { FileOp } from '../../../src/types.js'

const tempDirs: string[] = []
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
})

const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }

interface GitOutcome {
  readonly applied: boolean
  readonly stderr: string
  /** Every file after the run (its content), .git left out. */
  readonly tree: Record<string, string>
  /** The files the owner may execute. */
  readonly executable: readonly string[]
}

/** `git apply` of `patch` in a fresh repository holding `files` (a path ending in * is +x). */
function gitApply(files: Record<string, string>, patch: string): GitOutcome {
  const root = mkdtempSync(join(tmpdir(), 'patchloom-as-git-'))
  tempDirs.push(root)
  const dir = join(root, 'repo')
  mkdirSync(dir)
  spawnSync('git', ['init', '-q', '.'], { cwd: dir, env: GIT_ENV })
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name.replace(/\*$/, ''))
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, content)
    chmodSync(path, name.endsWith('*') ? 0o755 : 0o644)
  }
  writeFileSync(join(root, 'patch.diff'), patch)
  const run = spawnSync('git', ['apply', join(root, 'patch.diff')], {
    cwd: dir,
    env: GIT_ENV,
    encoding: 'utf8',
  })
  const tree: Record<string, string> = {}
  const executable: string[] = []
  const walk = (at: string, rel: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (rel === '' && entry.name === '.git') continue
      const path = join(at, entry.name)
      const name = rel + entry.name
      if (entry.isDirectory()) walk(path, `${name}/`)
      else {
        tree[name] = readFileSync(path, 'utf8')
        if ((statSync(path).mode & 0o100) !== 0) executable.push(name)
      }
    }
  }
  walk(dir, '')
  return { applied: run.status === 0, stderr: run.stderr, tree, executable }
}

function ops(patch: string): readonly FileOp[] {
  const result = parseUnifiedDiff(patch)
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`)
  return result.value.ops
}

function refusal(patch: string): EditErrorData {
  const result = parseUnifiedDiff(patch)
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value.ops)}`)
  return result.error
}

/** Asserts that git refuses the patch, saying `words`, and leaves the tree as it was. */
function expectGitRefuses(files: Record<string, string>, patch: string, words: string): void {
  const git = gitApply(files, patch)
  expect(git.stderr).toContain(words)
  expect(git.applied).toBe(false)
}

const lines = (...text: string[]): string => text.map((line) => `${line}\n`).join('')

describe('git headers whose lines name different files (git t4133)', () => {
  it('refuses a creation whose +++ line names another file than diff --git, naming both lines', () => {
    const patch = lines(
      'diff --git a/f b/f',
      'new file mode 100644',
      'index 0000000..d00491f',
      '--- /dev/null',
      '+++ b/f-blah',
      '@@ -0,0 +1 @@',
      '+1',
    )
    expectGitRefuses({}, patch, 'inconsistent new filename')
    const error = refusal(patch)
    expect(error).toMatchObject({ code: 'PARSE_INCONSISTENT_HEADER', patchLine: 5 })
    expect(error.message).toContain('"+++ b/f-blah" at patch line 5')
    expect(error.message).toContain('"new file mode 100644" at patch line 2')
  })

  it('refuses a deletion whose --- line names another file than diff --git', () => {
    const patch = lines(
      'diff --git a/f b/f',
      'deleted file mode 100644',
      'index d00491f..0000000',
      '--- b/f-blah',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-1',
    )
    expectGitRefuses({ f: '1\n' }, patch, 'inconsistent old filename')
    const error = refusal(patch)
    expect(error).toMatchObject({ code: 'PARSE_INCONSISTENT_HEADER', path: 'f', patchLine: 4 })
    expect(error.message).toContain('"--- b/f-blah" at patch line 4 names f-blah')
    expect(error.message).toContain('"deleted file mode 100644" at patch line 2 names f')
  })

  it('refuses a --- line with no +++ line, and a +++ line with no --- line', () => {
    const noPlus = lines(
      'diff --git a/f b/f',
      'index 0000000..d00491f',
      '--- a/f',
      '@@ -0,0 +1 @@',
      '+1',
    )
    expectGitRefuses({}, noPlus, 'lacks filename information')
    const error = refusal(noPlus)
    expect(error).toMatchObject({ code: 'PARSE_BAD_HEADER', path: 'f', patchLine: 3 })
    expect(error.message).toContain('"--- a/f" at patch line 3 names the old file')
    const noMinus = lines(
      'diff --git a/f b/f',
      'index d00491f..0000000',
      '+++ b/f',
      '@@ -1 +0,0 @@',
      '-1',
    )
    expectGitRefuses({ f: '1\n' }, noMinus, 'lacks filename information')
    expect(refusal(noMinus)).toMatchObject({ code: 'PARSE_BAD_HEADER', patchLine: 3 })
  })

  it('refuses a creation or deletion whose absent side names a file', () => {
    const creation = lines(
      'diff --git a/f b/f',
      'new file mode 100644',
      '--- a/f',
      '+++ b/f',
      '@@ -0,0 +1 @@',
      '+1',
    )
    expectGitRefuses({}, creation, 'expected /dev/null')
    expect(refusal(creation)).toMatchObject({ code: 'PARSE_INCONSISTENT_HEADER', patchLine: 3 })
    const deletion = lines(
      'diff --git a/f b/f',
      'deleted file mode 100644',
      '--- a/f',
      '+++ b/f',
      '@@ -1 +0,0 @@',
      '-1',
    )
    expectGitRefuses({ f: '1\n' }, deletion, 'expected /dev/null')
    expect(refusal(deletion)).toMatchObject({ code: 'PARSE_INCONSISTENT_HEADER', patchLine: 4 })
  })

  it('refuses ---/+++ names that disagree with rename from / rename to', () => {
    const newSide = lines(
      'diff --git a/f b/f',
      'rename from f',
      'rename to g',
      '--- a/f',
      '+++ b/h',
      '@@ -1 +1 @@',
      '-1',
      '+2',
    )
    expectGitRefuses({ f: '1\n' }, newSide, 'inconsistent new filename')
    const error = refusal(newSide)
    expect(error).toMatchObject({ code: 'PARSE_INCONSISTENT_HEADER', path: 'g', patchLine: 5 })
    expect(error.message).toContain('"rename to g" at patch line 3')
    const oldSide = newSide.replace('--- a/f', '--- a/x').replace('+++ b/h', '+++ b/g')
    expectGitRefuses({ f: '1\n' }, oldSide, 'inconsistent old filename')
    expect(refusal(oldSide)).toMatchObject({ code: 'PARSE_INCONSISTENT_HEADER', patchLine: 4 })
  })

  it('refuses a section no line names when the diff --git names differ', () => {
    const modeOnly = lines('diff --git a/f b/g', 'old mode 100644', 'new mode 100755')
    expectGitRefuses({ f: '1\n' }, modeOnly, 'lacks filename information')
    expect(refusal(modeOnly)).toMatchObject({ code: 'PARSE_BAD_HEADER', patchLine: 1 })
    const emptyNew = lines('diff --git a/f b/g', 'new file mode 100644')
    expectGitRefuses({}, emptyNew, 'lacks filename information')
    expect(refusal(emptyNew)).toMatchObject({ code: 'PARSE_BAD_HEADER', patchLine: 1 })
  })

  it('refuses /dev/null in a git section without the file mode line that makes it absent', () => {
    // git reads such a /dev/null as a file named dev/null: it refuses the creation...
    const creation = lines('diff --git a/f b/f', '--- /dev/null', '+++ b/f', '@@ -0,0 +1 @@', '+1')
    expectGitRefuses({}, creation, 'dev/null: No such file or directory')
    const error = refusal(creation)
    expect(error).toMatchObject({ code: 'PARSE_INCONSISTENT_HEADER', path: 'f', patchLine: 2 })
    expect(error.hint).toContain('new file mode 100644')
    // ...and turns the deletion into a move of f to dev/null; patchloom refuses both (D-129).
    const deletion = lines('diff --git a/f b/f', '--- a/f', '+++ /dev/null', '@@ -1 +0,0 @@', '-1')
    expect(gitApply({ f: '1\n' }, deletion)).toMatchObject({
      applied: true,
      tree: { 'dev/null': '' },
    })
    expect(refusal(deletion)).toMatchObject({ code: 'PARSE_INCONSISTENT_HEADER', patchLine: 3 })
  })

  it('refuses a --- line that names an old file before new file mode (git aborts)', () => {
    const patch = lines(
      'diff --git a/f b/f',
      '--- a/f',
      'new file mode 100644',
      '+++ b/f',
      '@@ -0,0 +1 @@',
      '+1',
    )
    expect(gitApply({}, patch)).toMatchObject({ applied: false, tree: {} })
    expect(refusal(patch)).toMatchObject({ code: 'PARSE_INCONSISTENT_HEADER', patchLine: 2 })
  })

  it('takes the ---/+++ names over the diff --git names, as git does', () => {
    const other = lines(
      'diff --git a/f b/f',
      'index d00491f..0cfbf08 100644',
      '--- a/g',
      '+++ b/g',
      '@@ -1 +1 @@',
      '-1',
      '+2',
    )
    expect(gitApply({ f: '1\n', g: '1\n' }, other).tree).toEqual({ f: '1\n', g: '2\n' })
    expect(ops(other)).toMatchObject([{ kind: 'update', path: 'g' }])
    expect(ops(other)[0]).not.toHaveProperty('moveTo')
    // ---/+++ naming two files: git writes the new one and removes the old one.
    const two = other.replace('--- a/g', '--- a/f')
    expect(gitApply({ f: '1\n' }, two).tree).toEqual({ g: '2\n' })
    expect(ops(two)).toMatchObject([{ kind: 'update', path: 'f', moveTo: 'g' }])
  })

  it('names a creation or deletion by its ---/+++ line when the diff --git names differ', () => {
    const creation = lines(
      'diff --git a/f b/g',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/g',
      '@@ -0,0 +1 @@',
      '+1',
    )
    expect(gitApply({}, creation).tree).toEqual({ g: '1\n' })
    expect(ops(creation)).toMatchObject([{ kind: 'add', path: 'g', content: '1\n' }])
    const deletion = lines(
      'diff --git a/f b/g',
      'deleted file mode 100644',
      '--- a/f',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-1',
    )
    expect(gitApply({ f: '1\n' }, deletion)).toMatchObject({ applied: true, tree: {} })
    expect(ops(deletion)).toMatchObject([{ kind: 'delete', path: 'f' }])
  })

  it('reads header lines in any order, and strips mnemonic prefixes such as i/ and w/', () => {
    const late = lines(
      'diff --git a/f b/f',
      '--- a/f',
      '+++ b/f',
      'old mode 100644',
      'new mode 100755',
      '@@ -1 +1 @@',
      '-1',
      '+2',
    )
    expect(gitApply({ f: '1\n' }, late)).toMatchObject({ tree: { f: '2\n' }, executable: ['f'] })
    expect(ops(late)).toMatchObject([{ kind: 'update', path: 'f', modeAfter: '100755' }])
    const deletion = lines(
      'diff --git a/f b/f',
      '+++ b/f',
      'deleted file mode 100644',
      '--- a/f',
      '@@ -1 +0,0 @@',
      '-1',
    )
    expect(gitApply({ f: '1\n' }, deletion)).toMatchObject({ applied: true, tree: {} })
    expect(ops(deletion)).toMatchObject([{ kind: 'delete', path: 'f' }])
    const mnemonic = lines('diff --git i/f w/f', '--- i/f', '+++ w/f', '@@ -1 +1 @@', '-1', '+2')
    expect(gitApply({ f: '1\n' }, mnemonic).tree).toEqual({ f: '2\n' })
    expect(ops(mnemonic)).toMatchObject([{ kind: 'update', path: 'f' }])
    expect(ops(mnemonic)[0]).not.toHaveProperty('moveTo')
  })
})

describe('header combinations git refuses (git t4136)', () => {
  const cases: [string, string, number][] = [
    ['new file mode 100644\ncopy from 1\ncopy to 2', 'copy from 1', 3],
    ['new file mode 100644\nrename from 1\nrename to 2', 'rename from 1', 3],
    ['new file mode 100644\ndeleted file mode 100644', 'deleted file mode 100644', 3],
    ['rename from 1\ncopy to 2', 'copy to 2', 3],
    ['deleted file mode 100644\nrename from 1\nrename to 2', 'rename from 1', 3],
    ['copy from 1\ncopy to 2\nnew file mode 100644', 'new file mode 100644', 4],
  ]
  it.each(cases)('refuses %j, naming both lines', (header, second, patchLine) => {
    const patch = `diff --git a/1 b/2\n${header}\n`
    expectGitRefuses({ '1': '1\n' }, patch, 'inconsistent header lines 2 and')
    const error = refusal(patch)
    expect(error).toMatchObject({ code: 'PARSE_INCONSISTENT_HEADER', patchLine })
    expect(error.message).toContain(`"${second}" at patch line ${patchLine}`)
    expect(error.message).toContain(`"${header.split('\n')[0] as string}" at patch line 2`)
  })
})

describe('file modes (git t4129)', () => {
  const modePatch = (mode: string) => `diff --git a/f b/f\nold mode 100644\nnew mode ${mode}\n`

  it("canonicalises a regular file's mode by the owner's execute bit alone", () => {
    const cases: [string, string][] = [
      ['100770', '100755'],
      ['100700', '100755'],
      ['100100', '100755'],
      ['100670', '100644'],
      ['100611', '100644'],
      ['100007', '100644'],
      ['100000', '100644'],
      ['0100755', '100755'],
      ['  100755', '100755'],
      ['100755 trailing words', '100755'],
    ]
    for (const [written, canonical] of cases) {
      const git = gitApply({ f: '1\n' }, modePatch(written))
      expect([written, git.applied, git.executable]).toEqual([
        written,
        true,
        canonical === '100755' ? ['f'] : [],
      ])
      expect(ops(modePatch(written))).toMatchObject([
        { modeBefore: '100644', modeAfter: canonical },
      ])
    }
  })

  it('canonicalises new file mode and deleted file mode too', () => {
    const created = lines(
      'diff --git a/f b/f',
      'new file mode 100770',
      '--- /dev/null',
      '+++ b/f',
      '@@ -0,0 +1 @@',
      '+2',
    )
    expect(gitApply({}, created)).toMatchObject({ tree: { f: '2\n' }, executable: ['f'] })
    expect(ops(created)).toMatchObject([{ kind: 'add', modeAfter: '100755' }])
    const deleted = lines(
      'diff --git a/f b/f',
      'deleted file mode 100660',
      '--- a/f',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-1',
    )
    expect(gitApply({ f: '1\n' }, deleted)).toMatchObject({ applied: true, tree: {} })
    expect(ops(deleted)).toMatchObject([{ kind: 'delete', modeBefore: '100644' }])
  })

  it('refuses a mode line that is no octal number', () => {
    for (const written of ['1007xx', '', 'garbage']) {
      expectGitRefuses({ f: '1\n' }, modePatch(written), 'invalid mode')
      expect(refusal(modePatch(written))).toMatchObject({ code: 'PARSE_BAD_HEADER', patchLine: 3 })
    }
  })

  it('refuses a mode line that changes the type or names no file type', () => {
    for (const written of ['120000', '160000']) {
      expectGitRefuses({ f: '1\n' }, modePatch(written), 'does not match old mode')
      const error = refusal(modePatch(written))
      expect(error).toMatchObject({ code: 'PARSE_INCONSISTENT_HEADER', patchLine: 3 })
      expect(error.message).toContain('"old mode 100644" at patch line 2')
    }
    for (const written of ['040000', '755', '200755']) {
      expectGitRefuses({ f: '1\n' }, modePatch(written), 'does not match old mode')
      expect(refusal(modePatch(written))).toMatchObject({ code: 'PARSE_BAD_HEADER', patchLine: 3 })
    }
    expect([canonicalMode(0o120777), canonicalMode(0o160000), canonicalMode(0)]).toEqual([
      '120000',
      '160000',
      null,
    ])
  })

  it('refuses a mode-only section that states one mode, or the same mode twice', () => {
    for (const header of [
      'new mode 100755',
      'old mode 100644',
      'old mode 100644\nnew mode 100644',
      'old mode 100644\nnew mode 0100644',
    ]) {
      const patch = `diff --git a/f b/f\n${header}\n`
      expectGitRefuses({ f: '1\n' }, patch, 'patch with only garbage')
      expect(refusal(patch)).toMatchObject({ code: 'PARSE_EMPTY_HUNK', path: 'f', patchLine: 1 })
    }
    // Two modes that differ as written are a change, even when both canonicalise to one mode.
    const same = 'diff --git a/f b/f\nold mode 100644\nnew mode 100664\n'
    expect(gitApply({ f: '1\n' }, same)).toMatchObject({ applied: true, executable: [] })
    expect(ops(same)).toMatchObject([{ modeBefore: '100644', modeAfter: '100644' }])
    // A lone new mode with a hunk is applied, as git applies it.
    const withHunk = lines('diff --git a/f b/f', 'new mode 100755', '--- a/f', '+++ b/f')
    const patch = `${withHunk}@@ -1 +1 @@\n-1\n+2\n`
    expect(gitApply({ f: '1\n' }, patch)).toMatchObject({ tree: { f: '2\n' }, executable: ['f'] })
    expect(ops(patch)).toMatchObject([{ kind: 'update', modeAfter: '100755' }])
  })
})

describe('empty files (git t4126, t4129)', () => {
  it('creates an empty file from new file mode alone, with or without an index line', () => {
    for (const patch of [
      'diff --git a/f b/f\nnew file mode 100644\n',
      'diff --git a/f b/f\nnew file mode 100644\nindex 0000000..e69de29\n',
      'diff --git "a/funny /empty" "b/funny /empty"\nnew file mode 100644\n',
      // What `git diff` writes for a directory name ending in a space. git 2.39 finds no name
      // in it ("lacks filename information"); later git applies it (its t4126), as patchloom does.
      'diff --git a/funny /empty b/funny /empty\nnew file mode 100644\nindex 0000000..e69de29\n',
    ]) {
      const name = patch.includes('funny') ? 'funny /empty' : 'f'
      if (!patch.includes('a/funny')) expect(gitApply({}, patch).tree).toEqual({ [name]: '' })
      expect(ops(patch)).toEqual([
        {
          kind: 'add',
          path: name,
          patchLine: 1,
          content: '',
          modeAfter: '100644',
          overwrite: false,
        },
      ])
    }
  })

  it('creates an empty file followed by another section', () => {
    const patch =
      'diff --git a/f b/f\nnew file mode 100644\n' +
      lines(
        'diff --git a/g b/g',
        'new file mode 100644',
        '--- /dev/null',
        '+++ b/g',
        '@@ -0,0 +1 @@',
        '+1',
      )
    expect(gitApply({}, patch).tree).toEqual({ f: '', g: '1\n' })
    expect(ops(patch)).toMatchObject([
      { kind: 'add', path: 'f', content: '' },
      { kind: 'add', path: 'g', content: '1\n' },
    ])
  })

  it('creates an empty file from ---/+++ lines with no hunk, taking what follows as junk', () => {
    const patch = lines(
      'diff --git a/non-canon b/non-canon',
      'new file mode 100660',
      '--- /dev/null',
      '+++ b/non-canon',
      '+content',
    )
    expect(gitApply({}, patch)).toMatchObject({ applied: true, tree: { 'non-canon': '' } })
    expect(ops(patch)).toEqual([
      {
        kind: 'add',
        path: 'non-canon',
        patchLine: 1,
        content: '',
        modeAfter: '100644',
        overwrite: false,
      },
    ])
  })

  it('deletes an empty file from deleted file mode alone, and refuses one with content', () => {
    const patch = 'diff --git a/f b/f\ndeleted file mode 100644\nindex e69de29..0000000\n'
    expect(gitApply({ f: '' }, patch)).toMatchObject({ applied: true, tree: {} })
    // The parser states no content; the deletion is refused when applied (src/apply/compute.ts).
    expectGitRefuses({ f: '1\n' }, patch, 'removal patch leaves file contents')
    expect(ops(patch)).toEqual([
      { kind: 'delete', path: 'f', patchLine: 1, hunks: [], modeBefore: '100644' },
    ])
    const withLines = lines(
      'diff --git a/f b/f',
      'deleted file mode 100644',
      '--- a/f',
      '+++ /dev/null',
    )
    expect(gitApply({ f: '' }, withLines)).toMatchObject({ applied: true, tree: {} })
    expect(ops(withLines)).toMatchObject([{ kind: 'delete', path: 'f', hunks: [] }])
  })

  it('renames with ---/+++ lines and no hunk, and refuses a modification with no hunk', () => {
    const rename = lines('diff --git a/f b/g', 'rename from f', 'rename to g', '--- a/f', '+++ b/g')
    expect(gitApply({ f: '1\n' }, rename).tree).toEqual({ g: '1\n' })
    expect(ops(rename)).toMatchObject([{ kind: 'update', path: 'f', moveTo: 'g', hunks: [] }])
    const modification = lines(
      'diff --git a/f b/f',
      'index d00491f..0cfbf08 100644',
      '--- a/f',
      '+++ b/f',
    )
    expectGitRefuses({ f: '1\n' }, modification, 'patch with only garbage')
    expect(refusal(modification)).toMatchObject({ code: 'PARSE_EMPTY_HUNK', patchLine: 1 })
  })
})

describe('hunks that change nothing (git t4136)', () => {
  it('refuses a hunk of context lines alone', () => {
    for (const patch of [
      lines(
        'diff --get a/1 b/1',
        'index 6696ea4..606eddd 100644',
        '--- a/1',
        '+++ b/1',
        '@@ -1,1 +1,1 @@',
        ' 1',
      ),
      lines(
        'diff --git a/1 b/1',
        '--- a/1',
        '+++ b/1',
        '@@ -1,1 +1,1 @@',
        ' 1',
        '@@ -3 +3 @@',
        '-3',
        '+4',
      ),
    ]) {
      expectGitRefuses({ '1': '1\n2\n3\n' }, patch, 'corrupt patch')
      expect(refusal(patch)).toMatchObject({ code: 'PARSE_EMPTY_HUNK', path: '1' })
    }
  })
})

describe('traditional diffs that create and delete (git t4126, t4132)', () => {
  const timeWest = '1982-09-16 07:00:00.000000000 -0800'
  const timeEast = '1982-09-17 00:00:00.000000000 +0900'
  const timeGMT = '1982-09-16 15:00:00.000000000 +0000'
  const epochWest = '1969-12-31 16:00:00.000000000 -0800'
  const epochEast = '1970-01-01 09:00:00.000000000 +0900'
  const epochGMT = '1970-01-01 00:00:00.000000000 +0000'
  const epochWest2 = '1969-12-31 16:00:00 -08:00'
  const adds = (old: string, now: string) =>
    lines(
      'diff -ruN a/file b/file',
      `--- a/file\t${old}`,
      `+++ b/file\t${now}`,
      '@@ -0,0 +1 @@',
      '+something',
    )
  const removes = (old: string, now: string) =>
    lines(
      'diff -ruN a/file b/file',
      `--- a/file\t${old}`,
      `+++ b/file\t${now}`,
      '@@ -1 +0,0 @@',
      '-something',
    )

  it('creates the file of a one-hunk addition when it is missing, and patches it when it is empty', () => {
    const missing = lines(
      '--- missing.orig',
      '+++ missing',
      '@@ -0,0 +1,5 @@',
      '+a',
      '+b',
      '+c',
      '+d',
      '+e',
    )
    expect(gitApply({}, missing).tree).toEqual({ missing: 'a\nb\nc\nd\ne\n' })
    expect(ops(missing)).toMatchObject([
      { kind: 'update', path: 'missing', createIfMissing: true, hunks: [{ oldStartLine: 0 }] },
    ])
    const empty = missing.replaceAll('missing', 'empty')
    expect(gitApply({ empty: '' }, empty).tree).toEqual({ empty: 'a\nb\nc\nd\ne\n' })
    expect(ops(empty)).toMatchObject([{ kind: 'update', path: 'empty', createIfMissing: true }])
    for (const time of [timeWest, timeEast, timeGMT]) {
      const patch = adds(time, time)
      expect(gitApply({}, patch).tree).toEqual({ file: 'something\n' })
      expect(gitApply({ file: '' }, patch).tree).toEqual({ file: 'something\n' })
      expect(ops(patch)).toMatchObject([{ kind: 'update', path: 'file', createIfMissing: true }])
    }
  })

  it('creates on an epoch --- stamp in any zone, and refuses the file that exists', () => {
    for (const [epoch, time] of [
      [epochWest, timeWest],
      [epochEast, timeEast],
      [epochGMT, timeGMT],
    ] as const) {
      const patch = adds(epoch, time)
      expect(gitApply({}, patch).tree).toEqual({ file: 'something\n' })
      expectGitRefuses({ file: '' }, patch, 'already exists in working directory')
      expect(ops(patch)).toMatchObject([{ kind: 'add', path: 'file', content: 'something\n' }])
    }
  })

  it('empties the file of a one-hunk removal, and deletes it on an epoch +++ stamp', () => {
    for (const time of [timeWest, timeEast, timeGMT]) {
      const patch = removes(time, time)
      expect(gitApply({ file: 'something\n' }, patch).tree).toEqual({ file: '' })
      expect(ops(patch)).toEqual([
        expect.objectContaining({ kind: 'update', path: 'file', locate: 'near-line' }),
      ])
      expect(ops(patch)[0]).not.toHaveProperty('createIfMissing')
    }
    for (const [time, epoch] of [
      [timeWest, epochWest],
      [timeEast, epochEast],
      [timeGMT, epochGMT],
      [timeWest, epochWest2],
    ] as const) {
      const patch = removes(time, epoch)
      expect(gitApply({ file: 'something\n' }, patch)).toMatchObject({ applied: true, tree: {} })
      expect(ops(patch)).toMatchObject([{ kind: 'delete', path: 'file' }])
    }
  })

  it('reads an epoch stamp exactly as git does', () => {
    const stamps: [string, boolean][] = [
      ['\t1970-01-01 00:00:00.000000000 +0000', true],
      ['\t1969-12-31 16:00:00.000000000 -0800', true],
      ['\t1970-01-01 09:00:00.000000000 +0900', true],
      ['\t1969-12-31 16:00:00 -08:00', true],
      ['\t1970-01-01 05:30:00 +0530', true],
      ['\t1970-01-01 00:00:00.000 +0000', true],
      ['\t1969-12-31 23:59:00 -0001', true],
      ['\tx\t1970-01-01 00:00:00 +0000', true],
      ['  1970-01-01 05:30:00 +05:30', false],
      ['\t1970-01-01 00:00:00', false],
      ['\tThu Jan  1 00:00:00 1970', false],
      ['\t1970-01-01 00:00:00.5 +0000', false],
      ['\t1970-01-01 00:00:01 +0000', false],
      ['\t1970-01-01 00:00:00 +0000 x', false],
      ['\t1970-01-01 00:00:00 +0000 ', false],
    ]
    for (const [stamp, epoch] of stamps) {
      const patch = lines(
        `--- a/n.txt${stamp}`,
        '+++ b/n.txt\t2024-03-01 10:00:00 +0100',
        '@@ -0,0 +1 @@',
        '+n',
      )
      // On an empty n.txt, git refuses a creation ("already exists") and patches anything else.
      const git = gitApply({ 'n.txt': '' }, patch)
      expect([stamp, git.applied]).toEqual([stamp, !epoch])
      expect([stamp, hasEpochTimestamp(`a/n.txt${stamp}`)]).toEqual([stamp, epoch])
      expect([stamp, ops(patch)[0]?.kind]).toEqual([stamp, epoch ? 'add' : 'update'])
    }
  })

  it('refuses an epoch side whose hunk states lines for it', () => {
    const created = lines(`--- a/f\t${epochGMT}`, `+++ b/f\t${timeGMT}`, '@@ -1 +1 @@', '-1', '+2')
    expectGitRefuses({ f: '1\n' }, created, 'new file f depends on old contents')
    expect(refusal(created)).toMatchObject({ code: 'PARSE_BAD_LINE', patchLine: 3 })
    const deleted = lines(`--- a/f\t${timeGMT}`, `+++ b/f\t${epochGMT}`, '@@ -1 +1 @@', '-1', '+2')
    expectGitRefuses({ f: '1\n' }, deleted, 'deleted file f still has contents')
    expect(refusal(deleted)).toMatchObject({ code: 'PARSE_BAD_LINE', patchLine: 3 })
  })

  it('does not create from several hunks that only add', () => {
    const patch = lines('--- a/f', '+++ b/f', '@@ -0,0 +1 @@', '+a', '@@ -1,0 +3 @@', '+c')
    expectGitRefuses({}, patch, 'No such file or directory')
    expect(ops(patch)[0]).not.toHaveProperty('createIfMissing')
  })

  it('names the shorter file when one name starts with the other', () => {
    const patch = lines('--- f', '+++ f.new', '@@ -1 +1 @@', '-1', '+2')
    expect(gitApply({ f: '1\n', 'f.new': '1\n' }, patch).tree).toEqual({ f: '2\n', 'f.new': '1\n' })
    expect(ops(patch)).toMatchObject([{ kind: 'update', path: 'f' }])
    const orig = lines('--- a/f.orig', '+++ b/f', '@@ -1 +1 @@', '-1', '+2')
    expect(gitApply({ f: '1\n', 'f.orig': '1\n' }, orig).tree).toEqual({
      f: '2\n',
      'f.orig': '1\n',
    })
    expect(ops(orig)).toMatchObject([{ kind: 'update', path: 'f' }])
  })
})
