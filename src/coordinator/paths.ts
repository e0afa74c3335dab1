// Resolves the paths a plan names to real paths inside the workspace root, following symlinks,
// and refuses anything that leaves the root (PATH_OUTSIDE_ROOT), names the root itself or is
// malformed (PATH_INVALID), or matches a deny glob (PATH_DENIED). Reads the filesystem (lstat,
// realpath, readlink) but never writes.
import { lstat, readlink, realpath } from 'node:fs/promises'
import path from 'node:path'
import { EditError } from '../errors.js'

export interface ResolvedPath {
  /** The path as the patch wrote it. */
  readonly input: string
  /** Workspace-relative, '/'-separated, lexically normalised: what results and errors show. */
  readonly rel: string
  /** Absolute real path (symlinks in the existing part resolved). */
  readonly abs: string
}

export interface PathContext {
  /** The root as given (used to relativise absolute input paths). */
  readonly root: string
  /** realpath of the root. */
  readonly rootReal: string
  readonly isDenied: (relPath: string) => string | undefined
}

/** Symlink hops followed before giving up, as the kernel's own limit. */
const MAX_SYMLINK_HOPS = 40

export async function resolveWorkspacePath(
  ctx: PathContext,
  input: string,
  patchLine: number,
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
  const lexicalRel = lexicalRelative(ctx, input)
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
  const rel = lexicalRel.split(path.sep).join('/')
  const real = await realPathAllowingMissing(path.join(ctx.rootReal, lexicalRel), {
    path: rel,
    patchLine,
  })
  const realRel = path.relative(ctx.rootReal, real)
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
  const denied = ctx.isDenied(rel) ?? ctx.isDenied(realRel.split(path.sep).join('/'))
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
  return { input, rel, abs: real }
}

/** Relative path (platform separators) of `input` under the root, or null when it leaves it. */
function lexicalRelative(ctx: PathContext, input: string): string | null {
  let abs = path.resolve(ctx.rootReal, input)
  if (path.isAbsolute(input)) {
    // An absolute path may spell the root as given (possibly through a symlink) or as its realpath.
    const viaGiven = path.relative(path.resolve(ctx.root), path.resolve(input))
    if (isInside(viaGiven)) abs = path.join(ctx.rootReal, viaGiven)
  }
  const rel = path.relative(ctx.rootReal, abs)
  return isInside(rel) ? rel : null
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
): Promise<string> {
  let current = abs
  for (let hops = 0; hops <= MAX_SYMLINK_HOPS; hops++) {
    const missing: string[] = []
    let probe = current
    for (;;) {
      try {
        const resolved = await realpath(probe)
        return missing.length === 0 ? resolved : path.join(resolved, ...missing.reverse())
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ELOOP') {
          throw new EditError('PATH_INVALID', `${where.path} goes through a symlink loop.`, {
            ...where,
            cause: error,
          })
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
      const link = await lstat(probe).catch(() => null)
      if (link?.isSymbolicLink() === true) {
        // A dangling symlink: continue from its target, as a write through it would.
        const target = await readlink(probe)
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
