import { writeFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runIngest, type IngestOptions } from './pipeline.js';
import { abandonBuild, openBuild } from './build-file.js';
import { readSources } from './read.js';
import type { Report } from './report.js';
import { copyFixtures, copyPublishedFile, dumpTables, query, tempDir } from './test-support.js';
import { prepareValidation, stageDataset } from './validate.js';

const hubs = new URL('../scripts/sample/hubs.geojson', import.meta.url).pathname;
const BETA = '10.25976/beta-bb22';

/** Runs one ingest and keeps its progress lines: they say what the load did. */
async function ingest(options: Omit<IngestOptions, 'log' | 'regionsFile'>): Promise<{ report: Report; progress: string[] }> {
  const progress: string[] = [];
  const report = await runIngest({ ...options, regionsFile: hubs, log: { info: () => {}, progress: (line) => progress.push(line) } });
  return { report, progress };
}

/** What a report says about the data, without timings; rejects files by name (their folder follows DUCKDB_PATH). */
const outcome = (r: Report) => ({ published: r.published, error: r.error, datasets: r.datasets.map((d) => ({ ...d, rejectsFile: d.rejectsFile && basename(d.rejectsFile) })) });

/**
 * The fixtures plus a file of 3,000 records whose middle was overwritten: DuckDB's reader does not fail on it but
 * finds malformed and invalid records, so the dataset goes through the line-by-line explanation. (A gzipped file so
 * damaged is refused whole at read: broken-input.test.ts.)
 */
async function sources(dir: string): Promise<string> {
  const src = await copyFixtures(join(dir, 'src'));
  const [header, row] = (await readFile(join(src, 'gamma', 'b-good.csv'), 'utf8')).trim().split('\n');
  const rows = Array.from({ length: 3000 }, (_, i) => row!.replace('2017-09-10', `${1900 + (i % 120)}-09-10`).replace(',7.8,', `,${(i % 97) / 10},`));
  const csv = Buffer.from(`${[header, ...rows].join('\n')}\n`);
  for (const at of [0.25, 0.5, 0.75]) csv.fill(0xff, Math.floor(csv.length * at), Math.floor(csv.length * at) + 40);
  await writeFile(join(src, 'gamma', 'c-damaged.csv'), csv);
  return src;
}

/**
 * The sources ingested into an empty file, once for the file: every test starts from this publication (a copy of
 * it) or compares with its report, so each test ingests only what it changes.
 */
let first: Promise<{ report: Report; progress: string[]; db: string }> | undefined;
function firstIngest(): Promise<{ report: Report; progress: string[]; db: string }> {
  first ??= (async () => {
    const dir = await tempDir();
    const db = join(dir, 'one.duckdb');
    return { ...(await ingest({ src: await sources(dir), duckdbPath: db })), db };
  })();
  return first;
}

/** A copy of the first ingest's file at `to`, with its dataset files. */
async function firstPublished(to: string): Promise<{ report: Report; progress: string[] }> {
  const { db, ...rest } = await firstIngest();
  await copyPublishedFile(db, to);
  return rest;
}

/** What staging each dataset line by line on its own reports: the truth the one pass must agree with. */
async function stagedAlone(src: string, dir: string) {
  const { datasets } = await readSources(src);
  const build = await openBuild(join(dir, 'staged-alone.duckdb'));
  try {
    await prepareValidation(build.conn);
    const out = new Map<string, { rowsRead: number; rowsRejected: number; rejects: readonly unknown[]; rowsValid: number }>();
    for (const ds of datasets) {
      const { rowsRead, rowsRejected, rejects, rowsValid } = await stageDataset(build.conn, ds, 'alone', { maxRejects: 1000 });
      out.set(ds.metadata.DOI, { rowsRead, rowsRejected, rejects, rowsValid });
    }
    return out;
  } finally {
    await abandonBuild(build);
  }
}

// Each test publishes up to four times (one batch per dataset among them): more than the default minute on a busy machine.
describe('the load (one statement from CSV to observations per batch)', { timeout: 180_000 }, () => {
  it('counts what staging line by line counts, and explains only the datasets with something to explain', async () => {
    const dir = await tempDir();
    const src = await sources(dir);
    const { report, progress } = await firstIngest();
    expect(progress.some((l) => /read, validated and sorted in one pass .* rows\/s\)$/.test(l))).toBe(true);
    expect(progress.find((l) => l.startsWith('alpha/part-2.csv:'))).toBe('alpha/part-2.csv: 17 rows');
    expect(progress.filter((l) => /explained line by line/.test(l)).map((l) => l.split(':')[0])).toEqual(['10.25976/alph-aa11', '10.25976/gamm-cc33']);
    const gamma = report.datasets.find((d) => d.DOI === '10.25976/gamm-cc33')!;
    expect(gamma.rowsRejected).toBeGreaterThan(1);
    expect(gamma.rowsLoaded).toBeGreaterThan(1000);
    const alone = await stagedAlone(src, dir);
    for (const d of report.datasets.filter((x) => x.status === 'loaded')) {
      const s = alone.get(d.DOI!)!;
      expect({ rowsRead: d.rowsRead, rowsRejected: d.rowsRejected, rejects: d.rejects, rowsValid: d.rowsLoaded }, d.DOI!).toEqual(s);
    }
  });

  it('publishes the same rows, Ids and statistics in one batch per dataset as in one batch for all', async () => {
    const dir = await tempDir();
    const src = await sources(dir);
    const one = await firstPublished(join(dir, 'one.duckdb'));
    const many = await ingest({ src, duckdbPath: join(dir, 'many.duckdb'), batchBytes: 1 });
    expect(one.progress.filter((l) => /in one pass/.test(l))).toHaveLength(1);
    const passes = many.progress.filter((l) => /in one pass \(batch \d+ of \d+\)/.test(l));
    expect(passes.length).toBe(many.report.datasets.filter((d) => d.status === 'loaded').length);
    expect(passes.length).toBeGreaterThan(2);
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

  it('fails a changed dataset with no valid row on its own, keeping its published version', async () => {
    const dir = await tempDir();
    const src = await sources(dir);
    const db = join(dir, 'one.duckdb');
    await firstPublished(db);
    const before = await dumpTables(db);
    // A file whose header misses required columns: no readable file at all.
    await rm(join(src, 'beta', 'data.csv.gz'));
    await writeFile(join(src, 'beta', 'data.csv'), 'DatasetName,MonitoringLocationID\n');
    const unreadable = await ingest({ src, duckdbPath: db, batchBytes: 1 });
    expect(unreadable.report.published).toBe(true);
    expect(unreadable.report.datasets.find((d) => d.DOI === BETA)).toMatchObject({ status: 'failed', rowsRead: 0, error: 'no valid row in beta; 0 rejected, see rejects (the published version, if any, is kept)' });
    expect(unreadable.report.datasets.filter((d) => d.DOI !== BETA && d.DOI !== 'not-a-doi').map((d) => d.status)).toEqual(['unchanged', 'unchanged']);
    expect(await dumpTables(db)).toEqual(before);
    // Rows that are all invalid: each reported, none loaded.
    const fixture = (await readFile(new URL('./fixtures/src/beta/data.csv', import.meta.url), 'utf8')).replaceAll(',Surface Water,', ',Surface Waterx,');
    await writeFile(join(src, 'beta', 'data.csv'), fixture);
    const invalid = await ingest({ src, duckdbPath: db });
    expect(invalid.report.datasets.find((d) => d.DOI === BETA)).toMatchObject({ status: 'failed', rowsRead: 4, rowsRejected: 4, rowsLoaded: 0, error: expect.stringMatching(/^no valid row in beta; 4 rejected, see rejects/) });
    expect(invalid.report.datasets.find((d) => d.DOI === BETA)!.rejects.map((r) => `${r.line} ${r.column}`)).toEqual(['2 ActivityMediaName', '3 ActivityMediaName', '4 ActivityMediaName', '5 ActivityMediaName']);
    expect(await dumpTables(db)).toEqual(before);
  });

  it('rejects a file DuckDB cannot read in one statement on its own, and loads the rest of its dataset and batch', async () => {
    const dir = await tempDir();
    const src = await sources(dir);
    const without = await firstPublished(join(dir, 'without.duckdb'));
    // A file replaced between read and load (read judged the gzip whole): by a gzip member followed by garbage, whose
    // header reads and which DuckDB's reader fails on at the end of the stream (of a file larger than its first
    // read; a small one it reads whole and does not fail on). One batch per dataset, so it is swapped in once
    // alpha's batch is done and beta's is next.
    const [header, row] = (await readFile(new URL('./fixtures/src/beta/data.csv', import.meta.url), 'utf8')).split('\n');
    const gz = gzipSync(`${[header, ...Array.from({ length: 20_000 }, () => row)].join('\n')}\n`);
    const extra = join(src, 'beta', 'extra.csv.gz');
    await writeFile(extra, gz);
    const db = join(dir, 'with.duckdb');
    const progress: string[] = [];
    const swap = (line: string) => {
      progress.push(line);
      if (/in one pass \(batch 1 of/.test(line)) writeFileSync(extra, Buffer.concat([gz, Buffer.from('garbage after the gzip member')]));
    };
    const report = await runIngest({ src, duckdbPath: db, batchBytes: 1, regionsFile: hubs, log: { info: () => {}, progress: swap } });
    expect(report.published).toBe(true);
    expect(progress).toContain('beta/extra.csv.gz: cannot be read in one statement; reported as rejected');
    const beta = report.datasets.find((d) => d.DOI === BETA)!;
    expect(beta).toMatchObject({ status: 'loaded', rowsRead: 4, rowsLoaded: 4, rowsRejected: 0 });
    expect(beta.rejects).toEqual([{ file: 'beta/extra.csv.gz', line: 1, column: null, reason: expect.stringMatching(/^file rejected: IO Error: Input is not a GZIP stream/) }]);
    // Apart from that reject and the file's warning, the same as without the file.
    const strip = (r: Report) => outcome(r).datasets.map((d) => (d.DOI === BETA ? { ...d, rejects: [], rejectsFile: undefined, warnings: d.warnings.filter((w) => w.file !== 'beta/extra.csv.gz') } : d));
    expect(strip(report)).toEqual(strip(without.report));
    // The datasets' content hashes differ: beta has one more file.
    const tables = async (path: string) => {
      const all = await dumpTables(path);
      return { ...all, datasets: all.datasets!.map((d) => ({ ...(d as object), content_hash: null })) };
    };
    expect(await tables(db)).toEqual(await tables(join(dir, 'without.duckdb')));
    expect(await query(db, `SELECT count(*)::INTEGER AS n FROM observations WHERE "DOI" = '${BETA}'`)).toEqual([{ n: 4 }]);
  });
});
