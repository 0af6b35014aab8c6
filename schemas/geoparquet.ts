/**
 * GeoParquet 1.1 (https://geoparquet.org/releases/v1.1.0/): what makes a Parquet file the system writes (a dataset
 * file, a Records or Observations export) open as a point layer in geopandas, GDAL and QGIS. Two columns follow the
 * row's own (schemas/row-sql.ts), which keep their names, types and order:
 *   geometry  BLOB    the row's WGS 84 point as 21 bytes of ISO WKB, little-endian, x the longitude
 *   bbox      STRUCT  {xmin, ymin, xmax, ymax} DOUBLE: the point's box, GeoParquet 1.1's bbox covering, which lets a
 *                     reader skip row groups by their column statistics without decoding WKB
 * and the file's key-value metadata `geo` describes them (geoMetadata).
 *
 * The WKB is built in SQL: DuckDB's spatial extension is not installed (and its core GEOMETRY type has no
 * constructor from coordinates). DuckDB casts a DOUBLE to BIT as its IEEE 754 bits, most significant first; the
 * bytes are reversed as an integer and cast back to BIT, then to BLOB, which gives the little-endian float64 that
 * WKB readers expect (schemas/geoparquet.test.ts checks every byte against shapely's WKB).
 *
 * Catalogue → SQL text only; names and quoting come from the caller's `SqlNames`, as in row-sql.ts.
 */
import type { SqlNames } from './row-sql.js';

export const GEOMETRY_COLUMN = 'geometry';
export const BBOX_COLUMN = 'bbox';
export const GEOPARQUET_VERSION = '1.1.0';

/** A table's point columns (storage.ts `pointColumns`). */
export interface PointColumns {
  readonly longitude: string;
  readonly latitude: string;
}

/** [xmin, ymin, xmax, ymax] in degrees of longitude and latitude (RFC 7946's order). */
export type Bbox = readonly [number, number, number, number];

/** WKB's header of a 2D point: byte order 1 (little-endian), geometry type 1 (Point) as a little-endian uint32. */
const POINT_HEADER = `'\\x01\\x01\\x00\\x00\\x00'::BLOB`;

/** A DOUBLE expression's 8 bytes, little-endian. */
function float64le(x: string): string {
  const bits = `CAST(CAST(${x} AS BIT) AS UBIGINT)`;
  const swapped = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `(((${bits} >> ${8 * i}) & 255) << ${56 - 8 * i})`).join(' | ');
  return `CAST(CAST(${swapped} AS BIT) AS BLOB)`;
}

/** The WKB point of two DOUBLE expressions. */
export function wkbPointSql(x: string, y: string): string {
  return `${POINT_HEADER} || ${float64le(x)} || ${float64le(y)}`;
}

/** The select list's tail: the geometry and its bbox covering, after the row's own columns. */
export function geoColumnsSql(point: PointColumns, names: SqlNames): string {
  const x = names.column(point.longitude);
  const y = names.column(point.latitude);
  const box = `struct_pack(xmin := ${x}, ymin := ${y}, xmax := ${x}, ymax := ${y})`;
  return `${wkbPointSql(x, y)} AS ${names.ident(GEOMETRY_COLUMN)}, ${box} AS ${names.ident(BBOX_COLUMN)}`;
}

/** The select list of the rows' bbox: one row of xmin, ymin, xmax, ymax (NULLs when there are no rows). */
export function boundsSql(point: PointColumns, names: SqlNames): string {
  const x = names.column(point.longitude);
  const y = names.column(point.latitude);
  return `min(${x}) AS xmin, min(${y}) AS ymin, max(${x}) AS xmax, max(${y}) AS ymax`;
}

/** The bbox of a bounds query's row, or undefined for no rows. */
export function bboxOf(row: Readonly<Record<string, unknown>>): Bbox | undefined {
  const values = ['xmin', 'ymin', 'xmax', 'ymax'].map((k) => row[k]);
  if (values.some((v) => v === null || v === undefined)) return undefined;
  return values.map(Number) as unknown as Bbox;
}

/**
 * OGC:CRS84 (WGS 84, longitude then latitude) as PROJJSON, as PROJ writes it. GeoParquet reads a missing `crs` as
 * this CRS too; it is written out so that no reader has to know that default.
 */
export const CRS84_PROJJSON = {
  $schema: 'https://proj.org/schemas/v0.7/projjson.schema.json',
  type: 'GeographicCRS',
  name: 'WGS 84 (CRS84)',
  datum_ensemble: {
    name: 'World Geodetic System 1984 ensemble',
    members: [
      { name: 'World Geodetic System 1984 (Transit)', id: { authority: 'EPSG', code: 1166 } },
      { name: 'World Geodetic System 1984 (G730)', id: { authority: 'EPSG', code: 1152 } },
      { name: 'World Geodetic System 1984 (G873)', id: { authority: 'EPSG', code: 1153 } },
      { name: 'World Geodetic System 1984 (G1150)', id: { authority: 'EPSG', code: 1154 } },
      { name: 'World Geodetic System 1984 (G1674)', id: { authority: 'EPSG', code: 1155 } },
      { name: 'World Geodetic System 1984 (G1762)', id: { authority: 'EPSG', code: 1156 } },
      { name: 'World Geodetic System 1984 (G2139)', id: { authority: 'EPSG', code: 1309 } },
      { name: 'World Geodetic System 1984 (G2296)', id: { authority: 'EPSG', code: 1383 } },
    ],
    ellipsoid: { name: 'WGS 84', semi_major_axis: 6378137, inverse_flattening: 298.257223563 },
    accuracy: '2.0',
    id: { authority: 'EPSG', code: 6326 },
  },
  coordinate_system: {
    subtype: 'ellipsoidal',
    axis: [
      { name: 'Geodetic longitude', abbreviation: 'Lon', direction: 'east', unit: 'degree' },
      { name: 'Geodetic latitude', abbreviation: 'Lat', direction: 'north', unit: 'degree' },
    ],
  },
  scope: 'Not known.',
  area: 'World.',
  bbox: { south_latitude: -90, west_longitude: -180, north_latitude: 90, east_longitude: 180 },
  id: { authority: 'OGC', code: 'CRS84' },
} as const;

/** The `geo` key-value metadata of a file whose points lie in `bbox` (left out for a file without rows). */
export function geoMetadata(bbox: Bbox | undefined): object {
  const covering = { xmin: [BBOX_COLUMN, 'xmin'], ymin: [BBOX_COLUMN, 'ymin'], xmax: [BBOX_COLUMN, 'xmax'], ymax: [BBOX_COLUMN, 'ymax'] };
  return {
    version: GEOPARQUET_VERSION,
    primary_column: GEOMETRY_COLUMN,
    columns: {
      [GEOMETRY_COLUMN]: {
        encoding: 'WKB',
        geometry_types: ['Point'],
        crs: CRS84_PROJJSON,
        edges: 'planar',
        ...(bbox ? { bbox } : {}),
        covering: { bbox: covering },
      },
    },
  };
}

/**
 * The COPY option that writes `geo` into the Parquet footer; `literal` is the caller's quoting of a SQL string.
 * The JSON is the system's own text and numbers, never user input.
 */
export function geoCopyOption(bbox: Bbox | undefined, literal: (text: string) => string): string {
  return `KV_METADATA {geo: ${literal(JSON.stringify(geoMetadata(bbox)))}}`;
}
