import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../testing/fixture-db.js';
import { loadApiConfig } from '../config.js';
import { LIBUV_DEFAULT_THREADS, LIBUV_MAX_THREADS, threadPoolSize } from './thread-pool.js';

describe('threadPoolSize (UV_THREADPOOL_SIZE)', () => {
  it('one thread per admitted query, per parked response and per waiting cursor, plus libuv’s own 4', () => {
    expect(threadPoolSize({ maxConcurrentQueries: 8, cursorCacheSize: 4 })).toBe(8 + 32 + 4 + LIBUV_DEFAULT_THREADS);
    expect(threadPoolSize({ maxConcurrentQueries: 8, maxParkedResponses: 8, cursorCacheSize: 4 })).toBe(8 + 8 + 4 + LIBUV_DEFAULT_THREADS);
    expect(threadPoolSize({ maxConcurrentQueries: 1, cursorCacheSize: 0 })).toBe(9);
  });

  it('is at most what libuv accepts (it would silently use 1024)', () => {
    expect(threadPoolSize({ maxConcurrentQueries: 1024, cursorCacheSize: 1024 })).toBe(LIBUV_MAX_THREADS);
  });

  it('with the default settings: 48', () => {
    const config = loadApiConfig({});
    expect(threadPoolSize({ maxConcurrentQueries: config.MAX_CONCURRENT_QUERIES, maxParkedResponses: config.MAX_PARKED_RESPONSES, cursorCacheSize: config.CURSOR_CACHE_SIZE })).toBe(48);
  });
});

describe('main.ts sizes the pool before anything starts it', () => {
  // libuv starts its pool at its first use and never resizes it; loading DuckDB's addon is such a use. So the API's
  // entry imports statically only what loads no addon, sets UV_THREADPOOL_SIZE, then imports the rest. (Under tsx,
  // the loader has started the pool before any entry runs: the bench's API, compiled, reports its pool's threads.)
  const source = readFileSync(join(REPO_ROOT, 'services/api/main.ts'), 'utf8');
  const statics = [...source.matchAll(/^import\s[^;]*?from\s+'([^']+)';/gms)].map((m) => m[1]);

  it('imports statically only the settings and the pool size, neither of which imports DuckDB', () => {
    expect(statics).toEqual(['./config.js', './limits/thread-pool.js']);
    for (const file of ['services/api/config.ts', 'services/api/limits/thread-pool.ts']) {
      expect(readFileSync(join(REPO_ROOT, file), 'utf8')).not.toMatch(/@duckdb|from '\.\/db\/|from '\.\.\/db\//);
    }
  });

  it('sets UV_THREADPOOL_SIZE before its first dynamic import', () => {
    const set = source.indexOf('process.env.UV_THREADPOOL_SIZE ??=');
    expect(set).toBeGreaterThan(0);
    expect(source.indexOf('await import(')).toBeGreaterThan(set);
  });
});
