// blockingReads: inline requests read with synchronous calls, a batch of MAX_BATCH_OPS at a
// time, and a large git diff is parsed a run at a time in this thread ('inline-runs'). It must
// change nothing but speed and memory: the same results, the same first error whichever batch
// holds the failures (a parse error included), and a type change whose halves fall into
// different batches still paired. An engine without it (`awaiting` below) verifies requests of
// more than MAX_BATCH_OPS files the same way but gives the event loop a turn between batches,
// and awaits each call on smaller ones; the last block holds those two routes to one answer.
import { lstat, mkdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createEngine } from '../../../src/engine/engine.js'
import type { Engine } from '../../../src/engine/api.js'
import { batchCount, batchRanges, MAX_BATCH_OPS, threadRanges } from '../../../src/engine/route.js'
import { isEditError } from '../../../src/errors.js'
import { makeTempDir } from '../../helpers/tree.js'

const FILES = 600
const engines: Engine[] = []
const roots: string[] = []
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()))
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true })
})

const name = (i: number) => `d${i % 7}/f${String(i).padStart(3, '0')}.txt`

function section(file: string, from: string, to: string): string {
  return `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1,3 +1,3 @@\n a\n-${from}\n+${to}\n c\n`
}

async function workspace(): Promise<string> {
  const root = await makeTempDir('patchloom-blocking-')
  roots.push(root)
  for (let d = 0; d < 7; d++) await mkdir(path.join(root, `d${d}`))
  for (let i = 0; i < FILES; i++) await writeFile(path.join(root, name(i)), `a\nb${i}\nc\n`)
  return root
}

function engines2(root: string): { blocking: Engine; awaiting: Engine; routes: string[] } {
  const routes: string[] = []
  const logger = {
    debug: (_event: string, fields?: Record<string, unknown>) => {
      if (fields?.['route'] !== undefined) routes.push(String(fields['route']))
    },
    warn: () => undefined,
  }
  const blocking = createEngine({
    root,
    workers: false,
    blockingReads: true,
    durability: 'fast',
    logger,
  })
  const awaiting = createEngine({ root, workers: false, durability: 'fast' })
  engines.push(blocking, awaiting)
  return { blocking, awaiting, routes }
}

const codexOf = (count: number) =>
  '*** Begin Patch\n' +
  Array.from(
    { length: count },
    (_, i) => `*** Update File: ${name(i)}\n@@\n a\n-b${i}\n+B${i}\n`,
  ).join('') +
  '*** End Patch\n'

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  return isEditError(error) ? error.code : `not an EditError: ${String(error)}`
}

const sections = () => Array.from({ length: FILES }, (_, i) => section(name(i), `b${i}`, `B${i}`))

describe('blockingReads', () => {
  it('cuts this request into several batches (the premise of the tests below)', () => {
    expect(batchRanges(FILES, 1).length).toBeGreaterThan(2)
    expect(threadRanges(FILES).length).toBeGreaterThan(2)
  })

  it('gives the same check result as awaited reads, from runs and from a plan', async () => {
    const root = await workspace()
    const { blocking, awaiting, routes } = engines2(root)
    for (const patch of [sections().join(''), codexOf(FILES)]) {
      const [a, b] = [await blocking.check(patch), await awaiting.check(patch)]
      expect(a.files).toHaveLength(FILES)
      expect(a.files).toEqual(b.files)
      expect(a.warnings).toEqual(b.warnings)
    }
    // A git diff is cut into runs; a Codex patch is parsed whole and verified in batches.
    expect(routes).toEqual(['inline-runs', 'inline'])
  })

  it('parses runs of the patch with its stop tokens cut, as a whole patch is', async () => {
    const root = await workspace()
    const { blocking, routes } = engines2(root)
    // The model's stop token glued to the last context line of the last section.
    const patch = sections().join('').replace(/ c\n$/, ' c<|endoftext|>\n')
    const bytes = new TextEncoder().encode(patch)
    const result = await blocking.apply(bytes)
    expect(routes).toEqual(['inline-runs'])
    expect(result.files).toHaveLength(FILES)
    expect(result.warnings.map((w) => w.code)).toEqual(['parse.stop-token'])
    expect(await readFile(path.join(root, name(FILES - 1)), 'utf8')).toBe(`a\nB${FILES - 1}\nc\n`)
  })

  it('gives the same result without diffs, where plain sections are packed (D-075)', async () => {
    // Six-line files, so the hunk clears the last line and most sections take the packed exact
    // splice; every 40th file differs in a way that sends its section or its file elsewhere.
    const root = await workspace()
    const sections6: string[] = []
    for (let i = 0; i < FILES; i++) {
      const file = name(i)
      const body = `a\nb${i}\nc\nd\n\u00e9\nf\n`
      const kind = i % 40
      if (kind === 1)
        await writeFile(path.join(root, file), 'moved\n' + body) // an offset
      else if (kind === 2) await writeFile(path.join(root, file), body.replaceAll('\n', '\r\n'))
      else if (kind === 3) await writeFile(path.join(root, file), Buffer.from(body, 'latin1'))
      else if (kind === 4) await writeFile(path.join(root, file), body.replace('d', '\0'))
      else await writeFile(path.join(root, file), body)
      let text = `diff --git a/${file} b/${file}\nindex 1234567..89abcde 100644\n--- a/${file}\n+++ b/${file}\n@@ -1,3 +1,3 @@\n a\n-b${i}\n+B${i}\n c\n`
      if (kind === 5) text = text.replace(`+B${i}`, `+B${i} \u00fc`) // not ASCII: general parser
      if (kind === 6)
        text = text.replace('index 1234567..89abcde 100644', 'old mode 100644\nnew mode 100755')
      sections6.push(text)
    }
    const { blocking, awaiting, routes } = engines2(root)
    const patch = sections6.join('')
    const [a, b] = [
      await blocking.check(patch, { diffs: false }),
      await awaiting.check(patch, { diffs: false }),
    ]
    expect(routes).toEqual(['inline-runs'])
    expect(a.files).toHaveLength(FILES)
    expect(a.files).toEqual(b.files)
    expect(a.warnings).toEqual(b.warnings)
    expect(a.warnings.some((w) => w.code === 'match.offset')).toBe(true)
    // Bytes that are plain ASCII spare the runs their own scan (PatchText.plain): same results.
    const ascii = sections6.filter((_, i) => i % 40 !== 5).join('')
    expect((await blocking.check(new TextEncoder().encode(ascii), { diffs: false })).files).toEqual(
      (await awaiting.check(ascii, { diffs: false })).files,
    )
    // With diffs the runs are parsed whole, and the hashes are the same.
    const withDiffs = await blocking.check(patch)
    expect(withDiffs.files.map((f) => f.afterHash)).toEqual(a.files.map((f) => f.afterHash))
    // An edit goes through a symlink to its target (D-035) on both paths.
    await rm(path.join(root, name(7)))
    await writeFile(path.join(root, 'd0', 'target.txt'), `a\nb7\nc\nd\n\u00e9\nf\n`)
    await symlink('target.txt', path.join(root, name(7)))
    const [c, d] = [
      await blocking.check(patch, { diffs: false }),
      await awaiting.check(patch, { diffs: false }),
    ]
    expect(c.files).toEqual(d.files)
    expect(c.files[7]?.afterHash).toBe(a.files[7]?.afterHash)
  })

  it('reports a parse error in a late run as the whole patch does', async () => {
    const root = await workspace()
    const { blocking, awaiting } = engines2(root)
    const broken = sections()
    broken[FILES - 3] = broken[FILES - 3]!.replace(
      '@@ -1,3 +1,3 @@',
      '@@ -1,3 +1,3 @@\nnot a hunk line',
    )
    for (const engine of [blocking, awaiting])
      expect(await codeOf(engine.check(broken.join('')))).toBe('PARSE_BAD_LINE')
    // The same error to the letter: the run's doubt sent the engine back to the whole patch.
    const messageOf = (engine: Engine) =>
      engine.check(broken.join('')).then(
        () => 'no error',
        (e: unknown) => (isEditError(e) ? `${e.message} @${e.patchLine ?? '-'}` : String(e)),
      )
    expect(await messageOf(blocking)).toBe(await messageOf(awaiting))
  })

  it('reports the same first error, whichever batch holds it', async () => {
    const root = await workspace()
    const { blocking, awaiting } = engines2(root)
    const mismatch = sections()
    mismatch[5] = section(name(5), 'not there', 'x')
    const outside = mismatch.slice()
    outside[FILES - 10] = section('../outside.txt', 'b', 'B')
    // Two creations of one path, in different batches: a duplicate in any format.
    const creation =
      'diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\n'
    const duplicate = mismatch.slice()
    duplicate[2] = creation
    duplicate[FILES - 2] = creation
    for (const engine of [blocking, awaiting]) {
      expect(await codeOf(engine.check(mismatch.join('')))).toBe('MATCH_NOT_FOUND')
      expect(await codeOf(engine.check(outside.join('')))).toBe('PATH_OUTSIDE_ROOT')
      expect(await codeOf(engine.check(duplicate.join('')))).toBe('PATH_DUPLICATE')
      // The same failures in a Codex patch: parsed whole, verified in batches.
      const codex = codexOf(FILES)
        .replace(`-b5\n`, '-not there\n')
        .replace(`*** Update File: ${name(FILES - 10)}`, '*** Update File: ../outside.txt')
      expect(await codeOf(engine.check(codex))).toBe('PATH_OUTSIDE_ROOT')
    }
  })

  it('pairs a type change whose deletion and creation fall into different batches', async () => {
    const root = await workspace()
    await writeFile(path.join(root, 'target.txt'), 'target\n')
    await writeFile(path.join(root, 'x'), 'hello\n')
    const all = sections()
    const [first] = batchRanges(FILES + 2, 1)
    const boundary = (first as readonly [number, number])[1]
    all.splice(
      boundary - 1,
      0,
      'diff --git a/x b/x\ndeleted file mode 100644\n--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-hello\n',
      'diff --git a/x b/x\nnew file mode 120000\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+target.txt\n\\ No newline at end of file\n',
    )
    const { blocking, routes } = engines2(root)
    const result = await blocking.apply(all.join(''))
    expect(routes).toEqual(['inline-runs'])
    expect(result.files).toHaveLength(FILES + 2)
    expect((await lstat(path.join(root, 'x'))).isSymbolicLink()).toBe(true)
    expect(await readlink(path.join(root, 'x'))).toBe('target.txt')
    expect(await readFile(path.join(root, name(FILES - 1)), 'utf8')).toBe(`a\nB${FILES - 1}\nc\n`)
  })

  it('applies a second section of one file, in another batch, to what the first left', async () => {
    const root = await workspace()
    const all = sections()
    all[FILES - 2] = section(name(3), 'B3', 'C3')
    const { blocking, awaiting } = engines2(root)
    const checked = await awaiting.check(all.join(''))
    const result = await blocking.apply(all.join(''))
    expect(result.files).toEqual(checked.files)
    // The two sections are one change to the file, reported once.
    expect(result.files.filter((f) => f.path === name(3))).toHaveLength(1)
    expect(result.files).toHaveLength(FILES - 1)
    expect(await readFile(path.join(root, name(3)), 'utf8')).toBe('a\nC3\nc\n')
    expect(await readFile(path.join(root, name(FILES - 2)), 'utf8')).toBe(`a\nb${FILES - 2}\nc\n`)
  })

  it('refuses a root that is a file or missing, and works through a symlinked root', async () => {
    const root = await workspace()
    for (const bad of [path.join(root, name(0)), path.join(root, 'missing')]) {
      const engine = createEngine({ root: bad, workers: false, blockingReads: true })
      engines.push(engine)
      await expect(engine.check(section('a.txt', 'b', 'c'))).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
      })
    }
    const link = `${root}-link`
    await symlink(root, link)
    roots.push(link)
    const engine = createEngine({ root: link, workers: false, blockingReads: true })
    engines.push(engine)
    await engine.apply(section(name(1), 'b1', 'B1'))
    expect(await readFile(path.join(root, name(1)), 'utf8')).toBe('a\nB1\nc\n')
  })
})

describe('inline without blockingReads', () => {
  // Requests of at most MAX_BATCH_OPS files await each filesystem call: the reference here.
  const SLICE = 200
  const slices = <T>(all: readonly T[]): T[][] =>
    Array.from({ length: Math.ceil(all.length / SLICE) }, (_, k) =>
      all.slice(k * SLICE, (k + 1) * SLICE),
    )

  it('verifies a large request in batches with the results of awaited reads', async () => {
    expect(SLICE).toBeLessThanOrEqual(MAX_BATCH_OPS)
    expect(FILES).toBeGreaterThan(MAX_BATCH_OPS)
    const root = await workspace()
    const routes: string[] = []
    const awaiting = createEngine({
      root,
      workers: false,
      durability: 'fast',
      logger: {
        debug: (_event, fields) => {
          if (fields?.['route'] !== undefined) routes.push(String(fields['route']))
        },
        warn: () => undefined,
      },
    })
    engines.push(awaiting)
    const all = sections()
    all[9] = section(name(9), 'b9', 'b9 \u00fc') // one section for the general parser
    for (const diffs of [true, false]) {
      const whole = await awaiting.check(all.join(''), { diffs })
      const parts = []
      for (const part of slices(all))
        parts.push(...(await awaiting.check(part.join(''), { diffs })).files)
      expect(whole.files).toHaveLength(FILES)
      expect(whole.files).toEqual(parts)
    }
    const codex = await awaiting.check(codexOf(FILES))
    const codexParts = []
    for (let k = 0; k < FILES; k += SLICE) {
      const part = codexOf(FILES)
        .split('*** Update File: ')
        .slice(1 + k, 1 + k + SLICE)
      codexParts.push(
        ...(
          await awaiting.check(
            `*** Begin Patch\n*** Update File: ${part.join('*** Update File: ')}`.replace(
              /(\*\*\* End Patch\n)?$/,
              '*** End Patch\n',
            ),
          )
        ).files,
      )
    }
    expect(codex.files).toEqual(codexParts)
    // The whole git diffs went in runs, the slices awaited their reads; the Codex patch is parsed
    // whole and verified in batches, its slices not.
    expect(routes.filter((r) => r === 'inline-runs')).toHaveLength(2)
    expect(routes.filter((r) => r === 'inline')).toHaveLength(
      2 * slices(all).length + 1 + codexParts.length / SLICE,
    )
  })

  it('gives the event loop a turn between batches, and blockingReads does not', async () => {
    const root = await workspace()
    const { blocking, awaiting } = engines2(root)
    const patch = sections().join('')
    await awaiting.check(patch) // both warm: the journal and the root are looked up once
    await blocking.check(patch)
    const turnsDuring = async (engine: Engine): Promise<number> => {
      let turns = 0
      let done = false
      const tick = () => {
        if (done) return
        turns++
        setImmediate(tick)
      }
      setImmediate(tick)
      await engine.check(patch)
      done = true
      return turns
    }
    const runs = batchCount(FILES, 1)
    expect(runs).toBeGreaterThan(2)
    const [yielding, blocked] = [await turnsDuring(awaiting), await turnsDuring(blocking)]
    expect(yielding - blocked).toBeGreaterThanOrEqual(runs - 1)
  })
})
