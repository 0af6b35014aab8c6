/**
 * Which table answers a count or an `$apply`: the smallest that holds every dimension the filter and the groups
 * name (docs/performance.md, "Counts without scanning"). Only the observations hold the row-level ones.
 */
import { columnNames, storageKeys, type DimensionDef, type ResourceDef, type StorageTable, type TableName } from '../../../schemas/index.js';
import type { Cond } from './plan.js';
import { splitMemberships } from './membership.js';
import { columnOf, COMPARISON_STATS, COMPARISON_TOTALS, LOCATIONS, OBSERVATIONS, PAGE_SOURCES, REGION_ROLLUP, RESOURCE_ALIAS, ROLLUP, sourceColumn, STATS_SOURCES, type Source } from './source.js';

/** Every dimension a condition mentions. */
export function dimsOf(cond: Cond | undefined, out: DimensionDef[] = []): DimensionDef[] {
  if (!cond) return out;
  switch (cond.kind) {
    case 'and':
    case 'or':
      dimsOf(cond.left, out);
      return dimsOf(cond.right, out);
    case 'not':
      return dimsOf(cond.operand, out);
    default:
      out.push(cond.dim);
      return out;
  }
}

/** True when the rollup (no location detail) holds every one of these dimensions. */
export function inRollup(dims: readonly DimensionDef[]): boolean {
  return dims.every((d) => !d.membership && d.columns.observation_rollup);
}

/**
 * True when the region rollup answers: RegionId appears exactly once, as one top-level `RegionId eq` or as a
 * group, and every other dimension is in the rollup. Not both at once: grouping by RegionId after a region filter
 * lists every region of the matching locations, which the rollup's rows of one region cannot tell. Nor `in`,
 * `ne` or two regions: a location in several of them would count once per region.
 */
function inRegionRollup(where: Cond | undefined, groupBy: readonly DimensionDef[]): boolean {
  const { memberships, rest } = splitMemberships(where);
  const grouped = groupBy.filter((d) => d.membership);
  if (memberships.length + grouped.length !== 1 || memberships.some((m) => m.kind !== 'compare')) return false;
  return inRollup([...dimsOf(rest), ...groupBy.filter((d) => !d.membership)]);
}

/** True when some dimension is held by no statistics table (nor `locations`): only the observations answer. */
export function rowLevel(dims: readonly DimensionDef[]): boolean {
  return dims.some((d) => !d.membership && !d.columns.observation_stats && !d.columns.locations && !d.columns.datasets);
}

/** Every dimension is on the statistics table (or a region membership), and one of them only there. */
export function onlyStatistics(dims: readonly DimensionDef[]): boolean {
  return dims.every((d) => d.membership || d.columns.observation_stats) && dims.some((d) => !d.columns.locations && !d.membership);
}

/**
 * The smallest table that answers a count or an `$apply` of these filters and groups, first; the statistics table
 * comes with the locations it may join.
 */
export function countSources(where: Cond | undefined, groupBy: readonly DimensionDef[]): readonly Source[] {
  if (inRollup([...dimsOf(where), ...groupBy])) return [ROLLUP];
  if (inRegionRollup(where, groupBy)) return [REGION_ROLLUP];
  if (rowLevel(dimsOf(where))) return [OBSERVATIONS];
  return STATS_SOURCES;
}

/** `count(*)` of rows (the observations, or the resource's own table), or `SUM(n)` of a statistics table. */
export function total(fact: Source): string {
  return fact === OBSERVATIONS || fact.alias === RESOURCE_ALIAS ? 'count(*)' : `SUM(${sourceColumn(fact, storageKeys.count)})`;
}

/** The statistics tables a table of its own may declare in its `$count` door (schemas/catalogue.ts), as sources. */
const OWN_STATISTICS: { readonly [T in TableName]?: Source } = { guideline_comparison_totals: COMPARISON_TOTALS, guideline_comparison_stats: COMPARISON_STATS };

function ownStatistics(resource: ResourceDef): readonly Source[] {
  return resource.count.statistics.map((table) => {
    const source = OWN_STATISTICS[table];
    if (!source) throw new Error(`${resource.name} declares ${table} as its statistics, which query/count-sources.ts does not read`);
    return source;
  });
}

/**
 * True when the statistics table `stats` answers for `dim`: one of its keys holds it, or the location's own fields
 * (a region, the coordinates) do, read through its LocationId. A field of the rows it does not keep (a value, a
 * date, a Reason) is not held, even though the rows' table names a column for it.
 */
function heldBy(dim: DimensionDef, stats: Source): boolean {
  if (dim.membership) return true;
  const name = columnOf(dim, stats);
  if (name === undefined) return dim.columns.locations !== undefined;
  return name !== storageKeys.count && columnNames(stats.table as StorageTable).includes(name);
}

/**
 * The tables a count or a count-only `$apply` of a table of its own reads, the fact first: the smallest of its
 * declared statistics tables that holds every dimension of the filter and the groups, with the locations it may join; else
 * the table itself (a scan of the dimensions' columns), as its pages read it. All answer the same numbers.
 */
export function ownCountSources(resource: Extract<ResourceDef, { kind: 'own-table' }>, dims: readonly DimensionDef[]): readonly Source[] {
  const stats = ownStatistics(resource).find((s) => dims.every((d) => heldBy(d, s)));
  return stats ? [stats, LOCATIONS] : PAGE_SOURCES[resource.table];
}
