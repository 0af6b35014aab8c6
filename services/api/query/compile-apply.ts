import { isOwnTable, locationIdColumns, storageKeys, type DimensionDef } from '../../../schemas/index.js';
import type { ApplyPlan } from './plan.js';
import { countSources, total } from './count-sources.js';
import { compileOwnApply } from './compile-own-apply.js';
import { FilterCompiler } from './filter-compiler.js';
import { whereClause } from './resource-where.js';
import { column, ident, Params, type CompiledQuery } from './sql.js';
import {
  columnOf,
  joinSource,
  LOCATIONS,
  locationIdIn,
  MEMBERSHIP_ALIAS,
  OBSERVATIONS,
  REGION_ROLLUP,
  sameLocation,
  sourceColumn,
  sourceTable,
  STATS_SOURCES,
  type Source,
} from './source.js';

/**
 * `$apply` groupby over the statistics table: `SUM(n)` per group, sorted by the group fields, `top + 1`
 * groups after the cursor. RegionId groups by membership, so a location counts once in each of its regions.
 * The result's columns are `g0, g1, …` (one per group field) and `n`.
 *
 * @example
 * compileApply(planQuery(parseQuery('$apply=groupby((CharacteristicName),aggregate($count as N))'), getResource('Records')!))
 * // { sql: 'SELECT r."CharacteristicName" AS g0, SUM(r."n")::BIGINT AS n FROM "observation_rollup" r GROUP BY g0 ORDER BY g0 LIMIT 1001', params: [] }
 */
export function compileApply(plan: ApplyPlan): CompiledQuery {
  if (isOwnTable(plan.resource.table)) return compileOwnApply(plan);
  const params = new Params();
  const sources = countSources(plan.where, plan.groupBy);
  const fact = sources[0]!;
  const fc = new FilterCompiler(sources, params);
  const cond = plan.where ? fc.compile(plan.where) : undefined;
  const groups = plan.groupBy.map((dim, i) => `${groupColumn(dim, sources, fc)} AS g${i}`);
  const joins = (fc.used.has(LOCATIONS.alias) ? joinSource(LOCATIONS, sameLocation(LOCATIONS, fact)) : '') + membershipJoin(plan, sources);
  const order = plan.groupBy.map((_, i) => `g${i}`).join(', ');
  const offset = plan.after !== undefined ? ` OFFSET ${params.bind({ sqlType: 'BIGINT', value: plan.after })}` : '';
  const sql =
    `SELECT ${[...groups, `${total(fact)}::BIGINT AS n`].join(', ')} FROM ${sourceTable(fact)}${joins}${whereClause([cond])}` +
    ` GROUP BY ${order || '()'}${order ? ` ORDER BY ${order}` : ''} LIMIT ${plan.top + 1}${offset}`;
  return { sql, params: params.values };
}

/** The column a group reads: a region from the region rollup or the joined memberships, else the first source holding it. */
function groupColumn(dim: DimensionDef, sources: readonly Source[], fc: FilterCompiler): string {
  if (dim.membership) return sources[0] === REGION_ROLLUP ? sourceColumn(REGION_ROLLUP, storageKeys.regionId) : column(MEMBERSHIP_ALIAS, storageKeys.regionId);
  const src = sources.find((s) => columnOf(dim, s))!;
  fc.used.add(src.alias);
  return sourceColumn(src, columnOf(dim, src)!);
}

/** Grouping by region over rows of locations (statistics or observations) joins each location's regions. */
function membershipJoin(plan: ApplyPlan, sources: readonly Source[]): string {
  const region = plan.groupBy.find((d) => d.membership)?.membership;
  const fact = sources[0]!;
  if (!region || !(sources === STATS_SOURCES || fact === OBSERVATIONS)) return '';
  return ` JOIN ${ident(region)} ${MEMBERSHIP_ALIAS} ON ${column(MEMBERSHIP_ALIAS, locationIdColumns[region])} = ${locationIdIn(fact)}`;
}
