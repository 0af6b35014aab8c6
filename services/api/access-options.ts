/**
 * The access policy (middleware/access.ts) from the settings: what main.ts runs, and what the tests of real clients
 * run under `make start`'s defaults (testing/start-defaults.ts), so the two cannot drift apart. With Redis, the
 * budgets and places are shared by the replicas (redis/).
 */
import type { Redis } from 'ioredis';
import type { ApiConfig } from './config.js';
import type { KeyStore } from './keys/key-store.js';
import { createQueryGate, type QueryGate } from './limits/query-gate.js';
import type { AccessOptions } from './middleware/access.js';
import type { ClientSlots } from './middleware/concurrency.js';
import { redisRateLimit } from './redis/redis-rate-limit.js';

export interface AccessDeps {
  readonly keys: KeyStore;
  /** The replicas' Redis and the places counted in it (redis/redis-slots.ts). */
  readonly shared?: { readonly redis: Redis; readonly slots: ClientSlots };
  readonly log?: (msg: string) => void;
  /** The query gate, when the caller made it (main.ts observes it for the metrics); else one from the settings. */
  readonly queryGate?: QueryGate;
}

export function accessOptions(config: ApiConfig, deps: AccessDeps): AccessOptions {
  const rateLimit = { rps: config.PAGE_ROWS_PER_SECOND, burst: config.PAGE_ROWS_BURST, minRows: config.PAGE_MIN_ROWS };
  const browserRateLimit = { rps: config.BROWSER_PAGE_ROWS_PER_SECOND, burst: config.BROWSER_PAGE_ROWS_BURST };
  const discoveryRateLimit = { rps: config.DISCOVERY_RATE_LIMIT_RPS, burst: config.DISCOVERY_RATE_LIMIT_BURST };
  const fileBytes = { bytesPerSecond: config.FILE_BYTES_PER_SECOND, burst: config.FILE_BYTES_BURST };
  const maxWaitMs = config.RATE_LIMIT_MAX_WAIT_MS;
  const redis = deps.shared?.redis;
  const prefix = config.REDIS_PREFIX;
  return {
    keys: deps.keys,
    corsOrigins: config.CORS_ORIGINS,
    rateLimit,
    browserRateLimit,
    discoveryRateLimit,
    fileBytes,
    maxWaitMs,
    maxConcurrentPerKey: config.MAX_CONCURRENT_PER_KEY,
    maxConcurrentFileReads: config.MAX_CONCURRENT_FILE_READS,
    maxConcurrentExports: config.MAX_CONCURRENT_EXPORTS,
    shared:
      redis && deps.shared
        ? {
            take: redisRateLimit(redis, { rps: rateLimit.rps, burst: rateLimit.burst, maxWaitMs, prefix }),
            takeBrowser: redisRateLimit(redis, { ...browserRateLimit, maxWaitMs, prefix }),
            takeDiscovery: redisRateLimit(redis, { ...discoveryRateLimit, maxWaitMs, prefix, bucket: 'discovery' }),
            takeBytes: redisRateLimit(redis, { rps: fileBytes.bytesPerSecond, burst: fileBytes.burst, maxWaitMs, prefix, bucket: 'bytes' }),
            slots: deps.shared.slots,
          }
        : undefined,
    queryGate: deps.queryGate ?? createQueryGate({ maxConcurrent: config.MAX_CONCURRENT_QUERIES, maxQueue: config.QUERY_QUEUE, maxWaitMs: config.QUERY_TIMEOUT_MS, maxParked: config.MAX_PARKED_RESPONSES }),
    maxUrlBytes: config.MAX_URL_BYTES,
    trustProxy: config.TRUST_PROXY,
    log: deps.log,
  };
}
