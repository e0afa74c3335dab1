// Whether a transaction on disk may be acted on: recovery and undo call vetTransaction
// before they touch anything, and act only on what it returns. A transaction passes when its
// directory is a real directory owned by this user, its manifest is valid and carries this
// user's MAC for this workspace (trust.ts), and every path it names passes the sandbox: no
// `.git` or `.patchloom` segment, no symlink or non-directory among the existing parents (a
// manifest records real paths, so a symlink there appeared after the commit and would send a
// write elsewhere), and the engine's own check (containment and deny globs, from
// workspace/paths.ts, injected as `checkPath`). It only reads.
import path from 'node:path'
import { EditError, type ErrorCode } from '../errors.js'
import { errnoOf, type JournalFs } from './fs.js'
import { MANIFEST, STATE_DIR, txnDir, type Layout } from './layout.js'
import { decodeManifest, isSignedBy, LEGACY_REASON, type Manifest } from './manifest.js'
import type { JournalTrust } from './trust.js'
import type { TransactionStatus } from './records.js'

/**
 * The engine's sandbox for a workspace-relative path: resolves its directories after symlinks
 * with containment and deny globs, and rejects (with an EditError) what apply would refuse. It
 * does not follow the last component: the journal acts on the path itself, so a link a step
 * restores or removes may lead out of the root. The journal never imports the engine;
 * the engine passes this in.
 */
export type PathCheck = (rel: string) => Promise<void>

export interface VetContext {
  readonly fs: JournalFs
  readonly layout: Layout
  readonly trust: JournalTrust
  readonly checkPath?: PathCheck
}

/** The manifest of a transaction that this workspace's engine wrote; otherwise an EditError. */
export async function vetTransaction(
  ctx: VetContext,
  id: string,
  status: TransactionStatus,
): Promise<Manifest> {
  const dir = txnDir(ctx.layout, id, status)
  const where = relDir(ctx.layout, dir)
  const refuse = (code: ErrorCode, why: string, cause?: unknown): EditError =>
    new EditError(code, `Transaction ${where} was not acted on: ${why}. ${clearHint(where)}`, {
      path: where,
      ...(cause === undefined ? {} : { cause }),
    })
  const st = await ctx.fs.lstat(dir).catch((error: unknown) => {
    throw refuse('JOURNAL_CORRUPT', `it cannot be read (${errnoOf(error) ?? String(error)})`, error)
  })
  if (st.kind !== 'dir') throw refuse('JOURNAL_UNTRUSTED', `it is a ${st.kind}, not a directory`)
  const uid = process.getuid?.()
  if (uid !== undefined && st.uid !== undefined && st.uid !== uid)
    throw refuse('JOURNAL_UNTRUSTED', `it belongs to user ${st.uid}, not to this user (${uid})`)
  let bytes: Uint8Array
  try {
    const manifestStat = await ctx.fs.lstat(path.join(dir, MANIFEST))
    if (manifestStat.kind !== 'file') throw new Error(`the manifest is a ${manifestStat.kind}`)
    bytes = await ctx.fs.readFile(path.join(dir, MANIFEST))
  } catch (error) {
    throw refuse(
      'JOURNAL_CORRUPT',
      `it has no readable manifest (${errnoOf(error) ?? (error as Error).message})`,
      error,
    )
  }
  const manifest = decodeManifest(bytes)
  if (manifest === LEGACY_REASON) throw refuse('JOURNAL_UNTRUSTED', LEGACY_REASON)
  if (typeof manifest === 'string')
    throw refuse('JOURNAL_CORRUPT', `its manifest is invalid: ${manifest}`)
  if (manifest.id !== id) throw refuse('JOURNAL_CORRUPT', 'its manifest names another transaction')
  if (!(await isSignedBy(ctx.trust, manifest))) {
    throw refuse(
      'JOURNAL_UNTRUSTED',
      "its manifest does not carry this user's signature for this workspace (it was not written here, say it came with a clone or a copy)",
    )
  }
  // Steps share directories: each one is looked at once per vetting, not once per step under
  // it (a 57-step rollback would otherwise make ~100 lstats, most of them repeats).
  const seen = new Map<string, DirKind>()
  // A file or link the transaction itself wrote or removed may stand where a path of another step
  // needs a directory (a type change, foo -> foo/bar): a rollback, last step first, takes it away
  // before it restores anything below it, and never writes through it (ensureDirs).
  const stepPaths = new Set(manifest.steps.map((step) => step.path))
  for (const step of manifest.steps) {
    for (const rel of [step.path, ...step.createdDirs]) {
      const problem = await pathProblem(ctx, rel, seen, stepPaths)
      if (problem !== undefined) throw refuse('JOURNAL_UNSAFE_PATH', `${rel} ${problem}`)
    }
  }
  return manifest
}

/** What lstat said about a directory on the way: its kind, or the errno it failed with. */
type DirKind = { readonly kind: string } | { readonly errno: string }

/** Why the journal must not write `rel`, or undefined. `seen` caches lstat per directory. */
async function pathProblem(
  ctx: VetContext,
  rel: string,
  seen: Map<string, DirKind>,
  stepPaths: ReadonlySet<string>,
): Promise<string | undefined> {
  const segments = rel.split('/')
  if (segments.some((s) => s.toLowerCase() === '.git')) return 'is inside a .git directory'
  if (segments[0]?.toLowerCase() === STATE_DIR) return `is inside ${STATE_DIR}`
  let dir = ctx.layout.root
  for (const segment of segments.slice(0, -1)) {
    dir = path.join(dir, segment)
    let found = seen.get(dir)
    if (found === undefined) {
      try {
        found = { kind: (await ctx.fs.lstat(dir)).kind }
      } catch (error) {
        found = { errno: errnoOf(error) ?? String(error) }
      }
      seen.set(dir, found)
    }
    if ('errno' in found) {
      if (found.errno === 'ENOENT') break // created by the write, as a real directory
      return `cannot be checked (${found.errno} on ${path.relative(ctx.layout.root, dir)})`
    }
    const kind = found.kind
    const own = stepPaths.has(path.relative(ctx.layout.root, dir).split(path.sep).join('/'))
    if (own && (kind === 'file' || kind === 'symlink')) break
    if (kind !== 'dir')
      return `goes through ${path.relative(ctx.layout.root, dir)}, which is a ${kind}, not a real directory`
  }
  if (ctx.checkPath !== undefined) {
    try {
      await ctx.checkPath(rel)
    } catch (error) {
      if (error instanceof EditError)
        return `is refused by the sandbox (${error.code}: ${error.message})`
      if (errnoOf(error) !== undefined) return `cannot be checked (${errnoOf(error) ?? ''})`
      throw error
    }
  }
  return undefined
}

/** The transaction directory as the user sees it: `.patchloom/journal/<name>`. */
export function relDir(layout: Layout, dir: string): string {
  return path.relative(layout.root, dir).split(path.sep).join('/')
}

/** How to get rid of a transaction that is never acted on. */
export function clearHint(where: string): string {
  return `Nothing was written. If it is not a change of yours, delete ${where}; files it names were not touched.`
}
