import { locationIdColumns, storageKeys, type DimensionDef, type OwnTable } from '../../../schemas/index.js';
import type { ApplyPlan } from './plan.js';
import { FilterCompiler } from './filter-compiler.js';
import { whereClause } from './resource-where.js';
import { column, ident, Params, type CompiledQuery } from './sql.js';
import { columnOf, joinSource, LOCATIONS, locationIdIn, MEMBERSHIP_ALIAS, PAGE_SOURCES, RESOURCE, sameLocation, sourceColumn, sourceTable, type Source } from './source.js';

/**
 * `$apply` groupby on a table of its own (location summaries, guidelines, comparisons, the index): `count(*)` of its
 * rows per group, as compile-apply.ts names them (`g0, g1, …`, `n`), sorted by the groups, `top + 1` after the
 * cursor. Its location's fields join `locations` (one row each); RegionId joins the memberships, so a row counts
 * once in each region of its location.
 *
 * @example
 * compileOwnApply(planQuery(parseQuery('$apply=groupby((CharacteristicName),aggregate($count as N))'), getResource('LocationSummaries')!))
 * // { sql: 'SELECT t."CharacteristicName" AS g0, count(*)::BIGINT AS n FROM "location_summaries" t GROUP BY g0 ORDER BY g0 LIMIT 1001', params: [] }
 */
export function compileOwnApply(plan: ApplyPlan): CompiledQuery {
  const table = plan.resource.table as OwnTable;
  const t = RESOURCE[table];
  const params = new Params();
  const fc = new FilterCompiler(PAGE_SOURCES[table], params);
  const cond = plan.where ? fc.compile(plan.where) : undefined;
  const groups = plan.groupBy.map((dim, i) => `${groupColumn(dim, PAGE_SOURCES[table], fc)} AS g${i}`);
  const region = plan.groupBy.find((d) => d.membership)?.membership;
  const joins =
    (fc.used.has(LOCATIONS.alias) ? joinSource(LOCATIONS, sameLocation(LOCATIONS, t)) : '') +
    (region ? ` JOIN ${ident(region)} ${MEMBERSHIP_ALIAS} ON ${column(MEMBERSHIP_ALIAS, locationIdColumns[region])} = ${locationIdIn(t)}` : '');
  const order = plan.groupBy.map((_, i) => `g${i}`).join(', ');
  const offset = plan.after !== undefined ? ` OFFSET ${params.bind({ sqlType: 'BIGINT', value: plan.after })}` : '';
  const sql =
    `SELECT ${[...groups, 'count(*)::BIGINT AS n'].join(', ')} FROM ${sourceTable(t)}${joins}${whereClause([cond])}` +
    ` GROUP BY ${order || '()'}${order ? ` ORDER BY ${order}` : ''} LIMIT ${plan.top + 1}${offset}`;
  return { sql, params: params.values };
}

/** A region from the joined memberships; any other group from the first source holding it (the row's, then its location's). */
function groupColumn(dim: DimensionDef, sources: readonly Source[], fc: FilterCompiler): string {
  if (dim.membership) return column(MEMBERSHIP_ALIAS, storageKeys.regionId);
  const src = sources.find((s) => columnOf(dim, s));
  if (!src) throw new Error(`dimension ${dim.name} is not reachable from ${sources.map((s) => s.table).join(', ')}`);
  fc.used.add(src.alias);
  return sourceColumn(src, columnOf(dim, src)!);
}
