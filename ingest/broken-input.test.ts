/**
 * A corpus of broken input files, each added beside a published dataset: every one is refused with its file (and
 * its line, where a line is to blame), and the published hub is unchanged by it — nothing half-read is published.
 * Regression tests of an adversarial read: a truncated `.csv.gz` published its readable prefix, a symlink was
 * followed outside SRC, one Latin-1 byte in the first 64 KiB rejected a whole file as "the header is not valid UTF-8",
 * a thousand unknown columns failed with DuckDB's expression depth limit, NUL bytes were served raw.
 */
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { constants, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { runIngest } from './pipeline.js';
import type { DatasetReport } from './report.js';
import { copyFixtures, dumpTables, query, tempDir } from './test-support.js';

const BROKEN = '10.80052/broken-input';
const ROWS = 2000;

/** A valid dataset of ROWS rows, one per day, in the upload format (alpha's first row as the template). */
async function csvOf(rows = ROWS): Promise<{ header: string; lines: string[] }> {
  const [header = '', first = ''] = (await readFile(new URL('./fixtures/src/alpha/part-1.csv', import.meta.url), 'utf8')).split('\n');
  const day = (i: number) => new Date(Date.UTC(2020, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
  return { header, lines: Array.from({ length: rows }, (_, i) => first.replace('2021-06-02', day(i))) };
}
const text = (header: string, lines: readonly string[]) => `${header}\n${lines.join('\n')}\n`;

/** Each case writes the broken dataset's data file(s) into `folder`. */
type Case = readonly [name: string, write: (folder: string, outside: string) => Promise<void>, expect: (d: DatasetReport) => void];

const failsNaming = (file: string, why: RegExp) => (d: DatasetReport) => {
  expect(d.status).toBe('failed');
  expect(d.rowsLoaded).toBe(0);
  expect(d.error).toContain(`broken/${file}`);
  expect(d.error).toMatch(why);
};

const gzipped = async () => gzipSync(text((await csvOf()).header, (await csvOf()).lines));
/** The gzip trailer: CRC-32 then the length, little-endian, in the last 8 bytes. */
const tamper = (gz: Buffer, fromEnd: number) => {
  const copy = Buffer.from(gz);
  copy[copy.length - fromEnd] = copy[copy.length - fromEnd]! ^ 0xff;
  return copy;
};

const CASES: readonly Case[] = [
  ['a .csv.gz cut on a record boundary (1,500 of 2,000 rows, no end of stream)', async (folder) => {
    const { header, lines } = await csvOf();
    // A sync flush ends the deflate data on a byte boundary after the 1,500th row, without the final block and trailer.
    await writeFile(join(folder, 'data.csv.gz'), gzipSync(text(header, lines.slice(0, 1500)), { finishFlush: constants.Z_SYNC_FLUSH }));
  }, failsNaming('data.csv.gz', /damaged gzip file: it ends before its gzip stream does \(truncated/)],
  ['a .csv.gz cut mid-record', async (folder) => {
    const gz = await gzipped();
    await writeFile(join(folder, 'data.csv.gz'), gz.subarray(0, Math.floor(gz.length / 2)));
  }, failsNaming('data.csv.gz', /truncated/)],
  ['a .csv.gz without its trailer', async (folder) => {
    const gz = await gzipped();
    await writeFile(join(folder, 'data.csv.gz'), gz.subarray(0, gz.length - 8));
  }, failsNaming('data.csv.gz', /truncated/)],
  ['a .csv.gz whose CRC-32 is wrong', async (folder) => {
    await writeFile(join(folder, 'data.csv.gz'), tamper(await gzipped(), 8));
  }, failsNaming('data.csv.gz', /CRC-32 checksum \(corrupt\)/)],
  ['a .csv.gz whose length is wrong', async (folder) => {
    await writeFile(join(folder, 'data.csv.gz'), tamper(await gzipped(), 1));
  }, failsNaming('data.csv.gz', /length in the gzip stream's trailer \(corrupt\)/)],
  ['a data file that is a symbolic link outside SRC', async (folder, outside) => {
    await writeFile(join(outside, 'elsewhere.csv'), text((await csvOf()).header, (await csvOf()).lines));
    await symlink(join(outside, 'elsewhere.csv'), join(folder, 'data.csv'));
  }, failsNaming('data.csv', /symbolic link to .*elsewhere\.csv, outside SRC/)],
  ['a metadata.json that is a symbolic link outside SRC', async (folder, outside) => {
    await writeFile(join(folder, 'data.csv'), text((await csvOf()).header, (await csvOf()).lines));
    await writeFile(join(outside, 'metadata.json'), JSON.stringify({ DOI: BROKEN, DatasetName: 'linked' }));
    await rm(join(folder, 'metadata.json'));
    await symlink(join(outside, 'metadata.json'), join(folder, 'metadata.json'));
  }, (d) => {
    expect(d.status).toBe('failed');
    expect(d.error).toMatch(/broken\/metadata\.json is a symbolic link to .*, outside SRC/);
  }],
  ['a header with a Latin-1 byte', async (folder) => {
    const { header, lines } = await csvOf(3);
    await writeFile(join(folder, 'data.csv'), Buffer.concat([Buffer.from(header.replace('ResultComment', 'ResultComment\xe9'), 'latin1'), Buffer.from(`\n${lines.join('\n')}\n`)]));
  }, (d) => {
    expect(d.rejects).toEqual([expect.objectContaining({ file: 'broken/data.csv', line: 1, reason: expect.stringMatching(/header is not valid UTF-8 \(column 34\)/) })]);
  }],
];

describe('broken input files beside a published dataset', () => {
  let dir: string;
  let db: string;
  let published: Record<string, unknown[]>;
  beforeAll(async () => {
    dir = await tempDir();
    db = join(dir, 'hub.duckdb');
    const src = await copyFixtures(join(dir, 'src'), ['alpha']);
    expect((await runIngest({ src, duckdbPath: db })).published).toBe(true);
    published = await dumpTables(db);
  });

  it.each(CASES)('%s is refused and publishes nothing of it', async (name, write, check) => {
    const src = join(dir, `src-${CASES.findIndex((c) => c[0] === name)}`);
    await copyFixtures(src, ['alpha']);
    const folder = join(src, 'broken');
    const outside = join(dir, `outside-${CASES.findIndex((c) => c[0] === name)}`);
    await mkdir(folder, { recursive: true });
    await mkdir(outside, { recursive: true });
    await writeFile(join(folder, 'metadata.json'), JSON.stringify({ DOI: BROKEN, DatasetName: 'Broken input' }));
    await write(folder, outside);
    const report = await runIngest({ src, duckdbPath: db });
    const broken = report.datasets.find((d) => d.DOI === BROKEN || d.error?.includes('broken/'));
    expect(broken, JSON.stringify(report.datasets)).toBeDefined();
    check(broken!);
    if (broken!.status === 'failed') {
      expect(await dumpTables(db)).toEqual(published);
      expect(await query(db, `SELECT count(*)::INTEGER AS n FROM datasets WHERE "DOI" = '${BROKEN}'`)).toEqual([{ n: 0 }]);
    }
  });
});

/** Input that is not wrong as a whole: the dataset loads, and only what is wrong is refused, with its line. */
describe('input with a flaw in some rows or columns', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir();
  });

  async function ingestOne(name: string, data: Buffer | string): Promise<{ report: DatasetReport; db: string }> {
    const folder = join(dir, name, 'src', 'broken');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'metadata.json'), JSON.stringify({ DOI: BROKEN, DatasetName: 'Broken input' }));
    await writeFile(join(folder, 'data.csv'), data);
    const db = join(dir, name, 'hub.duckdb');
    const report = await runIngest({ src: join(dir, name, 'src'), duckdbPath: db });
    return { report: report.datasets[0]!, db };
  }

  it('a Latin-1 byte in row 20, inside the first 64 KiB, rejects that row alone with its line', async () => {
    const { header, lines } = await csvOf(40);
    const rows = lines.map((l, i) => Buffer.from(i === 19 ? l.replace('Accepted', 'Accept\xe9d') : l, i === 19 ? 'latin1' : 'utf8'));
    const { report } = await ingestOne('latin1-row', Buffer.concat([Buffer.from(`${header}\n`), ...rows.flatMap((r) => [r, Buffer.from('\n')])]));
    expect(report.status).toBe('loaded');
    expect([report.rowsRead, report.rowsLoaded, report.rowsRejected]).toEqual([40, 39, 1]);
    expect(report.rejects.map((r) => `${r.file}:${r.line}`)).toEqual(['broken/data.csv:21']);
  });

  it('a thousand unknown columns are ignored with a warning each, as documented', async () => {
    const { header, lines } = await csvOf(5);
    const extra = Array.from({ length: 1000 }, (_, i) => `Extra${i}`);
    const { report } = await ingestOne('wide', text(`${header},${extra.join(',')}`, lines.map((l) => `${l},${extra.map(() => 'x').join(',')}`)));
    expect([report.status, report.rowsLoaded]).toEqual(['loaded', 5]);
    expect(report.warnings.filter((w) => /unknown column 'Extra\d+'/.test(w.message ?? ''))).toHaveLength(1000);
  });

  it('a NUL byte in a value rejects its row with its line and column, and is never published', async () => {
    const { header, lines } = await csvOf(10);
    const { report, db } = await ingestOne('nul', text(header, lines.map((l, i) => (i === 4 ? l.replace('North Saskatchewan', 'North Sask\0atchewan') : l))));
    expect([report.status, report.rowsLoaded, report.rowsRejected]).toEqual(['loaded', 9, 1]);
    expect(report.rejects).toEqual([expect.objectContaining({ file: 'broken/data.csv', line: 6, column: 'MonitoringLocationName', reason: expect.stringMatching(/NUL byte/) })]);
    expect(await query(db, `SELECT count(*)::INTEGER AS n FROM locations WHERE contains("Name", chr(0))`)).toEqual([{ n: 0 }]);
  });
});
