// undo_edit (text_editor_20241022 and 20250124): reverts the last edit of one file, the newest
// of this agent's transactions that touched the path and is committed and not undone, through
// the journal's undo (the server's undo tool, which records the restored hash as this agent's
// view). Refused in the tool's words when the file has no such edit, when that transaction also
// changed other files, or when the file changed since (UNDO_CONFLICT).
import type { TransactionInfo } from '../journal/records.js'
import { readForAgent } from '../server/read.js'
import { commonError, failureOf, failureOfData } from './anthropic-errors.js'
import { fileView, type Reply } from './anthropic-view.js'
import { listWords } from './anthropic-input.js'
import { callTool, type Session } from './session.js'
import { isEditError } from '../errors.js'

export async function undoEdit(
  session: Session,
  path: string,
  maxCharacters: number | undefined,
): Promise<Reply> {
  const { workspace, agent } = session
  let rel: string
  try {
    rel = (await workspace.resolve(path)).rel
  } catch (error) {
    if (!isEditError(error)) throw error
    return refuse(commonError('undo_edit', path, failureOfData(error.toData()), workspace.root))
  }
  // This agent's transactions only, not the journal's newest (DECISIONS.md D-164).
  const mine = workspace.memory.transactionsOf(agent)
  const last = mine.length === 0 ? undefined : await lastEdit(session, mine, rel)
  if (last === undefined) {
    return refuse(
      `No edit of ${path} to undo: this tool has made no edit of it that is not undone yet.`,
    )
  }
  const others = [
    ...new Set(last.files.flatMap((f) => [f.path, ...(f.from === undefined ? [] : [f.from])])),
  ].filter((p) => p !== rel)
  if (others.length > 0) {
    return refuse(
      `Nothing was undone: the last edit of ${path} also changed ${listWords(others)}, and undo_edit reverts the edits of one file only. Edit the file to take the change back instead.`,
    )
  }
  if (!last.undoable) {
    return refuse(
      `Nothing was undone: the last edit of ${path} can no longer be undone (its before-state was pruned from the journal).`,
    )
  }
  const outcome = await callTool(session, 'undo', { transaction: last.id })
  if (!outcome.ok) {
    const failure = failureOf(outcome)
    if (failure.code === 'UNDO_CONFLICT') {
      return refuse(
        `Nothing was undone: ${path} changed since its last edit (someone else edited it), and undoing that edit would overwrite their change. View the file and edit it instead.`,
      )
    }
    return refuse(`Nothing was undone: ${commonError('undo_edit', path, failure, workspace.root)}`)
  }
  const restored = (outcome.structured['files'] as { op: string; content_hash: string | null }[])[0]
  if (restored === undefined || restored.content_hash === null) {
    return done(`Last edit to ${path} undone: that edit had created the file, so it is removed.`)
  }
  const undone = `Last edit to ${path} undone.\ncontent_hash: ${restored.content_hash}`
  let file
  try {
    file = await readForAgent(workspace, agent, path)
  } catch (error) {
    // Changed again since the undo (deleted, made binary): the undo itself stands.
    if (isEditError(error)) return done(undone)
    throw error
  }
  const view = fileView(path, file.lines, { first: 1, last: file.lines.length }, maxCharacters)
  return done(`${undone}\n${view}`)
}

/** The newest of `ids` (oldest first) that touched `rel` and is committed and not undone. */
async function lastEdit(
  session: Session,
  ids: readonly string[],
  rel: string,
): Promise<TransactionInfo | undefined> {
  const byId = new Map((await session.workspace.engine.transactions()).map((t) => [t.id, t]))
  for (let i = ids.length - 1; i >= 0; i--) {
    const info = byId.get(ids[i] as string)
    if (info === undefined || info.status !== 'committed' || info.kind !== 'apply') continue
    if (info.undoneBy !== undefined || info.untrusted === true) continue
    if (info.files.some((f) => f.path === rel || f.from === rel)) return info
  }
  return undefined
}

function done(content: string): Reply {
  return { content, isError: false }
}

function refuse(content: string): Reply {
  return { content, isError: true }
}
