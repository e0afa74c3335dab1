// Resolves the paths a plan names to real paths inside the workspace root, following symlinks, and
// refuses anything that leaves the root (PATH_OUTSIDE_ROOT), names the root itself, is malformed or
// too long for the filesystem (PATH_INVALID), or matches a deny glob (PATH_DENIED). Reads the
// filesystem (lstat, realpath, readlink) but never writes. An op that acts on a link itself
// resolves with `followLast: false` (the last component is not followed), and every path records
// the first symlinked directory it goes through, so prepare.ts can refuse adds, deletes and moves
// "beyond a symbolic link" as git does.
import path from 'node:path'
import { EditError } from '../errors.js'
import { asyncReadFs, type ReadFs } from './read-fs.js'

export interface ResolvedPath {
  /** The path as the patch wrote it. */
  readonly input: string
  /** Workspace-relative, '/'-separated, lexically normalised: what results and errors show. */
  readonly rel: string
  /**
   * Absolute real path (symlinks in the existing part resolved; with `followLast: false`, all but
   * the last component).
   */
  readonly abs: string
  /**
   * The first directory on the way (workspace-relative, as written) that is a symlink, when
   * there is one: the path reaches its file through a symlinked directory.
   */
  readonly beyondSymlink?: string
  /**
   * The ancestor (workspace-relative) that the plan removes, when the path lies below a file or
   * symlink the same patch deletes or renames away (git's type change, src/engine/
   * sequence.ts): the path is then resolved through that name literally, as the directory the
   * commit will create there, and nothing on disk below it is read.
   */
  readonly belowRemoved?: string
}

export interface ResolveOptions {
  /**
   * Follow a symlink in the last component (true: the op acts on what it points to, as an edit
   * does). false: the link itself is the file (delete, move, git symlink patches).
   * @default true
   */
  readonly followLast?: boolean
  /** The filesystem calls to make (a verification worker passes the synchronous ones). */
  readonly fs?: ReadFs
  /**
   * The nearest strict ancestor of a workspace-relative path that the plan removes (a deletion
   * or a rename's source), or undefined; see ResolvedPath.belowRemoved.
   */
  readonly removedAncestor?: (rel: string) => string | undefined
}

export interface PathContext {
  /** The root as given (used to relativise absolute input paths). */
  readonly root: string
  /** realpath of the root. */
  readonly rootReal: string
  readonly isDenied: (relPath: string) => string | undefined
  /**
   * True when the root's filesystem treats names that differ only in case as one file (see
   * case-fold.ts detectCaseInsensitive); prepare.ts then folds case when it looks for duplicates.
   * @default false
   */
  readonly caseInsensitive?: boolean
}

/** Symlink hops followed before giving up, as the kernel's own limit. */
const MAX_SYMLINK_HOPS = 40
/** Longest name component in bytes (Linux NAME_MAX; macOS and Windows allow 255 characters). */
export const NAME_MAX_BYTES = 255
/** Longest absolute path in bytes, terminating NUL excluded (Linux PATH_MAX is 4096 with it). */
export const PATH_MAX_BYTES = 4095

export async function resolveWorkspacePath(
  ctx: PathContext,
  input: string,
  patchLine: number,
  options: ResolveOptions = {},
): Promise<ResolvedPath> {
  const where = { path: input, patchLine }
  if (input.trim() === '' || input.includes('\0')) {
    throw new EditError(
      'PATH_INVALID',
      `Invalid path ${JSON.stringify(input)}: empty or contains a NUL byte.`,
      where,
    )
  }
  if (/[/\\]$/.test(input.trim())) {
    // path.resolve would drop the slash and quietly target the file `a.txt` for `a.txt/`.
    throw new EditError(
      'PATH_INVALID',
      `${input} ends with a slash: it names a directory, not a file.`,
      where,
    )
  }
  // PERF: a plain relative path (names joined by '/') is its own lexical form under the root,
  // with no path.resolve, relative and join to allocate for it (a third of a worker's garbage per
  // file was path strings).
  const plain = isPlainRelative(input)
  const lexicalRel = plain ? input : lexicalRelative(ctx, input)
  if (lexicalRel === null) {
    throw new EditError('PATH_OUTSIDE_ROOT', `${input} is outside the workspace root.`, where)
  }
  if (lexicalRel === '') {
    throw new EditError(
      'PATH_INVALID',
      `${input} names the workspace root itself, not a file.`,
      where,
    )
  }
  const rel = plain ? input : lexicalRel.split(path.sep).join('/')
  const lexicalAbs = plain ? joinPlain(ctx.rootReal, input) : path.join(ctx.rootReal, lexicalRel)
  // Refused here, by length alone, so no syscall ever fails with a bare ENAMETOOLONG.
  checkLength(lexicalAbs, rel, where)
  const removed = options.removedAncestor?.(rel)
  if (removed !== undefined)
    return resolveBelowRemoved(ctx, input, rel, removed, patchLine, options)
  const fs = options.fs ?? asyncReadFs
  const real =
    options.followLast === false
      ? path.join(
          await realPathAllowingMissing(path.dirname(lexicalAbs), { path: rel, patchLine }, fs),
          path.basename(lexicalAbs),
        )
      : await realPathAllowingMissing(lexicalAbs, { path: rel, patchLine }, fs)
  const realRel = relativeTo(ctx.rootReal, real)
  if (
    realRel === '' ||
    realRel === '..' ||
    realRel.startsWith('..' + path.sep) ||
    path.isAbsolute(realRel)
  ) {
    throw new EditError(
      'PATH_OUTSIDE_ROOT',
      `${rel} resolves through a symlink to ${real}, outside the workspace root.`,
      {
        path: rel,
        patchLine,
      },
    )
  }
  const denied =
    ctx.isDenied(rel) ??
    (realRel === lexicalRel ? undefined : ctx.isDenied(realRel.split(path.sep).join('/')))
  if (denied !== undefined) {
    throw new EditError(
      'PATH_DENIED',
      `${rel} is protected by the deny rule ${JSON.stringify(denied)}.`,
      {
        path: rel,
        patchLine,
      },
    )
  }
  // Resolved to itself, the path went through no symlink at all: no lstat walk needed.
  const beyondSymlink = real === lexicalAbs ? undefined : await symlinkedDirectoryOf(ctx, rel, fs)
  return { input, rel, abs: real, ...(beyondSymlink === undefined ? {} : { beyondSymlink }) }
}

/**
 * A path below an ancestor the plan removes: the ancestor resolves as the link or file itself
 * (its own parents followed), and the rest is appended as written, since the commit creates it
 * as new directories. Deny rules apply to the path as written and as resolved.
 */
async function resolveBelowRemoved(
  ctx: PathContext,
  input: string,
  rel: string,
  removed: string,
  patchLine: number,
  options: ResolveOptions,
): Promise<ResolvedPath> {
  const { removedAncestor: _removedAncestor, ...rest } = options
  const base = await resolveWorkspacePath(ctx, removed, patchLine, { ...rest, followLast: false })
  const abs = path.join(base.abs, ...rel.slice(removed.length + 1).split('/'))
  const realRel = relativeTo(ctx.rootReal, abs).split(path.sep).join('/')
  const denied = ctx.isDenied(rel) ?? (realRel === rel ? undefined : ctx.isDenied(realRel))
  if (denied !== undefined) {
    throw new EditError(
      'PATH_DENIED',
      `${rel} is protected by the deny rule ${JSON.stringify(denied)}.`,
      { path: rel, patchLine },
    )
  }
  return {
    input,
    rel,
    abs,
    belowRemoved: removed,
    ...(base.beyondSymlink === undefined ? {} : { beyondSymlink: base.beyondSymlink }),
  }
}

/**
 * The first directory of `rel` (workspace-relative, '/'-separated), outermost first, that is a
 * symlink, or undefined when none is (a missing directory ends the walk: nothing below it exists).
 * The last component is not looked at: that is the file itself.
 */
export async function symlinkedDirectoryOf(
  ctx: Pick<PathContext, 'rootReal'>,
  rel: string,
  fs: ReadFs = asyncReadFs,
): Promise<string | undefined> {
  const parts = rel.split('/').slice(0, -1)
  for (let i = 1; i <= parts.length; i++) {
    const dir = parts.slice(0, i).join('/')
    let st
    try {
      st = await fs.lstat(path.join(ctx.rootReal, ...dir.split('/')))
    } catch {
      return undefined
    }
    if (st.isSymbolicLink()) return dir
  }
  return undefined
}

/**
 * Names joined by '/' with none of them empty, '.' or '..' and no backslash or NUL: a path that
 * path.resolve would leave as written. Only on POSIX, where '/' is the only separator.
 */
function isPlainRelative(input: string): boolean {
  return path.sep === '/' && PLAIN_NAMES.test(input) && !DOT_NAME.test(input)
}

const PLAIN_NAMES = /^[^/\\\0]+(?:\/[^/\\\0]+)*$/
const DOT_NAME = /(?:^|\/)\.\.?(?:\/|$)/

/** path.join(rootReal, rel) for a plain relative `rel` under a normalised absolute root. */
function joinPlain(rootReal: string, rel: string): string {
  return rootReal.endsWith('/') ? rootReal + rel : `${rootReal}/${rel}`
}

/** UTF-8 is at most 3 bytes per UTF-16 unit (a surrogate pair, 2 units, is 4 bytes). */
const MAX_UTF8_PER_UNIT = 3

function checkLength(abs: string, rel: string, where: { path: string; patchLine: number }): void {
  // PERF: a path this short cannot be too long in any encoding; most are never counted.
  if (abs.length * MAX_UTF8_PER_UNIT <= NAME_MAX_BYTES) return
  for (const name of rel.split('/')) {
    if (name.length * MAX_UTF8_PER_UNIT <= NAME_MAX_BYTES) continue
    // Buffer.byteLength counts as TextEncoder encodes (a lone surrogate as 3 bytes), without
    // encoding.
    const bytes = Buffer.byteLength(name, 'utf8')
    if (bytes > NAME_MAX_BYTES) {
      throw new EditError(
        'PATH_INVALID',
        `${shorten(rel)} has a name of ${bytes} bytes (${shorten(name)}); filesystems allow at most ${NAME_MAX_BYTES}.`,
        where,
      )
    }
  }
  if (abs.length * MAX_UTF8_PER_UNIT <= PATH_MAX_BYTES) return
  const bytes = Buffer.byteLength(abs, 'utf8')
  if (bytes > PATH_MAX_BYTES) {
    throw new EditError(
      'PATH_INVALID',
      `${shorten(rel)} is ${bytes} bytes long inside the workspace; paths may be at most ${PATH_MAX_BYTES}.`,
      where,
    )
  }
}

/** A long path cut to fit a one-sentence message (the full path is still in the error's path). */
function shorten(text: string): string {
  return text.length <= 80 ? text : `${text.slice(0, 40)}…${text.slice(-30)}`
}

/**
 * Refuses a symlink the change would write (a new link, a moved one, a changed target) whose
 * target is not a usable path or resolves outside the workspace root: patchloom never
 * leaves a link leading out. `linkAbs` is where the link will stand; a relative target resolves
 * from its directory, verbatim, as the kernel will resolve it.
 */
export async function checkSymlinkTarget(
  ctx: Pick<PathContext, 'rootReal'>,
  linkAbs: string,
  target: Uint8Array,
  where: { path: string; patchLine: number },
): Promise<void> {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(target)
  } catch {
    text = ''
  }
  if (text === '' || text.includes('\0')) {
    throw new EditError(
      'PATH_INVALID',
      `${where.path} would be a symlink with an empty, NUL-containing or non-UTF-8 target.`,
      where,
    )
  }
  const real = await realPathAllowingMissing(path.resolve(path.dirname(linkAbs), text), where)
  if (!isInside(path.relative(ctx.rootReal, real))) {
    throw new EditError(
      'PATH_OUTSIDE_ROOT',
      `${where.path} would be a symlink to ${text}, which resolves to ${real}, outside the workspace root.`,
      where,
    )
  }
}

/** Relative path (platform separators) of `input` under the root, or null when it leaves it. */
function lexicalRelative(ctx: PathContext, input: string): string | null {
  let abs = path.resolve(ctx.rootReal, input)
  if (path.isAbsolute(input)) {
    // An absolute path may spell the root as given (possibly through a symlink) or as its realpath.
    const viaGiven = path.relative(path.resolve(ctx.root), path.resolve(input))
    if (isInside(viaGiven)) abs = path.join(ctx.rootReal, viaGiven)
  }
  const rel = relativeTo(ctx.rootReal, abs)
  return isInside(rel) ? rel : null
}

/**
 * path.relative(from, to) for absolute, normalised paths (realpath's and path.resolve's). PERF:
 * a path below `from` is its tail, without path.relative's two resolves and segment walk,
 * which were a tenth of a small edit's path resolution.
 */
function relativeTo(from: string, to: string): string {
  const prefix = from.endsWith(path.sep) ? from : from + path.sep
  if (path.sep === '/' && to.startsWith(prefix) && to.length > prefix.length)
    return to.slice(prefix.length)
  return path.relative(from, to)
}

function isInside(rel: string): boolean {
  return !(rel === '..' || rel.startsWith('..' + path.sep) || path.isAbsolute(rel))
}

/**
 * realpath() for a path whose tail may not exist yet: resolves the deepest existing ancestor,
 * follows dangling symlinks by hand, and appends the missing rest.
 */
async function realPathAllowingMissing(
  abs: string,
  where: { path: string; patchLine: number },
  fs: ReadFs = asyncReadFs,
): Promise<string> {
  let current = abs
  for (let hops = 0; hops <= MAX_SYMLINK_HOPS; hops++) {
    const missing: string[] = []
    let probe = current
    for (;;) {
      try {
        const resolved = await fs.realpath(probe)
        return missing.length === 0 ? resolved : path.join(resolved, ...missing.reverse())
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ELOOP') {
          throw new EditError('PATH_INVALID', `${where.path} goes through a symlink loop.`, {
            ...where,
            cause: error,
          })
        }
        if (code === 'ENAMETOOLONG') {
          // checkLength refuses what is long as written; a symlink can still expand past it.
          throw new EditError(
            'PATH_INVALID',
            `${where.path} resolves through symlinks to a path the filesystem finds too long.`,
            { ...where, cause: error },
          )
        }
        if (code === 'ENOTDIR') {
          throw new EditError(
            'PATH_INVALID',
            `${where.path}: a parent of this path is a file, not a directory.`,
            {
              ...where,
              cause: error,
            },
          )
        }
        if (code !== 'ENOENT') throw error
      }
      let link
      try {
        link = await fs.lstat(probe)
      } catch {
        link = null
      }
      if (link?.isSymbolicLink() === true) {
        // A dangling symlink: continue from its target, as a write through it would.
        const target = await fs.readlink(probe)
        current = path.join(path.resolve(path.dirname(probe), target), ...missing.slice().reverse())
        break
      }
      const parent = path.dirname(probe)
      if (parent === probe) return abs
      missing.push(path.basename(probe))
      probe = parent
    }
  }
  throw new EditError(
    'PATH_INVALID',
    `${where.path} goes through more than ${MAX_SYMLINK_HOPS} symlinks.`,
    where,
  )
}
