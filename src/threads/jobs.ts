// Every shape that crosses the thread boundary: the tasks a worker runs (workers/engine.worker.ts),
// their jobs and the reply envelope. Plain data only, so a job and its Result survive
// structuredClone and the same functions run in the calling thread or in a worker. Bump
// JOB_PROTOCOL when a shape changes incompatibly: a worker refuses a job stamped with another
// version, so a stale dist/ is told apart from a bug and a dead thread by value.
import type { Result } from '../result.js'
import type { FileOp } from '../types.js'

// 2: ComputeInput.rawBytes. 3: the WorkerReply envelope. 4: one verify job in which the worker
// reads its own files. 5: sections naming one path verified in sequence, prepared ops carrying
// their commit role (skipWrite, skipRemove, replaces; DECISIONS.md D-132). 6: the settings'
// finalNewline, which a worker of 5 would ignore.
export const JOB_PROTOCOL = 6

/** The tasks of workers/engine.worker.ts, each with the words its failures are reported in. */
export const TASKS = { verify: 'verification', replay: 'replay' } as const
export type TaskName = keyof typeof TASKS

/** What every job carries: the JOB_PROTOCOL of the build that sent it. */
export interface StampedJob {
  readonly protocol: number
}

/**
 * A batch of a plan's ops for one worker to verify end to end: it resolves their paths, reads and
 * hashes their files, checks and computes them (src/engine/verify.ts). The ops come parsed,
 * or as a run of a unified diff's sections that the worker parses itself (src/parse/segments.ts).
 * `settings` is the engine's VerifySettings; typed loosely because this module stays inside the
 * pure core's tsconfig.
 */
export interface VerifyJob<Settings = unknown> extends StampedJob {
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
 * calling thread then parses the whole patch itself, for the exact error). Outcome is the
 * engine's OpOutcome.
 */
export interface VerifyReply<Outcome = unknown> {
  readonly parsed: boolean
  readonly outcomes: readonly Outcome[]
}

/**
 * One commit of a history replay for a worker to compute (src/replay/commit.ts): the entries it
 * reads and its diff with git's record. Sources is replay's Tree and Work its CommitWork.
 */
export interface ReplayJob<Sources = unknown, Work = unknown> extends StampedJob {
  readonly sources: Sources
  readonly work: Work
}

/**
 * What a worker task returns. `result` carries the pure function's Result; `protocol-mismatch`
 * says the job was stamped for another build; `threw` carries an exception the pure code threw
 * (a bug), so the calling thread can raise it as the inline route would. A thread that dies sends
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
