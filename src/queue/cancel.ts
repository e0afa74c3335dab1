// A run stopped by `patchloom queue clean --run ID --cancel`: a marker key beside BullMQ's
// own, which the run's enqueuer reads before it enqueues a lost job again, and each worker reads
// before it starts one of the run's ranges. It expires after a week; a Redis restarted without
// persistence forgets it along with the jobs, which is as it should be.
import type { RedisClient } from 'bullmq'

const CANCELLED_TTL_S = 7 * 24 * 3600

export function cancelKey(run: string): string {
  return `patchloom:cancelled:${run}`
}

export async function markCancelled(client: RedisClient, run: string): Promise<void> {
  await client.set(cancelKey(run), '1', { EX: CANCELLED_TTL_S })
}

export async function isCancelled(client: RedisClient, run: string): Promise<boolean> {
  return (await client.get(cancelKey(run))) !== null
}
