// The corpus's real changes as JSON edits (str_replace style): one replace edit per
// SEARCH/REPLACE block of history replay's renderer (formats.ts blocksOf), its old_string the
// block's SEARCH lines and its new_string the REPLACE lines, joined with "\n"; a block that only
// adds lines may be written as an insert at its context. Each is damaged the ways models damage
// str_replace calls, with its recorded right answer from an oracle independent of patchloom:
// each edit applied as an exact substring replacement (non-overlapping, leftmost first), in
// order, to the text the edits before it left. Choices are fixed by a hash, as in formats.ts.
import { blocksOf, type Block } from './formats.js'
import {
  EITHER,
  fileLines,
  occurrences,
  pick,
  POST,
  refused,
  sha256,
  type Answer,
  type Case,
  type Source,
} from './damage.js'

/** One edit as the request writes it (snake_case fields). */
export interface JsonEdit {
  readonly path: string
  readonly mode?: 'insert'
  old_string?: string
  anchor?: string
  position?: 'before' | 'after'
  new_string: string
  replace_all?: boolean
  occurrence?: number
  expected_matches?: number
  strict?: boolean
  tolerant_whitespace?: boolean
}

/** An edit and the block it renders. */
interface Rendered {
  edit: JsonEdit
  readonly block: Block
}

const join = (lines: readonly string[]) => lines.join('\n')

/** The source as replace edits, one per block; null when a block has no old lines. */
export function jsonOf(source: Source): Rendered[] | null {
  const blocks = blocksOf(source)
  if (blocks === null || source.files.some((f) => f.pre.includes('\r'))) return null
  if (blocks.parts.some((b) => b.search.length === 0)) return null
  return blocks.parts.map((block) => ({
    edit: { path: block.path, old_string: join(block.search), new_string: join(block.replace) },
    block,
  }))
}

/** A block that only adds lines, as an insert after its leading (or before its trailing) lines. */
function insertOf(b: Block): JsonEdit | null {
  const { search, replace } = b
  let p = 0
  while (p < search.length && search[p] === replace[p]) p++
  let s = 0
  while (s < search.length - p && search[search.length - 1 - s] === replace[replace.length - 1 - s])
    s++
  if (p + s !== search.length || replace.length <= search.length) return null
  // An anchor is text: a blank line at its end (after) or start (before) cannot be stated.
  if ((p > 0 ? search[p - 1] : search[p]) === '') return null
  const added = join(replace.slice(p, replace.length - s))
  if (p > 0)
    return {
      path: b.path,
      mode: 'insert',
      anchor: join(search.slice(0, p)),
      position: 'after',
      new_string: added,
    }
  return {
    path: b.path,
    mode: 'insert',
    anchor: join(search.slice(p)),
    position: 'before',
    new_string: added,
  }
}

export function writeJson(edits: readonly JsonEdit[]): string {
  return JSON.stringify({ edits }, null, 2) + '\n'
}

/** Non-overlapping occurrences of `needle` in `text`, leftmost first (character offsets). */
function substrings(text: string, needle: string): number[] {
  const at: number[] = []
  if (needle === '') return at
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) at.push(i)
  return at
}

type Sim =
  | { readonly kind: 'ok'; readonly texts: Record<string, string> }
  | { readonly kind: 'ambiguous' | 'count' | 'notfound' }

const lf = (text: string) => text.replace(/\r\n/g, '\n')

/** The oracle: every edit as an exact substring edit, in order. */
export function simulate(source: Source, edits: readonly JsonEdit[]): Sim {
  const texts: Record<string, string> = Object.fromEntries(source.files.map((f) => [f.path, f.pre]))
  for (const e of edits) {
    const text = texts[e.path]
    if (text === undefined) return { kind: 'notfound' }
    const needle =
      e.mode === 'insert' ? lf(e.anchor ?? '').replace(/\n+$/, '') : lf(e.old_string ?? '')
    const found = substrings(text, needle)
    if (found.length === 0) return { kind: 'notfound' }
    let chosen: number[]
    if (e.replace_all === true) chosen = found
    else if (e.expected_matches !== undefined) {
      if (found.length !== e.expected_matches) return { kind: 'count' }
      chosen = found
    } else if (e.occurrence !== undefined) {
      const k = e.occurrence > 0 ? found[e.occurrence - 1] : found[found.length + e.occurrence]
      if (k === undefined) return { kind: 'count' }
      chosen = [k]
    } else if (found.length !== 1) return { kind: 'ambiguous' }
    else chosen = found
    let next = text
    for (const at of [...chosen].reverse()) {
      if (e.mode === 'insert') {
        const added = lf(e.new_string).replace(/\n$/, '')
        if (e.position === 'before') {
          const start = next.lastIndexOf('\n', at - 1) + 1
          next = next.slice(0, start) + added + '\n' + next.slice(start)
        } else {
          const end = next.indexOf('\n', at + needle.length - 1)
          next =
            end < 0
              ? next + '\n' + added
              : next.slice(0, end + 1) + added + '\n' + next.slice(end + 1)
        }
      } else next = next.slice(0, at) + lf(e.new_string) + next.slice(at + needle.length)
    }
    texts[e.path] = next
  }
  return { kind: 'ok', texts }
}

/**
 * The answer the oracle gives. `strict`: the post-image must come (no refusal allowed); else a
 * refusal is right as well. A literal result other than the post-image is the as-cut reading.
 */
function literal(source: Source, edits: readonly JsonEdit[], strict: boolean): Answer {
  const s = simulate(source, edits)
  if (s.kind === 'ambiguous') return refused('MATCH_AMBIGUOUS')
  if (s.kind === 'count') return refused('MATCH_COUNT_MISMATCH')
  if (s.kind !== 'ok') return EITHER
  const { texts } = s
  const shas = Object.fromEntries(source.files.map((f) => [f.path, sha256(texts[f.path] ?? '')]))
  if (source.files.every((f) => shas[f.path] === f.postSha256)) return strict ? POST : EITHER
  return { post: false, refuse: !strict, alt: shas }
}

/** Each block's old lines (as `norm` reads lines) once in the text the blocks before it left. */
function linesUnique(
  source: Source,
  rs: readonly Rendered[],
  norm: (l: string) => string,
): boolean {
  const texts = new Map<string, string[]>()
  for (const { block: b } of rs) {
    const lines =
      texts.get(b.path) ?? fileLines(source.files.find((f) => f.path === b.path)?.pre ?? '')
    const found = occurrences(lines.map(norm), b.search.map(norm))
    if (found.length !== 1) return false
    const at = found[0] as number
    texts.set(b.path, [...lines.slice(0, at), ...b.replace, ...lines.slice(at + b.search.length)])
  }
  return true
}

type Made = Omit<Case, 'id' | 'kind' | 'source'> & { readonly source?: Source }
type JsonDamage = (source: Source, rs: Rendered[], seed: string) => Made | null

const edits = (rs: readonly Rendered[]) => rs.map((r) => r.edit)

function choose(rs: readonly Rendered[], seed: string, ok: (r: Rendered) => boolean) {
  const all = rs.filter(ok)
  return all.length === 0 ? null : (all[pick(seed, all.length)] as Rendered)
}

/**
 * One edit's old_string (and new_string when `both`) rewritten line by line. Where the damaged
 * text is still in the file as written, that exact reading is one too (or a refusal).
 */
function reindent(
  both: boolean,
  f: (l: string) => string,
  answer?: (s: Source, rs: Rendered[]) => Answer,
): JsonDamage {
  return (source, rs, seed) => {
    const r = choose(rs, seed, (x) => x.block.search.some((l) => f(l) !== l))
    if (r === null) return null
    const base = answer?.(source, rs) ?? EITHER
    r.edit.old_string = join(r.block.search.map(f))
    if (both) r.edit.new_string = join(r.block.replace.map(f))
    const asWritten = simulate(source, edits(rs))
    const a = asWritten.kind === 'notfound' ? base : literal(source, edits(rs), false)
    return { patch: writeJson(edits(rs)), answer: a }
  }
}

/** The chosen edit's old_string also in its file below: the source with that copy. */
function repeated(source: Source, r: Rendered): Source {
  const files = source.files.map((f) =>
    f.path === r.block.path
      ? { ...f, pre: `${f.pre}\n// a repeated block\n${r.edit.old_string}\n` }
      : f,
  )
  return { ...source, files }
}

function withRepeat(set: (e: JsonEdit) => void): JsonDamage {
  return (source, rs, seed) => {
    const r = choose(rs, seed, (x) => x.block.search.some((l) => l.trim().length > 3))
    if (r === null) return null
    const twice = repeated(source, r)
    set(r.edit)
    return { source: twice, patch: writeJson(edits(rs)), answer: literal(twice, edits(rs), true) }
  }
}

const tabs = (l: string) => l.replace(/^( {2})+/, (m) => '\t'.repeat(m.length / 2))
const curly = (l: string) =>
  l
    .replace(/"([^"]*)"/g, '\u201c$1\u201d')
    .replace(/'/g, '\u2019')
    .replace(/ -- | - /g, ' \u2013 ')

const TOKEN = '<|im_end|>'

export const JSON_DAMAGES: Readonly<Record<string, JsonDamage>> = {
  'json-trailing-space': reindent(
    false,
    (l) => (l.trim() === '' ? l : l + '  '),
    (s, rs) =>
      linesUnique(s, rs, (l) => l.trimEnd()) && literal(s, edits(rs), true).post ? POST : EITHER,
  ),
  'json-indent-old-flattened': reindent(false, (l) => l.trimStart()),
  'json-indent-both-flattened': reindent(true, (l) => l.trimStart()),
  'json-indent-old-shifted': reindent(false, (l) => (l === '' ? l : '    ' + l)),
  'json-indent-both-shifted': reindent(true, (l) => (l === '' ? l : '    ' + l)),
  'json-indent-old-tabs': reindent(false, tabs),
  'json-indent-both-tabs': reindent(true, tabs),
  'json-curly-quotes': reindent(false, curly),
  'json-crlf-old': (source, rs) => {
    for (const r of rs) r.edit.old_string = (r.edit.old_string ?? '').replace(/\n/g, '\r\n')
    return { patch: writeJson(edits(rs)), answer: literal(source, edits(rs), true) }
  },
  'json-crlf-both': (source, rs) => {
    for (const r of rs) {
      r.edit.old_string = (r.edit.old_string ?? '').replace(/\n/g, '\r\n')
      r.edit.new_string = r.edit.new_string.replace(/\n/g, '\r\n')
    }
    return { patch: writeJson(edits(rs)), answer: literal(source, edits(rs), true) }
  },
  // Too little context: the old_string is in the file twice.
  'json-matches-twice': withRepeat(() => undefined),
  'json-replace-all': withRepeat((e) => (e.replace_all = true)),
  // The count stated: both copies change; a count of one where there are two is refused.
  'json-expected-matches': withRepeat((e) => (e.expected_matches = 2)),
  'json-expected-matches-wrong': withRepeat((e) => (e.expected_matches = 1)),
  // strict: only the exact text counts, so trailing spaces are not found.
  'json-strict-trailing-space': (source, rs, seed) => {
    const r = choose(rs, seed, (x) => x.block.search.some((l) => l.trim() !== ''))
    if (r === null) return null
    r.edit.old_string = join(r.block.search.map((l) => (l.trim() === '' ? l : l + '  ')))
    r.edit.strict = true
    const s = simulate(source, edits(rs))
    const answer =
      s.kind === 'notfound' ? refused('MATCH_NOT_FOUND') : literal(source, edits(rs), false)
    return { patch: writeJson(edits(rs)), answer }
  },
  // Tabs for the file's spaces, with tolerant_whitespace set.
  'json-tolerant-tabs': (source, rs, seed) => {
    const r = choose(rs, seed, (x) => x.block.search.some((l) => tabs(l) !== l))
    if (r === null) return null
    r.edit.old_string = join(r.block.search.map(tabs))
    r.edit.tolerant_whitespace = true
    const s = simulate(source, edits(rs))
    return {
      patch: writeJson(edits(rs)),
      answer: s.kind === 'notfound' ? EITHER : literal(source, edits(rs), false),
    }
  },
  // The second copy named: what was asked, so the copy below changes.
  'json-occurrence-second': withRepeat((e) => (e.occurrence = 2)),
  // An occurrence past the matches.
  'json-occurrence-past': (source, rs, seed) => {
    const r = choose(rs, seed, () => true)
    if (r === null) return null
    r.edit.occurrence = 2
    return { patch: writeJson(edits(rs)), answer: literal(source, edits(rs), true) }
  },
  // The first line's start left off, new_string cut the same way (its first line is kept).
  'json-partial-start': partial('start', true),
  'json-partial-end': partial('end', true),
  // Only old_string cut; new_string whole. The substring reading is the as-cut one.
  'json-partial-start-old-only': partial('start', false),
  'json-partial-end-old-only': partial('end', false),
  // The model cut off inside new_string: the JSON document ends there.
  'json-new-truncated': (_source, rs, seed) => {
    const cut = cutNewString(rs, seed)
    if (cut === null) return null
    const whole = writeJson(edits(rs.slice(0, cut.i + 1)))
    const value = JSON.stringify(cut.edit.new_string)
    const patch = whole.slice(0, whole.lastIndexOf(value) + value.length - 1)
    return { patch, answer: refused('PARSE_BAD_EDIT'), cutLine: cut.cutLine }
  },
  // The same cut, the string and the document closed after it (a harness that repairs JSON).
  'json-new-truncated-closed': (source, rs, seed) => {
    const cut = cutNewString(rs, seed)
    if (cut === null) return null
    const kept = edits(rs.slice(0, cut.i + 1))
    return { patch: writeJson(kept), answer: literal(source, kept, false) }
  },
  'json-insert': (source, rs) => {
    if (!asInserts(rs)) return null
    return { patch: writeJson(edits(rs)), answer: literal(source, edits(rs), true) }
  },
  'json-insert-anchor-flattened': (_source, rs, seed) => {
    if (!asInserts(rs)) return null
    const r = choose(
      rs,
      seed,
      (x) => x.edit.mode === 'insert' && (x.edit.anchor ?? '') !== flat(x.edit.anchor ?? ''),
    )
    if (r === null) return null
    r.edit.anchor = flat(r.edit.anchor ?? '')
    return { patch: writeJson(edits(rs)), answer: EITHER }
  },
  'json-elided-old': (_source, rs, seed) => {
    const r = choose(rs, seed, (x) => x.block.search.length >= 5)
    if (r === null) return null
    const s = r.block.search
    r.edit.old_string = join([...s.slice(0, 2), '...', ...s.slice(-2)])
    return { patch: writeJson(edits(rs)), answer: EITHER }
  },
  'json-stop-in-new-string': (_source, rs, seed) => {
    const r = choose(rs, seed, () => true)
    if (r === null) return null
    r.edit.new_string += TOKEN
    return { patch: writeJson(edits(rs)), answer: EITHER }
  },
  'json-stop-after-document': (source, rs) => ({
    patch: writeJson(edits(rs)).replace(/\n$/, TOKEN),
    answer: literal(source, edits(rs), true),
  }),
  'json-single-common-line': singleCommon,
  'json-single-changed-line': singleChanged,
  // A block that adds lines after one line, written with that line alone as old_string.
  'json-single-line': (source, rs, seed) => {
    const spots = rs.flatMap((r) => {
      const ins = insertOf(r.block)
      if (ins === null || ins.position !== 'after') return []
      const line = (ins.anchor ?? '').split('\n').pop() as string
      return line.trim() === '' ? [] : [{ r, line, added: ins.new_string }]
    })
    if (spots.length === 0) return null
    const { r, line, added } = spots[pick(seed, spots.length)] as (typeof spots)[number]
    r.edit.old_string = line
    r.edit.new_string = line + '\n' + added
    return { patch: writeJson(edits(rs)), answer: literal(source, edits(rs), true) }
  },
}

/** Lines models give as the whole old_string: closing brackets and bare keywords. */
const COMMON = new Set(['}', '})', '});', '};', ')', '];', ']', '},', 'return', 'break'])

/** A block that adds lines after a closing line, sent as that line alone, unindented. */
function singleCommon(source: Source, rs: Rendered[], seed: string): Made | null {
  const spots = rs.flatMap((r) => {
    const ins = insertOf(r.block)
    if (ins === null || ins.position !== 'after') return []
    const line = ((ins.anchor ?? '').split('\n').pop() as string).trim()
    return COMMON.has(line) ? [{ r, line, added: ins.new_string }] : []
  })
  if (spots.length === 0) return null
  const { r, line, added } = spots[pick(seed, spots.length)] as (typeof spots)[number]
  r.edit.old_string = line
  r.edit.new_string = line + '\n' + added
  return { patch: writeJson(edits(rs)), answer: literal(source, edits(rs), true) }
}

/** A one-line change sent as its two lines alone, without their indentation. */
function singleChanged(source: Source, rs: Rendered[], seed: string): Made | null {
  const spots = rs.flatMap((r) => {
    const body = r.block.hunk.body
    const removed = body.filter((l) => l[0] === '-')
    const added = body.filter((l) => l[0] === '+')
    if (removed.length !== 1 || added.length !== 1) return []
    const [o, n] = [(removed[0] as string).slice(1), (added[0] as string).slice(1)]
    return o.trim() === '' || n.trim() === '' ? [] : [{ r, o: o.trim(), n: n.trim() }]
  })
  if (spots.length === 0) return null
  const { r, o, n } = spots[pick(seed, spots.length)] as (typeof spots)[number]
  r.edit.old_string = o
  r.edit.new_string = n
  return { patch: writeJson(edits(rs)), answer: literal(source, edits(rs), true) }
}

const flat = (text: string) => join(text.split('\n').map((l) => l.trimStart()))

/**
 * Cuts new_string of one edit (picked by `seed`) in the middle of one of its lines of six or more
 * characters, dropping what followed: the edit's index, the edit, and the cut line.
 */
function cutNewString(
  rs: Rendered[],
  seed: string,
): { i: number; edit: Rendered['edit']; cutLine: string } | null {
  const spots = rs.flatMap((r, i) =>
    r.block.replace.flatMap((l, k) => (l.trim().length >= 6 ? [{ i, k }] : [])),
  )
  if (spots.length === 0) return null
  const { i, k } = spots[pick(seed, spots.length)] as (typeof spots)[number]
  const r = rs[i] as Rendered
  const line = r.block.replace[k] as string
  const cutLine = line.slice(0, Math.ceil(line.length / 2))
  r.edit.new_string = join([...r.block.replace.slice(0, k), cutLine])
  return { i, edit: r.edit, cutLine }
}

/** Every block that only adds lines becomes an insert; false when none does. */
function asInserts(rs: Rendered[]): boolean {
  let any = false
  for (const r of rs) {
    const ins = insertOf(r.block)
    if (ins !== null) {
      r.edit = ins
      any = true
    }
  }
  return any
}

function partial(side: 'start' | 'end', both: boolean): JsonDamage {
  return (source, rs, seed) => {
    const r = choose(rs, seed, (x) => {
      const s = x.block.search
      const line = (side === 'start' ? s[0] : s[s.length - 1]) ?? ''
      const kept =
        side === 'start' ? x.block.replace[0] : x.block.replace[x.block.replace.length - 1]
      return s.length >= 2 && line.trim().length >= 6 && (!both || kept === line)
    })
    if (r === null) return null
    const old = [...r.block.search]
    const neu = [...r.block.replace]
    const i = side === 'start' ? 0 : old.length - 1
    const line = old[i] as string
    const h = Math.ceil(line.length / 2)
    const cut = side === 'start' ? line.slice(h) : line.slice(0, h)
    old[i] = cut
    if (both) neu[side === 'start' ? 0 : neu.length - 1] = cut
    r.edit.old_string = join(old)
    r.edit.new_string = join(neu)
    return { patch: writeJson(edits(rs)), answer: literal(source, edits(rs), both) }
  }
}

/** The clean rendering of every source and each damage kind on half the sources, in order. */
export function buildJsonCases(sources: readonly Source[]): Case[] {
  const cases: Case[] = []
  for (const source of sources) {
    const clean = jsonOf(source)
    if (clean === null) continue
    cases.push({
      id: `${source.id}/json-clean`,
      kind: 'json-clean',
      format: 'edits',
      source,
      patch: writeJson(edits(clean)),
      answer: literal(source, edits(clean), true),
    })
    for (const [kind, damage] of Object.entries(JSON_DAMAGES)) {
      if (pick(`${source.id}/${kind}/sample`, 2) !== 0) continue
      const made = damage(source, jsonOf(source) ?? [], `${source.id}/${kind}`)
      if (made === null) continue
      cases.push({
        id: `${source.id}/${kind}`,
        kind,
        format: 'edits',
        ...made,
        source: made.source ?? source,
      })
    }
  }
  return cases
}
