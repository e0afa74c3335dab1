// The engine's default settings as plain values: limits, deny globs, the inline routing threshold,
// the format names and the journal's retention. A leaf, so every layer (replay, the CLI, the
// server) reads the same defaults without importing the engine; src/engine/config.ts validates
// options against them.
import type { FormatOption } from './types.js'

// .patchloom/ holds the staging journal: a patch that rewrote it could forge recovery.
export const DEFAULT_DENY_GLOBS: readonly string[] = [
  '.git',
  '.git/**',
  '**/.git',
  '**/.git/**',
  '.patchloom',
  '.patchloom/**',
]

/** Why these values: see the JSDoc of LimitOptions in engine/api.ts. */
export const DEFAULT_LIMITS: {
  readonly maxPatchBytes: number
  readonly maxFileBytes: number
  readonly maxFiles: number
} = {
  maxPatchBytes: 256 * 1024 * 1024,
  maxFileBytes: 64 * 1024 * 1024,
  maxFiles: 100_000,
}

// The routing threshold measured by bench/large.bench.ts; engine/route.ts says how it is used.
/**
 * Requests whose patch is shorter than this (a quarter of it without rendered diffs) stay inline,
 * however many files they name. On 2 cores the pool won from about 100 files (0.26 MiB of
 * patch) in bench/RESULTS.md's large.bench rows; between 32 and 300 files the two routes are
 * within noise of each other.
 */
export const DEFAULT_INLINE_MAX_BYTES = 256 * 1024

export const FORMAT_OPTIONS: readonly FormatOption[] = [
  'auto',
  'codex',
  'unified',
  'search-replace',
  'edits',
]

/** Why these values: see the JSDoc of JournalOptions in engine/api.ts. */
export const DEFAULT_JOURNAL: { readonly keep: number; readonly lockTimeoutMs: number } = {
  keep: 20,
  lockTimeoutMs: 30_000,
}
