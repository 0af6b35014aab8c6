/**
 * The statistics oracle's reading of stored rows (../shared/statistics/README.md §2, §7): kinds, the group's unit,
 * limits in another unit through the repository's UCUM table, quality control set aside, and `mixed_units`.
 */
import { describe, expect, it } from 'vitest';
import { conversion } from '../../ingest/unit-conversion.js';
import { classifyResult, groupUnitOf, kmAggregate, kmLocationSummaries, kmSummary, locationSummaryGroups, type Convert } from './km-oracle.js';
import { ABOVE, BELOW, NOT_DETECTED, storedResult, type StoredResult } from './stored-result.js';

/** The repository's conversion (not under test here): value × factor + offset. */
const convert: Convert = (value, from, to) => {
  const c = conversion(from, to);
  return c === undefined ? undefined : value * c.factor + c.offset;
};

const detected = (value: number, unit: string | null, more: Partial<StoredResult> = {}) =>
  storedResult({ ResultValue: value, ResultUnit: unit, ...more });
const censored = (condition: string, limit: number | null, limitUnit: string | null, more: Partial<StoredResult> = {}) =>
  storedResult({ ResultDetectionCondition: condition, ResultDetectionQuantitationLimitMeasure: limit, ResultDetectionQuantitationLimitUnit: limitUnit, ...more });

describe('each row\'s kind (§2.1)', () => {
  it.each([
    ['a value', detected(-0.4, 'mg/L'), { kind: 'detected', value: -0.4 }],
    ['Below… with a limit', censored(BELOW, 0.5, 'mg/L'), { kind: 'left', value: 0.5 }],
    ['Not Detected with a limit', censored(NOT_DETECTED, 0.5, 'mg/L'), { kind: 'left', value: 0.5 }],
    ['Above… with a limit', censored(ABOVE, 2419.6, 'mg/L'), { kind: 'right', value: 2419.6 }],
    ['Not Detected without a limit', censored(NOT_DETECTED, null, null), { kind: 'unusable' }],
    ['Below… without a limit', censored(BELOW, null, null), { kind: 'unusable' }],
    ['Below… with a limit but no limit unit', censored(BELOW, 0.5, null), { kind: 'unusable' }],
    ['Detected Not Quantified', censored('Detected Not Quantified', 0.5, 'mg/L'), { kind: 'unusable' }],
    ['Not Reported', censored('Not Reported', null, null), { kind: 'unusable' }],
    ['Unable to Measure', censored('Unable to Measure', null, null), { kind: 'unusable' }],
  ])('%s', (_, row, kind) => {
    expect(classifyResult(row, 'mg/L', convert)).toEqual(kind);
  });
});

describe('the group\'s unit (§2.2) and limits in another unit (§2.3)', () => {
  it('gives a censored row without ResultUnit its limit\'s unit, and leaves every other row its ResultUnit', () => {
    expect(groupUnitOf(censored(BELOW, 5, 'ug/L'))).toBe('ug/L');
    expect(groupUnitOf(censored(ABOVE, 5, 'ug/L'))).toBe('ug/L');
    expect(groupUnitOf(censored(BELOW, 5, 'ug/L', { ResultUnit: 'mg/L' }))).toBe('mg/L');
    expect(groupUnitOf(censored('Detected Not Quantified', 5, 'ug/L'))).toBeNull();
    expect(groupUnitOf(censored(NOT_DETECTED, null, null))).toBeNull();
    expect(groupUnitOf(detected(3, null))).toBeNull();
  });

  it('converts 5 µg/L into a mg/L group as 0.005, rounded so it ties with a detected 0.005 (§4.3: `<` wins the minimum)', () => {
    const rows = [detected(0.005, 'mg/L'), censored(BELOW, 5, 'ug/L', { ResultUnit: 'mg/L' }), detected(0.02, 'mg/L')];
    expect(classifyResult(rows[1]!, 'mg/L', convert)).toEqual({ kind: 'left', value: 0.005 });
    const [group] = kmLocationSummaries(rows, convert);
    expect(group!.summary).toMatchObject({ Min: 0.005, MinQualifier: '<', LeftCensored: 1, Method: 'km' });
  });

  it('makes a limit that does not convert (ppm in a mg/L group) unusable: counted, in no statistic', () => {
    const rows = [detected(1, 'mg/L'), detected(2, 'mg/L'), censored(BELOW, 0.5, 'ppm', { ResultUnit: 'mg/L' })];
    const [group] = kmLocationSummaries(rows, convert);
    expect(group!.summary).toMatchObject({ Count: 3, NonDetects: 1, LeftCensored: 0, Unusable: 1, Method: 'exact', Min: 1, Median: 1.5 });
  });
});

describe('a location\'s groups (§2.2, §2.4)', () => {
  const lead = { CharacteristicName: 'Lead', ResultSampleFraction: 'Dissolved' };
  const rows: StoredResult[] = [
    detected(3, 'ug/L', lead), detected(7, 'ug/L', lead), detected(0.02, 'mg/L', lead),
    censored(BELOW, 1, 'ug/L', lead),
    censored(BELOW, 0.01, 'mg/L', lead),
    censored(NOT_DETECTED, null, null, lead),
    detected(900, 'ug/L', { ...lead, ActivityGroupType: 'Quality Control - Lab Sample' }),
    censored(BELOW, 0.5, 'ug/L', { ...lead, ActivityGroupType: 'Quality Control - Field Measure' }),
    detected(5, 'ug/L', { CharacteristicName: 'Lead', ResultSampleFraction: 'Total' }),
  ];
  const groups = locationSummaryGroups(rows, convert);

  it('puts each non-detect without ResultUnit beside the values in its limit\'s unit, never another unit\'s', () => {
    expect(groups.map((g) => [g.key.ResultSampleFraction, g.key.ResultUnit, g.rows.length])).toEqual([
      ['Dissolved', 'mg/L', 2], ['Dissolved', 'ug/L', 3], ['Dissolved', null, 1], ['Total', 'ug/L', 1],
    ]);
  });

  it('sets quality-control results aside: not in Count, not in any statistic', () => {
    const ug = kmSummary(groups[1]!.classified);
    expect(ug).toMatchObject({ Count: 3, LeftCensored: 1, Max: 7, MaxQualifier: null, Min: 1, MinQualifier: '<' });
  });

  it('keeps in the null-unit group the rows with neither a ResultUnit nor a usable limit', () => {
    expect(kmSummary(groups[2]!.classified)).toMatchObject({ Count: 1, NonDetects: 1, Unusable: 1, Method: 'none', MethodReason: 'no usable results', Min: null, Max: null });
  });
});

describe('$apply\'s km methods (§7)', () => {
  it('answers a group in one unit with its LocationSummaries statistics, quality control included as the filter names it', () => {
    const rows = ['20', '<10', '<10', '<10', '<10', '7', '3', '<3', '<3'].map((t) =>
      t.startsWith('<') ? censored(BELOW, Number(t.slice(1)), 'ug/L') : detected(Number(t), 'ug/L'));
    const qc = detected(1, 'ug/L', { ActivityGroupType: 'Quality Control - Lab Sample' });
    expect(kmAggregate(rows, convert)).toMatchObject({ kind: 'ok', unit: 'ug/L', km_median: 3, km_median_qualifier: null, km_p10: 3, km_p10_qualifier: '<', km_p90: 20, km_method: 'km' });
    expect(kmAggregate([...rows, qc], convert)).toMatchObject({ kind: 'ok', km_p10: 1, km_p10_qualifier: null });
  });

  it('is mixed_units over two units, the limit\'s unit counting for a non-detect without ResultUnit', () => {
    expect(kmAggregate([detected(1, 'mg/L'), censored(BELOW, 5, 'ug/L')], convert)).toEqual({ kind: 'mixed_units', units: ['mg/L', 'ug/L'] });
    expect(kmAggregate([detected(1, 'mg/L'), detected(2, null)], convert)).toEqual({ kind: 'mixed_units', units: ['mg/L', null] });
  });

  it('counts no unit for unusable rows', () => {
    const rows = [detected(1, 'mg/L'), detected(2, 'mg/L'), censored(NOT_DETECTED, null, null), censored('Detected Not Quantified', 4, 'ug/L', { ResultUnit: 'ug/L' }), censored(BELOW, 3, 'ppm', { ResultUnit: 'ug/L' })];
    expect(kmAggregate(rows, convert)).toMatchObject({ kind: 'ok', unit: 'mg/L', km_method: 'exact', km_median: 1.5 });
  });
});
