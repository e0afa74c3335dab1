// Symlinks through the whole engine: a delete or move acts on the link, a git patch
// with mode 120000 writes or removes a link, and undo puts back exactly what was there, a link
// as a link (same target string) and a file as a file. Scenarios 945-959 pin the apply side;
// undo is only reachable here. Expected diffs are what `git diff` writes (index lines aside,
// which patchloom never writes).
import { lstat, mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEngine } from '../../../src/engine/engine.js'
import type { Engine } from '../../../src/engine/api.js'
import { rejection } from '../../helpers/edit-error.js'

let root: string
let engine: Engine
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'patchloom-symlinks-'))
  await writeFile(path.join(root, 'real.txt'), 'one\ntwo\n')
  await symlink('real.txt', path.join(root, 'alias.txt'))
  engine = createEngine({ root, workers: false, durability: 'fast' })
})
afterEach(async () => {
  await engine.close()
  await rm(root, { recursive: true, force: true })
})

const at = (rel: string) => path.join(root, rel)
const codex = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n')

/** What stands at `rel`: a link's target, a file's text, or null. */
async function entry(rel: string): Promise<{ link: string } | { text: string } | null> {
  const st = await lstat(at(rel)).catch(() => null)
  if (st === null) return null
  if (st.isSymbolicLink()) return { link: await readlink(at(rel)) }
  return { text: await readFile(at(rel), 'utf8') }
}

describe('symlinks through the engine', () => {
  it('deletes the link, not its target, writes git diff and undoes back to the link', async () => {
    const result = await engine.apply(codex('*** Delete File: alias.txt'))
    expect(await entry('alias.txt')).toBe(null)
    expect(await entry('real.txt')).toEqual({ text: 'one\ntwo\n' })
    expect(result.files[0]?.diff).toBe(
      [
        'diff --git a/alias.txt b/alias.txt',
        'deleted file mode 120000',
        '--- a/alias.txt',
        '+++ /dev/null',
        '@@ -1 +0,0 @@',
        '-real.txt',
        '\\ No newline at end of file',
        '',
      ].join('\n'),
    )
    await engine.undo()
    expect(await entry('alias.txt')).toEqual({ link: 'real.txt' })
    expect(await entry('real.txt')).toEqual({ text: 'one\ntwo\n' })
  })

  it('moves the link with its relative target verbatim, and undo moves it back', async () => {
    await engine.apply(codex('*** Update File: alias.txt', '*** Move to: sub/alias.txt'))
    expect(await entry('sub/alias.txt')).toEqual({ link: 'real.txt' })
    expect(await entry('alias.txt')).toBe(null)
    await engine.undo()
    expect(await entry('alias.txt')).toEqual({ link: 'real.txt' })
    expect(await entry('sub')).toBe(null)
    expect(await entry('real.txt')).toEqual({ text: 'one\ntwo\n' })
  })

  it('moves a file onto an existing link by replacing the link, not its target', async () => {
    await writeFile(at('moved.txt'), 'm\n')
    const result = await engine.apply(codex('*** Update File: moved.txt', '*** Move to: alias.txt'))
    expect(result.files[0]).toMatchObject({ op: 'move', path: 'alias.txt', overwrote: true })
    expect(await entry('alias.txt')).toEqual({ text: 'm\n' })
    expect(await entry('real.txt')).toEqual({ text: 'one\ntwo\n' })
    await engine.undo()
    expect(await entry('alias.txt')).toEqual({ link: 'real.txt' })
    expect(await entry('moved.txt')).toEqual({ text: 'm\n' })
  })

  it('refuses a moved link whose relative target would then lead outside the root', async () => {
    await mkdir(at('a'))
    await symlink('../real.txt', at('a/up.txt'))
    const error = await rejection(
      engine.apply(codex('*** Update File: a/up.txt', '*** Move to: up.txt')),
    )
    expect(error.code).toBe('PATH_OUTSIDE_ROOT')
    expect(error.path).toBe('up.txt')
    expect(await entry('a/up.txt')).toEqual({ link: '../real.txt' })
  })

  it('refuses a Codex move of a link that also has chunks (FILE_WRONG_TYPE)', async () => {
    const error = await rejection(
      engine.apply(codex('*** Update File: alias.txt', '*** Move to: b.txt', '@@', '-one', '+1')),
    )
    expect(error.code).toBe('FILE_WRONG_TYPE')
    expect(await entry('alias.txt')).toEqual({ link: 'real.txt' })
  })

  it('refuses a git deletion that states a regular file where a link stands (wrong type)', async () => {
    const patch = [
      'diff --git a/alias.txt b/alias.txt',
      'deleted file mode 100644',
      '--- a/alias.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-real.txt',
      '\\ No newline at end of file',
      '',
    ].join('\n')
    const error = await rejection(engine.apply(patch))
    expect(error.code).toBe('FILE_WRONG_TYPE')
    expect(await entry('alias.txt')).toEqual({ link: 'real.txt' })
  })

  it('copies a link as a link (git copy), and undo removes only the copy', async () => {
    const patch = [
      'diff --git a/alias.txt b/copy.txt',
      'similarity index 100%',
      'copy from alias.txt',
      'copy to copy.txt',
      '',
    ].join('\n')
    const result = await engine.apply(patch)
    expect(await entry('copy.txt')).toEqual({ link: 'real.txt' })
    expect(result.files[0]).toMatchObject({ op: 'copy', from: 'alias.txt' })
    await engine.undo()
    expect(await entry('copy.txt')).toBe(null)
    expect(await entry('alias.txt')).toEqual({ link: 'real.txt' })
  })

  it('refuses a copy of a link with changes and no mode 120000 (FILE_WRONG_TYPE)', async () => {
    const patch = [
      'diff --git a/alias.txt b/copy.txt',
      'similarity index 60%',
      'copy from alias.txt',
      'copy to copy.txt',
      '--- a/alias.txt',
      '+++ b/copy.txt',
      '@@ -1,2 +1,2 @@',
      ' one',
      '-two',
      '+2',
      '',
    ].join('\n')
    const error = await rejection(engine.apply(patch))
    expect(error).toMatchObject({ code: 'FILE_WRONG_TYPE', path: 'alias.txt' })
    expect(await entry('copy.txt')).toBe(null)
  })

  it('creates a link from new file mode 120000, and undo removes only the link', async () => {
    const patch = [
      'diff --git a/new-link b/new-link',
      'new file mode 120000',
      'index 0000000..c9c61fe',
      '--- /dev/null',
      '+++ b/new-link',
      '@@ -0,0 +1 @@',
      '+real.txt',
      '\\ No newline at end of file',
      '',
    ].join('\n')
    const result = await engine.apply(patch)
    expect(await entry('new-link')).toEqual({ link: 'real.txt' })
    expect(result.files[0]).toMatchObject({ op: 'add', modeAfter: '120000' })
    await engine.undo()
    expect(await entry('new-link')).toBe(null)
    expect(await entry('real.txt')).toEqual({ text: 'one\ntwo\n' })
  })

  it('changes a file into a link (git type change) and undo brings the file back', async () => {
    await writeFile(at('f.txt'), 'x\n')
    const patch = [
      'diff --git a/f.txt b/f.txt',
      'deleted file mode 100644',
      'index 587be6b..0000000',
      '--- a/f.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-x',
      'diff --git a/f.txt b/f.txt',
      'new file mode 120000',
      'index 0000000..c9c61fe',
      '--- /dev/null',
      '+++ b/f.txt',
      '@@ -0,0 +1 @@',
      '+real.txt',
      '\\ No newline at end of file',
      '',
    ].join('\n')
    const result = await engine.apply(patch)
    expect(await entry('f.txt')).toEqual({ link: 'real.txt' })
    expect(result.files.map((f) => [f.path, f.op])).toEqual([
      ['f.txt', 'delete'],
      ['f.txt', 'add'],
    ])
    expect(result.files[1]?.overwrote).toBeUndefined()
    await engine.undo()
    expect(await entry('f.txt')).toEqual({ text: 'x\n' })
    expect((await lstat(at('f.txt'))).mode & 0o777).toBe(0o644)
  })

  it('changes a link into a file (git type change) and undo brings the link back', async () => {
    const patch = [
      'diff --git a/alias.txt b/alias.txt',
      'deleted file mode 120000',
      '--- a/alias.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-real.txt',
      '\\ No newline at end of file',
      'diff --git a/alias.txt b/alias.txt',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/alias.txt',
      '@@ -0,0 +1 @@',
      '+own',
      '',
    ].join('\n')
    await engine.apply(patch)
    expect(await entry('alias.txt')).toEqual({ text: 'own\n' })
    expect(await entry('real.txt')).toEqual({ text: 'one\ntwo\n' })
    await engine.undo()
    expect(await entry('alias.txt')).toEqual({ link: 'real.txt' })
  })

  it('rewrites a link target from an index line stating 120000, and undo restores it', async () => {
    await writeFile(at('b.txt'), 'b\n')
    const patch = [
      'diff --git a/alias.txt b/alias.txt',
      'index c9c61fe..19acdd8 120000',
      '--- a/alias.txt',
      '+++ b/alias.txt',
      '@@ -1 +1 @@',
      '-real.txt',
      '\\ No newline at end of file',
      '+b.txt',
      '\\ No newline at end of file',
      '',
    ].join('\n')
    await engine.apply(patch)
    expect(await entry('alias.txt')).toEqual({ link: 'b.txt' })
    expect(await entry('real.txt')).toEqual({ text: 'one\ntwo\n' })
    await engine.undo()
    expect(await entry('alias.txt')).toEqual({ link: 'real.txt' })
  })

  it('undoes an edit made through a link: the link stays a link, the target gets its bytes', async () => {
    await engine.apply(codex('*** Update File: alias.txt', '@@', '-two', '+2'))
    expect(await entry('real.txt')).toEqual({ text: 'one\n2\n' })
    await engine.undo()
    expect(await entry('real.txt')).toEqual({ text: 'one\ntwo\n' })
    expect(await entry('alias.txt')).toEqual({ link: 'real.txt' })
  })

  it('says PATH_DUPLICATE comes from a symlink alias, not from case folding', async () => {
    const error = await rejection(
      engine.apply(
        codex(
          '*** Update File: real.txt',
          '@@',
          '-one',
          '+1',
          '*** Update File: alias.txt',
          '@@',
          '-two',
          '+2',
        ),
      ),
    )
    expect(error.code).toBe('PATH_DUPLICATE')
    expect(error.message).toContain('the same file through a symlink')
    expect(error.message).not.toContain('ignores case')
  })

  it('refuses an edit through a link and a delete of the link in one patch (PATH_DUPLICATE)', async () => {
    const error = await rejection(
      engine.apply(
        codex('*** Update File: alias.txt', '@@', '-two', '+2', '*** Delete File: alias.txt'),
      ),
    )
    expect(error).toMatchObject({ code: 'PATH_DUPLICATE', path: 'alias.txt', patchLine: 6 })
    expect(await entry('alias.txt')).toEqual({ link: 'real.txt' })
    expect(await entry('real.txt')).toEqual({ text: 'one\ntwo\n' })
  })

  it('refuses a delete through a symlinked directory and keeps that directory', async () => {
    await mkdir(at('realdir'))
    await writeFile(at('realdir/x.txt'), 'x\n')
    await symlink('realdir', at('aliasdir'))
    const error = await rejection(engine.apply(codex('*** Delete File: aliasdir/x.txt')))
    expect(error.code).toBe('PATH_BEYOND_SYMLINK')
    expect(error.message).toContain('aliasdir is a symlink')
    expect(await entry('realdir/x.txt')).toEqual({ text: 'x\n' })
  })
})
