// One JSON-edit transaction through the server: edit_file, multi_edit and write_file. A file's
// base is the hash the edit was made against (its expected_hash, or the hash this agent last
// saw); the engine verifies every edit against that base and commits all-or-nothing, and its
// journal checks every hash again under the workspace lock, so no update is lost. No base for an
// existing file (read-before-write on): FILE_STALE_READ. A stale base (FILE_HASH_MISMATCH): an
// explicit expected_hash without `rebase` is refused, otherwise a string-anchored edit is rebased
// (engine/rebase.ts); a refusal carries the file as it is now (StaleEditError), read under the
// lock. FILE_CHANGED of a file with a base: verified again here (the engine: the files without).
import { computeFile } from '../apply/compute.js'
import { searchRegex } from '../engine/regex-search.js'
import type { ApplyResult, EditsOp } from '../types.js'
import { EditError, isEditError } from '../errors.js'
import { parseEditsJson } from '../parse/edits.js'
import { isAnchoredEdit, rebaseVerdict } from '../engine/rebase.js'
import { DEFAULT_LIMIT, linesOf, listingOf, type Listing } from './read.js'
import { decodeText, type FileNow, type Workspace } from './workspace.js'

/** A JSON edit as the core's edit list takes it (snake_case fields, `path` on each). */
export type JsonEdit = Readonly<Record<string, unknown>> & { readonly path: string }

export interface EditRequest {
  readonly agent: string
  readonly edits: readonly JsonEdit[]
  /** Rebase stale files even when an expected_hash was given (the hash the agent read). */
  readonly rebase: boolean
  readonly dryRun: boolean
  readonly diagnostics?: boolean
  readonly readBeforeWrite: boolean
}

export interface EditOutcome {
  readonly result: ApplyResult
  /** Workspace-relative paths that were rebased, with the hash the edit was made against. */
  readonly rebased: ReadonlyMap<string, string>
}

/** Attempts before a file that keeps changing under the transaction is given up on. */
const MAX_ATTEMPTS = 4

const ENCODER = new TextEncoder()

/** The most of a file a FILE_HASH_MISMATCH refusal shows; beyond it, its hash and a hint. */
export const REFUSAL_CONTENT_BYTES = 64 * 1024

/**
 * FILE_HASH_MISMATCH with what the agent needs to retry at once: the file as it is now, listed
 * as read_file lists it (`current`, when it is UTF-8 text of at most REFUSAL_CONTENT_BYTES and
 * DEFAULT_LIMIT lines; recorded as this agent's read), and whether resending the same edits with
 * `rebase: true` may land them (string-anchored edits made against a version still remembered).
 */
export class StaleEditError extends EditError {
  readonly current: Listing | undefined
  readonly rebasePossible: boolean

  constructor(
    refused: EditError,
    hint: string,
    currentHash: string,
    current: Listing | undefined,
    rebasePossible: boolean,
  ) {
    super('FILE_HASH_MISMATCH', refused.message, {
      ...(refused.path === undefined ? {} : { path: refused.path }),
      hint,
      currentHash,
      cause: refused,
    })
    this.current = current
    this.rebasePossible = rebasePossible
  }
}

export async function runEdits(workspace: Workspace, request: EditRequest): Promise<EditOutcome> {
  const files = await filesOf(workspace, request.edits)
  // The server's per-file queue: requests on one file are served in the order they got here
  // (pathLocks), a rebase inside its turn, so a newer edit never overtakes an older one.
  const release = await workspace.lock([...new Set(files.map((f) => f.abs))])
  try {
    return await transact(workspace, request, files)
  } catch (error) {
    // Still in the file's turn: the content shown is the version that refused the edit.
    throw await withCurrent(workspace, request, files, error)
  } finally {
    release()
  }
}

/**
 * A FILE_HASH_MISMATCH refusal of one of the request's files as a StaleEditError, with the file
 * as it is now; anything else unchanged.
 */
async function withCurrent(
  workspace: Workspace,
  request: EditRequest,
  files: readonly EditFile[],
  error: unknown,
): Promise<unknown> {
  if (!isEditError(error) || error.code !== 'FILE_HASH_MISMATCH') return error
  const file = files.find((f) => f.rel === error.path)
  if (file === undefined) return error
  let now: FileNow | null
  try {
    now = await workspace.now(await workspace.resolve(file.rel))
  } catch {
    return error
  }
  if (now === null) return error
  const text = decodeText(now.bytes)
  if (text === null) return error
  // Only an explicit expected_hash refused as it is can be resent with rebase: a refused rebase
  // (no expected_hash, or rebase: true) was that attempt.
  const rebasePossible =
    file.expected !== undefined &&
    !request.rebase &&
    workspace.memory.version(file.expected) !== undefined &&
    anchored(request, file)
  const lines = linesOf(text)
  const rebase = rebasePossible
    ? ' Or resend the same edit with rebase: true: the server merges it when the other change touched other lines, and refuses an overlap.'
    : ''
  if (now.bytes.length > REFUSAL_CONTENT_BYTES || lines.length > DEFAULT_LIMIT) {
    const hint = `${file.rel} is ${now.bytes.length} bytes in ${lines.length} lines, more than a refusal shows (${REFUSAL_CONTENT_BYTES} bytes, ${DEFAULT_LIMIT} lines): read it again (read_file) and make the edit against it.${rebase}`
    return new StaleEditError(error, hint, now.hash, undefined, rebasePossible)
  }
  // Shown in full, so seen: the agent's next edit is based on it (DECISIONS.md D-189).
  workspace.keepVersion(now)
  workspace.memory.see(request.agent, file.rel, now.hash)
  const hint = `The file as it is now is below (current), counted as this agent's read: make the edit against it, with its current_hash as expected_hash (no second read needed).${rebase}`
  return new StaleEditError(
    error,
    hint,
    now.hash,
    listingOf(file.rel, now.hash, lines),
    rebasePossible,
  )
}

/** Whether every edit of `file` names its place by one unique string (rebaseable). */
function anchored(request: EditRequest, file: EditFile): boolean {
  try {
    const op = editsOp(file.edits.map((i) => withoutHash(request.edits[i] as JsonEdit)))
    return op.edits.every(isAnchoredEdit)
  } catch {
    return false
  }
}

interface EditFile {
  /** Workspace-relative path (what results and errors name). */
  readonly rel: string
  readonly abs: string
  /** Indices into request.edits. */
  readonly edits: readonly number[]
  /** The caller's expected_hash for this file, when it gave one. */
  readonly expected?: string
}

async function filesOf(workspace: Workspace, edits: readonly JsonEdit[]): Promise<EditFile[]> {
  const byRel = new Map<
    string,
    { rel: string; abs: string; edits: number[]; hashes: Set<string> }
  >()
  for (const [index, edit] of edits.entries()) {
    const resolved = await workspace.resolve(edit.path)
    let file = byRel.get(resolved.rel)
    if (file === undefined) {
      file = { rel: resolved.rel, abs: resolved.abs, edits: [], hashes: new Set() }
      byRel.set(resolved.rel, file)
    }
    file.edits.push(index)
    const hash = edit['expected_hash'] ?? edit['expectedHash']
    if (typeof hash === 'string') file.hashes.add(hash)
  }
  return [...byRel.values()].map((f) => {
    if (f.hashes.size > 1) {
      throw new EditError(
        'PARSE_BAD_EDIT',
        `The edits to ${f.rel} give ${f.hashes.size} different expected_hash values; give one.`,
        { path: f.rel },
      )
    }
    const [expected] = f.hashes
    return {
      rel: f.rel,
      abs: f.abs,
      edits: f.edits,
      ...(expected === undefined ? {} : { expected }),
    }
  })
}

async function transact(
  workspace: Workspace,
  request: EditRequest,
  files: readonly EditFile[],
): Promise<EditOutcome> {
  const { memory } = workspace
  const bases = new Map<string, string>()
  for (const file of files) {
    const base = file.expected ?? memory.seen(request.agent, file.rel)
    if (base !== undefined) bases.set(file.rel, base)
    else if (request.readBeforeWrite) await refuseUnread(workspace, file)
  }
  const rebased = new Map<string, string>()
  /** A rebased file's verified content: written as it is, so nothing unverified lands. */
  const merged = new Map<string, string>()
  for (let attempt = 1; ; attempt++) {
    try {
      const text = editListText(request.edits, files, bases, merged)
      let written: ReadonlyMap<string, Uint8Array> | undefined
      const result = await workspace.engine.apply(text, {
        format: 'edits',
        dryRun: request.dryRun,
        ...(request.diagnostics === undefined ? {} : { diagnostics: request.diagnostics }),
        onCommitted: (bytes) => (written = bytes),
      })
      if (!request.dryRun) await remember(workspace, request.agent, result, written)
      return { result, rebased }
    } catch (error) {
      if (!isEditError(error) || attempt >= MAX_ATTEMPTS) throw error
      // A file without a base was not pinned: the engine verified it again itself (D-139), and
      // what it refused stays refused.
      if (error.code === 'FILE_CHANGED') {
        if (files.some((f) => f.rel === error.path && !bases.has(f.rel))) throw error
        continue
      }
      if (error.code !== 'FILE_HASH_MISMATCH') throw error
      const file = files.find((f) => f.rel === error.path)
      const base = file === undefined ? undefined : bases.get(file.rel)
      if (file === undefined || base === undefined) throw error
      if (file.expected !== undefined && !request.rebase) throw error
      const onto = await rebaseOnto(workspace, request, file, base, error)
      if (!rebased.has(file.rel)) rebased.set(file.rel, base)
      bases.set(file.rel, onto.hash)
      merged.set(file.rel, onto.text)
    }
  }
}

/** Read-before-write: an existing file this agent has not seen may not be changed. */
async function refuseUnread(workspace: Workspace, file: EditFile): Promise<void> {
  const now = await workspace.now(await workspace.resolve(file.rel))
  if (now === null) return
  throw new EditError(
    'FILE_STALE_READ',
    `${file.rel} exists and this agent has not read it; read it first, or send its hash ${now.hash} as expected_hash.`,
    { path: file.rel, currentHash: now.hash },
  )
}

/**
 * The core's JSON edit list, each edit carrying its file's base as expected_hash. A rebased
 * file's edits become one write of the merged content checked by rebaseOnto, against the hash
 * it was checked on: the engine then writes exactly the bytes that were verified.
 */
function editListText(
  edits: readonly JsonEdit[],
  files: readonly EditFile[],
  bases: ReadonlyMap<string, string>,
  merged: ReadonlyMap<string, string>,
): string {
  const out: (Record<string, unknown> | undefined)[] = edits.map((e) => withoutHash(e))
  for (const file of files) {
    const base = bases.get(file.rel)
    if (base === undefined) continue
    const content = merged.get(file.rel)
    for (const [n, index] of file.edits.entries()) {
      out[index] =
        content === undefined
          ? { ...out[index], expected_hash: base }
          : n === 0
            ? { path: file.rel, mode: 'write', content, expected_hash: base }
            : undefined
    }
  }
  return JSON.stringify({ edits: out.filter((e) => e !== undefined) })
}

function withoutHash(edit: JsonEdit): Record<string, unknown> {
  const { expected_hash: _a, expectedHash: _b, ...rest } = edit
  return rest
}

/**
 * Checks that the file's edits can land on the file as it is now (see the module comment) and
 * returns that version's hash and the merged text to write over it. Throws FILE_HASH_MISMATCH
 * (with the current hash) when they cannot.
 */
async function rebaseOnto(
  workspace: Workspace,
  request: EditRequest,
  file: EditFile,
  base: string,
  mismatch: EditError,
): Promise<{ hash: string; text: string }> {
  const refuse = (why: string): EditError =>
    new EditError(
      'FILE_HASH_MISMATCH',
      `${file.rel} changed since this agent saw it (${base}): ${why}`,
      {
        path: file.rel,
        hint: 'Read the file again (read_file) and make the edit against its current content.',
        ...(mismatch.currentHash === undefined ? {} : { currentHash: mismatch.currentHash }),
      },
    )
  const op = editsOp(file.edits.map((i) => withoutHash(request.edits[i] as JsonEdit)))
  const fixed = op.edits.find((e) => !isAnchoredEdit(e))
  if (fixed !== undefined) {
    throw refuse(
      `a ${fixed.mode} edit${fixed.mode === 'replace' && fixed.replaceAll ? ' with replace_all' : ''} is not anchored to one unique string, so it is not rebased.`,
    )
  }
  const baseText = workspace.memory.version(base)
  if (baseText === undefined) throw refuse('the version it saw is no longer remembered.')
  const now = await workspace.now(await workspace.resolve(file.rel))
  if (now === null) throw refuse('it has been deleted.')
  const current = decodeText(now.bytes)
  if (current === null) throw refuse('it is no longer UTF-8 text.')
  workspace.keepVersion(now)
  const edited = computeText(op, ENCODER.encode(baseText))
  if (edited === null) throw refuse('the edit does not apply to the version it was made against.')
  let ours: string | null
  try {
    ours = computeText(op, now.bytes, true)
  } catch (error) {
    if (!isEditError(error)) throw error
    throw refuse(`on its current content the edit fails with ${error.code}: ${error.message}`)
  }
  if (ours === null) throw refuse('the edit does not give text on its current content.')
  const verdict = rebaseVerdict(baseText, edited, current, ours)
  if (!verdict.ok) {
    throw refuse(
      verdict.reason === 'overlap'
        ? 'the other change touched the lines this edit changes (or the lines next to them).'
        : 'applied to the current content, the edit does not give the merge of both changes.',
    )
  }
  return { hash: now.hash, text: ours }
}

function editsOp(edits: readonly Record<string, unknown>[]): EditsOp {
  const parsed = parseEditsJson(JSON.stringify({ edits }))
  if (!parsed.ok) throw EditError.fromData(parsed.error)
  const [op] = parsed.value.ops
  if (op?.kind !== 'edits' || parsed.value.ops.length !== 1) {
    throw new EditError('INTERNAL', 'A rebase needs the edits of exactly one file.')
  }
  return op
}

/**
 * The edit's result on `source` as text; null when it does not apply. With `required`, its
 * refusal (MATCH_NOT_FOUND, MATCH_AMBIGUOUS, ...) is thrown: on the current content, that is the
 * answer the agent needs.
 */
function computeText(op: EditsOp, source: Uint8Array, required = false): string | null {
  const computed = computeFile({ format: 'edits', op, source, bytesOnly: true }, { searchRegex })
  if (!computed.ok) {
    if (required) throw EditError.fromData(computed.error)
    return null
  }
  const after = computed.value.after
  return after === null ? null : decodeText(after)
}

/**
 * After a commit: the agent has seen each file as it now is, and owns the transaction. Each
 * file's new version is kept for rebasing: from `written` (the bytes the engine reported it
 * wrote, by hash) where it has them, else read back from disk.
 */
export async function remember(
  workspace: Workspace,
  agent: string,
  result: ApplyResult,
  written?: ReadonlyMap<string, Uint8Array>,
): Promise<void> {
  for (const file of result.files) {
    if (file.from !== undefined) workspace.memory.see(agent, file.from, null)
    workspace.memory.see(agent, file.path, file.afterHash)
    if (file.afterHash === null) continue
    const bytes = written?.get(file.afterHash)
    if (bytes !== undefined) {
      workspace.keepVersion({ bytes, hash: file.afterHash })
      continue
    }
    // Read back without resolving the path again: the bytes count only at the hash it wrote.
    const now = await workspace.now(workspace.committedPath(file.path)).catch(() => null)
    if (now !== null && now.hash === file.afterHash) workspace.keepVersion(now)
  }
  if (result.transaction !== undefined) workspace.memory.pushTransaction(agent, result.transaction)
}
