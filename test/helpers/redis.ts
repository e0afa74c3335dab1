// The queue tests' redis-server: the same helper bench/distributed.bench.ts uses.
export {
  REDIS_AVAILABLE,
  REDIS_SKIP_REASON,
  startRedis,
  type RunningRedis,
} from '../../bench/redis-server.js'
