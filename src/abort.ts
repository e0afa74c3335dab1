// Cancellation and timeouts for a request: one AbortSignal combines the caller's signal with the
// request's timeoutMs, and an aborted signal becomes REQUEST_TIMEOUT (our timer fired) or
// REQUEST_CANCELLED (the caller's). Checked between phases and passed to worker jobs; a commit
// that has started is never interrupted.
import { EditError } from './errors.js'

export function combineSignals(
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): AbortSignal | undefined {
  if (timeoutMs === undefined) return signal
  const timeout = AbortSignal.timeout(timeoutMs)
  return signal === undefined ? timeout : AbortSignal.any([signal, timeout])
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw abortError(signal)
}

export function abortError(signal: AbortSignal, cause?: unknown): EditError {
  const timedOut = (signal.reason as Error | undefined)?.name === 'TimeoutError'
  return timedOut
    ? new EditError(
        'REQUEST_TIMEOUT',
        'Verification did not finish in time; nothing was written.',
        {
          cause: cause ?? signal.reason,
        },
      )
    : new EditError(
        'REQUEST_CANCELLED',
        'The request was cancelled before it was committed; nothing was written.',
        {
          cause: cause ?? signal.reason,
        },
      )
}
