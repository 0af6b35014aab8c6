/**
 * Issue 41's GeoParquet, read by real readers: a dataset file (written by the real ingest of the fixture) and a
 * Records export (from a real server on loopback) open in geopandas as GeoDataFrames in CRS84 whose points are the
 * rows' own coordinates, byte for byte shapely's WKB; the `geo` metadata, read with pyarrow, validates against
 * GeoParquet 1.1's JSON schema's required keys and types. The recipe docs/recipes/python_geopandas.py is run as a
 * user runs it. No GDAL here has a Parquet driver (Debian's 3.6 is built without Arrow; pyogrio's 3.12 wheel has only
 * ADBC, which reads the file as a plain table), so GDAL and QGIS are documented, not run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { REPO_ROOT } from '../testing/fixture-db.js';
import { runClient } from '../testing/run-client.js';
import { listen, type TestServer } from '../testing/test-server.js';

let db: Database;
let server: TestServer;
let dir: string;

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  server = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false } }));
  dir = mkdtempSync(join(tmpdir(), 'tributary-geoparquet-'));
});
afterAll(async () => {
  await server.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (command: string, args: string[]) => runClient(command, args, { TRIBUTARY_URL: server.origin });

/**
 * Checks one file with geopandas, shapely and pyarrow; prints one JSON line of what it found. The
 * schema's required keys are GeoParquet 1.1's (format-specs/schema.json): version, primary_column, columns; per
 * column encoding and geometry_types; a covering's bbox names xmin, ymin, xmax, ymax, each a [column, field] path.
 */
const CHECK = `
import json, sys
import geopandas, pyarrow.parquet as pq, shapely
import jsonschema

path = sys.argv[1]
schema = {
  "type": "object", "required": ["version", "primary_column", "columns"],
  "properties": {
    "version": {"const": "1.1.0"},
    "primary_column": {"type": "string", "minLength": 1},
    "columns": {"type": "object", "minProperties": 1, "additionalProperties": {
      "type": "object", "required": ["encoding", "geometry_types"],
      "properties": {
        "encoding": {"enum": ["WKB", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon"]},
        "geometry_types": {"type": "array", "uniqueItems": True, "items": {"pattern": "^(GeometryCollection|(Multi)?(Point|LineString|Polygon))( Z)?$"}},
        "crs": {"oneOf": [{"type": "object"}, {"type": "null"}]},
        "edges": {"enum": ["planar", "spherical"]},
        "bbox": {"type": "array", "items": {"type": "number"}, "oneOf": [{"minItems": 4, "maxItems": 4}, {"minItems": 6, "maxItems": 6}]},
        "covering": {"type": "object", "required": ["bbox"], "properties": {"bbox": {
          "type": "object", "required": ["xmin", "xmax", "ymin", "ymax"],
          "properties": {k: {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2} for k in ["xmin", "xmax", "ymin", "ymax", "zmin", "zmax"]}}}}}}}}}
geo = json.loads(pq.read_schema(path).metadata[b"geo"])
jsonschema.validate(geo, schema)
column = geo["columns"][geo["primary_column"]]

frame = geopandas.read_parquet(path)
table = pq.read_table(path)
lon, lat = table.column("MonitoringLocationLongitude").to_pylist(), table.column("MonitoringLocationLatitude").to_pylist()
wkb = table.column(geo["primary_column"]).to_pylist()
points = [shapely.Point(x, y) for x, y in zip(lon, lat)]
box = table.column("bbox").to_pylist()
print(json.dumps({
  "rows": len(frame),
  "geometry": frame.geometry.name,
  "types": sorted(set(frame.geom_type)),
  "authority": list(frame.crs.to_authority()), "crs84": frame.crs.equals("OGC:CRS84"), "wgs84": frame.crs.datum.name,
  "points_equal": bool(all(g.equals_exact(p, 0) for g, p in zip(frame.geometry, points))),
  "wkb_exact": all(w == shapely.to_wkb(p, byte_order=1, output_dimension=2) for w, p in zip(wkb, points)),
  "bbox_rows": all(b == {"xmin": x, "ymin": y, "xmax": x, "ymax": y} for b, x, y in zip(box, lon, lat)),
  "bbox": column.get("bbox"), "total_bounds": [float(v) for v in frame.total_bounds],
  "crs_id": (column.get("crs") or {}).get("id"),
  "columns": [c for c in table.column_names],
}))
`;

interface Checked {
  rows: number;
  geometry: string;
  types: string[];
  authority: string[];
  wgs84: string;
  crs84: boolean;
  points_equal: boolean;
  wkb_exact: boolean;
  bbox_rows: boolean;
  bbox: number[];
  total_bounds: number[];
  crs_id: unknown;
  columns: string[];
}

async function check(path: string): Promise<Checked> {
  const { status, stdout, stderr } = await run('python3', ['-c', CHECK, path]);
  expect(stderr.replace(/^.*Warning.*\n?/gm, '').replace(/^\s+warnings\.warn.*\n?/gm, '')).toBe('');
  expect(status).toBe(0);
  return JSON.parse(stdout) as Checked;
}

function expectPointLayer(c: Checked, rows: number) {
  expect(c.rows).toBe(rows);
  expect(c.rows).toBeGreaterThan(0);
  expect(c.geometry).toBe('geometry');
  expect(c.types).toEqual(['Point']);
  expect(c.authority).toEqual(['OGC', 'CRS84']);
  expect(c.wgs84).toMatch(/^World Geodetic System 1984/);
  expect(c.crs84).toBe(true);
  expect(c.crs_id).toEqual({ authority: 'OGC', code: 'CRS84' });
  expect(c.points_equal).toBe(true);
  expect(c.wkb_exact).toBe(true);
  expect(c.bbox_rows).toBe(true);
  expect(c.bbox).toEqual(c.total_bounds);
  // The existing columns first, unchanged; GeoParquet's two after them.
  expect(c.columns.slice(-2)).toEqual(['geometry', 'bbox']);
}

describe('GeoParquet read by real readers', () => {
  it("a dataset file and a Records export: geopandas and pyarrow's metadata against the 1.1 schema; the recipe", async () => {
    const index = (await (await fetch(`${server.origin}/v1/downloads`)).json()) as { datasets: { DOI: string; Rows: number }[] };
    const dataset = [...index.datasets].sort((a, b) => b.Rows - a.Rows)[0]!;
    const { status, stdout, stderr } = await run('python3', [join(REPO_ROOT, 'docs', 'recipes', 'python_geopandas.py'), dataset.DOI, 'pH', dir]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toMatch(new RegExp(`^dataset: ${dataset.Rows} rows, geometry geometry \\(Point\\), CRS OGC:CRS84, bounds \\[`, 'm'));
    const [, exported] = /^export: (\d+) rows, geometry geometry \(Point\), CRS OGC:CRS84/m.exec(stdout) ?? [];
    expect(Number(exported)).toBeGreaterThan(0);
    expect(stdout).toMatch(new RegExp(`^${dataset.DOI.replace(/[.]/g, '\\.')}: \\d+ locations$`, 'm'));

    const file = await check(join(dir, 'dataset.parquet'));
    expectPointLayer(file, dataset.Rows);
    const fromExport = await check(join(dir, 'export.parquet'));
    expectPointLayer(fromExport, Number(exported));
  });

  it('an export with $select keeps its columns and still carries the points; an export of no rows has no bbox', async () => {
    const select = await fetch(`${server.origin}/v1/export/Records?$select=Id,CharacteristicName&$filter=${encodeURIComponent("CharacteristicName eq 'pH'")}&$format=parquet`);
    expect(select.status).toBe(200);
    const path = join(dir, 'select.parquet');
    writeFileSync(path, Buffer.from(await select.arrayBuffer()));
    const { stdout } = await run('python3', ['-c', 'import sys, pyarrow.parquet as pq, geopandas; t = pq.read_table(sys.argv[1]); f = geopandas.read_parquet(sys.argv[1]); print(t.column_names, len(f), f.crs.to_string())', path]);
    expect(stdout.trim()).toMatch(/^\['Id', 'CharacteristicName', 'geometry', 'bbox'\] \d+ OGC:CRS84$/);

    const none = await fetch(`${server.origin}/v1/export/Records?$filter=${encodeURIComponent("CharacteristicName eq 'no such thing'")}&$format=parquet`);
    expect(none.status).toBe(200);
    const empty = join(dir, 'empty.parquet');
    writeFileSync(empty, Buffer.from(await none.arrayBuffer()));
    const read = await run('python3', ['-c', 'import sys, json, pyarrow.parquet as pq, geopandas; g = json.loads(pq.read_schema(sys.argv[1]).metadata[b"geo"]); f = geopandas.read_parquet(sys.argv[1]); print(len(f), "bbox" in g["columns"]["geometry"], f.crs.to_string())', empty]);
    expect(read.stdout.trim()).toBe('0 False OGC:CRS84');
  });
});
