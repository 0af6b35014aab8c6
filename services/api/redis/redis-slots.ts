/**
 * Requests in flight per client, counted in Redis for the whole service (MAX_CONCURRENT_PER_KEY once, not per
 * replica). Each place is a member of a sorted set per client scored by its expiry: a replica renews the places it
 * holds every `ttlMs / 3`, so a place held by a replica that dies (kill -9, lost machine) frees itself within
 * `ttlMs`, while a page streaming for minutes keeps its place.
 *
 * Redis unreachable: places are counted in this replica alone (middleware/concurrency.ts's localSlots), as the
 * rate limit falls back; a place taken in Redis is released there when possible and otherwise expires.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { localSlots, type ClientSlots } from '../middleware/concurrency.js';

export interface RedisSlotsOptions {
  readonly prefix: string;
  /** How long a place outlives the replica holding it (default 5 s). */
  readonly ttlMs?: number;
}

const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
`;

// XX: a place already released (or expired and taken by another) is not brought back.
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1
`;

type Commands = {
  tributaryAcquire(key: string, max: string, ttl: string, member: string): Promise<number>;
  tributaryRenew(key: string, ttl: string, member: string): Promise<number>;
};

export interface RedisSlots extends ClientSlots {
  /** Places this replica holds in Redis now (for tests). */
  readonly held: number;
  /** Stops renewing (at shutdown: the places left expire). */
  close(): void;
}

export function redisSlots(redis: Redis, opts: RedisSlotsOptions): RedisSlots {
  const ttlMs = opts.ttlMs ?? 5000;
  const ttl = String(ttlMs);
  const r = redis as unknown as Redis & Commands;
  if (!r.tributaryAcquire) {
    redis.defineCommand('tributaryAcquire', { numberOfKeys: 1, lua: ACQUIRE });
    redis.defineCommand('tributaryRenew', { numberOfKeys: 1, lua: RENEW });
  }
  const local = localSlots();
  const replica = randomBytes(6).toString('hex');
  let serial = 0;
  const held = new Map<string, string>(); // member → key
  const renew = setInterval(() => {
    for (const [member, key] of held) r.tributaryRenew(key, ttl, member).catch(() => undefined);
  }, Math.max(50, Math.floor(ttlMs / 3)));
  renew.unref();

  return {
    get held() {
      return held.size;
    },
    async tryAcquire(id, max) {
      const key = `${opts.prefix}inflight:${id}`;
      const member = `${replica}:${++serial}`;
      let taken: number;
      try {
        taken = await r.tributaryAcquire(key, String(max), ttl, member);
      } catch {
        return local.tryAcquire(id, max);
      }
      if (taken !== 1) return undefined;
      held.set(member, key);
      return () => {
        held.delete(member);
        redis.zrem(key, member).catch(() => undefined);
      };
    },
    close: () => clearInterval(renew),
  };
}
