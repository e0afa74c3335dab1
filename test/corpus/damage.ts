// The damage generator of the hand-written-diff corpus: reads the real `git diff` sources of
// sources.jsonl (written by make.mjs) and, for each source and each way models damage a diff,
// makes the damaged patch and its recorded right answer: the post-image, a refusal (with the
// error codes it may carry), or either one. Line-boundary truncation has a third reading, the
// hunks as cut, applied at their stated lines (applyAtStatedLines, an oracle independent of
// patchloom). Every choice is deterministic (a hash of the source id and the damage kind).
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export interface SourceFile {
  readonly path: string
  readonly pre: string
  readonly postSha256: string
}

export interface Source {
  readonly id: string
  readonly commit: string
  readonly files: readonly SourceFile[]
  readonly diff: string
}

export interface Hunk {
  oldStart: number
  oldCount: number
  newStart: number
  newCount: number
  /** What follows the closing `@@` (git's function context), with its leading space. */
  tail: string
  /** Body lines with their prefix (' ', '-', '+', '\'), without newlines. */
  body: string[]
  /** When set, the header line is written as this text instead of from the numbers. */
  header?: string
}

export interface FileSection {
  readonly path: string
  /** Lines before the first hunk (diff --git, index, ---, +++). */
  head: string[]
  hunks: Hunk[]
}

/**
 * What a damaged patch may do. `post`: applying it must give the post-image. `alt`: another
 * allowed result (path to sha256 of the whole file). `refuse`: a refusal is right; `codes`, when
 * given, are the only codes it may carry.
 */
export interface Answer {
  readonly post: boolean
  readonly alt?: Readonly<Record<string, string>>
  readonly refuse: boolean
  readonly codes?: readonly string[]
}

export interface Case {
  readonly id: string
  readonly kind: string
  readonly source: Source
  readonly patch: string
  readonly answer: Answer
  /** The patch's format; unified when not given. */
  readonly format?: 'unified' | 'codex' | 'search-replace' | 'edits'
  /** The text of a line the damage cut short: it must not be written into any file. */
  readonly cutLine?: string
  /** Options for check and apply beyond the format. */
  readonly options?: { readonly binaryWithoutData?: 'refuse' | 'skip' }
  /** Paths that a success must name in `parse.binary-skipped` warnings. */
  readonly skipped?: readonly string[]
}

export const POST: Answer = { post: true, refuse: false }
export const EITHER: Answer = { post: true, refuse: true }
export const refused = (...codes: string[]): Answer =>
  codes.length === 0 ? { post: false, refuse: true } : { post: false, refuse: true, codes }

export function loadSources(): Source[] {
  const file = fileURLToPath(new URL('./sources.jsonl', import.meta.url))
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Source)
}

export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex')
}

/** A number in [0, n) fixed by the seed. */
export function pick(seed: string, n: number): number {
  return parseInt(sha256(seed).slice(0, 8), 16) % n
}

const HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/

/** git's diff of modified text files, split into sections and hunks. */
export function parseGitDiff(diff: string): FileSection[] {
  const lines = diff.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  const sections: FileSection[] = []
  let section: FileSection | undefined
  let hunk: Hunk | undefined
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      const path = /^diff --git a\/(.*) b\//.exec(line)?.[1] ?? ''
      section = { path, head: [line], hunks: [] }
      sections.push(section)
      hunk = undefined
    } else if (section === undefined) {
      throw new Error(`corpus: text before the first diff --git: ${line}`)
    } else if (line.startsWith('@@')) {
      const m = HEADER.exec(line)
      if (m === null) throw new Error(`corpus: bad header ${line}`)
      hunk = {
        oldStart: Number(m[1]),
        oldCount: m[2] === undefined ? 1 : Number(m[2]),
        newStart: Number(m[3]),
        newCount: m[4] === undefined ? 1 : Number(m[4]),
        tail: m[5] ?? '',
        body: [],
      }
      section.hunks.push(hunk)
    } else if (hunk === undefined) {
      section.head.push(line)
    } else {
      hunk.body.push(line)
    }
  }
  return sections
}

function headerOf(h: Hunk): string {
  if (h.header !== undefined) return h.header
  return `@@ -${h.oldStart},${h.oldCount} +${h.newStart},${h.newCount} @@${h.tail}`
}

export function writeDiff(sections: readonly FileSection[]): string {
  const out: string[] = []
  for (const s of sections) {
    out.push(...s.head)
    for (const h of s.hunks) out.push(headerOf(h), ...h.body)
  }
  return out.join('\n') + '\n'
}

export function clone(sections: readonly FileSection[]): FileSection[] {
  return sections.map((s) => ({
    path: s.path,
    head: [...s.head],
    hunks: s.hunks.map((h) => ({ ...h, body: [...h.body] })),
  }))
}

export function fileLines(text: string): string[] {
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

/** The hunk's lines as the file has them before (context and removed). */
export function oldLines(h: Hunk): string[] {
  return h.body.filter((l) => l[0] === ' ' || l[0] === '-').map((l) => l.slice(1))
}

/** Where `needle` starts in `hay`, line-aligned. */
export function occurrences(hay: readonly string[], needle: readonly string[]): number[] {
  const at: number[] = []
  if (needle.length === 0) return at
  for (let i = 0; i + needle.length <= hay.length; i++) {
    let k = 0
    while (k < needle.length && hay[i + k] === needle[k]) k++
    if (k === needle.length) at.push(i)
  }
  return at
}

function uniqueIn(source: Source, section: FileSection, hunks: readonly Hunk[]): boolean {
  const pre = source.files.find((f) => f.path === section.path)?.pre ?? ''
  const lines = fileLines(pre)
  return hunks.every((h) => occurrences(lines, oldLines(h)).length === 1)
}

/**
 * Applies each section's hunks at their stated old lines, exactly as written (the reading of a
 * patch whose every line is whole): path to the new file text. Throws where a hunk's old lines
 * are not the file's lines there.
 */
export function applyAtStatedLines(
  source: Source,
  sections: readonly FileSection[],
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const s of sections) {
    const pre = source.files.find((f) => f.path === s.path)?.pre
    if (pre === undefined) throw new Error(`corpus: no pre-image for ${s.path}`)
    const lines = fileLines(pre)
    const result: string[] = []
    let at = 0
    for (const h of s.hunks) {
      const start = h.oldCount === 0 ? h.oldStart : h.oldStart - 1
      result.push(...lines.slice(at, start))
      const old = oldLines(h)
      const there = lines.slice(start, start + old.length)
      if (there.join('\n') !== old.join('\n'))
        throw new Error(`corpus: ${source.id} ${s.path}: hunk at ${h.oldStart} does not match`)
      result.push(...h.body.filter((l) => l[0] === ' ' || l[0] === '+').map((l) => l.slice(1)))
      at = start + old.length
    }
    result.push(...lines.slice(at))
    out[s.path] = result.length === 0 ? '' : result.join('\n') + '\n'
  }
  return out
}

type Damage = (
  source: Source,
  sections: FileSection[],
  seed: string,
) => (Omit<Case, 'id' | 'kind' | 'source'> & { readonly source?: Source }) | null

export interface HunkRef {
  readonly section: FileSection
  readonly hunk: Hunk
  readonly index: number
}

function allHunks(sections: readonly FileSection[]): HunkRef[] {
  return sections.flatMap((section) =>
    section.hunks.map((hunk, index) => ({ section, hunk, index })),
  )
}

function chooseHunk(
  sections: readonly FileSection[],
  seed: string,
  ok: (h: Hunk) => boolean = () => true,
) {
  const refs = allHunks(sections).filter((r) => ok(r.hunk))
  return refs.length === 0 ? null : (refs[pick(seed, refs.length)] as HunkRef)
}

function recount(h: Hunk): void {
  h.oldCount = h.body.filter((l) => l[0] === ' ' || l[0] === '-').length
  h.newCount = h.body.filter((l) => l[0] === ' ' || l[0] === '+').length
}

const diffOf = (sections: readonly FileSection[]) => writeDiff(sections)

/** Indices of body lines with the given prefix. */
function linesWith(h: Hunk, prefix: string, ok: (text: string) => boolean = () => true): number[] {
  return h.body.flatMap((l, i) => (l[0] === prefix && ok(l.slice(1)) ? [i] : []))
}

/** A body line cut mid-way, and the patch ending there without a newline. */
function truncate(prefix: string): Damage {
  return (_source, sections, seed) => {
    const refs = allHunks(sections)
    const spots = refs.flatMap((r) =>
      linesWith(r.hunk, prefix, (t) => t.trim().length >= 6)
        // not the hunk's last line: there the counts are used up and the cut cannot be seen
        .filter((i) => i < r.hunk.body.length - 1)
        .map((i) => ({ r, i })),
    )
    if (spots.length === 0) return null
    const { r, i } = spots[pick(seed, spots.length)] as (typeof spots)[number]
    const line = r.hunk.body[i] as string
    const cutLine = line.slice(1, 1 + Math.ceil((line.length - 1) / 2))
    r.hunk.body = [...r.hunk.body.slice(0, i), prefix + cutLine]
    const sIndex = sections.indexOf(r.section)
    const kept = sections.slice(0, sIndex + 1)
    r.section.hunks = r.section.hunks.slice(0, r.index + 1)
    return { patch: diffOf(kept).replace(/\n$/, ''), answer: refused('PARSE_TRUNCATED'), cutLine }
  }
}

function noop(all: boolean, context: boolean): Damage {
  return (_source, sections, seed) => {
    const targets = all ? sections : [sections[pick(seed, sections.length)] as FileSection]
    for (const s of targets) {
      for (const h of s.hunks) {
        if (context) {
          h.body = h.body
            .filter((l) => l[0] !== '+')
            .map((l) => (l[0] === '-' ? ' ' + l.slice(1) : l))
        } else {
          const body: string[] = []
          if (!h.body.some((l) => l[0] === '-')) {
            const first = h.body.findIndex((l) => l[0] === ' ')
            h.body.forEach((l, i) => {
              if (i === first) body.push('-' + l.slice(1), '+' + l.slice(1))
              else if (l[0] !== '+') body.push(l)
            })
          } else {
            // each run of removed lines, then the same lines added back
            let run: string[] = []
            const flush = () => {
              body.push(...run, ...run.map((r) => '+' + r.slice(1)))
              run = []
            }
            for (const l of h.body) {
              if (l[0] === '+') continue
              if (l[0] === '-') run.push(l)
              else {
                flush()
                body.push(l)
              }
            }
            flush()
          }
          h.body = body
        }
        recount(h)
      }
    }
    return {
      patch: diffOf(sections),
      answer: context ? refused('PARSE_EMPTY_HUNK', 'PATCH_NO_OP') : refused('PATCH_NO_OP'),
    }
  }
}

function numberless(make: (h: Hunk) => string, every: boolean): Damage {
  return (source, sections, seed) => {
    const targets = every
      ? allHunks(sections)
      : [chooseHunk(sections, seed)].filter((r) => r !== null)
    for (const r of targets) r.hunk.header = make(r.hunk)
    const unique = targets.every((r) => uniqueIn(source, r.section, [r.hunk]))
    return { patch: diffOf(sections), answer: unique ? POST : EITHER }
  }
}

function shiftNumbers(by: (h: Hunk) => number): Damage {
  return (source, sections, seed) => {
    const r = chooseHunk(sections, seed)
    if (r === null) return null
    const d = by(r.hunk)
    if (d === 0) return null
    r.hunk.oldStart = Math.max(1, r.hunk.oldStart + d)
    r.hunk.newStart = Math.max(1, r.hunk.newStart + d)
    return {
      patch: diffOf(sections),
      answer: uniqueIn(source, r.section, [r.hunk]) ? POST : EITHER,
    }
  }
}

/** Replaces one context line of a hunk by what `change` makes of the body. */
function contextDamage(change: (h: Hunk, seed: string) => boolean): Damage {
  return (_source, sections, seed) => {
    const refs = allHunks(sections)
    const start = pick(seed, refs.length)
    for (let k = 0; k < refs.length; k++) {
      const r = refs[(start + k) % refs.length] as HunkRef
      if (change(r.hunk, seed)) {
        recount(r.hunk)
        return { patch: diffOf(sections), answer: EITHER }
      }
    }
    return null
  }
}

function reindent(h: Hunk, prefixes: string, f: (text: string) => string): boolean {
  let changed = false
  h.body = h.body.map((l) => {
    if (!prefixes.includes(l[0] as string)) return l
    const next = f(l.slice(1))
    if (next !== l.slice(1)) changed = true
    return l[0] + next
  })
  return changed
}

/**
 * The source with one hunk's old lines copied to the end of its file, so that the hunk's text is
 * in two places; the post-image is the clean diff applied at its stated lines to that file.
 */
export function withRepeat(
  source: Source,
  sections: readonly FileSection[],
  seed: string,
): { source: Source; ref: HunkRef } | null {
  const ref = chooseHunk(sections, seed, (h) => oldLines(h).some((l) => l.trim().length > 3))
  // A hunk without trailing context must end the file (git's rule, and patchloom's): a copy
  // after it would move the end.
  if (ref === null || ref.section.hunks.some((h) => h.body.at(-1)?.[0] !== ' ')) return null
  const files = source.files.map((f) =>
    f.path === ref.section.path
      ? { ...f, pre: `${f.pre}\n// a repeated block\n${oldLines(ref.hunk).join('\n')}\n` }
      : f,
  )
  const repeated: Source = { ...source, files }
  const post = applyAtStatedLines(repeated, parseGitDiff(source.diff))
  return {
    source: {
      ...repeated,
      files: files.map((f) => ({ ...f, postSha256: sha256(post[f.path] ?? f.pre) })),
    },
    ref,
  }
}

function repeat(change: (ref: HunkRef) => boolean, answer: Answer): Damage {
  return (source, sections, seed) => {
    const made = withRepeat(source, sections, seed)
    if (made === null || !change(made.ref)) return null
    recountUnlessNumberless(made.ref.hunk)
    return { source: made.source, patch: diffOf(sections), answer }
  }
}

function recountUnlessNumberless(h: Hunk): void {
  if (h.header === undefined) recount(h)
}

// The patch with a stop token glued to its last line. A token glued to a blank context line
// reads as a context line holding the token (a token that is a diff line's whole content is
// content, DECISIONS.md D-138), which the file does not have: a refusal is right too.
function glue(sections: readonly FileSection[], token: string): { patch: string; answer: Answer } {
  const blank = allHunks(sections).at(-1)?.hunk.body.at(-1) === ' '
  return { patch: diffOf(sections).replace(/\n$/, token), answer: blank ? EITHER : POST }
}

export const DAMAGES: Readonly<Record<string, Damage>> = {
  // The hunk's text is also at the end of the file: the stated line decides.
  'repeat-clean': repeat(() => true, POST),
  'repeat-numbers-near': repeat((r) => {
    const d = r.hunk.oldStart > 8 ? -7 : 9
    r.hunk.oldStart = Math.max(1, r.hunk.oldStart + d)
    r.hunk.newStart = Math.max(1, r.hunk.newStart + d)
    return true
  }, EITHER),
  // No stated line: two places fit, so nothing may be written.
  'repeat-bare': repeat((r) => {
    r.hunk.header = '@@'
    return true
  }, refused('MATCH_AMBIGUOUS')),
  'repeat-aider': (source, sections, seed) => {
    const made = withRepeat(source, sections, seed)
    if (made === null) return null
    for (const s of sections) {
      s.head = [`--- ${s.path}`, `+++ ${s.path}`]
      for (const h of s.hunks) h.header = '@@ ... @@'
    }
    return { source: made.source, patch: diffOf(sections), answer: refused('MATCH_AMBIGUOUS') }
  },
  // Context damage at an edge, where a bounded fuzz would drop the line: the rest fits twice.
  'repeat-context-foreign': repeat((r) => {
    const spots = linesWith(r.hunk, ' ', (t) => t.trim() !== '')
    const i = spots[0]
    if (i === undefined) return false
    r.hunk.body[i] = r.hunk.body[i] + ' // changed'
    return true
  }, EITHER),
  'repeat-context-missing': repeat((r) => {
    const spots = linesWith(r.hunk, ' ')
    const i = spots[spots.length - 1]
    if (i === undefined || spots.length < 2) return false
    r.hunk.body.splice(i, 1)
    return true
  }, EITHER),

  'counts-high': (_s, sections, seed) => {
    const r = chooseHunk(sections, seed)
    if (r === null) return null
    r.hunk.oldCount += 3
    r.hunk.newCount += 2
    return { patch: diffOf(sections), answer: POST }
  },
  'counts-low': (_s, sections, seed) => {
    const r = chooseHunk(sections, seed, (h) => h.oldCount >= 3 && h.newCount >= 3)
    if (r === null) return null
    r.hunk.oldCount -= 2
    r.hunk.newCount -= 1
    return { patch: diffOf(sections), answer: POST }
  },
  'counts-swapped': (_s, sections, seed) => {
    const r = chooseHunk(sections, seed, (h) => h.oldCount !== h.newCount)
    if (r === null) return null
    ;[r.hunk.oldCount, r.hunk.newCount] = [r.hunk.newCount, r.hunk.oldCount]
    return { patch: diffOf(sections), answer: POST }
  },
  'counts-all-wrong': (_s, sections) => {
    for (const { hunk } of allHunks(sections)) {
      hunk.oldCount = hunk.oldCount + 5
      hunk.newCount = Math.max(1, hunk.newCount - 1)
    }
    return { patch: diffOf(sections), answer: POST }
  },
  'truncated-added': truncate('+'),
  'truncated-context': truncate(' '),
  'truncated-removed': truncate('-'),
  'truncated-header': (_s, sections, seed) => {
    const r = chooseHunk(sections, seed, () => true)
    if (r === null) return null
    const full = headerOf(r.hunk)
    const cut = full.slice(0, full.indexOf('+') + 2)
    r.hunk.header = cut
    r.hunk.body = []
    r.section.hunks = r.section.hunks.slice(0, r.index + 1)
    const kept = sections.slice(0, sections.indexOf(r.section) + 1)
    return { patch: diffOf(kept).replace(/\n$/, ''), answer: refused(), cutLine: cut }
  },
  'truncated-line-boundary': (source, sections, seed) => {
    // Whole lines only, the counts short: it reads as a hunk with wrong counts (lenient,
    // recounted), so the hunks as cut are a reading too.
    const refs = allHunks(sections)
    const spots = refs.flatMap((r) =>
      r.hunk.body.flatMap((_l, i) => (i >= 1 && i < r.hunk.body.length - 1 ? [{ r, i }] : [])),
    )
    if (spots.length === 0) return null
    const { r, i } = spots[pick(seed, spots.length)] as (typeof spots)[number]
    r.hunk.body = r.hunk.body.slice(0, i)
    r.section.hunks = r.section.hunks.slice(0, r.index + 1)
    const kept = sections.slice(0, sections.indexOf(r.section) + 1)
    const patch = diffOf(kept)
    const cutHunk: Hunk = { ...r.hunk }
    recount(cutHunk)
    const asCut = clone(kept)
    const last = asCut[asCut.length - 1] as FileSection
    last.hunks[last.hunks.length - 1] = cutHunk
    const hasChange = cutHunk.body.some((l) => l[0] === '+' || l[0] === '-')
    if (!hasChange) return { patch, answer: refused() }
    const alt: Record<string, string> = {}
    const written = applyAtStatedLines(source, asCut)
    for (const f of source.files) alt[f.path] = sha256(written[f.path] ?? f.pre)
    return { patch, answer: { post: false, refuse: true, alt } }
  },
  'removed-foreign': (_s, sections, seed) => {
    const r = chooseHunk(
      sections,
      seed,
      (h) => linesWith(h, '-', (t) => t.trim() !== '').length > 0,
    )
    if (r === null) return null
    const spots = linesWith(r.hunk, '-', (t) => t.trim() !== '')
    const i = spots[pick(seed + 'line', spots.length)] as number
    const line = r.hunk.body[i] as string
    const mid = Math.floor(line.length / 2)
    r.hunk.body[i] = line.slice(0, mid) + 'zq_not_in_file ' + line.slice(mid)
    return { patch: diffOf(sections), answer: refused() }
  },
  'context-foreign': contextDamage((h, seed) => {
    const spots = linesWith(h, ' ', (t) => t.trim() !== '')
    if (spots.length === 0) return false
    const edge = [spots[0], spots[spots.length - 1]] as number[]
    const i = edge[pick(seed, 2)] as number
    h.body[i] = h.body[i] + ' // changed'
    return true
  }),
  'context-inner-foreign': contextDamage((h) => {
    const first = h.body.findIndex((l) => l[0] === '-' || l[0] === '+')
    const i = first - 1
    const line = h.body[i]
    if (line === undefined || line[0] !== ' ' || line.trim() === '') return false
    const next = ' ' + line.slice(1).replace(/[A-Za-z_]\w*/, 'renamedWord')
    if (next === line) return false
    h.body[i] = next
    return true
  }),
  'context-missing': contextDamage((h, seed) => {
    const spots = linesWith(h, ' ')
    if (spots.length < 2) return false
    h.body.splice(spots[pick(seed, spots.length)] as number, 1)
    return true
  }),
  'context-duplicated': contextDamage((h, seed) => {
    const spots = linesWith(h, ' ', (t) => t.trim() !== '')
    if (spots.length === 0) return false
    const i = spots[pick(seed, spots.length)] as number
    h.body.splice(i, 0, h.body[i] as string)
    return true
  }),
  'context-swapped': contextDamage((h) => {
    for (let i = 0; i + 1 < h.body.length; i++) {
      const a = h.body[i] as string
      const b = h.body[i + 1] as string
      if (a[0] === ' ' && b[0] === ' ' && a !== b) {
        h.body[i] = b
        h.body[i + 1] = a
        return true
      }
    }
    return false
  }),
  'indent-stripped': contextDamage((h) => reindent(h, ' -', (t) => t.trimStart())),
  'indent-shifted-all': contextDamage((h) =>
    reindent(h, ' -+', (t) => (t === '' ? t : '    ' + t)),
  ),
  'indent-tabs': contextDamage((h) =>
    reindent(h, ' -', (t) => t.replace(/^( {2})+/, (m) => '\t'.repeat(m.length / 2))),
  ),
  'numbers-near': shiftNumbers((h) => (h.oldStart > 8 ? -7 : 9)),
  'numbers-far': shiftNumbers((h) => 60 - h.oldStart),
  'numbers-zero': shiftNumbers((h) => 1 - h.oldStart),
  'header-bare': numberless(() => '@@', false),
  'header-old-only': numberless((h) => `@@ -${h.oldStart},${h.oldCount}`, false),
  'header-new-cut': numberless((h) => `@@ -${h.oldStart},${h.oldCount} +${h.newStart}`, false),
  'header-all-bare': numberless(() => '@@', true),
  'aider-udiff': (source, sections) => {
    for (const s of sections) {
      s.head = [`--- ${s.path}`, `+++ ${s.path}`]
      for (const h of s.hunks) h.header = '@@ ... @@'
    }
    const unique = sections.every((s) => uniqueIn(source, s, s.hunks))
    return { patch: diffOf(sections), answer: unique ? POST : EITHER }
  },
  'hunks-reversed': (_s, sections) => {
    const s = sections.find((x) => x.hunks.length >= 2)
    if (s === undefined) return null
    s.hunks.reverse()
    return { patch: diffOf(sections), answer: EITHER }
  },
  'stop-glued': (_s, sections) => glue(sections, '<|endoftext|>'),
  'stop-after-newline': (_s, sections) => ({
    patch: diffOf(sections) + '<|im_end|>\n',
    answer: POST,
  }),
  'stop-two-tokens': (_s, sections) => ({
    patch: diffOf(sections) + '<|eot_id|>\n<|end_of_text|>',
    answer: POST,
  }),
  'stop-short-counts': (_s, sections) => {
    const last = allHunks(sections).at(-1)
    if (last === undefined) return null
    last.hunk.oldCount += 2
    last.hunk.newCount += 2
    return glue(sections, '<|endoftext|>')
  },
  // Several of the above at once, as one model's output carries them.
  'combo-counts-numbers-stop': (source, sections) => {
    for (const { hunk } of allHunks(sections)) {
      hunk.oldStart += 4
      hunk.newStart += 4
      hunk.oldCount += 1
      hunk.newCount = Math.max(1, hunk.newCount - 2)
    }
    const unique = sections.every((s) => uniqueIn(source, s, s.hunks))
    const glued = glue(sections, '<|im_end|>')
    return { patch: glued.patch + '\n', answer: unique ? glued.answer : EITHER }
  },
  'combo-aider-binary': (_s, sections) => {
    for (const s of sections) {
      s.head = [`--- ${s.path}`, `+++ ${s.path}`]
      for (const h of s.hunks) h.header = '@@ ... @@'
    }
    const patch =
      diffOf(sections) +
      'diff --git a/out.bin b/out.bin\nBinary files a/out.bin and b/out.bin differ\n'
    return { patch, answer: refused('PARSE_BAD_BINARY') }
  },
  // The same entries skipped, as a harness may ask: the rest applies, each skipped path is named.
  'binary-skip': (_s, sections) => ({
    patch:
      diffOf(sections) +
      'diff --git a/.coverage b/.coverage\nnew file mode 100644\nindex 0000000..3b18e51\n' +
      'Binary files /dev/null and b/.coverage differ\n',
    answer: POST,
    options: { binaryWithoutData: 'skip' },
    skipped: ['.coverage'],
  }),
  'binary-skip-aider': (source, sections) => {
    for (const s of sections) {
      s.head = [`--- ${s.path}`, `+++ ${s.path}`]
      for (const h of s.hunks) h.header = '@@ ... @@'
    }
    const unique = sections.every((s) => uniqueIn(source, s, s.hunks))
    const patch =
      'diff --git a/build/out.bin b/build/out.bin\nBinary files a/build/out.bin and b/build/out.bin differ\n' +
      diffOf(sections)
    return {
      patch,
      answer: unique ? POST : EITHER,
      options: { binaryWithoutData: 'skip' },
      skipped: ['build/out.bin'],
    }
  },
  // Nothing left once the entries are skipped: a change that changes nothing.
  'binary-skip-only': () => ({
    patch:
      'diff --git a/.coverage b/.coverage\nnew file mode 100644\nindex 0000000..3b18e51\n' +
      'Binary files /dev/null and b/.coverage differ\n',
    answer: refused('PATCH_NO_OP'),
    options: { binaryWithoutData: 'skip' },
  }),
  'binary-no-data': (_s, sections) => ({
    patch:
      diffOf(sections) +
      'diff --git a/.coverage b/.coverage\nnew file mode 100644\nindex 0000000..3b18e51\n' +
      'Binary files /dev/null and b/.coverage differ\n',
    answer: refused('PARSE_BAD_BINARY'),
  }),
  'noop-context-one-file': noop(false, true),
  'noop-same-one-file': noop(false, false),
  'noop-same-all': noop(true, false),
}

/** Every damaged case of every source, in a fixed order. */
export function buildCases(sources: readonly Source[]): Case[] {
  const cases: Case[] = []
  for (const source of sources) {
    for (const [kind, damage] of Object.entries(DAMAGES)) {
      const made = damage(source, clone(parseGitDiff(source.diff)), `${source.id}/${kind}`)
      if (made === null) continue
      cases.push({ id: `${source.id}/${kind}`, kind, ...made, source: made.source ?? source })
    }
  }
  return cases
}
