import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limit.js';

const clock = () => {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
};

describe('createRateLimiter', () => {
  it('allows a burst, then one request per refill interval, per key', () => {
    const c = clock();
    const limiter = createRateLimiter({ ratePerMin: 6, burst: 3, now: c.now });
    expect([1, 2, 3].map(() => limiter.take('a').ok)).toEqual([true, true, true]);
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 10 });
    expect(limiter.take('b').ok).toBe(true);
    c.advance(9_999);
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 1 });
    c.advance(1);
    expect(limiter.take('a').ok).toBe(true);
  });

  it('never refills beyond the burst', () => {
    const c = clock();
    const limiter = createRateLimiter({ ratePerMin: 60, burst: 2, now: c.now });
    c.advance(3_600_000);
    expect([1, 2, 3].map(() => limiter.take('a').ok)).toEqual([true, true, false]);
  });

  it('forgets the least recently seen client beyond maxClients, so memory stays bounded', () => {
    const c = clock();
    const limiter = createRateLimiter({ ratePerMin: 1, burst: 1, maxClients: 2, now: c.now });
    expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('b').ok).toBe(true);
    expect(limiter.take('c').ok).toBe(true);
    // 'a' was evicted and starts with a full bucket; 'c' was not.
    expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('c').ok).toBe(false);
  });

  it.each([
    [{ ratePerMin: 0, burst: 1 }],
    [{ ratePerMin: 1, burst: 0 }],
    [{ ratePerMin: Number.NaN, burst: 1 }],
  ])('refuses bad options %j at construction', (opts) => {
    expect(() => createRateLimiter(opts)).toThrow(RangeError);
  });
});
