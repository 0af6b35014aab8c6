import { describe, expect, it } from 'vitest';
import { loadApiConfig } from '../../config.js';
import { LIBUV_DEFAULT_THREADS, LIBUV_MAX_THREADS, threadPoolSize } from './thread-pool.js';

describe('threadPoolSize (UV_THREADPOOL_SIZE)', () => {
  it('one thread per admitted query and per waiting cursor, plus libuv’s own 4', () => {
    expect(threadPoolSize({ maxConcurrentQueries: 8, cursorCacheSize: 4 })).toBe(8 + 4 + LIBUV_DEFAULT_THREADS);
    expect(threadPoolSize({ maxConcurrentQueries: 1, cursorCacheSize: 0 })).toBe(5);
  });

  it('is at most what libuv accepts (it would silently use 1024)', () => {
    expect(threadPoolSize({ maxConcurrentQueries: 1024, cursorCacheSize: 1024 })).toBe(LIBUV_MAX_THREADS);
  });

  it('with the default settings: 16', () => {
    const config = loadApiConfig({});
    expect(threadPoolSize({ maxConcurrentQueries: config.MAX_CONCURRENT_QUERIES, cursorCacheSize: config.CURSOR_CACHE_SIZE })).toBe(16);
  });
});
