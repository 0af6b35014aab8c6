import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readRows, writeTestDataset, type TestDataset } from '../../scripts/testing/trend-datasets.js';
import { trendDataset } from '../../scripts/testing/trend-hub.js';
import { runCompact } from '../compact.js';
import { runIngest } from '../pipeline.js';
import { runRemove } from '../remove.js';
import type { Report } from '../report.js';
import { tempDir } from '../test-support.js';
import { parsePeriods, type TrendSettings } from './trend-periods.js';

/**
 * A publish costs what changed (issue 54.3): publish A, then B, then replace A, then move TRENDS_END_YEAR, then remove
 * the dataset that held the hub's latest year, then compact. After each step the `trends` rows equal those of a fresh
 * build of the same datasets with the same settings, and the report says which series were computed: a new or
 * changed dataset's alone, unless the end year or the periods moved.
 */

type Row = Record<string, unknown>;

let dir: string;
const hub = () => join(dir, 'hub.duckdb');
const defaults: TrendSettings = { periods: parsePeriods('5,10,15') };

const a = trendDataset(21, 'a', { locations: 2, series: 3, from: 2009, to: 2024 });
const b = trendDataset(22, 'b', { locations: 2, series: 3, from: 2008, to: 2022 });
/** A's next version: a few values changed (its content hash with them). */
const a2: TestDataset = { ...a, observations: a.observations.map((o, i) => (i % 17 === 0 && !o.value.startsWith('<') && !o.value.startsWith('>') ? { ...o, value: String(Number(o.value) * 1.5) } : o)) };

/** Publishes exactly `datasets` (each in a folder of its own) onto the hub. */
async function publish(datasets: readonly TestDataset[], trends = defaults): Promise<Report> {
  const src = join(dir, `src-${Math.random().toString(36).slice(2)}`);
  for (const ds of datasets) await writeTestDataset(src, ds);
  return runIngest({ src, duckdbPath: hub(), trends });
}

/**
 * The kept increments of each trends row by what they are (site, date, time, value or limit), not by the observation
 * Ids a numbering gives them: an incremental publish numbers a dataset otherwise than a fresh build does.
 */
const KEPT = `WITH k AS (SELECT "Id" AS tid, unnest("IncrementObservationIds") AS oid, generate_subscripts("IncrementObservationIds", 1) AS i FROM trends)
  SELECT k.tid, list(concat_ws(' ', o."MonitoringLocationID", strftime(o."ActivityStartDate", '%Y-%m-%d'), CAST(o."ActivityStartTime" AS VARCHAR),
    CAST(o."ResultValue" AS VARCHAR), o."ResultDetectionCondition", CAST(o."ResultDetectionQuantitationLimitMeasure" AS VARCHAR)) ORDER BY k.i) AS kept
  FROM k JOIN observations o ON o."Id" = k.oid GROUP BY k.tid`;

/** The trends rows by what they are (location by its ID, series, period), without the Ids a numbering gives them. */
async function trendsOf(path: string): Promise<Map<string, Row>> {
  const rows = await readRows(path, `SELECT t.* EXCLUDE ("IncrementObservationIds"), l."MonitoringLocationID" AS site, kept.kept FROM trends t
    JOIN locations l ON l."Id" = t."LocationId" LEFT JOIN (${KEPT}) kept ON kept.tid = t."Id" ORDER BY t."Id"`);
  return new Map(rows.map(({ Id: _id, LocationId: _location, ...r }) => [JSON.stringify([r.site, r.CharacteristicName, r.ResultSampleFraction, r.MethodSpeciation, r.ResultUnit, r.StartYear, r.EndYear]), r]));
}

/** The rows a fresh build of `datasets` with `trends` gives. */
async function fresh(datasets: readonly TestDataset[], trends = defaults): Promise<Map<string, Row>> {
  const path = join(dir, `fresh-${Math.random().toString(36).slice(2)}.duckdb`);
  const src = `${path}.src`;
  for (const ds of datasets) await writeTestDataset(src, ds);
  const report = await runIngest({ src, duckdbPath: path, trends });
  expect(report.published).toBe(true);
  const rows = await trendsOf(path);
  await rm(path, { force: true });
  return rows;
}

/** Series (not rows) of one dataset in a set of rows. */
const seriesOf = (rows: Map<string, Row>, doi: string) =>
  new Set([...rows.values()].filter((r) => r.DOI === doi).map((r) => JSON.stringify([r.site, r.CharacteristicName, r.ResultSampleFraction, r.MethodSpeciation, r.ResultUnit]))).size;

async function expectLikeFresh(datasets: readonly TestDataset[], trends = defaults): Promise<Map<string, Row>> {
  const expected = await fresh(datasets, trends);
  const actual = await trendsOf(hub());
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [key, row] of expected) expect(actual.get(key), key).toEqual(row);
  // Ids as the rule says: ascending by LocationId, LocationId × 65536 + the rank within the location.
  const ids = await readRows(hub(), 'SELECT "Id", "LocationId" FROM trends ORDER BY rowid');
  const byLocation = Map.groupBy(ids, (r) => Number(r.LocationId));
  for (const [location, rs] of byLocation) expect(rs.map((r) => r.Id)).toEqual(rs.map((_, i) => location * 65536 + i));
  expect(ids.map((r) => r.Id)).toEqual(ids.map((r) => r.Id).sort((x, y) => Number(x) - Number(y)));
  return expected;
}

describe('trends at the cost of the change', () => {
  beforeAll(async () => {
    dir = await tempDir('tributary-trends-incremental-');
  });

  it('a first publish computes every series', async () => {
    const report = await publish([a]);
    const rows = await expectLikeFresh([a]);
    expect(report.trends).toMatchObject({ endYear: 2024, recomputed: 'all', reason: 'a new file', series: seriesOf(rows, a.doi), rows: rows.size });
  });

  it("adding B computes B's series alone", async () => {
    const report = await publish([b]);
    const rows = await expectLikeFresh([a, b]);
    expect(report.trends).toMatchObject({ endYear: 2024, recomputed: 'changed', series: seriesOf(rows, b.doi) });
  });

  it("replacing A computes A's series alone, B's rows kept", async () => {
    const report = await publish([a2]);
    const rows = await expectLikeFresh([a2, b]);
    expect(report.trends).toMatchObject({ recomputed: 'changed', series: seriesOf(rows, a.doi) });
  });

  it('moving TRENDS_END_YEAR recomputes every series, with no dataset changed, and says so', async () => {
    // How an operator moves it: the same sources ingested again with the new setting (every dataset unchanged).
    const moved = { ...defaults, endYear: 2021 };
    const report = await publish([a2, b], moved);
    expect(report.datasets.map((d) => d.status)).toEqual(['unchanged', 'unchanged']);
    expect(report.published).toBe(true);
    const rows = await expectLikeFresh([a2, b], moved);
    expect(report.trends).toMatchObject({ endYear: 2021, recomputed: 'all', reason: 'the end year moved from 2024 to 2021', series: seriesOf(rows, a.doi) + seriesOf(rows, b.doi) });
  });

  it('changing TRENDS_PERIODS recomputes every series', async () => {
    const periods = { endYear: 2021, periods: parsePeriods('3,2010-2019') };
    const report = await publish([a2, b], periods);
    await expectLikeFresh([a2, b], periods);
    expect(report.trends).toMatchObject({ recomputed: 'all', reason: 'the periods changed from 5,10,15 to 3,2010-2019' });
  });

  it("removing B with the end year fixed drops B's rows and computes nothing", async () => {
    const periods = { endYear: 2021, periods: parsePeriods('3,2010-2019') };
    const report = await runRemove({ duckdbPath: hub(), doi: b.doi, trends: periods });
    await expectLikeFresh([a2], periods);
    expect(report.trends).toMatchObject({ recomputed: 'changed', series: 0, rows: 0 });
  });

  it("back to the hub's own end year: removing the dataset that held the latest year recomputes every series in the merge", async () => {
    await publish([b]);
    await expectLikeFresh([a2, b]);
    const report = await runRemove({ duckdbPath: hub(), doi: a.doi, trends: defaults });
    const rows = await expectLikeFresh([b]);
    expect(report.trends).toMatchObject({ endYear: 2022, recomputed: 'all', reason: 'the end year moved from 2024 to 2022', series: seriesOf(rows, b.doi), rows: rows.size });
  });

  it('compaction rebuilds the same rows and Ids', async () => {
    const before = await readRows(hub(), 'SELECT * FROM trends ORDER BY "Id"');
    await runCompact({ duckdbPath: hub() });
    expect(await readRows(hub(), 'SELECT * FROM trends ORDER BY rowid')).toEqual(before);
  });
});
