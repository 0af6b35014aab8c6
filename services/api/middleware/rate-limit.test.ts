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
    expect(take('k', 0)).toEqual({ allowed: false, remaining: 0, retryAfter: 1, reset: 2 });
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
});
