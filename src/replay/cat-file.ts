// `git cat-file --batch`, the way replay reads blobs: in bulk for a whole tree (readBlobs), or
// by one long-lived process on demand (createBlobReader). Every answer is checked: a blob whose
// bytes do not hash to its id, or an object that is not a blob, is REPLAY_OBJECT_CORRUPT.
import { EditError } from '../errors.js'
import { gitBlobId } from '../bytes/blob-id.js'
import { failure, gitFailed, latin1, startGitIn } from './git-command.js'

/** One long-lived `git cat-file --batch` process for blobs by id, on demand. */
export interface BlobReader {
  /** The blob's bytes, checked against its id; reads may overlap. */
  read(id: string): Promise<Uint8Array>
  /** Ends the process and waits for it; reads still pending are rejected. */
  close(): Promise<void>
}

const HEX_ID_RE = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/

/** One long-lived `git cat-file --batch` process for blobs by id, on demand. */
export function createBlobReader(repo: string): BlobReader {
  const git = startGitIn(repo, ['cat-file', '--batch'], true)
  const batch = new CatFileBatch()
  const pending: { id: string; resolve(bytes: Uint8Array): void; reject(error: unknown): void }[] =
    []
  let closed = false
  let broken: EditError | null = null
  const failAll = (error: EditError): void => {
    broken ??= error
    for (const p of pending.splice(0)) p.reject(broken)
  }
  const stdout = git.child.stdout
  stdout?.on('data', (chunk: Uint8Array) => {
    let answers: CatFileAnswer[]
    try {
      answers = batch.push(chunk)
    } catch (error) {
      failAll(gitFailed('git cat-file printed output patchloom cannot read.', error))
      git.stop()
      return
    }
    for (const answer of answers) {
      const p = pending.shift()
      if (p === undefined) continue
      try {
        p.resolve(checkedBlob(answer, p.id, undefined))
      } catch (error) {
        p.reject(error)
      }
    }
  })
  git.child.stdin?.on('error', () => undefined)
  void git.exit.then(() => {
    if (!closed || pending.length > 0) failAll(failure(git, 'cat-file', undefined, undefined))
  })
  return {
    read(id) {
      if (closed) return Promise.reject(new Error('blob-reader: cannot read after close()'))
      if (!HEX_ID_RE.test(id)) {
        return Promise.reject(
          new EditError('CONFIG_INVALID', `${JSON.stringify(id)} is not a full object id.`),
        )
      }
      if (broken !== null) return Promise.reject(broken)
      return new Promise<Uint8Array>((resolve, reject) => {
        pending.push({ id, resolve, reject })
        git.child.stdin?.write(`${id}\n`)
      })
    },
    async close() {
      if (closed) return
      closed = true
      git.child.stdin?.end()
      const timer = setTimeout(() => git.stop(), 5_000)
      await git.exit
      clearTimeout(timer)
    },
  }
}

/** Reads `ids` with one `git cat-file --batch --buffer`; `wanted` names the paths for errors. */
export async function readBlobs(
  repo: string,
  ids: readonly string[],
  wanted: readonly { path: string; id: string }[],
): Promise<Map<string, Uint8Array>> {
  const blobs = new Map<string, Uint8Array>()
  if (ids.length === 0) return blobs
  const pathOf = new Map<string, string>()
  for (const w of wanted) if (!pathOf.has(w.id)) pathOf.set(w.id, w.path)
  const git = startGitIn(repo, ['cat-file', '--batch', '--buffer'], true)
  git.child.stdin?.on('error', () => undefined)
  // Written in one go: git reads stdin while it writes stdout, and so do we, so neither blocks.
  git.child.stdin?.end(ids.join('\n') + '\n')
  const batch = new CatFileBatch()
  let next = 0
  try {
    for await (const chunk of git.child.stdout as AsyncIterable<Uint8Array>) {
      for (const answer of batch.push(chunk)) {
        const id = ids[next++]
        if (id === undefined) throw gitFailed('git cat-file answered more objects than asked for.')
        blobs.set(id, checkedBlob(answer, id, pathOf.get(id)))
      }
    }
  } catch (error) {
    git.stop()
    await git.exit
    if (error instanceof EditError) throw error
    throw failure(git, 'cat-file', error, undefined)
  }
  const exit = await git.exit
  if (!exit.ok) throw failure(git, 'cat-file', undefined, undefined)
  if (next !== ids.length)
    throw gitFailed(`git cat-file answered ${next} of ${ids.length} objects.`)
  return blobs
}

interface CatFileAnswer {
  /** The id git printed, or the requested name for a `missing` answer. */
  readonly id: string
  readonly type: string
  /** null when git said `missing` (or `ambiguous`). */
  readonly bytes: Uint8Array | null
}

/** Splits `git cat-file --batch` output (`<id> <type> <size>\n<bytes>\n` or `<name> missing\n`). */
class CatFileBatch {
  #parts: Uint8Array[] = []
  #size = 0
  /** The current answer's header once read; its body is then awaited. */
  #header: { id: string; type: string; size: number } | null = null

  push(chunk: Uint8Array): CatFileAnswer[] {
    const out: CatFileAnswer[] = []
    this.#parts.push(chunk)
    this.#size += chunk.length
    for (;;) {
      if (this.#header === null) {
        const buf = this.#flatten()
        const lf = buf.indexOf(0x0a)
        if (lf === -1) return out
        const fields = latin1(buf, 0, lf).split(' ')
        this.#take(lf + 1)
        const [id = '', type = '', size] = fields
        if (type === 'missing' || type === 'ambiguous') {
          out.push({ id, type, bytes: null })
          continue
        }
        if (size === undefined || !/^\d+$/.test(size)) {
          throw new Error(`cat-file: bad answer header ${JSON.stringify(fields.join(' '))}`)
        }
        this.#header = { id, type, size: Number(size) }
      }
      const header = this.#header
      if (this.#size < header.size + 1) return out
      const buf = this.#flatten()
      if (buf[header.size] !== 0x0a) throw new Error('cat-file: an object does not end with LF')
      // A copy of its own (not a Buffer view into a shared chunk), so it can be transferred.
      const bytes = new Uint8Array(header.size)
      bytes.set(buf.subarray(0, header.size))
      this.#take(header.size + 1)
      this.#header = null
      out.push({ id: header.id, type: header.type, bytes })
    }
  }

  /** The pending bytes as one array (joined only when they span chunks). */
  #flatten(): Uint8Array {
    if (this.#parts.length > 1) {
      const joined = new Uint8Array(this.#size)
      let at = 0
      for (const part of this.#parts) {
        joined.set(part, at)
        at += part.length
      }
      this.#parts = [joined]
    }
    return this.#parts[0] ?? new Uint8Array(0)
  }

  #take(count: number): void {
    const buf = this.#flatten()
    this.#parts = count < buf.length ? [buf.subarray(count)] : []
    this.#size -= count
  }
}

/** The answer's bytes if it is the blob `id` and they hash to it; else REPLAY_OBJECT_CORRUPT. */
function checkedBlob(answer: CatFileAnswer, id: string, path: string | undefined): Uint8Array {
  const where = path === undefined ? '' : ` (${path})`
  const details = path === undefined ? {} : { path }
  if (answer.bytes === null) {
    throw new EditError(
      'REPLAY_OBJECT_CORRUPT',
      `The object ${id}${where} is ${answer.type}.`,
      details,
    )
  }
  if (answer.type !== 'blob' || answer.id !== id) {
    throw new EditError(
      'REPLAY_OBJECT_CORRUPT',
      `The object ${id}${where} is a ${answer.type} (${answer.id}), not a blob.`,
      details,
    )
  }
  const actual = gitBlobId(answer.bytes)
  if (actual !== id) {
    throw new EditError(
      'REPLAY_OBJECT_CORRUPT',
      `The blob ${id}${where} is corrupt: its bytes hash to ${actual}.`,
      details,
    )
  }
  return answer.bytes
}
