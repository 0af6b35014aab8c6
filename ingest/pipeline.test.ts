import { appendFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { STORAGE_SCHEMA_VERSION, upstreamSource } from '../schemas/index.js';
import { datasetIdFromDoi } from './dataset-id.js';
import { runIngest } from './pipeline.js';
import { runRemove } from './remove.js';
import type { Report } from './report.js';
import { copyFixtures, copyPublishedFile, dumpTables, query, tempDir } from './test-support.js';

const hubs = new URL('../scripts/sample/hubs.geojson', import.meta.url).pathname;
const ALPHA = '10.25976/alph-aa11';
const BETA = '10.25976/beta-bb22';
const GAMMA = '10.25976/gamm-cc33';

async function ingestFixtures(dir: string, db = join(dir, 'db', 'tributary.duckdb')) {
  const src = await copyFixtures(join(dir, 'src'));
  const report = await runIngest({ src, duckdbPath: db, regionsFile: hubs });
  return { src, db, report };
}

/** The fixtures ingested into an empty file once for the file: read by the first describe, copied by the tests that change it. */
let first: ReturnType<typeof ingestFixtures> | undefined;
const firstIngest = async () => (first ??= tempDir().then((dir) => ingestFixtures(dir)));

/** A copy of the first ingest's file at `<dir>/db/`, and the fixtures to change, as a fresh ingest into `dir` leaves them. */
async function copyOfFirst(dir: string) {
  const { db: from } = await firstIngest();
  const db = join(dir, 'db', 'tributary.duckdb');
  await copyPublishedFile(from, db);
  return { src: await copyFixtures(join(dir, 'src')), db };
}

const byDoi = (report: Report, doi: string) => report.datasets.find((d) => d.DOI === doi);

describe('ingest of the fixture datasets', () => {
  let db: string;
  let report: Report;
  beforeAll(async () => {
    ({ db, report } = await firstIngest());
  });

  it('publishes and reports every dataset, with exact counts', () => {
    expect(report.published).toBe(true);
    const summary = report.datasets.map((d) => [d.DOI, d.status, d.rowsRead, d.rowsLoaded, d.rowsRejected]);
    expect(summary).toEqual([
      ['not-a-doi', 'failed', 0, 0, 0],
      [ALPHA, 'loaded', 25, 10, 15],
      [BETA, 'loaded', 4, 4, 0],
      [GAMMA, 'loaded', 1, 1, 0],
    ]);
    expect(byDoi(report, 'not-a-doi')?.error).toMatch(/metadata\.json is invalid: DOI/);
  });

  it('rejects bad rows with file, physical line, column and reason', () => {
    const rejects = byDoi(report, ALPHA)!.rejects.map((r) => `${r.file}:${r.line} ${r.column ?? '-'}`);
    expect(rejects).toEqual([
      'alpha/part-2.csv:3 MonitoringLocationName', 'alpha/part-2.csv:4 ActivityStartDate', 'alpha/part-2.csv:5 ActivityStartDate',
      'alpha/part-2.csv:6 ActivityStartTime', 'alpha/part-2.csv:7 ResultValue', 'alpha/part-2.csv:8 ResultValue', 'alpha/part-2.csv:9 ResultValue',
      'alpha/part-2.csv:10 MonitoringLocationLatitude', 'alpha/part-2.csv:11 MonitoringLocationLongitude', 'alpha/part-2.csv:12 ActivityMediaName',
      'alpha/part-2.csv:13 ResultValue', 'alpha/part-2.csv:14 ActivityStartTimeZone', 'alpha/part-2.csv:15 ResultValue',
      // Line 16-18 is a valid record with newlines in an ignored column; the malformed records follow it.
      'alpha/part-2.csv:20 -', 'alpha/part-2.csv:22 LaboratorySampleID',
    ]);
    expect(byDoi(report, ALPHA)!.rejects[1]?.reason).toBe("ActivityStartDate '2021-02-30' is not a calendar date (YYYY-MM-DD)");
    expect(byDoi(report, GAMMA)!.rejects).toEqual([
      { file: 'gamma/a-missing-column.csv', line: 1, column: 'CharacteristicName', reason: 'file rejected: required column CharacteristicName is missing from the header' },
    ]);
  });

  it('warns about unknown columns and conflicting locations (first occurrence wins)', async () => {
    const warnings = byDoi(report, ALPHA)!.warnings.filter((w) => w.rule === undefined);
    expect(warnings.map((w) => `${w.file}:${w.line}`)).toEqual(['alpha/part-2.csv:1', 'alpha/part-1.csv:8']);
    expect(warnings[1]?.message).toMatch(/HFX-1.*first at alpha\/part-1\.csv:7.*first occurrence/);
    const [hfx] = await query(db, `SELECT "Name" FROM locations WHERE "MonitoringLocationID" = 'HFX-1'`);
    expect(hfx?.Name).toBe('Sackville River, Halifax');
  });

  it('writes datasets with stable Ids, TemporalExtent and content hash, in Id text order', async () => {
    const rows = await query(db, 'SELECT CAST("Id" AS VARCHAR) AS id, "DOI", "TemporalExtent" AS te, "Keywords", content_hash FROM datasets');
    expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort());
    const alpha = rows.find((r) => r.DOI === ALPHA)!;
    expect(alpha.id).toBe(datasetIdFromDoi(ALPHA));
    expect(alpha.te).toEqual(['2019-12-31', '2024-02-29']);
    expect(alpha.Keywords).toEqual(['river', 'pH']);
    expect(rows.find((r) => r.DOI === BETA)!.id).toBe('5f0c8f8e-3d7a-4c1e-9a53-2f4f1d6f7a10');
    expect(String(alpha.content_hash)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('makes one location per (DOI, MonitoringLocationID), each with a contiguous Id range', async () => {
    const shared = await query(db, `SELECT "DOI", "Id", "Latitude" FROM locations WHERE "MonitoringLocationID" = 'EDM-1' ORDER BY "Id"`);
    expect(shared.map((r) => r.DOI)).toEqual([ALPHA, BETA]);
    const [bad] = await query(db, `SELECT count(*) AS n FROM observations o JOIN locations l ON l."Id" = o."LocationId"
      WHERE o."Id" NOT BETWEEN l.first_obs_id AND l.last_obs_id OR o."DOI" <> l."DOI" OR o."MonitoringLocationID" <> l."MonitoringLocationID"`);
    expect(Number(bad?.n)).toBe(0);
  });

  it('numbers observations 1… in key order, stored physically in Id order', async () => {
    const ids = (await query(db, 'SELECT "Id" FROM observations')).map((r) => Number(r.Id));
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    const keyOrder = await query(db, `SELECT "Id" FROM observations ORDER BY "DOI", "MonitoringLocationID", "ActivityStartDate", "ActivityStartTime" NULLS FIRST, "CharacteristicName"`);
    expect(keyOrder.map((r) => Number(r.Id))).toEqual(ids);
  });

  it('keeps text exactly: quotes, commas, newlines, unicode', async () => {
    const rows = await query(db, `SELECT "ResultComment" AS c, "MonitoringLocationName" AS n FROM observations WHERE "ResultComment" IS NOT NULL ORDER BY "Id"`);
    expect(rows.map((r) => r.c)).toContain('He said "warm", then left,\nlater');
    expect(rows.map((r) => r.n)).toContain("Rivière-du-Loup à l'embouchure — «station»");
  });

  it('derives year, activity group, typed values', async () => {
    const rows = await query(db, `SELECT "ActivityType" AS t, "ActivityGroupType" AS g, "ActivityStartYear" AS y, "ActivityStartTime" AS tm, "ResultValue" AS v
      FROM observations WHERE "MonitoringLocationID" = 'HFX-1' ORDER BY "Id"`);
    expect(rows).toEqual([
      { t: 'Quality Control Sample-Field Blank', g: 'Quality Control - Lab Sample', y: 2019, tm: '23:59:59', v: -5 },
      // Upstream's lookup puts Sample-Other in Lab Sample (an earlier reading of the group names said Other).
      { t: 'Sample-Other', g: 'Lab Sample', y: 2020, tm: '10:30:00', v: 6.5 },
    ]);
  });

  it('assigns regions by point in polygon', async () => {
    const rows = await query(db, `SELECT l."DOI", l."MonitoringLocationID" AS id, list(r."RegionId" ORDER BY r."RegionId") AS regions
      FROM locations l LEFT JOIN location_regions r ON r."LocationId" = l."Id" GROUP BY l."Id", l."DOI", l."MonitoringLocationID" ORDER BY l."Id"`);
    const of = (doi: string, id: string) => rows.find((r) => r.DOI === doi && r.id === id)?.regions;
    expect(of(ALPHA, 'EDM-1')).toEqual(expect.arrayContaining(['admin.2.ca', 'admin.4.ca.ab']));
    expect(of(ALPHA, 'HFX-1')).toEqual(expect.arrayContaining(['admin.2.ca', 'admin.4.ca.ns', 'hub.atlantic']));
    expect(of(BETA, 'YK-1')).toEqual(expect.arrayContaining(['admin.2.ca', 'admin.4.ca.yt']));
    const order = await query(db, 'SELECT "RegionId", "LocationId" FROM location_regions');
    const keys = order.map((r) => `${String(r.RegionId)}\0${String(r.LocationId).padStart(12, '0')}`);
    expect(keys).toEqual([...keys].sort());
  });

  it("keeps the derive and guidelines stages' parts in the report, as the file holds them, and prints them", async () => {
    const [counts] = await query(db, `SELECT (SELECT count(*) FROM location_regions) AS memberships, (SELECT count(*) FROM guidelines) AS guidelines,
      (SELECT count(*) FROM guideline_comparisons) AS comparisons, (SELECT count(*) FROM water_quality_index) AS indexRows,
      (SELECT count(*) FROM observations WHERE "ActivityType" LIKE 'Quality Control%' OR "ActivityType" = 'Sample-Positive Control') AS qc`);
    const n = (k: string) => Number(counts![k]);
    expect(report.derive).toEqual({ memberships: n('memberships') });
    expect(report.guidelines).toEqual({ guidelines: n('guidelines'), comparisons: n('comparisons'), indexRows: n('indexRows'), qualityControlSetAside: n('qc') });
    expect(report.guidelines!.comparisons).toBeGreaterThan(0);
    const lines: string[] = [];
    const dir = await tempDir();
    await runIngest({ src: await copyFixtures(join(dir, 'src'), ['alpha']), duckdbPath: join(dir, 'tributary.duckdb'), regionsFile: hubs, log: { info: (l) => lines.push(l) } });
    expect(lines.filter((l) => /^(derive|guidelines): /.test(l))).toEqual([
      expect.stringMatching(/^derive: \d+ region membership\(s\) of the new and changed locations$/),
      expect.stringMatching(/^guidelines: 1913 guidelines; \d+ comparison\(s\) and \d+ water quality index row\(s\) for the new and changed datasets(; \d+ quality-control result\(s\) \(blanks, replicates, spikes\) set aside, compared with nothing)?$/),
    ]);
  });

  it('writes statistics whose counts add up to the rows', async () => {
    const [s] = await query(db, `SELECT (SELECT sum(n) FROM observation_stats) AS stats, (SELECT count(*) FROM observations) AS rows,
      (SELECT count(*) FROM observation_stats s WHERE (SELECT count(*) FROM observations o WHERE o."Id" BETWEEN s.min_id AND s.max_id AND o."LocationId" = s."LocationId"
        AND o."CharacteristicName" = s."CharacteristicName" AND o."ActivityStartYear" = s."ActivityStartYear") <> s.n) AS wrong`);
    expect(Number(s?.stats)).toBe(15);
    expect(Number(s?.rows)).toBe(15);
    expect(Number(s?.wrong)).toBe(0);
    // The rollup is the statistics summed over locations: same total, and each group equals the brute force.
    const [r] = await query(db, `SELECT (SELECT sum(n) FROM observation_rollup) AS total,
      (SELECT count(*) FROM observation_rollup r WHERE r.n <> (SELECT count(*) FROM observations o WHERE o."DOI" = r."DOI"
        AND o."MonitoringLocationType" = r."MonitoringLocationType" AND o."CharacteristicName" = r."CharacteristicName"
        AND o."ActivityMediaName" = r."ActivityMediaName" AND o."ActivityGroupType" = r."ActivityGroupType"
        AND o."ActivityStartYear" = r."ActivityStartYear")) AS wrong`);
    expect(Number(r?.total)).toBe(15);
    expect(Number(r?.wrong)).toBe(0);
    // The region rollup: every observation once per region of its location, each group equal to the brute force.
    const [g] = await query(db, `SELECT (SELECT sum(n) FROM observation_region_rollup) AS total,
      (SELECT count(*) FROM observations o JOIN location_regions m ON m."LocationId" = o."LocationId") AS memberships,
      (SELECT count(*) FROM observation_region_rollup r WHERE r.n <> (SELECT count(*) FROM observations o
        JOIN location_regions m ON m."LocationId" = o."LocationId" AND m."RegionId" = r."RegionId" WHERE o."DOI" = r."DOI"
        AND o."MonitoringLocationType" = r."MonitoringLocationType" AND o."CharacteristicName" = r."CharacteristicName"
        AND o."ActivityMediaName" = r."ActivityMediaName" AND o."ActivityGroupType" = r."ActivityGroupType"
        AND o."ActivityStartYear" = r."ActivityStartYear")) AS wrong`);
    expect(Number(g?.memberships)).toBeGreaterThan(15);
    expect(Number(g?.total)).toBe(Number(g?.memberships));
    expect(Number(g?.wrong)).toBe(0);
    const meta = await query(db, 'SELECT key, value FROM tributary_meta ORDER BY key');
    expect(meta.find((m) => m.key === 'schema_version')?.value).toBe(STORAGE_SCHEMA_VERSION);
    expect(meta.find((m) => m.key === 'upstream_schema')?.value).toBe(`datastreamapp/schema@${upstreamSource.commit} (3.0.0)`);
  });
});

describe('re-ingest and remove', () => {
  it('gives identical tables when the same source is ingested into two empty files', async () => {
    const dir = await tempDir();
    const a = await firstIngest();
    const b = await runIngest({ src: a.src, duckdbPath: join(dir, 'b.duckdb'), regionsFile: hubs });
    expect(b.published).toBe(true);
    expect(await dumpTables(join(dir, 'b.duckdb'))).toEqual(await dumpTables(a.db));
  });

  it('keeps Ids of unchanged datasets, renumbers a changed one after the maximum, removes one', async () => {
    const dir = await tempDir();
    const { src, db } = await copyOfFirst(dir);
    const before = await dumpTables(db);
    const again = await runIngest({ src, duckdbPath: db, regionsFile: hubs });
    expect(again.datasets.filter((d) => d.DOI !== 'not-a-doi').map((d) => d.status)).toEqual(['unchanged', 'unchanged', 'unchanged']);
    expect(await dumpTables(db)).toEqual(before);

    const ids = async (doi: string) => (await query(db, `SELECT "Id" FROM observations WHERE "DOI" = '${doi}' ORDER BY "Id"`)).map((r) => Number(r.Id));
    const alphaIds = await ids(ALPHA);
    const betaIds = await ids(BETA);
    await appendFile(join(src, 'gamma', 'b-good.csv'), 'Gamma,G-1,Gamma creek,62.4540,-114.3718,WGS84,,,,,River/Stream,Field Msr/Obs,Surface Water,2017-09-10,,,,,,,,,pH,,,7.8,None,Actual,,,,,Accepted,,,,,,,,,\n');
    const changed = await runIngest({ src, duckdbPath: db, regionsFile: hubs });
    expect(byDoi(changed, GAMMA)).toMatchObject({ status: 'loaded', rowsLoaded: 2 });
    expect(await ids(ALPHA)).toEqual(alphaIds);
    expect(await ids(BETA)).toEqual(betaIds);
    expect(await ids(GAMMA)).toEqual([16, 17]);
    const [gammaLoc] = await query(db, `SELECT "Id" FROM locations WHERE "DOI" = '${GAMMA}'`);
    expect(Number(gammaLoc?.Id)).toBe(7);

    const removed = await runRemove({ duckdbPath: db, doi: BETA });
    expect(removed.published).toBe(true);
    expect(await ids(BETA)).toEqual([]);
    expect(await ids(ALPHA)).toEqual(alphaIds);
    expect((await query(db, `SELECT count(*)::INTEGER AS n FROM locations WHERE "DOI" = '${BETA}'`))[0]?.n).toBe(0);
    const unknown = await runRemove({ duckdbPath: db, doi: '10.25976/none-xx00' });
    expect(unknown.published).toBe(false);
    expect(unknown.error).toMatch(/not published/);

    // Removed Ids are never reused: beta comes back after the high-water mark.
    await runIngest({ src, duckdbPath: db, regionsFile: hubs });
    expect(Math.min(...(await ids(BETA)))).toBe(18);
    // New rows are numbered by their physical place after the kept ones (rowid − rows before): scan order is Id order.
    const scanned = (await query(db, 'SELECT "Id" FROM observations')).map((r) => Number(r.Id));
    expect(scanned).toEqual([...scanned].sort((x, y) => x - y));
    expect((await readdir(join(dir, 'db'))).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('publishes nothing and keeps the file when no dataset has a valid row', async () => {
    const dir = await tempDir();
    const { src, db } = await copyOfFirst(dir);
    const before = await dumpTables(db);
    await rm(join(src, 'beta'), { recursive: true });
    await rm(join(src, 'gamma'), { recursive: true });
    await rm(join(src, 'alpha', 'part-1.csv'));
    await writeFile(join(src, 'alpha', 'part-2.csv'), 'DatasetName,MonitoringLocationID\n');
    const report = await runIngest({ src, duckdbPath: db, regionsFile: hubs });
    expect(report.published).toBe(false);
    expect(report.error).toMatch(/no dataset has a valid row/);
    expect(await dumpTables(db)).toEqual(before);
  });

  it('reports an empty SRC', async () => {
    const dir = await tempDir();
    const report = await runIngest({ src: dir, duckdbPath: join(dir, 'x.duckdb') });
    expect(report).toMatchObject({ published: false, error: expect.stringMatching(/no dataset folder/) });
  });
});
