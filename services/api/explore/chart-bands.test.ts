import { describe, expect, it } from 'vitest';
import { bandsOf, type SummaryRow } from './chart-bands.js';

const row = (LocationId: number, ResultUnit: string | null, P10: number | null, P90: number | null, P10Qualifier: string | null = null, P90Qualifier: string | null = null): SummaryRow =>
  ({ LocationId, ResultUnit, P10, P10Qualifier, P90, P90Qualifier });

describe('bandsOf: the P10–P90 band of each charted location', () => {
  it.each([
    ['one summary in the chart\'s unit', [row(1, 'mg/L', 2, 5)], new Map([[1, [2, 5]]])],
    ['a summary in another unit than the values', [row(1, 'ug/L', 2000, 5000)], new Map()],
    ['two summaries in the unit (two fractions): ambiguous, none', [row(1, 'mg/L', 2, 5), row(1, 'mg/L', 1, 3)], new Map()],
    ['one in the unit beside one in another unit', [row(1, 'mg/L', 2, 5), row(1, 'ug/L', 1, 3)], new Map([[1, [2, 5]]])],
    ['nothing estimated (Method none): no percentiles', [row(1, 'mg/L', null, null)], new Map()],
    ['no unit given', [row(1, null, 2, 5)], new Map()],
    ['a location not charted', [row(2, 'mg/L', 2, 5)], new Map()],
    // Issue 52: a percentile below a detection limit is known only to lie below it: the band's lower end is open.
    ['P10 below a detection limit: open below', [row(1, 'mg/L', 0.5, 5, '<')], new Map([[1, [null, 5]]])],
    ['P90 above a quantification limit: open above', [row(1, 'mg/L', 2, 2419.6, null, '>')], new Map([[1, [2, null]]])],
    ['P90 below a limit is still its upper end', [row(1, 'mg/L', 0.5, 1, '<', '<')], new Map([[1, [null, 1]]])],
    ['open at both ends: no band', [row(1, 'mg/L', 1, 2419.6, '<', '>')], new Map()],
  ] as const)('%s', (_why, summaries, want) => {
    expect(bandsOf(summaries, [1], new Set(['mg/L']))).toEqual(want);
  });
});
