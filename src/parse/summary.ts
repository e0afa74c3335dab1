// What a plan would do, per file, from the patch alone: the data behind `check --parse-only`,
// in the spirit of `git apply --numstat --summary`. Reads no files, so anything that depends on
// the workspace (whether an edit creates or updates, how many lines a str_replace touches, what
// a Codex delete removes) is reported as unknown (null) rather than guessed. Rendering is the
// CLI's job (src/cli/render.ts).
import type {
  EditPlan,
  FileMode,
  FileOp,
  HunkLine,
  PatchFormat,
  ResultOp,
  Warning,
} from '../types.js'

/** What a patch would do, from the patch alone: what the public parsePatch returns. */
export interface PatchSummary {
  /** The format parsed (the one detected, for 'auto'). */
  readonly format: PatchFormat
  /** One entry per file operation, in patch order. */
  readonly files: readonly PatchFileSummary[]
  /** What was done to the text before parsing (stop tokens cut from its end); absent: nothing. */
  readonly warnings?: readonly Warning[]
}

/** One file operation of a patch, as the patch states it (no workspace file is read). */
export interface PatchFileSummary {
  /** The file the operation produces or changes; for move and copy, the destination. */
  readonly path: string
  readonly op: ResultOp
  /** move and copy: the source path. */
  readonly from?: string
  /**
   * Lines added, or null when the patch alone does not say: JSON edits (the count depends on
   * the file's content) and binary patches.
   */
  readonly additions: number | null
  /**
   * Lines removed, or null when the patch alone does not say: JSON edits, binary patches, and
   * Codex `*** Delete File` (which does not list the removed lines).
   */
  readonly deletions: number | null
  readonly modeBefore?: FileMode
  readonly modeAfter?: FileMode
  /** The change is a GIT binary patch. */
  readonly binary?: true
}

/** Summarizes every operation of `plan`, in plan order. */
export function summarizePlan(plan: EditPlan): PatchFileSummary[] {
  return plan.ops.map(summarizeOp)
}

function summarizeOp(op: FileOp): PatchFileSummary {
  switch (op.kind) {
    case 'add': {
      const binary = op.binary !== undefined
      return {
        path: op.path,
        op: 'add',
        additions: binary ? null : countContentLines(op.content),
        deletions: binary ? null : 0,
        ...(op.modeAfter === undefined ? {} : { modeAfter: op.modeAfter }),
        ...(binary ? { binary: true as const } : {}),
      }
    }
    case 'delete': {
      const binary = op.binary !== undefined
      // Codex deletes carry no hunks: the removed line count lives only in the file.
      const stated = op.hunks.length > 0
      return {
        path: op.path,
        op: 'delete',
        additions: binary ? null : 0,
        deletions: binary || !stated ? null : countOps(op.hunks, '-'),
        ...(op.modeBefore === undefined ? {} : { modeBefore: op.modeBefore }),
        ...(binary ? { binary: true as const } : {}),
      }
    }
    case 'update': {
      const binary = op.binary !== undefined
      const moved = op.moveTo !== undefined
      return {
        path: op.moveTo ?? op.path,
        op: moved ? 'move' : 'update',
        ...(moved ? { from: op.path } : {}),
        additions: binary ? null : countOps(op.hunks, '+'),
        deletions: binary ? null : countOps(op.hunks, '-'),
        ...(op.modeBefore === undefined ? {} : { modeBefore: op.modeBefore }),
        ...(op.modeAfter === undefined ? {} : { modeAfter: op.modeAfter }),
        ...(binary ? { binary: true as const } : {}),
      }
    }
    case 'copy': {
      const binary = op.binary !== undefined
      return {
        path: op.path,
        op: 'copy',
        from: op.from,
        additions: binary ? null : countOps(op.hunks, '+'),
        deletions: binary ? null : countOps(op.hunks, '-'),
        ...(op.modeAfter === undefined ? {} : { modeAfter: op.modeAfter }),
        ...(binary ? { binary: true as const } : {}),
      }
    }
    case 'edits':
      // Whether a `write` creates the file, and what a str_replace spans, needs the file.
      return { path: op.path, op: 'update', additions: null, deletions: null }
  }
}

function countOps(
  hunks: readonly { readonly lines: readonly HunkLine[] }[],
  which: '+' | '-',
): number {
  let n = 0
  for (const hunk of hunks) for (const line of hunk.lines) if (line.op === which) n++
  return n
}

/** Lines in an Add's content; a final '\n' ends the last line rather than starting another. */
function countContentLines(content: string): number {
  if (content === '') return 0
  const parts = content.split('\n').length
  return content.endsWith('\n') ? parts - 1 : parts
}
