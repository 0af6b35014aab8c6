import { storageKeys } from '../../../schemas/index.js';
import type { Cond } from './plan.js';
import { FilterCompiler } from './filter-compiler.js';
import { Params, type CompiledQuery } from './sql.js';
import { LOCATIONS, sourceColumn, sourceTable } from './source.js';

/**
 * Observation Id ranges of the locations in every one of the regions, in Id order: the membership conditions
 * compiled against `locations` by the same compiler as every other filter (exec/page-window.ts scans the ranges).
 *
 * @example
 * compileMembershipRanges(splitMemberships(where).memberships)
 * // { sql: `SELECT l."first_obs_id" AS first, l."last_obs_id" AS last FROM "locations" l WHERE (l."Id" IN (…)) ORDER BY l."first_obs_id"`, params: ['hub.pacific'] }
 */
export function compileMembershipRanges(memberships: readonly Cond[]): CompiledQuery {
  const params = new Params();
  const fc = new FilterCompiler([LOCATIONS], params);
  const where = memberships.map((m) => fc.compile(m)).join(' AND ');
  const [first, last] = [sourceColumn(LOCATIONS, storageKeys.firstObsId), sourceColumn(LOCATIONS, storageKeys.lastObsId)];
  return { sql: `SELECT ${first} AS first, ${last} AS last FROM ${sourceTable(LOCATIONS)} WHERE ${where} ORDER BY ${first}`, params: params.values };
}
