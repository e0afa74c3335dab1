// The calls of one response as one transaction: their Codex sections in one patch, applied by
// the server's apply_patch tool, so all land or none and one undo reverts them. A failure is
// told to the call it belongs to; the others say they were not applied and why. On success each
// call reads its own file's part of the outcome. See DECISIONS.md D-161.
import { errorData } from '../errors.js'
import type { Result } from '../result.js'
import { errorOutcome, type ToolOutcome } from '../server/format.js'
import { callTool, type Session } from './session.js'
import { codexPatch, sectionLines } from './v4a.js'
import { diffLine, errorOf, modelText, type CallOutcome, type Prepared } from './openai-run.js'

/** The outcome of each call, in order; `ids` name the calls in the texts. */
export async function runAtomic(
  session: Session,
  ids: readonly string[],
  prepared: readonly Result<Prepared>[],
): Promise<CallOutcome[]> {
  const refused = prepared.map((p) => (p.ok ? undefined : errorOutcome(p.error).text))
  const ready = prepared.flatMap((p) => (p.ok ? [p.value] : []))
  if (ready.length === prepared.length) {
    const twice = pathTwice(ready, ids)
    if (twice !== undefined) refused[twice.index] = twice.text
  }
  if (refused.some((t) => t !== undefined)) return notApplied(ids, refused)

  const sections = ready.map((p) => p.section)
  const outcome = await callTool(session, 'apply_patch', {
    patch: codexPatch(sections),
    format: 'codex',
    // A V4A diff cannot state a final newline: the file keeps its own (DECISIONS.md D-170).
    final_newline: 'keep',
    // create_file never replaces a file, not even one made since prepare() looked
    // (DECISIONS.md D-159).
    adds_must_be_new: true,
  })
  if (outcome.ok) return ready.map((p) => ({ ok: true, text: callPart(outcome, p, ids) }))

  const culprit = culpritOf(outcome, ready, sections)
  if (culprit === undefined) {
    const text = `${modelText(outcome, undefined)}\nnote: this error stopped the one transaction of all ${ids.length} calls of this response (${ids.join(', ')}); nothing was written.`
    return ids.map(() => ({ ok: false, text }))
  }
  const texts = ids.map((_, i) =>
    i === culprit ? modelText(outcome, diffLine(sections, i)) : undefined,
  )
  return notApplied(ids, texts)
}

/** The failed calls with their errors; every other call not applied because of them. */
function notApplied(
  ids: readonly string[],
  errors: readonly (string | undefined)[],
): CallOutcome[] {
  const failed = ids.filter((_, i) => errors[i] !== undefined)
  const who = failed.length === 1 ? `call ${failed[0]}` : `calls ${failed.join(', ')}`
  const note = `not applied: ${who} failed, and the calls of this response are applied together or not at all (atomic); nothing was written.`
  return ids.map((_, i) => ({ ok: false, text: errors[i] ?? note }))
}

/**
 * A Codex patch changes each path once (PATH_DUPLICATE otherwise), and a later call's diff is
 * written against the file as the earlier call leaves it, so two calls on one path cannot be
 * merged into one section: the later one is refused, naming both.
 */
function pathTwice(
  ready: readonly Prepared[],
  ids: readonly string[],
): { index: number; text: string } | undefined {
  const seen = new Map<string, number>()
  for (let i = 0; i < ready.length; i++) {
    for (const rel of (ready[i] as Prepared).rels) {
      const earlier = seen.get(rel)
      if (earlier !== undefined) {
        const error = errorData(
          'PATH_DUPLICATE',
          `Calls ${ids[earlier]} and ${ids[i]} both change ${rel}. With atomic, the calls of one response are applied as one patch, which changes each path once.`,
          {
            path: rel,
            hint: 'Merge the two changes of that file into one update_file call, or apply the calls without atomic (each in turn).',
          },
        )
        return { index: i, text: errorOutcome(error).text }
      }
      seen.set(rel, i)
    }
  }
  return undefined
}

/**
 * The call a failure belongs to: the one changing the error's path, else the one whose section
 * holds the patch line the message names; undefined when neither tells.
 */
function culpritOf(
  outcome: ToolOutcome,
  ready: readonly Prepared[],
  sections: readonly Prepared['section'][],
): number | undefined {
  const error = errorOf(outcome)
  const byPath = ready.flatMap((p, i) =>
    error.path !== undefined && p.rels.includes(error.path) ? [i] : [],
  )
  if (byPath.length === 1) return byPath[0]
  const line = /\bpatch lines? (\d+)|^Line (\d+)/.exec(error.message ?? '')
  if (line === null) return byPath[0]
  const at = Number(line[1] ?? line[2])
  const starts = sectionLines(sections).map((s) => s.header)
  let found: number | undefined
  starts.forEach((start, i) => {
    if (at >= start) found = i
  })
  return found
}

interface WriteFile {
  readonly path: string
  readonly content_hash: string | null
  readonly diff: string
}
interface WriteStructured {
  readonly summary: string
  readonly transaction?: string
  readonly files: readonly WriteFile[]
  readonly warnings: readonly { code: string; message: string; path?: string }[]
  readonly diagnostics?: {
    readonly introduced: readonly Diagnostic[]
    readonly resolved: readonly Diagnostic[]
    readonly settled: boolean
  }
}
interface Diagnostic {
  readonly path: string
  readonly line: number
  readonly column: number
  readonly severity: string
  readonly message: string
}

/**
 * The part of a committed outcome that is this call's, in the server's line forms: its file's
 * summary line and content hash, warnings (its own and those of no file), the shared
 * transaction, its diagnostics, its diff.
 */
function callPart(outcome: ToolOutcome, call: Prepared, ids: readonly string[]): string {
  const s = outcome.structured as unknown as WriteStructured
  const summary = s.summary.split('\n')
  const mine = (path: string | undefined): boolean => path !== undefined && call.rels.includes(path)
  const files = s.files.flatMap((f, i) => (mine(f.path) ? [{ f, line: summary[i] ?? '' }] : []))
  if (files.length === 0) return outcome.text
  const lines = files.map(({ line }) => line)
  for (const { f } of files) {
    if (f.content_hash !== null) lines.push(`content_hash ${f.path}: ${f.content_hash}`)
  }
  for (const w of s.warnings) {
    if (w.path === undefined || mine(w.path)) lines.push(`warning ${w.code}: ${w.message}`)
  }
  if (s.transaction !== undefined) {
    lines.push(
      `transaction ${s.transaction} (one transaction for the ${ids.length} calls of this response: ${ids.join(', ')})`,
    )
  }
  const d = s.diagnostics
  if (d !== undefined) {
    const line = (x: Diagnostic): string =>
      `${x.path}:${x.line}:${x.column} ${x.severity}: ${x.message}`
    for (const x of d.introduced) if (mine(x.path)) lines.push(`introduced ${line(x)}`)
    for (const x of d.resolved) if (mine(x.path)) lines.push(`resolved ${line(x)}`)
    if (!d.settled) lines.push('diagnostics: not every language server settled')
  }
  const diffs = files.map(({ f }) => f.diff).filter((x) => x !== '')
  if (diffs.length > 0) lines.push('', ...diffs.map((x) => x.replace(/\n$/, '')))
  return lines.join('\n')
}
