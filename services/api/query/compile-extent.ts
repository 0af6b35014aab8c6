/**
 * The extent of what is published, from the small tables: the bounding box of the locations (every observation
 * sits at its location's point) and the first and last ActivityStartDate of the datasets (their TemporalExtent).
 * OGC API – Features' collections describe themselves with it.
 */
import { pointColumns } from '../../../schemas/index.js';
import { DATASETS, LOCATIONS, sourceColumn, sourceTable } from './source.js';
import type { CompiledQuery } from './sql.js';

/**
 * @example
 * compileExtent().sql
 * // SELECT (SELECT min(l."Longitude") FROM "locations" l) AS west, … (SELECT strftime(max(list_max(d."TemporalExtent")), '%Y-%m-%d') FROM "datasets" d) AS last_date
 */
export function compileExtent(): CompiledQuery {
  const { longitude, latitude } = pointColumns.locations;
  const locations = (fn: 'min' | 'max', c: string) => `(SELECT ${fn}(${sourceColumn(LOCATIONS, c)}) FROM ${sourceTable(LOCATIONS)})`;
  const dates = (fn: 'min' | 'max') => `(SELECT strftime(${fn}(list_${fn}(${sourceColumn(DATASETS, 'TemporalExtent')})), '%Y-%m-%d') FROM ${sourceTable(DATASETS)})`;
  const sql =
    `SELECT ${locations('min', longitude)} AS west, ${locations('min', latitude)} AS south, ` +
    `${locations('max', longitude)} AS east, ${locations('max', latitude)} AS north, ` +
    `${dates('min')} AS first_date, ${dates('max')} AS last_date`;
  return { sql, params: [] };
}
