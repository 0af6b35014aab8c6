import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ApiError, errorBody } from '../errors.js';
import { rateLimit, tokenBuckets } from './rate-limit.js';

describe('token bucket (fake clock)', () => {
  it('never refuses a client spacing requests exactly 0.5 s apart at the default 2/s, burst 4', () => {
    const take = tokenBuckets({ rps: 2, burst: 4 });
    for (let i = 0; i < 10_000; i++) expect(take('k', i * 500).allowed).toBe(true);
  });

  it('tolerates network jitter around 0.5 s spacing (arrivals ±200 ms)', () => {
    const take = tokenBuckets({ rps: 2, burst: 4 });
    let seed = 42;
    const jitter = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 400;
    for (let i = 0; i < 10_000; i++) expect(take('k', 1000 + i * 500 + jitter()).allowed).toBe(true);
  });

  it('allows a burst, then refuses with the seconds until the next token, and refills at the rate', () => {
    const take = tokenBuckets({ rps: 2, burst: 4 });
    for (let i = 0; i < 4; i++) expect(take('k', 0)).toMatchObject({ allowed: true, remaining: 3 - i });
    expect(take('k', 0)).toEqual({ allowed: false, remaining: 0, retryAfter: 1, reset: 2, waitMs: 0 });
    expect(take('k', 499).allowed).toBe(false);
    expect(take('k', 500).allowed).toBe(true);
    expect(take('k', 500).allowed).toBe(false);
    expect(take('other', 500).allowed).toBe(true); // per client
  });

  it('a client sending without pause gets exactly the sustained rate', () => {
    const take = tokenBuckets({ rps: 2, burst: 4 });
    let allowed = 0;
    for (let t = 0; t <= 60_000; t += 10) if (take('k', t).allowed) allowed++;
    expect(allowed).toBe(4 + 120);
  });

  it('very high settings effectively disable it (benchmarks)', () => {
    const take = tokenBuckets({ rps: 1e9, burst: 1e9 });
    for (let i = 0; i < 10_000; i++) expect(take('k', 0).allowed).toBe(true);
  });

  it('rejects nonsense settings at construction', () => {
    expect(() => tokenBuckets({ rps: 0, burst: 4 })).toThrow(/rps/);
    expect(() => tokenBuckets({ rps: 2, burst: 0.5 })).toThrow(/burst/);
    expect(() => tokenBuckets({ rps: 2, burst: 4, maxWaitMs: -1 })).toThrow(/wait/);
  });
});

describe('token bucket with waits (RATE_LIMIT_MAX_WAIT_MS)', () => {
  it('a client paging without pause (GDAL, QGIS, R sf) is held back to the rate and never refused', () => {
    const take = tokenBuckets({ rps: 2, burst: 4, maxWaitMs: 2000 });
    // Each request is sent the moment the previous answer arrives, i.e. after its wait.
    let t = 0;
    const waits: number[] = [];
    for (let i = 0; i < 100; i++) {
      const d = take('k', t);
      expect(d.allowed).toBe(true);
      waits.push(d.waitMs ?? 0);
      t += d.waitMs ?? 0;
    }
    expect(waits.slice(0, 4)).toEqual([0, 0, 0, 0]);
    expect(new Set(waits.slice(4))).toEqual(new Set([500]));
    expect(t).toBe(96 * 500); // exactly the sustained rate after the burst
  });

  it('reserves the token while it waits: parallel requests wait in turn, and one that would wait too long is refused', () => {
    const take = tokenBuckets({ rps: 2, burst: 2, maxWaitMs: 1000 });
    expect([0, 1, 2, 3].map(() => take('k', 0)).map((d) => [d.allowed, d.waitMs])).toEqual([[true, 0], [true, 0], [true, 500], [true, 1000]]);
    expect(take('k', 0)).toMatchObject({ allowed: false, retryAfter: 2, waitMs: 0 });
    // The refusal reserved nothing: half a second later the next place in line is a second away.
    expect(take('k', 500)).toMatchObject({ allowed: true, waitMs: 1000 });
  });

  it('a cost of many tokens (bytes): waits for them, and one larger than the bucket waits for a full bucket and leaves a debt', () => {
    const take = tokenBuckets({ rps: 1000, burst: 4000, maxWaitMs: 10_000 });
    expect(take('k', 0, 3000)).toMatchObject({ allowed: true, waitMs: 0, remaining: 1000 });
    expect(take('k', 0, 2000)).toMatchObject({ allowed: true, waitMs: 1000 });
    // -1,000 now: a 10,000-token request waits for a full bucket (5 s), then leaves it at -6,000 (-11,000 counted now).
    expect(take('k', 0, 10_000)).toMatchObject({ allowed: true, waitMs: 5000 });
    expect(take('k', 0, 1)).toMatchObject({ allowed: false, retryAfter: 12 });
    expect(take('k', 11_000, 1)).toMatchObject({ allowed: true, waitMs: 1 });
    expect(take('k', 13_000, 1)).toMatchObject({ allowed: true, waitMs: 0 });
  });
});

describe('rateLimit middleware', () => {
  it('429 with Retry-After, RateLimit-* headers and the error body; RateLimit-* on allowed responses too', async () => {
    let now = 0;
    const app = new Hono();
    app.use('*', rateLimit({ rps: 2, burst: 2, now: () => now }));
    app.get('/', (c) => c.text('ok'));
    app.onError((err, c) => (err instanceof ApiError ? c.json(errorBody(err), err.status as 429, err.headers) : c.text('bad', 500)));
    const a = await app.request('/');
    expect(a.status).toBe(200);
    expect(Object.fromEntries([...a.headers].filter(([k]) => k.startsWith('ratelimit')))).toEqual({ 'ratelimit-limit': '2', 'ratelimit-remaining': '1', 'ratelimit-reset': '1' });
    expect((await app.request('/')).status).toBe(200);
    const refused = await app.request('/');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    const body = (await refused.json()) as ReturnType<typeof errorBody>;
    expect(body.errors[0]).toMatchObject({ status: '429', code: 'rate_limited' });
    expect(body.message).toMatch(/2 requests per second/);
    now = 500;
    expect((await app.request('/')).status).toBe(200);
  });

  it('holds a request over the rate back instead of refusing it, within maxWaitMs', async () => {
    const app = new Hono();
    app.use('*', rateLimit({ rps: 20, burst: 1, maxWaitMs: 100 }));
    app.get('/', (c) => c.text('ok'));
    const answered: number[] = [];
    // One token, then each request reserves the next: 50 ms apart at 20/s, all answered.
    await Promise.all(
      [0, 1, 2].map(async (i) => {
        expect((await app.request('/')).status).toBe(200);
        answered.push(i);
      }),
    );
    expect(answered).toEqual([0, 1, 2]);
  });
});
