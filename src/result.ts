// Result<T>: the return type of the pure core (parse/, match/, apply/, text/, workers/).
// Failures are plain EditErrorData so they survive structuredClone across worker threads;
// unwrap() is the one bridge to the thrown EditError used by effectful main-thread code.
import { EditError, type EditErrorData } from './errors.js'

export type Result<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: EditErrorData }

export function ok<T>(value: T): Result<T> {
  return { ok: true, value }
}

export function fail<T = never>(error: EditErrorData): Result<T> {
  return { ok: false, error }
}

/** Returns the value, or throws the failure as an EditError. */
export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value
  throw EditError.fromData(result.error)
}
