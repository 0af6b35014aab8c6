export interface RateLimitOptions {
  /** Tokens added per minute. */
  readonly ratePerMin: number;
  /** Bucket size: requests allowed at once. */
  readonly burst: number;
  /** Clients remembered at most; beyond this the least recently seen are forgotten (memory stays bounded). */
  readonly maxClients?: number;
  readonly now?: () => number;
}

export type Take = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

export interface RateLimiter {
  take(key: string): Take;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per client key. Options are checked once here, so a bad setting fails at startup.
 * @example createRateLimiter({ ratePerMin: 30, burst: 10 }).take('192.0.2.1') // { ok: true }
 */
export function createRateLimiter(opts: RateLimitOptions): RateLimiter {
  const { ratePerMin, burst, maxClients = 10_000, now = Date.now } = opts;
  if (!(ratePerMin > 0) || !(burst >= 1) || !(maxClients >= 1)) {
    throw new RangeError('rate limit needs ratePerMin > 0, burst >= 1 and maxClients >= 1');
  }
  const perMs = ratePerMin / 60_000;
  const buckets = new Map<string, Bucket>();

  return {
    take(key) {
      const t = now();
      const b = buckets.get(key) ?? { tokens: burst, at: t };
      b.tokens = Math.min(burst, b.tokens + Math.max(0, t - b.at) * perMs);
      b.at = t;
      // Re-insert so Map order is least-recently-seen first, which is what eviction drops.
      buckets.delete(key);
      buckets.set(key, b);
      if (buckets.size > maxClients) buckets.delete(buckets.keys().next().value as string);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return { ok: true };
      }
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000)) };
    },
  };
}
