/**
 * Queries too long for a URL, sent in a body: OData's `POST …/{resource}/$query` and OGC items POSTed with a
 * CQL2-JSON filter. Each answers exactly what the GET form answers (checked against the GET form with a short
 * filter, and against the `LocationId in (…)` a separate computation picks for a long one), through the same keys
 * and limits, with a documented maximum size.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openKeyStore, type KeyStore } from '../keys/key-store.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';

const BASE = '/v1/odata/v4';
const ITEMS = '/v1/features/collections/locations/items';
let fixture: FixtureApp;
let app: Hono;
let ref: DuckDBConnection;
let points: { id: number; x: number; y: number }[];
let ring: [number, number][];
let inside: number[];

/** Crossing number written here, for a ring no location lies on (its vertices end in …03). */
function contains(r: readonly [number, number][], x: number, y: number): boolean {
  let inside = false;
  for (let i = 0, j = r.length - 2; i < r.length - 1; j = i++) {
    const [[xi, yi], [xj, yj]] = [r[i]!, r[j]!];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

beforeAll(async () => {
  fixture = await openFixtureApp(inject('apiFixtureDb'));
  ({ app, ref } = fixture);
  const rows = (await ref.runAndReadAll('SELECT "Id", "Longitude", "Latitude" FROM locations ORDER BY 1')).getRows();
  points = rows.map(([id, x, y]) => ({ id: Number(id), x: Number(x), y: Number(y) }));
  const xs = points.map((p) => p.x).sort((a, b) => a - b);
  const ys = points.map((p) => p.y).sort((a, b) => a - b);
  const [cx, cy, r] = [xs[xs.length >> 1]!, ys[ys.length >> 1]!, (xs[xs.length - 1]! - xs[0]!) / 3];
  // 1,000 vertices, each written with ten decimals: some 30 KB of WKT, twice the default URL limit.
  ring = Array.from({ length: 1000 }, (_, i) => {
    const a = (2 * Math.PI * i) / 1000;
    const k = r * (0.6 + 0.4 * Math.sin(5 * a) ** 2);
    return [Math.round((cx + k * Math.cos(a)) * 1e7) / 1e7 + 3e-10, Math.round((cy + k * Math.sin(a)) * 1e7) / 1e7 + 3e-10] as [number, number];
  });
  ring.push(ring[0]!);
  inside = points.filter((p) => contains(ring, p.x, p.y)).map((p) => p.id);
  expect(inside.length).toBeGreaterThan(0);
  expect(inside.length).toBeLessThan(points.length);
});
afterAll(() => fixture.close());

const wkt = () => `POLYGON((${ring.map(([x, y]) => `${x} ${y}`).join(',')}))`;
const geojson = () => ({ type: 'Polygon', coordinates: [ring] });

function post(target: Hono, path: string, body: string, type: string, headers: Record<string, string> = {}): Promise<Response> {
  return Promise.resolve(target.request(path, { method: 'POST', body, headers: { 'Content-Type': type, ...headers } }));
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(body).slice(0, 400)).toBe(200);
  return body;
}

describe('OData: POST …/{resource}/$query', () => {
  it('a 1,000-vertex polygon selects the locations inside it, on every resource as the Id list does', async () => {
    const shape = `$filter=${encodeURIComponent(`geo.intersects(Location,geography'SRID=4326;${wkt()}')`)}`;
    expect(shape.length).toBeGreaterThan(16 * 1024);
    const located = await json(await post(app, `${BASE}/Locations/$query`, `${shape}&$select=Id&$top=10000`, 'text/plain'));
    expect((located['value'] as { Id: number }[]).map((r) => Number(r.Id))).toEqual(inside);
    const list = `$filter=${encodeURIComponent(`LocationId in (${inside.join(',')})`)}`;
    for (const resource of ['Observations', 'Records', 'Metadata']) {
      const count = async (f: string) => Number(await (await post(app, `${BASE}/${resource}/$query`, `${f}&$count=true`, 'text/plain')).text());
      expect(await count(shape), resource).toBe(await count(list));
      const page = async (f: string) => (await json(await post(app, `${BASE}/${resource}/$query`, `${f}&$top=20&$select=Id`, 'text/plain')))['value'];
      expect(await page(shape), resource).toEqual(await page(list));
    }
  });

  it('combines the URL options with the body ones, and a duplicate is refused as in a URL', async () => {
    const res = await post(app, `${BASE}/Locations/$query?$select=Id`, '$top=3', 'text/plain');
    expect(((await json(res))['value'] as unknown[]).length).toBe(3);
    const dup = await post(app, `${BASE}/Locations/$query?$top=2`, '$top=3', 'text/plain');
    expect(dup.status).toBe(400);
    expect(((await dup.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('duplicate_option');
  });

  it('refuses another media type (415), a body over MAX_BODY_BYTES (413) and GET (405)', async () => {
    expect((await post(app, `${BASE}/Locations/$query`, '{}', 'application/json')).status).toBe(415);
    const small = createApp({ acquire: () => fixture.db.acquire(), links: { trustProxy: false }, limits: { maxBodyBytes: 1024 } });
    const big = await post(small, `${BASE}/Locations/$query`, `$filter=${'A eq 1 and '.repeat(200)}A eq 1`, 'text/plain');
    expect(big.status).toBe(413);
    expect(((await big.json()) as { message: string }).message).toContain('the limit is 1024 (MAX_BODY_BYTES)');
    const get = await app.request(`${BASE}/Locations/$query`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, OPTIONS');
  });
});

describe('OGC API – Features: POST items with a CQL2-JSON body', () => {
  it('answers the 1,000-vertex polygon as the Id list, and its next link carries the filter as cql2-json', async () => {
    const body = JSON.stringify({ op: 's_intersects', args: [{ property: 'geometry' }, geojson()] });
    const page = await json(await post(app, `${ITEMS}?limit=${Math.max(1, inside.length - 1)}`, body, 'application/query-cql-json'));
    expect(page['numberMatched']).toBe(inside.length);
    const ids = (page['features'] as { id: number }[]).map((f) => Number(f.id));
    const next = (page['links'] as { rel: string; href: string }[]).find((l) => l.rel === 'next');
    expect(next, 'a next link').toBeDefined();
    const url = new URL(next!.href);
    expect(url.searchParams.get('filter-lang')).toBe('cql2-json');
    expect(JSON.parse(url.searchParams.get('filter')!)).toEqual(JSON.parse(body));
    // Too long for a GET here: the body is POSTed again to the next link's URL without the filter.
    url.searchParams.delete('filter');
    url.searchParams.delete('filter-lang');
    const rest = await json(await post(app, `${url.pathname}${url.search}`, body, 'application/json'));
    expect([...ids, ...(rest['features'] as { id: number }[]).map((f) => Number(f.id))]).toEqual(inside);
  });

  it('GET with filter-lang=cql2-json answers as the same filter in CQL2-Text', async () => {
    const small = [[-200, -80], [200, -80], [200, 80], [-200, 80], [-200, -80]].map(([x, y]) => [x! / 2, y!]);
    const text = `S_WITHIN(geometry, POLYGON((${small.map(([x, y]) => `${x} ${y}`).join(', ')})))`;
    const cql2json = JSON.stringify({ op: 's_within', args: [{ property: 'geometry' }, { type: 'Polygon', coordinates: [small] }] });
    const a = await json(await app.request(`${ITEMS}?limit=50&filter=${encodeURIComponent(text)}`));
    const b = await json(await app.request(`${ITEMS}?limit=50&filter-lang=cql2-json&filter=${encodeURIComponent(cql2json)}`));
    expect(b['features']).toEqual(a['features']);
    expect(b['numberMatched']).toBe(a['numberMatched']);
  });

  it("accepts pygeoapi's form, filter-lang=cql2-json in the URL beside the body, as the body alone; another filter-lang is a 400 saying it disagrees", async () => {
    const body = JSON.stringify({ op: '>=', args: [{ property: 'Latitude' }, 45] });
    const alone = await json(await post(app, `${ITEMS}?limit=50`, body, 'application/json'));
    const named = await post(app, `${ITEMS}?filter-lang=cql2-json&limit=50`, body, 'application/query-cql-json');
    expect(named.status).toBe(200);
    const page = await json(named);
    expect(page['features']).toEqual(alone['features']);
    expect(page['numberMatched']).toBe(Number((await ref.runAndReadAll('SELECT count(*) FROM locations WHERE "Latitude" >= 45')).getRows()[0]![0]));
    const self = new URL((page['links'] as { rel: string; href: string }[]).find((l) => l.rel === 'self')!.href);
    expect(self.searchParams.getAll('filter-lang')).toEqual(['cql2-json']);
    const text = await post(app, `${ITEMS}?filter-lang=cql2-text`, body, 'application/json');
    expect(text.status).toBe(400);
    const refused = (await text.json()) as { message: string; errors: { source?: { parameter?: string } }[] };
    expect(refused.message).toMatch(/^filter-lang=cql2-text in the URL disagrees with the body, which is read as CQL2-JSON/);
    expect(refused.errors[0]?.source?.parameter).toBe('filter-lang');
  });

  it('refuses a filter in both the URL and the body, and a body that is not JSON', async () => {
    expect((await post(app, `${ITEMS}?filter=${encodeURIComponent("Name = 'x'")}`, '{}', 'application/json')).status).toBe(400);
    const bad = await post(app, ITEMS, '{"op":', 'application/json');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('invalid_filter');
  });
});

describe('the same keys as the GET forms', () => {
  let keys: KeyStore;
  let keyed: Hono;
  beforeAll(async () => {
    keys = await openKeyStore({ plainKeys: ['post-key'] });
    keyed = createApp({ acquire: () => fixture.db.acquire(), links: { trustProxy: false }, access: { keys } });
  });
  afterAll(() => keys.close());

  it('POST without a key is 401, with one it is answered', async () => {
    expect((await post(keyed, `${BASE}/Locations/$query`, '$top=1', 'text/plain')).status).toBe(401);
    expect((await post(keyed, ITEMS, '{"op":"=","args":[{"property":"Name"},"x"]}', 'application/json')).status).toBe(401);
    expect((await post(keyed, `${BASE}/Locations/$query`, '$top=1', 'text/plain', { 'x-api-key': 'post-key' })).status).toBe(200);
  });
});
