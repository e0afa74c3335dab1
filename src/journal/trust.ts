// Which transactions this workspace's engine wrote: a `.patchloom/` directory can arrive
// with a clone, so nothing in it is trusted for what it is. Every manifest carries an HMAC-SHA256
// over its content and the workspace's real root, keyed by a per-user secret kept outside any
// workspace (the user's state directory, see stateDirFor). A checkout cannot supply that key, so
// it cannot forge a transaction; one copied from another workspace or user fails too. The key is
// read on demand and created only when a transaction is written (dry runs create nothing), and
// created durably (createKey). A batch shares one KeyRing across its workspaces: the key and the
// real places checked against each root are read once per process. vet.ts judges transactions.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { constants } from 'node:fs'
import * as fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { EditError } from '../errors.js'
import { errnoOf, nodeJournalFs, type JournalFs } from './fs.js'

/** Environment variable that moves the key (tests, CI, several users on one home). */
export const STATE_DIR_ENV = 'PATCHLOOM_STATE_DIR'
const KEY_FILE = 'journal-key'
const KEY_BYTES = 32
/** Bound into every MAC so a MAC made for something else can never pass as a manifest's. */
const DOMAIN = 'patchloom journal manifest v2\n'

/** Signs manifests and checks their signatures for one workspace. */
export interface JournalTrust {
  /** The MAC of a manifest's canonical bytes; creates the key on first use. */
  sign(canonical: Uint8Array): Promise<string>
  /** Whether `mac` is this user's MAC for these bytes in this workspace. Never creates a key. */
  verify(canonical: Uint8Array, mac: string): Promise<boolean>
}

/**
 * Where the per-user key lives: $PATCHLOOM_STATE_DIR, else $XDG_STATE_HOME/patchloom, else
 * ~/.local/state/patchloom (%LOCALAPPDATA%\patchloom on Windows).
 */
export function stateDirFor(env: NodeJS.ProcessEnv = process.env): string {
  // Only absolute: a relative one would resolve against the working directory, often the very
  // repository whose contents must not be able to supply the key.
  const explicit = env[STATE_DIR_ENV]
  if (explicit !== undefined && path.isAbsolute(explicit)) return explicit
  const xdg = env['XDG_STATE_HOME']
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, 'patchloom')
  if (process.platform === 'win32' && env['LOCALAPPDATA'] !== undefined)
    return path.join(env['LOCALAPPDATA'], 'patchloom')
  return path.join(os.homedir(), '.local', 'state', 'patchloom')
}

/**
 * Trust backed by the key file in `stateDir`, for the workspace whose real root is `rootReal`.
 * `fs` makes the key's creation durable (the workspace journal's own fs is not passed: the key is
 * outside the workspace). `ring` shares the key with other workspaces' trusts (a batch); a given
 * ring creates keys through its own fs.
 */
export function keyFileTrust(
  stateDir: string,
  rootReal: string,
  fs: JournalFs = nodeJournalFs,
  ring: KeyRing = keyRing(fs),
): JournalTrust {
  const source = ring.sourceFor(stateDir)
  return {
    sign: async (canonical) => {
      const key = await source.key(rootReal, true)
      if (key === null) throw new Error('trust: cannot sign without a key after creating one')
      return mac(key, rootReal, canonical)
    },
    verify: async (canonical, given) => {
      const k = await source.key(rootReal, false).catch(() => null)
      if (k === null || !/^[0-9a-f]{64}$/.test(given)) return false
      return timingSafeEqual(
        Buffer.from(mac(k, rootReal, canonical), 'hex'),
        Buffer.from(given, 'hex'),
      )
    },
  }
}

/** The key of each state directory, read (or created) once for every workspace that asks. */
export interface KeyRing {
  sourceFor(stateDir: string): KeySource
}

/** One state directory's key, checked to be outside each workspace that asks for it. */
interface KeySource {
  /** The key; created first when `create`, else null while there is none. */
  key(rootReal: string, create: boolean): Promise<Buffer | null>
}

/**
 * A ring whose sources cache what they read: the key once found, and the real paths of the home
 * and state directories once both resolved (a state directory that does not exist yet is
 * resolved again next time, so one created through a symlink is still seen where it landed).
 * Every root is still checked against them: a key inside the workspace that asks is refused.
 */
export function keyRing(fs: JournalFs = nodeJournalFs): KeyRing {
  const sources = new Map<string, KeySource>()
  return {
    sourceFor: (stateDir) => {
      let source = sources.get(stateDir)
      if (source === undefined) {
        source = cachingSource(stateDir, fs)
        sources.set(stateDir, source)
      }
      return source
    },
  }
}

function cachingSource(stateDir: string, fs: JournalFs): KeySource {
  let places: Promise<RealPlaces> | undefined
  let cached: Buffer | undefined
  return {
    key: async (rootReal, create) => {
      const pending = (places ??= realPlaces(stateDir))
      const where = await pending
      if (!where.settled && places === pending) places = undefined
      assertOutside(stateDir, rootReal, where)
      if (cached !== undefined) return cached
      const key = (await readKey(stateDir)) ?? (create ? await createKey(stateDir, fs) : null)
      if (key !== null) cached = key
      return key
    },
  }
}

/** Trust with a fixed key (tests). */
export function fixedKeyTrust(key: Uint8Array, rootReal: string): JournalTrust {
  const k = Buffer.from(key)
  return {
    sign: async (canonical) => mac(k, rootReal, canonical),
    verify: async (canonical, given) =>
      /^[0-9a-f]{64}$/.test(given) &&
      timingSafeEqual(Buffer.from(mac(k, rootReal, canonical), 'hex'), Buffer.from(given, 'hex')),
  }
}

/** The real paths assertOutside compares with a root; `settled` when both resolved. */
interface RealPlaces {
  readonly home: string
  readonly state: string
  readonly settled: boolean
}

async function realPlaces(stateDir: string): Promise<RealPlaces> {
  let settled = true
  const real = (p: string): Promise<string> =>
    fsp.realpath(p).catch(() => {
      settled = false
      return p
    })
  const home = await real(os.homedir())
  const state = await real(stateDir)
  return { home, state, settled }
}

/**
 * A key inside the workspace could have come with it: refused, lexically and after symlinks.
 * Except when the workspace holds the user's home directory (`--root ~`): a checkout is cloned
 * into a directory, it never contains the home it was cloned in.
 */
function assertOutside(stateDir: string, rootReal: string, places: RealPlaces): void {
  const inside = (dir: string): boolean => {
    const rel = path.relative(rootReal, dir)
    return rel === '' || !(rel === '..' || rel.startsWith('..' + path.sep) || path.isAbsolute(rel))
  }
  if (inside(places.home)) return
  if (inside(path.resolve(stateDir)) || inside(places.state))
    throw keyError(`${stateDir} is inside the workspace, where a checkout could supply the key`)
}

function mac(key: Buffer, rootReal: string, canonical: Uint8Array): string {
  return createHmac('sha256', key)
    .update(DOMAIN)
    .update(rootReal)
    .update('\0')
    .update(canonical)
    .digest('hex')
}

/** The key, or null when there is none yet. A key file others may read is refused. */
async function readKey(stateDir: string): Promise<Buffer | null> {
  const file = path.join(stateDir, KEY_FILE)
  let handle
  try {
    handle = await fsp.open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return null
    throw keyError(`cannot read ${file} (${errnoOf(error) ?? (error as Error).message})`, error)
  }
  try {
    const st = await handle.stat()
    const uid = process.getuid?.()
    if (!st.isFile() || (uid !== undefined && st.uid !== uid))
      throw keyError(`${file} is not a regular file owned by this user`)
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0)
      throw keyError(`${file} may be read by other users (mode ${(st.mode & 0o777).toString(8)})`)
    const text = (await handle.readFile('utf8')).trim()
    if (!/^[0-9a-f]{64}$/.test(text)) throw keyError(`${file} does not hold a key`)
    return Buffer.from(text, 'hex')
  } finally {
    await handle.close()
  }
}

// The key is durable before it signs anything: content fsynced before its name appears, the name
// and any state directory created for it fsynced before the first manifest is signed with it;
// else a power cut after a user's first commit could lose the key, and recovery would refuse the
// pending transaction it signed. The writes go through a JournalFs (tests count and fail them).
/**
 * Creates the key: written aside at 0600 and fsynced, then linked into place (never replacing
 * one: two processes agree on the first), the temp name dropped and the directory fsynced, and
 * so the parent of each state directory it had to create. Only then is the key used to sign.
 */
async function createKey(stateDir: string, fs: JournalFs): Promise<Buffer> {
  const file = path.join(stateDir, KEY_FILE)
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`
  try {
    const first = await fsp.mkdir(stateDir, { recursive: true, mode: 0o700 })
    const key = new TextEncoder().encode(randomBytes(KEY_BYTES).toString('hex') + '\n')
    await fs.writeNew(temp, key, 0o600, true)
    await fs.link(temp, file).catch((error: unknown) => {
      // Another process won the race: its key is used (it fsynced the content before linking).
      if (errnoOf(error) !== 'EEXIST') throw error
    })
    await fs.unlink(temp)
    // Also after losing the race: the winner may not have synced the name yet.
    await fs.syncDir(stateDir)
    // mkdir -p made `first` and everything below it: each new name is in its parent.
    if (first !== undefined) {
      const top = path.dirname(path.resolve(first))
      for (let d = path.resolve(stateDir); d !== top && d !== path.dirname(d); d = path.dirname(d))
        await fs.syncDir(path.dirname(d))
    }
  } catch (error) {
    await fsp.unlink(temp).catch(() => undefined)
    throw keyError(`cannot create ${file} (${errnoOf(error) ?? (error as Error).message})`, error)
  }
  const key = await readKey(stateDir)
  if (key === null) throw keyError(`${file} vanished after it was created`)
  return key
}

function keyError(reason: string, cause?: unknown): EditError {
  return new EditError(
    'JOURNAL_KEY_UNAVAILABLE',
    `The journal key that signs this user's transactions is unusable: ${reason}. Nothing was changed.`,
    cause === undefined ? {} : { cause },
  )
}
