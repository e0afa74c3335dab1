// Packed plain sections (DECISIONS.md D-075) must be invisible: a run of git-diff sections read
// with packing gives the general parser's ops once the packed hunks are parsed (or neither reads
// it), and a packed op computes the same bytes, counts and errors as the parsed one, on the file
// the diff was made from and on files that changed since. The generator writes what git writes and
// the variations the general parser has rules for: miscounted hunks, markers, empty and CR lines,
// other extended headers, quoted or spaced names, junk after the last hunk.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { computeFile } from '../../../src/apply/compute.js'
import { readUnifiedRun, scanPlainSection, unpackHunks } from '../../../src/parse/plain-section.js'
import type { ComputeInput, FileOp, UpdateOp } from '../../../src/types.js'
import { fuzzRuns } from '../../helpers/test-mode.js'

const encoder = new TextEncoder()
const WORDS = ['a', 'b', 'c', 'x = 1', '  indented', '}', '', 'end', '-- a/f', '++ b/f']

/** `usual` most of the time, each of `rare` now and then. */
function often<T>(usual: T, ...rare: T[]): fc.Arbitrary<T> {
  return fc.constantFrom(...Array.from({ length: 6 * rare.length }, () => usual), ...rare)
}

interface HunkSpec {
  readonly at: number
  readonly context: number
  readonly removed: number
  readonly added: readonly string[]
  readonly counts: 'exact' | 'old+1' | 'new-1' | 'short'
  readonly trailer: boolean
  readonly variant: 'plain' | 'empty-context' | 'cr' | 'non-ascii' | 'marker'
}

interface SectionSpec {
  readonly name: string
  readonly index: 'none' | 'plain' | '100644' | '100755' | '120000' | 'bad' | 'mode-change'
  readonly headers: 'git' | 'mismatch' | 'dev-null' | 'none'
  readonly lines: readonly string[]
  readonly hunks: readonly HunkSpec[]
  readonly between: '' | '\n'
  readonly after: '' | '\n' | '-- \n2.39.5\n'
}

const hunkArb: fc.Arbitrary<HunkSpec> = fc.record({
  at: fc.nat(200),
  context: fc.nat(3),
  removed: fc.nat(2),
  added: fc.array(fc.constantFrom(...WORDS, 'new'), { maxLength: 3 }),
  counts: often<HunkSpec['counts']>('exact', 'old+1', 'new-1', 'short'),
  trailer: fc.boolean(),
  variant: often<HunkSpec['variant']>('plain', 'empty-context', 'cr', 'non-ascii', 'marker'),
})

const sectionArb: fc.Arbitrary<SectionSpec> = fc.record({
  name: fc.constantFrom(
    'f.txt',
    'src/a.ts',
    'd/e/g.c',
    'f.txt',
    'src/a.ts',
    'd/e/g.c',
    'sp ace.txt',
    'q"t.txt',
    'caf\u00e9.txt',
  ),
  index: often<SectionSpec['index']>(
    'plain',
    'none',
    '100644',
    '100755',
    '120000',
    'bad',
    'mode-change',
  ),
  headers: fc.constantFrom(
    'git',
    'git',
    'git',
    'git',
    'git',
    'git',
    'mismatch',
    'dev-null',
    'none',
  ),
  lines: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 40 }),
  hunks: fc.array(hunkArb, { minLength: 1, maxLength: 3 }),
  between: often<SectionSpec['between']>('', '\n'),
  after: often<SectionSpec['after']>('', '\n', '-- \n2.39.5\n'),
})

/** A section as git would write it for `spec.lines` (with the spec's variations). */
function sectionText(spec: SectionSpec): string {
  const { name, lines } = spec
  let text = `diff --git a/${name} b/${name}\n`
  if (spec.index === 'plain') text += 'index 1234567..89abcde\n'
  else if (spec.index === 'bad') text += 'index zz..yy\n'
  else if (spec.index === 'mode-change') text += 'old mode 100644\nnew mode 100755\n'
  else if (spec.index !== 'none') text += `index 1234567..89abcde ${spec.index}\n`
  if (spec.headers === 'git') text += `--- a/${name}\n+++ b/${name}\n`
  else if (spec.headers === 'mismatch') text += `--- a/${name}\n+++ b/other\n`
  else if (spec.headers === 'dev-null') text += `--- /dev/null\n+++ b/${name}\n`
  let next = 0
  const bodies: string[] = []
  for (const h of [...spec.hunks].sort((a, b) => a.at - b.at)) {
    const start = Math.max(next + h.context, h.at % Math.max(1, lines.length))
    if (start >= lines.length && h.added.length === 0) continue
    const lead = lines.slice(Math.max(next, start - h.context), start)
    const removed = lines.slice(start, start + h.removed)
    const tail = lines.slice(start + removed.length, start + removed.length + h.context)
    const body = [
      ...lead.map((l) => ` ${l}`),
      ...removed.map((l) => `-${l}`),
      ...h.added.map((l) => `+${l}`),
      ...tail.map((l) => ` ${l}`),
    ]
    if (body.length === 0 || body.every((l) => l.startsWith(' '))) continue
    next = start + removed.length + tail.length
    const oldCount = lead.length + removed.length + tail.length
    const newCount = lead.length + h.added.length + tail.length
    const oldStart = oldCount === 0 ? start : start - lead.length + 1
    const stated = {
      exact: [oldCount, newCount],
      'old+1': [oldCount + 1, newCount],
      'new-1': [oldCount, Math.max(0, newCount - 1)],
      short: [oldCount, newCount],
    }[h.counts] as [number, number]
    const counted = (n: number) => (n === 1 && h.counts === 'short' ? '' : `,${n}`)
    const header = `@@ -${oldStart}${counted(stated[0])} +${oldStart}${counted(stated[1])} @@${h.trailer ? ' function f() {' : ''}`
    const lineAt = Math.floor(body.length / 2)
    if (h.variant === 'empty-context') {
      const i = body.findIndex((l) => l === ' ')
      if (i >= 0) body[i] = ''
    } else if (h.variant === 'cr') body[lineAt] += '\r'
    else if (h.variant === 'non-ascii') body[lineAt] += ' \u00fc'
    else if (h.variant === 'marker') body.push('\\ No newline at end of file')
    bodies.push([header, ...body].join('\n') + '\n')
  }
  return text + bodies.join(spec.between) + spec.after
}

/** The run's ops with every packed op's hunks parsed: what the general parser should have read. */
function unpacked(ops: readonly FileOp[]): FileOp[] {
  return ops.map((op) => (op.kind === 'update' ? unpackHunks(op) : op))
}

function job(op: FileOp, source: Uint8Array | null, extra: Partial<ComputeInput>): ComputeInput {
  return { format: 'unified', op, source, ...extra }
}

const plainFlags = (source: Uint8Array): Partial<ComputeInput> => {
  const text = new TextDecoder().decode(source)
  return {
    countOnly: true,
    sourceIsUtf8: true,
    ...(text.includes('\r') || text.includes('\0') ? {} : { sourceHasNoCrOrNul: true }),
  }
}

describe('readUnifiedRun', () => {
  it('reads what the general parser reads, packed or not', () => {
    let packed = 0
    let sections = 0
    fc.assert(
      fc.property(
        fc.array(sectionArb, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('', '', 'From 123 Mon Sep 17 00:00:00 2001\nSubject: x\n\n'),
        fc.integer({ min: 1, max: 50 }),
        (specs, preamble, firstLine) => {
          const text = preamble + specs.map(sectionText).join('')
          const run = { text, firstLine, sections: specs.length }
          const general = readUnifiedRun(run, false)
          const read = readUnifiedRun(run, true)
          sections += specs.length
          if (general === null) {
            expect(read).toBeNull()
            return
          }
          expect(read).not.toBeNull()
          const ops = read as FileOp[]
          expect(unpacked(ops)).toEqual(general)
          ops.forEach((op, i) => {
            if (op.kind !== 'update' || op.packed === undefined) return
            packed++
            const spec = specs[i] as SectionSpec
            const parsed = general[i] as UpdateOp
            // The file as the diff saw it, and as it may be now: changed, CRLF, or missing.
            const original = spec.lines.join('\n') + '\n'
            const sources: Array<Uint8Array | null> = [
              encoder.encode(original),
              encoder.encode('x\n' + original),
              encoder.encode(original.replaceAll('\n', '\r\n')),
              encoder.encode(original.replace('\n', ' \u00e9\n')),
              encoder.encode(original.slice(0, -1)),
              null,
            ]
            for (const source of sources) {
              const flags = source === null ? {} : plainFlags(source)
              expect(computeFile(job(op, source, flags))).toEqual(
                computeFile(job(parsed, source, flags)),
              )
              expect(computeFile(job(op, source, {}))).toEqual(computeFile(job(parsed, source, {})))
            }
          })
        },
      ),
      { numRuns: fuzzRuns(1500), seed: 75 },
    )
    // The property must exercise packing itself, not only its refusals.
    expect(packed).toBeGreaterThan(sections / 10)
  })

  it('asks for the whole patch when a run does not read as its sections', () => {
    const section = 'diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n'
    expect(readUnifiedRun({ text: section + section, firstLine: 1, sections: 3 }, true)).toBeNull()
    const broken = 'diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\nnot a body line\n'
    expect(readUnifiedRun({ text: section + broken, firstLine: 1, sections: 2 }, true)).toBeNull()
  })
})

describe('scanPlainSection', () => {
  // The first section of a real `git diff` (bench/large.bench.ts's generated tree).
  const gitSection = [
    'diff --git a/src/api0/file2861.ts b/src/api0/file2861.ts',
    'index 44f7ae9b..679d361f 100644',
    '--- a/src/api0/file2861.ts',
    '+++ b/src/api0/file2861.ts',
    '@@ -1,4 +1,4 @@',
    '-export function f2861_0(input: number) {',
    '+export function f2861_0(input: number, options?: Options) {',
    '   const value = input ?? defaults',
    '   if (!value) return null',
    '   log.debug(value)',
    '@@ -25,3 +25,3 @@ export function f2861_3(input: number) {',
    '   const value = input ?? defaults',
    '-}',
    '+};',
    ' ',
    '',
  ].join('\n')

  it('packs a git section: its path, its line, its hunks by offset', () => {
    const read = scanPlainSection(gitSection, 0, gitSection.length, 7)
    expect(read?.lines).toBe(15)
    const op = read?.op as UpdateOp
    expect(op).toMatchObject({ kind: 'update', path: 'src/api0/file2861.ts', patchLine: 7 })
    expect(op.hunks).toEqual([])
    expect(op.packed?.hunks.map((h) => [h.oldStart, h.oldCount, h.newCount])).toEqual([
      [1, 4, 4],
      [25, 3, 3],
    ])
    const first = op.packed?.hunks[0]
    expect(gitSection.slice(first?.bodyFrom, first?.bodyTo).split('\n')[0]).toBe(
      '-export function f2861_0(input: number) {',
    )
    expect(unpackHunks(op).hunks.map((h) => h.patchLine)).toEqual([11, 17])
  })

  it('leaves anything else to the general parser', () => {
    const variants = [
      gitSection.replace('100644', '120000'), // a symlink's target string
      gitSection.replace('@@ -1,4 +1,4 @@', '@@ -1,5 +1,4 @@'), // miscounted
      gitSection.replace('   log.debug(value)\n', '   log.debug(value)\n\n'), // blank line
      gitSection + '\\ No newline at end of file\n',
      gitSection.replaceAll('src/api0/file2861.ts', 'src/api 0/file.ts'),
      gitSection.replace('--- a/', '--- b/'),
      gitSection + '-- \n2.39.5\n',
      // A hunk of context lines alone, which the general parser refuses as git does.
      gitSection.replace(
        '-export function f2861_0(input: number) {\n+export function f2861_0(input: number, options?: Options) {\n',
        ' export function f2861_0(input: number) {\n',
      ),
    ]
    for (const text of variants) expect(scanPlainSection(text, 0, text.length, 1)).toBeNull()
  })

  it('leaves a hunk that ends like a file header to the general parser', () => {
    // Removed "-- a/x" and added "++ b/x" at a hunk's end, then another hunk: git apply's rules
    // (unified-hunks.ts endsOnFileHeader) may take the pair for the next file's header.
    const text =
      'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n--- a/x\n+++ b/x\n@@ -5 +5 @@\n-e\n+E\n'
    expect(scanPlainSection(text, 0, text.length, 1)).toBeNull()
    const run = { text, firstLine: 1, sections: 1 }
    expect(readUnifiedRun(run, true)).toEqual(readUnifiedRun(run, false))
  })
})
