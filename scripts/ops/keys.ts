/**
 * API keys CLI (make key-issue / key-list / key-revoke). Writes API_KEYS_FILE (default data/api-keys.json), or
 * Redis when REDIS_URL is set (the store every replica reads, keys/redis-keys.ts); a running API picks the change
 * up within a second, no restart. The plain key is printed once, by `issue`,
 * and stored nowhere: only its SHA-256 is in the file.
 *
 *   node --import tsx scripts/ops/keys.ts issue alice@example.org
 *   node --import tsx scripts/ops/keys.ts list
 *   node --import tsx scripts/ops/keys.ts revoke 3f2a9c1b7d4e
 */
import { Redis } from 'ioredis';
import { loadApiConfig } from '../../services/api/config.js';
import { issueKey, readKeyFile, revokeKey, type KeyRecord } from '../../services/api/keys/key-file.js';
import { issueKeyInRedis, listKeysInRedis, revokeKeyInRedis } from '../../services/api/keys/redis-keys.js';
import { redisLabel } from '../../services/api/redis/redis-client.js';

const config = loadApiConfig();
const [command, arg] = process.argv.slice(2);

interface KeyStoreCli {
  readonly where: string;
  issue(owner: string): Promise<{ key: string; record: KeyRecord }>;
  list(): Promise<KeyRecord[]>;
  revoke(id: string): Promise<KeyRecord | undefined>;
  close(): void;
}

function fileStore(file: string): KeyStoreCli {
  return { where: file, issue: (o) => issueKey(file, o), list: async () => (await readKeyFile(file))?.keys ?? [], revoke: (id) => revokeKey(file, id), close: () => {} };
}

function redisStore(url: string, prefix: string): KeyStoreCli {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 3000, retryStrategy: () => null });
  redis.on('error', () => {}); // the failed command below says what went wrong
  return {
    where: `Redis ${redisLabel(url)} (${prefix}keys)`,
    issue: (o) => issueKeyInRedis(redis, prefix, o),
    list: () => listKeysInRedis(redis, prefix),
    revoke: (id) => revokeKeyInRedis(redis, prefix, id),
    close: () => redis.disconnect(),
  };
}

const store = config.REDIS_URL ? redisStore(config.REDIS_URL, config.REDIS_PREFIX) : fileStore(config.API_KEYS_FILE);
const file = store.where;

function usage(): never {
  console.error('usage: keys.ts issue <owner email> | list | revoke <id>');
  process.exit(2);
}

async function main(): Promise<void> {
  switch (command) {
    case 'issue': {
      if (!arg) usage();
      const { key, record } = await store.issue(arg);
      console.log(`issued key ${record.id} to ${record.owner} (${file})`);
      console.log('');
      console.log(`  ${key}`);
      console.log('');
      console.log('This is the only time the key is shown: give it to its owner now. Send it as: curl -H "x-api-key: <key>" …');
      break;
    }
    case 'list': {
      const keys = await store.list();
      if (!keys.length) console.log(`no keys in ${file}`);
      for (const k of keys) console.log([k.id, k.revokedAt ? `revoked ${k.revokedAt}` : 'active', k.createdAt, k.owner].join('\t'));
      break;
    }
    case 'revoke': {
      if (!arg) usage();
      const revoked = await store.revoke(arg);
      if (!revoked) {
        console.error(`no key with id ${arg} in ${file} (make key-list shows the ids)`);
        store.close();
        process.exit(1);
      }
      console.log(`revoked key ${revoked.id} of ${revoked.owner} at ${revoked.revokedAt}`);
      break;
    }
    default:
      usage();
  }
}

try {
  await main();
} catch (err) {
  const hint = config.REDIS_URL ? ' (is Redis running at REDIS_URL? Unset REDIS_URL to use API_KEYS_FILE instead)' : '';
  console.error(`cannot ${command} keys in ${file}: ${(err as Error).message}${hint}`);
  process.exitCode = 1;
} finally {
  store.close();
}
