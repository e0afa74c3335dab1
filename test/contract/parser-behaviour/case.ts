// The shape of a parser behaviour case (parser-behaviour.test.ts runs them): one change, the
// files it starts from, what it must leave or the error code it must be refused with, and that
// change in every patch format that can state it. Every format has a rendition or is named in
// `cannot` with the reason; a rendition whose result differs by design is named in `differs`
// with its own result and the reason. Also the helpers the case files write patches with.
import type { ErrorCode } from '../../../src/errors.js'
import type { PatchFormat } from '../../../src/types.js'
import type { WarningCode } from '../../../src/warnings.js'
import type { FileMap } from '../../helpers/file-map.js'

/** Every patch format, so a case that forgets one fails the table check. */
export const FORMATS = Object.keys({
  codex: true,
  unified: true,
  'search-replace': true,
  edits: true,
} satisfies Record<PatchFormat, true>) as PatchFormat[]

export type Expectation =
  /**
   * The whole workspace afterwards (FileMap: `dir/` for an empty directory), and the codes of
   * the warnings the change gives, each once, in any order (none when absent).
   */
  | { readonly files: FileMap; readonly warnings?: readonly WarningCode[] }
  /** The change is refused with this code and the workspace is left as it was. */
  | { readonly refused: ErrorCode }

export interface BehaviourCase {
  readonly name: string
  readonly before: FileMap
  readonly expect: Expectation
  /** The change in each format that states it, patch text exactly as given to the engine. */
  readonly renditions: Partial<Record<PatchFormat, string>>
  /** Formats that cannot state this change: why. */
  readonly cannot?: Partial<Record<PatchFormat, string>>
  /** Formats whose rendition gives another result by design: that result and why. */
  readonly differs?: Partial<
    Record<PatchFormat, { readonly expect: Expectation; readonly why: string }>
  >
}

/** Lines joined with '\n', each ended by one. */
export function text(...lines: string[]): string {
  return lines.map((line) => `${line}\n`).join('')
}

/** The text with every '\n' made '\r\n', as a patch may arrive from Windows. */
export function crlf(patch: string): string {
  return patch.replace(/\n/g, '\r\n')
}

export function codex(...lines: string[]): string {
  return text('*** Begin Patch', ...lines, '*** End Patch')
}

export function block(path: string, search: readonly string[], replace: readonly string[]): string {
  return text(path, '<<<<<<< SEARCH', ...search, '=======', ...replace, '>>>>>>> REPLACE')
}

export function edits(...list: Record<string, unknown>[]): string {
  return `${JSON.stringify({ edits: list }, null, 2)}\n`
}

export const LENIENT: readonly WarningCode[] = ['match.lenient']

/** Why only a diff gives match.offset: no other format states where its change goes. */
export const OFFSET_WHY = 'only a diff states a line, so only a diff reports a change placed off it'

export const NO_DELETE_SR =
  'a SEARCH/REPLACE block changes text inside a file; none removes the file'
export const NO_DELETE_EDITS = 'no edit mode removes a file (a write of "" leaves an empty file)'
export const NO_RENAME_SR = 'a SEARCH/REPLACE block names one file; none moves it'
export const NO_RENAME_EDITS = 'an edit names one path; none moves the file'
