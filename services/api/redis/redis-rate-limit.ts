/**
 * The rate limit's token buckets in Redis, one per client for the whole service: N replicas allow the documented
 * rate once, not N times. The bucket arithmetic is middleware/rate-limit.ts's, run atomically in a Lua script on
 * Redis's clock (replicas' clocks may differ). A bucket expires once it would be full again.
 *
 * Redis unreachable or slow (the client's command timeout): the request is counted in this replica's own buckets
 * instead, so the service keeps serving with each replica enforcing the limit alone (at worst N× the rate for the
 * duration of the outage). The outage is logged by redis/redis-client.ts.
 */
import type { Redis } from 'ioredis';
import { decision, tokenBuckets, type Decision } from '../middleware/rate-limit.js';

export interface RedisRateLimitOptions {
  readonly rps: number;
  readonly burst: number;
  /** Key prefix shared by the replicas of one service (REDIS_PREFIX). */
  readonly prefix: string;
}

// Returns {allowed, tokens left as a string}: Lua numbers become integers on the way out.
const TAKE = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate) + 1000)
return {allowed, tostring(tokens)}
`;

type TakeCommand = (key: string, rate: string, burst: string) => Promise<[number, string]>;

export function redisRateLimit(redis: Redis, opts: RedisRateLimitOptions): (id: string) => Promise<Decision> {
  if (!(redis as unknown as { tributaryTake?: unknown }).tributaryTake) redis.defineCommand('tributaryTake', { numberOfKeys: 1, lua: TAKE });
  const take = (redis as unknown as { tributaryTake: TakeCommand }).tributaryTake.bind(redis);
  const local = tokenBuckets(opts);
  const rate = String(opts.rps / 1000);
  const burst = String(opts.burst);
  return async (id) => {
    try {
      const [allowed, tokens] = await take(`${opts.prefix}rate:${id}`, rate, burst);
      return decision(allowed === 1, Number(tokens), opts);
    } catch {
      return local(id, Date.now());
    }
  };
}
