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
 * ResultValue as the km methods read it (../shared/statistics/README.md §7): every row with a number, detected or a
 * usable limit, in its unit — its ResultUnit, or for a censored result without one its limit's unit. Its unit check
 * counts those units, whatever the groupby (a null ResultUnit group can hold limits in several units).
 */
export const KM_VALUE: Measure = { name: 'ResultValue', type: 'number', unit: 'ResultUnit' };

/**
 * A method: the measure types it applies to, the type of its result, whether the values' unit matters (counting the
 * rows without a value does not mix units; every other method reads the values), and whether it is holistic: it
 * needs every value of a group at once (a sort or a set), not a running figure, so a request holds few of them
 * (query/apply-limits.ts).
 */
export interface MethodDef {
  readonly types: readonly Measure['type'][];
  readonly result: 'number' | 'integer' | 'string' | 'input';
  readonly unitBound: boolean;
  readonly holistic: boolean;
  /** The measures it applies to, when not every one of its types (the km methods read the limits beside ResultValue). */
  readonly only?: readonly string[];
  /** A pass over each group's values that several methods share: the km methods read one Kaplan–Meier curve (compile-apply-km.ts). */
  readonly pass?: 'kaplan-meier';
  readonly description: string;
}

const detectedOnly = (what: string, km: string) => `${what} of the detected values: non-detects left out, which biases it upward where results are censored (${km} counts them)`;
const km = (description: string, result: MethodDef['result'] = 'number'): MethodDef => ({ types: ['number'], result, unitBound: true, holistic: true, only: ['ResultValue'], pass: 'kaplan-meier', description });

export const METHODS: { readonly [M in AggregateMethod]: MethodDef } = {
  sum: { types: ['number'], result: 'number', unitBound: true, holistic: false, description: 'sum of the values' },
  min: { types: ['number', 'date'], result: 'input', unitBound: true, holistic: false, description: 'least value (first date)' },
  max: { types: ['number', 'date'], result: 'input', unitBound: true, holistic: false, description: 'greatest value (last date)' },
  average: { types: ['number'], result: 'number', unitBound: true, holistic: false, description: detectedOnly('arithmetic mean', 'Tributary.km_mean') },
  countdistinct: { types: ['number', 'date'], result: 'integer', unitBound: true, holistic: true, description: 'number of distinct values (of a measure, or of an identifier or dimension such as LocationId)' },
  'Tributary.median': { types: ['number'], result: 'number', unitBound: true, holistic: true, description: `${detectedOnly('exact median', 'Tributary.km_median')}: the 50th percentile as Tributary.p10 defines it` },
  'Tributary.p10': {
    types: ['number'],
    result: 'number',
    unitBound: true,
    holistic: true,
    description: `${detectedOnly('exact 10th percentile', 'Tributary.km_p10')}: linear interpolation between the closest ranks of the sorted values, x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]) with h = (n − 1)·0.1 (Hyndman & Fan type 7, the default of R, NumPy and Excel PERCENTILE.INC)`,
  },
  'Tributary.p90': { types: ['number'], result: 'number', unitBound: true, holistic: true, description: `${detectedOnly('exact 90th percentile', 'Tributary.km_p90')}, as Tributary.p10 with 0.9` },
  'Tributary.countnull': { types: ['number', 'date'], result: 'integer', unitBound: false, holistic: false, description: 'number of rows without a value: for ResultValue, the non-detects' },
  'Tributary.km_median': km(
    "median with the non-detects (ResultValue only): Kaplan–Meier where results are censored (NADA's cenfit: a detected value, or a limit the median is below or above, as km_median_qualifier says), type 7 as Tributary.median where none is, null where km_method is none",
  ),
  'Tributary.km_p10': km('10th percentile with the non-detects, as Tributary.km_median'),
  'Tributary.km_p90': km('90th percentile with the non-detects, as Tributary.km_median'),
  'Tributary.km_mean': km("mean with the non-detects: the Kaplan–Meier mean (NADA's cenfit), the arithmetic mean where no result is censored, null where results above a limit leave it unbounded or km_method is none"),
  'Tributary.km_median_qualifier': km("'<' when the median is below the number km_median gives (a limit), '>' above it, null when it is the median", 'string'),
  'Tributary.km_p10_qualifier': km('as km_median_qualifier, for km_p10', 'string'),
  'Tributary.km_p90_qualifier': km('as km_median_qualifier, for km_p90', 'string'),
  'Tributary.km_method': km(
    "exact (no censored results), km (Kaplan–Meier) or none (no usable result, more than 80 % censored, or left- and right-censored results that overlap): how the km statistics were computed",
    'string',
  ),
};
