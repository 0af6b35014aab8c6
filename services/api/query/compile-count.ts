import { locationIdColumns } from '../../../schemas/index.js';
import { assertNever } from '../assert-never.js';
import type { Cond, CountPlan } from './plan.js';
import { countSources, dimsOf, onlyStatistics, ownCountSources, total } from './count-sources.js';
import { FilterCompiler } from './filter-compiler.js';
import { resourceTable, resourceWhere, whereClause } from './resource-where.js';
import { Params, type CompiledQuery } from './sql.js';
import { joinSource, LOCATIONS, RESOURCE, sameLocation, sourceColumn, sourceTable, STATS, type Source } from './source.js';

/**
 * `$count=true`. Observations and Records sum the smallest statistics table that holds the filter's dimensions
 * (the rollup, the region rollup, the statistics table): exact, and as cheap at ten million rows as at ten. A
 * value or date filter (ResultValue, ActivityStartDate) is held by no statistics table: those count the matching
 * observations, exact too, at the cost of a scan of the filter's columns.
 * Locations and Metadata are small tables counted directly (their EXISTS reads the statistics). A table of its own
 * sums its statistics table when that holds the filter's dimensions (GuidelineComparisons: ownCountSources), else
 * counts its rows.
 *
 * @example
 * compileCount(planQuery(parseQuery('$count=true'), getResource('Records')!))
 * // { sql: 'SELECT COALESCE(SUM(r."n"), 0)::BIGINT AS n FROM "observation_rollup" r', params: [] }
 */
export function compileCount(plan: CountPlan): CompiledQuery {
  const resource = plan.resource;
  switch (resource.kind) {
    case 'observations':
      return sumStatistics(plan, countSources(plan.where, []));
    case 'own-table': {
      const sources = ownCountSources(resource, dimsOf(plan.where));
      return sources[0] === RESOURCE[resource.table] ? countRows(plan) : sumStatistics(plan, sources);
    }
    case 'locations':
      return plan.where && onlyStatistics(dimsOf(plan.where)) ? countMatchingLocations(plan.where) : countRows(plan);
    case 'datasets':
      return countRows(plan);
    default:
      return assertNever(resource);
  }
}

/** The resource's own rows under its WHERE (resource-where.ts). */
function countRows(plan: CountPlan): CompiledQuery {
  const params = new Params();
  return { sql: `SELECT count(*)::BIGINT AS n FROM ${resourceTable(plan)}${whereClause([resourceWhere(plan, params)])}`, params: params.values };
}

/**
 * A location matches when one of its statistics rows does: count those rows' distinct locations instead of testing
 * every location with EXISTS (a semi-join), the slower plan.
 */
function countMatchingLocations(where: Cond): CompiledQuery {
  const params = new Params();
  const cond = new FilterCompiler([STATS], params).compile(where);
  const locations = sourceColumn(STATS, locationIdColumns.observation_stats);
  return { sql: `SELECT count(DISTINCT ${locations})::BIGINT AS n FROM ${sourceTable(STATS)} WHERE ${cond}`, params: params.values };
}

/** The sum over the fact table (countSources, ownCountSources); the statistics table joins its locations only when asked. */
function sumStatistics(plan: CountPlan, sources: readonly Source[]): CompiledQuery {
  const params = new Params();
  const fact = sources[0]!;
  const fc = new FilterCompiler(sources, params);
  const cond = plan.where ? fc.compile(plan.where) : undefined;
  const join = fc.used.has(LOCATIONS.alias) ? joinSource(LOCATIONS, sameLocation(LOCATIONS, fact)) : '';
  return { sql: `SELECT COALESCE(${total(fact)}, 0)::BIGINT AS n FROM ${sourceTable(fact)}${join}${whereClause([cond])}`, params: params.values };
}
