import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { BBOX_COLUMN, boundsSql, bboxOf, geoColumnsSql, geoCopyOption, geoMetadata, GEOMETRY_COLUMN, wkbPointSql } from './geoparquet.js';
import type { SqlNames } from './row-sql.js';

/** ISO WKB of a 2D point, little-endian, as every WKB writer (GEOS, GDAL) writes it. */
function wkbPoint(x: number, y: number): Buffer {
  const b = Buffer.alloc(21);
  b.writeUInt8(1, 0);
  b.writeUInt32LE(1, 1);
  b.writeDoubleLE(x, 5);
  b.writeDoubleLE(y, 13);
  return b;
}

const names: SqlNames = { column: (n) => `p."${n}"`, ident: (n) => `"${n}"`, constant: (t) => `'${t}'` };
const POINT = { longitude: 'lon', latitude: 'lat' };

// Coordinates whose bits exercise every part of a float64: signs, zero and negative zero, the limits of both axes,
// subnormals, the smallest and largest normal exponents, and values with all 52 mantissa bits in use.
const EDGES: readonly (readonly [number, number])[] = [
  [0, -0],
  [-180, 90],
  [180, -90],
  [-63.5, 44.6],
  [-114.3718, 62.454],
  [5e-324, -5e-324],
  [2.2250738585072014e-308, -1e-310],
  [1.7976931348623157e308, -1.7976931348623157e308],
  [0.1 + 0.2, -(1 / 3)],
  [179.99999999999997, -89.99999999999999],
];

async function memory() {
  const instance = await DuckDBInstance.create(':memory:');
  return { conn: await instance.connect(), close: () => instance.closeSync() };
}

describe('GeoParquet columns in SQL', () => {
  it('the WKB point is byte for byte what a WKB writer writes, for edge and random coordinates', async () => {
    const { conn, close } = await memory();
    try {
      let seed = 7;
      const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
      const points = [...EDGES, ...Array.from({ length: 500 }, () => [random() * 180, random() * 90] as const)];
      await conn.run('CREATE TABLE p (i INTEGER, lon DOUBLE, lat DOUBLE)');
      const appender = await conn.createAppender('p');
      points.forEach(([x, y], i) => {
        appender.appendInteger(i);
        appender.appendDouble(x);
        appender.appendDouble(y);
        appender.endRow();
      });
      appender.closeSync();
      const rows = (await conn.runAndReadAll(`SELECT i, ${geoColumnsSql(POINT, names)} FROM p ORDER BY i`)).getRowObjects();
      expect(rows).toHaveLength(points.length);
      for (const row of rows) {
        const [x, y] = points[Number(row['i'])]!;
        const wkb = Buffer.from((row[GEOMETRY_COLUMN] as { bytes: Uint8Array }).bytes);
        expect(wkb.toString('hex'), `${x} ${y}`).toBe(wkbPoint(x, y).toString('hex'));
        const box = (row[BBOX_COLUMN] as { entries: Record<string, number> }).entries;
        expect([box['xmin'], box['ymin'], box['xmax'], box['ymax']]).toEqual([x, y, x, y]);
      }
    } finally {
      close();
    }
  });

  it('the bounds query gives the bbox of the rows, and none for no rows', async () => {
    const { conn, close } = await memory();
    try {
      await conn.run('CREATE TABLE p AS SELECT * FROM (VALUES (-120.5, 49.0), (-63.5, 44.6), (-114.0, 62.5)) v(lon, lat)');
      const bounds = async (where: string) => bboxOf((await conn.runAndReadAll(`SELECT ${boundsSql(POINT, names)} FROM p WHERE ${where}`)).getRowObjectsJS()[0]!);
      expect(await bounds('true')).toEqual([-120.5, 44.6, -63.5, 62.5]);
      expect(await bounds('false')).toBeUndefined();
    } finally {
      close();
    }
  });

  it('a point column written with the geo option is one DuckDB reads back as a CRS84 geometry', async () => {
    const { conn, close } = await memory();
    try {
      const file = `/tmp/tributary-geoparquet-${process.pid}.parquet`;
      await conn.run(`COPY (SELECT 1 AS id, ${wkbPointSql('-63.5::DOUBLE', '44.6::DOUBLE')} AS geometry) TO '${file}' (FORMAT parquet, ${geoCopyOption([-63.5, 44.6, -63.5, 44.6], (t) => `'${t.replaceAll("'", "''")}'`)})`);
      const described = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`)).getRowObjectsJS();
      expect(described.find((c) => c['column_name'] === 'geometry')?.['column_type']).toBe("GEOMETRY('OGC:CRS84')");
      expect((await conn.runAndReadAll(`SELECT ST_AsText(geometry) AS t FROM read_parquet('${file}')`)).getRowObjectsJS()).toEqual([{ t: 'POINT (-63.5 44.6)' }]);
    } finally {
      close();
    }
  });
});

describe('geo metadata', () => {
  it("has GeoParquet 1.1's required keys, an explicit CRS84, the covering and the bbox when there is one", () => {
    const geo = geoMetadata([-120.5, 44.6, -63.5, 62.5]) as { version: string; primary_column: string; columns: Record<string, Record<string, unknown>> };
    expect(geo.version).toBe('1.1.0');
    expect(geo.primary_column).toBe(GEOMETRY_COLUMN);
    const column = geo.columns[GEOMETRY_COLUMN]!;
    expect(column).toMatchObject({ encoding: 'WKB', geometry_types: ['Point'], bbox: [-120.5, 44.6, -63.5, 62.5] });
    expect(column['crs']).toMatchObject({ type: 'GeographicCRS', id: { authority: 'OGC', code: 'CRS84' } });
    expect(column['covering']).toEqual({ bbox: { xmin: ['bbox', 'xmin'], ymin: ['bbox', 'ymin'], xmax: ['bbox', 'xmax'], ymax: ['bbox', 'ymax'] } });
    expect(geoMetadata(undefined)).not.toHaveProperty(['columns', GEOMETRY_COLUMN, 'bbox']);
  });
});
