import { locationIdColumns, storageKeys, type DimensionDef, type ResourceDef } from '../../../schemas/index.js';
import type { AggregateMethod } from '../odata/ast.js';
import type { ApplyOrder, ApplyPlan, PlannedAggregate } from './plan.js';
import { countSources, dimsOf, ownCountSources, total } from './count-sources.js';
import { FilterCompiler } from './filter-compiler.js';
import { hasKmAggregate, isKmMethod, kmApplySql, kmConversionJoin, kmRow } from './compile-apply-km.js';
import { KM_VALUE, METHODS, type Measure } from './measures.js';
import { assertNever } from '../assert-never.js';
import { whereClause } from './resource-where.js';
import { column, ident, Params, type CompiledQuery } from './sql.js';
import {
  columnOf,
  joinSource,
  LOCATIONS,
  locationIdIn,
  MEMBERSHIP_ALIAS,
  OBSERVATIONS,
  PAGE_SOURCES,
  REGION_ROLLUP,
  sameLocation,
  sourceColumn,
  sourceTable,
  VALUE_STATS,
  VALUE_STATS_SOURCES,
  type Source,
} from './source.js';

/**
 * `$apply` over the smallest table that answers it (applySources), sorted by `orderby`'s keys then the group fields,
 * `top + 1` groups after the cursor (fewer when `top(n)` leaves fewer). RegionId groups by membership, so a location
 * counts once in each of its regions. The result's columns are `g0, g1, …` (one per group field), `a0, a1, …` (one
 * per aggregate, in the order asked) and, when values with a unit are aggregated, `x0, x1, …`: the most units any
 * group has, one per unit checked (`unitChecks`), the same on every row (a window over all groups, so every page
 * judges the whole result).
 *
 * @example
 * compileApply(planQuery(parseQuery('$apply=groupby((CharacteristicName),aggregate($count as N))'), getResource('Records')!))
 * // { sql: 'SELECT r."CharacteristicName" AS g0, SUM(r."n")::BIGINT AS a0 FROM "observation_rollup" r GROUP BY g0 ORDER BY g0 LIMIT 1001', params: [] }
 */
export function compileApply(plan: ApplyPlan): CompiledQuery {
  const q = grouped(plan);
  const aggregates = plan.aggregates.map((a, i) => `${aggregateSql(a, q.fact, q.distinct[i])} AS a${i}`);
  const checks = unitChecks(plan).map((m, i) => `max(${unitCount(m, q.fact)}) OVER () AS x${i}`);
  const offset = plan.after !== undefined ? ` OFFSET ${q.params.bind({ sqlType: 'BIGINT', value: plan.after })}` : '';
  const base = `SELECT ${[...q.groups, ...aggregates, ...checks].join(', ')}${q.from}${q.groupBy}`;
  // The km methods' statistics need each group's rows in order: compile-apply-km.ts joins them to the groups.
  const groups = hasKmAggregate(plan) ? kmApplySql({ plan, fact: q.fact, groups: q.groups, from: q.from, base, checks: checks.length }) : base;
  const sql = `${groups}${orderClause(plan)} LIMIT ${groupsToRead(plan)}${offset}`;
  return { sql, params: q.params.values };
}

/** `$top + 1` groups (the extra one says a next page exists), or what `top(n)` leaves after the cursor. */
export function groupsToRead(plan: ApplyPlan): number {
  const left = plan.limit === undefined ? Infinity : Math.max(0, plan.limit - Number(plan.after ?? 0n));
  return Math.min(plan.top + 1, left);
}

/**
 * ` ORDER BY` `orderby`'s keys, nulls first ascending and last descending as OData sorts them, then every group field
 * not among them: a total order, so the cursor (groups already sent) names the same groups on every page.
 */
function orderClause(plan: ApplyPlan): string {
  const key = (o: ApplyOrder) => `${o.column === 'group' ? 'g' : 'a'}${o.index}${o.descending ? ' DESC NULLS LAST' : ' ASC NULLS FIRST'}`;
  const ordered = new Set(plan.orderBy.filter((o) => o.column === 'group').map((o) => o.index));
  const keys = [...plan.orderBy.map(key), ...plan.groupBy.flatMap((_, i) => (ordered.has(i) ? [] : [`g${i}`]))];
  return keys.length ? ` ORDER BY ${keys.join(', ')}` : '';
}

/**
 * The rows an `$apply` reads: those of its fact (the observations, a statistics table or a table of its own) under
 * its filter and joins, counted with no grouping. What the request is charged by (issue 56 item 1) and what caps its
 * group estimate (exec/apply-estimate.ts): no group is made of no row. Column `n`.
 * @example compileRowsRead(apply('Records', "$apply=groupby((ResultUnit))&$filter=CharacteristicName eq 'pH'"))
 * // { sql: 'SELECT count(*)::BIGINT AS n FROM "observation_rollup" r WHERE (r."CharacteristicName" = CAST($1 AS VARCHAR))', … }
 */
export function compileRowsRead(plan: ApplyPlan): CompiledQuery {
  const q = grouped(plan);
  return { sql: `SELECT count(*)::BIGINT AS n${q.from}`, params: q.params.values };
}

/**
 * How many groups an `$apply` makes, counted by making them (no aggregate, no order): the statistics the group
 * estimate is built from, run once per publication for one field at a time with no filter. Column `n`.
 */
export function compileGroupCount(plan: ApplyPlan): CompiledQuery {
  const q = grouped(plan);
  return { sql: `SELECT count(*)::BIGINT AS n FROM (SELECT ${q.groups.join(', ')}${q.from}${q.groupBy})`, params: q.params.values };
}

/**
 * The first group (in sort order) whose values of `measure` are in more than one unit, with those units as a JSON
 * array sorted (a row without a unit is ''): what the refusal names. Columns `g0, …` and `units`.
 */
export function compileMixedUnits(plan: ApplyPlan, measure: Measure): CompiledQuery {
  const q = grouped(plan);
  const { unit, value } = unitColumns(measure, q.fact);
  const order = plan.groupBy.map((_, i) => `g${i}`).join(', ');
  const units = `to_json(list_sort(list(DISTINCT coalesce(${unit}, '')) FILTER (WHERE ${value})))::VARCHAR AS units`;
  const sql = `SELECT ${[...q.groups, units].join(', ')}${q.from}${q.groupBy} HAVING ${unitCount(measure, q.fact)} > 1${order ? ` ORDER BY ${order}` : ''} LIMIT 1`;
  return { sql, params: q.params.values };
}

/** The measures whose unit must be one per group: aggregated by a method that reads values, unit not grouped. */
export function unitChecks(plan: ApplyPlan): readonly Measure[] {
  const out: Measure[] = [];
  for (const a of plan.aggregates) {
    if (a.kind !== 'method' || !a.measure.unit || !METHODS[a.method].unitBound) continue;
    // The km methods' units are not ResultUnit's (a non-detect without one is in its limit's): checked whatever the groupby.
    const measure = isKmMethod(a.method) ? KM_VALUE : a.measure;
    if ((measure !== KM_VALUE && plan.groupBy.some((d) => d.name === measure.unit)) || out.some((m) => sameMeasure(m, measure))) continue;
    out.push(measure);
  }
  return out;
}

/** One unit check per measure: KM_VALUE stands apart from the ResultValue the other methods read. */
function sameMeasure(a: Measure, b: Measure): boolean {
  return a === b || (a !== KM_VALUE && b !== KM_VALUE && a.name === b.name);
}

/**
 * The tables that answer an `$apply` on the observations, the fact first: counts (and distinct dimensions) alone as
 * `$count` is answered (the rollups, the statistics or the observations: countSources); methods the resource's
 * `apply` door says the statistics per unit answer (ResultValue's sum, min, max, average and non-detects), or
 * anything with a unit, from those statistics when they hold every dimension; the rest by a scan of the observations.
 */
export function applySources(plan: ApplyPlan): readonly Source[] {
  const distinct = distinctDims(plan);
  const dims = [...dimsOf(plan.where), ...plan.groupBy, ...distinct];
  const held = (d: DimensionDef) => d.membership !== undefined || columnOf(d, VALUE_STATS) !== undefined || d.columns.locations !== undefined;
  const statistical = plan.aggregates.every((a) => a.kind !== 'method' || fromValueStatistics(plan.resource, a));
  if (!statistical || !dims.every(held)) return [OBSERVATIONS];
  const perUnit = plan.aggregates.some((a) => a.kind === 'method') || dims.some((d) => d.columns.observation_value_stats !== undefined);
  return perUnit ? VALUE_STATS_SOURCES : countSources(plan.where, [...plan.groupBy, ...distinct]);
}

/** The statistics per unit answer this method of this measure (the resource's `apply` door says which). */
function fromValueStatistics(resource: ResourceDef, a: Extract<PlannedAggregate, { kind: 'method' }>): boolean {
  if (resource.apply === 'none') return false;
  return resource.apply.statistics.some((s) => s.table === VALUE_STATS.table && s.measure === a.measure.name && s.methods.includes(a.method));
}

/** The dimensions `countdistinct` counts: each read as a group field is, from the first table holding it. */
function distinctDims(plan: ApplyPlan): DimensionDef[] {
  return plan.aggregates.flatMap((a) => (a.kind === 'distinct' ? [a.dim] : []));
}

/**
 * A table of its own is grouped over itself (one row per served row), its location's fields joined; counts and
 * distinct dimensions alone over its smallest statistics table that holds every dimension, when it has one
 * (ownCountSources).
 */
function ownApplySources(plan: ApplyPlan, table: OwnTableResource): readonly Source[] {
  const counts = plan.aggregates.every((a) => a.kind !== 'method');
  return counts ? ownCountSources(table, [...dimsOf(plan.where), ...plan.groupBy, ...distinctDims(plan)]) : PAGE_SOURCES[table.table];
}

type OwnTableResource = Extract<ResourceDef, { kind: 'own-table' }>;

/** The sources of an `$apply`, by the resource's kind; the planner refuses `$apply` where the door is not declared. */
function sourcesOf(plan: ApplyPlan): readonly Source[] {
  const resource = plan.resource;
  switch (resource.kind) {
    case 'observations':
      return applySources(plan);
    case 'own-table':
      return ownApplySources(plan, resource);
    case 'datasets':
    case 'locations':
      throw new Error(`${resource.name} declares no $apply (query/plan-apply.ts refuses it)`);
    default:
      return assertNever(resource);
  }
}

interface Grouped {
  readonly fact: Source;
  readonly params: Params;
  /** `g0, g1, …` as SELECT items. */
  readonly groups: readonly string[];
  /** ` FROM … JOIN … WHERE …`. */
  readonly from: string;
  /** ` GROUP BY g0, …` (or `()`). */
  readonly groupBy: string;
  /** The column each `countdistinct` of a dimension counts, by aggregate index. */
  readonly distinct: readonly (string | undefined)[];
}

/** What the result and the mixed-units query share: the fact, its joins, the filter and the groups. */
function grouped(plan: ApplyPlan): Grouped {
  const params = new Params();
  const sources = sourcesOf(plan);
  const fact = sources[0]!;
  const fc = new FilterCompiler(sources, params);
  const cond = plan.where ? fc.compile(plan.where) : undefined;
  const groups = plan.groupBy.map((dim, i) => `${groupColumn(dim, sources, fc)} AS g${i}`);
  const distinct = plan.aggregates.map((a) => (a.kind === 'distinct' ? groupColumn(a.dim, sources, fc) : undefined));
  const joins = (fc.used.has(LOCATIONS.alias) && sources.includes(LOCATIONS) ? joinSource(LOCATIONS, sameLocation(LOCATIONS, fact)) : '') + membershipJoin(plan, fact) + (hasKmAggregate(plan) ? kmConversionJoin(fact) : '');
  const order = plan.groupBy.map((_, i) => `g${i}`).join(', ');
  return { fact, params, groups, distinct, from: ` FROM ${sourceTable(fact)}${joins}${whereClause([cond])}`, groupBy: ` GROUP BY ${order || '()'}` };
}

/**
 * One aggregate over the fact: a statistics table's sums of its per-key figures, or the rows' own values; a distinct
 * dimension's values counted in the column `distinct` (grouped's).
 */
function aggregateSql(a: PlannedAggregate, fact: Source, distinct: string | undefined): string {
  if (a.kind === 'count') return `${total(fact)}::BIGINT`;
  if (a.kind === 'distinct') return `count(DISTINCT ${distinct!})::BIGINT`;
  if (fact === VALUE_STATS) return statisticsSql(a.method);
  // A km statistic's place: compile-apply-km.ts fills it from the statistics of the group's rows.
  if (isKmMethod(a.method)) return 'NULL';
  // The rows' own values: the observations' (a scan), or a table of its own's (the comparisons' ResultValue).
  const col = sourceColumn(fact, a.measure.name);
  const dated = (sql: string) => (a.measure.type === 'date' ? `CAST(${sql} AS VARCHAR)` : sql);
  switch (a.method) {
    case 'sum':
      return `sum(${col})`;
    case 'min':
      return dated(`min(${col})`);
    case 'max':
      return dated(`max(${col})`);
    case 'average':
      return `avg(${col})`;
    case 'countdistinct':
      return `count(DISTINCT ${col})::BIGINT`;
    // quantile_cont interpolates between the closest ranks (Hyndman & Fan type 7): measures.ts's definition.
    case 'Tributary.median':
      return `quantile_cont(${col}, 0.5)`;
    case 'Tributary.p10':
      return `quantile_cont(${col}, 0.1)`;
    case 'Tributary.p90':
      return `quantile_cont(${col}, 0.9)`;
    case 'Tributary.countnull':
      return `(count(*) - count(${col}))::BIGINT`;
    default:
      return assertNever(a.method);
  }
}

/** ResultValue from observation_value_stats: every figure is a sum, least or greatest of its rows' own. */
function statisticsSql(method: AggregateMethod): string {
  const c = (name: string) => sourceColumn(VALUE_STATS, name);
  switch (method) {
    case 'sum':
      return `SUM(${c('value_sum')})`;
    case 'min':
      return `MIN(${c('value_min')})`;
    case 'max':
      return `MAX(${c('value_max')})`;
    case 'average':
      return `SUM(${c('value_sum')}) / NULLIF(SUM(${c('value_n')}), 0)`;
    case 'Tributary.countnull':
      return `SUM(${c(storageKeys.count)} - ${c('value_n')})::BIGINT`;
    default:
      throw new Error(`${method} is not answered by the statistics (applySources)`);
  }
}

/** The unit column of a measure and the condition "this row has a value", over the fact. */
function unitColumns(m: Measure, fact: Source): { readonly unit: string; readonly value: string } {
  if (m === KM_VALUE) {
    const row = kmRow(fact);
    return { unit: row.unit, value: `${row.kind} IS NOT NULL` };
  }
  if (fact === VALUE_STATS) return { unit: sourceColumn(VALUE_STATS, m.unit!), value: `${sourceColumn(VALUE_STATS, 'value_n')} > 0` };
  return { unit: sourceColumn(fact, m.unit!), value: `${sourceColumn(fact, m.name)} IS NOT NULL` };
}

/** How many units a group's values are in; a value without a unit counts as one more unit (''). */
function unitCount(m: Measure, fact: Source): string {
  const { unit, value } = unitColumns(m, fact);
  return `count(DISTINCT coalesce(${unit}, '')) FILTER (WHERE ${value})`;
}

/** The column a group reads: a region from the region rollup or the joined memberships, else the first source holding it. */
function groupColumn(dim: DimensionDef, sources: readonly Source[], fc: FilterCompiler): string {
  if (dim.membership) return sources[0] === REGION_ROLLUP ? sourceColumn(REGION_ROLLUP, storageKeys.regionId) : column(MEMBERSHIP_ALIAS, storageKeys.regionId);
  const src = sources.find((s) => columnOf(dim, s))!;
  fc.used.add(src.alias);
  return sourceColumn(src, columnOf(dim, src)!);
}

/** Grouping by region over rows of locations (statistics or observations) joins each location's regions. */
function membershipJoin(plan: ApplyPlan, fact: Source): string {
  const region = plan.groupBy.find((d) => d.membership)?.membership;
  const location = locationIdIn(fact);
  if (!region || !location) return '';
  return ` JOIN ${ident(region)} ${MEMBERSHIP_ALIAS} ON ${column(MEMBERSHIP_ALIAS, locationIdColumns[region])} = ${location}`;
}
