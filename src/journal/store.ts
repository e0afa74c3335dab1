// The journal read back from disk: the transaction directories it holds (by id and status) and a
// transaction's manifest, decoded and checked against its directory. Reading only; whether a
// transaction may be acted on is vet.ts, which recovery and undo call first.
import path from 'node:path'
import { EditError } from '../errors.js'
import { codeForErrno, reasonOf } from './fs-errors.js'
import { errnoOf, type JournalFs } from './fs.js'
import { MANIFEST, parseEntry, STATE_DIR, type Layout } from './layout.js'
import { decodeManifest, LEGACY_REASON, type Manifest } from './manifest.js'

export async function listEntries(
  fs: JournalFs,
  layout: Layout,
): Promise<{ id: string; status: 'committed' | 'pending' | 'conflict' }[]> {
  let names: string[]
  try {
    names = await fs.readdir(layout.journalDir)
  } catch (error) {
    // No journal, or something else in its place (a commit refuses to use it: JOURNAL_CORRUPT).
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') return []
    throw new EditError(
      codeForErrno(error),
      `Cannot read ${STATE_DIR}/journal (${reasonOf(error)}); nothing was changed.`,
      { cause: error },
    )
  }
  return names.flatMap((name) => {
    const entry = parseEntry(name)
    return entry === undefined ? [] : [entry]
  })
}

export async function readManifest(fs: JournalFs, dir: string, id: string): Promise<Manifest> {
  let bytes: Uint8Array
  try {
    // Only a regular file is read: a FIFO planted as the manifest would block the read forever.
    const st = await fs.lstat(path.join(dir, MANIFEST))
    if (st.kind !== 'file') throw new Error(`it is a ${st.kind}`)
    bytes = await fs.readFile(path.join(dir, MANIFEST))
  } catch (error) {
    throw new EditError(
      'JOURNAL_CORRUPT',
      `Transaction ${id} has no readable manifest (${errnoOf(error) ?? (error as Error).message}).`,
      { cause: error },
    )
  }
  const manifest = decodeManifest(bytes)
  if (manifest === LEGACY_REASON)
    throw new EditError(
      'JOURNAL_UNTRUSTED',
      `Transaction ${id} was not acted on: ${LEGACY_REASON}.`,
    )
  if (typeof manifest === 'string' || manifest.id !== id) {
    throw new EditError(
      'JOURNAL_CORRUPT',
      `Transaction ${id} has an invalid manifest: ${typeof manifest === 'string' ? manifest : 'its id does not match its directory'}.`,
    )
  }
  return manifest
}
