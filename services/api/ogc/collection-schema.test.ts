/**
 * Each collection's two schemas (collection-schema.ts) against the features it serves: every property of a page is in
 * both, with its type, and the features validate (ajv, JSON Schema 2020-12) once their nulls are set aside (a value may
 * be absent: these are the types of the values present). Through the app over the fixture file.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';
import { FEATURE_COLLECTIONS } from './feature-collections.js';

let fx: FixtureApp;
beforeAll(async () => {
  fx = await openFixtureApp(inject('apiFixtureDb'));
});
afterAll(() => fx.close());

type Json = Record<string, any>;
const get = async (path: string) => {
  const res = await fx.app.request(path);
  expect(res.status, path).toBe(200);
  return { type: res.headers.get('content-type'), body: (await res.json()) as Json };
};
const withoutNulls = (props: Json) => Object.fromEntries(Object.entries(props).filter(([, v]) => v !== null));
const validator = (schema: Json) => {
  const ajv = new Ajv2020({ strict: false });
  addFormats.default(ajv);
  return ajv.compile(schema);
};

describe.each(FEATURE_COLLECTIONS.map((c) => [c.id]))('%s', (id) => {
  const base = `/v1/features/collections/${id}`;

  it('links both schemas from the collection, GDAL\'s as describedby in both spellings GDAL reads', async () => {
    const links = (await get(base)).body['links'] as Json[];
    const to = (href: string) => links.filter((l) => new URL(l['href']).pathname === href).map((l) => `${l['rel']} ${l['type']}`);
    expect(to(`${base}/schema`)).toEqual(['http://www.opengis.net/def/rel/ogc/1.0/schema application/schema+json']);
    expect(to(`${base}/schema/geojson`)).toEqual(['describedby application/schema+json', 'describedBy application/schema+json']);
    // /collections lists the same links: GDAL reads them there.
    const listed = (await get('/v1/features/collections')).body['collections'].find((c: Json) => c['id'] === id);
    expect(listed['links']).toEqual(links);
  });

  it('Part 5\'s schema: every property of a page, typed, its id, geometry and order declared', async () => {
    const { type, body: schema } = await get(`${base}/schema`);
    expect(type).toBe('application/schema+json');
    const page = (await get(`${base}/items?limit=50`)).body['features'] as Json[];
    const props = schema['properties'] as Record<string, Json>;
    expect(Object.keys(props).filter((k) => k !== 'geometry')).toEqual(Object.keys(page[0]!['properties']));
    expect(props['geometry']).toMatchObject({ 'x-ogc-role': 'primary-geometry' });
    expect(Object.values(props).filter((p) => p['x-ogc-role'] === 'id')).toHaveLength(1);
    expect(Object.values(props).map((p) => p['x-ogc-propertySeq'])).toEqual(Object.keys(props).map((_, i) => i + 1));
    for (const [name, p] of Object.entries(props)) if (name !== 'geometry') expect(typeof p['type'], name).toBe('string');
    const validate = validator({ ...schema, properties: Object.fromEntries(Object.entries(props).filter(([k]) => k !== 'geometry')) });
    for (const f of page) expect(validate(withoutNulls(f['properties'])), JSON.stringify(validate.errors)).toBe(true);
  });

  it('the GeoJSON Feature\'s schema validates every feature of a page, nulls set aside', async () => {
    const { body: schema } = await get(`${base}/schema/geojson`);
    const page = (await get(`${base}/items?limit=50`)).body['features'] as Json[];
    expect(page.length).toBeGreaterThan(0);
    const validate = validator(schema);
    for (const f of page) expect(validate({ ...f, properties: withoutNulls(f['properties']) }), JSON.stringify(validate.errors)).toBe(true);
    // A single type per property: GDAL reads no list of types.
    for (const [name, p] of Object.entries(schema['properties']['properties']['properties'] as Record<string, Json>)) expect(typeof p['type'], name).toBe('string');
  });
});

describe('regions (REGIONS_FILE: none in the fixture)', () => {
  it('links both schemas and types its three text properties and its outline', async () => {
    const links = (await get('/v1/features/collections/regions')).body['links'] as Json[];
    expect(links.filter((l) => /\/schema(\/geojson)?$/.test(l['href'])).map((l) => l['rel'])).toEqual(['http://www.opengis.net/def/rel/ogc/1.0/schema', 'describedby', 'describedBy']);
    const props = (await get('/v1/features/collections/regions/schema')).body['properties'];
    expect(Object.keys(props)).toEqual(['RegionId', 'name', 'set', 'geometry']);
    expect(props['RegionId']).toMatchObject({ type: 'string', 'x-ogc-role': 'id' });
    expect(props['geometry']).toMatchObject({ format: 'geometry-polygon-or-multipolygon', 'x-ogc-role': 'primary-geometry' });
    const validate = validator((await get('/v1/features/collections/regions/schema/geojson')).body);
    expect(validate({ type: 'Feature', id: 'hub.pacific', geometry: { type: 'Polygon', coordinates: [] }, properties: { RegionId: 'hub.pacific', name: 'Pacific', set: 'hub' } })).toBe(true);
  });
});

describe('types the clients read', () => {
  it('numbers, dates and the wide keys of the tables of their own', async () => {
    const wqi = (await get('/v1/features/collections/water-quality-index/schema/geojson')).body['properties']['properties']['properties'];
    expect({ WQI: wqi['WQI']['type'], Year: wqi['Year']['type'], Category: wqi['Category']['type'], Id: wqi['Id']['type'] }).toEqual({ WQI: 'number', Year: 'integer', Category: 'string', Id: 'number' });
    const summaries = (await get('/v1/features/collections/location-summaries/schema')).body['properties'];
    expect(summaries['FirstDate']).toMatchObject({ type: 'string', format: 'date' });
    // A time of day with no offset: not JSON Schema's format time (RFC 3339's, which has one).
    expect(summaries['LatestTime']).toMatchObject({ type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$' });
    expect(summaries['LatestDate']).toMatchObject({ 'x-ogc-role': 'primary-instant' });
    expect(summaries['Id']).toMatchObject({ type: 'integer', 'x-ogc-role': 'id' });
    const observations = (await get('/v1/features/collections/observations/schema/geojson')).body['properties']['properties']['properties'];
    expect(observations['Id']['type']).toBe('integer');
  });
});
