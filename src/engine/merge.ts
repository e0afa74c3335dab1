// Merges the outcomes of every op of a request (verify.ts, from one inline run or from many worker
// batches, in plan order) into the verified ops, or throws the one error the request gets. The
// order is the same as a single pass over the plan would give: the first path that does not
// resolve, then a path changed twice, then the first file that cannot be read, the first state
// refused (missing, exists, stale hash...), the first change that does not verify. A unified plan's
// sections that name one path (sequence.ts: a type change, sections in sequence, swapped renames)
// must be verified in one pass; when a split put them in different batches, `reverify` runs them
// again together.
import { checkDuplicates, type ResolvedOp } from './prepare.js'
import { sequenceGroups } from './sequence.js'
import { errorOf, type OpOutcome, type VerifiedOp, type VerifyPhase } from './verify.js'

const PHASES: readonly VerifyPhase[] = ['resolve', 'read', 'state', 'compute']

export async function mergeOutcomes(
  verifiedOutcomes: readonly OpOutcome[],
  caseInsensitive: boolean,
  reverify: (indices: readonly number[]) => Promise<OpOutcome[]>,
  batchOf: (index: number) => number,
  sequences: boolean,
): Promise<VerifiedOp[]> {
  let outcomes = verifiedOutcomes
  if (sequences && resolvesOnlyTogether(outcomes, batchOf)) {
    // A path below a file another batch's section removes (sequence.ts) resolves only with that
    // section in view: the whole plan is verified again in one pass before any error is final.
    outcomes = await reverify(outcomes.map((_, i) => i))
  }
  throwFirst(outcomes, 'resolve')
  const resolved = outcomes.map(resolvedOf)
  checkDuplicates(resolved, caseInsensitive, sequences)
  let merged = outcomes
  const split = sequences ? splitSequences(resolved, caseInsensitive, batchOf) : []
  if (split.length > 0) {
    const again = await reverify(split)
    const replaced = merged.slice()
    split.forEach((index, k) => (replaced[index] = again[k] as OpOutcome))
    merged = replaced
  }
  for (const phase of PHASES) throwFirst(merged, phase)
  return merged.map((o) => (o as Extract<OpOutcome, { ok: true }>).verified)
}

/**
 * Whether a path failed to resolve because a parent is a file (PATH_INVALID) in a plan verified
 * in more than one batch: the section removing that file may be in another batch.
 */
function resolvesOnlyTogether(
  outcomes: readonly OpOutcome[],
  batchOf: (index: number) => number,
): boolean {
  if (outcomes.length < 2 || batchOf(0) === batchOf(outcomes.length - 1)) return false
  return outcomes.some(
    (o) =>
      !o.ok &&
      o.phase === 'resolve' &&
      o.failure.kind === 'edit' &&
      o.failure.data.code === 'PATH_INVALID',
  )
}

function throwFirst(outcomes: readonly OpOutcome[], phase: VerifyPhase): void {
  for (const o of outcomes) if (!o.ok && o.phase === phase) throw errorOf(o.failure)
}

function resolvedOf(o: OpOutcome): ResolvedOp {
  if (!o.ok) {
    // Only resolve failures lack paths, and throwFirst has thrown for them.
    if (o.resolved === undefined) throw new Error('merge: an op failed without its paths')
    return o.resolved
  }
  const { op, target, moveTo, from } = o.verified.prepared
  return {
    op,
    target: target.resolved,
    ...(moveTo === undefined ? {} : { moveTo: moveTo.resolved }),
    ...(from === undefined ? {} : { from: from.resolved }),
  }
}

/** Indices of the ops of every sequence group (sequence.ts) that batches split apart. */
function splitSequences(
  resolved: readonly ResolvedOp[],
  caseInsensitive: boolean,
  batchOf: (index: number) => number,
): number[] {
  const out: number[] = []
  for (const group of sequenceGroups(resolved, caseInsensitive)) {
    const batch = batchOf(group[0] as number)
    if (group.some((i) => batchOf(i) !== batch)) out.push(...group)
  }
  return out.sort((a, b) => a - b)
}
