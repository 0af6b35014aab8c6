import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { defaultMemoryLimitMiB, duckdbMemory, reservedMiB } from './duckdb-memory.js';
import { openSnapshot } from './snapshot.js';

const GIB = 2 ** 30;
const dir = mkdtempSync(join(tmpdir(), 'tributary-duckdb-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('defaultMemoryLimitMiB: min(½ × (RAM − reserved), MAX_CONCURRENT_QUERIES × 1 GiB), at least 256 MiB', () => {
  it.each([
    ['24 GiB, the defaults (8 queries, 4 cursors): docs/deployment.md\'s figure', 24, 8, 4, 8192],
    ['24 GiB, 2 replicas\' share of the queries', 24, 4, 2, 4096],
    ['4 GiB: half of what Node and the small instances leave', 4, 8, 4, 1328],
    ['1 GiB: the floor', 1, 8, 4, 256],
    ['64 GiB, 16 queries', 64, 16, 4, 16_384],
  ])('%s', (_name, ram, queries, cursors, mib) => {
    expect(defaultMemoryLimitMiB({ totalMemBytes: ram * GIB, maxConcurrentQueries: queries, cursorCacheSize: cursors })).toBe(mib);
  });

  it('reserves Node, the export instance and the cursor instance', () => {
    expect(reservedMiB(4)).toBe(1024 + 256 + 64 + 32 * 3);
    expect(reservedMiB(0)).toBe(1024 + 256);
  });

  it('spills twice the memory limit, at most half the free space; the operator\'s settings win', () => {
    const machine = { totalMemBytes: 24 * GIB, maxConcurrentQueries: 8, cursorCacheSize: 4 };
    expect(duckdbMemory({ ...machine, freeTempBytes: 100 * GIB })).toEqual({ memoryLimit: '8192MiB', maxTempDirectorySize: '16384MiB' });
    expect(duckdbMemory({ ...machine, freeTempBytes: 10 * GIB })).toEqual({ memoryLimit: '8192MiB', maxTempDirectorySize: '5120MiB' });
    expect(duckdbMemory(machine, { memoryLimit: '2GiB', maxTempDirectorySize: '0 bytes' })).toEqual({ memoryLimit: '2GiB', maxTempDirectorySize: '0 bytes' });
  });
});

describe("the API's query instance", () => {
  it('reports the derived memory limit and spill bound, and spills in a folder of its own under the temp directory', async () => {
    const derived = duckdbMemory({ totalMemBytes: 24 * GIB, freeTempBytes: 100 * GIB, maxConcurrentQueries: 8, cursorCacheSize: 4 });
    const snapshot = await openSnapshot(inject('apiFixtureDb'), { memoryLimit: derived.memoryLimit, maxTempDirectorySize: derived.maxTempDirectorySize, tempDirectory: dir });
    try {
      const cols = await snapshot.columns({
        sql: `SELECT current_setting('memory_limit') AS m, current_setting('max_temp_directory_size') AS t, current_setting('temp_directory') AS d`,
        params: [],
      });
      expect(cols['m']?.[0]).toBe('8.0 GiB');
      expect(cols['t']?.[0]).toBe('16.0 GiB');
      expect(String(cols['d']?.[0])).toMatch(new RegExp(`^${dir}/snapshot-${process.pid}-\\d+$`));
    } finally {
      await snapshot.close();
    }
    // Nothing left behind once it closes.
    expect(readdirSync(dir).filter((f) => existsSync(join(dir, f)) && readdirSync(join(dir, f)).length > 0)).toEqual([]);
  });
});
