/**
 * Per-client token bucket. The documented rate is 2 requests/second and the official clients space requests
 * exactly 0.5 s apart: a bucket refilling at that rate with a small burst never refuses them, even when network
 * jitter brings two requests closer, and still stops a client that sends in parallel or without pause.
 * Beyond it: 429 with `Retry-After` and the `RateLimit-*` headers (also sent on allowed responses).
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import { apiClient } from './api-key.js';

export interface RateLimitOptions {
  /** Sustained requests per second. */
  readonly rps: number;
  /** Bucket size: requests allowed at once. */
  readonly burst: number;
  /** Milliseconds; injected by tests. */
  readonly now?: () => number;
  readonly trustProxy?: boolean;
  /**
   * Where the buckets live: in this process by default; redis/redis-rate-limit.ts keeps them in Redis so that
   * every replica draws from one bucket per client.
   */
  readonly take?: (id: string) => Decision | Promise<Decision>;
  /** Whose bucket this is, for the 429's message: `per key` unless said. */
  readonly per?: string;
}

export interface Decision {
  readonly allowed: boolean;
  /** Whole requests left after this one. */
  readonly remaining: number;
  /** Seconds until one more request is allowed (0 when allowed now). */
  readonly retryAfter: number;
  /** Seconds until the bucket is full again. */
  readonly reset: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** The bucket arithmetic alone, so it can be tested with any clock. */
export function tokenBuckets(opts: Pick<RateLimitOptions, 'rps' | 'burst'>) {
  if (!(opts.rps > 0) || !Number.isFinite(opts.rps)) throw new Error(`rate limit rps must be a positive number, got ${opts.rps}`);
  if (!Number.isInteger(opts.burst) || opts.burst < 1) throw new Error(`rate limit burst must be an integer ≥ 1, got ${opts.burst}`);
  const perMs = opts.rps / 1000;
  const buckets = new Map<string, Bucket>();
  const fullAfterMs = opts.burst / perMs;
  let lastSweep = 0;

  function sweep(now: number): void {
    // A bucket idle long enough to be full is the same as no bucket: forget it, so memory follows active clients.
    if (now - lastSweep < fullAfterMs || buckets.size < 1024) return;
    lastSweep = now;
    for (const [id, b] of buckets) if (b.tokens + (now - b.at) * perMs >= opts.burst) buckets.delete(id);
  }

  return function take(id: string, now: number): Decision {
    sweep(now);
    const b = buckets.get(id) ?? { tokens: opts.burst, at: now };
    b.tokens = Math.min(opts.burst, b.tokens + Math.max(0, now - b.at) * perMs);
    b.at = now;
    buckets.set(id, b);
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    return decision(allowed, b.tokens, opts);
  };
}

/** The headers' figures from a bucket's tokens left after the request (`allowed` said whether it took one). */
export function decision(allowed: boolean, tokens: number, opts: Pick<RateLimitOptions, 'rps' | 'burst'>): Decision {
  const perMs = opts.rps / 1000;
  return {
    allowed,
    remaining: Math.floor(tokens),
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)),
    reset: Math.ceil((opts.burst - tokens) / perMs / 1000),
  };
}

export function rateLimit(opts: RateLimitOptions): MiddlewareHandler {
  const local = tokenBuckets(opts);
  const now = opts.now ?? Date.now;
  const take = opts.take ?? ((id: string) => local(id, now()));
  const limit = String(opts.burst);
  return async function limitRate(c, next) {
    const d = await take(apiClient(c, opts.trustProxy).id);
    const headers = { 'RateLimit-Limit': limit, 'RateLimit-Remaining': String(d.remaining), 'RateLimit-Reset': String(d.reset) };
    if (!d.allowed) {
      throw new ApiError(
        'rate_limited',
        `Too many requests: this API allows ${opts.rps} requests per second ${opts.per ?? 'per key'} (bursts of ${opts.burst}). Wait ${d.retryAfter} s (Retry-After) and space requests at least ${1 / opts.rps} s apart.`,
        {},
        { ...headers, 'Retry-After': String(d.retryAfter) },
      );
    }
    await next();
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
  };
}
