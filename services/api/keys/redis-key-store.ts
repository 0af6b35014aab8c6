/**
 * The key store of a replica when keys live in Redis (keys/redis-keys.ts): the records are held in memory and
 * re-read when `<prefix>keys:version` changes, which every replica checks every `pollMs` (250 ms: a revoked key is
 * refused everywhere well within a second). Redis unreachable, or back without its data: the last keys read stay in
 * force (logged), as a key file that disappears keeps its keys; keys are never turned off by an outage.
 */
import type { Redis } from 'ioredis';
import { entryOf, keyStoreOver, plainEntries, type Entry, type KeyStore } from './key-store.js';
import { keysVersion, listKeysInRedis } from './redis-keys.js';

export interface RedisKeyStoreOptions {
  readonly redis: Redis;
  readonly prefix: string;
  readonly plainKeys?: readonly string[];
  /** 0 disables polling (tests call reload()). */
  readonly pollMs?: number;
  readonly log?: (msg: string) => void;
}

/** Reads the keys once (rejects when Redis cannot be read: the start stops), then follows changes. */
export async function openRedisKeyStore(opts: RedisKeyStoreOptions): Promise<KeyStore> {
  const log = opts.log ?? (() => {});
  const plain = plainEntries(opts.plainKeys ?? []);
  let issued: Entry[] = [];
  let version: string | null | undefined;
  let required = plain.length > 0;
  /** The last failure logged, so an outage is one line and a different failure another. */
  let failing: string | undefined;

  async function load(): Promise<boolean> {
    const now = await opts.redis.get(keysVersion(opts.prefix));
    if (now === version) return false;
    // The counter only grows; gone means Redis lost its data (restarted without persistence, flushed): refusing
    // every issued key would be an outage, so the keys read before stay until a key is issued or revoked again.
    if (now === null && version) throw new Error(`${keysVersion(opts.prefix)} is gone from Redis (did it restart without persistence?); restore Redis's data or re-issue the keys`);
    const records = await listKeysInRedis(opts.redis, opts.prefix);
    issued = records.map(entryOf);
    version = now;
    if (!required && issued.length) log('keys found in Redis: API keys are now required');
    required ||= issued.length > 0;
    return true;
  }

  await load();
  let reloading: Promise<boolean> | undefined;
  const reload = () =>
    (reloading ??= load()
      .then((changed) => {
        if (failing) log('keys readable in Redis again');
        failing = undefined;
        if (changed) log(`keys reloaded from Redis: ${store.active} active keys`);
        return changed;
      })
      .catch((err: Error) => {
        if (failing !== err.message) log(`WARNING: keys not reloaded from Redis, keeping the ${issued.length} read before: ${err.message}`);
        failing = err.message;
        return false;
      })
      .finally(() => (reloading = undefined)));
  const timer = opts.pollMs ? setInterval(() => void reload(), opts.pollMs) : undefined;
  timer?.unref();

  const store = keyStoreOver(plain, () => issued, () => required, reload, timer);
  return store;
}
