import { DuckDBInstance } from '@duckdb/node-api';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSample } from '../scripts/sample/generate.js';
import { runIngest } from './pipeline.js';
import { dumpTables, query, tempDir } from './test-support.js';
import { DEFAULT_PERIODS, parsePeriods, resolvePeriods } from './trends/trend-periods.js';
import { latestUsableYear } from './trends/trend-sql.js';
import { writeTrends } from './trends/write-trends.js';

/**
 * Issue 55: a bounded INGEST_MEMORY_LIMIT (the default is a fixed size, settings.ts) makes the build sort in more,
 * smaller batches and DuckDB spill what does not fit; it must change nothing that is published. The sample (every
 * stage's input: censored values, quality-control samples, guideline pairs, trends) is ingested under the smallest
 * limit ingest accepts and under a generous one: the same rows, Ids, statistics, comparisons, index, trends, and
 * the same dataset files byte for byte (their hashes).
 */
const hubs = new URL('../scripts/sample/hubs.geojson', import.meta.url).pathname;
const files = (path: string) => query(path, 'SELECT "DOI", "Format", "Sha256", "Bytes", "Rows" FROM dataset_files ORDER BY ALL');

describe('the memory limit changes nothing published', { timeout: 300_000 }, () => {
  it('publishes the same tables and files under 128 MiB in many batches as under 4 GiB in one', async () => {
    const dir = await tempDir();
    const src = join(dir, 'sample');
    await generateSample({ rows: 30_000, out: src, seed: 11, gzipAll: true }, () => {});
    const quiet = { info: () => {} };
    const roomy = join(dir, 'roomy', 'tributary.duckdb');
    const small = join(dir, 'small', 'tributary.duckdb');
    const batches: string[] = [];
    await runIngest({ src, duckdbPath: roomy, regionsFile: hubs, log: quiet, memoryLimitBytes: 2 ** 32 });
    const report = await runIngest({ src, duckdbPath: small, regionsFile: hubs, memoryLimitBytes: 2 ** 27, batchBytes: 2 ** 20, log: { ...quiet, progress: (l) => batches.push(l) } });
    expect(report.error, JSON.stringify(report.datasets.map((d) => d.error ?? d.rejects?.[0]).slice(0, 3))).toBeUndefined();
    expect(batches.filter((l) => /in one pass \(batch \d+ of \d+\)/.test(l)).length).toBeGreaterThan(2);
    const published = await dumpTables(small);
    for (const table of ['observations', 'guideline_comparisons', 'water_quality_index', 'trends'] as const) expect(published[table]!.length, table).toBeGreaterThan(0);
    expect(published).toEqual(await dumpTables(roomy));
    const hashes = await files(small);
    expect(hashes.length).toBeGreaterThan(0);
    expect(hashes).toEqual(await files(roomy));

    // Below what a batch needs, the build runs out of memory: that is the limit's fault, not the files'. It once
    // read as every file "cannot be read in one statement" and every dataset "no valid row".
    const starved = join(dir, 'starved', 'tributary.duckdb');
    const failure = await runIngest({ src, duckdbPath: starved, regionsFile: hubs, memoryLimitBytes: 2 ** 23, log: quiet }).then(
      (r) => `published: ${r.published}, ${r.error ?? ''}`,
      (err: unknown) => String(err),
    );
    expect(failure).toMatch(/Out of Memory[\s\S]*raise it, e\.g\. INGEST_MEMORY_LIMIT=2GB; nothing was published/);

    // The trends stage computes a slice of locations at a time: slices of a few hundred observations write the
    // same rows, in the same (Id) order, as the published slices.
    const copy = join(dir, 'trends.duckdb');
    await copyFile(roomy, copy);
    const instance = await DuckDBInstance.create(copy);
    const conn = await instance.connect();
    try {
      const stored = async () => (await conn.runAndReadAll('SELECT * FROM trends ORDER BY rowid')).getRowObjectsJson();
      const published = await stored();
      await conn.run('DELETE FROM trends');
      const periods = resolvePeriods(parsePeriods(DEFAULT_PERIODS), await latestUsableYear(conn, { kind: 'build' }));
      const written = await writeTrends(conn, { kind: 'build' }, periods, 500);
      expect(written.rows).toBe(published.length);
      expect(await stored()).toEqual(published);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });
});
