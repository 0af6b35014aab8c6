import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readRows, writeTestDataset } from '../../scripts/testing/trend-datasets.js';
import { trendDataset } from '../../scripts/testing/trend-hub.js';
import { hubEndYear, trendDetails, trendSeries, type TrendRow } from '../../scripts/testing/trend-oracle.js';
import type { StoredResult } from '../../scripts/testing/stored-result.js';
import { runIngest } from '../pipeline.js';
import { tempDir } from '../test-support.js';
import { parsePeriods } from './trend-periods.js';

/**
 * Every row of a generated hub against the independent oracle (scripts/testing/trend-oracle.ts, written from
 * ../shared/trends/README.md alone by another hand): the hub's series have known slopes up, down and flat, seasons,
 * monthly, quarterly and several samples a month, gaps that leave periods unassessed, detection limits that change
 * over time, `>` values, ties, quality-control results and non-detects with their unit on the limit only. The
 * oracle reads the observations as the published file stores them; the production's rows come from its `trends`
 * table. Counts, S and text exactly; VarS, τ, Z, C and Median to 1e-9; P, Cd, SeasonalityP, the slopes and the
 * percent change to 1e-6 (1e-12 absolute near zero), the README's tolerances (§10).
 */

type Row = Record<string, unknown>;

const EXACT = ['Period', 'Observations', 'Months', 'Quarters', 'Years', 'TimeIncrement', 'N', 'NCensored', 'Seasonal', 'Season', 'S', 'AnalysisNote', 'Direction', 'ImprovesWhen', 'Category', 'Reason', 'Method'] as const;
const CLOSE9 = ['VarS', 'Tau', 'Z', 'C', 'Median'] as const;
const CLOSE6 = ['P', 'Cd', 'SeasonalityP', 'SenSlope', 'SenSlopeLower90', 'SenSlopeUpper90', 'PercentAnnualChange'] as const;

const agrees = (actual: unknown, expected: number | null, rel: number) =>
  expected === null ? actual === null : typeof actual === 'number' && Math.abs(actual - expected) <= Math.max(1e-12, rel * Math.abs(expected));

const STORED = `SELECT "Id", "LocationId", "CharacteristicName", "ResultSampleFraction", "MethodSpeciation", "ResultValue", "ResultUnit",
  "ResultDetectionCondition", "ResultDetectionQuantitationLimitMeasure", "ResultDetectionQuantitationLimitUnit", "ActivityGroupType",
  strftime("ActivityStartDate", '%Y-%m-%d') AS "ActivityStartDate", left(CAST("ActivityStartTime" AS VARCHAR), 8) AS "ActivityStartTime"
  FROM observations ORDER BY "Id"`;

const key = (r: { LocationId: unknown; CharacteristicName: unknown; ResultSampleFraction: unknown; MethodSpeciation: unknown; ResultUnit: unknown }, start: unknown, end: unknown) =>
  JSON.stringify([r.LocationId, r.CharacteristicName, r.ResultSampleFraction, r.MethodSpeciation, r.ResultUnit, start, end]);

/** The oracle's row, and the Ids of the increments it kept (null when unassessed), per series × period. */
type OracleRow = TrendRow & { readonly IncrementObservationIds: readonly number[] | null };

/** The oracle's rows for every series of the published observations. */
function oracleRows(stored: readonly StoredResult[], periods: string, endYearSetting?: string): Map<string, OracleRow> {
  const endYear = hubEndYear(stored, endYearSetting)!;
  const out = new Map<string, OracleRow>();
  for (const series of trendSeries(stored)) {
    for (const { row, increments } of trendDetails(series.observations, { endYear, periods, characteristicName: series.key.CharacteristicName })) {
      const kept = row.TimeIncrement === 'unassessed' ? null : increments.map((i) => i.observation.id);
      out.set(key(series.key, row.StartYear, row.EndYear), { ...row, IncrementObservationIds: kept });
    }
  }
  return out;
}

/** Every disagreement between the table's rows and the oracle's, as `field of key: ours vs oracle`. */
function disagreements(ours: readonly Row[], oracle: Map<string, OracleRow>): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const row of ours) {
    const k = key(row as never, row.StartYear, row.EndYear);
    seen.add(k);
    const expected = oracle.get(k) as unknown as Record<string, number | string | boolean | null> | undefined;
    if (!expected) {
      problems.push(`${k}: not in the oracle`);
      continue;
    }
    for (const f of EXACT) if (row[f] !== expected[f]) problems.push(`${f} of ${k}: ${String(row[f])} vs ${String(expected[f])}`);
    for (const f of CLOSE9) if (!agrees(row[f], expected[f] as number | null, 1e-9)) problems.push(`${f} of ${k}: ${String(row[f])} vs ${String(expected[f])}`);
    for (const f of CLOSE6) if (!agrees(row[f], expected[f] as number | null, 1e-6)) problems.push(`${f} of ${k}: ${String(row[f])} vs ${String(expected[f])}`);
    // The observations §4 kept, as the stage stored them for a chart to mark (in time order, as the oracle's).
    const kept = JSON.stringify((row.IncrementObservationIds as bigint[] | null)?.map(Number) ?? null);
    if (kept !== JSON.stringify(expected.IncrementObservationIds)) problems.push(`IncrementObservationIds of ${k}: ${kept} vs ${JSON.stringify(expected.IncrementObservationIds)}`);
  }
  for (const k of oracle.keys()) if (!seen.has(k)) problems.push(`${k}: missing from trends`);
  return problems;
}

/** The generated sources under `dir` published into a file of their own with `trends`. */
async function publishHub(dir: string, name: string, trends: Parameters<typeof runIngest>[0]['trends']): Promise<{ rows: Row[]; stored: StoredResult[] }> {
  const src = join(dir, 'src');
  const path = join(dir, `${name}.duckdb`);
  const report = await runIngest({ src, duckdbPath: path, trends });
  expect(report.published).toBe(true);
  for (const d of report.datasets) expect([d.DOI, d.rowsRejected]).toEqual([d.DOI, 0]);
  return { rows: await readRows(path, 'SELECT * FROM trends ORDER BY "Id"'), stored: (await readRows(path, STORED)) as unknown as StoredResult[] };
}

describe('every row of a generated hub against the independent oracle', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await tempDir('tributary-trends-oracle-');
    const spans = [[2005, 2024], [2008, 2024], [2010, 2023], [2012, 2024], [2006, 2021], [2009, 2024]] as const;
    for (const [i, [from, to]] of spans.entries()) await writeTestDataset(join(dir, 'src'), trendDataset(100 + i, `h${i}`, { locations: 3, series: 4, from, to }));
  });

  it('with the defaults (5, 10 and 15 years to the hub\'s latest year): every row, every field', async () => {
    const { rows, stored } = await publishHub(dir, 'defaults', undefined);
    expect(disagreements(rows, oracleRows(stored, '5,10,15'))).toEqual([]);
    // The hub holds what the comparison is for, so that agreement is not agreement about nothing.
    const count = (f: (r: Row) => boolean) => rows.filter(f).length;
    expect(count((r) => r.TimeIncrement === 'monthly')).toBeGreaterThan(10);
    expect(count((r) => r.TimeIncrement === 'quarterly')).toBeGreaterThan(5);
    expect(count((r) => r.TimeIncrement === 'unassessed')).toBeGreaterThan(10);
    expect(count((r) => r.Seasonal === true)).toBeGreaterThan(5);
    expect(count((r) => r.Seasonal === false)).toBeGreaterThan(5);
    expect(count((r) => Number(r.NCensored) > 0)).toBeGreaterThan(5);
    expect(count((r) => r.Reason === 'not analysed')).toBeGreaterThan(0);
    expect(count((r) => String(r.AnalysisNote).startsWith('WARNING'))).toBeGreaterThan(3);
    expect(new Set(rows.map((r) => r.Category)).size).toBeGreaterThan(5);
    expect(stored.some((s) => s.ResultDetectionCondition === 'Above Detection/Quantification Limit')).toBe(true);
    expect(stored.some((s) => s.ActivityGroupType.startsWith('Quality Control'))).toBe(true);
    expect(stored.some((s) => s.ResultDetectionCondition !== null && s.ResultUnit === null)).toBe(true);
  });

  it('with TRENDS_END_YEAR and TRENDS_PERIODS set (a range among them, and 2 years: seasonal tests of too few quarters)', async () => {
    const { rows, stored } = await publishHub(dir, 'set', { endYear: 2022, periods: parsePeriods('2,3,8,2010-2019') });
    expect(disagreements(rows, oracleRows(stored, '2,3,8,2010-2019', '2022'))).toEqual([]);
    expect(new Set(rows.map((r) => `${r.StartYear}-${r.EndYear}`))).toEqual(new Set(['2021-2022', '2020-2022', '2015-2022', '2010-2019']));
    expect(rows.filter((r) => r.AnalysisNote === 'Insufficent data to complete Seasonal Mann Kendall').length).toBeGreaterThan(0);
  });
});
