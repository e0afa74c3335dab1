// Whether the Redis behind --queue answers, checked once before a command starts: BullMQ's
// client retries a lost connection forever, which is right for a worker that outlives a Redis
// restart, and wrong for a first connection that can never succeed (a typo, a wrong password).
import { Redis } from 'ioredis'
import { EditError } from '../errors.js'
import { redact } from './url.js'
import type { QueueConnection } from './url.js'

/** Resolves when a PING is answered; QUEUE_UNREACHABLE (retryable) naming the cause otherwise. */
export async function checkReachable(connection: QueueConnection, url: string): Promise<void> {
  const client = new Redis({
    ...connection,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 5000,
  })
  // The socket's own error (ECONNREFUSED, ...) says more than the rejected call's.
  let seen: Error | undefined
  client.on('error', (error: Error) => (seen ??= error))
  try {
    await client.connect()
    await client.ping()
  } catch (error) {
    const cause = seen ?? error
    const reason = (cause instanceof Error ? cause.message : String(cause)).replace(/\.$/, '')
    throw new EditError(
      'QUEUE_UNREACHABLE',
      `Cannot reach the queue at ${redact(url)}: ${reason}. Nothing was enqueued or taken.`,
      { cause: error },
    )
  } finally {
    client.disconnect()
  }
}
