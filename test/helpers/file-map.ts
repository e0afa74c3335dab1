// A workspace as a plain map from '/'-separated path to file text, for tests that state trees
// inline: writeFileMap() lays one out under a root, readFileMap() reads a root back (every
// file's bytes as UTF-8 text, every directory that holds no file as `path/`), so an expected map
// compares with toEqual and a leftover empty directory shows up as a difference.
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { snapshot } from './tree.js'

export type FileMap = Readonly<Record<string, string>>

/** Writes each file of `files` under `root`, creating directories as needed. */
export async function writeFileMap(root: string, files: FileMap): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    const at = join(root, path)
    await mkdir(dirname(at), { recursive: true })
    await writeFile(at, text)
  }
}

/**
 * Every file under `root` (its `.patchloom/` left out) as UTF-8 text, plus `dir/` for each
 * directory with nothing in it. Throws on a symlink or a file that is not valid UTF-8, which no
 * FileMap can state.
 */
export async function readFileMap(root: string): Promise<Record<string, string>> {
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
  const entries = await snapshot(root)
  const files: Record<string, string> = {}
  for (const entry of entries) {
    if (entry.kind === 'symlink') throw new Error(`readFileMap: ${entry.path} is a symlink`)
    if (entry.kind === 'file') {
      files[entry.path] = utf8.decode(Buffer.from(entry.bytes ?? '', 'base64'))
    } else if (!entries.some((other) => other.path.startsWith(`${entry.path}/`))) {
      files[`${entry.path}/`] = ''
    }
  }
  return files
}
