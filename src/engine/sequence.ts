// A unified diff may name one path in several sections, and git apply reads such a patch by rules
// of its own (apply.c keeps a table of the paths earlier sections patched; DECISIONS.md D-132).
// PlanSequence applies those rules to a plan's prepared ops, op by op, between reading and
// computing (verify.ts), and decides which op's write or removal of each path the commit keeps;
// sequenceGroups names the ops that must be verified in one pass (merge.ts). Only unified plans
// get these rules; every other format refuses a path named twice.
import path from 'node:path'
import { EditError } from '../errors.js'
import type { FileOp } from '../types.js'
import { pathKey } from '../workspace/case-fold.js'
import { writesLink, type PreparedOp, type PreparedPath, type ResolvedOp } from './prepare.js'
import type { ReadFs } from '../workspace/read-fs.js'
import { MISSING, SYMLINK_MODE, type Snapshot } from '../workspace/file-state.js'

/**
 * The workspace-relative paths a unified plan deletes or renames away, as written (lexically
 * normalised), so paths below them can be resolved through them literally (paths.ts).
 */
export function removedRels(ops: readonly FileOp[]): ReadonlySet<string> {
  const out = new Set<string>()
  for (const op of ops) {
    if (op.kind === 'delete' || (op.kind === 'update' && op.moveTo !== undefined))
      out.add(path.posix.normalize(op.path))
  }
  return out
}

/** The outermost strict ancestor of `rel` in `removed`, for ResolveOptions.removedAncestor. */
export function removedAncestorIn(
  removed: ReadonlySet<string>,
): ((rel: string) => string | undefined) | undefined {
  if (removed.size === 0) return undefined
  return (rel) => ancestorsOf(rel).find((ancestor) => removed.has(ancestor))
}

/** The strict ancestors of a '/'-separated relative path, outermost first: a/b/c -> a, a/b. */
function ancestorsOf(rel: string): string[] {
  const out: string[] = []
  for (let at = rel.indexOf('/'); at !== -1; at = rel.indexOf('/', at + 1))
    out.push(rel.slice(0, at))
  return out
}

/** The workspace-relative paths an op names: its file, a move's destination, a copy's source. */
function namedPaths(op: ResolvedOp): string[] {
  return [op.target.rel, ...(op.moveTo === undefined ? [] : [op.moveTo.rel])].concat(
    op.from === undefined ? [] : [op.from.rel],
  )
}

/**
 * Ops that must be verified in one pass because they name a path another op (or the op itself,
 * as a rename from foo/bar to foo does) names, or one above or below it (a type change between
 * file and directory): groups of op indices. A plan without any (the usual case) is verified op
 * by op as before.
 */
export function sequenceGroups(ops: readonly ResolvedOp[], caseInsensitive: boolean): number[][] {
  const fold = caseInsensitive
    ? (rel: string) => rel.normalize('NFC').toLowerCase()
    : (rel: string) => rel
  const named = new Set<string>()
  // PERF (bench: a 10,000-file check): nearly every plan names each path once and none above
  // another; one pass over the names tells, without the grouping below.
  let related = false
  for (const op of ops) {
    for (const p of [op.target, op.moveTo, op.from]) {
      if (p === undefined) continue
      const key = fold(p.rel)
      if (named.has(key)) related = true
      named.add(key)
    }
  }
  for (const key of named) {
    if (related) break
    related = ancestorsOf(key).some((ancestor) => named.has(ancestor))
  }
  if (!related) return []
  return groupsOf(ops, fold, named)
}

/** sequenceGroups' grouping: ops joined by a shared name, or one above another's, as a union-find. */
function groupsOf(
  ops: readonly ResolvedOp[],
  fold: (rel: string) => string,
  named: ReadonlySet<string>,
): number[][] {
  const owner = new Map<string, number>()
  const parent = ops.map((_, i) => i)
  const joined = new Set<number>()
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i] as number] as number
    return i
  }
  ops.forEach((op, i) => {
    for (const rel of namedPaths(op)) {
      const folded = fold(rel)
      const keys = [folded, ...ancestorsOf(folded).filter((ancestor) => named.has(ancestor))]
      for (const key of keys) {
        const earlier = owner.get(key)
        if (earlier === undefined) owner.set(key, i)
        else {
          parent[find(i)] = find(earlier)
          joined.add(i)
        }
      }
    }
  })
  const groups = new Map<number, number[]>()
  ops.forEach((_, i) => {
    const root = find(i)
    const group = groups.get(root)
    if (group === undefined) groups.set(root, [i])
    else group.push(i)
  })
  return [...groups.values()].filter((g) => g.length > 1 || joined.has(g[0] as number))
}

type Entry =
  | {
      readonly kind: 'written'
      readonly patchLine: number
      readonly snap: Snapshot
      /** Written by an update in place or a creation, not as a rename's or copy's destination. */
      readonly inPlace: boolean
    }
  | {
      readonly kind: 'removed'
      readonly patchLine: number
      readonly how: string
    }

/** What the sequencer learns of one op once it is computed. */
export interface SequencedResult {
  readonly after: Uint8Array | null
  readonly afterHash: string | null
  /** Permission bits the op writes with (permissions.ts permissionsFor). */
  readonly permissions: number
}

/** The per-op changes the commit needs (prepare.ts PreparedOp's sequence fields). */
export interface CommitRole {
  readonly skipWrite?: true
  readonly skipRemove?: true
  readonly replaces?: Snapshot
}

// The rules, as git apply reads such a plan:
// - an update in place or a deletion of a path an earlier section wrote reads that result; one of
//   a path an earlier section deleted or renamed away finds nothing (FILE_NOT_FOUND);
// - a rename or a copy reads its source as the patch found it ("git patches do not depend on the
//   order"), so renames may swap two names (git diff -M -B);
// - a creation, or a rename's or copy's destination, may stand where the patch deletes or renames
//   something away (before or after it), and where a directory stands whose files the patch all
//   removes; a second creation of one path is PATH_DUPLICATE;
// - the commit removes before it writes (journal inCommitOrder), and the last write of a path
//   wins: `roles` gives each path one step, from what is on disk to what the last section leaves.
// Refused where git's result would not be what the sections say: a deletion of a path an earlier
// section wrote (git would keep the written file), a rename of a path an earlier section changed
// in place (git would keep the changed file too), a path below a symlink the patch writes (git:
// "beyond a symbolic link"), and a file below a file the patch writes.
/**
 * git's reading of a unified plan that names paths more than once, applied op by op: `adjust`
 * before an op's state check (it may throw EditError), `record` after its compute, `roles` once
 * every op is computed. Ops are given by their position in `ops`.
 */
export class PlanSequence {
  readonly #ops: readonly PreparedOp[]
  readonly #key: (p: PreparedPath) => string
  readonly #fs: ReadFs
  readonly #table = new Map<string, Entry>()
  /** Every path the plan removes, by key, with the op that does; and by real path. */
  readonly #toRemove = new Map<string, number>()
  readonly #removedAbs = new Set<string>()
  /** Paths the plan writes as symlinks, as written, with the patch line that does. */
  readonly #linkWrites = new Map<string, number>()
  /** Each path's state on disk as the plan found it, first read. */
  readonly #disk = new Map<string, PreparedPath>()
  /** Per key, the ops that write and remove it, in order. */
  readonly #writers = new Map<string, number[]>()
  readonly #removers = new Map<string, number[]>()

  constructor(ops: readonly PreparedOp[], caseInsensitive: boolean, fs: ReadFs) {
    this.#ops = ops
    this.#fs = fs
    this.#key = (p) => pathKey(p.resolved.abs, caseInsensitive)
    ops.forEach((p, i) => {
      const source = removedPath(p)
      if (source !== undefined) {
        this.#toRemove.set(this.#key(source), i)
        this.#removedAbs.add(source.resolved.abs)
      }
      const dest = writtenPath(p)
      if (dest !== undefined && writesLink(p))
        this.#linkWrites.set(dest.resolved.rel, p.op.patchLine)
      for (const each of [p.target, p.moveTo, p.from]) {
        if (each !== undefined && !this.#disk.has(this.#key(each)))
          this.#disk.set(this.#key(each), each)
      }
    })
  }

  /** The op as git reads it after the ops before it: what it reads and what it may replace. */
  async adjust(i: number): Promise<PreparedOp> {
    let p = this.#ops[i] as PreparedOp
    const { op } = p
    const line = op.patchLine
    if (op.kind !== 'delete') {
      for (const each of [p.target, p.moveTo])
        if (each !== undefined) this.#checkNotBelowLink(each, line)
    }
    const inPlace = op.kind === 'delete' || (op.kind === 'update' && op.moveTo === undefined)
    if (inPlace) {
      const entry = this.#table.get(this.#key(p.target))
      if (entry?.kind === 'removed') {
        throw new EditError(
          'FILE_NOT_FOUND',
          `${p.target.resolved.rel} was ${entry.how} by the section at patch line ${entry.patchLine}; a later section cannot change it.`,
          { path: p.target.resolved.rel, patchLine: line },
        )
      }
      if (entry?.kind === 'written') {
        if (op.kind === 'delete') {
          throw new EditError(
            'PATH_DUPLICATE',
            `${p.target.resolved.rel} is deleted after the section at patch line ${entry.patchLine} writes it; git apply would keep the written file, so the patch has no single reading.`,
            { path: p.target.resolved.rel, patchLine: line },
          )
        }
        p = { ...p, target: { ...p.target, snap: entry.snap }, continues: true }
      }
    } else if (op.kind === 'copy' || op.kind === 'update') {
      const source = op.kind === 'copy' ? p.from : p.target
      const entry = source === undefined ? undefined : this.#table.get(this.#key(source))
      const what = op.kind === 'copy' ? 'copied' : 'renamed'
      if (source !== undefined && entry?.kind === 'removed') {
        throw new EditError(
          'FILE_NOT_FOUND',
          `${source.resolved.rel} is ${what} after the section at patch line ${entry.patchLine} ${entry.how === 'deleted' ? 'deletes' : 'renames'} it.`,
          { path: source.resolved.rel, patchLine: line },
        )
      }
      // A copy takes the file as the patch found it, as `git diff -C -B` writes one of a file the
      // same patch rewrites. A rename of a file changed in place would leave it in place.
      if (
        op.kind === 'update' &&
        source !== undefined &&
        entry?.kind === 'written' &&
        entry.inPlace
      ) {
        throw new EditError(
          'PATH_DUPLICATE',
          `${source.resolved.rel} is renamed after the section at patch line ${entry.patchLine} changes it; git apply would rename the file as it was and keep the changed one, so the patch has no single reading.`,
          { path: source.resolved.rel, patchLine: line },
        )
      }
    }
    const dest = op.kind === 'add' || op.kind === 'copy' ? p.target : p.moveTo
    if (dest === undefined || dest.resolved.belowRemoved !== undefined) return p
    const key = this.#key(dest)
    const entry = this.#table.get(key)
    if (entry?.kind === 'written') {
      throw new EditError(
        'PATH_DUPLICATE',
        `${dest.resolved.rel} is created twice in one patch (patch lines ${entry.patchLine} and ${line}).`,
        { path: dest.resolved.rel, patchLine: line },
      )
    }
    const freed = entry?.kind === 'removed' || this.#toRemove.has(key)
    if (freed && (dest.snap.kind === 'file' || dest.snap.kind === 'symlink')) {
      return withDest(p, dest, MISSING)
    }
    // The journal clears the emptied directory just before it writes there (transaction.ts).
    if (dest.snap.kind === 'directory' && (await this.#emptiedByPlan(dest.resolved.abs))) {
      return withDest(p, dest, MISSING)
    }
    return p
  }

  /** Records what op `i` (as `adjust` gave it) leaves behind. */
  record(i: number, p: PreparedOp, result: SequencedResult): void {
    const { op } = p
    const line = op.patchLine
    const source = removedPath(p)
    if (source !== undefined) {
      const key = this.#key(source)
      this.#table.set(key, {
        kind: 'removed',
        patchLine: line,
        how: op.kind === 'delete' ? 'deleted' : 'renamed away',
      })
      push(this.#removers, key, i)
    }
    const dest = writtenPath(p)
    if (dest === undefined || result.after === null) return
    const link = writesLink(p)
    const snap: Snapshot = {
      kind: link ? 'symlink' : 'file',
      bytes: result.after,
      hash: result.afterHash,
      mode: link ? SYMLINK_MODE : result.permissions & 0o100 ? '100755' : '100644',
      ...(link ? {} : { permissions: result.permissions }),
    }
    const key = this.#key(dest)
    this.#table.set(key, {
      kind: 'written',
      patchLine: line,
      snap,
      inPlace: op.kind === 'add' || (op.kind === 'update' && op.moveTo === undefined),
    })
    push(this.#writers, key, i)
  }

  /**
   * Once every op is recorded: per op, the commit role that makes the steps of all ops together
   * the patch's net change (one step per path: the last write, or the removal), and the paths
   * written below a file the patch writes (refused: returned as the op at fault and its error).
   */
  roles(): { roles: Map<number, CommitRole>; failure?: { index: number; error: EditError } } {
    const roles = new Map<number, CommitRole>()
    const role = (i: number, extra: CommitRole) => roles.set(i, { ...roles.get(i), ...extra })
    const finalFiles = new Map<string, { rel: string; patchLine: number; index: number }>()
    for (const [key, writers] of this.#writers) {
      const owner = writers[writers.length - 1] as number
      for (const w of writers) if (w !== owner) role(w, { skipWrite: true })
      for (const r of this.#removers.get(key) ?? []) role(r, { skipRemove: true })
      // The one step for this path replaces what stands on disk, whatever the earlier sections
      // made of it: a file or link, or nothing (a directory the plan empties is cleared first).
      const disk = this.#disk.get(key)?.snap
      const onDisk = disk?.kind === 'file' || disk?.kind === 'symlink' ? disk : MISSING
      role(owner, { replaces: onDisk })
      const p = this.#ops[owner] as PreparedOp
      const dest = writtenPath(p)
      if (dest !== undefined)
        finalFiles.set(dest.resolved.rel, {
          rel: dest.resolved.rel,
          patchLine: p.op.patchLine,
          index: owner,
        })
    }
    for (const file of finalFiles.values()) {
      for (const ancestor of ancestorsOf(file.rel)) {
        const above = finalFiles.get(ancestor)
        if (above === undefined) continue
        const error = new EditError(
          'PATH_INVALID',
          `${file.rel} is written below ${above.rel}, which the section at patch line ${above.patchLine} writes as a file.`,
          { path: file.rel, patchLine: file.patchLine },
        )
        return { roles, failure: { index: file.index, error } }
      }
    }
    return { roles }
  }

  #checkNotBelowLink(p: PreparedPath, patchLine: number): void {
    const rel = p.resolved.rel
    for (const dir of ancestorsOf(rel)) {
      const by = this.#linkWrites.get(dir)
      if (by === undefined) continue
      throw new EditError(
        'PATH_BEYOND_SYMLINK',
        `${rel} is beyond a symbolic link: ${dir} is a symlink the section at patch line ${by} writes, and a file is not created through one.`,
        { path: rel, patchLine },
      )
    }
  }

  /**
   * Whether every file below the directory `abs` is one the plan removes, and every directory
   * below it holds one (so a rollback, which restores the files, restores the tree too).
   */
  async #emptiedByPlan(abs: string): Promise<boolean> {
    const walk = async (dir: string): Promise<boolean> => {
      let holdsRemoved = false
      for (const name of await this.#fs.readdir(dir)) {
        const child = path.join(dir, name)
        const st = await this.#fs.lstat(child)
        if (st.isDirectory()) {
          if (!(await walk(child))) return false
          holdsRemoved = true
        } else if (this.#removedAbs.has(child)) holdsRemoved = true
        else return false
      }
      return holdsRemoved
    }
    return walk(abs)
  }
}

/** The path an op removes: a deletion's file, a rename's source. */
function removedPath(p: PreparedOp): PreparedPath | undefined {
  if (p.op.kind === 'delete') return p.target
  if (p.op.kind === 'update' && p.moveTo !== undefined) return p.target
  return undefined
}

/** The path an op writes: a creation's or update's file, a rename's or copy's destination. */
function writtenPath(p: PreparedOp): PreparedPath | undefined {
  if (p.op.kind === 'delete') return undefined
  return p.moveTo ?? p.target
}

function withDest(p: PreparedOp, dest: PreparedPath, snap: Snapshot): PreparedOp {
  const moved = { ...dest, snap }
  return p.moveTo === dest ? { ...p, moveTo: moved } : { ...p, target: moved }
}

function push(map: Map<string, number[]>, key: string, i: number): void {
  const list = map.get(key)
  if (list === undefined) map.set(key, [i])
  else list.push(i)
}
