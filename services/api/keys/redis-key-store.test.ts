/** Keys in Redis on the machine's Redis (127.0.0.1:6379), under a prefix of this test's own. */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedis, waitForRedis } from '../redis/redis-client.js';
import { openRedisKeyStore } from './redis-key-store.js';
import { issueKeyInRedis, listKeysInRedis, revokeKeyInRedis } from './redis-keys.js';

const URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const prefix = `tributary-test:${randomBytes(4).toString('hex')}:`;
const redis = createRedis({ url: URL });

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe('keys in Redis', () => {
  it('issue and revoke reach a store reading them, which holds only hashes', async () => {
    await waitForRedis(redis, URL, 5000);
    const store = await openRedisKeyStore({ redis, prefix, pollMs: 0 });
    expect(store.required).toBe(false);
    const { key, record } = await issueKeyInRedis(redis, prefix, 'alice@example.org');
    expect(await store.reload()).toBe(true);
    expect(store.required).toBe(true);
    expect(store.verify(key)).toEqual({ status: 'valid', id: record.id, owner: 'alice@example.org' });
    expect(store.verify(`${key}x`).status).toBe('unknown');
    expect(JSON.stringify(await redis.hgetall(`${prefix}keys`))).not.toContain(key);

    expect(await store.reload()).toBe(false); // nothing changed: the version counter says so
    expect((await revokeKeyInRedis(redis, prefix, record.id))?.revokedAt).toMatch(/^\d{4}-/);
    expect(await revokeKeyInRedis(redis, prefix, '000000000000')).toBeUndefined();
    await store.reload();
    expect(store.verify(key).status).toBe('revoked');
    expect((await listKeysInRedis(redis, prefix)).map((k) => k.id)).toEqual([record.id]);
    store.close();
  });

  it('Redis unreachable after start keeps the keys read before (logged once), never turns keys off', async () => {
    const own = new Redis(URL, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    own.on('error', () => {});
    await own.connect();
    const { key } = await issueKeyInRedis(own, prefix, 'bob@example.org');
    const logs: string[] = [];
    const store = await openRedisKeyStore({ redis: own, prefix, pollMs: 0, log: (m) => logs.push(m) });
    own.disconnect();
    expect(await store.reload()).toBe(false);
    expect(await store.reload()).toBe(false);
    expect(store.required).toBe(true);
    expect(store.verify(key).status).toBe('valid');
    expect(logs.filter((l) => l.includes('keys not reloaded from Redis'))).toHaveLength(1);
    store.close();
  });
});
