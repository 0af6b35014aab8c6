/**
 * The Redis connection every replica shares limits and keys through (`REDIS_URL`). It must never make the API
 * hang: commands fail at once while disconnected (no offline queue) and after `commandTimeoutMs` when Redis stops
 * answering, so a caller can fall back (redis/redis-rate-limit.ts, redis/redis-slots.ts) instead of waiting.
 * Reconnects forever in the background, at most a second apart.
 */
import { Redis } from 'ioredis';

export interface RedisOptions {
  readonly url: string;
  /** A command not answered by then fails (the caller falls back). */
  readonly commandTimeoutMs?: number;
  readonly log?: (msg: string) => void;
}

/** Strips the password from a Redis URL, for messages. */
export function redisLabel(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'REDIS_URL';
  }
}

export function createRedis(opts: RedisOptions): Redis {
  const log = opts.log ?? (() => {});
  const label = redisLabel(opts.url);
  const redis = new Redis(opts.url, {
    enableOfflineQueue: false,
    commandTimeout: opts.commandTimeoutMs ?? 250,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  // Logged on each change of state, not on every failed reconnect: an outage is one line, its end another.
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    log(`WARNING: Redis ${label} unreachable (${err.message}): limits fall back to this replica alone until it is back`);
  });
  redis.on('ready', () => {
    if (down) log(`Redis ${label} reachable again: limits are shared across replicas`);
    down = false;
  });
  return redis;
}

/** Resolves once connected; rejects with a message naming REDIS_URL after `ms`. */
export function waitForRedis(redis: Redis, url: string, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off('ready', ready);
      reject(new Error(`Redis at ${redisLabel(url)} did not answer within ${ms} ms: start it, or fix or unset REDIS_URL`));
    }, ms);
    const ready = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', ready);
  });
}
