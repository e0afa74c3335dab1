// BullMQ against a real redis-server, through the connection options parseQueueUrl makes:
// a job's round trip, a password and a database in the URL, and a wrong password refused. The
// distributed replay builds on exactly this connection path.
import { Queue, QueueEvents, Worker } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseQueueUrl } from '../../src/queue/url.js'
import {
  REDIS_AVAILABLE,
  REDIS_SKIP_REASON,
  startRedis,
  type RunningRedis,
} from '../helpers/redis.js'

const PASSWORD = 'not-a-real-secret-9f2c'

describe.skipIf(!REDIS_AVAILABLE)(
  `BullMQ on redis-server (skipped when ${REDIS_SKIP_REASON})`,
  () => {
    let redis: RunningRedis
    beforeAll(async () => {
      redis = await startRedis(['--requirepass', PASSWORD])
    })
    afterAll(async () => {
      await redis?.stop()
    })

    it('runs a job through a queue named by a redis:// URL with a password and a database', async () => {
      const connection = parseQueueUrl(`redis://:${PASSWORD}@127.0.0.1:${redis.port}/2`)
      expect(connection).toMatchObject({ port: redis.port, db: 2, password: PASSWORD })
      const queue = new Queue('roundtrip', { connection })
      const events = new QueueEvents('roundtrip', { connection })
      const worker = new Worker(
        'roundtrip',
        async (job) => ({ doubled: (job.data as { n: number }).n * 2, worker: 'w1' }),
        { connection: { ...connection, maxRetriesPerRequest: null } },
      )
      try {
        await events.waitUntilReady()
        const job = await queue.add('double', { n: 21 })
        expect(await job.waitUntilFinished(events, 10_000)).toEqual({ doubled: 42, worker: 'w1' })
        expect(await queue.getJobCounts('completed', 'failed')).toEqual({ completed: 1, failed: 0 })
      } finally {
        await worker.close()
        await events.close()
        await queue.close()
      }
    })

    it('cannot reach the queue with a wrong password', async () => {
      const connection = parseQueueUrl(`redis://:wrong@127.0.0.1:${redis.port}/0`)
      const queue = new Queue('refused', {
        connection: { ...connection, maxRetriesPerRequest: 1, retryStrategy: () => null },
      })
      queue.on('error', () => undefined)
      try {
        await expect(queue.add('x', {})).rejects.toThrow(
          /WRONGPASS|NOAUTH|invalid username-password/i,
        )
      } finally {
        await queue.close().catch(() => undefined)
      }
    })
  },
)
