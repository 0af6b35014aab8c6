/**
 * Real clients send polygon filters to a real server on loopback (issue 40), and every answer is compared with an
 * independent point-in-polygon computation over the same locations, fetched from the API: shapely (GEOS) in
 * Python. The Python client (shapely + urllib) POSTs CQL2-JSON and OData `$query`; OWSLib sends CQL2-Text; GDAL's
 * OAPIF driver (ogr2ogr 3.6, whose `-where` is OGR SQL with no spatial predicate) sends its `-spat` box as `bbox`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { openKeyStore, type KeyStore } from '../keys/key-store.js';
import { listen, type TestServer } from '../testing/test-server.js';
import { runClient } from '../testing/run-client.js';

const KEY = 'spatial-client-key';
const SCRIPT = join(import.meta.dirname, 'spatial_clients.py');
let db: Database;
let keys: KeyStore;
let server: TestServer;
let dir: string;
const received: string[] = [];

interface Case {
  shape: string;
  relation: string;
  wkt: string;
  expected: number[];
  cql2json: number[];
  odata?: number[];
}
let shapes: { locations: number; cases: Case[] };

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  keys = await openKeyStore({ plainKeys: [KEY] });
  const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, access: { keys } });
  server = await listen({
    fetch: (req: Request) => {
      received.push(decodeURIComponent(new URL(req.url).pathname + new URL(req.url).search));
      return app.fetch(req);
    },
  });
  dir = mkdtempSync(join(tmpdir(), 'tributary-spatial-'));
  const { status, stdout, stderr } = await run('python3', [SCRIPT, 'shapes']);
  expect(status, stderr).toBe(0);
  shapes = JSON.parse(stdout) as typeof shapes;
}, 240_000);
afterAll(async () => {
  await server.close();
  keys.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (command: string, args: string[]) => runClient(command, args, { TRIBUTARY_URL: server.origin, TRIBUTARY_API_KEY: KEY, GDAL_HTTP_HEADERS: `x-api-key: ${KEY}` });

describe('a Python client (shapely + urllib): CQL2-JSON POSTed and OData $query, against shapely', () => {
  it('every spatial function on every shape selects the locations shapely selects', () => {
    expect(shapes.cases.length).toBeGreaterThanOrEqual(32);
    for (const c of shapes.cases) {
      expect(c.cql2json, `${c.relation} ${c.shape} (CQL2-JSON)`).toEqual(c.expected);
      if (c.odata) expect(c.odata, `${c.relation} ${c.shape} (OData)`).toEqual(c.expected);
    }
  });

  it('the shapes are not trivial: the hole, the boundary and the outside each select some locations', () => {
    const of = (shape: string, relation: string) => shapes.cases.find((c) => c.shape === shape && c.relation === relation)!.expected.length;
    expect(of('polygon with a hole', 'within')).toBeGreaterThan(0);
    expect(of('polygon with a hole', 'disjoint')).toBeGreaterThan(0);
    expect(of('triangle through three locations', 'touches')).toBeGreaterThanOrEqual(3);
    expect(of('line through two locations', 'touches') + of('line through two locations', 'within')).toBeGreaterThanOrEqual(2);
    expect(of('line through two locations', 'contains')).toBe(0);
  });
});

describe('OWSLib: CQL2-Text through Features.collection_items', () => {
  it('sends each filter to the server and gets what shapely selects', async () => {
    const file = join(dir, 'cases.json');
    const short = shapes.cases.filter((c) => c.shape !== 'multipolygon');
    writeFileSync(file, JSON.stringify({ cases: short }));
    const { status, stdout, stderr } = await run('/usr/bin/python3', [SCRIPT, 'owslib', file]);
    expect(status, stderr).toBe(0);
    const answers = JSON.parse(stdout) as number[][];
    short.forEach((c, i) => expect(answers[i], `${c.relation} ${c.shape}`).toEqual(c.expected));
    // OWSLib writes spaces as '+'.
    expect(received.some((r) => /filter=S_WITHIN\(geometry,[+ ]POLYGON/.test(r))).toBe(true);
  }, 120_000);
});

describe('GDAL OAPIF: ogr2ogr -spat', () => {
  it('sends the box as bbox and copies the locations shapely finds in it', async () => {
    const box = shapes.cases.find((c) => c.shape === 'box with locations on its edges' && c.relation === 'intersects')!;
    const corners = box.wkt.replace(/^POLYGON \(\(|\)\)$/g, '').split(', ').map((p) => p.split(' ').map(Number));
    const [xs, ys] = [corners.map((c) => c[0]!), corners.map((c) => c[1]!)];
    const [west, east, south, north] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    const out = join(dir, 'box.geojson');
    const { status, stderr } = await run('ogr2ogr', ['-f', 'GeoJSON', out, `OAPIF:${server.origin}/v1/features`, 'locations', '-spat', String(west), String(south), String(east), String(north), '-oo', 'PAGE_SIZE=10000']);
    expect(status, stderr).toBe(0);
    const copied = (JSON.parse(readFileSync(out, 'utf8')) as { features: { properties: { id?: number; Id?: number } }[] }).features.map((f) => Number(f.properties.id ?? f.properties.Id)).sort((a, b) => a - b);
    expect(copied).toEqual(box.expected);
    expect(received.some((r) => r.includes('/collections/locations/items') && r.includes('bbox='))).toBe(true);
  }, 120_000);
});
