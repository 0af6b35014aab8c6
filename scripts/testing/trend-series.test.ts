/**
 * From stored rows to series, end year and periods (../shared/trends/README.md §1–§2), and the oracle run over a
 * generated hub of a few thousand series: every row in one of the states §10 allows.
 */
import { describe, expect, it } from 'vitest';
import { createRandom, type Random } from '../sample/prng.js';
import { ABOVE, BELOW, NOT_DETECTED, storedResult, type StoredResult } from './stored-result.js';
import { hubEndYear, parsePeriods, trendRows, trendSeries, usableTrendObservation, type TrendRow } from './trend-oracle.js';

const row = (fields: Partial<StoredResult>): StoredResult =>
  storedResult({ Id: 1, LocationId: 7, ActivityStartDate: '2020-05-01', CharacteristicName: 'Total phosphorus, mixed forms', ...fields });

describe('usable observations (§1)', () => {
  it.each([
    ['a value, in ResultUnit', row({ ResultValue: 0.2, ResultUnit: 'mg/L' }), { value: 0.2, censoring: null, unit: 'mg/L' }],
    ['Below… with a limit, in the limit\'s unit', row({ ResultDetectionCondition: BELOW, ResultDetectionQuantitationLimitMeasure: 5, ResultDetectionQuantitationLimitUnit: 'ug/L', ResultUnit: 'mg/L' }), { value: 5, censoring: '<', unit: 'ug/L' }],
    ['Above… with a limit', row({ ResultDetectionCondition: ABOVE, ResultDetectionQuantitationLimitMeasure: 2419.6, ResultDetectionQuantitationLimitUnit: 'MPN/100mL' }), { value: 2419.6, censoring: '>', unit: 'MPN/100mL' }],
    ['a blank unit as null', row({ ResultValue: 7.1, ResultUnit: ' ' }), { value: 7.1, censoring: null, unit: null }],
  ])('%s', (_, stored, expected) => {
    const usable = usableTrendObservation(stored)!;
    expect({ value: usable.observation.value, censoring: usable.observation.censoring, unit: usable.unit }).toEqual(expected);
  });

  it.each([
    ['Not Detected, even with a limit', row({ ResultDetectionCondition: NOT_DETECTED, ResultDetectionQuantitationLimitMeasure: 1, ResultDetectionQuantitationLimitUnit: 'mg/L' })],
    ['Below… without a limit', row({ ResultDetectionCondition: BELOW })],
    ['Detected Not Quantified', row({ ResultDetectionCondition: 'Detected Not Quantified', ResultDetectionQuantitationLimitMeasure: 1, ResultDetectionQuantitationLimitUnit: 'mg/L' })],
    ['a quality-control field measure', row({ ResultValue: 1, ActivityGroupType: 'Quality Control - Field Measure' })],
    ['a quality-control lab sample', row({ ResultValue: 1, ActivityGroupType: 'Quality Control - Lab Sample' })],
  ])('%s is not used', (_, stored) => {
    expect(usableTrendObservation(stored)).toBeUndefined();
  });

  it('keys series by unit, so a non-detect with its limit in another unit is a series of its own, in canonical order', () => {
    const series = trendSeries([
      row({ Id: 3, ResultValue: 0.02, ResultUnit: 'mg/L', ActivityStartDate: '2021-01-01', ActivityStartTime: '10:00' }),
      row({ Id: 2, ResultValue: 0.03, ResultUnit: 'mg/L', ActivityStartDate: '2021-01-01', ActivityStartTime: null }),
      row({ Id: 1, ResultValue: 0.01, ResultUnit: 'mg/L', ActivityStartDate: '2021-01-02' }),
      row({ Id: 4, ResultDetectionCondition: BELOW, ResultDetectionQuantitationLimitMeasure: 5, ResultDetectionQuantitationLimitUnit: 'ug/L' }),
      row({ Id: 5, ResultValue: 0.05, ResultUnit: 'mg/L', ResultSampleFraction: 'Dissolved' }),
    ]);
    expect(series.map((s) => [s.key.ResultSampleFraction, s.key.ResultUnit, s.observations.map((o) => o.id)])).toEqual([
      [null, 'mg/L', [2, 3, 1]], [null, 'ug/L', [4]], ['Dissolved', 'mg/L', [5]],
    ]);
  });
});

describe('EndYear and periods (§2)', () => {
  const rows = [row({ ResultValue: 1, ActivityStartDate: '2023-12-31' }), row({ ResultValue: 1, ActivityStartDate: '2025-01-02', ActivityGroupType: 'Quality Control - Lab Sample' }), row({ ActivityStartDate: '2024-03-01', ResultDetectionCondition: NOT_DETECTED })];

  it('is TRENDS_END_YEAR when given, else the latest year of a usable observation in the hub', () => {
    expect(hubEndYear(rows)).toBe(2023);
    expect(hubEndYear(rows, '2022')).toBe(2022);
    expect(hubEndYear([])).toBeUndefined();
  });

  it('reads N as the N years ending at EndYear and A-B as those years', () => {
    expect(parsePeriods('5,10,15', 2024)).toEqual([{ startYear: 2020, endYear: 2024 }, { startYear: 2015, endYear: 2024 }, { startYear: 2010, endYear: 2024 }]);
    expect(parsePeriods('2020-2024, 3', 1985)).toEqual([{ startYear: 2020, endYear: 2024 }, { startYear: 1983, endYear: 1985 }]);
    expect(() => parsePeriods('five', 2024)).toThrow();
  });
});

/** One generated series' stored rows: a sampling pattern, a level and trend, some censoring, some QC. */
function generatedSeries(random: Random, location: number, nextId: () => number): StoredResult[] {
  const pattern = random.pick(['monthly', 'quarterly', 'sparse', 'flat'] as const);
  const characteristic = random.pick(['Total phosphorus, mixed forms', 'pH', 'Dissolved oxygen (DO)', 'Escherichia coli', 'Temperature, water']);
  const limit = random.pick([0.5, 1, 2]);
  const trend = random.range(-0.3, 0.3);
  const rows: StoredResult[] = [];
  for (let year = 2010; year <= 2024; year++) {
    for (let month = 1; month <= 12; month++) {
      const keep = { monthly: random.next() < 0.95, quarterly: month % 3 === 2 && random.next() < 0.95, sparse: random.next() < 0.3, flat: month % 3 === 1 }[pattern];
      if (!keep) continue;
      const date = `${year}-${String(month).padStart(2, '0')}-${String(1 + random.int(28)).padStart(2, '0')}`;
      const value = pattern === 'flat' ? (random.next() < 0.15 ? random.int(10) : 3) : Math.round((5 + trend * (year - 2010) + 2 * Math.sin(month / 2) + random.normal()) * 10) / 10;
      const at = { Id: nextId(), LocationId: location, CharacteristicName: characteristic, ActivityStartDate: date };
      rows.push(value < limit
        ? storedResult({ ...at, ResultDetectionCondition: BELOW, ResultDetectionQuantitationLimitMeasure: limit, ResultDetectionQuantitationLimitUnit: 'mg/L' })
        : storedResult({ ...at, ResultValue: value, ResultUnit: 'mg/L' }));
      if (random.next() < 0.05) rows.push(storedResult({ ...at, Id: nextId(), ResultValue: 999, ResultUnit: 'mg/L', ActivityGroupType: 'Quality Control - Field Measure' }));
    }
  }
  return rows;
}

const NOTES = new Set(['ok', 'WARNING: Sen slope based on two censored values', 'WARNING: Sen slope influenced by censored values',
  'WARNING: Sen slope based on tied non-censored values', '< 3 unique values', '< 5 Non-censored values', 'Long run of single value',
  '< 3non-NA values in Season', '< 3 unique values in Season', 'Long run of single value in a Season', 'Not Analysed',
  'Insufficent data to complete Seasonal Mann Kendall']);

/** §10's states: unassessed (coverage only), not analysed (checks or §7.4), analysed (everything). */
function expectConsistent(r: TrendRow): void {
  if (r.TimeIncrement === 'unassessed') {
    expect(r).toMatchObject({ N: null, Seasonal: null, S: null, Cd: null, AnalysisNote: null, Direction: 'Not Analysed', Reason: 'unassessed' });
    return;
  }
  expect(NOTES.has(r.AnalysisNote!), r.AnalysisNote!).toBe(true);
  expect(r.Seasonal === (r.Season !== null)).toBe(true);
  if (r.Cd === null) {
    expect(r).toMatchObject({ Z: null, P: null, SenSlope: null, Median: null, Direction: 'Not Analysed', Reason: 'not analysed' });
    return;
  }
  expect(r.C).toBeCloseTo(1 - r.P! / 2, 15);
  expect(Number.isInteger(r.S)).toBe(true);
  expect(r.SenSlopeLower90!).toBeLessThanOrEqual(r.SenSlopeUpper90!);
  expect(r.Direction).toBe(r.Cd > 0.5 ? 'Decreasing' : r.Cd < 0.5 ? 'Increasing' : 'Indeterminate');
  expect(r.Reason).toBe(r.ImprovesWhen === null ? 'no polarity' : null);
}

describe('over a generated hub', () => {
  it('gives every series a row per period in one of §10\'s states, and quality control changes nothing', () => {
    const random = createRandom(54);
    let id = 0;
    const rows = Array.from({ length: 1000 }, (_, location) => generatedSeries(random, location, () => ++id)).flat();
    const endYear = hubEndYear(rows)!;
    const run = (input: readonly StoredResult[]) => trendSeries(input).flatMap((s) =>
      trendRows(s.observations, { endYear, periods: '5,10,15', characteristicName: s.key.CharacteristicName }));
    const results = run(rows);
    expect(results).toHaveLength(3000);
    results.forEach(expectConsistent);
    const analysed = results.filter((r) => r.Cd !== null);
    expect(analysed.length).toBeGreaterThan(700);
    expect(new Set(analysed.map((r) => r.Season)).size).toBeGreaterThan(1);
    expect(results.some((r) => r.AnalysisNote === 'Long run of single value in a Season' || r.AnalysisNote === 'Long run of single value')).toBe(true);
    // Quality control enters no trend: the first 200 locations without their QC rows give the same rows.
    const first = rows.filter((r) => r.LocationId! < 200);
    expect(run(first.filter((r) => r.ActivityGroupType !== 'Quality Control - Field Measure'))).toEqual(run(first));
    expect(first.some((r) => r.ActivityGroupType === 'Quality Control - Field Measure')).toBe(true);
  });
});
