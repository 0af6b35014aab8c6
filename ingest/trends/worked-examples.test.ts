import { beforeAll, describe, expect, it } from 'vitest';
import { readRows, writeTestDataset, type TestObservation } from '../../scripts/testing/trend-datasets.js';
import { ammonia } from '../../scripts/testing/trend-examples.js';
import { WORKED_PERIODS, workedDatasets, workedDisagreements, workedRows } from '../../scripts/testing/trend-worked-examples.js';
import { runIngest } from '../pipeline.js';
import type { Report } from '../report.js';
import { query, tempDir } from '../test-support.js';
import { parsePeriods } from './trend-periods.js';

/**
 * ../shared/trends/README.md §12's worked examples as datasets of their own, published by the real ingest and read back
 * from the `trends` table: every figure the README gives (LWP's own R functions), to its tolerances — counts, S and
 * text exactly, VarS, τ, Z, C and Median to 1e-9, the rest to 1e-6. Beside them, the ammonia series again with what
 * must not change it: quality-control results, "Not Detected" rows without a limit, and a non-detect whose limit is
 * in another unit (a series of its own).
 */

type Row = Record<string, unknown>;

const noise: TestObservation[] = [
  { location: 'NH4-2', characteristic: 'Ammonia and ammonium', fraction: 'Filtered', speciation: 'as N', unit: 'mg/L', date: '2022-03-02', value: '9.9', activityType: 'Quality Control Sample-Field Replicate' },
  { location: 'NH4-2', characteristic: 'Ammonia and ammonium', fraction: 'Filtered', speciation: 'as N', unit: 'mg/L', date: '2023-05-16', value: '<0.001', activityType: 'Quality Control Sample-Field Blank' },
  { location: 'NH4-2', characteristic: 'Ammonia and ammonium', fraction: 'Filtered', speciation: 'as N', unit: 'mg/L', date: '2021-07-15', value: 'ND' },
  { location: 'NH4-2', characteristic: 'Ammonia and ammonium', fraction: 'Filtered', speciation: 'as N', unit: 'ug/L', date: '2021-08-15', value: '<10' },
];

let dir: string;
let report: Report;
let rows: Row[];

beforeAll(async () => {
  dir = await tempDir('tributary-trends-worked-');
  const copy: TestObservation[] = ammonia.map((o) => ({ location: 'NH4-2', characteristic: 'Ammonia and ammonium', fraction: 'Filtered', speciation: 'as N', unit: 'mg/L', date: o.date, value: `${o.censoring ?? ''}${o.value}` }));
  const withNoise = { folder: 'ammonia-noise', doi: '10.5072/trends-ammonia-noise', name: 'Censored example 1 with noise', observations: [...copy, ...noise] };
  for (const ds of [...workedDatasets, withNoise]) await writeTestDataset(`${dir}/src`, ds);
  report = await runIngest({ src: `${dir}/src`, duckdbPath: `${dir}/hub.duckdb`, trends: { periods: parsePeriods(WORKED_PERIODS) } });
  // The kept increments as their dates, beside their Ids: two locations' copies of one series keep the same dates.
  rows = await readRows(`${dir}/hub.duckdb`, `SELECT t.*, l."MonitoringLocationID",
      (SELECT list(strftime(o."ActivityStartDate", '%Y-%m-%d') ORDER BY o."ActivityStartDate") FROM observations o WHERE list_contains(t."IncrementObservationIds", o."Id")) AS "KeptDates"
    FROM trends t JOIN locations l ON l."Id" = t."LocationId" ORDER BY t."Id"`);
});

/** The row of a location's series in its values' unit (NH4-2 has a ug/L series beside). */
function rowOf(location: string, start: number, end: number): Row {
  const found = rows.filter((r) => r.MonitoringLocationID === location && r.StartYear === start && r.EndYear === end && r.ResultUnit !== 'ug/L');
  expect(found, `${location} ${start}-${end}`).toHaveLength(1);
  return found[0]!;
}

describe('§12 worked examples through the ingest', () => {
  it('every dataset loads whole', () => {
    expect(report.published).toBe(true);
    for (const d of report.datasets) expect([d.DOI, d.rowsRejected]).toEqual([d.DOI, 0]);
  });

  it.each(workedRows.map((w) => [`${w.CharacteristicName} ${w.StartYear}–${w.EndYear}`, w] as const))('%s: every figure of the README', (_, w) => {
    const row = rowOf(w.location, w.StartYear, w.EndYear);
    expect(row.CharacteristicName).toBe(w.CharacteristicName);
    expect(workedDisagreements(row, w)).toEqual([]);
    expect(row.Method).toBe('LWP-Trends 2502 (LAWA rules)');
  });

  it('an unassessed row has the coverage fields only (and why: Direction Not Analysed, Reason unassessed)', () => {
    const row = rowOf('EPA-17-6', 1989, 1996);
    for (const k of ['N', 'NCensored', 'Seasonal', 'Season', 'SeasonalityP', 'S', 'VarS', 'Tau', 'Z', 'P', 'C', 'Cd', 'Median', 'SenSlope', 'SenSlopeLower90', 'SenSlopeUpper90', 'PercentAnnualChange', 'AnalysisNote']) {
      expect(row[k], k).toBeNull();
    }
  });

  it('quality-control results, Not Detected without a limit and a limit in another unit leave the series as it was', () => {
    const plain = rowOf('NH4-1', 2020, 2024);
    const noisy = rowOf('NH4-2', 2020, 2024);
    const { Id: _a, LocationId: _b, DOI: _c, MonitoringLocationID: _d, IncrementObservationIds: _e, ...same } = plain;
    expect(noisy).toMatchObject(same);
    // §12.3: one value a month, May 2023's the 22nd (5.125 days from the middle against 8.875 for the 8th); the
    // quality-control blank of 16 May, nearer still, is no environmental result and is not kept.
    expect(plain.KeptDates).toHaveLength(60);
    expect((plain.KeptDates as string[]).filter((d) => d.startsWith('2023-05'))).toEqual(['2023-05-22']);
    expect((plain.IncrementObservationIds as unknown[]).length).toBe(60);
    const ug = rows.filter((r) => r.MonitoringLocationID === 'NH4-2' && r.ResultUnit === 'ug/L');
    expect(ug.map((r) => [r.StartYear, r.Observations, r.TimeIncrement])).toEqual([
      [2015, 1, 'unassessed'],
      [2020, 1, 'unassessed'],
    ]);
  });

  it('Ids ascend with LocationId, LocationId × 65536 + the rank of the row within its location', () => {
    const byLocation = Map.groupBy(rows, (r) => Number(r.LocationId));
    for (const [location, rs] of byLocation) expect(rs.map((r) => Number(r.Id))).toEqual(rs.map((_, i) => location * 65536 + i));
  });

  it('tributary_meta and the report say what the rows were computed for', async () => {
    const meta = await query(`${dir}/hub.duckdb`, `SELECT key, value FROM tributary_meta WHERE key LIKE 'trends%' ORDER BY key`);
    expect(meta).toEqual([
      { key: 'trends_end_year', value: '2024' },
      { key: 'trends_periods', value: '1983-1985,1989-1996,2015-2024,2020-2024' },
    ]);
    expect(report.trends).toEqual({ endYear: 2024, periods: '1983-1985,1989-1996,2015-2024,2020-2024', recomputed: 'all', reason: 'a new file', series: 6, rows: rows.length });
  });
});
