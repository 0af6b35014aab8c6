/**
 * The features API over HTTP (`app.request()`) against the real fixture file: every answer checked against
 * reference SQL on the plain tables, never against the statistics or the code under test.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';

const F = '/v1/features';
let fixture: FixtureApp;
let app: Hono;
let ref: DuckDBConnection;

beforeAll(async () => {
  fixture = await openFixtureApp(inject('apiFixtureDb'));
  ({ app, ref } = fixture);
});
afterAll(() => fixture.close());

interface Feature {
  type: 'Feature';
  id: number;
  geometry: { type: 'Point'; coordinates: [number, number] };
  properties: Record<string, unknown>;
}
interface FeatureCollection {
  type: 'FeatureCollection';
  numberMatched: number;
  numberReturned: number;
  timeStamp: string;
  links: { href: string; rel: string; type?: string }[];
  features: Feature[];
}

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await app.request(path, { headers });
  const text = await res.text();
  return { res, text, body: JSON.parse(text) as Record<string, unknown> };
}

async function items(collection: string, query = ''): Promise<FeatureCollection> {
  const { res, body } = await get(`${F}/collections/${collection}/items${query ? `?${query}` : ''}`);
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/geo+json');
  return body as unknown as FeatureCollection;
}

/** Follows next links to the end. */
async function all(collection: string, query: string): Promise<{ features: Feature[]; pages: number; matched: number }> {
  let page = await items(collection, query);
  const features = [...page.features];
  const matched = page.numberMatched;
  let pages = 1;
  for (let next = page.links.find((l) => l.rel === 'next'); next; next = page.links.find((l) => l.rel === 'next')) {
    const u = new URL(next.href);
    expect(u.searchParams.get('cursor')).toMatch(/^\d+$/);
    page = await items(collection, u.search.slice(1));
    expect(page.numberMatched).toBe(matched);
    features.push(...page.features);
    pages++;
  }
  return { features, pages, matched };
}

async function ids(sql: string): Promise<number[]> {
  const r = await ref.runAndReadAll(sql);
  return r.getRows().map((row) => Number(row[0]));
}

describe('OGC API – Features: items', () => {
  it('locations: a Point per location at [Longitude, Latitude], the Location fields as properties, exact numberMatched', async () => {
    const page = await items('locations', 'limit=5');
    const expected = await ref.runAndReadAll('SELECT "Id", "Longitude", "Latitude", "Name" FROM locations ORDER BY "Id" LIMIT 5');
    const [total] = await ids('SELECT count(*) FROM locations');
    expect(page.type).toBe('FeatureCollection');
    expect(page.numberMatched).toBe(total);
    expect(page.numberReturned).toBe(5);
    expect(Date.parse(page.timeStamp)).toBeGreaterThan(0);
    expect(page.features.map((f) => [f.id, ...f.geometry.coordinates, f.properties['Name']])).toEqual(expected.getRows().map((r) => [Number(r[0]), r[1], r[2], r[3]]));
    expect(page.features[0]!.type).toBe('Feature');
    expect(page.features[0]!.geometry.type).toBe('Point');
    expect(Object.keys(page.features[0]!.properties)).toContain('MonitoringLocationType');
  });

  it('observations: Records fields, the point of the location; paged by next links to exactly the rows of the filter', async () => {
    const [pH] = (await ref.runAndReadAll(`SELECT "CharacteristicName" FROM observations GROUP BY 1 ORDER BY count(*) LIMIT 1`)).getRows().map((r) => String(r[0]));
    const { features, pages, matched } = await all('observations', `limit=7&CharacteristicName=${encodeURIComponent(pH!)}`);
    const expected = await ids(`SELECT "Id" FROM observations WHERE "CharacteristicName" = '${pH!.replace(/'/g, "''")}' ORDER BY "Id"`);
    expect(features.map((f) => f.id)).toEqual(expected);
    expect(matched).toBe(expected.length);
    expect(pages).toBe(Math.ceil(expected.length / 7));
    const first = features[0]!;
    expect(first.geometry.coordinates).toEqual([first.properties['MonitoringLocationLongitude'], first.properties['MonitoringLocationLatitude']]);
  });

  it('bbox: the same locations as the box in SQL, also across the antimeridian', async () => {
    const [w, s, e, n] = (await ref.runAndReadAll('SELECT quantile_cont("Longitude", 0.2), quantile_cont("Latitude", 0.2), quantile_cont("Longitude", 0.8), quantile_cont("Latitude", 0.8) FROM locations')).getRows()[0]!.map(Number);
    const inside = await ids(`SELECT "Id" FROM locations WHERE "Longitude" BETWEEN ${w} AND ${e} AND "Latitude" BETWEEN ${s} AND ${n} ORDER BY "Id"`);
    const { features, matched } = await all('locations', `bbox=${w},${s},${e},${n}&limit=1000`);
    expect(inside.length).toBeGreaterThan(0);
    expect(features.map((f) => f.id)).toEqual(inside);
    expect(matched).toBe(inside.length);
    // West > east: the box wraps around ±180, i.e. everything outside (e, w) in longitude.
    const wrapped = await ids(`SELECT "Id" FROM locations WHERE ("Longitude" >= ${e} OR "Longitude" <= ${w}) AND "Latitude" BETWEEN ${s} AND ${n} ORDER BY "Id"`);
    const across = await all('locations', `bbox=${e},${s},${w},${n}&limit=1000`);
    expect(across.features.map((f) => f.id)).toEqual(wrapped);
    expect(across.matched).toBe(wrapped.length);
  });

  it('bbox on observations: the observations at locations in the box, counted exactly', async () => {
    const [w, s, e, n] = (await ref.runAndReadAll('SELECT quantile_cont("Longitude", 0.4), quantile_cont("Latitude", 0.4), quantile_cont("Longitude", 0.6), quantile_cont("Latitude", 0.6) FROM locations')).getRows()[0]!.map(Number);
    const expected = await ids(`SELECT o."Id" FROM observations o JOIN locations l ON l."Id" = o."LocationId" WHERE l."Longitude" BETWEEN ${w} AND ${e} AND l."Latitude" BETWEEN ${s} AND ${n} ORDER BY 1`);
    const page = await items('observations', `bbox=${w},${s},${e},${n}&limit=10000`);
    expect(page.numberMatched).toBe(expected.length);
    expect(page.features.map((f) => f.id)).toEqual(expected.slice(0, 10000));
  });

  it('filter (CQL2-Text, Part 3): the same features as the field parameters and bbox it stands for, on both collections', async () => {
    const [w, s, e, n] = (await ref.runAndReadAll('SELECT quantile_cont("Longitude", 0.2), quantile_cont("Latitude", 0.2), quantile_cont("Longitude", 0.8), quantile_cont("Latitude", 0.8) FROM locations')).getRows()[0]!.map(Number);
    const [characteristic] = (await ref.runAndReadAll('SELECT "CharacteristicName" FROM observations GROUP BY 1 ORDER BY count(*) DESC LIMIT 1')).getRows().map((r) => String(r[0]));
    const cql = encodeURIComponent(`CharacteristicName = '${characteristic}' AND S_INTERSECTS(geometry, BBOX(${w}, ${s}, ${e}, ${n}))`);
    const expected = await ids(
      `SELECT o."Id" FROM observations o JOIN locations l ON l."Id" = o."LocationId" WHERE o."CharacteristicName" = '${characteristic!.replaceAll("'", "''")}' ` +
        `AND l."Longitude" BETWEEN ${w} AND ${e} AND l."Latitude" BETWEEN ${s} AND ${n} ORDER BY 1`,
    );
    expect(expected.length).toBeGreaterThan(0);
    const filtered = await items('observations', `filter=${cql}&filter-lang=cql2-text&limit=10000`);
    const byParameters = await items('observations', `CharacteristicName=${encodeURIComponent(characteristic!)}&bbox=${w},${s},${e},${n}&limit=10000`);
    expect(filtered.numberMatched).toBe(expected.length);
    expect(filtered.features.map((f) => f.id)).toEqual(expected.slice(0, 10000));
    expect(byParameters.features.map((f) => f.id)).toEqual(filtered.features.map((f) => f.id));
    // The next link keeps the filter.
    const next = filtered.links.find((l) => l.rel === 'next');
    if (next) expect(new URL(next.href).searchParams.get('filter')).toBe(decodeURIComponent(cql));

    const locations = await all('locations', `filter=${encodeURIComponent(`S_INTERSECTS(geometry, BBOX(${w},${s},${e},${n})) AND NOT Name IS NULL`)}&limit=1000`);
    const inside = await ids(`SELECT "Id" FROM locations WHERE "Longitude" BETWEEN ${w} AND ${e} AND "Latitude" BETWEEN ${s} AND ${n} AND "Name" IS NOT NULL ORDER BY "Id"`);
    expect(locations.features.map((f) => f.id)).toEqual(inside);
    expect(locations.matched).toBe(inside.length);
  });

  it('datetime: an instant, closed and half-open intervals on ActivityStartDate', async () => {
    const [day] = (await ref.runAndReadAll(`SELECT strftime(quantile_disc("ActivityStartDate", 0.5), '%Y-%m-%d') FROM observations`)).getRows().map((r) => String(r[0]));
    const cases: [string, string][] = [
      [day!, `= DATE '${day}'`],
      [`${day}T12:00:00Z`, `= DATE '${day}'`],
      [`${day}/..`, `>= DATE '${day}'`],
      [`../${day}`, `<= DATE '${day}'`],
      [`/${day}`, `<= DATE '${day}'`],
      [`${day}/${day}`, `BETWEEN DATE '${day}' AND DATE '${day}'`],
    ];
    for (const [datetime, cond] of cases) {
      const [n] = await ids(`SELECT count(*) FROM observations WHERE "ActivityStartDate" ${cond}`);
      const page = await items('observations', `datetime=${encodeURIComponent(datetime)}&limit=1`);
      expect(page.numberMatched, datetime).toBe(n);
    }
  });

  it('properties= selects the properties; geometry and id still come', async () => {
    const page = await items('observations', 'properties=CharacteristicName,ResultValue&limit=3');
    expect(Object.keys(page.features[0]!.properties)).toEqual(['CharacteristicName', 'ResultValue']);
    expect(page.features[0]!.geometry.coordinates).toHaveLength(2);
  });

  it('limit: the default and the maximum, a larger value read as the maximum', async () => {
    const page = await items('observations');
    expect(page.numberReturned).toBe(Math.min(1000, page.numberMatched));
    const big = await items('observations', 'limit=20000&properties=Id');
    expect(big.numberReturned).toBe(Math.min(10000, big.numberMatched));
  });

  it('self, next and alternate links on the public base URL behind a proxy', async () => {
    const { createApp } = await import('../app.js');
    const proxied = createApp({ acquire: () => fixture.db.acquire(), links: { trustProxy: true } });
    const res = await proxied.request(`${F}/collections/locations/items?limit=2&MonitoringLocationType=River%2FStream`, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'data.example.org' },
    });
    const body = (await res.json()) as FeatureCollection;
    const rel = (r: string) => body.links.find((l) => l.rel === r)?.href;
    expect(rel('self')).toBe('https://data.example.org/v1/features/collections/locations/items?limit=2&MonitoringLocationType=River%2FStream');
    expect(rel('next')).toMatch(/^https:\/\/data\.example\.org\/v1\/features\/collections\/locations\/items\?limit=2&MonitoringLocationType=River%2FStream&publication=[0-9TZ]+-[0-9a-f]{8}&cursor=\d+$/);
    expect(rel('alternate')).toBe(`https://data.example.org/v1/odata/v4/Locations?$filter=MonitoringLocationType%20eq%20%27River%2FStream%27&$top=2`);
  });

  it('f=json and an open interval are accepted; HEAD answers the headers alone', async () => {
    const page = await items('locations', 'f=json&datetime=../..&limit=2');
    expect(page.numberReturned).toBe(2);
    const head = await app.request(`${F}/collections/locations/items?limit=2`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/geo+json');
    expect(await head.text()).toBe('');
  });

  it('one feature by its Id; an unknown one is a 404', async () => {
    const [id] = await ids('SELECT max("Id") FROM observations');
    const { res, body } = await get(`${F}/collections/observations/items/${id}`);
    expect(res.status).toBe(200);
    expect(body['type']).toBe('Feature');
    expect(body['id']).toBe(id);
    for (const missing of [`${id! + 1}`, 'abc', '-1']) {
      const r = await get(`${F}/collections/observations/items/${missing}`);
      expect(r.res.status).toBe(404);
      expect(r.body['code']).toBe('not_found');
    }
  });

  it("items and a feature carry the publication's ETag and answer If-None-Match with 304, as OData pages do", async () => {
    const { publication } = (await (await app.request('/readyz')).json()) as { publication: string };
    const etag = `W/"${publication}"`;
    for (const path of [`${F}/collections/locations/items?limit=2`, `${F}/collections/observations/items?limit=1&cursor=1`, `${F}/collections/locations/items/1`]) {
      const first = await app.request(path);
      expect(first.status).toBe(200);
      expect(first.headers.get('etag')).toBe(etag);
      await first.text();
      const again = await app.request(path, { headers: { 'If-None-Match': etag } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
    }
  });
});

describe('OGC API – Features: errors name the parameter', () => {
  it.each([
    ['locations', 'limit=0', 'limit'],
    ['locations', 'limit=ten', 'limit'],
    ['locations', 'bbox=1,2,3', 'bbox'],
    ['locations', 'bbox=-80,50,-79,40', 'bbox'],
    ['locations', 'bbox=-80,43,-79,44&bbox-crs=EPSG:3857', 'bbox-crs'],
    ['locations', 'datetime=2020-02-30', 'datetime'],
    ['locations', 'datetime=2021-01-01/2020-01-01', 'datetime'],
    ['locations', 'properties=Nope', 'properties'],
    ['locations', 'cursor=abc', 'cursor'],
    ['locations', 'f=xml', 'f'],
    ['locations', 'Frobnicate=1', 'Frobnicate'],
    ['locations', '$filter=Id%20eq%201', '$filter'],
    ['observations', 'ResultValue=high', 'ResultValue'],
    ['observations', 'ActivityStartYear=twenty', 'ActivityStartYear'],
    ['observations', 'limit=5&limit=6', 'limit'],
    ['observations', `filter=${encodeURIComponent("CharacteristicName = 'pH' AND")}`, 'filter'],
    ['observations', `filter=${encodeURIComponent('S_INTERSECTS(geometry, POLYGON((0 0, 1 0, 1 1, 0 1)))')}`, 'filter'],
    ['observations', `filter=${encodeURIComponent('Nope = 1')}`, 'filter'],
    ['observations', `filter=${encodeURIComponent("CharacteristicName = 'pH'")}&filter-lang=cql2-xml`, 'filter-lang'],
    ['observations', `filter=${encodeURIComponent("CharacteristicName = 'pH'")}&filter-crs=EPSG:4326`, 'filter-crs'],
  ])('%s?%s → 400 naming %s', async (collection, query, parameter) => {
    const { res, body } = await get(`${F}/collections/${collection}/items?${query}`);
    expect(res.status).toBe(400);
    expect(typeof body['code']).toBe('string');
    expect(body['description']).toMatch(/\S/);
    expect((body['errors'] as { source?: { parameter?: string } }[])[0]!.source?.parameter).toBe(parameter);
  });

  it('an unknown collection or path is a 404 with code and description', async () => {
    for (const path of [`${F}/collections/nope`, `${F}/collections/nope/items`, `${F}/collections/nope/queryables`, `${F}/nothing`]) {
      const { res, body } = await get(path);
      expect(res.status, path).toBe(404);
      expect(body['code']).toBe('not_found');
      expect(body['description']).toMatch(/\S/);
    }
  });
});
