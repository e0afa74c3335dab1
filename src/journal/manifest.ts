// The manifest of one transaction: every step with its before and after state, written (and
// fsynced) before any target is touched. Recovery and undo trust nothing else, so a manifest is
// validated strictly on reading: a path that could leave the workspace makes it corrupt. Since
// version 2 it carries a MAC (trust.ts) over its canonical bytes: JSON.stringify of everything
// but the MAC, in the order written, which JSON.parse preserves, so the reader recomputes the
// exact bytes the writer signed. Version 1 manifests (unsigned) are never acted on (D-021).
import { SYMLINK_PERMISSIONS } from './symlink.js'
import type { JournalTrust } from './trust.js'
import type { FileState, TransactionSummary } from './records.js'

// A state's `kind: 'symlink'` is part of the signed content and validated like the rest; it needs
// no version of its own: version 2 was never released without it, and a reader that ignored it
// would find a link where it expects a file and report a conflict, never follow it. Version 3
// changes only where a transaction keeps its files (layout.ts, D-122); version 2 transactions are
// read as before.
export const MANIFEST_VERSION = 3
/** Signed manifests of transactions that keep their files in new/ and old/ (layout.ts). */
export const SUBDIR_MANIFEST_VERSION = 2
/** Manifests written before transactions were signed. */
export const LEGACY_MANIFEST_VERSION = 1
/** The reason decodeManifest gives for a version 1 manifest. */
export const LEGACY_REASON = 'it was written by a patchloom before transactions were signed'

export interface ManifestStep {
  readonly kind: 'write' | 'remove'
  /** Relative to the workspace root, '/'-separated. */
  readonly path: string
  readonly before: FileState | null
  /** null for a remove. */
  readonly after: FileState | null
  /** Directories (relative) this step creates for a new file, outermost first. */
  readonly createdDirs: readonly string[]
}

export interface Manifest {
  readonly version: typeof MANIFEST_VERSION | typeof SUBDIR_MANIFEST_VERSION
  readonly id: string
  readonly createdAt: string
  readonly durability: 'full' | 'fast'
  readonly summary: TransactionSummary
  readonly steps: readonly ManifestStep[]
}

export interface SignedManifest extends Manifest {
  /** HMAC-SHA256 (hex) of canonicalManifest(manifest), see trust.ts. */
  readonly mac: string
}

export function encodeManifest(manifest: Manifest | SignedManifest): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(manifest, null, 1) + '\n')
}

/** The bytes a manifest's MAC covers: the manifest without its MAC, keys in their order. */
export function canonicalManifest(manifest: Manifest | SignedManifest): Uint8Array {
  const { mac: _mac, ...rest } = manifest as SignedManifest
  return new TextEncoder().encode(JSON.stringify(rest))
}

export async function signManifest(
  trust: JournalTrust,
  manifest: Manifest,
): Promise<SignedManifest> {
  return { ...manifest, mac: await trust.sign(canonicalManifest(manifest)) }
}

/**
 * The signed manifest's file bytes, serialised once: the canonical JSON with the MAC as its
 * last key, which is what JSON.parse gives back and canonicalManifest strips again. Stringifying
 * a 10,000-step manifest a second time (to pretty-print it) would cost more than its write.
 */
export async function encodeSignedManifest(
  trust: JournalTrust,
  manifest: Manifest,
): Promise<Uint8Array> {
  const canonical = JSON.stringify(manifest)
  const mac = await trust.sign(new TextEncoder().encode(canonical))
  return new TextEncoder().encode(`${canonical.slice(0, -1)},"mac":${JSON.stringify(mac)}}\n`)
}

/** Whether `manifest` carries this user's MAC for this workspace. */
export async function isSignedBy(trust: JournalTrust, manifest: Manifest): Promise<boolean> {
  const mac = (manifest as Partial<SignedManifest>).mac
  return typeof mac === 'string' && (await trust.verify(canonicalManifest(manifest), mac))
}

/** Parses and validates a manifest; returns a reason string when it cannot be trusted. */
export function decodeManifest(bytes: Uint8Array): Manifest | string {
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`
  }
  if (!isRecord(value)) return 'not a JSON object'
  if (value['version'] === LEGACY_MANIFEST_VERSION) return LEGACY_REASON
  if (value['version'] !== MANIFEST_VERSION && value['version'] !== SUBDIR_MANIFEST_VERSION)
    return `unknown version ${String(value['version'])}`
  const { id, createdAt, durability, summary, steps } = value
  if (typeof id !== 'string' || !isTransactionId(id)) return 'bad id'
  if (typeof createdAt !== 'string') return 'bad createdAt'
  if (durability !== 'full' && durability !== 'fast') return 'bad durability'
  if (!isRecord(summary) || (summary['kind'] !== 'apply' && summary['kind'] !== 'undo'))
    return 'bad summary'
  if (!Array.isArray(summary['files'])) return 'bad summary files'
  if (!Array.isArray(steps)) return 'bad steps'
  for (const [i, step] of steps.entries()) {
    const problem = stepProblem(step)
    if (problem !== undefined) return `step ${i}: ${problem}`
  }
  return value as unknown as Manifest
}

function stepProblem(step: unknown): string | undefined {
  if (!isRecord(step)) return 'not an object'
  const { kind, path, before, after, createdDirs } = step
  if (kind !== 'write' && kind !== 'remove') return 'bad kind'
  if (typeof path !== 'string' || !isSafeRelative(path)) return `unsafe path ${String(path)}`
  if (before !== null && !isState(before)) return 'bad before state'
  if (kind === 'write' ? !isState(after) : after !== null || before === null)
    return 'bad after state'
  if (
    !Array.isArray(createdDirs) ||
    !createdDirs.every((d) => typeof d === 'string' && isSafeRelative(d))
  )
    return 'bad createdDirs'
  return undefined
}

function isState(value: unknown): value is FileState {
  if (!isRecord(value) || typeof value['hash'] !== 'string') return false
  const { kind, permissions } = value
  // A link is recorded with exactly SYMLINK_PERMISSIONS: it has no bits of its own, so any
  // other value is not one this engine wrote. Absent kind is a regular file; nothing else exists.
  if (kind === 'symlink') return permissions === SYMLINK_PERMISSIONS
  return (
    kind === undefined &&
    Number.isInteger(permissions) &&
    (permissions as number) >= 0 &&
    (permissions as number) <= 0o7777
  )
}

/** A non-empty relative path with no '.', '..' or empty segment and no NUL or backslash. */
export function isSafeRelative(p: string): boolean {
  if (p === '' || p.startsWith('/') || p.includes('\0') || p.includes('\\')) return false
  return p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..')
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const ID_PATTERN = /^\d{8}T\d{9}Z-[0-9a-z]{6}$/

/** Transaction ids sort by creation time: 20261130T143109123Z-k3x9q2. */
export function isTransactionId(id: string): boolean {
  return ID_PATTERN.test(id)
}

/** The creation time (ms since the epoch) an id carries. */
export function transactionTime(id: string): number {
  const iso = id.replace(
    /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)(\d{3})Z-.*$/,
    '$1-$2-$3T$4:$5:$6.$7Z',
  )
  return Date.parse(iso)
}

export function newTransactionId(now: Date, random: () => number = Math.random): string {
  const stamp = now.toISOString().replace(/[-:.]/g, '') // 20261130T143109123Z
  let suffix = ''
  for (let i = 0; i < 6; i++)
    suffix += '0123456789abcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 36)]
  return `${stamp}-${suffix}`
}
