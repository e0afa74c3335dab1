// What a string edit says: the context of one edit (its path and number in the request), the
// failures it returns, each message reading "Edit N: ...", and its match.lenient warnings.
// src/match/pass-words.ts words the pass a message names.
import type { Candidate } from '../errors.js'
import { errorData } from '../errors.js'
import { findCandidates, MAX_CANDIDATES, previewOf } from '../match/candidates.js'
import { passWords, type EditPass } from '../match/pass-words.js'
import type { EditDoc } from '../match/text-search.js'
import { fail, type Result } from '../result.js'
import type { Warning } from '../types.js'
import { noOpDetail } from './edit-guards.js'
import type { RegexSearcher } from './regex.js'

/** Line numbers listed in one error message before it says "and N more". */
const MAX_LISTED_LINES = 20

/** One edit's context: where its failures and warnings point. */
export interface EditContext {
  readonly path: string
  /** 1-based number of the edit in the request. */
  readonly editNumber: number
  readonly exactOnly: boolean
  readonly searchRegex: RegexSearcher | undefined
}

/** What one edit reports; it changes the document in place. */
export interface EditStep {
  readonly warnings: readonly Warning[]
}

/** EDIT_NO_OP: the edit found its place but changes nothing there (src/apply/edit-guards.ts). */
export function noOp(ctx: EditContext, what: string): Result<never> {
  return failAt(ctx, 'EDIT_NO_OP', noOpDetail(ctx.path, what))
}

/** MATCH_NOT_FOUND with candidates; for a strict edit the message says lenient matches were off. */
export function notFound(
  doc: EditDoc,
  wanted: readonly string[],
  ctx: EditContext,
  what: string,
  strict = false,
): Result<never> {
  const candidates = findCandidates(doc.table.texts(0, doc.table.length), wanted)
  const detail = strict
    ? `${what} was not found exactly in ${ctx.path} (strict: lenient matches are off)`
    : `${what} was not found in ${ctx.path}`
  return failAt(ctx, 'MATCH_NOT_FOUND', detail, candidates)
}

export function notText(ctx: EditContext, what: string, pass: EditPass): Result<never> {
  return failAt(
    ctx,
    'FILE_NOT_TEXT',
    `${what} matches ${ctx.path} only ${passWords(pass)}, ` +
      'which a file that is not UTF-8 text does not allow',
  )
}

export function ambiguous(
  doc: EditDoc,
  fileLines: readonly number[],
  ctx: EditContext,
  what: string,
): Result<never> {
  return failAt(
    ctx,
    'MATCH_AMBIGUOUS',
    `${what} matches ${fileLines.length} places in ${ctx.path} (${listLines(fileLines)})`,
    lineCandidates(doc, fileLines),
  )
}

export function lineCandidates(doc: EditDoc, fileLines: readonly number[]): Candidate[] {
  return unique(fileLines)
    .slice(0, MAX_CANDIDATES)
    .map((fileLine) => ({
      fileLine,
      score: 1,
      preview: previewOf(doc.table.texts(fileLine - 1, fileLine), 0, 1),
    }))
}

export function lenientWarnings(
  pass: EditPass,
  starts: readonly number[],
  ctx: EditContext,
  what = '',
): Warning[] {
  if (pass === 'exact') return []
  const subject = what === '' ? `edit ${ctx.editNumber}` : `edit ${ctx.editNumber} ${what}`
  const lines = starts.map((s) => s + 1)
  const where = `${lines.length === 1 ? 'line' : 'lines'} ${lines.join(', ')}`
  const message = `${subject} matched ${passWords(pass)} at ${where}`
  return [{ code: 'match.lenient', message, path: ctx.path, patchLine: ctx.editNumber }]
}

export function failAt(
  ctx: EditContext,
  code: Parameters<typeof errorData>[0],
  detail: string,
  candidates?: readonly Candidate[],
): Result<never> {
  return fail(
    errorData(code, `Edit ${ctx.editNumber}: ${detail}.`, {
      path: ctx.path,
      patchLine: ctx.editNumber,
      ...(candidates === undefined ? {} : { candidates }),
    }),
  )
}

export function listLines(fileLines: readonly number[]): string {
  const lines = unique(fileLines)
  const shown = lines.slice(0, MAX_LISTED_LINES).join(', ')
  const more = lines.length > MAX_LISTED_LINES ? ` and ${lines.length - MAX_LISTED_LINES} more` : ''
  return `${lines.length === 1 ? 'line' : 'lines'} ${shown}${more}`
}

function unique(values: readonly number[]): number[] {
  return [...new Set(values)]
}

export function plural(n: number, one: string, many: string): string {
  return n === 1 ? one : many
}
