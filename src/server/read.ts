// read_file: a window of a text file's lines, numbered from 1, with the file's content
// hash. Reading is what read-before-write counts, so the agent's memory records the hash, and
// the version is kept for rebasing later edits made against it.
import { EditError } from '../errors.js'
import type { ToolOutcome } from './format.js'
import type { Workspace } from './workspace.js'

/** Lines returned when the caller gives no limit. */
export const DEFAULT_LIMIT = 2000
/** Longer lines are cut in the listing (the file is not changed). */
const MAX_LINE_CHARS = 2000

/** A text file as an agent reads it: its lines (endings cut) and hash, recorded as seen. */
export interface ReadFile {
  /** Workspace-relative path. */
  readonly rel: string
  readonly hash: string
  readonly lines: readonly string[]
}

/**
 * Reads a text file for `agent`: resolves the path in the sandbox, records the hash as this
 * agent's read (read-before-write) and keeps the version for rebasing. FILE_NOT_FOUND,
 * FILE_NOT_TEXT, FILE_IS_DIRECTORY and the PATH_* errors are thrown.
 */
export async function readForAgent(
  workspace: Workspace,
  agent: string,
  path: string,
): Promise<ReadFile> {
  const resolved = await workspace.resolve(path)
  const now = await workspace.now(resolved)
  if (now === null) {
    throw new EditError('FILE_NOT_FOUND', `${resolved.rel} does not exist.`, { path: resolved.rel })
  }
  const text = workspace.keepVersion(now)
  if (text === null) {
    throw new EditError(
      'FILE_NOT_TEXT',
      `${resolved.rel} is not UTF-8 text (NUL bytes or invalid UTF-8); it cannot be listed.`,
      { path: resolved.rel, hint: 'Edit it with a byte-exact patch (apply_patch) instead.' },
    )
  }
  workspace.memory.see(agent, resolved.rel, now.hash)
  return { rel: resolved.rel, hash: now.hash, lines: linesOf(text) }
}

export async function readOutcome(
  workspace: Workspace,
  agent: string,
  args: Readonly<Record<string, unknown>>,
): Promise<ToolOutcome> {
  const { rel, hash, lines } = await readForAgent(workspace, agent, args['path'] as string)
  const offset = (args['offset'] as number | undefined) ?? 1
  const limit = (args['limit'] as number | undefined) ?? DEFAULT_LIMIT
  return { ok: true, ...listingOf(rel, hash, lines, offset, limit) }
}

/** A window of a file's lines as read_file returns it: its structured result and its text. */
export interface Listing {
  readonly structured: Record<string, unknown>
  readonly text: string
}

/** Lines `offset`.. (at most `limit`) of a file, numbered, as read_file lists them. */
export function listingOf(
  rel: string,
  hash: string,
  lines: readonly string[],
  offset = 1,
  limit = DEFAULT_LIMIT,
): Listing {
  const start = Math.min(offset, lines.length + 1)
  const end = Math.min(lines.length, start + limit - 1)
  const numbered: string[] = []
  for (let n = start; n <= end; n++) {
    const line = lines[n - 1] as string
    const shown =
      line.length > MAX_LINE_CHARS
        ? `${line.slice(0, MAX_LINE_CHARS)}... [line cut at ${MAX_LINE_CHARS} of ${line.length} characters]`
        : line
    numbered.push(`${n}\t${shown}`)
  }
  const content = numbered.join('\n')
  const more = end < lines.length
  const structured = {
    path: rel,
    content_hash: hash,
    content,
    start_line: start,
    end_line: end,
    total_lines: lines.length,
    more,
  }
  const header =
    lines.length === 0
      ? `${rel} is empty (content_hash ${hash})`
      : `${rel} lines ${start}-${end} of ${lines.length} (content_hash ${hash})${more ? `; more from offset ${end + 1}` : ''}`
  return { structured, text: content === '' ? header : `${header}\n${content}` }
}

/** The file's lines without their endings ('\r\n' shown as a line break, like '\n'). */
export function linesOf(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
}
