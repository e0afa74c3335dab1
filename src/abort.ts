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

/** What an abort error says: for a request by default; replay names what it was doing. */
export interface AbortWords {
  readonly timeout: string
  readonly cancelled: string
}

const REQUEST_WORDS: AbortWords = {
  timeout: 'Verification did not finish in time; nothing was written.',
  cancelled: 'The request was cancelled before it was committed; nothing was written.',
}

export function throwIfAborted(signal: AbortSignal | undefined, words?: AbortWords): void {
  if (signal?.aborted === true) throw abortError(signal, undefined, words)
}

export function abortError(
  signal: AbortSignal,
  cause?: unknown,
  words: AbortWords = REQUEST_WORDS,
): EditError {
  const timedOut = (signal.reason as Error | undefined)?.name === 'TimeoutError'
  const options = { cause: cause ?? signal.reason }
  return timedOut
    ? new EditError('REQUEST_TIMEOUT', words.timeout, options)
    : new EditError('REQUEST_CANCELLED', words.cancelled, options)
}
