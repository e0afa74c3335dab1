// One file's verification and new content: decode the current bytes, apply the op (hunks,
// string edits, or a binary patch), encode, and render the file's diff. Pure: the same function
// runs inline and in a worker (workers/engine.worker.ts). It never reads or writes files; the
// engine passes the current bytes in and writes the result out. Binary hunks arrive already
// inflated (job.inflated) because zlib lives outside the pure core. An op whose text holds raw
// bytes (job.rawBytes: the patch is not UTF-8 there, src/text/patch-bytes.ts) is matched and
// written one char per byte, whatever the file's own encoding: exact matches only (D-040).
import { errorData, type EditErrorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import {
  decodeText,
  encodeText,
  toModeText,
  utf8Encode,
  type DecodedText,
  type TextMode,
} from '../text/decode.js'
import { rawTextToByteChars, rawTextToBytes } from '../text/patch-bytes.js'
import { joinLines, splitLines, type Line } from '../text/lines.js'
import type { ComputedFile, ComputeInput, FileOp, LineHunk, Warning } from '../types.js'
import { applyHunks } from './apply-hunks.js'
import { codexLineModel } from './codex-line-model.js'
import { applyBinaryPatch, checkPreimage, type BlobIdOf } from './git-binary.js'
import { renderDiff, type DiffHeader, type LineRegion, type RenderedDiff } from './render-diff.js'
import { spliceExact, splicePacked, type SplicedFile } from './exact-splice.js'
import { unpackHunks } from '../parse/plain-section.js'
import type { RegexSearcher } from './regex.js'
import { applyStringEditsWithLines } from './string-edits.js'

/** Lines for the diff: git shows a BOM as part of the first line and NUL files as binary. */
interface DiffLines {
  readonly before: readonly Line[]
  readonly after: readonly Line[]
  readonly binary: boolean
  readonly bom: boolean
}

interface Content {
  readonly bytes: Uint8Array
  readonly warnings: readonly Warning[]
  /** Old and new lines when the op already split them, so the diff need not decode again. */
  readonly lines?: DiffLines
  readonly regions?: readonly LineRegion[]
  /** Added and removed lines, when the op counted them itself (exact-splice.ts; countOnly). */
  readonly counts?: { readonly additions: number; readonly deletions: number }
  /** Where applyHunks placed each hunk (ComputedFile.placements). */
  readonly placements?: readonly number[]
}

/**
 * What the effectful caller lends the pure compute: functions, so never part of the plain-data
 * ComputeInput (it crosses threads; these are made again on each side).
 */
export interface ComputeServices {
  /** Runs regex edits' patterns within a time bound (src/engine/regex-search.ts). */
  readonly searchRegex?: RegexSearcher
  /** Git's blob id for binary patches' checks; default the core's own SHA-1 (text/blob-id.ts). */
  readonly gitBlobId?: BlobIdOf
}

export function computeFile(
  job: ComputeInput,
  services: ComputeServices = {},
): Result<ComputedFile> {
  const content = newContent(job, services)
  if (!content.ok) return content
  const after = content.value === null ? null : content.value.bytes
  const warnings = content.value === null ? [] : content.value.warnings
  const placed = job.placements === true ? content.value?.placements : undefined
  const placements = placed === undefined ? {} : { placements: placed }
  if (job.bytesOnly === true) {
    return ok({ after, additions: 0, deletions: 0, diff: '', warnings, ...placements })
  }
  const rendered = diffFor(job, content.value, after)
  const computed: ComputedFile = { after, ...rendered, warnings, ...placements }
  return ok(computed)
}

/** The new bytes for the op's target, or null when the op deletes it. */
function newContent(job: ComputeInput, services: ComputeServices): Result<Content | null> {
  const { op, source } = job
  switch (op.kind) {
    case 'add':
      if (op.binary !== undefined) return binaryContent(job, null, services)
      return ok({
        bytes: job.rawBytes === true ? rawTextToBytes(op.content) : utf8Encode(op.content),
        warnings: [],
      })
    case 'delete': {
      if (source === null) return fail(notFound(op.path, op.patchLine))
      if (op.binary !== undefined || op.gitBlobId !== undefined) {
        const context = { path: op.path, patchLine: op.patchLine }
        const stated = op.binary ?? (op.gitBlobId === undefined ? {} : { oldId: op.gitBlobId })
        const preimage = checkPreimage(source, stated, context, services.gitBlobId)
        return preimage.ok ? ok(null) : preimage
      }
      // A Codex Delete File states no content. A diff states the removed content; verify it, so
      // a delete never removes a file that differs from what the patch author saw: git deletes
      // an empty file with no hunk, and refuses that for a file with content.
      if (op.hunks.length === 0 && (job.format !== 'unified' || source.length === 0))
        return ok(null)
      const left =
        op.hunks.length === 0
          ? ok({ bytes: source })
          : applyLineHunks(job, source, op.hunks, 'near-line')
      if (!left.ok) return left
      if (left.value.bytes.length !== 0) {
        return fail(
          errorData(
            'MATCH_NOT_FOUND',
            `${op.path}: the file has content beyond what the deletion in the patch removes.`,
            {
              path: op.path,
              patchLine: op.patchLine,
              hint: 'Regenerate the deletion from the current file.',
            },
          ),
        )
      }
      return ok(null)
    }
    case 'update':
    case 'copy': {
      if (op.kind === 'update' && op.packed !== undefined) {
        const spliced =
          source !== null && canSpliceExact(job)
            ? splicePacked(source, op.packed, job.sourceHasNoCrOrNul === true)
            : null
        if (spliced !== null) return ok(splicedContent(spliced))
        // Anything the exact splice does not take gets the general path's hunks and answer.
        return newContent({ ...job, op: unpackHunks(op) }, services)
      }
      const readPath = op.kind === 'copy' ? op.from : op.path
      if (op.binary !== undefined) return binaryContent(job, source, services)
      if (source === null) {
        if (op.kind === 'update' && op.createIfMissing === true) {
          return applyLineHunks(job, new Uint8Array(0), op.hunks, op.locate)
        }
        return fail(notFound(readPath, op.patchLine))
      }
      if (op.hunks.length === 0) return ok({ bytes: source, warnings: [] })
      if (canSpliceExact(job)) {
        const spliced = spliceExact(
          source,
          op.hunks,
          job.sourceHasNoCrOrNul === true,
          job.bytesOnly !== true,
        )
        if (spliced !== null) return ok(splicedContent(spliced))
      }
      return applyLineHunks(job, source, op.hunks, op.locate)
    }
    case 'edits': {
      const decoded =
        source === null ? { mode: 'utf8' as const, bom: false, text: '' } : decodeText(source)
      const edits =
        decoded.mode === 'utf8' ? op.edits : op.edits.map((e) => editToMode(e, decoded.mode))
      const applied = applyStringEditsWithLines({
        text: decoded.text,
        exists: source !== null,
        edits,
        path: op.path,
        exactOnly: decoded.mode === 'bytes',
        ...(services.searchRegex === undefined ? {} : { searchRegex: services.searchRegex }),
      })
      if (!applied.ok) return applied
      const { text, warnings, lines } = applied.value
      const bytes = encodeText(text, decoded.mode, decoded.bom)
      // The diff reads the new bytes as a file: the edits' own lines are those lines only for a
      // UTF-8 file whose new text encodes as it reads (no lone surrogates; a NUL makes it binary).
      // A bytes-mode file may read as UTF-8 once edited, so its diff decodes the bytes again.
      if (decoded.mode !== 'utf8' || !isWellFormed(text)) return ok({ bytes, warnings })
      const binary = text.includes('\0')
      return ok({
        bytes,
        warnings,
        lines: { before: lines.before, after: lines.after, binary, bom: decoded.bom },
        ...(lines.regions !== undefined && lines.regions.length > 1
          ? { regions: lines.regions }
          : {}),
      })
    }
  }
}

function splicedContent({ bytes, additions, deletions }: SplicedFile): Content {
  return { bytes, warnings: [], counts: { additions, deletions } }
}

/**
 * Whether the op may take the exact splice (exact-splice.ts): only its counts are wanted (no
 * diff to render from lines), the file is UTF-8, and the hunks are a unified diff's, located
 * near their stated lines, in UTF-8 text, with the diff's own final-newline rule.
 */
function canSpliceExact(job: ComputeInput): boolean {
  return (
    job.countOnly === true &&
    job.sourceIsUtf8 === true &&
    job.rawBytes !== true &&
    job.format === 'unified' &&
    // The final-newline state is then applyHunks' to keep (finishLastLine), not the splice's.
    job.keepFinalNewline !== true &&
    (job.op.kind === 'update' || job.op.kind === 'copy') &&
    job.op.locate === 'near-line' &&
    // A hunk without numbers states no line to splice at; its lines alone place it.
    job.op.hunks.every((hunk) => hunk.oldStartLine !== undefined)
  )
}

/** Whether `text` has no lone surrogate (which UTF-8 encoding would turn into U+FFFD). */
function isWellFormed(text: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text)
}

function applyLineHunks(
  job: ComputeInput,
  source: Uint8Array,
  hunks: readonly LineHunk[],
  locate: 'cursor' | 'near-line' | 'sequential',
): Result<Content> {
  const { format } = job
  const path = job.op.path
  const raw = job.rawBytes === true
  const fileDecoded = decodeText(source)
  const decoded = raw ? asBytesMode(fileDecoded) : fileDecoded
  const modeHunks = raw
    ? hunks.map(rawHunkToBytes)
    : decoded.mode === 'utf8'
      ? hunks
      : hunks.map((h) => hunkToMode(h, decoded.mode))
  const codex = format === 'codex' ? codexLineModel(decoded.text, modeHunks) : null
  const lines = codex?.lines ?? splitLines(decoded.text)
  const applied = applyHunks({
    lines,
    hunks: codex?.hunks ?? modeHunks,
    mode: locate,
    format,
    path,
    exactOnly: decoded.mode === 'bytes',
    ...(job.noCandidates === true ? { candidates: false } : {}),
    ...(codex === null ? {} : { newLineEol: codex.newLineEol }),
    ...(job.keepFinalNewline === true ? { keepFinalNewline: true } : {}),
  })
  if (!applied.ok) return raw ? fail(rawBytesError(applied.error, fileDecoded)) : applied
  const text = joinLines(applied.value.lines)
  const bytes = encodeText(text, decoded.mode, decoded.bom)
  const binary = decoded.reason === 'nul'
  const { warnings, placements } = applied.value
  // The result's diff is git's, whose lines end at LF only: Codex's lines and regions (which
  // index them) do not fit it, so both sides are split again and diffed whole.
  if (codex !== null) {
    const before = splitLines(decoded.text)
    return ok({
      bytes,
      warnings,
      lines: { before, after: splitLines(text), binary, bom: decoded.bom },
      placements,
    })
  }
  return ok({
    bytes,
    warnings,
    lines: { before: lines, after: applied.value.lines, binary, bom: decoded.bom },
    ...(applied.value.regions === undefined ? {} : { regions: applied.value.regions }),
    placements,
  })
}

/** A UTF-8 file seen one char per byte, so raw-byte patch lines can be compared with it. */
function asBytesMode(decoded: DecodedText): DecodedText {
  if (decoded.mode === 'bytes') return decoded
  return { mode: 'bytes', bom: decoded.bom, text: toModeText(decoded.text, 'bytes') }
}

function rawHunkToBytes(hunk: LineHunk): LineHunk {
  return {
    ...hunk,
    hints: hunk.hints.map(rawTextToByteChars),
    lines: hunk.lines.map((l) => ({ ...l, text: rawTextToByteChars(l.text) })),
  }
}

/**
 * A refusal for an op whose patch text is not UTF-8 says so: on a UTF-8 file the exact-only rule
 * comes from the patch (MATCH_NOT_EXACT, not FILE_NOT_TEXT), and a miss may be an encoding clash.
 */
function rawBytesError(error: EditErrorData, file: DecodedText): EditErrorData {
  const why = 'the patch holds bytes that are not UTF-8 for this file'
  if (error.code === 'FILE_NOT_TEXT' && file.mode === 'utf8') {
    const at =
      error.patchLine === undefined ? 'a hunk' : `the hunk at patch line ${error.patchLine}`
    return errorData(
      'MATCH_NOT_EXACT',
      `${error.path ?? 'the file'}: ${why}, so only a byte-exact match is allowed, and ${at} matches only leniently.`,
      {
        ...(error.path === undefined ? {} : { path: error.path }),
        ...(error.patchLine === undefined ? {} : { patchLine: error.patchLine }),
      },
    )
  }
  if (error.code === 'MATCH_NOT_FOUND') {
    return {
      ...error,
      hint: `${error.hint} Note that ${why}: its lines match only the same bytes, so a file in another encoding (UTF-8 where the patch has Latin-1, say) never matches.`,
    }
  }
  return error
}

function binaryContent(
  job: ComputeInput,
  source: Uint8Array | null,
  services: ComputeServices,
): Result<Content> {
  const { op } = job
  if (op.kind === 'edits' || op.binary === undefined)
    throw new Error('compute: binary content without a binary patch')
  const inflated = job.inflated
  if (inflated === undefined)
    throw new Error('compute: binary patch reached compute without inflated data')
  const context = { path: op.path, patchLine: op.patchLine }
  const applied = applyBinaryPatch(source, op.binary, () => inflated, context, services.gitBlobId)
  if (!applied.ok) return fail({ ...applied.error, path: op.path, patchLine: op.patchLine })
  return ok({ bytes: applied.value, warnings: [] })
}

function hunkToMode(hunk: LineHunk, mode: TextMode): LineHunk {
  return {
    ...hunk,
    hints: hunk.hints.map((h) => toModeText(h, mode)),
    lines: hunk.lines.map((l) => ({ ...l, text: toModeText(l.text, mode) })),
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

/** The file's diff and line counts, from lines the op already split where it can. */
function diffFor(
  job: ComputeInput,
  content: Content | null,
  after: Uint8Array | null,
): RenderedDiff {
  const { op, source } = job
  const oldPath = op.kind === 'copy' ? op.from : op.path
  const newPath = op.kind === 'update' && op.moveTo !== undefined ? op.moveTo : op.path
  const modeAfter = op.kind === 'edits' || op.kind === 'delete' ? undefined : op.modeAfter
  const modeBefore =
    'modeBefore' in op && op.modeBefore !== undefined ? op.modeBefore : job.sourceMode
  const creation = source === null && op.kind !== 'copy'
  const header: DiffHeader = {
    oldPath: creation ? null : oldPath,
    newPath: after === null ? null : newPath,
    ...(op.kind === 'update' && oldPath !== newPath ? { rename: true } : {}),
    ...(op.kind === 'copy' ? { copy: true } : {}),
    ...(modeBefore === undefined ? {} : { oldMode: modeBefore }),
    ...(modeAfter === undefined
      ? creation
        ? {}
        : modeBefore === undefined
          ? {}
          : { newMode: modeBefore }
      : { newMode: modeAfter }),
  }
  if (content?.counts !== undefined) return { ...content.counts, diff: '' }
  if (content?.lines !== undefined) {
    const { before, after: afterLines, binary, bom } = content.lines
    return renderDiff(
      { ...header, binary: binary || hasBinaryPatch(op) },
      withBom(before, bom),
      withBom(afterLines, bom),
      bom ? undefined : content.regions,
      job.countOnly !== true,
    )
  }
  const beforeText = source === null ? null : decodeText(source)
  const afterText = after === null ? null : decodeText(after)
  // Like git, only NUL bytes make a file binary; other non-UTF-8 text is diffed byte for char.
  const binary = beforeText?.reason === 'nul' || afterText?.reason === 'nul' || hasBinaryPatch(op)
  return renderDiff(
    { ...header, binary },
    beforeText === null ? [] : withBom(splitLines(beforeText.text), beforeText.bom),
    afterText === null ? [] : withBom(splitLines(afterText.text), afterText.bom),
    undefined,
    job.countOnly !== true,
  )
}

function withBom(lines: readonly Line[], bom: boolean): readonly Line[] {
  const first = lines[0]
  if (!bom || first === undefined) return lines
  return [{ text: '\ufeff' + first.text, eol: first.eol }, ...lines.slice(1)]
}

function hasBinaryPatch(op: FileOp): boolean {
  return op.kind !== 'edits' && 'binary' in op && op.binary !== undefined
}
