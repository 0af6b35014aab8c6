/**
 * Per-client token bucket, for the discovery documents' requests (and, by their arithmetic, the pages' rows in
 * page-rows.ts and the dataset files' bytes in file-bytes.ts): a bucket refilling at the rate with a small burst
 * never refuses a client that paces itself, even when network jitter brings two requests closer, and still stops a
 * client that sends in parallel or without pause.
 *
 * A request beyond the bucket may be held back instead of refused (`maxWaitMs`): it reserves its token and is
 * answered once the token would have refilled. So a client that pages as fast as it can (GDAL's OAPIF driver, QGIS,
 * R's sf: none of them paces itself or retries a 429) is slowed to the documented rate and never sees an error,
 * while a client that would have to wait longer (one sending in parallel) is still refused.
 * Beyond it: 429 with `Retry-After` and the `RateLimit-*` headers (also sent on allowed responses).
 *
 * The same arithmetic meters dataset files by their bytes (file-bytes.ts): a request costs `cost` tokens, and
 * one larger than the whole bucket waits for a full bucket and leaves it in debt, so the sustained rate holds.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import { apiClient } from './api-key.js';
import { amount, BUDGET_UNITS } from '../limits/budgets.js';

export interface RateLimitOptions {
  /** Sustained requests per second. */
  readonly rps: number;
  /** Bucket size: requests allowed at once. */
  readonly burst: number;
  /** Milliseconds; injected by tests. */
  readonly now?: () => number;
  /** How long a request beyond the bucket may be held back until its token refills, instead of refused (default 0). */
  readonly maxWaitMs?: number;
  readonly trustProxy?: boolean | number;
  /**
   * Where the buckets live: in this process by default; redis/redis-rate-limit.ts keeps them in Redis so that
   * every replica draws from one bucket per client.
   */
  readonly take?: Take;
  /** Whose bucket this is, for the 429's message: `per key` unless said. */
  readonly per?: string;
  /** What the bucket counts, for the 429's message: `requests` unless said. */
  readonly what?: string;
}

/** Draws `cost` tokens (default 1) from `id`'s bucket. */
export type Take = (id: string, cost?: number) => Decision | Promise<Decision>;

/** The bucket's settings: `rps` tokens per second (requests, or bytes for file-bytes.ts), at most `burst` held. */
export type BucketSettings = Pick<RateLimitOptions, 'rps' | 'burst' | 'maxWaitMs'>;

export interface Decision {
  readonly allowed: boolean;
  /** Whole requests left after this one. */
  readonly remaining: number;
  /** Seconds until one more request is allowed (0 when allowed now). */
  readonly retryAfter: number;
  /** Seconds until the bucket is full again. */
  readonly reset: number;
  /** Milliseconds to hold the request back before answering it (its token was reserved; 0 or absent: at once). */
  readonly waitMs?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** The bucket arithmetic alone, so it can be tested with any clock. */
export function tokenBuckets(opts: BucketSettings) {
  checkBucket(opts);
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

  return function take(id: string, now: number, cost = 1): Decision {
    sweep(now);
    const b = buckets.get(id) ?? { tokens: opts.burst, at: now };
    b.tokens = Math.min(opts.burst, b.tokens + Math.max(0, now - b.at) * perMs);
    b.at = now;
    buckets.set(id, b);
    const waitMs = waitFor(b.tokens, cost, opts);
    const allowed = waitMs <= (opts.maxWaitMs ?? 0);
    if (allowed) b.tokens -= cost;
    return decision(allowed, b.tokens, opts, waitMs, cost);
  };
}

export function checkBucket(opts: BucketSettings): void {
  if (!(opts.rps > 0) || !Number.isFinite(opts.rps)) throw new Error(`rate limit rps must be a positive number, got ${opts.rps}`);
  if (!Number.isInteger(opts.burst) || opts.burst < 1) throw new Error(`rate limit burst must be an integer ≥ 1, got ${opts.burst}`);
  if (opts.maxWaitMs !== undefined && !(opts.maxWaitMs >= 0)) throw new Error(`rate limit wait must be ≥ 0 ms, got ${opts.maxWaitMs}`);
}

/**
 * Milliseconds until the bucket holds what a request of `cost` needs: its cost, or a full bucket when it costs
 * more than the bucket holds (it then leaves the bucket in debt, paid back at the rate before the next one).
 */
function waitFor(tokens: number, cost: number, opts: BucketSettings): number {
  const need = Math.min(cost, opts.burst);
  return tokens >= need ? 0 : (need - tokens) / (opts.rps / 1000);
}

/**
 * The headers' figures from a bucket's tokens left after the request (`allowed` said whether it took its `cost`,
 * `waitMs` how long it waits for them, or would have had to).
 */
export function decision(allowed: boolean, tokens: number, opts: BucketSettings, waitMs = 0, cost = 1): Decision {
  const perMs = opts.rps / 1000;
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil(waitFor(tokens, cost, opts) / 1000)),
    reset: Math.ceil((opts.burst - tokens) / perMs / 1000),
    waitMs: allowed ? Math.ceil(waitMs) : 0,
  };
}

/** Holds a request back `ms`; a client that leaves meanwhile ends the wait (and the request) at once. */
export function holdBack(c: Context, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  const signal = c.req.raw.signal;
  return new Promise((resolve, reject) => {
    const gone = () => (clearTimeout(timer), reject(signal.reason ?? new Error('the client went away')));
    const timer = setTimeout(() => (signal.removeEventListener('abort', gone), resolve()), ms);
    if (signal.aborted) gone();
    else signal.addEventListener('abort', gone, { once: true });
  });
}

export function rateLimit(opts: RateLimitOptions): MiddlewareHandler {
  const local = tokenBuckets(opts);
  const now = opts.now ?? Date.now;
  const take: Take = opts.take ?? ((id: string) => local(id, now()));
  const limit = String(opts.burst);
  return async function limitRate(c, next) {
    const d = await take(apiClient(c, opts.trustProxy).id);
    const headers = { 'RateLimit-Limit': limit, 'RateLimit-Remaining': String(d.remaining), 'RateLimit-Reset': String(d.reset) };
    if (!d.allowed) {
      throw new ApiError(
        'rate_limited',
        `Too many ${opts.what ?? 'requests'}: this API allows ${amount(opts.rps, BUDGET_UNITS.discovery)} per second ${opts.per ?? 'per key'} (bursts of ${opts.burst}). Wait ${d.retryAfter} s (Retry-After) and space requests at least ${1 / opts.rps} s apart.`,
        {},
        { ...headers, 'Retry-After': String(d.retryAfter) },
      );
    }
    await holdBack(c, d.waitMs ?? 0);
    await next();
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
  };
}
