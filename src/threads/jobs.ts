// The shapes that cross the coordinator <-> worker boundary. Plain data only: a job and its
// Result survive structuredClone unchanged, so the same pure functions run inline or in a
// Piscina worker. Bump JOB_PROTOCOL when a shape changes incompatibly; workers refuse jobs
// stamped with another version (a stale dist/ would otherwise misread them) with a typed
// reply, so the coordinator tells a stale build, a bug and a dead thread apart by value (#8).
import type { Result } from '../result.js'
import type { FileOp } from '../types.js'

// 2: ComputeInput.rawBytes (#8). 3: workers answer with a WorkerReply envelope instead of a bare
// Result (#8; a separate bump, so a worker built at 2 is never taken for one that replies so).
// 4: one verify job, where the worker reads its own files, replaces the parse and compute jobs (#9).
// 5: a unified batch's sections that name one path are verified in sequence, and a prepared op
// carries the commit role the sequence gave it (skipWrite, skipRemove, replaces; D-132): a worker
// built before would verify them apart, and the commit would write each.
export const JOB_PROTOCOL = 5

/**
 * A batch of a plan's ops for one worker to verify end to end: it resolves their paths, reads and
 * hashes their files, checks and computes them (src/engine/verify.ts). The ops come parsed,
 * or as a run of a unified diff's sections that the worker parses itself (src/parse/segments.ts).
 * `settings` is VerifySettings; typed loosely here because jobs.ts stays inside the pure core's
 * tsconfig.
 */
export interface VerifyJob<Settings = unknown> {
  readonly protocol: number
  readonly input:
    | { readonly kind: 'ops'; readonly ops: readonly FileOp[] }
    | {
        readonly kind: 'unified-run'
        readonly text: string
        /** 1-based patch line where the run starts. */
        readonly firstLine: number
        readonly sections: number
        /** The run is ASCII with no CR or NUL (src/parse/segments.ts PatchSegment.plain). */
        readonly plain?: boolean
      }
  readonly settings: Settings
}

/**
 * A verify job's answer: `parsed: false` when a run did not parse to exactly its sections (the
 * coordinator then parses the whole patch itself, for the exact error). Outcome is OpOutcome.
 */
export interface VerifyReply<Outcome = unknown> {
  readonly parsed: boolean
  readonly outcomes: readonly Outcome[]
}

/**
 * What a worker task returns. `result` carries the pure function's Result; `protocol-mismatch`
 * says the job was stamped for another build; `threw` carries an exception the pure code threw
 * (a bug), so the coordinator can raise it as the inline route would. A thread that dies sends
 * nothing: only then does the pool report WORKER_CRASHED. The `protocol-mismatch` shape must
 * never change, or a stale worker could not say it is stale.
 */
export type WorkerReply<T> =
  | { readonly kind: 'result'; readonly result: Result<T> }
  | {
      readonly kind: 'protocol-mismatch'
      readonly jobProtocol: number
      readonly workerProtocol: number
    }
  | {
      readonly kind: 'threw'
      readonly name: string
      readonly message: string
      readonly stack?: string
    }
