/**
 * The shared limits on the machine's Redis (127.0.0.1:6379, each test under its own key prefix): two connections
 * stand for two replicas. Redis stopped mid-run is exercised in scripts/ops/replicas/replicas.test.ts, on a Redis of
 * its own.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedis, waitForRedis } from './redis-client.js';
import { redisRateLimit } from './redis-rate-limit.js';
import { redisSlots } from './redis-slots.js';

const URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const opened: Redis[] = [];
const prefix = `tributary-test:${randomBytes(4).toString('hex')}:`;

async function replica(url = URL): Promise<Redis> {
  const r = createRedis({ url, commandTimeoutMs: 500 });
  opened.push(r);
  if (url === URL) await waitForRedis(r, url, 5000);
  return r;
}

const redisKeys = async (pattern: string) => (await opened[0]!.keys(pattern)).sort();

afterAll(async () => {
  const cleanup = opened[0];
  if (cleanup?.status === 'ready') {
    const keys = await cleanup.keys(`${prefix}*`);
    if (keys.length) await cleanup.del(...keys);
  }
  for (const r of opened) r.disconnect();
});

describe('rate limit in Redis', () => {
  it('two replicas draw from one bucket per key: the burst once, then refusals with the seconds to wait', async () => {
    const a = redisRateLimit(await replica(), { rps: 2, burst: 4, prefix });
    const b = redisRateLimit(await replica(), { rps: 2, burst: 4, prefix });
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await (i % 2 ? b : a)('k1'));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, false, false]);
    expect(decisions[0]).toMatchObject({ remaining: 3, retryAfter: 0 });
    expect(decisions[4]).toMatchObject({ remaining: 0, retryAfter: 1 });
    expect(decisions[4]!.reset).toBeGreaterThanOrEqual(1);
    expect((await b('another key')).allowed).toBe(true);
  });

  it('a request beyond the bucket is held back within maxWaitMs on either replica: its token reserved, the next one waits longer', async () => {
    const a = redisRateLimit(await replica(), { rps: 2, burst: 1, maxWaitMs: 1000, prefix });
    const b = redisRateLimit(await replica(), { rps: 2, burst: 1, maxWaitMs: 1000, prefix });
    const [first, second, third, fourth] = [await a('k5'), await b('k5'), await a('k5'), await b('k5')];
    expect([first.allowed, second.allowed, third.allowed, fourth.allowed]).toEqual([true, true, true, false]);
    expect(first.waitMs).toBe(0);
    // Redis's clock moves between the calls: at most 500 and 1,000 ms.
    expect(second.waitMs).toBeGreaterThan(0);
    expect(second.waitMs).toBeLessThanOrEqual(500);
    expect(third.waitMs).toBeGreaterThan(second.waitMs!);
    expect(third.waitMs).toBeLessThanOrEqual(1000);
    expect(fourth.retryAfter).toBeGreaterThanOrEqual(1);
  });

  it('dataset files’ bytes and discovery documents: buckets of their own per client, drawn by cost across replicas', async () => {
    const bytesA = redisRateLimit(await replica(), { rps: 1024, burst: 100_000, prefix, bucket: 'bytes' });
    const bytesB = redisRateLimit(await replica(), { rps: 1024, burst: 100_000, prefix, bucket: 'bytes' });
    const pages = redisRateLimit(await replica(), { rps: 2, burst: 1, prefix });
    expect(await bytesA('k6', 60_000)).toMatchObject({ allowed: true, remaining: 40_000 });
    expect(await bytesB('k6', 60_000)).toMatchObject({ allowed: false });
    expect((await bytesB('k6', 30_000)).allowed).toBe(true);
    // The same client's pages bucket is another key: untouched.
    expect(await pages('k6')).toMatchObject({ allowed: true, remaining: 0 });
    const discovery = redisRateLimit(await replica(), { rps: 2, burst: 1, prefix, bucket: 'discovery' });
    expect((await discovery('k6')).allowed).toBe(true);
    expect(await redisKeys(`${prefix}*k6`)).toEqual([`${prefix}bytes:k6`, `${prefix}discovery:k6`, `${prefix}rate:k6`]);
  });

  it('with Redis unreachable, each replica limits alone instead of failing or waiting', async () => {
    const take = redisRateLimit(await replica('redis://127.0.0.1:1'), { rps: 2, burst: 2, prefix });
    expect([(await take('k')).allowed, (await take('k')).allowed, (await take('k')).allowed]).toEqual([true, true, false]);
  });
});

describe('places in flight in Redis', () => {
  it('MAX_CONCURRENT_PER_KEY holds across replicas, and a released place is free again', async () => {
    const a = redisSlots(await replica(), { prefix });
    const b = redisSlots(await replica(), { prefix });
    const first = await a.tryAcquire('k2', 2);
    const second = await b.tryAcquire('k2', 2);
    expect(first && second).toBeTypeOf('function');
    expect(await a.tryAcquire('k2', 2)).toBeUndefined();
    expect(await b.tryAcquire('k2', 2)).toBeUndefined();
    second!();
    await expect.poll(async () => (await a.tryAcquire('k2', 2)) !== undefined, { timeout: 2000, interval: 50 }).toBe(true);
    a.close();
    b.close();
  });

  it('a place held by a replica that died (no release, no renewal) frees itself after its ttl', async () => {
    const dead = redisSlots(await replica(), { prefix, ttlMs: 300 });
    const alive = redisSlots(await replica(), { prefix, ttlMs: 300 });
    expect(await dead.tryAcquire('k3', 1)).toBeTypeOf('function');
    dead.close(); // stops renewing, as a killed process would
    expect(await alive.tryAcquire('k3', 1)).toBeUndefined();
    await expect.poll(async () => (await alive.tryAcquire('k3', 1)) !== undefined, { timeout: 3000, interval: 50 }).toBe(true);
    alive.close();
  });

  it('a place kept by a live replica is renewed past its ttl while its response streams', async () => {
    const holder = redisSlots(await replica(), { prefix, ttlMs: 300 });
    const other = redisSlots(await replica(), { prefix, ttlMs: 300 });
    const release = await holder.tryAcquire('k4', 1);
    expect(release).toBeTypeOf('function');
    await new Promise((r) => setTimeout(r, 900)); // three ttls: only renewal keeps it
    expect(await other.tryAcquire('k4', 1)).toBeUndefined();
    release!();
    holder.close();
    other.close();
  });
});
