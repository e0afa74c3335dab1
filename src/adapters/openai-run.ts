// One OpenAI apply_patch operation run through the server's apply_patch tool: checked and
// made a Codex section (v4a.ts), its paths resolved in the workspace, then applied as a Codex
// patch of its own; and the outcome's text as the model reads it. openai.ts and
// openai-atomic.ts build on it.
import { lstat } from 'node:fs/promises'
import { EditError, ERROR_CODES, errorData, type EditErrorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import { errorOutcome, type ToolOutcome } from '../server/format.js'
import { callTool, type Session } from './session.js'
import { codexPatch, codexSection, sectionLines, type CodexSection } from './v4a.js'

/** An operation ready to run: its Codex section and the workspace paths it changes. */
export interface Prepared {
  readonly section: CodexSection
  readonly rels: readonly string[]
}

/** Whether a call landed, and the text for the model. */
export interface CallOutcome {
  readonly ok: boolean
  readonly text: string
}

/**
 * The operation's Codex section and paths, or why it cannot run: the checks of v4a.ts, the
 * paths resolved in the workspace (the engine's sandbox), create_file over an existing file.
 */
export async function prepare(session: Session, operation: unknown): Promise<Result<Prepared>> {
  const section = codexSection(operation)
  if (!section.ok) return section
  const { type, path, moveTo } = section.value
  try {
    const target = await session.workspace.resolve(path)
    const rels = [target.rel]
    if (moveTo !== undefined) rels.push((await session.workspace.resolve(moveTo)).rel)
    if (type === 'create_file' && (await exists(target.abs))) {
      // Refused, not overwritten as a Codex Add File would: DECISIONS.md D-159.
      return fail(
        errorData(
          'FILE_EXISTS',
          `create_file names ${target.rel}, which already exists; create_file makes a new file and does not replace one.`,
          {
            path: target.rel,
            hint: 'Change the file with update_file, or remove it with delete_file in an earlier call.',
          },
        ),
      )
    }
    return ok({ section: section.value, rels })
  } catch (error) {
    if (error instanceof EditError) return fail(error.toData())
    throw error
  }
}

/** One operation as a transaction of its own. Never rejects on a refusal. */
export async function runOne(session: Session, operation: unknown): Promise<CallOutcome> {
  const prepared = await prepare(session, operation)
  if (!prepared.ok) return { ok: false, text: errorOutcome(prepared.error).text }
  const sections = [prepared.value.section]
  const outcome = await callTool(session, 'apply_patch', {
    patch: codexPatch(sections),
    format: 'codex',
    // A V4A diff cannot state a final newline: the file keeps its own (DECISIONS.md D-170).
    final_newline: 'keep',
    // create_file never replaces a file, not even one made since prepare() looked
    // (DECISIONS.md D-159).
    adds_must_be_new: true,
  })
  return { ok: outcome.ok, text: modelText(outcome, diffLine(sections, 0)) }
}

/** The patch line of section `i`'s first diff line, when it has a diff. */
export function diffLine(sections: readonly CodexSection[], i: number): number | undefined {
  if (sections[i]?.type === 'delete_file') return undefined
  return sectionLines(sections)[i]?.diff
}

/**
 * The outcome's text as the model reads it: the server's, with the OpenAI tool's words where a
 * hint names Codex headers, and, where the error counts patch lines, which patch line the diff's
 * first line is (the diff was sent inside a Codex envelope).
 */
export function modelText(outcome: ToolOutcome, diffStart: number | undefined): string {
  if (outcome.ok) return outcome.text
  const error = errorOf(outcome)
  let text = outcome.text
  const hint = error.code === undefined ? undefined : HINTS[error.code]
  if (hint !== undefined && error.code !== undefined) {
    text = text.replace(`hint: ${ERROR_CODES[error.code].hint}`, `hint: ${hint}`)
  }
  if (diffStart !== undefined && COUNTS_PATCH_LINES.test(error.message ?? '')) {
    text += `\nnote: the diff was applied as the body of a Codex patch, in which its line 1 is patch line ${diffStart}`
  }
  return text
}

/** The error of a failed outcome, as its structured content carries it. */
export function errorOf(outcome: ToolOutcome): Partial<EditErrorData> {
  return (outcome.structured as { error?: Partial<EditErrorData> }).error ?? {}
}

/** A Codex parser message starts "Line N"; the engine's say "patch line N". */
const COUNTS_PATCH_LINES = /\bpatch lines? \d|^Line \d/
const HINTS: Partial<Record<keyof typeof ERROR_CODES, string>> = {
  FILE_NOT_FOUND: 'Check the path; create a new file with create_file.',
}

async function exists(abs: string): Promise<boolean> {
  try {
    // A directory there is the engine's to refuse (FILE_IS_DIRECTORY).
    return !(await lstat(abs)).isDirectory()
  } catch {
    return false
  }
}
