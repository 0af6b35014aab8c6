/**
 * The features API's documents over HTTP against the real fixture file: landing page, conformance, collections with
 * their extents (checked against SQL on the plain tables), queryables, and the OpenAPI 3.0 description (validated).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getResource } from '../../../schemas/index.js';
import { createApp } from '../app.js';
import { openKeyStore } from '../keys/key-store.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';
import { featuresOpenApi } from './features-openapi.js';
import { ITEMS_LIMIT } from './items-query.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const F = '/v1/features';
let fixture: FixtureApp;
let app: Hono;
let ref: DuckDBConnection;

beforeAll(async () => {
  fixture = await openFixtureApp(inject('apiFixtureDb'));
  ({ app, ref } = fixture);
});
afterAll(() => fixture.close());

async function get(path: string): Promise<{ res: Response; body: Json }> {
  const res = await app.request(path);
  return { res, body: (await res.json()) as Json };
}

describe('OGC API – Features: discovery', () => {
  it('landing page: service-desc, conformance, data, and how to send and get a key', async () => {
    const { res, body } = await get(F);
    expect(res.status).toBe(200);
    const rels = Object.fromEntries((body['links'] as Json[]).map((l) => [l['rel'], l]));
    expect(rels['service-desc']).toMatchObject({ href: `http://localhost${F}/api`, type: 'application/vnd.oai.openapi+json;version=3.0' });
    expect(rels['conformance']['href']).toBe(`http://localhost${F}/conformance`);
    expect(rels['data']['href']).toBe(`http://localhost${F}/collections`);
    expect(rels['self']['href']).toBe(`http://localhost${F}`);
    expect(body['description']).toMatch(/x-api-key/);
    expect(body['description']).toMatch(/keys are issued/);
  });

  it('conformance: core, geojson, oas30, html, Part 3 queryables and filtering with basic CQL2 (text and JSON) and its spatial functions with every literal', async () => {
    const { body } = await get(`${F}/conformance`);
    expect(body['conformsTo']).toEqual([
      'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
      'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
      'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30',
      'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html',
      'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables',
      'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables-query-parameters',
      'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter',
      'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter',
      'http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2',
      'http://www.opengis.net/spec/cql2/1.0/conf/cql2-text',
      'http://www.opengis.net/spec/cql2/1.0/conf/cql2-json',
      'http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions',
      'http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions-plus',
      'http://www.opengis.net/spec/cql2/1.0/conf/spatial-functions',
    ]);
  });

  it('collections: every collection of the published file with the extent of the published data', async () => {
    const { body } = await get(`${F}/collections`);
    const row = (await ref.runAndReadAll(
      `SELECT min("Longitude"), min("Latitude"), max("Longitude"), max("Latitude") FROM locations`,
    )).getRows()[0]!.map(Number);
    const [first, last] = (await ref.runAndReadAll(`SELECT strftime(min("ActivityStartDate"), '%Y-%m-%d'), strftime(max("ActivityStartDate"), '%Y-%m-%d') FROM observations`)).getRows()[0]!.map(String);
    const collections = body['collections'] as Json[];
    // The regions of REGIONS_FILE come last (regions.test.ts): not read from the published file, no temporal extent.
    expect(collections.map((c) => c['id'])).toEqual(['locations', 'observations', 'location-summaries', 'guideline-comparisons', 'water-quality-index', 'trends', 'regions']);
    for (const c of collections.slice(0, 5)) {
      expect(c['itemType']).toBe('feature');
      expect(c['extent']['spatial']['bbox']).toEqual([row]);
      expect(c['extent']['temporal']['interval']).toEqual([[`${first}T00:00:00Z`, `${last}T23:59:59Z`]]);
      const items = (c['links'] as Json[]).find((l) => l['rel'] === 'items');
      expect(items).toMatchObject({ href: `http://localhost${F}/collections/${c['id']}/items`, type: 'application/geo+json' });
      const one = await get(`${F}/collections/${c['id']}`);
      expect(one.body).toEqual(c);
    }
  });

  it('queryables: a JSON Schema of every filterable field of the collection, each usable as a parameter', async () => {
    const res = await app.request(`${F}/collections/observations/queryables`);
    expect(res.headers.get('content-type')).toBe('application/schema+json');
    const body = (await res.json()) as Json;
    expect(body['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    const props = body['properties'] as Json;
    expect(Object.keys(props)).toEqual(['geometry', ...getResource('Records')!.filterable, 'MonitoringLocationLatitude', 'MonitoringLocationLongitude']);
    expect(props['ResultValue']).toMatchObject({ type: 'number' });
    expect(props['ActivityStartDate']).toMatchObject({ type: 'string', format: 'date' });
    expect(props['ActivityStartYear']).toMatchObject({ type: 'integer' });
    const locations = (await get(`${F}/collections/locations/queryables`)).body;
    expect(Object.keys(locations['properties'])).toEqual(['geometry', ...getResource('Locations')!.filterable]);
    for (const name of Object.keys(props).filter((n) => n !== 'geometry')) {
      // Each is accepted as an items parameter (a value of the wrong type is the planner's 400 naming it, never "unknown").
      const r = await get(`${F}/collections/observations/items?limit=1&${name}=1`);
      if (r.res.status !== 200) expect(r.body['errors'][0]['source']['parameter']).toBe(name);
      expect(r.body['description'] ?? '').not.toMatch(/Unknown query parameter/);
    }
  });

  it('service-desc: a valid OpenAPI 3.0 document with the limit default and maximum and the field parameters', async () => {
    const res = await app.request(`${F}/api`);
    expect(res.headers.get('content-type')).toBe('application/vnd.oai.openapi+json;version=3.0');
    const doc = (await res.json()) as Json;
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(validator.version).toBe('3.0');
    expect(doc['servers'][0]['url']).toBe(`http://localhost${F}`);
    expect(doc['components']['parameters']['limit']['schema']).toMatchObject({ default: ITEMS_LIMIT.default, maximum: ITEMS_LIMIT.max });
    const params = (doc['paths']['/collections/locations/items']['get']['parameters'] as Json[]).map((p) => p['name'] ?? p['$ref']);
    expect(params).toContain('CharacteristicName');
    expect(params).toContain('#/components/parameters/bbox');
  });

  it('the validator rejects a broken document (so the check above is not vacuous)', async () => {
    const broken = featuresOpenApi('https://api.example.org') as Json;
    broken['paths']['/conformance']['get']['responses'] = 'none';
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });
});

describe('OGC API – Features: keys, CORS and rate limits as on the OData API', () => {
  it('no key → 401 with the standard exception; a key → 200; an allowed origin gets CORS headers; the bucket → 429', async () => {
    const keys = await openKeyStore({ plainKeys: ['k1'] });
    try {
      const guarded = createApp({
        acquire: () => fixture.db.acquire(),
        links: { trustProxy: false },
        access: { keys, corsOrigins: ['https://map.example.org'], rateLimit: { rps: 1, burst: 2, now: () => 0 } },
      });
      const items = `${F}/collections/locations/items?limit=1`;
      const refused = await guarded.request(items);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'missing_api_key', description: expect.stringMatching(/x-api-key/) });
      const ok = await guarded.request(items, { headers: { 'x-api-key': 'k1' } });
      expect(ok.status).toBe(200);
      const browser = await guarded.request(items, { headers: { origin: 'https://map.example.org' } });
      expect(browser.status).toBe(200);
      expect(browser.headers.get('access-control-allow-origin')).toBe('https://map.example.org');
      // The key's bucket holds 2 and the clock stands still: its third request is over the rate.
      expect((await guarded.request(items, { headers: { 'x-api-key': 'k1' } })).status).toBe(200);
      const limited = await guarded.request(items, { headers: { 'x-api-key': 'k1' } });
      expect(limited.status).toBe(429);
      expect(await limited.json()).toMatchObject({ code: 'rate_limited' });
    } finally {
      keys.close();
    }
  });
});
