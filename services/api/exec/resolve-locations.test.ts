/**
 * Shapes and distances over HTTP against the real fixture file: each answer is checked against the locations a
 * separate computation picks (the winding number of testing/winding-number.ts, haversine written here), then against the same request
 * written as `LocationId in (…)`, for every resource, page, count and export.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getResource } from '../../../schemas/index.js';
import { parseQueryString } from '../http/request-query.js';
import { compileCount } from '../query/compile-count.js';
import { planQuery } from '../query/plan.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';
import { winding } from '../testing/winding-number.js';
import { LOCATION_ID_LIMIT, resolveLocations } from './resolve-locations.js';

const BASE = '/v1/odata/v4';
let fixture: FixtureApp;
let app: Hono;
let ref: DuckDBConnection;
let points: { id: number; x: number; y: number }[];

beforeAll(async () => {
  fixture = await openFixtureApp(inject('apiFixtureDb'));
  ({ app, ref } = fixture);
  const rows = (await ref.runAndReadAll('SELECT "Id", "Longitude", "Latitude" FROM locations ORDER BY 1')).getRows();
  points = rows.map(([id, x, y]) => ({ id: Number(id), x: Number(x), y: Number(y) }));
});
afterAll(() => fixture.close());

async function getJson(path: string): Promise<Record<string, unknown>> {
  const res = await app.request(path);
  const body = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();


const round = (v: number) => Math.round(v * 1e5) / 1e5 + 3e-6;

/** A star-shaped ring of `n` vertices around the middle of the locations, with radii varying. */
function star(n: number, cx: number, cy: number, r: number): [number, number][] {
  const ring = Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * i) / n;
    const k = r * (0.55 + 0.45 * Math.abs(Math.sin(3 * a)));
    return [round(cx + k * Math.cos(a)), round(cy + k * Math.sin(a))] as [number, number];
  });
  return [...ring, ring[0]!];
}

const wkt = (rings: readonly (readonly [number, number])[][]) => `POLYGON(${rings.map((r) => `(${r.map(([x, y]) => `${x} ${y}`).join(',')})`).join(',')})`;

describe('a polygon selects the locations inside it', () => {
  let shell: [number, number][];
  let hole: [number, number][];
  let expected: number[];

  beforeAll(() => {
    const xs = points.map((p) => p.x).sort((a, b) => a - b);
    const ys = points.map((p) => p.y).sort((a, b) => a - b);
    const [cx, cy] = [xs[xs.length >> 1]!, ys[ys.length >> 1]!];
    const r = Math.max(xs[xs.length - 1]! - xs[0]!, ys[ys.length - 1]! - ys[0]!) / 3;
    // Short enough for a URL; POST bodies carry the 1,000-vertex outlines (post-query.test.ts).
    shell = star(300, cx, cy, r);
    hole = star(40, cx, cy, r / 5).reverse();
    expected = points.filter((p) => winding(shell, p.x, p.y) !== 0 && winding(hole, p.x, p.y) === 0).map((p) => p.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(points.length);
  });

  it('on Locations, in OData and as the same Id list', async () => {
    const filter = `geo.intersects(Location,geography'SRID=4326;${wkt([shell, hole])}')`;
    const body = await getJson(`${BASE}/Locations?${q({ $filter: filter, $select: 'Id', $top: '10000' })}`);
    expect((body['value'] as { Id: number }[]).map((r) => Number(r.Id))).toEqual(expected);
  });

  it.each(['Observations', 'Records', 'Metadata', 'Locations'])('%s: count and first page equal LocationId in (…)', async (resource) => {
    const shape = `geo.intersects(Location,geography'SRID=4326;${wkt([shell, hole])}')`;
    const list = `LocationId in (${expected.join(',')})`;
    const count = async (f: string) => Number(await (await app.request(`${BASE}/${resource}?${q({ $filter: f, $count: 'true' })}`)).text());
    const page = async (f: string) => ((await getJson(`${BASE}/${resource}?${q({ $filter: f, $select: 'Id', $top: '50' })}`))['value'] as unknown[]);
    expect(await count(shape)).toBe(await count(list));
    expect(await page(shape)).toEqual(await page(list));
  });

  it('S_DISJOINT is every other location; S_WITHIN of the CQL2 items the same as intersects when none is on an edge', async () => {
    const disjoint = await getJson(`/v1/features/collections/locations/items?${q({ filter: `S_DISJOINT(geometry, ${wkt([shell, hole])})`, limit: '10000' })}`);
    const inside = new Set(expected);
    expect(((disjoint['features'] as { id: number }[]).map((f) => Number(f.id))).sort((a, b) => a - b)).toEqual(points.filter((p) => !inside.has(p.id)).map((p) => p.id));
    const within = await getJson(`/v1/features/collections/locations/items?${q({ filter: `S_WITHIN(geometry, ${wkt([shell, hole])})`, limit: '10000' })}`);
    expect((within['features'] as { id: number }[]).map((f) => Number(f.id)).sort((a, b) => a - b)).toEqual(expected);
  });
});

describe('a distance selects the locations within it', () => {
  it('geo.distance le d and DWITHIN(…, meters) both equal a haversine computed here', async () => {
    const c = points[Math.floor(points.length / 2)]!;
    const rad = (d: number) => (d * Math.PI) / 180;
    const metres = (p: { x: number; y: number }) =>
      2 * 6371008.8 * Math.asin(Math.sqrt(Math.sin(rad(p.y - c.y) / 2) ** 2 + Math.cos(rad(c.y)) * Math.cos(rad(p.y)) * Math.sin(rad(p.x - c.x) / 2) ** 2));
    const sorted = points.map(metres).sort((a, b) => a - b);
    const d = (sorted[Math.floor(sorted.length / 4)]! + sorted[Math.floor(sorted.length / 4) + 1]!) / 2;
    const expected = points.filter((p) => metres(p) <= d).map((p) => p.id);
    const odata = await getJson(`${BASE}/Locations?${q({ $filter: `geo.distance(Location,geography'SRID=4326;POINT(${c.x} ${c.y})') le ${d}`, $select: 'Id', $top: '10000' })}`);
    expect((odata['value'] as { Id: number }[]).map((r) => Number(r.Id))).toEqual(expected);
    const cql = await getJson(`/v1/features/collections/locations/items?${q({ filter: `DWITHIN(geometry, POINT(${c.x} ${c.y}), ${d / 1000}, kilometers)`, limit: '10000' })}`);
    expect((cql['features'] as { id: number }[]).map((f) => Number(f.id)).sort((a, b) => a - b)).toEqual(expected);
  });
});

// Issue 47 item 2: `ge`, BEYOND or a world polygon became every location's Id, once per term, a parameter per Id.
describe('whole-map location tests', () => {
  const rad = (d: number) => (d * Math.PI) / 180;
  const metresFrom = (c: { x: number; y: number }) => (p: { x: number; y: number }) =>
    2 * 6371008.8 * Math.asin(Math.sqrt(Math.sin(rad(p.y - c.y) / 2) ** 2 + Math.cos(rad(c.y)) * Math.cos(rad(p.y)) * Math.sin(rad(p.x - c.x) / 2) ** 2));

  it('geo.distance ge/gt and BEYOND are every location farther than d (the complement of le/lt), by a haversine here', async () => {
    const c = points[0]!;
    const metres = metresFrom(c);
    const sorted = points.map(metres).sort((a, b) => a - b);
    const d = (sorted[2]! + sorted[3]!) / 2;
    const far = points.filter((p) => metres(p) > d).map((p) => p.id);
    const point = `geography'SRID=4326;POINT(${c.x} ${c.y})'`;
    for (const op of ['ge', 'gt']) {
      const odata = await getJson(`${BASE}/Locations?${q({ $filter: `geo.distance(Location,${point}) ${op} ${d}`, $select: 'Id', $top: '10000' })}`);
      expect((odata['value'] as { Id: number }[]).map((r) => Number(r.Id))).toEqual(far);
    }
    const beyond = await getJson(`/v1/features/collections/locations/items?${q({ filter: `BEYOND(geometry, POINT(${c.x} ${c.y}), ${d / 1000}, kilometers)`, limit: '10000' })}`);
    expect((beyond['features'] as { id: number }[]).map((f) => Number(f.id)).sort((a, b) => a - b)).toEqual(far);
  });

  it('a world polygon repeated in one filter is resolved once and bound as one parameter, not one per Id per term', async () => {
    const world = `geo.intersects(Location,geography'SRID=4326;POLYGON((-180 -90,180 -90,180 90,-180 90,-180 -90))')`;
    const filter = Array.from({ length: 20 }, () => world).join(' and ');
    const acquired = await fixture.db.acquire();
    try {
      const resource = getResource('Observations')!;
      const plan = planQuery(parseQueryString(`$filter=${encodeURIComponent(filter)}&$count=true`), resource);
      if (plan.kind !== 'count') throw new Error('expected a count plan');
      const resolved = await resolveLocations(plan, acquired.snapshot, new AbortController().signal);
      const compiled = compileCount(resolved);
      expect(compiled.params.length).toBeLessThanOrEqual(20);
      const [[n]] = (await ref.runAndReadAll(compiled.sql, [...compiled.params])).getRows() as [[bigint]];
      const [[all]] = (await ref.runAndReadAll('SELECT count(*) FROM observations WHERE "LocationId" IS NOT NULL')).getRows() as [[bigint]];
      expect(Number(n)).toBe(Number(all));
    } finally {
      acquired.release();
    }
  });

  it('Ids past the limit (LOCATION_ID_LIMIT), all distinct tests together, are a 400 naming it', async () => {
    // Distinct boxes, each around every location, so no two are the same test.
    const boxes = [0, 1, 2].map((i) => `geo.intersects(Location,geography'SRID=4326;POLYGON((-180 -90,${179 - i} -90,${179 - i} 90,-180 90,-180 -90))')`);
    const plan = planQuery(parseQueryString(`$filter=${encodeURIComponent(boxes.join(' or '))}&$count=true`), getResource('Locations')!);
    const acquired = await fixture.db.acquire();
    try {
      const limit = Math.floor(points.length * 2.5);
      await expect(resolveLocations(plan, acquired.snapshot, new AbortController().signal, limit)).rejects.toMatchObject({ code: 'too_many_values', message: expect.stringContaining(`the ${limit} one request may test`) });
      expect(LOCATION_ID_LIMIT).toBeGreaterThan(points.length * 8);
    } finally {
      acquired.release();
    }
  });
});
