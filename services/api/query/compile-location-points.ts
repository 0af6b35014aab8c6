import { pointColumns } from '../../../schemas/index.js';
import type { LocationWindow } from './location-matcher.js';
import { LOCATIONS, sourceColumn, sourceTable } from './source.js';
import { Params, type CompiledQuery } from './sql.js';

/**
 * The Id and point of every location in a window, for a location test to be evaluated on (exec/resolve-locations.ts):
 * the window's bounds are bound parameters, so the one query text serves every shape.
 *
 * @example
 * compileLocationPoints({ south: 49, north: 60, west: -120, east: -110 })
 * // { sql: `SELECT l."Id" AS id, l."Longitude" AS x, l."Latitude" AS y FROM "locations" l WHERE l."Latitude" BETWEEN CAST($1 AS DOUBLE) AND … AND l."Longitude" BETWEEN …`, params: [49, 60, -120, -110] }
 */
export function compileLocationPoints(window: LocationWindow): CompiledQuery {
  const params = new Params();
  const { longitude, latitude } = pointColumns.locations;
  const between = (c: string, lo: number, hi: number) =>
    `${sourceColumn(LOCATIONS, c)} BETWEEN ${params.bind({ sqlType: 'DOUBLE', value: lo })} AND ${params.bind({ sqlType: 'DOUBLE', value: hi })}`;
  const conditions = [between(latitude, window.south, window.north)];
  if (window.west !== undefined && window.east !== undefined) conditions.push(between(longitude, window.west, window.east));
  const sql = `SELECT ${sourceColumn(LOCATIONS, 'Id')} AS id, ${sourceColumn(LOCATIONS, longitude)} AS x, ${sourceColumn(LOCATIONS, latitude)} AS y FROM ${sourceTable(LOCATIONS)} WHERE ${conditions.join(' AND ')}`;
  return { sql, params: params.values };
}
