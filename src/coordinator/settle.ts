// Turns the outcomes of every op of a request (verify.ts, from one inline run or from many worker
// batches, in plan order) into the verified ops, or throws the one error the request gets. The
// order is the same as a single pass over the plan would give: the first path that does not
// resolve, then a path changed twice, then the first file that cannot be read, the first state
// refused (missing, exists, stale hash...), the first change that does not verify. A diff's
// delete and re-creation of one path (git's type change) must be paired; when a split put the
// two in different batches, `reverify` runs them again together.
import { pathKey } from './paths.js'
import { checkDuplicates, type ResolvedOp } from './prepare.js'
import { errorOf, type OpOutcome, type VerifiedOp, type VerifyPhase } from './verify.js'

const PHASES: readonly VerifyPhase[] = ['resolve', 'read', 'state', 'compute']

export async function settle(
  outcomes: readonly OpOutcome[],
  caseInsensitive: boolean,
  reverify: (indices: readonly number[]) => Promise<OpOutcome[]>,
  batchOf: (index: number) => number,
): Promise<VerifiedOp[]> {
  throwFirst(outcomes, 'resolve')
  const resolved = outcomes.map(resolvedOf)
  checkDuplicates(resolved, caseInsensitive)
  let settled = outcomes
  const split = splitTypeChanges(resolved, caseInsensitive, batchOf)
  if (split.length > 0) {
    const again = await reverify(split)
    const replaced = settled.slice()
    split.forEach((index, k) => (replaced[index] = again[k] as OpOutcome))
    settled = replaced
  }
  for (const phase of PHASES) throwFirst(settled, phase)
  return settled.map((o) => (o as Extract<OpOutcome, { ok: true }>).verified)
}

function throwFirst(outcomes: readonly OpOutcome[], phase: VerifyPhase): void {
  for (const o of outcomes) if (!o.ok && o.phase === phase) throw errorOf(o.failure)
}

function resolvedOf(o: OpOutcome): ResolvedOp {
  if (!o.ok) {
    // Only resolve failures lack paths, and throwFirst has thrown for them.
    if (o.resolved === undefined) throw new Error('settle: an op failed without its paths')
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

/**
 * Indices of deletions and the creations of the same path that follow them (prepare.ts
 * pairTypeChanges) when the two were verified in different batches.
 */
function splitTypeChanges(
  resolved: readonly ResolvedOp[],
  caseInsensitive: boolean,
  batchOf: (index: number) => number,
): number[] {
  const deleted = new Map<string, number>()
  const out = new Set<number>()
  resolved.forEach(({ op, target }, i) => {
    const key = pathKey(target.abs, caseInsensitive)
    if (op.kind === 'delete') deleted.set(key, i)
    const earlier = deleted.get(key)
    if (op.kind !== 'add' || op.overwrite || earlier === undefined) return
    if (batchOf(earlier) !== batchOf(i)) {
      out.add(earlier)
      out.add(i)
    }
  })
  return [...out].sort((a, b) => a - b)
}
