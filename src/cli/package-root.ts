// Where patchloom's own package.json is: two levels up from this module in the source tree
// (src/cli/) and in the CLI bundle (dist/cli/main.cjs), three from tsc's output (dist/src/cli/).
// `--version` reads the version there; the demo replays the git history of that directory.
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/** The package's directory and its package.json, or null when this module is not inside it. */
export async function findPackageRoot(): Promise<{ dir: string; version: string } | null> {
  for (const rel of ['../../', '../../../']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url))
    try {
      const pkg: unknown = JSON.parse(await readFile(`${dir}package.json`, 'utf8'))
      if (typeof pkg === 'object' && pkg !== null && 'name' in pkg && pkg.name === 'patchloom') {
        return { dir, version: 'version' in pkg ? String(pkg.version) : 'unknown' }
      }
    } catch {
      // Not at this level; try the next.
    }
  }
  return null
}
