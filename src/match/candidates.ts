// Near-miss scoring for MATCH_NOT_FOUND: the regions of a file that most resemble a block the
// patch wanted, so an agent can fix its context without re-reading the file. Two steps keep it
// fast on large files: lines equal under 'fold' vote for window starts; only the best-voted
// windows (or, with no votes at all, the starts implied by the most similar single lines) are
// scored line by line with a bigram Dice coefficient. It never decides a match; the locators do.
import type { Candidate } from '../errors.js'
import { normalizeLine } from '../text/normalize.js'
import { cachedIndex } from './ladder.js'

export const MAX_CANDIDATES = 5
const PREVIEW_MAX_CHARS = 80
/** Windows scored in full after voting; bounds the per-line scoring work. */
const MAX_SCORED_WINDOWS = 64
/** A fold key this frequent ("}", "end") carries no signal about where a block belongs. */
const MAX_VOTES_PER_KEY = 256
/** Wanted lines tried in the no-vote fallback, longest first. */
const FALLBACK_PROBES = 3

/** Sorted bigram codes of a string, for a Dice coefficient by merge. */
function bigrams(text: string): Int32Array {
  if (text.length < 2) return new Int32Array(0)
  const out = new Int32Array(text.length - 1)
  for (let i = 0; i < text.length - 1; i++) {
    out[i] = (text.charCodeAt(i) << 16) | text.charCodeAt(i + 1)
  }
  return out.sort()
}

function diceOf(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 || b.length === 0) return 0
  let i = 0
  let j = 0
  let shared = 0
  while (i < a.length && j < b.length) {
    const x = a[i] as number
    const y = b[j] as number
    if (x === y) {
      shared++
      i++
      j++
    } else if (x < y) i++
    else j++
  }
  return (2 * shared) / (a.length + b.length)
}

/** Similarity of two fold keys in [0, 1]. */
export function lineSimilarity(a: string, b: string): number {
  if (a === b) return 1
  if (a.length < 2 || b.length < 2) return 0
  return diceOf(bigrams(a), bigrams(b))
}

/** The first non-blank line of lines[start, start + count), trimmed and shortened; '' if none. */
export function previewOf(lines: readonly string[], start: number, count: number): string {
  const end = Math.min(lines.length, start + Math.max(count, 1))
  for (let i = start; i < end; i++) {
    const text = (lines[i] as string).trim()
    if (text !== '') return text.slice(0, PREVIEW_MAX_CHARS)
  }
  return ''
}

/**
 * Up to `max` regions of `fileLines` nearest to `wanted`, best first: 1-based `fileLine` of the
 * region start, `score` in [0, 1] with 2 decimals (1 = identical after folding), and `preview`
 * (the region's first non-blank line, trimmed, at most 80 chars). Overlapping regions are
 * collapsed to the better one. Empty when `wanted` or the file is empty.
 */
export function findCandidates(
  fileLines: readonly string[],
  wanted: readonly string[],
  max = MAX_CANDIDATES,
): Candidate[] {
  const total = fileLines.length
  if (wanted.length === 0 || total === 0 || max <= 0) return []
  const index = cachedIndex(fileLines)
  // Building 'trim' first lets 'fold' reuse its keys for plain ASCII lines.
  index.pass('trim')
  const fold = index.pass('fold')
  const wantedKeys = wanted.map((line) => normalizeLine(line, 'fold'))
  const lastStart = Math.max(0, total - wanted.length)

  let votes = voteForStarts(fold.positions, wantedKeys, lastStart, MAX_VOTES_PER_KEY)
  // A block made only of common lines ("}", "end") still deserves candidates: let them vote.
  if (votes.size === 0) votes = voteForStarts(fold.positions, wantedKeys, lastStart, Infinity)

  let starts: number[]
  if (votes.size > 0) {
    starts = [...votes.entries()]
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .slice(0, MAX_SCORED_WINDOWS)
      .map(([s]) => s)
  } else {
    starts = fallbackStarts(fold.keys, wantedKeys, lastStart)
  }

  const wantedGrams = wantedKeys.map(bigrams)
  const fileGrams = new Map<number, Int32Array>()
  const gramsAt = (p: number): Int32Array => {
    let g = fileGrams.get(p)
    if (g === undefined) {
      g = bigrams(fold.keys[p] as string)
      fileGrams.set(p, g)
    }
    return g
  }
  const scored = starts.map((s) => {
    let sum = 0
    for (let i = 0; i < wantedKeys.length; i++) {
      const p = s + i
      if (p >= total) break
      const a = wantedKeys[i] as string
      const b = fold.keys[p] as string
      if (a === b) sum += 1
      else if (a.length >= 2 && b.length >= 2) {
        sum += diceOf(wantedGrams[i] as Int32Array, gramsAt(p))
      }
    }
    return { start: s, score: sum / wantedKeys.length }
  })
  scored.sort((x, y) => y.score - x.score || x.start - y.start)

  const picked: { start: number; score: number }[] = []
  const span = Math.max(1, wanted.length)
  for (const c of scored) {
    if (picked.length >= max) break
    if (c.score <= 0) break
    if (picked.some((p) => Math.abs(p.start - c.start) < span)) continue
    picked.push(c)
  }
  return picked.map((c) => ({
    fileLine: c.start + 1,
    score: Math.round(c.score * 100) / 100,
    preview: previewOf(fileLines, c.start, wanted.length),
  }))
}

function voteForStarts(
  positionsByKey: ReadonlyMap<string, readonly number[]>,
  wantedKeys: readonly string[],
  lastStart: number,
  maxPerKey: number,
): Map<number, number> {
  const votes = new Map<number, number>()
  for (let i = 0; i < wantedKeys.length; i++) {
    const key = wantedKeys[i] as string
    if (key === '') continue
    const positions = positionsByKey.get(key)
    if (positions === undefined || positions.length > maxPerKey) continue
    for (const p of positions) {
      const s = p - i
      if (s < 0 || s > lastStart) continue
      votes.set(s, (votes.get(s) ?? 0) + 1)
    }
  }
  return votes
}

/**
 * Dice similarity against one fixed probe, without allocating per scored line: the probe's
 * bigram multiset is counted once, and per-line usage is reset lazily with a stamp. `stamp`
 * must differ between calls (the line's position serves).
 */
function bigramScorer(probe: string): (text: string, stamp: number) => number {
  const ids = new Map<number, number>()
  const counts: number[] = []
  for (let i = 0; i < probe.length - 1; i++) {
    const code = (probe.charCodeAt(i) << 16) | probe.charCodeAt(i + 1)
    const id = ids.get(code)
    if (id === undefined) {
      ids.set(code, counts.length)
      counts.push(1)
    } else counts[id] = (counts[id] as number) + 1
  }
  const used = new Int32Array(counts.length)
  const stamps = new Float64Array(counts.length).fill(-1)
  const probeGrams = probe.length - 1
  return (text, stamp) => {
    let shared = 0
    for (let i = 0; i < text.length - 1; i++) {
      const id = ids.get((text.charCodeAt(i) << 16) | text.charCodeAt(i + 1))
      if (id === undefined) continue
      if (stamps[id] !== stamp) {
        stamps[id] = stamp
        used[id] = 0
      }
      if ((used[id] as number) < (counts[id] as number)) {
        used[id] = (used[id] as number) + 1
        shared++
      }
    }
    return (2 * shared) / (probeGrams + text.length - 1)
  }
}

/**
 * With no line equal under 'fold', the most similar single lines for the longest few wanted
 * lines imply the starts worth scoring.
 */
function fallbackStarts(
  fileKeys: readonly string[],
  wantedKeys: readonly string[],
  lastStart: number,
): number[] {
  const probes = wantedKeys
    .map((key, i) => ({ key, i }))
    .filter((p) => p.key.length >= 2)
    .sort((a, b) => b.key.length - a.key.length)
    .slice(0, FALLBACK_PROBES)
  const best: { s: number; sim: number }[] = []
  for (const probe of probes) {
    const dice = bigramScorer(probe.key)
    const probeLen = probe.key.length - 1
    for (let p = 0; p < fileKeys.length; p++) {
      const key = fileKeys[p] as string
      if (key.length < 2) continue
      // PERF: Dice <= 2*min/(a+b), so lines of very different length are skipped unscored.
      const other = key.length - 1
      if ((2 * Math.min(probeLen, other)) / (probeLen + other) < 0.3) continue
      const sim = dice(key, p)
      if (sim < 0.3) continue
      const s = Math.min(lastStart, Math.max(0, p - probe.i))
      best.push({ s, sim })
    }
  }
  best.sort((a, b) => b.sim - a.sim || a.s - b.s)
  const starts: number[] = []
  const seen = new Set<number>()
  for (const b of best) {
    if (seen.has(b.s)) continue
    seen.add(b.s)
    starts.push(b.s)
    if (starts.length >= MAX_SCORED_WINDOWS) break
  }
  return starts
}
