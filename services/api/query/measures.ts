/**
 * What `$apply`'s `aggregate(Field with method as Alias)` may aggregate, as data: each measure's column, its type, and
 * the field naming its unit. Values in different units are never aggregated together: over rows of more than one
 * unit the aggregate is refused (exec/execute.ts), unless the unit is a groupby field.
 */
import type { AggregateMethod } from '../odata/ast.js';

export interface Measure {
  /** The field name a client writes (and the observations' column). */
  readonly name: string;
  readonly type: 'number' | 'date';
  /** The dimension holding the value's unit; none for a date. */
  readonly unit?: string;
}

export const MEASURES: readonly Measure[] = [
  { name: 'ResultValue', type: 'number', unit: 'ResultUnit' },
  { name: 'ResultDetectionQuantitationLimitMeasure', type: 'number', unit: 'ResultDetectionQuantitationLimitUnit' },
  { name: 'ActivityDepthHeightMeasure', type: 'number', unit: 'ActivityDepthHeightUnit' },
  // First and last dates: min and max; countdistinct counts the days sampled.
  { name: 'ActivityStartDate', type: 'date' },
];

/**
 * Each method: the measure types it applies to, the type of its result, and whether the values' unit matters
 * (counting the rows without a value does not mix units; every other method reads the values).
 */
export const METHODS: { readonly [M in AggregateMethod]: { readonly types: readonly Measure['type'][]; readonly result: 'number' | 'integer' | 'input'; readonly unitBound: boolean; readonly description: string } } = {
  sum: { types: ['number'], result: 'number', unitBound: true, description: 'sum of the values' },
  min: { types: ['number', 'date'], result: 'input', unitBound: true, description: 'least value (first date)' },
  max: { types: ['number', 'date'], result: 'input', unitBound: true, description: 'greatest value (last date)' },
  average: { types: ['number'], result: 'number', unitBound: true, description: 'arithmetic mean of the values' },
  countdistinct: { types: ['number', 'date'], result: 'integer', unitBound: true, description: 'number of distinct values' },
  'Tributary.median': { types: ['number'], result: 'number', unitBound: true, description: 'exact median: the 50th percentile as Tributary.p10 defines it' },
  'Tributary.p10': {
    types: ['number'],
    result: 'number',
    unitBound: true,
    description: 'exact 10th percentile: linear interpolation between the closest ranks of the sorted values, x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]) with h = (n − 1)·0.1 (Hyndman & Fan type 7, the default of R, NumPy and Excel PERCENTILE.INC)',
  },
  'Tributary.p90': { types: ['number'], result: 'number', unitBound: true, description: 'exact 90th percentile, as Tributary.p10 with 0.9' },
  'Tributary.countnull': { types: ['number', 'date'], result: 'integer', unitBound: false, description: 'number of rows without a value: for ResultValue, the non-detects' },
};

export function getMeasure(name: string): Measure | undefined {
  return MEASURES.find((m) => m.name === name);
}
