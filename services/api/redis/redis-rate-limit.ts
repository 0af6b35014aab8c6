/**
 * The rate limit's token buckets in Redis, one per client for the whole service: N replicas allow the documented
 * rate once, not N times. The bucket arithmetic is middleware/rate-limit.ts's, run atomically in a Lua script on
 * Redis's clock (replicas' clocks may differ). A bucket expires once it would be full again.
 *
 * Redis unreachable or slow (the client's command timeout): the request is counted in this replica's own buckets
 * instead, so the service keeps serving with each replica enforcing the limit alone (at worst N× the rate for the
 * duration of the outage). The outage is logged by redis/redis-client.ts.
 *
 * One script serves every bucket (requests of pages, discovery documents, bytes of dataset files): a request draws
 * `cost` tokens, may be held back up to `maxWaitMs` for them, and the answer says how long.
 */
import type { Redis } from 'ioredis';
import { checkBucket, decision, tokenBuckets, type Decision } from '../middleware/rate-limit.js';

export interface RedisRateLimitOptions {
  readonly rps: number;
  readonly burst: number;
  readonly maxWaitMs?: number;
  /** Key prefix shared by the replicas of one service (REDIS_PREFIX). */
  readonly prefix: string;
  /** Which budget: `rate` (pages, the default), or another name for a bucket of its own per client. */
  readonly bucket?: string;
}

// Returns {allowed, tokens left, wait in ms}, the numbers as strings: Lua numbers become integers on the way out.
const TAKE = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local maxWait = tonumber(ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local need = math.min(cost, burst)
local wait = 0
if tokens < need then wait = (need - tokens) / rate end
local allowed = 0
if wait <= maxWait then
  tokens = tokens - cost
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate) + 1000)
return {allowed, tostring(tokens), tostring(wait)}
`;

type TakeCommand = (key: string, rate: string, burst: string, cost: string, maxWait: string) => Promise<[number, string, string]>;

export function redisRateLimit(redis: Redis, opts: RedisRateLimitOptions): (id: string, cost?: number) => Promise<Decision> {
  checkBucket(opts);
  if (!(redis as unknown as { tributaryTakeCost?: unknown }).tributaryTakeCost) redis.defineCommand('tributaryTakeCost', { numberOfKeys: 1, lua: TAKE });
  const take = (redis as unknown as { tributaryTakeCost: TakeCommand }).tributaryTakeCost.bind(redis);
  const local = tokenBuckets(opts);
  const rate = String(opts.rps / 1000);
  const burst = String(opts.burst);
  const maxWait = String(opts.maxWaitMs ?? 0);
  const bucket = opts.bucket ?? 'rate';
  return async (id, cost = 1) => {
    try {
      const [allowed, tokens, wait] = await take(`${opts.prefix}${bucket}:${id}`, rate, burst, String(cost), maxWait);
      return decision(allowed === 1, Number(tokens), opts, Number(wait), cost);
    } catch {
      return local(id, Date.now(), cost);
    }
  };
}
