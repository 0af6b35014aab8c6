import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadDirect, prepareDirect } from './load-direct.js';
import { prepareLoad } from './load.js';
import { runIngest, type IngestOptions } from './pipeline.js';
import { readPrevious } from './previous.js';
import { abandonBuild, openBuild } from './publish.js';
import { readSources } from './read.js';
import { ingestMemory } from './settings.js';
import type { Report } from './report.js';
import { copyFixtures, dumpTables, query, tempDir } from './test-support.js';
import { prepareValidation } from './validate.js';

const hubs = new URL('../scripts/sample/hubs.geojson', import.meta.url).pathname;
const BETA = '10.25976/beta-bb22';

/** Runs one ingest and keeps its progress lines: they say which path ran. */
async function ingest(options: Omit<IngestOptions, 'log' | 'regionsFile'>): Promise<{ report: Report; progress: string[] }> {
  const progress: string[] = [];
  const report = await runIngest({ ...options, regionsFile: hubs, log: { info: () => {}, progress: (line) => progress.push(line) } });
  return { report, progress };
}

/** What a report says about the data, without timings. */
const outcome = (r: Report) => ({ published: r.published, error: r.error, datasets: r.datasets });

/**
 * The fixtures plus a gzipped file of 3,000 records whose middle was overwritten: DuckDB's reader does not fail
 * on it but finds malformed and invalid records, so the dataset goes through the line-by-line explanation.
 */
async function sources(dir: string): Promise<string> {
  const src = await copyFixtures(join(dir, 'src'));
  const [header, row] = (await readFile(join(src, 'gamma', 'b-good.csv'), 'utf8')).trim().split('\n');
  const rows = Array.from({ length: 3000 }, (_, i) => row!.replace('2017-09-10', `${1900 + (i % 120)}-09-10`).replace(',7.8,', `,${(i % 97) / 10},`));
  const gz = gzipSync(Buffer.from(`${[header, ...rows].join('\n')}\n`));
  gz.fill(0xff, Math.floor(gz.length / 2), Math.floor(gz.length / 2) + 40);
  await writeFile(join(src, 'gamma', 'c-damaged.csv.gz'), gz);
  return src;
}

describe('the direct path (one statement from CSV to observations)', () => {
  it('publishes the same tables and reports as the staged path', async () => {
    const dir = await tempDir();
    const src = await sources(dir);
    const direct = await ingest({ src, duckdbPath: join(dir, 'direct.duckdb') });
    const staged = await ingest({ src, duckdbPath: join(dir, 'staged.duckdb'), path: 'staged' });
    expect(direct.progress.some((l) => /read, validated and sorted in one pass .* rows\/s\)$/.test(l))).toBe(true);
    // A line per file, as on the staged path.
    expect(direct.progress.find((l) => l.startsWith('alpha/part-2.csv:'))).toBe('alpha/part-2.csv: 17 rows');
    expect(direct.progress.filter((l) => /explained line by line/.test(l)).map((l) => l.split(':')[0])).toEqual(['10.25976/alph-aa11', '10.25976/gamm-cc33']);
    expect(direct.progress.some((l) => /file by file instead/.test(l))).toBe(false);
    expect(staged.progress.some((l) => /read, validated and sorted/.test(l))).toBe(false);
    const gamma = direct.report.datasets.find((d) => d.DOI === '10.25976/gamm-cc33')!;
    expect(gamma.rowsRejected).toBeGreaterThan(1);
    expect(gamma.rowsLoaded).toBeGreaterThan(1000);
    expect(outcome(direct.report)).toEqual(outcome(staged.report));
    expect(await dumpTables(join(dir, 'direct.duckdb'))).toEqual(await dumpTables(join(dir, 'staged.duckdb')));
  });

  it('publishes the same rows, Ids and statistics in one batch per dataset as in one batch for all', async () => {
    const dir = await tempDir();
    const src = await sources(dir);
    const one = await ingest({ src, duckdbPath: join(dir, 'one.duckdb') });
    const many = await ingest({ src, duckdbPath: join(dir, 'many.duckdb'), batchBytes: 1 });
    expect(one.progress.filter((l) => /in one pass/.test(l))).toHaveLength(1);
    const passes = many.progress.filter((l) => /in one pass \(batch \d+ of \d+\)/.test(l));
    expect(passes.length).toBe(many.report.datasets.filter((d) => d.status === 'loaded').length);
    expect(passes.length).toBeGreaterThan(2);
    expect(many.progress.some((l) => /file by file instead/.test(l))).toBe(false);
    expect(outcome(many.report)).toEqual(outcome(one.report));
    expect(await dumpTables(join(dir, 'many.duckdb'))).toEqual(await dumpTables(join(dir, 'one.duckdb')));

    // Again on top of a publication: changed datasets are renumbered after the kept one, batch by batch.
    for (const folder of ['alpha', 'gamma']) await writeFile(join(src, folder, 'metadata.json'), `${await readFile(join(src, folder, 'metadata.json'), 'utf8')}\n`);
    const oneAgain = await ingest({ src, duckdbPath: join(dir, 'one.duckdb') });
    const manyAgain = await ingest({ src, duckdbPath: join(dir, 'many.duckdb'), batchBytes: 1 });
    expect(manyAgain.progress.filter((l) => /in one pass \(batch \d of 2\)/.test(l))).toHaveLength(2);
    expect(outcome(manyAgain.report)).toEqual(outcome(oneAgain.report));
    expect(await dumpTables(join(dir, 'many.duckdb'))).toEqual(await dumpTables(join(dir, 'one.duckdb')));
  });

  it('falls back to the staged path when a changed dataset has no valid row, keeping its published version', async () => {
    const dir = await tempDir();
    const src = await sources(dir);
    const db = join(dir, 'direct.duckdb');
    await ingest({ src, duckdbPath: db });
    await cp(db, join(dir, 'staged.duckdb'));
    const betaBefore = await query(db, `SELECT * FROM observations WHERE "DOI" = '${BETA}' ORDER BY "Id"`);
    await rm(join(src, 'beta', 'data.csv.gz'));
    await writeFile(join(src, 'beta', 'data.csv'), 'DatasetName,MonitoringLocationID\n');
    const direct = await ingest({ src, duckdbPath: db });
    const staged = await ingest({ src, duckdbPath: join(dir, 'staged.duckdb'), path: 'staged' });
    expect(direct.progress.find((l) => /file by file instead/.test(l))).toMatch(/10\.25976\/beta-bb22 has no valid row|no readable data file/);
    expect(direct.report.datasets.find((d) => d.DOI === BETA)).toMatchObject({ status: 'failed', error: expect.stringMatching(/published version, if any, is kept/) });
    expect(await query(db, `SELECT * FROM observations WHERE "DOI" = '${BETA}' ORDER BY "Id"`)).toEqual(betaBefore);
    expect(outcome(direct.report)).toEqual(outcome(staged.report));
    expect(await dumpTables(db)).toEqual(await dumpTables(join(dir, 'staged.duckdb')));
  });

  it('gives up, untouched reports and all, when a file cannot be read', async () => {
    const dir = await tempDir();
    const src = await copyFixtures(join(dir, 'src'), ['beta', 'gamma']);
    const { datasets } = await readSources(src);
    const build = await openBuild(join(dir, 'x.duckdb'));
    try {
      const prev = await readPrevious(build.conn, build.hasPrevious);
      await prepareValidation(build.conn);
      await prepareLoad(build.conn, ingestMemory());
      await prepareDirect(build.conn);
      await rm(join(src, 'gamma', 'b-good.csv'));
      const outcome = await loadDirect(build.conn, datasets, prev, { maxRejects: 10, batchBytes: ingestMemory().batchBytes });
      expect(outcome).toEqual({ loaded: false, reason: expect.stringMatching(/could not be read in one pass.*b-good\.csv/) });
      expect(datasets.map((d) => [d.report.rowsRead, d.report.rowsLoaded])).toEqual([[0, 0], [0, 0]]);
    } finally {
      await abandonBuild(build);
    }
  });
});
