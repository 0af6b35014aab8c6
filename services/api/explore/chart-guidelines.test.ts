import { describe, expect, it } from 'vitest';
import { exceedingIds, guidelineLines, type ComparisonRow } from './chart-guidelines.js';

const row = (o: Partial<ComparisonRow>): ComparisonRow => ({
  ObservationId: 1, LocationId: 3, GuidelineId: 7, ActivityStartDate: '2020-01-01', Publisher: 'CCME', ProtectionLevel: 'Chronic',
  ResultUnit: 'ug/L', GuidelineLower: null, GuidelineUpper: 2, Verdict: 'meets', ...o,
});

describe('guidelineLines', () => {
  it('draws a bound that moves with its input through each day, one value a day, in date order', () => {
    const lines = guidelineLines([
      row({ ObservationId: 3, ActivityStartDate: '2020-03-01', GuidelineUpper: 5 }),
      row({ ObservationId: 1, ActivityStartDate: '2020-01-01', GuidelineUpper: 2 }),
      row({ ObservationId: 2, ActivityStartDate: '2020-01-01', GuidelineUpper: 2 }),
    ], new Set(['ug/L']));
    expect(lines).toEqual([{ locationId: 3, guidelineId: 7, bound: 'upper', label: 'CCME Chronic (maximum)', points: [['2020-01-01', 2], ['2020-03-01', 5]] }]);
  });
  it('a range is two lines; each location and guideline its own; other units and missing bounds left out', () => {
    const lines = guidelineLines([
      row({ GuidelineId: 9, GuidelineLower: 6.5, GuidelineUpper: 9 }),
      row({ LocationId: 4 }),
      row({ LocationId: 5, ResultUnit: 'mg/L' }),
      row({ LocationId: 6, GuidelineUpper: null }),
    ], new Set(['ug/L']));
    expect(lines.map((l) => [l.locationId, l.guidelineId, l.label])).toEqual([
      [3, 9, 'CCME Chronic (range low)'], [3, 9, 'CCME Chronic (range high)'], [4, 7, 'CCME Chronic (maximum)'],
    ]);
  });
});

describe('exceedingIds', () => {
  it('is the observations with at least one exceeds verdict', () => {
    expect(exceedingIds([row({ ObservationId: 1, Verdict: 'exceeds' }), row({ ObservationId: 1, GuidelineId: 8 }), row({ ObservationId: 2, Verdict: 'indeterminate' })])).toEqual(new Set([1]));
  });
});
