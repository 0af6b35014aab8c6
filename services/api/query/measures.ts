/**
 * What `$apply`'s `aggregate(Field with method as Alias)` may aggregate: the measures each resource declares
 * (schemas/catalogue.ts, its `apply` door), with their type and the field naming their unit. Values in different
 * units are never aggregated together: over rows of more than one unit the aggregate is refused (exec/execute.ts),
 * unless the unit is a groupby field.
 */
import type { ResourceDef } from '../../../schemas/index.js';
import type { AggregateMethod } from '../odata/ast.js';

export interface Measure {
  /** The field name a client writes (and the column of the resource's table). */
  readonly name: string;
  readonly type: 'number' | 'date';
  /** The dimension holding the value's unit; none for a date or a pure number (an index, a count). */
  readonly unit?: string;
}

/** The measures a resource declares, typed from its fields (whole numbers aggregate as numbers). */
export function measuresOf(resource: ResourceDef): readonly Measure[] {
  if (resource.apply === 'none') return [];
  return resource.apply.measures.map((m) => {
    const field = resource.fields.find((f) => f.name === m.field);
    if (!field) throw new Error(`${resource.name} declares the measure ${m.field}, which is not one of its fields`);
    if (field.type !== 'number' && field.type !== 'integer' && field.type !== 'date') throw new Error(`${resource.name}.${m.field} is a ${field.type}, not a measure`);
    return { name: m.field, type: field.type === 'date' ? 'date' : 'number', ...(m.unit ? { unit: m.unit } : {}) };
  });
}

export function getMeasure(resource: ResourceDef, name: string): Measure | undefined {
  return measuresOf(resource).find((m) => m.name === name);
}

/**
 * Each method: the measure types it applies to, the type of its result, whether the values' unit matters (counting
 * the rows without a value does not mix units; every other method reads the values), and whether it is holistic:
 * it needs every value of a group at once (a sort or a set), not a running figure, so a request holds few of them
 * (query/apply-limits.ts).
 */
export const METHODS: {
  readonly [M in AggregateMethod]: { readonly types: readonly Measure['type'][]; readonly result: 'number' | 'integer' | 'input'; readonly unitBound: boolean; readonly holistic: boolean; readonly description: string };
} = {
  sum: { types: ['number'], result: 'number', unitBound: true, holistic: false, description: 'sum of the values' },
  min: { types: ['number', 'date'], result: 'input', unitBound: true, holistic: false, description: 'least value (first date)' },
  max: { types: ['number', 'date'], result: 'input', unitBound: true, holistic: false, description: 'greatest value (last date)' },
  average: { types: ['number'], result: 'number', unitBound: true, holistic: false, description: 'arithmetic mean of the values' },
  countdistinct: { types: ['number', 'date'], result: 'integer', unitBound: true, holistic: true, description: 'number of distinct values (of a measure, or of an identifier or dimension such as LocationId)' },
  'Tributary.median': { types: ['number'], result: 'number', unitBound: true, holistic: true, description: 'exact median: the 50th percentile as Tributary.p10 defines it' },
  'Tributary.p10': {
    types: ['number'],
    result: 'number',
    unitBound: true,
    holistic: true,
    description: 'exact 10th percentile: linear interpolation between the closest ranks of the sorted values, x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]) with h = (n − 1)·0.1 (Hyndman & Fan type 7, the default of R, NumPy and Excel PERCENTILE.INC)',
  },
  'Tributary.p90': { types: ['number'], result: 'number', unitBound: true, holistic: true, description: 'exact 90th percentile, as Tributary.p10 with 0.9' },
  'Tributary.countnull': { types: ['number', 'date'], result: 'integer', unitBound: false, holistic: false, description: 'number of rows without a value: for ResultValue, the non-detects' },
};
