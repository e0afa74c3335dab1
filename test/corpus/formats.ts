// The same real changes as the unified corpus (sources.jsonl), written as a Codex patch and as
// SEARCH/REPLACE blocks by history replay's renderer (src/replay/convert.ts), then damaged the
// ways models damage those formats, each case with its recorded right answer. The rendered text
// is read back into chunks and blocks (one per git hunk, in order) only to damage it; written
// back undamaged it is the renderer's text byte for byte (the corpus test checks this). Answers
// come from oracles independent of patchloom: a git hunk applied at its stated lines, and exact
// line search. Every choice is deterministic (a hash of the source id and the damage kind).
import { parsePlan } from '../../src/parse/index.js'
import { convertOp, type ContextFormat } from '../../src/replay/convert.js'
import {
  applyAtStatedLines,
  clone,
  EITHER,
  fileLines,
  oldLines,
  occurrences,
  parseGitDiff,
  pick,
  POST,
  refused,
  sha256,
  withRepeat,
  type Answer,
  type Case,
  type FileSection,
  type Hunk,
  type Source,
} from './damage.js'

/** A Codex chunk: its `@@` lines, its body (prefixed lines) and git's hunk it renders. */
export interface Chunk {
  hints: string[]
  body: string[]
  eof: boolean
  readonly hunk: Hunk
}

export interface CodexFile {
  readonly path: string
  readonly header: string[]
  chunks: Chunk[]
}

/** A SEARCH/REPLACE block: the lines above it, its sides, and git's hunk it renders. */
export interface Block {
  readonly path: string
  before: string[]
  name: string
  search: string[]
  divider: string[]
  replace: string[]
  readonly hunk: Hunk
  /** `file/hunk`: the indexes of git's hunk in the diff. */
  readonly at: string
}

type Rendered<T> = { readonly text: string; readonly parts: T[] } | null

/** Each file's op through convertOp; null when any file falls back to unified. */
function rendered(source: Source, format: ContextFormat): string[] | null {
  const plan = parsePlan(source.diff, 'unified')
  if (!plan.ok) throw new Error(`corpus: ${source.id}: ${plan.error.message}`)
  const texts: string[] = []
  for (const op of plan.value.ops) {
    const pre = source.files.find((f) => f.path === op.path)?.pre ?? null
    const bytes = pre === null ? null : new TextEncoder().encode(pre)
    const c = convertOp(op, bytes, '100644', format)
    if (c.kind !== 'converted') return null
    texts.push(c.build(Array.from({ length: c.hunks }, (_, i) => i)).text)
  }
  return texts
}

/** The source as one Codex patch, read back into files and chunks. */
export function codexOf(source: Source): Rendered<CodexFile> {
  const texts = rendered(source, 'codex')
  if (texts === null) return null
  const sections = parseGitDiff(source.diff)
  const files = texts.map((text, i) => {
    const lines = fileLines(text).slice(1, -1)
    const section = sections[i] as FileSection
    const file: CodexFile = { path: section.path, header: [lines[0] as string], chunks: [] }
    for (const line of lines.slice(1)) {
      const chunk = file.chunks.at(-1)
      if (line.startsWith('@@')) {
        const hunk = section.hunks[file.chunks.length]
        if (hunk === undefined) throw new Error(`corpus: ${source.id}: more chunks than hunks`)
        file.chunks.push({ hints: [line], body: [], eof: false, hunk })
      } else if (chunk === undefined) throw new Error(`corpus: ${source.id}: ${line}`)
      else if (line === '*** End of File') chunk.eof = true
      else chunk.body.push(line)
    }
    return file
  })
  const text = '*** Begin Patch\n' + texts.map((t) => t.slice(16, -14)).join('') + '*** End Patch\n'
  return { text, parts: files }
}

/** The source as SEARCH/REPLACE blocks, read back. */
export function blocksOf(source: Source): Rendered<Block> {
  const texts = rendered(source, 'search-replace')
  if (texts === null) return null
  const sections = parseGitDiff(source.diff)
  const blocks: Block[] = []
  texts.forEach((text, i) => {
    const section = sections[i] as FileSection
    const lines = text.split('\n')
    let at = 0
    for (const hunk of section.hunks) {
      const name = lines[at] as string
      const divider = lines.indexOf('=======', at + 2)
      const end = lines.indexOf('>>>>>>> REPLACE', divider + 1)
      if (lines[at + 1] !== '<<<<<<< SEARCH' || divider < 0 || end < 0)
        throw new Error(`corpus: ${source.id}: unexpected SEARCH/REPLACE text`)
      blocks.push({
        path: section.path,
        before: [],
        name,
        search: lines.slice(at + 2, divider),
        divider: ['======='],
        replace: lines.slice(divider + 1, end),
        hunk,
        at: `${i}/${blocks.filter((b) => b.path === section.path).length}`,
      })
      at = end + 2
    }
  })
  // One blank line between files' blocks, as the renderer puts between one file's blocks.
  return { text: texts.join('\n'), parts: blocks }
}

export function writeCodex(files: readonly CodexFile[], end = true): string {
  const out = ['*** Begin Patch']
  for (const f of files) {
    out.push(...f.header)
    for (const c of f.chunks) out.push(...c.hints, ...c.body, ...(c.eof ? ['*** End of File'] : []))
  }
  if (end) out.push('*** End Patch')
  return out.join('\n') + '\n'
}

export function writeBlocks(blocks: readonly Block[], end = true): string {
  const out: string[] = []
  blocks.forEach((b, i) => {
    const last = i === blocks.length - 1
    out.push(...b.before, b.name, '<<<<<<< SEARCH', ...b.search, ...b.divider, ...b.replace)
    if (!last || end) out.push('>>>>>>> REPLACE', '')
  })
  return out.join('\n') + (end ? '' : '\n')
}

const preOf = (source: Source, path: string): string =>
  source.files.find((f) => f.path === path)?.pre ?? ''

/** Every chunk's old lines are in its file exactly once. */
function codexUnique(source: Source, files: readonly CodexFile[]): boolean {
  return files.every((f) => {
    const lines = fileLines(preOf(source, f.path))
    return f.chunks.every((c) => occurrences(lines, oldLines(c.hunk)).length === 1)
  })
}

/**
 * Each block's SEARCH (as `norm` reads lines) found exactly once in the text the blocks before
 * it left, git's REPLACE put in its place; the damaged SEARCH as written must be nowhere, or a
 * match there would be a reading too.
 */
function blocksUnique(
  source: Source,
  blocks: readonly Block[],
  norm: (line: string) => string = (l) => l,
): boolean {
  const texts = new Map<string, string[]>()
  for (const b of blocks) {
    const lines = texts.get(b.path) ?? fileLines(preOf(source, b.path))
    const old = oldLines(b.hunk)
    const found = occurrences(lines.map(norm), old.map(norm))
    if (found.length !== 1) return false
    if (b.search.join('\n') !== old.join('\n') && occurrences(lines, b.search).length > 0)
      return false
    const at = found[0] as number
    const next = b.hunk.body.filter((l) => l[0] === ' ' || l[0] === '+').map((l) => l.slice(1))
    texts.set(b.path, [...lines.slice(0, at), ...next, ...lines.slice(at + old.length)])
  }
  return true
}

/** The git hunks at `keep` (`file/hunk`), applied at their stated lines: path to sha256. */
function statedResult(source: Source, keep: ReadonlySet<string>): Record<string, string> {
  const kept = parseGitDiff(source.diff).map((s, i) => ({
    ...s,
    hunks: s.hunks.filter((_h, k) => keep.has(`${i}/${k}`)),
  }))
  const written = applyAtStatedLines(source, kept)
  return Object.fromEntries(source.files.map((f) => [f.path, sha256(written[f.path] ?? f.pre)]))
}

type Made = Omit<Case, 'id' | 'kind' | 'source'> & { readonly source?: Source }
type CodexDamage = (source: Source, files: CodexFile[], seed: string) => Made | null
type BlockDamage = (source: Source, blocks: Block[], seed: string) => Made | null

const allChunks = (files: readonly CodexFile[]) => files.flatMap((f) => f.chunks)

function chooseChunk(files: readonly CodexFile[], seed: string, ok: (c: Chunk) => boolean) {
  const all = allChunks(files).filter(ok)
  return all.length === 0 ? null : (all[pick(seed, all.length)] as Chunk)
}

const isChange = (l: string) => l[0] === '-' || l[0] === '+'

/** The body indexes of a chunk's leading and trailing context runs (outermost first). */
function edgeRuns(c: Chunk): number[][] {
  const first = c.body.findIndex(isChange)
  const last = c.body.length - 1 - [...c.body].reverse().findIndex(isChange)
  const lead = Array.from({ length: first }, (_, i) => i)
  const trail = Array.from({ length: c.body.length - 1 - last }, (_, i) => c.body.length - 1 - i)
  return [lead, trail].filter((run) => run.length > 0)
}

/** One edge change to one chunk, at a run chosen by the seed; false when none fits. */
function edgeDamage(change: (c: Chunk, run: number[]) => boolean): CodexDamage {
  return (_source, files, seed) => {
    const chunks = allChunks(files)
    const start = pick(seed, chunks.length)
    for (let k = 0; k < chunks.length; k++) {
      const c = chunks[(start + k) % chunks.length] as Chunk
      const runs = edgeRuns(c)
      const from = pick(seed + 'side', Math.max(1, runs.length))
      for (let r = 0; r < runs.length; r++) {
        if (change(c, runs[(from + r) % runs.length] as number[])) {
          return { patch: writeCodex(files), answer: EITHER }
        }
      }
    }
    return null
  }
}

function reindentChunk(c: Chunk, prefixes: string, f: (text: string) => string): boolean {
  let changed = false
  c.body = c.body.map((l) => {
    if (!prefixes.includes(l[0] as string)) return l
    const next = f(l.slice(1))
    if (next !== l.slice(1)) changed = true
    return l[0] + next
  })
  return changed
}

function indentChunk(prefixes: string, f: (text: string) => string): CodexDamage {
  return (_source, files, seed) => {
    const chunks = allChunks(files)
    const start = pick(seed, chunks.length)
    for (let k = 0; k < chunks.length; k++) {
      if (reindentChunk(chunks[(start + k) % chunks.length] as Chunk, prefixes, f))
        return { patch: writeCodex(files), answer: EITHER }
    }
    return null
  }
}

/** A chunk's body line cut mid-way, and the patch ending there: no newline, no End Patch. */
function codexTruncate(prefix: string): CodexDamage {
  return (_source, files, seed) => {
    const spots = files.flatMap((f, fi) =>
      f.chunks.flatMap((c, ci) =>
        c.body.flatMap((l, i) =>
          l[0] === prefix && l.slice(1).trim().length >= 6 ? [{ fi, ci, i }] : [],
        ),
      ),
    )
    if (spots.length === 0) return null
    const { fi, ci, i } = spots[pick(seed, spots.length)] as (typeof spots)[number]
    const file = files[fi] as CodexFile
    const chunk = file.chunks[ci] as Chunk
    const line = chunk.body[i] as string
    const cutLine = line.slice(1, 1 + Math.ceil((line.length - 1) / 2))
    chunk.body = [...chunk.body.slice(0, i), prefix + cutLine]
    chunk.eof = false
    file.chunks = file.chunks.slice(0, ci + 1)
    const patch = writeCodex(files.slice(0, fi + 1), false).replace(/\n$/, '')
    return { patch, answer: refused(), cutLine }
  }
}

/** A chunk whose hints name `hint` instead (kept bare when `hint` is null). */
function rehint(c: Chunk, hint: string | null): void {
  c.hints = [hint === null ? '@@' : `@@ ${hint}`]
}

const hintText = (c: Chunk): string | null =>
  c.hints[0] === '@@' ? null : (c.hints[0] as string).slice(3)

/** Codex damages. A name ending in `repeat` builds on a file that holds the hunk twice. */
export const CODEX_DAMAGES: Readonly<Record<string, CodexDamage>> = {
  'codex-context-changed': edgeDamage((c, run) => {
    const i = run.find((k) => (c.body[k] as string).trim() !== '')
    if (i === undefined) return false
    c.body[i] = c.body[i] + ' // changed'
    return true
  }),
  'codex-context-dropped': edgeDamage((c, run) => {
    if (oldLines(c.hunk).length < 2) return false
    c.body.splice(run[0] as number, 1)
    return true
  }),
  'codex-context-duplicated': edgeDamage((c, run) => {
    const i = run.find((k) => (c.body[k] as string).trim() !== '')
    if (i === undefined) return false
    c.body.splice(i, 0, c.body[i] as string)
    return true
  }),
  'codex-context-swapped': edgeDamage((c, run) => {
    const [a, b] = run
    if (a === undefined || b === undefined || c.body[a] === c.body[b]) return false
    ;[c.body[a], c.body[b]] = [c.body[b] as string, c.body[a] as string]
    return true
  }),
  // A hint that is in no file: a definition renamed, or made up for a chunk without one.
  'codex-hint-wrong': (_s, files, seed) => {
    const c =
      chooseChunk(files, seed, (x) => hintText(x) !== null) ?? chooseChunk(files, seed, () => true)
    if (c === null) return null
    const hint = hintText(c)
    rehint(c, hint === null ? 'function zqMissing() {' : hint.replace(/[A-Za-z_]\w*/, 'zqRenamed'))
    return { patch: writeCodex(files), answer: EITHER }
  },
  // A hint that is a real line of the file, but another block's opening line.
  'codex-hint-misleading': (source, files, seed) => {
    const spots = files.flatMap((f) => {
      const lines = fileLines(preOf(source, f.path))
      return f.chunks.flatMap((c) =>
        lines
          .filter((l) => /^\S.*\{$/.test(l.trimEnd()) && l.trimEnd() !== hintText(c))
          .map((l) => ({ c, hint: l.trimEnd() })),
      )
    })
    if (spots.length === 0) return null
    const { c, hint } = spots[pick(seed, spots.length)] as (typeof spots)[number]
    rehint(c, hint)
    return { patch: writeCodex(files), answer: EITHER }
  },
  // The line above the change given as the hint, and left out of the body.
  'codex-hint-from-context': (_s, files, seed) => {
    const c = chooseChunk(
      files,
      seed,
      (x) => x.body[0]?.[0] === ' ' && (x.body[0] as string).trim() !== '' && x.body.length > 1,
    )
    if (c === null) return null
    rehint(c, (c.body[0] as string).slice(1))
    c.body = c.body.slice(1)
    return { patch: writeCodex(files), answer: EITHER }
  },
  'codex-no-end-patch': (source, files) => ({
    patch: writeCodex(files, false),
    answer: { post: codexUnique(source, files), refuse: true },
  }),
  'codex-truncated-added': codexTruncate('+'),
  'codex-truncated-context': codexTruncate(' '),
  'codex-truncated-removed': codexTruncate('-'),
  // Whole lines, no End Patch: the chunks as cut are a reading too.
  'codex-truncated-line-boundary': (source, files, seed) => {
    const spots = files.flatMap((f, fi) =>
      f.chunks.flatMap((c, ci) =>
        c.body.flatMap((_l, i) => (i >= 1 && i < c.body.length - 1 ? [{ fi, ci, i }] : [])),
      ),
    )
    if (spots.length === 0) return null
    const { fi, ci, i } = spots[pick(seed, spots.length)] as (typeof spots)[number]
    const file = files[fi] as CodexFile
    const chunk = file.chunks[ci] as Chunk
    chunk.body = chunk.body.slice(0, i)
    chunk.eof = false
    file.chunks = file.chunks.slice(0, ci + 1)
    const kept = files.slice(0, fi + 1)
    const patch = writeCodex(kept, false)
    if (!chunk.body.some(isChange)) return { patch, answer: refused() }
    const sections = clone(parseGitDiff(source.diff)).slice(0, fi + 1)
    const last = sections[fi] as FileSection
    last.hunks = last.hunks.slice(0, ci + 1)
    const cut = last.hunks[ci] as Hunk
    cut.body = [...chunk.body]
    const written = applyAtStatedLines(source, sections)
    const alt = Object.fromEntries(
      source.files.map((f) => [f.path, sha256(written[f.path] ?? f.pre)]),
    )
    return { patch, answer: { post: false, refuse: true, alt } }
  },
  'codex-stop-glued': (source, files) => ({
    patch: writeCodex(files).replace(/\n$/, '<|endoftext|>'),
    answer: codexUnique(source, files) ? POST : EITHER,
  }),
  'codex-stop-after-newline': (source, files) => ({
    patch: writeCodex(files) + '<|im_end|>\n',
    answer: codexUnique(source, files) ? POST : EITHER,
  }),
  // The model stopped after the last chunk, before End Patch.
  'codex-stop-before-end': (source, files) => ({
    patch: writeCodex(files, false).replace(/\n$/, '<|eot_id|>'),
    answer: { post: codexUnique(source, files), refuse: true },
  }),
  'codex-indent-flattened': indentChunk(' -', (t) => t.trimStart()),
  'codex-indent-flattened-all': indentChunk(' -+', (t) => t.trimStart()),
  'codex-indent-shifted': indentChunk(' -+', (t) => (t === '' ? t : '    ' + t)),
  'codex-indent-tabs': indentChunk(' -', (t) =>
    t.replace(/^( {2})+/, (m) => '\t'.repeat(m.length / 2)),
  ),
}

/** The hunk's old lines twice in its file: rendered from that file, with or without hints. */
function codexRepeat(bare: boolean) {
  return (source: Source, seed: string): Made | null => {
    const made = withRepeat(source, parseGitDiff(source.diff), seed)
    if (made === null) return null
    const rendered = codexOf(made.source)
    if (rendered === null) return null
    const files = rendered.parts
    const fi = parseGitDiff(source.diff).findIndex((s) => s.path === made.ref.section.path)
    const c = files[fi]?.chunks[made.ref.index]
    if (c === undefined) return null
    if (bare) rehint(c, null)
    const answer = hintText(c) === null ? refused('MATCH_AMBIGUOUS') : EITHER
    return { source: made.source, patch: writeCodex(files), answer }
  }
}

function chooseBlock(blocks: readonly Block[], seed: string, ok: (b: Block) => boolean) {
  const all = blocks.filter(ok)
  return all.length === 0 ? null : (all[pick(seed, all.length)] as Block)
}

/** One block's sides rewritten line by line; null when nothing changed. */
function reindentBlock(
  sides: 'search' | 'both',
  f: (text: string) => string,
  answer: (source: Source, blocks: Block[]) => Answer = () => EITHER,
): BlockDamage {
  return (source, blocks, seed) => {
    const b = chooseBlock(blocks, seed, (x) => x.search.some((l) => f(l) !== l))
    if (b === null) return null
    b.search = b.search.map(f)
    if (sides === 'both') b.replace = b.replace.map(f)
    return { patch: writeBlocks(blocks), answer: answer(source, blocks) }
  }
}

export const BLOCK_DAMAGES: Readonly<Record<string, BlockDamage>> = {
  'sr-trailing-space': reindentBlock(
    'search',
    (l) => (l.trim() === '' ? l : l + '  '),
    (source, blocks) => (blocksUnique(source, blocks, (l) => l.trimEnd()) ? POST : EITHER),
  ),
  'sr-indent-search-flattened': reindentBlock('search', (l) => l.trimStart()),
  'sr-indent-both-flattened': reindentBlock('both', (l) => l.trimStart()),
  'sr-indent-both-shifted': reindentBlock('both', (l) => (l === '' ? l : '    ' + l)),
  'sr-indent-search-tabs': reindentBlock('search', (l) =>
    l.replace(/^( {2})+/, (m) => '\t'.repeat(m.length / 2)),
  ),
  // The SEARCH also in the file below: two places fit, so nothing may be written.
  'sr-matches-twice': (source, blocks, seed) => {
    const b = chooseBlock(blocks, seed, (x) => x.search.some((l) => l.trim().length > 3))
    if (b === null) return null
    const files = source.files.map((f) =>
      f.path === b.path
        ? { ...f, pre: `${f.pre}\n// a repeated block\n${b.search.join('\n')}\n` }
        : f,
    )
    return {
      source: { ...source, files },
      patch: writeBlocks(blocks),
      answer: refused('MATCH_AMBIGUOUS'),
    }
  },
  // A line of a block cut mid-way, the text ending there.
  'sr-truncated-mid-line': (_s, blocks, seed) => {
    const spots = blocks.flatMap((b, bi) =>
      (['search', 'replace'] as const).flatMap((side) =>
        b[side].flatMap((l, i) => (l.trim().length >= 6 ? [{ bi, side, i }] : [])),
      ),
    )
    if (spots.length === 0) return null
    const { bi, side, i } = spots[pick(seed, spots.length)] as (typeof spots)[number]
    const b = blocks[bi] as Block
    const line = b[side][i] as string
    const cutLine = line.slice(0, Math.ceil(line.length / 2))
    const kept = blocks.slice(0, bi + 1)
    const head = writeBlocks(kept.slice(0, -1))
    const lines = [b.name, '<<<<<<< SEARCH']
    if (side === 'search') lines.push(...b.search.slice(0, i), cutLine)
    else lines.push(...b.search, '=======', ...b.replace.slice(0, i), cutLine)
    return { patch: head + lines.join('\n'), answer: refused(), cutLine }
  },
  // Whole lines, the last REPLACE marker missing: the blocks before it are a reading too.
  'sr-truncated-in-replace': (source, blocks, seed) => {
    const spots = blocks.flatMap((b, bi) =>
      b.replace.length >= 2 ? [{ bi, at: 1 + pick(seed + bi, b.replace.length - 1) }] : [],
    )
    if (spots.length === 0) return null
    const { bi, at } = spots[pick(seed, spots.length)] as (typeof spots)[number]
    const b = blocks[bi] as Block
    b.replace = b.replace.slice(0, at)
    const kept = blocks.slice(0, bi + 1)
    const patch = writeBlocks(kept, false)
    if (bi === 0) return { patch, answer: refused() }
    const before = new Set(kept.slice(0, -1).map((x) => x.at))
    return { patch, answer: { post: false, refuse: true, alt: statedResult(source, before) } }
  },
  // Every line whole, only the last `>>>>>>> REPLACE` missing.
  'sr-no-replace-marker': (source, blocks) => ({
    patch: writeBlocks(blocks, false),
    answer: { post: blocksUnique(source, blocks), refuse: true },
  }),
  // `...` lines between blocks, as models write them.
  'sr-elided-between': (source, blocks) => {
    for (const b of blocks) b.before = ['...', '']
    return { patch: writeBlocks(blocks), answer: blocksUnique(source, blocks) ? POST : EITHER }
  },
  // A long SEARCH with its middle written as `...`.
  'sr-elided-search': (_s, blocks, seed) => {
    const b = chooseBlock(blocks, seed, (x) => x.search.length >= 5)
    if (b === null) return null
    b.search = [...b.search.slice(0, 2), '...', ...b.search.slice(-2)]
    return { patch: writeBlocks(blocks), answer: EITHER }
  },
  'sr-doubled-divider': (_s, blocks, seed) => {
    const b = chooseBlock(blocks, seed, () => true)
    if (b === null) return null
    b.divider = ['=======', '=======']
    return { patch: writeBlocks(blocks), answer: EITHER }
  },
  // A file name with a letter doubled: no such file.
  'sr-name-typo': (_s, blocks, seed) => {
    const b = chooseBlock(blocks, seed, () => true)
    if (b === null) return null
    const at =
      b.name.lastIndexOf('/') + 1 + pick(seed + 'at', b.name.length - b.name.lastIndexOf('/') - 1)
    b.name = b.name.slice(0, at + 1) + b.name.slice(at)
    return { patch: writeBlocks(blocks), answer: refused() }
  },
  // The file's base name alone: patchloom does not guess the directory.
  'sr-name-base': (_s, blocks, seed) => {
    const b = chooseBlock(blocks, seed, (x) => x.name.includes('/'))
    if (b === null) return null
    b.name = b.name.slice(b.name.lastIndexOf('/') + 1)
    return { patch: writeBlocks(blocks), answer: refused() }
  },
  // Another file of the same change named, whose text does not hold the SEARCH.
  'sr-name-other-file': (source, blocks, seed) => {
    const spots = blocks.flatMap((b) =>
      source.files
        .filter((f) => f.path !== b.path)
        .filter((f) => occurrences(fileLines(f.pre), b.search).length === 0)
        .map((f) => ({ b, path: f.path })),
    )
    if (spots.length === 0) return null
    const { b, path } = spots[pick(seed, spots.length)] as (typeof spots)[number]
    b.name = path
    return { patch: writeBlocks(blocks), answer: refused() }
  },
  'sr-stop-glued': (source, blocks) => ({
    patch: writeBlocks(blocks).replace(/\n$/, '<|im_end|>'),
    answer: blocksUnique(source, blocks) ? POST : EITHER,
  }),
}

/**
 * The clean renderings of every source, and each damage kind on half the sources (chosen by a
 * hash of the source and the kind: the corpus test stays in the fast loop), in a fixed order.
 */
export function buildFormatCases(sources: readonly Source[]): Case[] {
  const cases: Case[] = []
  for (const source of sources) {
    const sampled = (kind: string) => pick(`${source.id}/${kind}/sample`, 2) === 0
    const add = (kind: string, format: ContextFormat, made: Made | null) => {
      if (made === null) return
      cases.push({
        id: `${source.id}/${kind}`,
        kind,
        format,
        ...made,
        source: made.source ?? source,
      })
    }
    const codex = codexOf(source)
    if (codex !== null) {
      const base = codexUnique(source, codex.parts) ? POST : EITHER
      add('codex-clean', 'codex', { patch: codex.text, answer: base })
      for (const [kind, damage] of Object.entries(CODEX_DAMAGES)) {
        if (!sampled(kind)) continue
        const files = codexOf(source)?.parts ?? []
        add(kind, 'codex', damage(source, files, `${source.id}/${kind}`))
      }
      for (const bare of [false, true]) {
        const kind = bare ? 'codex-repeat-bare' : 'codex-repeat'
        if (sampled(kind))
          add(kind, 'codex', codexRepeat(bare)(source, `${source.id}/codex-repeat`))
      }
    }
    const sr = blocksOf(source)
    if (sr !== null) {
      const base = blocksUnique(source, sr.parts) ? POST : EITHER
      add('sr-clean', 'search-replace', { patch: sr.text, answer: base })
      for (const [kind, damage] of Object.entries(BLOCK_DAMAGES)) {
        if (!sampled(kind)) continue
        const blocks = blocksOf(source)?.parts ?? []
        add(kind, 'search-replace', damage(source, blocks, `${source.id}/${kind}`))
      }
    }
  }
  return cases
}
