import { describe, expect, it } from 'vitest';
import { bandsOf, type SummaryRow } from './chart-bands.js';

const row = (LocationId: number, ResultUnit: string | null, P10: number | null, P90: number | null): SummaryRow => ({ LocationId, ResultUnit, P10, P90 });

describe('bandsOf: the P10–P90 band of each charted location', () => {
  it.each([
    ['one summary in the chart\'s unit', [row(1, 'mg/L', 2, 5)], new Map([[1, [2, 5]]])],
    ['a summary in another unit than the values', [row(1, 'ug/L', 2000, 5000)], new Map()],
    ['two summaries in the unit (two fractions): ambiguous, none', [row(1, 'mg/L', 2, 5), row(1, 'mg/L', 1, 3)], new Map()],
    ['one in the unit beside one in another unit', [row(1, 'mg/L', 2, 5), row(1, 'ug/L', 1, 3)], new Map([[1, [2, 5]]])],
    ['non-detects only: no percentiles', [row(1, 'mg/L', null, null)], new Map()],
    ['no unit given', [row(1, null, 2, 5)], new Map()],
    ['a location not charted', [row(2, 'mg/L', 2, 5)], new Map()],
  ] as const)('%s', (_why, summaries, want) => {
    expect(bandsOf(summaries, [1], new Set(['mg/L']))).toEqual(want);
  });
});
