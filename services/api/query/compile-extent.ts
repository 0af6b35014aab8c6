/**
 * The extent of what is published, from the small tables: the bounding box of the locations (every observation
 * sits at its location's point) and the first and last ActivityStartDate of the datasets (their TemporalExtent).
 * OGC API – Features' collections describe themselves with it.
 */
import { pointColumns } from '../../../schemas/index.js';
import { ident } from './sql.js';
import type { CompiledQuery } from './sql.js';

/**
 * @example
 * compileExtent().sql
 * // SELECT (SELECT min("Longitude") FROM "locations") AS west, … (SELECT max(list_max("TemporalExtent")) FROM "datasets") AS last_date
 */
export function compileExtent(): CompiledQuery {
  const { longitude, latitude } = pointColumns.locations;
  const locations = (fn: 'min' | 'max', c: string) => `(SELECT ${fn}(${ident(c)}) FROM ${ident('locations')})`;
  const dates = (fn: 'min' | 'max') => `(SELECT strftime(${fn}(list_${fn}(${ident('TemporalExtent')})), '%Y-%m-%d') FROM ${ident('datasets')})`;
  const sql =
    `SELECT ${locations('min', longitude)} AS west, ${locations('min', latitude)} AS south, ` +
    `${locations('max', longitude)} AS east, ${locations('max', latitude)} AS north, ` +
    `${dates('min')} AS first_date, ${dates('max')} AS last_date`;
  return { sql, params: [] };
}
