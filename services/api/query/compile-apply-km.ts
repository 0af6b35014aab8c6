/**
 * `$apply`'s statistics with non-detects (../shared/statistics/README.md §7): `Tributary.km_median`, `km_p10`,
 * `km_p90`, `km_mean`, their qualifiers and `km_method`, each group's as a LocationSummaries row of the same rows
 * would report it. The statistics are schemas/km-sql.ts's, the very SQL ingest summarises with; this file reads the
 * observations' columns into it and joins its groups to the rest of the `$apply`.
 *
 * The query wraps compile-apply.ts's: its groups, filter and other aggregates as `b` (the km aggregates' places
 * hold null there), and the km statistics of the same rows grouped the same way as `k`, joined by the group fields.
 * The limits convert into each row's ResultUnit through `unit_conversions`, written at publish (UCUM's factors per
 * pair), joined to the observations under `u` (`kmConversionJoin`).
 */
import { kmConversionOn, kmRowSql, kmSummarySql, UNIT_CONVERSION_COLUMNS, type KmOutput, type KmRowColumns, type KmRowSql } from '../../../schemas/km-sql.js';
import type { AggregateMethod, KmAggregateMethod } from '../odata/ast.js';
import type { ApplyPlan, PlannedAggregate } from './plan.js';
import { column, ident, literal } from './sql.js';
import { joinSource, sourceColumn, UNIT_CONVERSIONS, type Source } from './source.js';

/** Each km method and the shared SQL's column that holds its value. */
const KM_COLUMNS: { readonly [M in KmAggregateMethod]: KmOutput } = {
  'Tributary.km_median': 'km_median',
  'Tributary.km_p10': 'km_p10',
  'Tributary.km_p90': 'km_p90',
  'Tributary.km_mean': 'km_mean',
  'Tributary.km_median_qualifier': 'km_median_q',
  'Tributary.km_p10_qualifier': 'km_p10_q',
  'Tributary.km_p90_qualifier': 'km_p90_q',
  'Tributary.km_method': 'km_method',
};

export function isKmMethod(method: AggregateMethod): method is KmAggregateMethod {
  return Object.hasOwn(KM_COLUMNS, method);
}

export function hasKmAggregate(plan: ApplyPlan): boolean {
  return plan.aggregates.some((a) => a.kind === 'method' && isKmMethod(a.method));
}

const NAMES = { ident, constant: literal };
const conversion = (name: keyof typeof UNIT_CONVERSION_COLUMNS) => column(UNIT_CONVERSIONS.alias, UNIT_CONVERSION_COLUMNS[name]);
const CONVERSION = { fromUnit: conversion('fromUnit'), toUnit: conversion('toUnit'), factor: conversion('factor'), offset: conversion('offset') };

function rowColumns(fact: Source): KmRowColumns {
  const c = (name: string) => sourceColumn(fact, name);
  return { value: c('ResultValue'), unit: c('ResultUnit'), condition: c('ResultDetectionCondition'), limit: c('ResultDetectionQuantitationLimitMeasure'), limitUnit: c('ResultDetectionQuantitationLimitUnit') };
}

/** A row of the fact (the observations) as the statistics read it: its unit, kind and number (§2). */
export function kmRow(fact: Source): KmRowSql {
  return kmRowSql(rowColumns(fact), CONVERSION, NAMES);
}

/** The join of each row's limit to its conversion into the row's ResultUnit. */
export function kmConversionJoin(fact: Source): string {
  return ` LEFT${joinSource(UNIT_CONVERSIONS, kmConversionOn(rowColumns(fact), CONVERSION))}`;
}

/** What compile-apply.ts hands over: its query's pieces. */
export interface KmApplyParts {
  readonly plan: ApplyPlan;
  readonly fact: Source;
  /** `expr AS g0`, … */
  readonly groups: readonly string[];
  /** ` FROM … JOIN … WHERE …`, the conversion joined. */
  readonly from: string;
  /** The whole `SELECT g0, …, a0, …, x0, … GROUP BY …` with the km aggregates' places null. */
  readonly base: string;
  /** How many unit checks (`x0, …`) it carries. */
  readonly checks: number;
}

/**
 * The `$apply` with its km aggregates filled in: `b`'s columns, each km aggregate from the statistics of the group's
 * rows. Without a groupby, one group (a constant key) on each side.
 */
export function kmApplySql(parts: KmApplyParts): string {
  const row = kmRow(parts.fact);
  const keys = parts.plan.groupBy.length > 0 ? parts.plan.groupBy.map((_, i) => `g${i}`) : ['g_all'];
  const groups = parts.plan.groupBy.length > 0 ? parts.groups : ['0 AS g_all'];
  const input = `(SELECT ${[...groups, `${row.kind} AS km_k`, `${row.number} AS km_x`].join(', ')}${parts.from})`;
  const statistics = kmSummarySql({ input, keys, names: NAMES });
  const on = parts.plan.groupBy.length > 0 ? keys.map((k) => `b.${k} IS NOT DISTINCT FROM k.${k}`).join(' AND ') : 'TRUE';
  const columns = [
    ...parts.plan.groupBy.map((_, i) => `b.g${i}`),
    ...parts.plan.aggregates.map((a, i) => `${kmColumn(a) ?? `b.a${i}`} AS a${i}`),
    ...Array.from({ length: parts.checks }, (_, i) => `b.x${i}`),
  ];
  return `SELECT ${columns.join(', ')} FROM (${parts.base}) b LEFT JOIN (${statistics}) k ON ${on}`;
}

function kmColumn(a: PlannedAggregate): string | undefined {
  return a.kind === 'method' && isKmMethod(a.method) ? `k.${KM_COLUMNS[a.method]}` : undefined;
}
