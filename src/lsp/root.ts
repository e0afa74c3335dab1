// Nearest-marker project root: the pool keys one server per (adapter, root), so two files under
// the same tsconfig.json share a server while a nested package gets its own. The search never
// climbs above the workspace root, so a stray marker in a parent folder (a package.json in the
// home directory) cannot widen a server's scope past what the engine may touch.
import { existsSync } from 'node:fs'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'

/**
 * The nearest directory containing `file` (not above `workspaceRoot`) that holds any of
 * `markers` (files or directories); `workspaceRoot` itself when none does or when `file` lies
 * outside it. Returns an absolute path.
 * @example findProjectRoot('/ws/pkg/src/a.ts', ['tsconfig.json'], '/ws') // '/ws/pkg'
 */
export function findProjectRoot(
  file: string,
  markers: readonly string[],
  workspaceRoot: string,
): string {
  const root = resolve(workspaceRoot)
  const start = dirname(resolve(root, file))
  if (!isInside(start, root)) return root
  for (let dir = start; ; dir = dirname(dir)) {
    if (markers.some((marker) => existsSync(resolve(dir, marker)))) return dir
    if (dir === root || dirname(dir) === dir) return root
  }
}

function isInside(dir: string, root: string): boolean {
  const rel = relative(root, dir)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}
