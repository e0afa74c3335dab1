// The envelope every Piscina task answers in (WorkerReply in src/threads/jobs.ts): checks the
// job's protocol, runs the pure function, and turns an exception it throws into data. An Error
// thrown out of a task would reach the main thread as a bare rejection, indistinguishable from a
// thread that died, so nothing escapes from here. Not a task module itself.
import { JOB_PROTOCOL, type WorkerReply } from '../src/threads/jobs.js'
import type { Result } from '../src/result.js'

export function replyTo<T>(protocol: number, run: () => Result<T>): WorkerReply<T> {
  const stale = mismatch<T>(protocol)
  if (stale !== undefined) return stale
  try {
    return { kind: 'result', result: run() }
  } catch (error) {
    return threw(error)
  }
}

/** replyTo for a task that awaits (verify, whose filesystem calls are synchronous anyway). */
export async function replyToAsync<T>(
  protocol: number,
  run: () => Promise<Result<T>>,
): Promise<WorkerReply<T>> {
  const stale = mismatch<T>(protocol)
  if (stale !== undefined) return stale
  try {
    return { kind: 'result', result: await run() }
  } catch (error) {
    return threw(error)
  }
}

// A mismatch means the worker's dist/ is not the build that sent the job: a build problem, not bad
// input.
function mismatch<T>(protocol: number): WorkerReply<T> | undefined {
  if (protocol === JOB_PROTOCOL) return undefined
  return { kind: 'protocol-mismatch', jobProtocol: protocol, workerProtocol: JOB_PROTOCOL }
}

function threw<T>(error: unknown): WorkerReply<T> {
  if (error instanceof Error) {
    const { name, message, stack } = error
    return { kind: 'threw', name, message, ...(stack === undefined ? {} : { stack }) }
  }
  return { kind: 'threw', name: 'Error', message: String(error) }
}
