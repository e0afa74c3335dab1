// The EditError a promise rejects with, for tests of failures: a result, or any other rejection,
// fails the test instead of passing as "some error".
import { EditError } from '../../src/errors.js'

export async function rejection(promise: Promise<unknown>): Promise<EditError> {
  const outcome = await promise.then(
    () => new Error('expected a rejection, got a result'),
    (error: unknown) => error,
  )
  if (!(outcome instanceof EditError)) throw outcome
  return outcome
}
