/**
 * Conditions on the resource's own table `t`, shared by the page, cursor and count queries: the filter, the cursor
 * position and Id ranges.
 *
 * Filters on a coarser resource by a finer field mean "has at least one matching observation": the whole
 * condition is evaluated on one (location, statistics row) pair inside an EXISTS, so
 * `CharacteristicName eq 'pH' and ActivityStartYear eq 2020` on Locations needs a pH observation *in* 2020.
 */
import { storageKeys } from '../../../schemas/index.js';
import { assertNever } from '../assert-never.js';
import type { CountPlan, Cond, Key, PagePlan } from './plan.js';
import type { IdRange } from './membership.js';
import { column, type Params } from './sql.js';
import { dimsOf, inRollup, rowLevel } from './count-sources.js';
import { FilterCompiler } from './filter-compiler.js';
import {
  joinSource,
  LOCATIONS,
  OBSERVATIONS,
  PAGE_SOURCES,
  RESOURCE,
  RESOURCE_ALIAS,
  ROLLUP,
  ROW_PAGE_SOURCES,
  sameDataset,
  sameLocation,
  sourceTable,
  STATS,
} from './source.js';

/** `t."Id"`: the key every page, window and cursor position is written in. */
export const RESOURCE_ID = column(RESOURCE_ALIAS, storageKeys.id);

/** `"table" t` of the plan's resource. */
export function resourceTable(plan: PagePlan | CountPlan): string {
  return sourceTable(RESOURCE[plan.resource.table]);
}

/** ` WHERE a AND b` of the conditions present, or nothing. */
export function whereClause(conds: readonly (string | undefined)[]): string {
  const present = conds.filter(Boolean);
  return present.length > 0 ? ` WHERE ${present.join(' AND ')}` : '';
}

/** A key of the plan's resource as a bound value: UUID where the resource's Ids are (Metadata), BIGINT elsewhere. */
export function keyValue(plan: PagePlan, key: Key) {
  return plan.resource.pages.ids === 'uuid'
    ? ({ sqlType: 'UUID', value: String(key) } as const)
    : ({ sqlType: 'BIGINT', value: BigInt(key) } as const);
}

/** Rows strictly after the plan's cursor position, if it has one. */
export function afterKey(plan: PagePlan, params: Params): string | undefined {
  return plan.after === undefined ? undefined : `${RESOURCE_ID} > ${params.bind(keyValue(plan, plan.after))}`;
}

/** Only rows with an Id in one of the ranges (an empty list: no row). */
export function inIdRanges(ranges: readonly IdRange[] | undefined, params: Params): string | undefined {
  if (!ranges) return undefined;
  if (ranges.length === 0) return 'false';
  const terms = ranges.map(([a, b]) => `${RESOURCE_ID} BETWEEN ${params.bind({ sqlType: 'BIGINT', value: a })} AND ${params.bind({ sqlType: 'BIGINT', value: b })}`);
  return `(${terms.join(' OR ')})`;
}

function exists(from: string, link: string, cond: string): string {
  return `EXISTS (SELECT 1 FROM ${from} WHERE ${link} AND ${cond})`;
}

/** The WHERE clause of the resource's own table `t`, with EXISTS for finer dimensions, by the resource's kind. */
export function resourceWhere(plan: PagePlan | CountPlan, params: Params): string | undefined {
  if (!plan.where) return undefined;
  const resource = plan.resource;
  switch (resource.kind) {
    case 'observations':
      return new FilterCompiler(PAGE_SOURCES.observations, params).compile(plan.where);
    case 'own-table': {
      // Its location's fields: the row's one location, tested inside an EXISTS (a semi-join DuckDB decorrelates).
      const fc = new FilterCompiler(PAGE_SOURCES[resource.table], params);
      const cond = fc.compile(plan.where);
      return fc.used.has(LOCATIONS.alias) ? exists(sourceTable(LOCATIONS), sameLocation(LOCATIONS, RESOURCE[resource.table]), cond) : cond;
    }
    case 'locations':
    case 'datasets':
      return coarserWhere(resource.kind, plan.where, params);
    default:
      return assertNever(resource);
  }
}

/** A location or a dataset: observation-level conditions become EXISTS over the rollup, the statistics or the rows. */
function coarserWhere(table: 'locations' | 'datasets', where: Cond, params: Params): string {
  const t = RESOURCE[table];
  const finer = dimsOf(where).filter((d) => !d.columns[table]);
  if (table === 'datasets' && finer.length > 0 && inRollup(finer)) {
    // Observation-level conditions alone are answered by the small rollup, keyed by DOI.
    return exists(sourceTable(ROLLUP), sameDataset(ROLLUP, t), new FilterCompiler([t, ROLLUP], params).compile(where));
  }
  if (rowLevel(finer)) return rowLevelWhere(table, where, params);
  const fc = new FilterCompiler(PAGE_SOURCES[table], params);
  const cond = fc.compile(where);
  if (table === 'locations' && fc.used.has(STATS.alias)) return exists(sourceTable(STATS), sameLocation(STATS, t), cond);
  if (table === 'datasets' && (fc.used.has(LOCATIONS.alias) || fc.used.has(STATS.alias))) {
    const stats = fc.used.has(STATS.alias) ? joinSource(STATS, sameLocation(STATS, LOCATIONS)) : '';
    return exists(`${sourceTable(LOCATIONS)}${stats}`, sameDataset(LOCATIONS, t), cond);
  }
  return cond;
}

/**
 * A location or dataset with a matching observation, when the condition names a value or a date: the same
 * EXISTS as over the statistics, over the observations. An equality on LocationId (or DOI) lets DuckDB run it
 * as one semi-join, scanning the observations once.
 */
function rowLevelWhere(table: 'locations' | 'datasets', where: Cond, params: Params): string {
  const t = RESOURCE[table];
  const fc = new FilterCompiler(ROW_PAGE_SOURCES[table], params);
  const cond = fc.compile(where);
  if (table === 'locations') return exists(sourceTable(OBSERVATIONS), sameLocation(OBSERVATIONS, t), cond);
  const locations = fc.used.has(LOCATIONS.alias) ? joinSource(LOCATIONS, sameLocation(LOCATIONS, OBSERVATIONS)) : '';
  return exists(`${sourceTable(OBSERVATIONS)}${locations}`, sameDataset(OBSERVATIONS, t), cond);
}
