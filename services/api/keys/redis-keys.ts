/**
 * Issued keys in Redis (when `REDIS_URL` is set), so that one `make key-issue` or `key-revoke` reaches every
 * replica: the records of the key file (hashes, owner, times; never a key) in one hash `<prefix>keys`, and a
 * counter `<prefix>keys:version` bumped in the same transaction, which the replicas poll (keys/redis-key-store.ts).
 */
import type { Redis } from 'ioredis';
import { generateKey, hashKey, keyId, keyRecord, type KeyRecord } from './key-file.js';

export const keysHash = (prefix: string) => `${prefix}keys`;
export const keysVersion = (prefix: string) => `${prefix}keys:version`;

/** Every record, in creation order; a record that does not parse is reported, not skipped silently. */
export async function listKeysInRedis(redis: Redis, prefix: string): Promise<KeyRecord[]> {
  const all = await redis.hgetall(keysHash(prefix));
  return Object.entries(all)
    .map(([id, json]) => {
      const parsed = keyRecord.safeParse(JSON.parse(json));
      if (!parsed.success) throw new Error(`Redis hash ${keysHash(prefix)} field ${id} is not a key record: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
      return parsed.data;
    })
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

async function write(redis: Redis, prefix: string, record: KeyRecord, onlyIfNew: boolean): Promise<boolean> {
  const field = record.id;
  const json = JSON.stringify(record);
  const replies = await redis
    .multi()
    [onlyIfNew ? 'hsetnx' : 'hset'](keysHash(prefix), field, json)
    .incr(keysVersion(prefix))
    .exec();
  const err = replies?.find(([e]) => e)?.[0];
  if (err) throw err;
  return !onlyIfNew || replies?.[0]?.[1] === 1;
}

export async function issueKeyInRedis(redis: Redis, prefix: string, owner: string, now = new Date()): Promise<{ key: string; record: KeyRecord }> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const key = generateKey();
    const record: KeyRecord = { id: keyId(key), owner, hash: hashKey(key), createdAt: now.toISOString(), revokedAt: null };
    // HSETNX: two ids colliding (12 hex digits) must never overwrite an issued key.
    if (await write(redis, prefix, record, true)) return { key, record };
  }
  throw new Error('could not find an unused key id in 10 attempts');
}

export async function revokeKeyInRedis(redis: Redis, prefix: string, id: string, now = new Date()): Promise<KeyRecord | undefined> {
  const json = await redis.hget(keysHash(prefix), id);
  if (!json) return undefined;
  const found = keyRecord.parse(JSON.parse(json));
  const revoked = { ...found, revokedAt: found.revokedAt ?? now.toISOString() };
  await write(redis, prefix, revoked, false);
  return revoked;
}
