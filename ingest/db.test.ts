import { describe, expect, it } from 'vitest';
import { ingestMemory, parseSize } from './db.js';

describe('INGEST_MEMORY_LIMIT', () => {
  it.each([
    ['8GB', 8e9],
    ['512MiB', 512 * 2 ** 20],
    ['1.5 gb', 1.5e9],
    ['2TiB', 2 * 2 ** 40],
    ['8', undefined],
    ['8 GBs', undefined],
    ['-1GB', undefined],
  ])('parses %s', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  it('defaults to half the RAM, batches a quarter of the limit, and refuses what DuckDB could not work in', () => {
    expect(ingestMemory({}, 24e9)).toEqual({ limitBytes: 12e9, batchBytes: 3e9 });
    expect(ingestMemory({ INGEST_MEMORY_LIMIT: '4GB' }, 24e9)).toEqual({ limitBytes: 4e9, batchBytes: 1e9 });
    expect(() => ingestMemory({ INGEST_MEMORY_LIMIT: '64MB' })).toThrow(/at least 128MiB/);
    expect(() => ingestMemory({ INGEST_MEMORY_LIMIT: 'lots' })).toThrow(/INGEST_MEMORY_LIMIT must be a size/);
  });
});
