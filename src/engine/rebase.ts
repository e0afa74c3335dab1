// Rebasing a change over another one it has not seen. The change was made against version R of
// a file (the content a request was verified on, or the one an agent read); another change made
// it C. The change on R gives R'. It may land on C only when its change and the intervening one
// touch lines far apart: then the three-way merge of R' and C over R is well defined, and the
// engine's own result on C must be exactly that merge. Anything else (overlapping or adjacent
// changes, a different result) is a refusal, never a guess. The engine's commit uses it for a
// file changed between verification and commit (rebaseRefusal), the server for an agent's stale
// read (src/server/json-edits.ts). DECISIONS.md D-116, D-139.
import path from 'node:path'
import { diffArrays } from 'diff'
import type { StringEdit, Warning } from '../types.js'
import { DROPPED_AFTER, type VerifiedOp } from './verify.js'

/** Commits of one request before a file that keeps changing under it is given up on. */
export const COMMIT_ATTEMPTS = 4

/** A change to a base text's lines: lines [start, end) of the base become `lines`. */
interface LineChange {
  readonly start: number
  readonly end: number
  readonly lines: readonly string[]
}

export type RebaseVerdict =
  { readonly ok: true } | { readonly ok: false; readonly reason: 'overlap' | 'differs' }

/**
 * Whether `ours` (the engine's result of the edit on `current`) is the clean three-way merge of
 * `edited` (the edit's result on `base`) and `current` over `base`.
 *
 * @example
 * rebaseVerdict('a\nb\nc\nd\n', 'A\nb\nc\nd\n', 'a\nb\nc\nD\n', 'A\nb\nc\nD\n') // { ok: true }
 */
export function rebaseVerdict(
  base: string,
  edited: string,
  current: string,
  ours: string,
): RebaseVerdict {
  const baseLines = splitLines(base)
  const theirs = changesBetween(baseLines, splitLines(current))
  const mine = changesBetween(baseLines, splitLines(edited))
  if (mine.some((m) => theirs.some((t) => touches(m, t)))) return { ok: false, reason: 'overlap' }
  const merged = applyChanges(baseLines, [...mine, ...theirs])
  return merged === ours ? { ok: true } : { ok: false, reason: 'differs' }
}

/** Lines with their terminators, so joining them gives the text back byte for byte. */
export function splitLines(text: string): string[] {
  const lines: string[] = []
  let from = 0
  for (;;) {
    const nl = text.indexOf('\n', from)
    if (nl === -1) break
    lines.push(text.slice(from, nl + 1))
    from = nl + 1
  }
  if (from < text.length) lines.push(text.slice(from))
  return lines
}

/** The base line ranges that `after` replaced, each with its new lines. */
function changesBetween(base: readonly string[], after: readonly string[]): LineChange[] {
  const changes: LineChange[] = []
  let at = 0
  let open: { start: number; end: number; lines: string[] } | undefined
  for (const part of diffArrays(base as string[], after as string[])) {
    const count = part.value.length
    if (!part.added && !part.removed) {
      if (open !== undefined) changes.push(open)
      open = undefined
      at += count
      continue
    }
    open ??= { start: at, end: at, lines: [] }
    if (part.removed) {
      open.end += count
      at += count
    } else open.lines.push(...part.value)
  }
  if (open !== undefined) changes.push(open)
  return changes
}

/**
 * Two changes conflict when their ranges overlap or meet: git's merge treats adjacent changes as
 * a conflict too, since the order of two insertions at one point is not known.
 */
function touches(a: LineChange, b: LineChange): boolean {
  return a.start <= b.end && b.start <= a.end
}

function applyChanges(base: readonly string[], changes: readonly LineChange[]): string {
  const sorted = [...changes].sort((x, y) => x.start - y.start)
  const out: string[] = []
  let at = 0
  for (const change of sorted) {
    out.push(...base.slice(at, change.start), ...change.lines)
    at = change.end
  }
  out.push(...base.slice(at))
  return out.join('')
}

/**
 * Whether a JSON edit names its place by one unique string (replace or insert, not every match,
 * not the nth, not lines by number, not the whole file): only such an edit is rebased.
 */
export function isAnchoredEdit(edit: StringEdit): boolean {
  if (edit.mode === 'insert') return edit.occurrence === undefined
  if (edit.mode !== 'replace') return false
  return (
    !edit.replaceAll &&
    edit.occurrence === undefined &&
    (edit.expectedMatches === undefined || edit.expectedMatches === 1)
  )
}

/**
 * Whether the commit of `op` may be verified again when the file it writes changed after it was
 * verified: the file's content is what the change is anchored to (string-anchored JSON edits
 * without expected_hash, a patch's hunks on a text file it updates in place), and the
 * verification kept the bytes a merge is judged on.
 */
export function mayRebase(v: VerifiedOp): boolean {
  const { op, target, replaces, moveTo, from } = v.prepared
  if (replaces !== undefined || moveTo !== undefined || from !== undefined) return false
  if (target.snap.kind !== 'file' || target.snap.bytes === null) return false
  const after = v.computed.after
  if (after === null || after === DROPPED_AFTER) return false
  if (op.kind === 'edits')
    return op.edits.every((e) => e.expectedHash === undefined && isAnchoredEdit(e))
  return op.kind === 'update' && op.binary === undefined && op.modeAfter === undefined
}

/** The workspace-relative real path an op's commit step names (as the journal reports it). */
export function committedRel(rootReal: string, v: VerifiedOp): string {
  return path.relative(rootReal, v.prepared.target.resolved.abs).split(path.sep).join('/')
}

export type RebaseCheck =
  | { readonly ok: true; readonly warnings: readonly Warning[] }
  | {
      readonly ok: false
      readonly path?: string
      readonly reason: string
      readonly currentHash?: string
    }

/**
 * Judges a request verified again (`again`) against its earlier verification (`first`), after its
 * commit found a file changed: every op whose file changed since must be one that may be rebased
 * and land as the clean merge of both changes. Returns a warning per rebased file, or why not.
 */
export function rebaseRefusal(
  rootReal: string,
  first: readonly VerifiedOp[],
  again: readonly VerifiedOp[],
): RebaseCheck {
  if (first.length !== again.length)
    return { ok: false, reason: 'the change no longer names the same files' }
  const warnings: Warning[] = []
  for (const [i, before] of first.entries()) {
    const now = again[i] as VerifiedOp
    const rel = committedRel(rootReal, now)
    if (before.prepared.target.resolved.abs !== now.prepared.target.resolved.abs)
      return { ok: false, path: rel, reason: 'the change no longer names the same files' }
    if (!changedBetween(before, now)) continue
    const currentHash = now.prepared.target.snap.hash ?? undefined
    const refuse = (reason: string): RebaseCheck => ({
      ok: false,
      path: rel,
      reason,
      ...(currentHash === undefined ? {} : { currentHash }),
    })
    if (!mayRebase(before) || !mayRebase(now))
      return refuse('the change is not anchored to its content alone, so it is not verified again')
    if (before.prepared.target.snap.permissions !== now.prepared.target.snap.permissions)
      return refuse('its permissions changed too')
    const verdict = rebaseVerdict(
      byteText(before.prepared.target.snap.bytes as Uint8Array),
      byteText(before.computed.after as Uint8Array),
      byteText(now.prepared.target.snap.bytes as Uint8Array),
      byteText(now.computed.after as Uint8Array),
    )
    if (!verdict.ok) {
      return refuse(
        verdict.reason === 'overlap'
          ? 'the change made since touches the lines this change edits (or the lines next to them)'
          : 'on its new content this change does not give the merge of both changes',
      )
    }
    warnings.push({
      code: 'file.rebased',
      message: `${rel} changed after this change was verified (${String(before.prepared.target.snap.hash)} -> ${String(currentHash)}); it was verified again on the new content and lands as the merge of both changes.`,
      path: rel,
    })
  }
  return { ok: true, warnings }
}

/** Whether any file the op reads or writes holds other content (or bits) than before. */
function changedBetween(before: VerifiedOp, now: VerifiedOp): boolean {
  const snaps = (v: VerifiedOp) =>
    [v.prepared.target, v.prepared.moveTo, v.prepared.from].map((p) => p?.snap)
  const a = snaps(before)
  const b = snaps(now)
  return a.some(
    (s, k) =>
      s?.kind !== b[k]?.kind || s?.hash !== b[k]?.hash || s?.permissions !== b[k]?.permissions,
  )
}

/** Bytes as a string of one character per byte: lines split and compare byte for byte. */
function byteText(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
}
