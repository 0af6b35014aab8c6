import { describe, expect, it } from 'vitest';
import { colocatedDefaults } from './topology.js';

describe('co-located replicas', () => {
  it("divide a lone server's DuckDB threads, query slots and cursors among them, never below a working minimum", () => {
    expect(colocatedDefaults(1, 2)).toEqual({ DUCKDB_THREADS: '2', MAX_CONCURRENT_QUERIES: '8', CURSOR_CACHE_SIZE: '4' });
    expect(colocatedDefaults(3, 2)).toEqual({ DUCKDB_THREADS: '1', MAX_CONCURRENT_QUERIES: '3', CURSOR_CACHE_SIZE: '2' });
    expect(colocatedDefaults(2, 8)).toEqual({ DUCKDB_THREADS: '4', MAX_CONCURRENT_QUERIES: '4', CURSOR_CACHE_SIZE: '2' });
    expect(colocatedDefaults(16, 2)).toEqual({ DUCKDB_THREADS: '1', MAX_CONCURRENT_QUERIES: '2', CURSOR_CACHE_SIZE: '1' });
  });
});
