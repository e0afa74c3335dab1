// One file's verification and new content: decode the current bytes, apply the op (hunks,
// string edits, or a binary patch), encode, and render the file's diff. Pure: the same function
// runs inline and in a worker (workers/engine.worker.ts). It never reads or writes files; the
// coordinator passes the current bytes in and writes the result out. Binary hunks arrive already
// inflated (job.inflated) because zlib lives outside the pure core.
import { formatPatch, structuredPatch } from 'diff'
import { errorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import { decodeText, encodeText, toModeText, utf8Encode, type TextMode } from '../text/decode.js'
import { joinLines, splitLines } from '../text/lines.js'
import type { ComputedFile, ComputeJob, ComputeOutcome } from '../coordinator/jobs.js'
import type { FileOp, LineHunk, PatchFormat, Warning } from '../types.js'
import { applyHunks } from './apply-hunks.js'
import { applyBinaryPatch } from './git-binary.js'
import { applyStringEdits } from './string-edits.js'

/** Lines of context in rendered diffs, as git uses. */
const DIFF_CONTEXT_LINES = 3

interface Content {
  readonly bytes: Uint8Array
  readonly warnings: readonly Warning[]
}

export function computeFile(job: ComputeJob): ComputeOutcome {
  const { op, source } = job
  const content = newContent(job)
  if (!content.ok) return content
  const after = content.value === null ? null : content.value.bytes
  const warnings = content.value === null ? [] : content.value.warnings
  const rendered = renderDiff(op, source, after, job.sourceMode)
  const computed: ComputedFile = { after, ...rendered, warnings }
  return ok(computed)
}

/** The new bytes for the op's target, or null when the op deletes it. */
function newContent(job: ComputeJob): Result<Content | null> {
  const { op, source } = job
  switch (op.kind) {
    case 'add':
      if (op.binary !== undefined) return binaryContent(job, null)
      return ok({ bytes: utf8Encode(op.content), warnings: [] })
    case 'delete': {
      if (source === null) return fail(notFound(op.path, op.patchLine))
      if (op.binary !== undefined || op.hunks.length === 0) return ok(null)
      // A diff states the removed content; verify it, so a delete never removes a file that
      // differs from what the patch author saw.
      const left = applyLineHunks(source, op.hunks, 'near-line', job.format, op.path)
      if (!left.ok) return left
      if (left.value.bytes.length !== 0) {
        return fail(
          errorData('MATCH_NOT_FOUND', `${op.path}: the file has content beyond what the deletion in the patch removes.`, {
            path: op.path,
            patchLine: op.patchLine,
            hint: 'Regenerate the deletion from the current file.',
          }),
        )
      }
      return ok(null)
    }
    case 'update':
    case 'copy': {
      const readPath = op.kind === 'copy' ? op.from : op.path
      if (op.binary !== undefined) return binaryContent(job, source)
      if (source === null) {
        if (op.kind === 'update' && op.createIfMissing === true) {
          return applyLineHunks(new Uint8Array(0), op.hunks, op.locate, job.format, op.path)
        }
        return fail(notFound(readPath, op.patchLine))
      }
      if (op.hunks.length === 0) return ok({ bytes: source, warnings: [] })
      return applyLineHunks(source, op.hunks, op.locate, job.format, op.path)
    }
    case 'edits': {
      const decoded = source === null ? { mode: 'utf8' as const, bom: false, text: '' } : decodeText(source)
      const edits = decoded.mode === 'utf8' ? op.edits : op.edits.map((e) => editToMode(e, decoded.mode))
      const applied = applyStringEdits({
        text: decoded.text,
        exists: source !== null,
        edits,
        path: op.path,
        exactOnly: decoded.mode === 'bytes',
      })
      if (!applied.ok) return applied
      return ok({
        bytes: encodeText(applied.value.text, decoded.mode, decoded.bom),
        warnings: applied.value.warnings,
      })
    }
  }
}

function applyLineHunks(
  source: Uint8Array,
  hunks: readonly LineHunk[],
  locate: 'cursor' | 'near-line' | 'sequential',
  format: PatchFormat,
  path: string,
): Result<Content> {
  const decoded = decodeText(source)
  const modeHunks = decoded.mode === 'utf8' ? hunks : hunks.map((h) => hunkToMode(h, decoded.mode))
  const applied = applyHunks({
    lines: splitLines(decoded.text),
    hunks: modeHunks,
    mode: locate,
    format,
    path,
    exactOnly: decoded.mode === 'bytes',
  })
  if (!applied.ok) return applied
  return ok({
    bytes: encodeText(joinLines(applied.value.lines), decoded.mode, decoded.bom),
    warnings: applied.value.warnings,
  })
}

function binaryContent(job: ComputeJob, source: Uint8Array | null): Result<Content> {
  const { op } = job
  if (op.kind === 'edits' || op.binary === undefined) throw new Error('compute: binary content without a binary patch')
  const inflated = job.inflated
  if (inflated === undefined) throw new Error('compute: binary patch reached compute without inflated data')
  const applied = applyBinaryPatch(source, op.binary, () => inflated)
  if (!applied.ok) return fail({ ...applied.error, path: op.path, patchLine: op.patchLine })
  return ok({ bytes: applied.value, warnings: [] })
}

function hunkToMode(hunk: LineHunk, mode: TextMode): LineHunk {
  return {
    ...hunk,
    hints: hunk.hints.map((h) => toModeText(h, mode)),
    lines: hunk.lines.map((l) => ({ op: l.op, text: toModeText(l.text, mode) })),
  }
}

function editToMode<E extends { readonly mode: string }>(edit: E, mode: TextMode): E {
  const out: Record<string, unknown> = { ...edit }
  for (const key of ['oldString', 'newString', 'anchor', 'content']) {
    const value = out[key]
    if (typeof value === 'string') out[key] = toModeText(value, mode)
  }
  return out as E
}

function notFound(path: string, patchLine: number) {
  return errorData('FILE_NOT_FOUND', `${path} does not exist.`, { path, patchLine })
}

interface RenderedDiff {
  readonly additions: number
  readonly deletions: number
  readonly diff: string
}

/** Renders a git-style diff (re-appliable with `git apply`) and counts changed lines. */
function renderDiff(op: FileOp, before: Uint8Array | null, after: Uint8Array | null, sourceMode: string | undefined): RenderedDiff {
  const oldPath = op.kind === 'copy' ? op.from : op.path
  const newPath = op.kind === 'update' && op.moveTo !== undefined ? op.moveTo : op.path
  const isCreate = op.kind === 'add' && before === null
  const isDelete = after === null
  const beforeText = before === null ? null : decodeText(before)
  const afterText = after === null ? null : decodeText(after)
  const binary = beforeText?.mode === 'bytes' || afterText?.mode === 'bytes' || hasBinaryPatch(op)
  const oldMode = 'modeBefore' in op && op.modeBefore !== undefined ? op.modeBefore : sourceMode
  const newMode = 'modeAfter' in op && op.modeAfter !== undefined ? op.modeAfter : undefined

  const patch = structuredPatch(
    isCreate ? '/dev/null' : `a/${oldPath}`,
    isDelete ? '/dev/null' : `b/${newPath}`,
    binary ? '' : (beforeText?.text ?? ''),
    binary ? '' : (afterText?.text ?? ''),
    undefined,
    undefined,
    { context: DIFF_CONTEXT_LINES },
  )
  let additions = 0
  let deletions = 0
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) additions++
      else if (line.startsWith('-')) deletions++
    }
  }
  const unchanged = before !== null && after !== null && bytesEqual(before, after)
  const renamed = oldPath !== newPath
  const modeChanged = newMode !== undefined && oldMode !== undefined && newMode !== oldMode
  if (unchanged && !renamed && !modeChanged && op.kind !== 'copy') return { additions: 0, deletions: 0, diff: '' }

  const gitPatch = {
    ...patch,
    isGit: true,
    ...(isCreate ? { isCreate: true, newMode: newMode ?? '100644' } : {}),
    ...(isDelete ? { isDelete: true, oldMode: oldMode ?? '100644' } : {}),
    ...(op.kind === 'update' && renamed ? { isRename: true } : {}),
    ...(op.kind === 'copy' ? { isCopy: true } : {}),
    ...(!isCreate && !isDelete && modeChanged ? { oldMode, newMode } : {}),
  }
  if (isCreate) gitPatch.oldFileName = '/dev/null'
  let diff = formatPatch(gitPatch)
  if (binary && !unchanged) {
    diff = diff.replace(/\n?$/, '\n') + `Binary files ${isCreate ? '/dev/null' : `a/${oldPath}`} and ${isDelete ? '/dev/null' : `b/${newPath}`} differ\n`
  } else if (!diff.endsWith('\n')) {
    diff += '\n'
  }
  return { additions, deletions, diff }
}

function hasBinaryPatch(op: FileOp): boolean {
  return op.kind !== 'edits' && 'binary' in op && op.binary !== undefined
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
